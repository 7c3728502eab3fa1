//! The sans-IO client engine: JSON-RPC over AHP, subscriptions with optimistic dispatch, the
//! handshake and reconnection. No I/O, no timers, no async: a driver feeds it incoming frames
//! and the time, and takes outgoing frames and [`Event`]s.
//!
//! Driver loop (the native `AhpClient` (feature `native`) and the wasm
//! bindings are such drivers):
//!
//! 1. transport open: [`Engine::on_open`]; closed: [`Engine::on_close`];
//! 2. frames in: [`Engine::handle_frames`] (a batch: one change event per channel);
//! 3. timers: sleep until [`Engine::next_deadline`], then [`Engine::on_tick`];
//! 4. after each call, send every [`Engine::poll_transmit`] frame and handle every
//!    [`Engine::poll_event`] (resolve futures, call listeners: the engine never calls user
//!    code, so no listener runs while the engine is borrowed).
//!
//! ```
//! use ahp_wasm::client::engine::{Engine, EngineConfig, Event};
//!
//! let mut engine = Engine::new(EngineConfig::new("client-1"));
//! engine.on_open(0.0);
//! let hello = engine.poll_transmit().unwrap(); // the `initialize` request
//! assert!(hello.contains(r#""method":"initialize""#));
//! engine.handle_frame(
//!     r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"0.3.0","serverSeq":0,"snapshots":[]}}"#,
//!     1.0,
//! );
//! assert!(std::iter::from_fn(|| engine.poll_event())
//!     .any(|e| matches!(e, Event::Connected { resumed: false, .. })));
//! ```

mod channels;
mod events;
mod fast_delta;
mod foreign;
mod handshake;
mod inbound;
mod keepalive;
mod requests;
// The engine's tests drive a 0.3.0 host (the 1.0 ones also use its helpers, and compare); a
// build of 1.0 alone is tested through the bindings (the wasm package's 1.0 entry).
#[cfg(all(test, feature = "v0_3"))]
mod tests;
#[cfg(all(test, feature = "v0_3"))]
mod tests_reconnect;
#[cfg(all(test, feature = "v0_3", feature = "v1"))]
mod tests_v1;
#[cfg(feature = "v1")]
mod v1;
mod versions;

pub use channels::IMPLEMENTED_PROTOCOL_VERSIONS;
pub use events::{
    ChannelEvent, ChannelEventV0_3, DropReason, Event, ServerInfo, ServerNotification,
    ServerRequest, ServerRequestId,
};
#[cfg(feature = "v1")]
pub use events::{ChannelEventV1, ServerNotificationV1};

/// Not public API: the frame fast paths, exposed for the fuzz targets (`fuzz/`), which check
/// that they agree with the general serde path on everything they accept.
#[doc(hidden)]
pub mod fast_path {
    use crate::protocol::ActionEnvelope;

    /// An `action` notification in canonical form, decoded by the fast path (`None`: the frame
    /// takes the general path).
    pub fn canonical_action(text: &str) -> Option<ActionEnvelope> {
        super::inbound::canonical_action(text, &mut None, &mut Default::default())
    }

    /// [`canonical_action`] of `text` right after `earlier`, as the engine decodes a stream:
    /// into the envelope of the earlier delta, with what its start decoded to remembered.
    pub fn canonical_action_after(earlier: &str, text: &str) -> Option<ActionEnvelope> {
        let (mut spare, mut prefix) = (None, Default::default());
        spare = super::inbound::canonical_action(earlier, &mut spare, &mut prefix).or(spare);
        super::inbound::canonical_action(text, &mut spare, &mut prefix)
    }

    /// A canonical `session/delta` envelope at the start of `text`, and the bytes it used.
    pub fn canonical_delta(text: &str) -> Option<(ActionEnvelope, usize)> {
        super::fast_delta::canonical_delta(text)
    }

    /// [`canonical_action`] on a 1.0 connection (a canonical `chat/delta`).
    #[cfg(feature = "v1")]
    pub fn canonical_action_v1(text: &str) -> Option<crate::protocol::v1::ActionEnvelope> {
        super::inbound::canonical_action(text, &mut None, &mut Default::default())
    }

    /// [`canonical_action_after`] on a 1.0 connection.
    #[cfg(feature = "v1")]
    pub fn canonical_action_after_v1(
        earlier: &str,
        text: &str,
    ) -> Option<crate::protocol::v1::ActionEnvelope> {
        let (mut spare, mut prefix) = (None, Default::default());
        spare = super::inbound::canonical_action(earlier, &mut spare, &mut prefix).or(spare);
        super::inbound::canonical_action(text, &mut spare, &mut prefix)
    }

    /// [`canonical_delta`] of a 1.0 `chat/delta` envelope.
    #[cfg(feature = "v1")]
    pub fn canonical_delta_v1(text: &str) -> Option<(crate::protocol::v1::ActionEnvelope, usize)> {
        super::fast_delta::canonical_delta(text)
    }
}

use super::Error;
use crate::protocol::encode::{Encode, Writer};
use crate::protocol::jsonrpc::{self, Command, ErrorObject, RequestId, ROOT_CHANNEL};
use crate::protocol::{
    ClientCapabilities, JsonValue, StateAction, SubscribeParams, UnsubscribeParams,
};
use crate::protocol::{RawJson, RawJsonBuf};
use crate::sync::{AnyMirror, ChannelState, Mirror};
use channels::{with_mirrors, Channels};
use litemap::LiteMap;
use requests::{Purpose, Requests};
use std::collections::VecDeque;

/// Default per-request timeout: 30 s.
pub const DEFAULT_REQUEST_TIMEOUT_MS: f64 = 30_000.0;

/// What to do, after a reconnect, with own actions a dropped connection may have carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PendingPolicy {
    /// When the server replays the missed envelopes, every pending action whose echo is not
    /// among them provably was not applied: send it again (same `clientSeq`). When the server
    /// sends fresh snapshots instead, it is unknowable whether in-flight actions were applied:
    /// drop them and report them ([`Event::PendingDropped`]). Actions dispatched while offline
    /// are always sent.
    #[default]
    ResendUnseen,
    /// The spec's literal rule ("the client clears pendingActions"): drop every action a
    /// dropped connection carried, and report them. Actions dispatched while offline are sent.
    DropInFlight,
}

/// Engine settings.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// This client's id (`origin.clientId` of its echoes). Keep it across reconnects.
    pub client_id: String,
    /// The secret a host bound `client_id` to (an `ahp-host` extension: `clientSecret` in the
    /// `initialize` answer). Set from that answer and presented on every later `reconnect` or
    /// `initialize`, so nobody else can take the id over. Give a stored one to resume an id
    /// across app restarts.
    pub client_secret: Option<String>,
    /// Offered protocol versions, most preferred first. The engine speaks the one the host
    /// chooses, if it is offered here and implemented ([`IMPLEMENTED_PROTOCOL_VERSIONS`]:
    /// `"1.0.0"` (feature `v1`), `"0.3.0"`); offer `["1.0.0", "0.3.0"]` to take 1.0 where the
    /// host has it.
    pub protocol_versions: Vec<String>,
    /// Channels to subscribe to in `initialize`.
    pub initial_subscriptions: Vec<String>,
    /// Declared client capabilities.
    pub capabilities: Option<ClientCapabilities>,
    /// Preferred locale (BCP 47).
    pub locale: Option<String>,
    /// Per-request timeout in milliseconds.
    pub request_timeout_ms: f64,
    /// See [`PendingPolicy`].
    pub pending_policy: PendingPolicy,
    /// Send a `ping` after this many milliseconds without any incoming frame; if it times
    /// out, [`Event::ConnectionStale`] asks the driver to drop the connection. `None`: off.
    pub keepalive_ms: Option<f64>,
}

impl EngineConfig {
    /// Defaults: a root subscription, 30 s timeouts, and an offer of one version: 0.3.0 when
    /// the engine implements it (`ahp-host` does not speak 1.0 yet, so 1.0 is opt-in through
    /// [`EngineConfig::protocol_versions`]), else 1.0.0 (a build of 1.0 alone, as the wasm
    /// package's 1.0 entry).
    pub fn new(client_id: impl Into<String>) -> Self {
        let default_version =
            IMPLEMENTED_PROTOCOL_VERSIONS[IMPLEMENTED_PROTOCOL_VERSIONS.len() - 1];
        EngineConfig {
            client_id: client_id.into(),
            client_secret: None,
            protocol_versions: vec![default_version.to_string()],
            initial_subscriptions: vec![ROOT_CHANNEL.to_string()],
            capabilities: None,
            locale: None,
            request_timeout_ms: DEFAULT_REQUEST_TIMEOUT_MS,
            pending_policy: PendingPolicy::default(),
            keepalive_ms: None,
        }
    }
}

/// The connection's state, as an app shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConnectionState {
    /// Not connected yet (or the first connection attempt failed).
    Idle,
    /// First connection: transport open, `initialize` in flight.
    Connecting,
    /// Handshake done; requests flow.
    Connected,
    /// The connection dropped after a handshake; the driver is reconnecting.
    Reconnecting,
    /// Closed for good.
    Closed,
}

impl ConnectionState {
    /// Its name in the JS API and in messages (`"reconnecting"`).
    pub fn name(self) -> &'static str {
        match self {
            ConnectionState::Idle => "idle",
            ConnectionState::Connecting => "connecting",
            ConnectionState::Connected => "connected",
            ConnectionState::Reconnecting => "reconnecting",
            ConnectionState::Closed => "closed",
        }
    }
}

/// The sans-IO client engine; see the module docs.
pub struct Engine {
    config: EngineConfig,
    state: ConnectionState,
    transport_open: bool,
    /// Connection epoch: bumped on every close, so stale server requests are not answered.
    epoch: u64,
    /// Whether an `initialize` ever succeeded (so the next connection sends `reconnect`).
    established: bool,
    server: Option<ServerInfo>,
    requests: Requests,
    next_client_seq: u64,
    last_seen_server_seq: u64,
    /// Subscribed state-bearing channels, in the negotiated protocol version.
    channels: Channels,
    /// Subscribed channels without state (subscribe returned no snapshot).
    stateless: LiteMap<String, ()>,
    handled_methods: LiteMap<String, ()>,
    outgoing: VecDeque<String>,
    events: VecDeque<Event>,
    /// Envelopes of the frames being handled (empty between calls; kept for its capacity),
    /// lent out while they are handled.
    batch: Option<Box<inbound::Batch>>,
    /// When the last frame arrived (or the transport opened).
    last_rx: f64,
    keepalive_in_flight: bool,
}

impl Engine {
    /// A new engine, [`ConnectionState::Idle`].
    pub fn new(config: EngineConfig) -> Engine {
        Engine {
            config,
            state: ConnectionState::Idle,
            transport_open: false,
            epoch: 0,
            established: false,
            server: None,
            requests: Requests::default(),
            next_client_seq: 1,
            last_seen_server_seq: 0,
            channels: Channels::before_handshake(),
            stateless: LiteMap::new(),
            handled_methods: LiteMap::new(),
            outgoing: VecDeque::new(),
            events: VecDeque::new(),
            batch: Some(Box::default()),
            last_rx: 0.0,
            keepalive_in_flight: false,
        }
    }

    /// The settings.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// This client's id.
    pub fn client_id(&self) -> &str {
        &self.config.client_id
    }

    /// The secret the host bound this client's id to, once known (see
    /// [`EngineConfig::client_secret`]).
    pub fn client_secret(&self) -> Option<&str> {
        self.config.client_secret.as_deref()
    }

    /// The connection state.
    pub fn connection_state(&self) -> ConnectionState {
        self.state
    }

    /// What the server said in the last successful handshake.
    pub fn server_info(&self) -> Option<&ServerInfo> {
        self.server.as_ref()
    }

    /// The highest `serverSeq` seen (sent as `lastSeenServerSeq` on reconnect).
    pub fn last_seen_server_seq(&self) -> u64 {
        self.last_seen_server_seq
    }

    /// The protocol version the channels are mirrored in: the negotiated one once a handshake
    /// succeeded (0.3.0 before).
    pub fn protocol_version(&self) -> &'static str {
        self.channels.version()
    }

    /// The mirror of a subscribed state-bearing channel (0.3.0; 1.0's: `Engine::mirror_v1`,
    /// feature `v1`).
    #[cfg_attr(not(feature = "v0_3"), allow(unused_variables))]
    pub fn mirror(&self, channel: &str) -> Option<&AnyMirror> {
        match &self.channels {
            #[cfg(feature = "v0_3")]
            Channels::V0_3(mirrors) => mirrors.get(channel),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The typed mirror of a subscribed channel, if it holds an `S`.
    pub fn mirror_as<S: ChannelState>(&self, channel: &str) -> Option<&Mirror<S>> {
        self.mirror(channel)?.typed()
    }

    /// Every subscribed channel (with or without state).
    pub fn subscriptions(&self) -> Vec<String> {
        let mut all = self.channels.names();
        all.extend(self.stateless.keys().cloned());
        all
    }

    /// Whether `channel` is subscribed.
    pub fn is_subscribed(&self, channel: &str) -> bool {
        self.channels.contains(channel) || self.stateless.contains_key(channel)
    }

    /// Lets server→client requests of `method` through as [`Event::ServerRequest`] (answer
    /// them with [`Engine::respond`]). Requests of other methods are answered `-32601` at once.
    pub fn handle_requests(&mut self, method: impl Into<String>) {
        self.handled_methods.insert(method.into(), ());
    }

    /// The next outgoing frame.
    pub fn poll_transmit(&mut self) -> Option<String> {
        self.outgoing.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When [`Engine::on_tick`] must next be called (ms): a request deadline or a keep-alive.
    pub fn next_deadline(&self) -> Option<f64> {
        let keepalive = self.keepalive_due();
        match (self.requests.next_deadline(), keepalive) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The transport is open: starts the handshake (`initialize`, or `reconnect` after an
    /// earlier successful handshake).
    pub fn on_open(&mut self, now: f64) {
        if self.state == ConnectionState::Closed {
            return;
        }
        self.transport_open = true;
        self.last_rx = now;
        self.keepalive_in_flight = false;
        if self.established {
            self.set_state(ConnectionState::Reconnecting);
            self.send_reconnect(now);
        } else {
            self.set_state(ConnectionState::Connecting);
            let subscriptions = self.config.initial_subscriptions.clone();
            self.send_initialize(subscriptions, false, now);
        }
    }

    /// The transport closed (or failed). In-flight requests fail with a transport error,
    /// except subscriptions, which are re-sent after the next handshake; pending actions stay.
    pub fn on_close(&mut self, reason: &str, now: f64) {
        if self.state == ConnectionState::Closed {
            return;
        }
        self.transport_open = false;
        self.epoch += 1;
        self.outgoing.clear();
        let timeout = self.config.request_timeout_ms;
        for (id, purpose) in self.requests.on_connection_lost(now + timeout) {
            let error = Error::transport(
                super::TransportErrorKind::ConnectionLost,
                format!("connection lost: {reason}"),
            );
            match purpose {
                Purpose::User | Purpose::Subscribe { .. } => self.complete(id, Err(error)),
                Purpose::Initialize { .. } | Purpose::Reconnect => {
                    self.events.push_back(Event::HandshakeFailed(error))
                }
                Purpose::Resync { .. } | Purpose::Keepalive => {}
            }
        }
        self.keepalive_in_flight = false;
        self.set_state(if self.established {
            ConnectionState::Reconnecting
        } else {
            ConnectionState::Idle
        });
    }

    /// Closes the engine for good: outstanding requests fail with [`Error::Closed`]. The
    /// driver closes the transport.
    pub fn close(&mut self) {
        if self.state == ConnectionState::Closed {
            return;
        }
        for (id, purpose) in self.requests.drain() {
            match purpose {
                Purpose::User | Purpose::Subscribe { .. } => self.complete(id, Err(Error::Closed)),
                Purpose::Initialize { .. } | Purpose::Reconnect => {
                    self.events.push_back(Event::HandshakeFailed(Error::Closed))
                }
                Purpose::Resync { .. } | Purpose::Keepalive => {}
            }
        }
        self.transport_open = false;
        self.outgoing.clear();
        self.set_state(ConnectionState::Closed);
    }

    /// Expires requests whose deadline passed ([`Error::Timeout`]) and sends a keep-alive
    /// `ping` when one is due.
    pub fn on_tick(&mut self, now: f64) {
        self.keepalive_tick(now);
        for (id, method, purpose) in self.requests.expire(now) {
            let error = Error::Timeout {
                method,
                timeout_ms: self.config.request_timeout_ms,
            };
            match purpose {
                Purpose::User | Purpose::Subscribe { .. } => self.complete(id, Err(error)),
                Purpose::Initialize { .. } | Purpose::Reconnect => {
                    self.events.push_back(Event::HandshakeFailed(error))
                }
                Purpose::Resync { channel } => {
                    self.lose_channel(&channel, "re-subscribing timed out", now)
                }
                Purpose::Keepalive => self.keepalive_timed_out(),
            }
        }
    }

    /// Sends a typed request; its outcome arrives as [`Event::Response`] with the returned id
    /// (decode it with [`decode_result`]). Queued until the handshake is done.
    pub fn request<C: Command>(&mut self, params: &C::Params, now: f64) -> u64 {
        self.request_raw(C::METHOD, params, now)
    }

    /// Sends a request by method name (for methods this crate does not know).
    pub fn request_raw<P: Encode + ?Sized>(&mut self, method: &str, params: &P, now: f64) -> u64 {
        self.start_request(method, params, Purpose::User, now)
    }

    /// [`request_raw`](Self::request_raw) with params that are JSON text already (written into
    /// the frame as they are).
    pub fn request_json(&mut self, method: &str, params: RawJson<'_>, now: f64) -> u64 {
        self.start_request(method, &params, Purpose::User, now)
    }

    /// Subscribes to `channel`. On success the channel's mirror is installed (or refreshed)
    /// before [`Event::Response`] for the returned id, with [`Event::Subscribed`].
    pub fn subscribe(&mut self, channel: &str, now: f64) -> u64 {
        if self.is_subscribed(channel) {
            let id = self.requests.next_id();
            self.complete(id, Ok(empty_object()));
            return id;
        }
        let params = SubscribeParams {
            channel: channel.to_string(),
            extra: Default::default(),
        };
        let purpose = Purpose::Subscribe {
            channel: channel.to_string(),
        };
        self.start_request(jsonrpc::Subscribe::METHOD, &params, purpose, now)
    }

    /// Unsubscribes (a notification): drops the mirror; its pending actions are reported
    /// dropped.
    pub fn unsubscribe(&mut self, channel: &str, now: f64) {
        let known = self.stateless.remove(channel).is_some()
            | self.remove_mirror(channel, DropReason::Unsubscribed, now);
        if known && self.state == ConnectionState::Connected {
            let params = UnsubscribeParams {
                channel: channel.to_string(),
                extra: Default::default(),
            };
            self.outgoing.push_back(jsonrpc::notification_frame(
                jsonrpc::methods::UNSUBSCRIBE,
                &params,
            ));
        }
    }

    /// Sends a notification by method name, now: notifications are not queued, so one sent
    /// while the client is not connected is an error ([`Error::Transport`], kind `Send`), as
    /// are the two the engine sends itself (`dispatchAction`, `unsubscribe`: use
    /// [`Engine::dispatch`] and [`Engine::unsubscribe`], which keep the mirrors right).
    pub fn notify_raw<P: Encode + ?Sized>(
        &mut self,
        method: &str,
        params: &P,
    ) -> Result<(), Error> {
        if self.state == ConnectionState::Closed {
            return Err(Error::Closed);
        }
        if method == jsonrpc::methods::DISPATCH_ACTION || method == jsonrpc::methods::UNSUBSCRIBE {
            return Err(Error::transport(
                super::TransportErrorKind::Send,
                format!("`{method}` is sent by the client itself: use dispatch() or unsubscribe()"),
            ));
        }
        if self.state != ConnectionState::Connected || !self.transport_open {
            return Err(Error::transport(
                super::TransportErrorKind::Send,
                format!("`{method}` not sent: the client is {}", self.state.name()),
            ));
        }
        self.outgoing
            .push_back(jsonrpc::notification_frame(method, params));
        Ok(())
    }

    /// Dispatches an own action: applied to the channel's optimistic state at once
    /// ([`Event::ChannelChanged`]), sent as `dispatchAction` (now, or after the handshake if
    /// offline). Returns its `clientSeq`.
    pub fn dispatch(&mut self, channel: &str, action: StateAction, now: f64) -> Result<u64, Error> {
        self.dispatch_in::<versions::V0_3>(channel, action, now)
    }

    /// Answers a server request ([`Event::ServerRequest`]). A request from a connection that
    /// has since dropped is not answered.
    pub fn respond(&mut self, request: &ServerRequestId, result: Result<JsonValue, ErrorObject>) {
        if request.epoch != self.epoch || !self.transport_open {
            return;
        }
        self.outgoing.push_back(match result {
            Ok(value) => jsonrpc::result_frame(&request.id, &value),
            Err(error) => jsonrpc::error_frame(Some(&request.id), &error),
        });
    }

    fn start_request<P: Encode + ?Sized>(
        &mut self,
        method: &str,
        params: &P,
        purpose: Purpose,
        now: f64,
    ) -> u64 {
        let id = self.requests.next_id();
        if self.state == ConnectionState::Closed {
            self.complete(id, Err(Error::Closed));
            return id;
        }
        // A command only the other version has (once a version was negotiated).
        let negotiated = self.channels.version();
        let other = foreign::method_version(negotiated, method);
        if let (Some(other), true, Purpose::User) = (other, self.server.is_some(), &purpose) {
            let attempted = format!("the command `{method}`");
            let error = foreign::wrong_version(negotiated, other, attempted);
            self.complete(id, Err(error));
            return id;
        }
        let frame = jsonrpc::request_frame(&RequestId::Number(id as i64), method, params);
        if let Err(e) = self.check_frame_size(method, || frame.len()) {
            self.complete(id, Err(e));
            return id;
        }
        let deadline = now + self.config.request_timeout_ms;
        let handshake = matches!(purpose, Purpose::Initialize { .. } | Purpose::Reconnect);
        let send_now =
            self.transport_open && (handshake || self.state == ConnectionState::Connected);
        if send_now {
            self.outgoing.push_back(frame.clone());
        }
        self.requests
            .insert(id, method.to_string(), frame, deadline, purpose, send_now);
        id
    }

    /// Refuses a frame of `len()` bytes that the server said it would not read (its
    /// `maxFrameBytes`), before anything is sent or applied; `len` runs only when it said.
    fn check_frame_size(&self, method: &str, len: impl FnOnce() -> usize) -> Result<(), Error> {
        let Some(limit) = self.server.as_ref().and_then(|s| s.max_frame_bytes) else {
            return Ok(());
        };
        let len = len() as u64;
        if len <= limit {
            return Ok(());
        }
        let message = format!(
            "`{method}` would be a frame of {len} bytes; the host reads frames of at most \
             {limit} bytes (its maxFrameBytes): nothing was sent"
        );
        Err(Error::Transport {
            kind: super::TransportErrorKind::Send,
            message,
        })
    }

    /// After a handshake: send queued requests, in order.
    fn flush_queued(&mut self) {
        let frames = self.requests.take_unsent();
        self.outgoing.extend(frames);
    }

    /// Refuses a dispatch of a `version` action: on a closed engine, on a channel without
    /// state, or when the channels are mirrored in another version.
    fn check_dispatch(
        &self,
        channel: &str,
        version: &'static str,
        action_type: &str,
    ) -> Result<(), Error> {
        if self.state == ConnectionState::Closed {
            return Err(Error::Closed);
        }
        if !self.channels.contains(channel) {
            return Err(Error::NotSubscribed {
                channel: channel.to_string(),
            });
        }
        // The other version's action: passed as such, or as an unknown action of this version
        // whose type only the other version has.
        let negotiated = self.channels.version();
        let other = (negotiated != version)
            .then_some(version)
            .or_else(|| foreign::action_version(negotiated, action_type));
        match other {
            Some(other) => Err(foreign::wrong_version(
                negotiated,
                other,
                format!("the action `{action_type}` on `{channel}`"),
            )),
            None => Ok(()),
        }
    }

    fn send_pending_action(&mut self, channel: &str, seq: u64) {
        let frame = with_mirrors!(&mut self.channels, |mirrors| mirrors
            .get_mut(channel)
            .and_then(|mirror| {
                let frame = dispatch_frame(channel, seq, &mirror.pending_action(seq)?.action);
                mirror.mark_sent(seq);
                Some(frame)
            }));
        self.outgoing.extend(frame);
    }

    /// Sends every pending action of every channel, in `clientSeq` order.
    fn send_all_pending(&mut self) {
        for (seq, channel) in self.channels.pending_by_seq() {
            self.send_pending_action(&channel, seq);
        }
    }

    /// Removes a channel's mirror, reporting its pending actions dropped; whether it had one.
    fn remove_mirror(&mut self, channel: &str, reason: DropReason, now: f64) -> bool {
        match self.channels {
            #[cfg(feature = "v0_3")]
            Channels::V0_3(_) => self.remove_mirror_in::<versions::V0_3>(channel, reason, now),
            #[cfg(feature = "v1")]
            Channels::V1(_) => self.remove_mirror_in::<versions::V1>(channel, reason, now),
        }
    }

    fn complete(&mut self, id: u64, result: Result<RawJsonBuf, Error>) {
        self.events.push_back(Event::Response { id, result });
    }

    fn set_state(&mut self, state: ConnectionState) {
        if self.state != state {
            self.state = state;
            self.events.push_back(Event::StateChanged(state));
        }
    }

    /// Drops a channel the server no longer serves (or that could not be re-synced).
    fn lose_channel(&mut self, channel: &str, reason: &str, now: f64) {
        self.stateless.remove(channel);
        self.remove_mirror(channel, DropReason::ChannelLost, now);
        self.events.push_back(Event::SubscriptionLost {
            channel: channel.to_string(),
            reason: reason.to_string(),
        });
    }
}

/// Decodes a response's raw result as a command's result type.
pub fn decode_result<C: Command>(raw: RawJson<'_>) -> Result<C::Result, Error> {
    crate::protocol::decode::from_text(raw.get()).map_err(|e| Error::InvalidResponse {
        method: C::METHOD.to_string(),
        message: e.to_string(),
    })
}

fn empty_object() -> RawJsonBuf {
    RawJsonBuf::from_string("{}".to_string()).expect("valid JSON")
}

/// The `dispatchAction` notification of `action` (of either version: the params have the
/// same shape) as own action `client_seq` on `channel`.
fn dispatch_frame<A: Encode>(channel: &str, client_seq: u64, action: &A) -> String {
    jsonrpc::notification_frame(
        jsonrpc::methods::DISPATCH_ACTION,
        &DispatchRef {
            channel,
            client_seq,
            action,
        },
    )
}

/// `dispatchAction` params (`DispatchActionParams`), borrowing the pending action.
struct DispatchRef<'a, A> {
    channel: &'a str,
    client_seq: u64,
    action: &'a A,
}

impl<A: Encode> Encode for DispatchRef<'_, A> {
    fn encode(&self, writer: &mut Writer) {
        writer.begin_object();
        writer.key("\"channel\":");
        writer.string(self.channel);
        writer.key("\"clientSeq\":");
        writer.unsigned(self.client_seq);
        writer.key("\"action\":");
        self.action.encode(writer);
        writer.end_object();
    }
}
