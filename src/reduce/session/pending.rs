//! Pending messages: the single steering message and the FIFO of queued messages.

use super::{Field, Handled};
use crate::protocol::{
    PendingMessage, PendingMessageKind, SessionPendingMessageRemovedAction,
    SessionPendingMessageSetAction, SessionQueuedMessagesReorderedAction, SessionState,
};
use crate::reduce::by_id::{remove_queued, remove_steering, upsert_queued};
use crate::reduce::{Changed, NoOp};

/// `session/pendingMessageSet`: replaces the steering message, or upserts a queued message
/// (the first queued message with its id is replaced, whole, else it is appended). A kind from a
/// newer protocol version is queued, as the TypeScript reducers do with anything but
/// `steering`.
pub(super) fn set(state: &mut SessionState, action: &SessionPendingMessageSetAction) -> Handled {
    let message = PendingMessage {
        id: action.id.clone(),
        message: action.message.clone(),
        extra: Default::default(),
    };
    if action.kind == PendingMessageKind::Steering {
        state.steering_message = Some(message);
        return Ok(Changed::one(Field::SteeringMessage));
    }
    upsert_queued(&mut state.queued_messages, message);
    Ok(Changed::one(Field::QueuedMessages))
}

/// `session/pendingMessageRemoved`: removes the steering message or a queued message by id (a
/// kind from a newer version means the queue, as in [`set`]).
pub(super) fn removed(
    state: &mut SessionState,
    action: &SessionPendingMessageRemovedAction,
) -> Handled {
    if action.kind == PendingMessageKind::Steering {
        remove_steering(&mut state.steering_message, &action.id)?;
        return Ok(Changed::one(Field::SteeringMessage));
    }
    if !remove_queued(&mut state.queued_messages, &action.id) {
        return Err(NoOp::UnknownTarget);
    }
    Ok(Changed::one(Field::QueuedMessages))
}

/// `session/queuedMessagesReordered`: the queue takes the order of `order`; unknown ids are
/// ignored and messages `order` does not name keep their relative order at the end, so a
/// client with a stale view of the queue never drops messages (fixtures 054 and 056).
///
/// Should several queued messages share an id (a snapshot could hold them), a named id places
/// the LAST of them and the others go, and unnamed duplicates all stay: what the TypeScript
/// reducers do (they index the queue with a `Map`). The official Rust reducers differ: they
/// append the unnamed messages sorted by id (their comment says "in their original iteration
/// order") and keep one message per id.
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
    let mut named: Vec<&str> = Vec::new();
    let mut order = Vec::with_capacity(queue.len());
    for id in &action.order {
        if named.contains(&id.as_str()) {
            continue;
        }
        if let Some(index) = queue.iter().rposition(|queued| &queued.id == id) {
            named.push(id);
            order.push(index);
        }
    }
    order.extend((0..queue.len()).filter(|index| {
        queue
            .get(*index)
            .is_some_and(|queued| !named.contains(&queued.id.as_str()))
    }));
    if order.len() == queue.len()
        && order
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
