//! The `ResourceWatchState` reducer.

use super::{Clock, NoOp, Outcome};
use crate::protocol::{ResourceWatchState, ResourceWatchStateField, StateAction};

/// Applies `action` to a `ResourceWatchState`.
pub fn resource_watch_reducer(
    state: &mut ResourceWatchState,
    action: &StateAction,
    clock: &dyn Clock,
) -> Outcome<ResourceWatchStateField> {
    let _ = (state, action, clock);
    Outcome::NoOp(NoOp::NotForThisChannel)
}
