//! The `ChangesetState` reducer.

use super::{Clock, NoOp, Outcome};
use crate::protocol::{ChangesetState, ChangesetStateField, StateAction};

/// Applies `action` to a `ChangesetState`.
pub fn changeset_reducer(
    state: &mut ChangesetState,
    action: &StateAction,
    clock: &dyn Clock,
) -> Outcome<ChangesetStateField> {
    let _ = (state, action, clock);
    Outcome::NoOp(NoOp::NotForThisChannel)
}
