//! The `RootState` reducer: agents, the active session count, terminals and the host config.

use super::{merge_config, outcome, replace, set, Changed, Outcome};
use crate::protocol::v1::{RootState, RootStateField, StateAction};
use crate::reduce::NoOp;

/// Applies `action` to a `RootState`.
pub fn root_reducer(state: &mut RootState, action: &StateAction) -> Outcome<RootStateField> {
    use RootStateField as F;
    let handled = match action {
        StateAction::RootAgentsChanged(a) => replace(&mut state.agents, &a.agents, F::Agents),
        StateAction::RootActiveSessionsChanged(a) => set(
            &mut state.active_sessions,
            Some(a.active_sessions),
            F::ActiveSessions,
        ),
        StateAction::RootTerminalsChanged(a) => set(
            &mut state.terminals,
            Some(a.terminals.clone()),
            F::Terminals,
        ),
        // A host without a config has no schema to merge values into.
        StateAction::RootConfigChanged(a) => merge_config(
            state.config.as_mut().map(|config| &mut config.values),
            &a.config,
            a.replace,
        )
        .map(|()| Changed::one(F::Config)),
        _ => Err(NoOp::NotForThisChannel),
    };
    outcome(handled)
}
