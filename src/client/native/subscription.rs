//! [`Subscription`]: a handle on one subscribed channel.

use super::client::AhpClient;
use crate::client::engine::DropReason;
use crate::client::Error;
use crate::protocol::StateAction;
use crate::sync::{AnyMirror, AnyState, ChangeSet, ChannelState, PendingAction, Rejection};
use tokio::sync::broadcast::{self, error::RecvError};

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
}

/// A subscribed channel. The state is read from the client's mirror on demand; changes arrive
/// through [`Subscription::next_event`] or [`Subscription::on_event`]. Dropping the handle
/// does not unsubscribe; [`Subscription::unsubscribe`] does (for every handle of the channel).
pub struct Subscription {
    client: AhpClient,
    uri: String,
    events: broadcast::Receiver<SubscriptionEvent>,
}

impl Subscription {
    pub(super) fn new(
        client: AhpClient,
        uri: String,
        events: broadcast::Receiver<SubscriptionEvent>,
    ) -> Self {
        Subscription {
            client,
            uri,
            events,
        }
    }

    /// The channel URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Runs `f` on the channel's mirror (no copy). `f` runs with the client's engine locked:
    /// do not call the client from inside it.
    pub fn with_mirror<R>(&self, f: impl FnOnce(&AnyMirror) -> R) -> Option<R> {
        self.client.inner.engine().mirror(&self.uri).map(f)
    }

    /// The optimistic state (a copy); `None` for a stateless or lost channel.
    pub fn state(&self) -> Option<AnyState> {
        self.with_mirror(AnyMirror::state)
    }

    /// The optimistic state as `S` (a copy), if the channel holds an `S`.
    pub fn state_as<S: ChannelState>(&self) -> Option<S> {
        self.with_mirror(|m| m.typed::<S>().map(|m| m.state().clone()))
            .flatten()
    }

    /// The last server-acknowledged state (a copy).
    pub fn confirmed_state(&self) -> Option<AnyState> {
        self.with_mirror(AnyMirror::confirmed)
    }

    /// Own actions awaiting their echo.
    pub fn pending_count(&self) -> usize {
        self.with_mirror(AnyMirror::pending_count).unwrap_or(0)
    }

    /// Dispatches an action on this channel; returns its `clientSeq`.
    pub fn dispatch(&self, action: StateAction) -> Result<u64, Error> {
        self.client.dispatch(&self.uri, action)
    }

    /// The next event; `None` once the client is gone or the channel unsubscribed. Events
    /// missed by a slow reader are skipped (the state is always current).
    pub async fn next_event(&mut self) -> Option<SubscriptionEvent> {
        loop {
            match self.events.recv().await {
                Ok(event) => return Some(event),
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            }
        }
    }

    /// Calls `listener` for every event, from a task (never while the client is locked).
    /// Dropping the returned handle stops it.
    pub fn on_event(
        &self,
        mut listener: impl FnMut(SubscriptionEvent) + Send + 'static,
    ) -> ListenerHandle {
        let mut events = self.events.resubscribe();
        let task = tokio::spawn(async move {
            loop {
                match events.recv().await {
                    Ok(event) => listener(event),
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return,
                }
            }
        });
        ListenerHandle(task)
    }

    /// Unsubscribes the channel.
    pub fn unsubscribe(self) {
        self.client.unsubscribe(&self.uri);
    }
}

/// Stops a listener when dropped.
pub struct ListenerHandle(tokio::task::JoinHandle<()>);

impl Drop for ListenerHandle {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("uri", &self.uri)
            .finish()
    }
}
