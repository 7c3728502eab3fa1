//! The `AutomationState` reducer: the host's automations, keyed by `resource`.
//!
//! `automation/createRequested` and `automation/updateRequested` are requests to the host,
//! which answers with `automation/set`; they change nothing here.

use super::{outcome, remove_first, upsert, Changed, Outcome};
use crate::protocol::v1::{AutomationState, AutomationStateField, StateAction};
use crate::reduce::NoOp;

/// Applies `action` to an `AutomationState`.
pub fn automation_reducer(
    state: &mut AutomationState,
    action: &StateAction,
) -> Outcome<AutomationStateField> {
    use AutomationStateField as F;
    let handled = match action {
        StateAction::AutomationCreateRequested(_) | StateAction::AutomationUpdateRequested(_) => {
            Err(NoOp::NothingToChange)
        }
        // The first entry with the resource is replaced, whole, else the entry is appended.
        StateAction::AutomationSet(a) => {
            upsert(&mut state.entries, &a.automation, |entry| {
                entry.resource.clone()
            });
            Ok(Changed::one(F::Entries))
        }
        StateAction::AutomationRemoved(a) => {
            remove_first(&mut state.entries, |entry| entry.resource == a.resource)
                .map(|()| Changed::one(F::Entries))
        }
        _ => Err(NoOp::NotForThisChannel),
    };
    outcome(handled)
}
