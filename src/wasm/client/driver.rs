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

use super::events::{Delivery, Listener};
use super::options::Options;
use super::transport::{self, Conn};
use crate::client::engine::{Engine, Event};
use crate::client::ReconnectPolicy;
use crate::client::{Error, TransportErrorKind};
use crate::sync::{ChangeSet, PatchBuilder, PatchOp, Rejection, StatePatch};
use crate::wasm::render::RenderedState;
use js_sys::Function;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/runtime.js")]
extern "C" {
    #[wasm_bindgen(js_name = thenBoth)]
    pub fn then_both(
        promise: &js_sys::Promise,
        on_ok: &JsValue,
        on_err: &JsValue,
    ) -> js_sys::Promise;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

/// Milliseconds since the epoch (the engine's clock, also the reducers' `modifiedAt`).
pub fn now() -> f64 {
    js_sys::Date::now()
}

/// A re-armable `setTimeout`.
pub struct Timer {
    callback: Function,
    armed: RefCell<Option<(JsValue, f64)>>,
    /// Keeps the Rust closure alive as long as the timer.
    _closure: Closure<dyn FnMut()>,
}

impl Timer {
    fn new(f: impl FnMut() + 'static) -> Timer {
        let closure = Closure::<dyn FnMut()>::new(f);
        Timer {
            callback: closure.as_ref().unchecked_ref::<Function>().clone(),
            armed: RefCell::new(None),
            _closure: closure,
        }
    }

    /// Fires at `at` (ms since the epoch) or earlier: an armed timer that fires no later is
    /// kept (firing early is harmless: the handler re-arms).
    fn arm_by(&self, at: f64) {
        if matches!(&*self.armed.borrow(), Some((_, when)) if *when <= at) {
            return;
        }
        self.arm_at(at);
    }

    fn arm_at(&self, at: f64) {
        self.clear();
        let id = set_timeout(&self.callback, (at - now()).max(0.0) + 1.0);
        *self.armed.borrow_mut() = Some((id, at));
    }

    /// The timer fired: it is no longer armed.
    fn fired(&self) {
        self.armed.borrow_mut().take();
    }

    fn clear(&self) {
        if let Some((id, _)) = self.armed.borrow_mut().take() {
            clear_timeout(&id);
        }
    }
}

use wasm_bindgen::JsCast;

/// How a request's result becomes a JS value.
pub enum Decode {
    /// `JSON.parse` of the result; `void`: resolves `undefined`.
    Json { method: &'static str, void: bool },
    /// Any JSON (`request(method, params)`).
    Raw { method: String },
    /// `subscribe`: resolves the channel's `Subscription`.
    Subscribe { channel: String },
}

impl Decode {
    pub(super) fn method(&self) -> &str {
        match self {
            Decode::Json { method, .. } => method,
            Decode::Raw { method } => method,
            Decode::Subscribe { .. } => "subscribe",
        }
    }
}

pub(super) struct Waiter {
    pub(super) resolve: Function,
    pub(super) reject: Function,
    pub(super) decode: Decode,
}

/// One subscribed channel as the JS side sees it.
pub struct Channel {
    /// The `Subscription` object handed out (the same one every time).
    pub handle: JsValue,
    /// The serial of that object.
    pub serial: u32,
    /// The frozen optimistic state, built on first read, then patched.
    pub render: Option<RenderedState>,
    /// The frozen confirmed state, built on read, dropped when it changes.
    pub confirmed: Option<JsValue>,
    pub listeners: Vec<(u32, Function)>,
}

/// Changes of one channel gathered during one [`Inner::sync`].
struct Gathered {
    channel: String,
    changed: Option<ChangeSet>,
    confirmed_changed: bool,
    /// The channel's patches of this sync, combined.
    patch: Option<StatePatch>,
    replaced: bool,
    pending: usize,
    rejections: Vec<Rejection>,
}

/// The client state shared by `AhpClient`, its `Subscription`s and the driver.
pub struct Inner {
    pub me: Weak<Inner>,
    pub engine: RefCell<Engine>,
    /// The URL as given (without the token).
    pub url: String,
    /// The URL connections are opened with (may carry the token: never show it).
    pub(super) connect_url: String,
    pub(super) factory: Option<Function>,
    pub(super) reconnect: Option<ReconnectPolicy>,
    pub(super) conn: RefCell<Option<Conn>>,
    pub(super) generation: Cell<u64>,
    /// The current connection reported itself open.
    pub(super) opened: Cell<bool>,
    pub ever_connected: Cell<bool>,
    pub(super) attempt: Cell<u32>,
    pub closed: Cell<bool>,
    pub(super) busy: Cell<bool>,
    pub(super) inbox: RefCell<Vec<String>>,
    pub(super) outbox: RefCell<VecDeque<String>>,
    pub(super) queue: RefCell<VecDeque<Delivery>>,
    /// [`Inner::sync`]'s per-channel changes (empty between calls; kept for its capacity).
    gathered: RefCell<Vec<Gathered>>,
    pub(super) waiters: RefCell<BTreeMap<u64, Waiter>>,
    /// Few entries, looked up per frame and per `state` read: a `BTreeMap` (no SipHash).
    pub channels: RefCell<BTreeMap<String, Channel>>,
    pub listeners: RefCell<Vec<(u32, Listener)>>,
    pub state_listeners: RefCell<Vec<(u32, Function)>>,
    pub handlers: RefCell<BTreeMap<String, Function>>,
    pub(super) next_listener: Cell<u32>,
    /// `connect()`'s promise, until the first handshake.
    pub(super) connect_promise: RefCell<Option<(Function, Function)>>,
    /// The `AhpClient` object (one per client, so `multi.host(name) === client`).
    pub handle: RefCell<Option<JsValue>>,
    /// The client keeps itself alive while open (its connection and timers refer to it
    /// weakly); `close()` lets it go.
    pub(super) alive: RefCell<Option<Rc<Inner>>>,
    pub(super) deadline_timer: Timer,
    pub(super) reconnect_timer: Timer,
}

impl Inner {
    /// A client, not yet connected.
    pub fn new(url: String, options: Options) -> Rc<Inner> {
        let connect_url = match &options.token {
            Some(token) => crate::client::with_query_param(&url, "tkn", token),
            None => url.clone(),
        };
        Rc::new_cyclic(|me: &Weak<Inner>| {
            let (tick, retry) = (me.clone(), me.clone());
            Inner {
                me: me.clone(),
                engine: RefCell::new(Engine::new(options.config)),
                url,
                connect_url,
                factory: options.transport,
                reconnect: options.reconnect,
                conn: RefCell::new(None),
                generation: Cell::new(0),
                opened: Cell::new(false),
                ever_connected: Cell::new(false),
                attempt: Cell::new(0),
                closed: Cell::new(false),
                busy: Cell::new(false),
                inbox: RefCell::default(),
                outbox: RefCell::default(),
                queue: RefCell::default(),
                gathered: RefCell::default(),
                waiters: RefCell::default(),
                channels: RefCell::default(),
                listeners: RefCell::default(),
                state_listeners: RefCell::default(),
                handlers: RefCell::default(),
                next_listener: Cell::new(1),
                connect_promise: RefCell::new(None),
                handle: RefCell::new(None),
                alive: RefCell::new(None),
                deadline_timer: Timer::new(move || {
                    if let Some(inner) = tick.upgrade() {
                        inner.deadline_timer.fired();
                        inner.with_engine(|e, now| e.on_tick(now));
                        inner.run();
                    }
                }),
                reconnect_timer: Timer::new(move || {
                    if let Some(inner) = retry.upgrade() {
                        inner.reconnect_timer.fired();
                        inner.try_reconnect();
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

    /// A fresh listener id.
    pub fn listener_id(&self) -> u32 {
        let id = self.next_listener.get();
        self.next_listener.set(id.wrapping_add(1));
        id
    }

    /// Runs `f` on the engine, then [`Inner::sync`]s (no user code runs in between).
    pub fn with_engine<R>(&self, f: impl FnOnce(&mut Engine, f64) -> R) -> R {
        let result = f(&mut self.engine.borrow_mut(), now());
        self.sync();
        result
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
        self.waiters.borrow_mut().insert(
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

    // --- connection ---------------------------------------------------------------------

    /// Opens the first connection; `connect()`'s promise settles after the handshake.
    pub fn start(&self, resolve: Function, reject: Function) {
        *self.connect_promise.borrow_mut() = Some((resolve, reject));
        *self.alive.borrow_mut() = self.me.upgrade();
        if let Err(error) = self.open_transport() {
            self.fail_connect(&error);
        }
    }

    fn open_transport(&self) -> Result<(), Error> {
        let generation = self.generation.get() + 1;
        self.generation.set(generation);
        self.opened.set(false);
        let conn = match &self.factory {
            Some(factory) => {
                transport::open_custom(factory, &self.connect_url, self.me.clone(), generation)
            }
            None => transport::open_ws(&self.connect_url, self.me.clone(), generation),
        }
        .map_err(|e| match e {
            // Messages may quote the URL: keep the token out of them.
            Error::Transport { kind, message } if self.connect_url != self.url => {
                Error::transport(kind, message.replace(&self.connect_url, &self.url))
            }
            other => other,
        })?;
        if self.generation.get() != generation || self.closed.get() {
            conn.close(); // closed (or replaced) from inside the factory
            return Ok(());
        }
        *self.conn.borrow_mut() = Some(conn);
        if !self.opened.get() {
            // The same timer bounds the attempt: a connection that never opens fails.
            let timeout = self.engine.borrow().config().request_timeout_ms;
            self.reconnect_timer.arm_at(now() + timeout);
        }
        self.run(); // frames queued if the factory already reported the connection open
        Ok(())
    }

    pub fn transport_open(&self, generation: u64) {
        if generation != self.generation.get() || self.closed.get() || self.opened.get() {
            return;
        }
        self.opened.set(true);
        self.reconnect_timer.clear();
        self.with_engine(|e, now| e.on_open(now));
        self.run();
    }

    pub fn transport_frames(&self, generation: u64, frames: Vec<String>) {
        if generation != self.generation.get() || self.closed.get() || frames.is_empty() {
            return;
        }
        self.inbox.borrow_mut().extend(frames);
        self.run();
    }

    /// Takes one frame from the transport's buffer without running user code: parsed at once,
    /// or copied to the inbox when a delivery is under way. Whether the caller should
    /// [`Inner::run`] now (false: a stale connection's frame, ignored).
    pub fn accept_frame(&self, generation: u64, text: &str) -> bool {
        if generation != self.generation.get() || self.closed.get() {
            return false;
        }
        if self.busy.get() {
            self.inbox.borrow_mut().push(text.to_string());
        } else {
            self.with_engine(|e, now| e.handle_frame(text, now));
        }
        true
    }

    /// Reports a frame the transport could not hand over; whether to [`Inner::run`].
    pub fn reject_frame(&self, generation: u64, why: &str) -> bool {
        if generation != self.generation.get() || self.closed.get() {
            return false;
        }
        self.queue
            .borrow_mut()
            .push_back(Delivery::Event(Event::Malformed {
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
        if generation != self.generation.get() || self.closed.get() {
            return;
        }
        let reason = if reason.is_empty() { "closed" } else { reason };
        if self.opened.get() {
            self.connection_lost(reason);
        } else if !self.ever_connected.get() {
            self.drop_conn();
            self.fail_connect(&Error::transport(
                TransportErrorKind::Connect,
                format!("cannot connect to {}: {reason}", self.url),
            ));
        } else {
            self.drop_conn();
            self.reconnect_failed(Error::transport(
                TransportErrorKind::Connect,
                format!("cannot connect to {}: {reason}", self.url),
            ));
        }
    }

    pub(super) fn drop_conn(&self) {
        self.generation.set(self.generation.get() + 1);
        self.opened.set(false);
        self.inbox.borrow_mut().clear();
        let conn = self.conn.borrow_mut().take();
        if let Some(conn) = conn {
            conn.close();
        }
    }

    /// The connection dropped (or its handshake failed, or it went stale).
    pub(super) fn connection_lost(&self, reason: &str) {
        self.drop_conn();
        if self.closed.get() {
            return;
        }
        if !self.ever_connected.get() {
            self.fail_connect(&Error::transport(
                TransportErrorKind::Connect,
                format!(
                    "connection to {} lost during the handshake: {reason}",
                    self.url
                ),
            ));
            return;
        }
        self.outbox.borrow_mut().clear();
        self.with_engine(|e, now| e.on_close(reason, now));
        self.schedule_reconnect();
        self.run();
    }

    fn schedule_reconnect(&self) {
        let attempt = self.attempt.get() + 1;
        let policy = match &self.reconnect {
            Some(p) if !p.gives_up(attempt) => p,
            _ => {
                self.close();
                return;
            }
        };
        self.attempt.set(attempt);
        self.reconnect_timer
            .arm_at(now() + policy.delay_ms(attempt));
    }

    /// The reconnect timer fired: time to retry, or a connection attempt did not open in time.
    fn try_reconnect(&self) {
        if self.closed.get() {
            return;
        }
        if self.conn.borrow().is_some() {
            if !self.opened.get() {
                self.transport_closed(self.generation.get(), "timed out opening the connection");
            }
            return;
        }
        if let Err(error) = self.open_transport() {
            self.reconnect_failed(error);
        }
    }

    fn reconnect_failed(&self, error: Error) {
        let attempt = self.attempt.get();
        self.queue
            .borrow_mut()
            .push_back(Delivery::ReconnectFailed { attempt, error });
        self.schedule_reconnect();
        self.run();
    }

    /// The first connection failed: `connect()` rejects and the client closes.
    pub(super) fn fail_connect(&self, error: &Error) {
        let promise = self.connect_promise.borrow_mut().take();
        self.close();
        if let Some((_, reject)) = promise {
            let _ = reject.call1(&JsValue::UNDEFINED, &super::errors::to_js_error(error));
        }
    }

    /// Closes for good: outstanding requests reject with `ClientClosedError`.
    pub fn close(&self) {
        if self.closed.get() {
            return;
        }
        self.with_engine(|e, _| e.close());
        self.closed.set(true);
        self.deadline_timer.clear();
        self.reconnect_timer.clear();
        self.drop_conn();
        self.outbox.borrow_mut().clear();
        self.run();
        // Break the JS <-> Rust reference cycles of handed-out objects.
        // Subscriptions keep their last state; the handed-out objects are let go (they hold
        // this client: keeping them would keep it alive through the JS <-> Rust cycle).
        let channels: Vec<(JsValue, Vec<(u32, Function)>)> = self
            .channels
            .borrow_mut()
            .values_mut()
            .map(|c| {
                (
                    std::mem::take(&mut c.handle),
                    std::mem::take(&mut c.listeners),
                )
            })
            .collect();
        let handle = self.handle.borrow_mut().take();
        let alive = self.alive.borrow_mut().take();
        drop((channels, handle, alive));
    }

    // --- the loop -----------------------------------------------------------------------

    /// Drains the engine: frames to the outbox, events to the queue, renderings patched.
    /// Runs no user code.
    pub fn sync(&self) {
        let engine = &mut *self.engine.borrow_mut();
        {
            let mut outbox = self.outbox.borrow_mut();
            while let Some(frame) = engine.poll_transmit() {
                outbox.push_back(frame);
            }
        }
        // Kept between calls for its capacity (this runs once per frame).
        let mut gathered = std::mem::take(&mut *self.gathered.borrow_mut());
        let mut queue = self.queue.borrow_mut();
        fn slot(gathered: &mut Vec<Gathered>, channel: String) -> &mut Gathered {
            let i = match gathered.iter().position(|g| g.channel == channel) {
                Some(i) => i,
                None => {
                    gathered.push(Gathered {
                        channel,
                        changed: None,
                        confirmed_changed: false,
                        patch: None,
                        replaced: false,
                        pending: 0,
                        rejections: Vec::new(),
                    });
                    gathered.len() - 1
                }
            };
            &mut gathered[i]
        }
        while let Some(event) = engine.poll_event() {
            match event {
                Event::ChannelChanged {
                    channel,
                    changed,
                    confirmed_changed,
                    pending,
                    patch,
                } => {
                    let g = slot(&mut gathered, channel);
                    g.changed = Some(match g.changed {
                        Some(c) => c.union(changed),
                        None => changed,
                    });
                    g.confirmed_changed |= !confirmed_changed.is_empty();
                    g.patch = Some(match g.patch.take() {
                        Some(earlier) => combine([earlier, patch]),
                        None => patch,
                    });
                    g.pending = pending;
                }
                Event::Subscribed { channel } => {
                    let pending = engine.mirror(&channel).map_or(0, |m| m.pending_count());
                    let g = slot(&mut gathered, channel);
                    g.replaced = true;
                    g.pending = pending;
                }
                Event::Rejected { channel, rejection } => {
                    slot(&mut gathered, channel.clone())
                        .rejections
                        .push(rejection.clone());
                    queue.push_back(Delivery::Event(Event::Rejected { channel, rejection }));
                }
                Event::SubscriptionLost { ref channel, .. } => {
                    // `state` reads the rendering without asking the engine: drop it with the
                    // mirror, before any listener runs.
                    if let Some(entry) = self.channels.borrow_mut().get_mut(channel) {
                        entry.render = None;
                        entry.confirmed = None;
                    }
                    queue.push_back(Delivery::Event(event));
                }
                other => queue.push_back(Delivery::Event(other)),
            }
        }
        if gathered.is_empty() {
            *self.gathered.borrow_mut() = gathered;
            return;
        }
        let mut channels = self.channels.borrow_mut();
        for g in gathered.drain(..) {
            let Some(entry) = channels.get_mut(&g.channel) else {
                continue;
            };
            let mirror = engine.mirror(&g.channel);
            if g.replaced || mirror.is_none() {
                entry.render = None;
                entry.confirmed = None;
            } else if let (Some(render), Some(mirror), Some(_), Some(patch)) =
                (entry.render.as_mut(), mirror, g.changed, &g.patch)
            {
                if render.update(mirror, patch).is_err() {
                    entry.render = None; // rebuilt in full on the next read
                }
            }
            if g.confirmed_changed {
                entry.confirmed = None;
            }
            if entry.listeners.is_empty() {
                continue; // nobody to tell (a listener added later sees later changes)
            }
            let changed: Vec<&'static str> = match (g.replaced, mirror) {
                (true, Some(m)) => all_names(m.kind()),
                _ => g.changed.map(|c| c.names()).unwrap_or_default(),
            };
            queue.push_back(Delivery::Changed {
                channel: g.channel,
                changed,
                pending: g.pending,
                rejections: g.rejections,
            });
        }
        *self.gathered.borrow_mut() = gathered;
    }

    /// Sends the outbox and delivers the queue until both are empty. Re-entrant calls (from
    /// a listener or a transport) return at once: the outer call picks their work up.
    pub fn run(&self) {
        if self.busy.replace(true) {
            return;
        }
        loop {
            let frames = std::mem::take(&mut *self.inbox.borrow_mut());
            if !frames.is_empty() {
                self.with_engine(|e, now| e.handle_frames(frames, now));
                continue;
            }
            if self.send_outbox() {
                continue;
            }
            let next = self.queue.borrow_mut().pop_front();
            match next {
                Some(delivery) => self.deliver(delivery),
                None => break,
            }
        }
        self.busy.set(false);
        self.arm_deadline();
    }

    /// Sends what the outbox holds; whether anything was sent.
    fn send_outbox(&self) -> bool {
        let mut sent = false;
        loop {
            if !self.opened.get() || self.outbox.borrow().is_empty() {
                return sent;
            }
            // Custom transports are user code: clone what is needed, release the borrow.
            let target = match self.conn.borrow().as_ref() {
                None => return sent,
                Some(Conn::Ws(tx)) => Conn::Ws(tx.clone()),
                Some(Conn::Custom { this, send, close }) => Conn::Custom {
                    this: this.clone(),
                    send: send.clone(),
                    close: close.clone(),
                },
            };
            let Some(frame) = self.outbox.borrow_mut().pop_front() else {
                return sent;
            };
            sent = true;
            if let Err(error) = target.send(&frame) {
                self.connection_lost(&error.to_string());
                return true;
            }
        }
    }

    fn arm_deadline(&self) {
        if self.closed.get() {
            return;
        }
        match self.engine.borrow().next_deadline() {
            Some(at) => self.deadline_timer.arm_by(at),
            None => self.deadline_timer.clear(),
        }
    }
}

/// One patch for two consecutive updates (values are read from the state after the last).
fn combine(patches: [StatePatch; 2]) -> StatePatch {
    let mut builder = PatchBuilder::default();
    for patch in patches {
        for op in patch.ops {
            match op {
                PatchOp::Field(name) => builder.field(name),
                PatchOp::AppendPartText { index, text } => builder.append_part_text(index, &text),
                PatchOp::ReplacePart { index } => builder.replace_part(index),
                PatchOp::PushParts { from } => builder.push_parts(from),
                PatchOp::PushTurns { from } => builder.push_turns(from),
            }
        }
    }
    builder.finish()
}

/// Every top-level field name of a channel kind (a fresh snapshot replaced them all).
fn all_names(kind: crate::sync::ChannelKind) -> Vec<&'static str> {
    use crate::protocol::{
        ChangesetState, ResourceWatchState, RootState, SessionState, TerminalState,
    };
    use crate::sync::{all_fields, field_names, ChannelKind};
    fn all<S: crate::sync::ChannelState>() -> Vec<&'static str> {
        field_names::<S>(all_fields::<S>())
    }
    match kind {
        ChannelKind::Root => all::<RootState>(),
        ChannelKind::Session => all::<SessionState>(),
        ChannelKind::Terminal => all::<TerminalState>(),
        ChannelKind::Changeset => all::<ChangesetState>(),
        ChannelKind::ResourceWatch => all::<ResourceWatchState>(),
    }
}
