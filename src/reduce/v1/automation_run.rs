//! The `AutomationRunState` reducer: one run's lifecycle and the sessions it started.
//!
//! `automationRun/cancelRequested` is a request to the host (which answers with a lifecycle
//! change); it changes nothing here.

use super::{outcome, remove_first, replace, Changed, Outcome};
use crate::protocol::v1::{AutomationRunState, AutomationRunStateField, StateAction};
use crate::reduce::NoOp;

/// Applies `action` to an `AutomationRunState`.
pub fn automation_run_reducer(
    state: &mut AutomationRunState,
    action: &StateAction,
) -> Outcome<AutomationRunStateField> {
    use AutomationRunStateField as F;
    let handled = match action {
        StateAction::AutomationRunLifecycleChanged(a) => {
            replace(&mut state.lifecycle, &a.lifecycle, F::Lifecycle)
        }
        // Sessions are a set: one already listed is not added again.
        StateAction::AutomationRunSessionSet(a) => {
            if state.sessions.contains(&a.session) {
                Err(NoOp::NothingToChange)
            } else {
                state.sessions.push(a.session.clone());
                Ok(Changed::one(F::Sessions))
            }
        }
        // Removing the primary session leaves the run without one.
        StateAction::AutomationRunSessionRemoved(a) => {
            remove_first(&mut state.sessions, |session| *session == a.session).map(|()| {
                let mut changed = Changed::one(F::Sessions);
                if state.primary_session.as_ref() == Some(&a.session) {
                    state.primary_session = None;
                    changed.insert(F::PrimarySession);
                }
                changed
            })
        }
        StateAction::AutomationRunPrimarySessionChanged(a) => replace(
            &mut state.primary_session,
            &a.primary_session,
            F::PrimarySession,
        ),
        StateAction::AutomationRunCancelRequested(_) => Err(NoOp::NothingToChange),
        _ => Err(NoOp::NotForThisChannel),
    };
    outcome(handled)
}
