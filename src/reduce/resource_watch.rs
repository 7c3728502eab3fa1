//! The `ResourceWatchState` reducer (`ahp-resource-watch:` channels).
//!
//! A watch's state is the descriptor captured at `createResourceWatch` and never changes;
//! `resourceWatch/changed` batches are delivered to subscribers off the action stream and
//! keep no history in state (spec, fixture 200).

use super::{Clock, NoOp, Outcome};
use crate::protocol::{ResourceWatchState, ResourceWatchStateField, StateAction};

/// Applies `action` to a `ResourceWatchState`: never changes it.
///
/// `resourceWatch/changed` is this channel's action but changes nothing
/// ([`NoOp::NothingToChange`]); anything else is [`NoOp::NotForThisChannel`].
pub fn resource_watch_reducer(
    _state: &mut ResourceWatchState,
    action: &StateAction,
    _clock: &dyn Clock,
) -> Outcome<ResourceWatchStateField> {
    match action {
        StateAction::ResourceWatchChanged(_) => Outcome::NoOp(NoOp::NothingToChange),
        _ => Outcome::NoOp(NoOp::NotForThisChannel),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::FixedClock;
    use serde_json::json;

    fn reduce(
        state: &mut ResourceWatchState,
        value: serde_json::Value,
    ) -> Outcome<ResourceWatchStateField> {
        let action: StateAction = serde_json::from_value(value).expect("valid action");
        resource_watch_reducer(state, &action, &FixedClock(0.0))
    }

    #[test]
    fn changed_is_a_passthrough_and_others_are_not_for_this_channel() {
        let mut s = ResourceWatchState {
            root: "file:///w".into(),
            recursive: true,
            ..Default::default()
        };
        let before = s.clone();
        let changed = json!({"type": "resourceWatch/changed", "changes": {"items": [{"uri": "file:///w/a", "type": "added"}]}});
        assert_eq!(
            reduce(&mut s, changed),
            Outcome::NoOp(NoOp::NothingToChange)
        );
        for value in [
            json!({"type": "resourceWatch/unknownAction"}),
            json!({"type": "terminal/cleared"}),
            json!({"type": "changeset/cleared"}),
        ] {
            assert_eq!(
                reduce(&mut s, value),
                Outcome::NoOp(NoOp::NotForThisChannel)
            );
        }
        assert_eq!(s, before);
    }
}
