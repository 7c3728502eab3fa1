//! What a client reports: [`ClientEvent`] on its event stream, [`SubscriptionEvent`] to the
//! handles of one channel.

#[cfg(feature = "v1")]
use crate::client::engine::{ChannelEventV1, ServerNotificationV1};
use crate::client::engine::{DropReason, Event};
use crate::client::Error;
use crate::sync::{ChangeSet, PendingAction, Rejection};

/// What a client reports besides request results and per-subscription changes.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // mirrors `Event`
pub enum ClientEvent {
    /// An engine event: state changes, notifications, rejections, dropped actions, resyncs,
    /// lost subscriptions, malformed frames (never `Response` or `ServerRequest`).
    Protocol(Event),
    /// A 1.0 host's notification, typed as AHP 1.0 defines it (`root/sessionAdded`,
    /// `progress`, `auth/required`, ...; any other method as sent). A 0.3.0 host's arrive as
    /// `Protocol(Event::Notification(..))`. Feature `v1`.
    #[cfg(feature = "v1")]
    NotificationV1(Box<ServerNotificationV1>),
    /// A reconnection attempt failed; another follows unless the policy gives up.
    ReconnectFailed {
        /// 1-based attempt number.
        attempt: u32,
        /// Why.
        error: Error,
    },
}

/// What happened to a subscribed channel.
#[derive(Debug, Clone)]
pub enum SubscriptionEvent {
    /// The channel's state exists (first snapshot).
    Subscribed,
    /// The optimistic state changed (one event per batch of server envelopes, and one per
    /// own dispatch).
    Changed {
        /// Fields of the optimistic state that may differ.
        changed: ChangeSet,
        /// Fields of the confirmed state that changed.
        confirmed_changed: ChangeSet,
        /// Own actions still awaiting their echo.
        pending: usize,
    },
    /// The server rejected an own action; its effect is reverted.
    Rejected(Rejection),
    /// Own actions dropped without an echo (see [`DropReason`]).
    PendingDropped {
        /// The actions.
        actions: Vec<PendingAction>,
        /// Why.
        reason: DropReason,
    },
    /// The subscription ended without being asked to (e.g. the session was disposed).
    Lost(String),
    /// What happened to a 1.0 channel's mirror, when the host speaks 1.0: its changes, a
    /// rejection, dropped own actions, a watch's changes (the 0.3.0 forms above are 0.3.0's
    /// only). Feature `v1`.
    #[cfg(feature = "v1")]
    V1(Box<ChannelEventV1>),
}
