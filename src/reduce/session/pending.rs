//! Pending messages: the single steering message and the FIFO of queued messages.

use super::{Field, Handled};
use crate::protocol::{
    PendingMessage, PendingMessageKind, SessionPendingMessageRemovedAction,
    SessionPendingMessageSetAction, SessionQueuedMessagesReorderedAction, SessionState,
};
use crate::reduce::{Changed, NoOp};

/// `session/pendingMessageSet`: replaces the steering message, or upserts a queued message
/// (updated in place if its id is queued already, appended otherwise).
pub(super) fn set(state: &mut SessionState, action: &SessionPendingMessageSetAction) -> Handled {
    let message = || PendingMessage {
        id: action.id.clone(),
        message: action.message.clone(),
        extra: Default::default(),
    };
    match action.kind {
        PendingMessageKind::Steering => {
            state.steering_message = Some(message());
            Ok(Changed::one(Field::SteeringMessage))
        }
        PendingMessageKind::Queued => {
            let queue = state.queued_messages.get_or_insert_with(Vec::new);
            match queue.iter_mut().find(|queued| queued.id == action.id) {
                Some(queued) => queued.message = action.message.clone(),
                None => queue.push(message()),
            }
            Ok(Changed::one(Field::QueuedMessages))
        }
        // A kind from a newer protocol version: there is nowhere to put it.
        PendingMessageKind::Other(_) => Err(NoOp::UnknownTarget),
    }
}

/// `session/pendingMessageRemoved`: removes the steering message or a queued message by id.
pub(super) fn removed(
    state: &mut SessionState,
    action: &SessionPendingMessageRemovedAction,
) -> Handled {
    match action.kind {
        PendingMessageKind::Steering => {
            let names_steering = state
                .steering_message
                .as_ref()
                .is_some_and(|steering| steering.id == action.id);
            if !names_steering {
                return Err(NoOp::UnknownTarget);
            }
            state.steering_message = None;
            Ok(Changed::one(Field::SteeringMessage))
        }
        PendingMessageKind::Queued => {
            if !remove_queued(&mut state.queued_messages, &action.id) {
                return Err(NoOp::UnknownTarget);
            }
            Ok(Changed::one(Field::QueuedMessages))
        }
        PendingMessageKind::Other(_) => Err(NoOp::UnknownTarget),
    }
}

/// Removes the queued message `id` (every one with that id, should a snapshot hold several, as
/// the reference reducers do); an emptied queue becomes absent, as on the wire. Returns whether
/// a message was removed.
pub(super) fn remove_queued(queue: &mut Option<Vec<PendingMessage>>, id: &str) -> bool {
    let Some(messages) = queue else {
        return false;
    };
    let before = messages.len();
    messages.retain(|queued| queued.id != id);
    if messages.len() == before {
        return false;
    }
    if messages.is_empty() {
        *queue = None;
    }
    true
}

/// `session/queuedMessagesReordered`: the queue takes the order of `order`; unknown ids are
/// ignored and messages `order` does not mention keep their relative order at the end, so a
/// client with a stale view of the queue never drops messages.
///
/// A deliberate difference from the official Rust reducers (`ahp` 0.3.0), which go through a
/// `HashMap`: they append the unmentioned messages sorted by id (their comment says "in their
/// original iteration order") and keep only one of several messages sharing an id. We keep the
/// original order, as fixtures 054 and 056 name it, and every message
/// (`tests/reference_reducers.rs`).
pub(super) fn reordered(
    state: &mut SessionState,
    action: &SessionQueuedMessagesReorderedAction,
) -> Handled {
    let Some(queue) = state
        .queued_messages
        .as_mut()
        .filter(|queue| !queue.is_empty())
    else {
        return Err(NoOp::NothingToChange);
    };
    // Plan the new order as indices into the queue before moving anything.
    let mut placed = vec![false; queue.len()];
    let mut order = Vec::with_capacity(queue.len());
    for id in &action.order {
        if let Some(index) = queue.iter().position(|queued| &queued.id == id) {
            match placed.get_mut(index) {
                Some(seen) if !*seen => {
                    *seen = true;
                    order.push(index);
                }
                _ => {}
            }
        }
    }
    order.extend((0..queue.len()).filter(|index| placed.get(*index) == Some(&false)));
    if order
        .iter()
        .enumerate()
        .all(|(position, index)| position == *index)
    {
        return Err(NoOp::NothingToChange);
    }
    let mut slots: Vec<Option<PendingMessage>> = queue.drain(..).map(Some).collect();
    queue.extend(
        order
            .iter()
            .filter_map(|index| slots.get_mut(*index).and_then(Option::take)),
    );
    Ok(Changed::one(Field::QueuedMessages))
}
