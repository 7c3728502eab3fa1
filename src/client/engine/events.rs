//! What the engine reports to its driver.

use super::ConnectionState;
use crate::client::Error;
use crate::protocol::decode::decode_object;
use crate::protocol::jsonrpc::{decode_params, methods, Command, ErrorObject, RequestId};
use crate::protocol::{
    AuthRequiredParams, JsonValue, ResourceChange, SessionAddedParams, SessionRemovedParams,
    SessionSummaryChangedParams, TelemetryCapabilities,
};
use crate::protocol::{RawJson, RawJsonBuf};
use crate::sync::{ChangeSet, PendingAction, Rejection, StatePatch};
use serde::Deserialize;

/// What the server said in the handshake (`InitializeResult` without the snapshots, which
/// become mirrors).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerInfo {
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The server's sequence number at the handshake.
    pub server_seq: u64,
    /// Suggested starting directory for remote file browsing.
    pub default_directory: Option<String>,
    /// Characters that should trigger `completions` in a message input.
    pub completion_trigger_characters: Option<Vec<String>>,
    /// OTLP telemetry channels.
    pub telemetry: Option<TelemetryCapabilities>,
    /// The largest frame the server reads, if it says (`maxFrameBytes`, an `ahp-host`
    /// extension): larger requests fail locally instead of being sent.
    pub max_frame_bytes: Option<u64>,
}

decode_object!(ServerInfo {
    protocol_version: "protocolVersion",
    server_seq: "serverSeq",
    default_directory: "defaultDirectory" = None,
    completion_trigger_characters: "completionTriggerCharacters" = None,
    telemetry: "telemetry" = None,
    max_frame_bytes: "maxFrameBytes" = None,
});

impl<'de> Deserialize<'de> for ServerInfo {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::protocol::decode::deserialize(deserializer)
    }
}

/// Why own pending actions were dropped without an echo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// The server echoed a later `clientSeq` of ours on the channel first (watermark).
    Skipped,
    /// After a reconnect the server sent a fresh snapshot: whether it includes these actions
    /// is unknowable, so they were dropped (re-dispatch them if they still make sense).
    ReconnectSnapshot,
    /// [`PendingPolicy::DropInFlight`](super::PendingPolicy::DropInFlight): the dropped
    /// connection had carried them.
    InFlightOnReconnect,
    /// The channel is gone (missing on reconnect, or could not be re-synced).
    ChannelLost,
    /// The app unsubscribed.
    Unsubscribed,
}

/// A server→client protocol notification of a 0.3.0 host (a 1.0 host's are
/// `ServerNotificationV1`, feature `v1`).
#[derive(Debug, Clone, PartialEq)]
pub enum ServerNotification {
    /// `root/sessionAdded`.
    SessionAdded(SessionAddedParams),
    /// `root/sessionRemoved`.
    SessionRemoved(SessionRemovedParams),
    /// `root/sessionSummaryChanged`.
    SessionSummaryChanged(SessionSummaryChangedParams),
    /// `auth/required`.
    AuthRequired(AuthRequiredParams),
    /// Any other notification (e.g. `otlp/*`), raw.
    Other {
        /// The method.
        method: String,
        /// The params.
        params: Option<JsonValue>,
    },
}

impl ServerNotification {
    /// Decodes a notification that is not an action envelope.
    pub(super) fn decode(
        method: &str,
        params: Option<RawJson<'_>>,
    ) -> Result<ServerNotification, ErrorObject> {
        Ok(match method {
            methods::SESSION_ADDED => ServerNotification::SessionAdded(decode_params(params)?),
            methods::SESSION_REMOVED => ServerNotification::SessionRemoved(decode_params(params)?),
            methods::SESSION_SUMMARY_CHANGED => {
                ServerNotification::SessionSummaryChanged(decode_params(params)?)
            }
            methods::AUTH_REQUIRED => ServerNotification::AuthRequired(decode_params(params)?),
            _ => ServerNotification::Other {
                method: method.to_string(),
                params: params.map(|p| decode_params(Some(p))).transpose()?,
            },
        })
    }

    /// The method name.
    pub fn method(&self) -> &str {
        match self {
            ServerNotification::SessionAdded(_) => methods::SESSION_ADDED,
            ServerNotification::SessionRemoved(_) => methods::SESSION_REMOVED,
            ServerNotification::SessionSummaryChanged(_) => methods::SESSION_SUMMARY_CHANGED,
            ServerNotification::AuthRequired(_) => methods::AUTH_REQUIRED,
            ServerNotification::Other { method, .. } => method,
        }
    }
}

/// A 1.0 host's notification, typed as AHP 1.0 defines it (0.3.0's are
/// [`ServerNotification`]): the engine's [`Event::NotificationV1`]. Feature `v1`.
#[cfg(feature = "v1")]
#[derive(Debug, Clone, PartialEq)]
pub enum ServerNotificationV1 {
    /// `root/sessionAdded`.
    SessionAdded(crate::protocol::v1::SessionAddedParams),
    /// `root/sessionRemoved`.
    SessionRemoved(crate::protocol::v1::SessionRemovedParams),
    /// `root/sessionSummaryChanged`.
    SessionSummaryChanged(crate::protocol::v1::SessionSummaryChangedParams),
    /// `progress` (new in 1.0): a long request's progress, for its `progressToken`.
    Progress(crate::protocol::v1::ProgressParams),
    /// `auth/required` (1.0: the resource's RFC 9728 metadata).
    AuthRequired(crate::protocol::v1::AuthRequiredParams),
    /// Any other notification (e.g. `otlp/*`, MCP traffic on an `mcp://` channel), raw.
    Other {
        /// The method.
        method: String,
        /// The params.
        params: Option<JsonValue>,
    },
}

#[cfg(feature = "v1")]
impl ServerNotificationV1 {
    /// Decodes a 1.0 notification that is not an action envelope (a `-32602` error object
    /// naming the bad field when a typed one's params do not fit).
    pub fn decode(
        method: &str,
        params: Option<RawJson<'_>>,
    ) -> Result<ServerNotificationV1, ErrorObject> {
        use crate::protocol::v1::methods as m;
        Ok(match method {
            m::SESSION_ADDED => Self::SessionAdded(decode_params(params)?),
            m::SESSION_REMOVED => Self::SessionRemoved(decode_params(params)?),
            m::SESSION_SUMMARY_CHANGED => Self::SessionSummaryChanged(decode_params(params)?),
            m::PROGRESS => Self::Progress(decode_params(params)?),
            m::AUTH_REQUIRED => Self::AuthRequired(decode_params(params)?),
            _ => Self::Other {
                method: method.to_string(),
                params: params.map(|p| decode_params(Some(p))).transpose()?,
            },
        })
    }

    /// Whether 1.0 defines this notification (MCP traffic on an `mcp://` channel or an
    /// extension's is not the protocol's).
    pub fn is_protocol(&self) -> bool {
        crate::protocol::v1::methods::is_protocol_notification(self.method())
    }

    /// The method name.
    pub fn method(&self) -> &str {
        use crate::protocol::v1::methods as m;
        match self {
            Self::SessionAdded(_) => m::SESSION_ADDED,
            Self::SessionRemoved(_) => m::SESSION_REMOVED,
            Self::SessionSummaryChanged(_) => m::SESSION_SUMMARY_CHANGED,
            Self::Progress(_) => m::PROGRESS,
            Self::AuthRequired(_) => m::AUTH_REQUIRED,
            Self::Other { method, .. } => method,
        }
    }
}

/// Identifies a server request for [`Engine::respond`](super::Engine::respond).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServerRequestId {
    pub(super) id: RequestId,
    pub(super) epoch: u64,
}

/// A server→client request of a method the app handles.
#[derive(Debug, Clone)]
pub struct ServerRequest {
    /// Pass to [`Engine::respond`](super::Engine::respond).
    pub id: ServerRequestId,
    /// The method.
    pub method: String,
    /// The raw params.
    pub params: Option<RawJsonBuf>,
}

impl ServerRequest {
    /// The params as `C`'s params type (a `-32602` error object on failure, to answer with).
    pub fn params<C: Command>(&self) -> Result<C::Params, ErrorObject> {
        decode_params(self.params.as_ref().map(RawJsonBuf::as_raw))
    }
}

/// Something the driver must act on.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // transient: drained right after each engine call
pub enum Event {
    /// The connection state changed.
    StateChanged(ConnectionState),
    /// A handshake succeeded (`resumed`: after a reconnect).
    Connected {
        /// What the server said (for a `reconnect`, the first connection's info).
        info: ServerInfo,
        /// Whether this resumed an earlier session.
        resumed: bool,
    },
    /// A handshake failed; the driver should close the transport (and retry or give up).
    HandshakeFailed(Error),
    /// The keep-alive `ping` went unanswered: the driver should close the transport and
    /// reconnect.
    ConnectionStale,
    /// The outcome of a request.
    Response {
        /// The id [`Engine::request`](super::Engine::request) returned.
        id: u64,
        /// The raw result, or the error.
        result: Result<RawJsonBuf, Error>,
    },
    /// A channel's state now exists (subscribe or handshake snapshot).
    Subscribed {
        /// The channel URI.
        channel: String,
    },
    /// A channel's optimistic state changed (one event per channel per batch, after replay).
    ChannelChanged {
        /// The channel URI.
        channel: String,
        /// Fields of the optimistic state that may differ.
        changed: ChangeSet,
        /// Fields of the confirmed state that changed.
        confirmed_changed: ChangeSet,
        /// Own actions still awaiting their echo.
        pending: usize,
        /// How the optimistic state changed, below the top level where known (a render
        /// layer applies it instead of rebuilding the `changed` fields whole).
        patch: StatePatch,
    },
    /// The server rejected an own action (its optimistic effect is reverted).
    Rejected {
        /// The channel URI.
        channel: String,
        /// The action and reason.
        rejection: Rejection,
    },
    /// Own actions dropped without an echo; the app decides whether to re-dispatch.
    PendingDropped {
        /// The channel URI.
        channel: String,
        /// The actions, in dispatch order.
        actions: Vec<PendingAction>,
        /// Why.
        reason: DropReason,
    },
    /// The mirror diverged from the server; a fresh snapshot was requested.
    Resync {
        /// The channel URI.
        channel: String,
        /// What was detected.
        reason: String,
    },
    /// A resource watch's changes (`resourceWatch/changed` envelopes of one batch, in order):
    /// they do not change the watch's state, so without this event they would reach no one.
    ResourceChanges {
        /// The watch's channel URI.
        channel: String,
        /// The changes.
        changes: Vec<ResourceChange>,
    },
    /// A subscription ended without the app asking (disposed, no longer permitted, ...).
    SubscriptionLost {
        /// The channel URI.
        channel: String,
        /// Why.
        reason: String,
    },
    /// A protocol notification (`root/sessionAdded`, ...). Boxed: the largest payload, and
    /// rare; every event is moved through the queue, so the enum stays small.
    Notification(Box<ServerNotification>),
    /// A 1.0 host's notification (`root/sessionAdded`, `progress`, ...), typed as 1.0's.
    /// Feature `v1`.
    #[cfg(feature = "v1")]
    NotificationV1 {
        /// The notification, decoded (its params checked against 1.0's type).
        notification: Box<ServerNotificationV1>,
        /// Its params as sent: what the wasm bindings hand to JS (parsed there, so the
        /// module links no encoder of these types).
        params: Option<RawJsonBuf>,
    },
    /// A server request the app registered for; answer it with
    /// [`Engine::respond`](super::Engine::respond).
    ServerRequest(ServerRequest),
    /// What happened to a 1.0 channel's mirror, when the host speaks AHP 1.0 (the
    /// version-free events, such as [`Event::Subscribed`], are shared). Not boxed: 1.0's
    /// actions are as small as 0.3.0's, so this is no larger than the 0.3.0 events, and a
    /// streamed delta allocates no event. Feature `v1`.
    #[cfg(feature = "v1")]
    ChannelV1(ChannelEventV1),
    /// A frame that could not be used; it was skipped and the connection goes on.
    Malformed {
        /// What is wrong.
        message: String,
        /// The frame (truncated to 200 characters).
        frame: String,
    },
}

/// What happened to a channel's mirror, in one protocol version (kinds `K`, actions `A`, a
/// watch's changes `C`): [`Event::ChannelChanged`], [`Event::Rejected`],
/// [`Event::ResourceChanges`] and [`Event::PendingDropped`] as one type, for code written once
/// for both versions ([`Event::into_channel_event`] turns a 0.3.0 one into this form; 1.0's
/// arrive in it, as [`ChannelEventV1`]).
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // boxed in `Event`, and drained right after each call
pub enum ChannelEvent<K, A, C> {
    /// See [`Event::ChannelChanged`].
    Changed {
        /// The channel URI.
        channel: String,
        /// Fields of the optimistic state that may differ.
        changed: ChangeSet<K>,
        /// Fields of the confirmed state that changed.
        confirmed_changed: ChangeSet<K>,
        /// Own actions still awaiting their echo.
        pending: usize,
        /// How the optimistic state changed.
        patch: StatePatch,
    },
    /// See [`Event::Rejected`].
    Rejected {
        /// The channel URI.
        channel: String,
        /// The action and reason.
        rejection: Rejection<A>,
    },
    /// See [`Event::ResourceChanges`].
    ResourceChanges {
        /// The watch's channel URI.
        channel: String,
        /// The changes, in batch order.
        changes: Vec<C>,
    },
    /// See [`Event::PendingDropped`].
    PendingDropped {
        /// The channel URI.
        channel: String,
        /// The actions, in dispatch order.
        actions: Vec<PendingAction<A>>,
        /// Why.
        reason: DropReason,
    },
}

impl<K, A, C> ChannelEvent<K, A, C> {
    /// The channel URI.
    pub fn channel(&self) -> &str {
        match self {
            ChannelEvent::Changed { channel, .. }
            | ChannelEvent::Rejected { channel, .. }
            | ChannelEvent::ResourceChanges { channel, .. }
            | ChannelEvent::PendingDropped { channel, .. } => channel,
        }
    }
}

/// A 0.3.0 channel's [`ChannelEvent`].
pub type ChannelEventV0_3 =
    ChannelEvent<crate::sync::ChannelKind, crate::protocol::StateAction, ResourceChange>;

/// An AHP 1.0 channel's [`ChannelEvent`] (in [`Event::ChannelV1`]); a 1.0 watch's
/// changes are JSON, as 1.0 types them (the `changes` of each action).
#[cfg(feature = "v1")]
pub type ChannelEventV1 = ChannelEvent<
    crate::sync::v1::ChannelKind,
    crate::protocol::v1::StateAction,
    crate::protocol::JsonValue,
>;

impl Event {
    /// A 0.3.0 channel event in the version-generic form; any other event back as `Err`.
    #[allow(clippy::result_large_err)] // the event itself, moved back: no allocation per event
    pub fn into_channel_event(self) -> Result<ChannelEventV0_3, Event> {
        Ok(match self {
            Event::ChannelChanged {
                channel,
                changed,
                confirmed_changed,
                pending,
                patch,
            } => ChannelEvent::Changed {
                channel,
                changed,
                confirmed_changed,
                pending,
                patch,
            },
            Event::Rejected { channel, rejection } => ChannelEvent::Rejected { channel, rejection },
            Event::ResourceChanges { channel, changes } => {
                ChannelEvent::ResourceChanges { channel, changes }
            }
            Event::PendingDropped {
                channel,
                actions,
                reason,
            } => ChannelEvent::PendingDropped {
                channel,
                actions,
                reason,
            },
            other => return Err(other),
        })
    }

    /// A 1.0 channel event; any other event back as `Err`.
    #[cfg(feature = "v1")]
    #[allow(clippy::result_large_err)] // the event itself, moved back: no allocation per event
    pub fn into_channel_event_v1(self) -> Result<ChannelEventV1, Event> {
        match self {
            Event::ChannelV1(event) => Ok(event),
            other => Err(other),
        }
    }
}
