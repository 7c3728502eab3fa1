//! [`Subscription`]: a handle on one subscribed channel.

use super::events::SubscriptionEvent;
use super::inner::{CloseOnDrop, Inner};
use crate::client::Error;
use crate::protocol::StateAction;
use crate::sync::{AnyMirror, AnyState, ChannelState};
use std::sync::Arc;
use tokio::sync::broadcast::{self, error::RecvError};

/// A subscribed channel. The state is read from the client's mirror on demand; changes arrive
/// through [`Subscription::next_event`] or [`Subscription::on_event`]. Dropping the handle
/// does not unsubscribe; [`Subscription::unsubscribe`] does (for every handle of the channel).
pub struct Subscription {
    inner: Arc<Inner>,
    /// Keeps the connection open while the handle lives, as a client clone does.
    _owner: Arc<CloseOnDrop>,
    uri: String,
    events: broadcast::Receiver<SubscriptionEvent>,
}

impl Subscription {
    pub(super) fn new(
        inner: Arc<Inner>,
        owner: Arc<CloseOnDrop>,
        uri: String,
        events: broadcast::Receiver<SubscriptionEvent>,
    ) -> Self {
        Subscription {
            inner,
            _owner: owner,
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
        self.inner.engine().mirror(&self.uri).map(f)
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
        self.inner.dispatch(&self.uri, action)
    }

    /// Runs `f` on this 1.0 channel's mirror (no copy), when the host speaks 1.0: the way to
    /// read a long chat as it streams, where [`Subscription::state_v1`] would copy it per
    /// change. `f` runs with the client's engine locked: do not call the client from inside it.
    ///
    /// ```no_run
    /// # fn run(sub: &ahp_wasm::client::native::Subscription) {
    /// use ahp_wasm::protocol::v1::ChatState;
    /// let turns = sub.with_mirror_v1(|m| m.typed::<ChatState>().map(|c| c.state().turns.len()));
    /// # let _ = turns; }
    /// ```
    #[cfg(feature = "v1")]
    pub fn with_mirror_v1<R>(&self, f: impl FnOnce(&crate::sync::v1::AnyMirror) -> R) -> Option<R> {
        self.inner.engine().mirror_v1(&self.uri).map(f)
    }

    /// The optimistic state of this 1.0 channel (a copy), when the host speaks 1.0.
    #[cfg(feature = "v1")]
    pub fn state_v1(&self) -> Option<crate::sync::v1::AnyState> {
        self.with_mirror_v1(|m| m.state())
    }

    /// The last server-acknowledged state of this 1.0 channel (a copy).
    #[cfg(feature = "v1")]
    pub fn confirmed_state_v1(&self) -> Option<crate::sync::v1::AnyState> {
        self.with_mirror_v1(|m| m.confirmed())
    }

    /// Own actions awaiting their echo on this 1.0 channel.
    #[cfg(feature = "v1")]
    pub fn pending_count_v1(&self) -> usize {
        self.with_mirror_v1(|m| m.pending_count()).unwrap_or(0)
    }

    /// Dispatches an AHP 1.0 action on this channel, when the host speaks 1.0 (see
    /// [`AhpClient::dispatch_v1`](super::AhpClient::dispatch_v1)); returns its `clientSeq`.
    #[cfg(feature = "v1")]
    pub fn dispatch_v1(&self, action: crate::protocol::v1::StateAction) -> Result<u64, Error> {
        self.inner
            .with_engine(|engine, now| engine.dispatch_v1(&self.uri, action, now))
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
        self.inner.unsubscribe(&self.uri);
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
