//! [`Connection`]: the link to the host (where to connect, the open transport, its generation,
//! reconnection), and the transport callbacks that drive it ([`Inner`]'s `transport_*`
//! methods, called by [`super::transport`]).
//!
//! Every connection gets a new generation; a callback tagged with an older one (a socket
//! already let go, a late frame) is ignored. A connection that drops after a handshake is
//! retried on the [`ReconnectPolicy`]'s schedule; one that never opens fails `connect()`.
//!
//! The invariant of [`super::driver`] holds here too: a callback only changes state and
//! queues deliveries; user code (listeners, a custom transport's `send`/`close`) runs with no
//! `RefCell` borrowed: a transport is taken out of its cell before it is closed, cloned
//! before it sends.

use super::driver::Inner;
use super::events::Delivery;
use super::timer::{now, Timer};
use super::transport::{self, Conn};
use crate::client::engine::Event;
use crate::client::ReconnectPolicy;
use crate::client::{Error, TransportErrorKind};
use js_sys::Function;
use std::cell::{Cell, RefCell};
use std::rc::Weak;
use wasm_bindgen::prelude::*;

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
    fn open(&self, inner: Weak<Inner>) -> Result<(u64, Conn), Error> {
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
    fn install(&self, conn: Conn, timeout_ms: f64) {
        *self.conn.borrow_mut() = Some(conn);
        if !self.opened.get() {
            self.timer.arm_at(now() + timeout_ms);
        }
    }

    /// The current transport reported itself open (false: stale, or already open).
    fn mark_open(&self, generation: u64) -> bool {
        if !self.is_current(generation) || self.opened.get() {
            return false;
        }
        self.opened.set(true);
        self.timer.clear();
        true
    }

    /// Lets the transport go (its late callbacks become stale); close it with no borrow held.
    #[must_use]
    fn take(&self) -> Option<Conn> {
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
    fn schedule_retry(&self) -> bool {
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
    fn cannot_connect(&self, reason: &str) -> Error {
        Error::transport(
            TransportErrorKind::Connect,
            format!("cannot connect to {}: {reason}", self.url),
        )
    }
}

impl Inner {
    /// Whether a callback tagged `generation` is the current transport's, on an open client.
    fn is_live(&self, generation: u64) -> bool {
        self.connection.is_current(generation) && !self.is_closed()
    }

    /// Opens the first connection; `connect()`'s promise settles after the handshake.
    pub fn start(&self, resolve: Function, reject: Function) {
        self.connection.set_connect_promise(resolve, reject);
        self.lifetime.hold(self.rc());
        if let Err(error) = self.open_transport() {
            self.fail_connect(&error);
        }
    }

    fn open_transport(&self) -> Result<(), Error> {
        let (generation, conn) = self.connection.open(self.me.clone())?;
        if !self.is_live(generation) {
            conn.close(); // closed (or replaced) from inside the factory
            return Ok(());
        }
        // A connection that never opens fails after the request timeout.
        let timeout = self.engine.borrow().config().request_timeout_ms;
        self.connection.install(conn, timeout);
        self.run(); // frames queued if the factory already reported the connection open
        Ok(())
    }

    pub fn transport_open(&self, generation: u64) {
        if self.is_closed() || !self.connection.mark_open(generation) {
            return;
        }
        self.with_engine(|e, now| e.on_open(now));
        self.run();
    }

    pub fn transport_frames(&self, generation: u64, frames: Vec<String>) {
        if !self.is_live(generation) || frames.is_empty() {
            return;
        }
        self.mailbox.receive(frames);
        self.run();
    }

    /// Takes one frame from the transport's buffer without running user code: parsed at once
    /// (`now`: when it arrived, read by the JS side), or copied to the inbox when a delivery
    /// is under way. Whether the caller should [`Inner::run`] now (false: a stale
    /// connection's frame, ignored).
    pub fn accept_frame(&self, generation: u64, text: &str, now: f64) -> bool {
        if !self.is_live(generation) {
            return false;
        }
        if self.mailbox.is_busy() {
            self.mailbox.receive([text.to_string()]);
        } else {
            self.with_engine_at(now, |e, now| e.handle_frame(text, now));
        }
        true
    }

    /// Reports a frame the transport could not hand over; whether to [`Inner::run`].
    pub fn reject_frame(&self, generation: u64, why: &str) -> bool {
        if !self.is_live(generation) {
            return false;
        }
        self.mailbox.push(Delivery::Event(Event::Malformed {
            message: format!("the transport delivered {why}"),
            frame: String::new(),
        }));
        true
    }

    pub fn transport_bad_frame(&self, generation: u64, value: &JsValue) {
        let what = if value.is_object() {
            "an object, not a text frame"
        } else {
            "a non-string value, not a text frame"
        };
        if self.reject_frame(generation, what) {
            self.run();
        }
    }

    pub fn transport_closed(&self, generation: u64, reason: &str) {
        if !self.is_live(generation) {
            return;
        }
        let reason = if reason.is_empty() { "closed" } else { reason };
        if self.connection.opened() {
            self.connection_lost(reason);
        } else if !self.connection.ever_connected() {
            self.drop_conn();
            self.fail_connect(&self.connection.cannot_connect(reason));
        } else {
            self.drop_conn();
            self.reconnect_failed(self.connection.cannot_connect(reason));
        }
    }

    /// Lets the transport go, with the frames it delivered that were not parsed yet.
    pub(super) fn drop_conn(&self) {
        let conn = self.connection.take();
        self.mailbox.clear_received();
        if let Some(conn) = conn {
            conn.close();
        }
    }

    /// The connection dropped (or its handshake failed, or it went stale).
    pub(super) fn connection_lost(&self, reason: &str) {
        self.drop_conn();
        if self.is_closed() {
            return;
        }
        if !self.connection.ever_connected() {
            self.fail_connect(&Error::transport(
                TransportErrorKind::Connect,
                format!(
                    "connection to {} lost during the handshake: {reason}",
                    self.connection.url
                ),
            ));
            return;
        }
        self.mailbox.clear_outgoing();
        self.with_engine(|e, now| e.on_close(reason, now));
        self.schedule_reconnect();
        self.run();
    }

    fn schedule_reconnect(&self) {
        if !self.connection.schedule_retry() {
            self.close();
        }
    }

    /// The reconnect timer fired: time to retry, or a connection attempt did not open in time.
    pub(super) fn try_reconnect(&self) {
        if self.is_closed() {
            return;
        }
        if self.connection.has_transport() {
            if !self.connection.opened() {
                let generation = self.connection.generation();
                self.transport_closed(generation, "timed out opening the connection");
            }
            return;
        }
        if let Err(error) = self.open_transport() {
            self.reconnect_failed(error);
        }
    }

    fn reconnect_failed(&self, error: Error) {
        let attempt = self.connection.attempt();
        self.mailbox
            .push(Delivery::ReconnectFailed { attempt, error });
        self.schedule_reconnect();
        self.run();
    }

    /// The first connection failed: `connect()` rejects and the client closes.
    pub(super) fn fail_connect(&self, error: &Error) {
        let promise = self.connection.take_connect_promise();
        self.close();
        if let Some((_, reject)) = promise {
            let _ = reject.call1(&JsValue::UNDEFINED, &super::errors::to_js_error(error));
        }
    }
}
