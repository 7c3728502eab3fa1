//! The `TerminalState` reducer.

use super::{Clock, NoOp, Outcome};
use crate::protocol::{StateAction, TerminalState, TerminalStateField};

/// Applies `action` to a `TerminalState`.
pub fn terminal_reducer(
    state: &mut TerminalState,
    action: &StateAction,
    clock: &dyn Clock,
) -> Outcome<TerminalStateField> {
    let _ = (state, action, clock);
    Outcome::NoOp(NoOp::NotForThisChannel)
}
