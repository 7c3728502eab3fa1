//! [`Inner`]: the engine of one client and what drives it in a JS event loop.
//!
//! Everything is event-driven: transport callbacks, `setTimeout` timers and API calls feed
//! the sans-IO [`Engine`]; after every engine call [`Inner::sync`] drains it (outgoing frames
//! to the outbox, events to the delivery queue, subscription renderings brought up to date
//! from the events' patches) without running any user code; then [`Inner::run`] sends the
//! outbox and delivers the queue (resolving promises, calling listeners) with no `RefCell`
//! borrowed. A listener that calls back into the client (dispatch, subscribe, close, ...) is
//! fine: its engine call is synced at once (so `state` is current inside the listener) and
//! its events are delivered after the current one, in engine order.
//!
//! **The invariant: never call user code (JS listeners, handlers, promise callbacks, a custom
//! transport) while an internal borrow is held.** As in Replicache: state changes first, then
//! notifications, one per channel per batch. User code may call back into the client at any
//! point; a `RefCell` borrowed across that call would panic (a wasm trap). So the parts of
//! [`Inner`] only hold data and never call out; the functions to call are cloned out of them
//! first, and called by [`super::delivery`] (or, for sending, [`Inner::run`]) after every
//! borrow is released.
//!
//! The parts of [`Inner`], one file each:
//! - [`Connection`] ([`super::connection`]): where to connect, the open transport and its
//!   generation, reconnection; with the transport callbacks.
//! - [`Mailbox`] ([`super::mailbox`]): frames in and out and deliveries, queued between the
//!   engine and user code, and the guard that keeps runs from nesting.
//! - [`Requests`] ([`super::requests`]): the promises of requests in flight.
//! - [`Channels`] ([`super::channels`]): the `Subscription` objects, their renderings and
//!   change listeners.
//! - [`Listeners`] ([`super::listeners`]): client-event and connection-state listeners,
//!   server-request handlers.
//! - [`Lifetime`] (here): open or closed, and the references that tie the client to JS.
//!
//! [`super::delivery`] turns queued items into calls of user code.

use super::channels::Channels;
use super::connection::Connection;
use super::events::{self, Delivery};
use super::listeners::Listeners;
use super::mailbox::Mailbox;
use super::options::Options;
use super::requests::Requests;
use super::timer::{now, Timer};
use crate::client::engine::{Engine, Event};
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;

/// `commands.rs` and `client.rs` name it here.
pub use super::requests::Decode;

#[wasm_bindgen(module = "/js/glue.js")]
extern "C" {
    #[wasm_bindgen(js_name = thenBoth)]
    pub fn then_both(
        promise: &js_sys::Promise,
        on_ok: &JsValue,
        on_err: &JsValue,
    ) -> js_sys::Promise;
}

/// The client state shared by `AhpClient`, its `Subscription`s and the driver.
pub struct Inner {
    /// This client, weakly: for callbacks (transports, timers, promises) and handed-out
    /// objects, which must not keep a closed client alive.
    pub(super) me: Weak<Inner>,
    /// All protocol state (requests, subscriptions, reconciliation), sans IO.
    pub(super) engine: RefCell<Engine>,
    pub(super) connection: Connection,
    pub(super) mailbox: Mailbox,
    pub(super) requests: Requests,
    pub(super) channels: Channels,
    pub(super) listeners: Listeners,
    pub(super) lifetime: Lifetime,
    /// Fires at the engine's next deadline (request timeouts, keep-alive pings).
    deadline_timer: Timer,
}

/// Whether the client is open, and the references that tie it to JS. Exists because the
/// client and the JS objects it hands out refer to each other: while open it holds itself
/// (its transport and timers refer to it weakly, so nothing else would), and `close()` lets
/// go of it all, breaking the JS <-> Rust cycles.
#[derive(Default)]
pub struct Lifetime {
    closed: Cell<bool>,
    /// The client itself, while open.
    alive: RefCell<Option<Rc<Inner>>>,
    /// The `AhpClient` object (one per client, so `multi.host(name) === client`).
    handle: RefCell<Option<JsValue>>,
}

impl Lifetime {
    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }

    /// Keeps the client alive until [`Lifetime::let_go`].
    pub fn hold(&self, client: Rc<Inner>) {
        *self.alive.borrow_mut() = Some(client);
    }

    fn close(&self) {
        self.closed.set(true);
    }

    /// The `AhpClient` object, or `make`'s (kept while open).
    fn handle_or(&self, make: impl FnOnce() -> JsValue) -> JsValue {
        if let Some(handle) = self.handle.borrow().as_ref() {
            return handle.clone();
        }
        let handle = make();
        if !self.is_closed() {
            *self.handle.borrow_mut() = Some(handle.clone());
        }
        handle
    }

    /// The `AhpClient` object and the client itself, to drop with no borrow held.
    fn let_go(&self) -> (Option<JsValue>, Option<Rc<Inner>>) {
        (
            self.handle.borrow_mut().take(),
            self.alive.borrow_mut().take(),
        )
    }
}

impl Inner {
    /// A client, not yet connected.
    pub fn new(url: String, options: Options) -> Rc<Inner> {
        let Options {
            config,
            token,
            reconnect,
            transport,
        } = options;
        Rc::new_cyclic(|me: &Weak<Inner>| {
            let (tick, retry) = (me.clone(), me.clone());
            Inner {
                me: me.clone(),
                engine: RefCell::new(Engine::new(config)),
                connection: Connection::new(
                    url,
                    token.as_deref(),
                    transport,
                    reconnect,
                    move || {
                        if let Some(inner) = retry.upgrade() {
                            inner.connection.timer_fired();
                            inner.try_reconnect();
                        }
                    },
                ),
                mailbox: Mailbox::default(),
                requests: Requests::default(),
                channels: Channels::default(),
                listeners: Listeners::default(),
                lifetime: Lifetime::default(),
                deadline_timer: Timer::new(move || {
                    if let Some(inner) = tick.upgrade() {
                        inner.deadline_timer.fired();
                        inner.with_engine(|e, now| e.on_tick(now));
                        inner.run();
                    }
                }),
            }
        })
    }

    pub(super) fn rc(&self) -> Rc<Inner> {
        self.me
            .upgrade()
            .expect("the client is alive while its methods run")
    }

    pub fn is_closed(&self) -> bool {
        self.lifetime.is_closed()
    }

    /// A fresh listener id.
    pub fn listener_id(&self) -> u32 {
        self.listeners.next_id()
    }

    /// Runs `f` on the engine, then [`Inner::sync`]s (no user code runs in between).
    pub fn with_engine<R>(&self, f: impl FnOnce(&mut Engine, f64) -> R) -> R {
        self.with_engine_at(now(), f)
    }

    /// [`Inner::with_engine`] at the time `now` (ms since the epoch) the caller read already.
    pub fn with_engine_at<R>(&self, now: f64, f: impl FnOnce(&mut Engine, f64) -> R) -> R {
        let result = f(&mut self.engine.borrow_mut(), now);
        self.sync();
        result
    }

    /// The `AhpClient` object of this client.
    pub fn client_handle(&self) -> JsValue {
        self.lifetime
            .handle_or(|| super::client::AhpClient::from_inner(self.rc()).into())
    }

    /// The channel's `Subscription` object (created on first use).
    pub fn subscription_handle(&self, channel: &str) -> JsValue {
        if let Some(handle) = self.channels.handle(channel) {
            return handle;
        }
        let serial = self.listener_id();
        let handle: JsValue =
            super::subscription::Subscription::new(self.rc(), channel, serial).into();
        if !self.is_closed() {
            self.channels.insert(channel, handle.clone(), serial);
        }
        handle
    }

    /// Closes for good: outstanding requests reject with `ClientClosedError`.
    pub fn close(&self) {
        if self.is_closed() {
            return;
        }
        self.with_engine(|e, _| e.close());
        self.lifetime.close();
        self.deadline_timer.clear();
        self.connection.stop();
        self.drop_conn();
        self.mailbox.clear_outgoing();
        self.run();
        // Break the JS <-> Rust reference cycles of handed-out objects.
        let channels = self.channels.let_go();
        let lifetime = self.lifetime.let_go();
        drop((channels, lifetime));
    }

    // --- the loop -----------------------------------------------------------------------

    /// Drains the engine: frames to the outbox, events to the queue, renderings patched.
    /// Runs no user code.
    pub fn sync(&self) {
        let engine = &mut *self.engine.borrow_mut();
        self.mailbox.collect_outgoing(engine);
        let mut changes = self.channels.gather();
        let mut queue = self.mailbox.queue();
        while let Some(event) = engine.poll_event() {
            match event {
                Event::ChannelChanged {
                    channel,
                    changed,
                    confirmed_changed,
                    pending,
                    patch,
                } => changes.changed(
                    channel,
                    changed,
                    !confirmed_changed.is_empty(),
                    pending,
                    patch,
                ),
                Event::Subscribed { channel } => {
                    let pending = engine.mirror(&channel).map_or(0, |m| m.pending_count());
                    changes.subscribed(channel, pending);
                }
                Event::Rejected { channel, rejection } => {
                    // The subscription's listeners get their own JS copy now; the Rust value
                    // goes on to the client's listeners (no clone of the action).
                    changes.rejected(channel.clone(), events::rejection(&rejection));
                    queue.push_back(Delivery::Event(Event::Rejected { channel, rejection }));
                }
                other => queue.push_back(Delivery::Event(other)),
            }
        }
        self.channels.apply(changes, engine, &mut queue);
    }

    /// Sends the outbox and delivers the queue until both are empty. Re-entrant calls (from
    /// a listener or a transport) return at once: the outer call picks their work up.
    pub fn run(&self) {
        if !self.mailbox.enter() {
            return;
        }
        loop {
            let frames = self.mailbox.take_received();
            if !frames.is_empty() {
                self.with_engine(|e, now| e.handle_frames(frames, now));
                continue;
            }
            if self.send_outbox() {
                continue;
            }
            match self.mailbox.next_delivery() {
                Some(delivery) => self.deliver(delivery),
                None => break,
            }
        }
        self.mailbox.leave();
        self.arm_deadline();
    }

    /// Sends what the outbox holds; whether anything was sent.
    fn send_outbox(&self) -> bool {
        let mut sent = false;
        while self.mailbox.has_outgoing() {
            // Custom transports are user code: send through a copy, no borrow held.
            let Some(target) = self.connection.sender() else {
                return sent;
            };
            let Some(frame) = self.mailbox.next_outgoing() else {
                return sent;
            };
            sent = true;
            if let Err(error) = target.send(&frame) {
                self.connection_lost(&error.to_string());
                return true;
            }
        }
        sent
    }

    fn arm_deadline(&self) {
        if self.is_closed() {
            return;
        }
        match self.engine.borrow().next_deadline() {
            Some(at) => self.deadline_timer.arm_by(at),
            None => self.deadline_timer.clear(),
        }
    }
}
