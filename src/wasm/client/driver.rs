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
//! first, and called by `deliver` (or, for sending, [`Inner::run`]) after every borrow is
//! released.
//!
//! The parts of [`Inner`], one file each:
//! - [`Connection`] ([`super::connection`]): where to connect, the open transport and its
//!   generation, reconnection.
//! - [`Mailbox`] ([`super::mailbox`]): frames in and out and deliveries, queued between the
//!   engine and user code, and the guard that keeps runs from nesting.
//! - [`Requests`] ([`super::requests`]): the promises of requests in flight.
//! - [`Channels`] ([`super::channels`]): the `Subscription` objects, their renderings and
//!   change listeners.
//! - [`Listeners`] ([`super::listeners`]): client-event and connection-state listeners,
//!   server-request handlers.
//! - [`Lifetime`] ([`super::lifetime`]): open or closed, and the references that tie the
//!   client to JS.
//!
//! Here, top-down in the order a frame goes: the transport's reports ([`TransportEvents`]: a
//! frame arrives), [`Inner::sync`] (the engine drained), [`Inner::run`] (the loop), `deliver`
//! (user code called); then requests' promises, the connection's loss and reconnection, and
//! `close`. The transports report through [`TransportEvents`], so they need not know this
//! type; the JS classes (`AhpClient`, `Subscription`) are above this file, which makes their
//! objects with the `make_*` constructors it is given.

use super::channels::Channels;
use super::connection::Connection;
use super::decode::Decode;
use super::delivery::Delivery;
use super::errors::{to_js_error, to_js_error_for};
use super::events;
use super::lifetime::Lifetime;
use super::listener::call;
use super::listeners::Listeners;
use super::mailbox::Mailbox;
use super::options::Options;
use super::requests::Requests;
use super::timer::{now, Timer};
use super::transport_events::TransportEvents;
use super::waiter::Waiter;
use crate::client::engine::{Engine, Event};
use crate::client::{Error, TransportErrorKind};
use crate::protocol::{RawJson, RawJsonBuf};
use crate::wasm::convert::from_js;
use crate::wasm::wire::{self, ChannelEvent, StateAction};
use js_sys::Function;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;

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
    pub(super) lifetime: Lifetime<Inner>,
    /// Fires at the engine's next deadline (request timeouts, keep-alive pings).
    deadline_timer: Timer,
    /// Makes this client's `AhpClient` object (the classes are above the driver: `client.rs`).
    make_client: fn(Rc<Inner>) -> JsValue,
    /// Makes the `Subscription` object of a channel (`serial`: its serial).
    make_subscription: fn(Rc<Inner>, &str, u32) -> JsValue,
}

impl Inner {
    /// A client, not yet connected; `make_client` and `make_subscription` make its JS objects.
    pub fn new(
        url: String,
        options: Options,
        make_client: fn(Rc<Inner>) -> JsValue,
        make_subscription: fn(Rc<Inner>, &str, u32) -> JsValue,
    ) -> Rc<Inner> {
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
                make_client,
                make_subscription,
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
        self.lifetime.handle_or(|| (self.make_client)(self.rc()))
    }

    /// The channel's `Subscription` object (created on first use).
    pub fn subscription_handle(&self, channel: &str) -> JsValue {
        if let Some(handle) = self.channels.handle(channel) {
            return handle;
        }
        let serial = self.listener_id();
        let handle = (self.make_subscription)(self.rc(), channel, serial);
        if !self.is_closed() {
            self.channels.insert(channel, handle.clone(), serial);
        }
        handle
    }

    /// Applies `action` optimistically on `channel` and sends it; returns its `clientSeq`.
    pub fn dispatch(&self, channel: &str, action: &JsValue) -> Result<f64, JsValue> {
        let action: StateAction = from_js(action, "action")?;
        let seq = self
            .with_engine(|e, now| wire::dispatch(e, channel, action, now))
            .map_err(|e| to_js_error(&e))?;
        self.run();
        Ok(seq as f64)
    }
}

// --- 1. In: the transport's reports (a frame arrives) -------------------------------------

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
}

impl TransportEvents for Inner {
    fn transport_open(&self, generation: u64) {
        if self.is_closed() || !self.connection.mark_open(generation) {
            return;
        }
        self.with_engine(|e, now| e.on_open(now));
        self.run();
    }

    fn transport_frames(&self, generation: u64, frames: Vec<String>) {
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
    fn accept_frame(&self, generation: u64, text: &str, now: f64) -> bool {
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
    fn reject_frame(&self, generation: u64, why: &str) -> bool {
        if !self.is_live(generation) {
            return false;
        }
        self.mailbox.push(Delivery::Event(Event::Malformed {
            message: format!("the transport delivered {why}"),
            frame: String::new(),
        }));
        true
    }

    fn transport_bad_frame(&self, generation: u64, value: &JsValue) {
        let what = if value.is_object() {
            "an object, not a text frame"
        } else {
            "a non-string value, not a text frame"
        };
        if self.reject_frame(generation, what) {
            self.run();
        }
    }

    fn transport_closed(&self, generation: u64, reason: &str) {
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

    fn run(&self) {
        Inner::run(self);
    }
}

// --- 2. The engine drained; 3. the loop -------------------------------------------------

impl Inner {
    /// Drains the engine: frames to the outbox, events to the queue, renderings patched.
    /// Runs no user code.
    pub fn sync(&self) {
        let engine = &mut *self.engine.borrow_mut();
        self.mailbox.collect_outgoing(engine);
        let mut changes = self.channels.gather();
        let mut queue = self.mailbox.queue();
        while let Some(event) = engine.poll_event() {
            match wire::channel_event(event) {
                Ok(ChannelEvent::Changed {
                    channel,
                    changed,
                    confirmed_changed,
                    pending,
                    patch,
                }) => changes.changed(
                    channel,
                    changed,
                    !confirmed_changed.is_empty(),
                    pending,
                    patch,
                ),
                Ok(ChannelEvent::Rejected { channel, rejection }) => {
                    // The subscription's listeners get their own JS copy now; the Rust value
                    // goes on to the client's listeners (no clone of the action).
                    changes.rejected(channel.clone(), events::rejection(&rejection));
                    let event = ChannelEvent::Rejected { channel, rejection };
                    queue.push_back(Delivery::Channel(Box::new(event)));
                }
                Ok(other) => queue.push_back(Delivery::Channel(Box::new(other))),
                Err(Event::Subscribed { channel }) => {
                    let pending = wire::mirror(engine, &channel).map_or(0, |m| m.pending_count());
                    changes.subscribed(channel, pending);
                }
                Err(other) => queue.push_back(Delivery::Event(other)),
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

// --- 4. Out: deliveries to user code, requests' promises --------------------------------

impl Inner {
    /// Delivers one queued item; no borrow is held while user code runs.
    fn deliver(&self, delivery: Delivery) {
        match delivery {
            Delivery::Event(Event::Response { id, result }) => {
                if let Some(waiter) = self.requests.take(id) {
                    self.settle(waiter, result);
                }
            }
            Delivery::Event(Event::Connected { info, resumed }) => {
                self.connection.handshake_done();
                let promise = self.connection.take_connect_promise();
                self.publish(&events::connected(&info, resumed));
                if let Some((resolve, _)) = promise {
                    let handle = self.client_handle();
                    let _ = resolve.call1(&JsValue::UNDEFINED, &handle);
                }
            }
            Delivery::Event(Event::HandshakeFailed(error)) => {
                if self.connection.ever_connected() {
                    self.mailbox.push_front(Delivery::ReconnectFailed {
                        attempt: self.connection.attempt(),
                        error: error.clone(),
                    });
                    self.connection_lost(&format!("handshake failed: {error}"));
                } else if !self.is_closed() {
                    self.fail_connect(&error);
                }
            }
            Delivery::Event(Event::ConnectionStale) => {
                self.connection_lost("keep-alive ping unanswered");
            }
            Delivery::Event(Event::StateChanged(state)) => {
                let name = state.name();
                for listener in self.listeners.states.snapshot() {
                    call(&listener, &[JsValue::from_str(name)]);
                }
                self.publish(&events::connection_state(name));
            }
            Delivery::Event(Event::ServerRequest(request)) => self.serve_request(request),
            Delivery::Event(Event::SubscriptionLost { channel, reason }) => {
                // Its `Subscription` keeps the last rendering as its `state`.
                self.channels.retire(&channel, None);
                self.publish(&events::subscription_lost(&channel, &reason));
            }
            Delivery::Event(event) => {
                if let Some(value) = events::client_event(&event) {
                    self.publish(&value);
                }
            }
            Delivery::Channel(event) => {
                if let Some(value) = events::channel_client_event(&event) {
                    self.publish(&value);
                }
            }
            Delivery::ReconnectFailed { attempt, error } => {
                self.publish(&events::reconnect_failed(attempt, &error));
            }
            Delivery::Changed {
                channel,
                changed,
                pending,
                rejections,
            } => self.notify_channel(&channel, &changed, pending, &rejections),
        }
    }

    fn notify_channel(
        &self,
        channel: &str,
        changed: &[&'static str],
        pending: usize,
        rejections: &[JsValue],
    ) {
        let listeners = self.channels.listeners(channel);
        if listeners.is_empty() {
            return;
        }
        let state = self.channels.state(channel, &self.engine);
        let info = events::change_info(changed, pending, rejections);
        for listener in listeners {
            call(&listener, &[state.clone(), info.clone()]);
        }
    }

    /// Calls every client-event listener with `event`.
    pub fn publish(&self, event: &JsValue) {
        for listener in self.listeners.events.snapshot() {
            listener.call(event);
        }
    }

    fn serve_request(&self, request: crate::client::engine::ServerRequest) {
        let Some(handler) = self.listeners.handler(&request.method) else {
            let error = crate::protocol::jsonrpc::ErrorObject::new(
                crate::protocol::errors::METHOD_NOT_FOUND,
                format!("no handler for `{}`", request.method),
            );
            self.with_engine(|e, _| e.respond(&request.id, Err(error)));
            return;
        };
        let params = request
            .params
            .as_ref()
            .and_then(|p| js_sys::JSON::parse(p.get()).ok())
            .unwrap_or(JsValue::UNDEFINED);
        let returned = handler.call1(&JsValue::UNDEFINED, &params);
        let promise = match returned {
            Ok(value) => js_sys::Promise::resolve(&value),
            Err(thrown) => js_sys::Promise::reject(&thrown),
        };
        let (ok, err) = (self.me.clone(), self.me.clone());
        let (id_ok, id_err) = (request.id.clone(), request.id);
        let on_ok = Closure::once_into_js(move |value: JsValue| {
            if let Some(inner) = ok.upgrade() {
                let result = events::to_json(&value).map_err(|m| {
                    crate::protocol::jsonrpc::ErrorObject::new(
                        crate::protocol::errors::INTERNAL_ERROR,
                        format!("the handler's result is not JSON: {m}"),
                    )
                });
                inner.with_engine(|e, _| e.respond(&id_ok, result));
                inner.run();
            }
        });
        let on_err = Closure::once_into_js(move |thrown: JsValue| {
            if let Some(inner) = err.upgrade() {
                let error = events::error_object(&thrown);
                inner.with_engine(|e, _| e.respond(&id_err, Err(error)));
                inner.run();
            }
        });
        let _ = then_both(&promise, &on_ok, &on_err);
    }

    /// Starts a request and registers its promise; returns the promise.
    pub fn request(
        &self,
        start: impl FnOnce(&mut Engine, f64) -> u64,
        decode: Decode,
    ) -> js_sys::Promise {
        let mut slots = None;
        let promise = js_sys::Promise::new(&mut |resolve, reject| slots = Some((resolve, reject)));
        let (resolve, reject) = slots.expect("the executor runs synchronously");
        let id = self.with_engine(start);
        self.requests.insert(
            id,
            Waiter {
                resolve,
                reject,
                decode,
            },
        );
        self.run();
        promise
    }

    /// Settles a request's promise with its result.
    fn settle(&self, waiter: Waiter, result: Result<RawJsonBuf, Error>) {
        let method = waiter.decode.method().to_string();
        let outcome = result
            .map_err(|e| to_js_error_for(&e, &method))
            .and_then(|raw| self.decode(&waiter.decode, raw.as_raw()));
        let _ = match outcome {
            Ok(value) => waiter.resolve.call1(&JsValue::UNDEFINED, &value),
            Err(error) => waiter.reject.call1(&JsValue::UNDEFINED, &error),
        };
    }

    fn decode(&self, decode: &Decode, raw: RawJson<'_>) -> Result<JsValue, JsValue> {
        let invalid = |method: &str, message: String| {
            to_js_error(&Error::InvalidResponse {
                method: method.to_string(),
                message,
            })
        };
        match decode {
            Decode::Json { method, void } => {
                if *void {
                    return Ok(JsValue::UNDEFINED);
                }
                js_sys::JSON::parse(raw.get()).map_err(|_| invalid(method, "not JSON".into()))
            }
            Decode::Raw { method } => {
                js_sys::JSON::parse(raw.get()).map_err(|_| invalid(method, "not JSON".into()))
            }
            Decode::Subscribe { channel } => Ok(self.subscription_handle(channel)),
        }
    }
}

// --- The connection lost, reconnection, close ------------------------------------------

impl Inner {
    /// Lets the transport go, with the frames it delivered that were not parsed yet.
    fn drop_conn(&self) {
        let conn = self.connection.take();
        self.mailbox.clear_received();
        if let Some(conn) = conn {
            conn.close();
        }
    }

    /// The connection dropped (or its handshake failed, or it went stale).
    fn connection_lost(&self, reason: &str) {
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
    fn try_reconnect(&self) {
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
    fn fail_connect(&self, error: &Error) {
        let promise = self.connection.take_connect_promise();
        self.close();
        if let Some((_, reject)) = promise {
            let _ = reject.call1(&JsValue::UNDEFINED, &super::errors::to_js_error(error));
        }
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
}
