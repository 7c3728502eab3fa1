//! The `SessionState` reducer.

use super::{Clock, NoOp, Outcome};
use crate::protocol::{SessionState, SessionStateField, StateAction};

/// Applies `action` to a `SessionState`.
pub fn session_reducer(
    state: &mut SessionState,
    action: &StateAction,
    clock: &dyn Clock,
) -> Outcome<SessionStateField> {
    let _ = (state, action, clock);
    Outcome::NoOp(NoOp::NotForThisChannel)
}
