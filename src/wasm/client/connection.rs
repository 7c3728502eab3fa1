//! [`Connection`]: the link to the host: where to connect, the open transport and its
//! generation, reconnection's schedule.
//!
//! Every connection gets a new generation; a callback tagged with an older one (a socket
//! already let go, a late frame) is ignored. A connection that drops after a handshake is
//! retried on the [`ReconnectPolicy`]'s schedule; one that never opens fails `connect()`.
//! The driver reacts to the transport's reports (its `TransportEvents`) with these.
//!
//! No borrow of it is held while user code runs: a custom transport's factory is called
//! before the new transport is stored; a transport is taken out of its cell before it is
//! closed, cloned before it sends.

use super::conn::Conn;
use super::timer::{now, Timer};
use super::transport;
use super::transport_events::TransportEvents;
use crate::client::ReconnectPolicy;
use crate::client::{Error, TransportErrorKind};
use js_sys::Function;
use std::cell::{Cell, RefCell};
use std::rc::Weak;

/// The connection to the host and its reconnection state. Exists so one place knows which
/// transport is current (its generation), whether it opened, and when to retry.
pub struct Connection {
    /// The URL as given (without the token).
    pub url: String,
    /// The URL connections are opened with (may carry the token: never show it).
    connect_url: String,
    /// `ConnectOptions.transport`: a custom transport factory (else a WebSocket).
    factory: Option<Function>,
    /// `None`: a dropped connection closes the client.
    policy: Option<ReconnectPolicy>,
    conn: RefCell<Option<Conn>>,
    /// Tags the current transport's callbacks; bumped whenever a transport is let go.
    generation: Cell<u64>,
    /// The current transport reported itself open.
    opened: Cell<bool>,
    /// A handshake succeeded once (later drops reconnect; before that, `connect()` fails).
    ever_connected: Cell<bool>,
    /// Reconnection attempts since the last handshake.
    attempt: Cell<u32>,
    /// `connect()`'s promise, until the first handshake.
    connect_promise: RefCell<Option<(Function, Function)>>,
    /// Fires the next reconnection attempt; also bounds an attempt that never opens.
    timer: Timer,
}

impl Connection {
    /// Not connected yet; `on_timer` runs when the reconnect timer fires.
    pub fn new(
        url: String,
        token: Option<&str>,
        factory: Option<Function>,
        policy: Option<ReconnectPolicy>,
        on_timer: impl FnMut() + 'static,
    ) -> Self {
        let connect_url = match token {
            Some(token) => crate::client::with_query_param(&url, "tkn", token),
            None => url.clone(),
        };
        Connection {
            url,
            connect_url,
            factory,
            policy,
            conn: RefCell::new(None),
            generation: Cell::new(0),
            opened: Cell::new(false),
            ever_connected: Cell::new(false),
            attempt: Cell::new(0),
            connect_promise: RefCell::new(None),
            timer: Timer::new(on_timer),
        }
    }

    /// Whether `generation` is the current transport's.
    pub fn is_current(&self, generation: u64) -> bool {
        generation == self.generation.get()
    }

    pub fn generation(&self) -> u64 {
        self.generation.get()
    }

    pub fn opened(&self) -> bool {
        self.opened.get()
    }

    pub fn has_transport(&self) -> bool {
        self.conn.borrow().is_some()
    }

    pub fn ever_connected(&self) -> bool {
        self.ever_connected.get()
    }

    pub fn attempt(&self) -> u32 {
        self.attempt.get()
    }

    /// A handshake succeeded: later drops reconnect, starting again from attempt 1.
    pub fn handshake_done(&self) {
        self.ever_connected.set(true);
        self.attempt.set(0);
    }

    pub fn set_connect_promise(&self, resolve: Function, reject: Function) {
        *self.connect_promise.borrow_mut() = Some((resolve, reject));
    }

    /// `connect()`'s `(resolve, reject)`, once.
    pub fn take_connect_promise(&self) -> Option<(Function, Function)> {
        self.connect_promise.borrow_mut().take()
    }

    /// Opens a new transport (a new generation), reporting to `inner`.
    pub fn open<T: TransportEvents + 'static>(&self, inner: Weak<T>) -> Result<(u64, Conn), Error> {
        let generation = self.generation.get() + 1;
        self.generation.set(generation);
        self.opened.set(false);
        let conn = match &self.factory {
            Some(factory) => transport::open_custom(factory, &self.connect_url, inner, generation),
            None => transport::open_ws(&self.connect_url, inner, generation),
        }
        .map_err(|e| match e {
            // Messages may quote the URL: keep the token out of them.
            Error::Transport { kind, message } if self.connect_url != self.url => {
                Error::transport(kind, message.replace(&self.connect_url, &self.url))
            }
            other => other,
        })?;
        Ok((generation, conn))
    }

    /// Keeps the transport just opened; one that is not open yet must open within `timeout_ms`
    /// (the reconnect timer bounds the attempt).
    pub fn install(&self, conn: Conn, timeout_ms: f64) {
        *self.conn.borrow_mut() = Some(conn);
        if !self.opened.get() {
            self.timer.arm_at(now() + timeout_ms);
        }
    }

    /// The current transport reported itself open (false: stale, or already open).
    pub fn mark_open(&self, generation: u64) -> bool {
        if !self.is_current(generation) || self.opened.get() {
            return false;
        }
        self.opened.set(true);
        self.timer.clear();
        true
    }

    /// Lets the transport go (its late callbacks become stale); close it with no borrow held.
    #[must_use]
    pub fn take(&self) -> Option<Conn> {
        self.generation.set(self.generation.get() + 1);
        self.opened.set(false);
        self.conn.borrow_mut().take()
    }

    /// A copy of the open transport to send through (sending may run user code).
    pub fn sender(&self) -> Option<Conn> {
        if !self.opened.get() {
            return None;
        }
        self.conn.borrow().as_ref().map(|conn| match conn {
            Conn::Ws(tx) => Conn::Ws(tx.clone()),
            Conn::Custom { this, send, close } => Conn::Custom {
                this: this.clone(),
                send: send.clone(),
                close: close.clone(),
            },
        })
    }

    /// Arms the next attempt; false when the policy gives up (or there is none).
    pub fn schedule_retry(&self) -> bool {
        let attempt = self.attempt.get() + 1;
        match &self.policy {
            Some(policy) if !policy.gives_up(attempt) => {
                self.attempt.set(attempt);
                self.timer.arm_at(now() + policy.delay_ms(attempt));
                true
            }
            _ => false,
        }
    }

    /// The reconnect timer fired: it is no longer armed.
    pub fn timer_fired(&self) {
        self.timer.fired();
    }

    /// The client closed: no more attempts.
    pub fn stop(&self) {
        self.timer.clear();
    }

    /// The error of a connection attempt that failed for `reason`.
    pub fn cannot_connect(&self, reason: &str) -> Error {
        Error::transport(
            TransportErrorKind::Connect,
            format!("cannot connect to {}: {reason}", self.url),
        )
    }
}
