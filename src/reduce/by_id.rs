//! Version-free handler steps over items keyed by `id`, shared by the 0.3.0 and 1.0 reducers:
//! the two versions' generated types differ, the rules for these items do not.

use super::NoOp;
use crate::protocol::{v1, ActiveTurn, PendingMessage};

/// An item a handler finds by its `id`: either version's active turn or pending message.
pub(crate) trait Keyed {
    fn id(&self) -> &str;
}

macro_rules! keyed_by_id_field {
    ($($item:ty),+) => {$(
        impl Keyed for $item {
            #[inline]
            fn id(&self) -> &str {
                &self.id
            }
        }
    )+};
}
keyed_by_id_field!(
    ActiveTurn,
    v1::ActiveTurn,
    PendingMessage,
    v1::PendingMessage
);

/// The active turn, if `turn_id` names it. Turn-scoped actions for any other turn (a finished
/// one, or one from before a reconnect) do not apply.
#[inline]
pub(crate) fn active_turn_mut<'a, T: Keyed>(
    active_turn: &'a mut Option<T>,
    turn_id: &str,
) -> Result<&'a mut T, NoOp> {
    match active_turn {
        Some(turn) if crate::words::same(turn.id(), turn_id) => Ok(turn),
        _ => Err(NoOp::WrongTurn),
    }
}

/// Clears the steering message if it is the one `id` names; `Err(UnknownTarget)` otherwise.
pub(crate) fn remove_steering<T: Keyed>(steering: &mut Option<T>, id: &str) -> Result<(), NoOp> {
    if steering.as_ref().is_some_and(|message| message.id() == id) {
        *steering = None;
        Ok(())
    } else {
        Err(NoOp::UnknownTarget)
    }
}

/// Replaces the first queued message with `message`'s id (whole), or appends it.
pub(crate) fn upsert_queued<T: Keyed>(queue: &mut Option<Vec<T>>, message: T) {
    let queue = queue.get_or_insert_with(Vec::new);
    match queue.iter_mut().find(|queued| queued.id() == message.id()) {
        Some(queued) => *queued = message,
        None => queue.push(message),
    }
}

/// Removes the queued message `id` (every one with that id, should a snapshot hold several, as
/// the reference reducers do); an emptied queue becomes absent, as on the wire. Returns whether
/// a message was removed.
pub(crate) fn remove_queued<T: Keyed>(queue: &mut Option<Vec<T>>, id: &str) -> bool {
    let Some(messages) = queue else {
        return false;
    };
    let before = messages.len();
    messages.retain(|queued| queued.id() != id);
    if messages.len() == before {
        return false;
    }
    if messages.is_empty() {
        *queue = None;
    }
    true
}
