//! The `RootState` reducer.

use super::{Clock, NoOp, Outcome};
use crate::protocol::{RootState, RootStateField, StateAction};

/// Applies `action` to a `RootState`.
pub fn root_reducer(
    state: &mut RootState,
    action: &StateAction,
    clock: &dyn Clock,
) -> Outcome<RootStateField> {
    let _ = (state, action, clock);
    Outcome::NoOp(NoOp::NotForThisChannel)
}
