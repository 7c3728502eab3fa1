//! The `ResourceWatchState` reducer: `resourceWatch/changed` reports changes and keeps no
//! history of them, so it leaves the state (the watch's root and filters) as it is.

use super::Outcome;
use crate::protocol::v1::{ResourceWatchState, ResourceWatchStateField, StateAction};
use crate::reduce::NoOp;

/// Applies `action` to a `ResourceWatchState`: never changes it.
pub fn resource_watch_reducer(
    _state: &mut ResourceWatchState,
    action: &StateAction,
) -> Outcome<ResourceWatchStateField> {
    match action {
        StateAction::ResourceWatchChanged(_) => Outcome::NoOp(NoOp::NothingToChange),
        _ => Outcome::NoOp(NoOp::NotForThisChannel),
    }
}
