//! Pending messages: the single steering message and the queue of queued messages (keyed by
//! `id`; an emptied queue is absent).

use super::{Field, Handled};
use crate::protocol::v1::{
    ChatPendingMessageRemovedAction, ChatPendingMessageSetAction, ChatState, PendingMessage,
    PendingMessageKind,
};
use crate::reduce::by_id::{remove_queued, remove_steering, upsert_queued};
use crate::reduce::{Changed, NoOp};

/// `chat/pendingMessageSet`: replaces the steering message, or replaces the queued message
/// with the id (whole) or appends it. A kind from a newer version is not taken.
pub(super) fn set(state: &mut ChatState, action: &ChatPendingMessageSetAction) -> Handled<Field> {
    let message = PendingMessage {
        id: action.id.clone(),
        message: action.message.clone(),
        extra: Default::default(),
    };
    match action.kind {
        PendingMessageKind::Steering => {
            state.steering_message = Some(message);
            Ok(Changed::one(Field::SteeringMessage))
        }
        PendingMessageKind::Queued => {
            upsert_queued(&mut state.queued_messages, message);
            Ok(Changed::one(Field::QueuedMessages))
        }
        PendingMessageKind::Other(_) => Err(NoOp::InvalidTransition),
    }
}

/// `chat/pendingMessageRemoved`: removes the steering message if it has the id, or every
/// queued message with the id.
pub(super) fn removed(
    state: &mut ChatState,
    action: &ChatPendingMessageRemovedAction,
) -> Handled<Field> {
    match action.kind {
        PendingMessageKind::Steering => {
            remove_steering(&mut state.steering_message, &action.id)?;
            Ok(Changed::one(Field::SteeringMessage))
        }
        PendingMessageKind::Queued => {
            if !remove_queued(&mut state.queued_messages, &action.id) {
                return Err(NoOp::UnknownTarget);
            }
            Ok(Changed::one(Field::QueuedMessages))
        }
        PendingMessageKind::Other(_) => Err(NoOp::InvalidTransition),
    }
}

/// `chat/queuedMessagesReordered`: the queued messages named in `order` first, in that order
/// (each once, an id naming no message skipped), then the others in the order they had.
///
/// The official Rust reducer puts the others in id order, and keeps one message per id; its
/// own comment and the TypeScript reducer keep their order (see
/// tests/reference_v1_chat.rs, which leaves exactly those cases out of the comparison).
pub(super) fn reordered(state: &mut ChatState, order: &[String]) -> Handled<Field> {
    let queue = state.queued_messages.as_mut().ok_or(NoOp::UnknownTarget)?;
    let mut old: Vec<Option<PendingMessage>> =
        std::mem::take(queue).into_iter().map(Some).collect();
    let mut reordered = Vec::with_capacity(old.len());
    for (position, id) in order.iter().enumerate() {
        if order[..position].contains(id) {
            continue;
        }
        if let Some(slot) = old
            .iter_mut()
            .find(|slot| slot.as_ref().is_some_and(|m| m.id == *id))
        {
            reordered.extend(slot.take());
        }
    }
    reordered.extend(old.into_iter().flatten());
    *queue = reordered;
    Ok(Changed::one(Field::QueuedMessages))
}
