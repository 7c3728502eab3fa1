//! The `CanvasState` reducer: a canvas's state is replaced whole by `canvas/stateChanged`.

use super::{outcome, Changed, Outcome};
use crate::protocol::v1::{CanvasState, CanvasStateField, StateAction};
use crate::reduce::NoOp;

/// Applies `action` to a `CanvasState`.
pub fn canvas_reducer(state: &mut CanvasState, action: &StateAction) -> Outcome<CanvasStateField> {
    let handled = match action {
        StateAction::CanvasStateChanged(a) => {
            let changed = CanvasStateField::ALL
                .iter()
                .fold(Changed::none(), |changed, field| changed.with(*field));
            state.clone_from(&a.canvas);
            Ok(changed)
        }
        _ => Err(NoOp::NotForThisChannel),
    };
    outcome(handled)
}
