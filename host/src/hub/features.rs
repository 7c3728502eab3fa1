//! How features plug into the hub's lifecycle: one [`Feature`] trait, whose hooks the hub
//! calls for every feature in a fixed order ([`Hub::each_feature`]). A hook gets `&mut` its
//! feature's own state and `&mut Core`, never the whole hub: what it applies with
//! [`Core::apply_server`] has its reactions (`Hub::after_apply`) run when the hook returns.
//!
//! A feature that owns channels (terminals, changesets, watches) also answers for them
//! here: whether a channel is its own, its subscribers and its snapshot, so the hub's
//! subscribe, unsubscribe and handshake paths reach every channel kind the same way.
//!
//! A new feature (or a 1.0 channel) is a module with a state struct that implements the
//! hooks it needs, a field of [`Hub`] and a line in [`Hub::feature`] and [`Hub::features`].

use super::base::Core;
use super::{ConnId, Hub};
use serde::Serialize;

/// A feature's part in the session, turn and connection lifecycle; every hook does nothing
/// unless the feature needs it.
pub(super) trait Feature {
    /// A session was created (its `ready` applied).
    fn session_opened(&mut self, _core: &mut Core, _session: &str) {}

    /// A session was loaded from the database at start-up.
    fn session_restored(&mut self, _core: &mut Core, _session: &str) {}

    /// A session is being used (subscribed to, or a turn starts): a restored one wakes up.
    fn session_used(&mut self, _core: &mut Core, _session: &str) {}

    /// The session's active turn ended.
    fn turn_ended(&mut self, _core: &mut Core, _session: &str) {}

    /// A session was disposed of (it is gone from the core already).
    fn session_disposed(&mut self, _core: &mut Core, _session: &str) {}

    /// A connection closed (it is gone from the core already), with the channels it
    /// subscribed to (it is gone from their subscribers too).
    fn conn_closed(&mut self, _core: &mut Core, _conn: ConnId, _subs: &[String]) {}

    /// The last connection of `client_id` closed.
    fn client_left(&mut self, _core: &mut Core, _client_id: &str) {}

    /// `client_id` completed a handshake.
    fn client_returned(&mut self, _core: &mut Core, _client_id: &str) {}

    /// The hub handled a message (a request, an event, a timer).
    fn after_message(&mut self, _core: &mut Core) {}

    /// The host stops.
    fn shutdown(&mut self, _core: &mut Core) {}

    /// Whether `channel` is one of this feature's state-bearing (subscribable) channels.
    fn has_channel(&self, _channel: &str) -> bool {
        false
    }

    /// The subscribers of `channel`, one of this feature's channels.
    fn subscribers_mut(&mut self, _channel: &str) -> Option<&mut Vec<ConnId>> {
        None
    }

    /// The snapshot of `channel`, one of this feature's channels, at `from_seq` (see
    /// [`snapshot_json`]).
    fn snapshot(&self, _channel: &str, _from_seq: u64) -> Option<String> {
        None
    }
}

#[derive(Serialize)]
struct SnapshotOut<'a, S: Serialize> {
    resource: &'a str,
    state: &'a S,
    #[serde(rename = "fromSeq")]
    from_seq: u64,
}

/// A channel's snapshot as a subscriber gets it: its URI, its state and the `serverSeq` the
/// state is at.
pub(super) fn snapshot_json<S: Serialize>(
    channel: &str,
    state: &S,
    from_seq: u64,
) -> Option<String> {
    serde_json::to_string(&SnapshotOut {
        resource: channel,
        state,
        from_seq,
    })
    .ok()
}

/// How many features [`Hub::feature`] numbers.
const FEATURES: usize = 11;

impl Hub {
    /// Feature `i` with the core, borrowed apart. The order is the order hooks run in.
    fn feature(&mut self, i: usize) -> (&mut dyn Feature, &mut Core) {
        let feature: &mut dyn Feature = match i {
            0 => &mut self.mcp,
            1 => &mut self.customs,
            2 => &mut self.terminals,
            3 => &mut self.changesets,
            4 => &mut self.watches,
            5 => &mut self.agent_auth,
            6 => &mut self.model_agents,
            7 => &mut self.transform,
            8 => &mut self.automations,
            9 => &mut self.annotations,
            _ => &mut self.canvases,
        };
        (feature, &mut self.core)
    }

    /// Every feature, read-only, in the order of [`Hub::feature`].
    fn features(&self) -> [&dyn Feature; FEATURES] {
        [
            &self.mcp,
            &self.customs,
            &self.terminals,
            &self.changesets,
            &self.watches,
            &self.agent_auth,
            &self.model_agents,
            &self.transform,
            &self.automations,
            &self.annotations,
            &self.canvases,
        ]
    }

    /// The feature whose channel `channel` is, if any.
    fn channel_owner(&self, channel: &str) -> Option<usize> {
        self.features().iter().position(|f| f.has_channel(channel))
    }

    /// Whether `channel` is a feature's channel.
    pub(super) fn feature_has_channel(&self, channel: &str) -> bool {
        self.channel_owner(channel).is_some()
    }

    /// The subscribers of a feature's channel.
    pub(super) fn feature_subscribers_mut(&mut self, channel: &str) -> Option<&mut Vec<ConnId>> {
        let i = self.channel_owner(channel)?;
        self.feature(i).0.subscribers_mut(channel)
    }

    /// The snapshot of a feature's channel, at the current `serverSeq`.
    pub(super) fn feature_snapshot(&self, channel: &str) -> Option<String> {
        let i = self.channel_owner(channel)?;
        self.features()[i].snapshot(channel, self.core.seq)
    }

    /// Runs `hook` for every feature in order; after each, the reactions to what it applied.
    pub(super) fn each_feature(&mut self, mut hook: impl FnMut(&mut dyn Feature, &mut Core)) {
        for i in 0..FEATURES {
            let (feature, core) = self.feature(i);
            hook(feature, core);
            self.react();
        }
    }

    /// Runs the reactions (`after_apply`) to the actions hooks applied, in order.
    pub(super) fn react(&mut self) {
        while !self.core.applied.is_empty() {
            for (channel, action) in std::mem::take(&mut self.core.applied) {
                self.after_apply(&channel, &action, None);
            }
        }
    }
}
