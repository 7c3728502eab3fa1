//! How features plug into the hub's lifecycle: one [`Feature`] trait, whose hooks the hub
//! calls for every feature in a fixed order ([`Hub::each_feature`]). A hook gets `&mut` its
//! feature's own state and `&mut Core`, never the whole hub: what it applies with
//! [`Core::apply_server`] has its reactions (`Hub::after_apply`) run when the hook returns.
//!
//! A new feature (or a 1.0 channel) is a module with a state struct that implements the
//! hooks it needs, a field of [`Hub`] and a line in [`Hub::each_feature`].

use super::base::Core;
use super::{ConnId, Hub};

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
}

/// How many features [`Hub::feature`] numbers.
const FEATURES: usize = 7;

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
            _ => &mut self.transform,
        };
        (feature, &mut self.core)
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
