//! The turn lifecycle (start, end, resume, truncation, loading older turns) and the content
//! streamed into the active turn.

use super::{active_turn_mut, derived_status, tool_call, Field, Handled};
use crate::protocol::v1::{
    ActiveTurn, ChatDeltaAction, ChatReasoningAction, ChatResponsePartAction, ChatState,
    ChatTurnStartedAction, ChatTurnsLoadedAction, ChatUsageAction, ErrorResponsePart, ResponsePart,
    SessionStatus, Tagged, Turn, TurnState,
};
use crate::reduce::v1::{timestamp, with_flag};
use crate::reduce::TextKind::{self, Markdown, Reasoning};
use crate::reduce::{Changed, NoOp};
use crate::words::same;
use std::sync::Arc;

/// `chat/delta`: appends text to the active turn's part with the id, if it is markdown.
#[inline]
pub(super) fn delta(state: &mut ChatState, action: &ChatDeltaAction) -> Handled<Field> {
    let turn = active_turn_mut(&mut state.active_turn, &action.turn_id)?;
    let text = text_mut(&mut turn.response_parts, &action.part_id, Markdown)?;
    text.push_str(&action.content);
    Ok(Changed::one(Field::ActiveTurn))
}

/// `chat/reasoning`: appends text to the active turn's part with the id, if it is reasoning.
pub(super) fn reasoning(state: &mut ChatState, action: &ChatReasoningAction) -> Handled<Field> {
    let turn = active_turn_mut(&mut state.active_turn, &action.turn_id)?;
    let text = text_mut(&mut turn.response_parts, &action.part_id, Reasoning)?;
    text.push_str(&action.content);
    Ok(Changed::one(Field::ActiveTurn))
}

/// The text of the first part with the id, if it is a `kind` part.
#[inline]
fn text_mut<'a>(
    parts: &'a mut [ResponsePart],
    id: &str,
    kind: TextKind,
) -> Result<&'a mut String, NoOp> {
    match (part_mut(parts, id), kind) {
        (Some(ResponsePart::Markdown(part)), TextKind::Markdown) => Ok(&mut part.content),
        (Some(ResponsePart::Reasoning(part)), TextKind::Reasoning) => Ok(&mut part.content),
        _ => Err(NoOp::UnknownTarget),
    }
}

/// The first part whose id is `id`: a markdown or reasoning part's `id`, a tool call's
/// `toolCallId` (so a delta naming a tool call finds the call and changes nothing, as in the
/// official reducers). Other parts have no id here.
#[inline]
fn part_mut<'a>(parts: &'a mut [ResponsePart], id: &str) -> Option<&'a mut ResponsePart> {
    parts.iter_mut().find(|part| match part {
        ResponsePart::Markdown(p) => same(&p.id, id),
        ResponsePart::Reasoning(p) => same(&p.id, id),
        ResponsePart::ToolCall(p) => tool_call::id(&p.tool_call).is_some_and(|c| same(c, id)),
        _ => false,
    })
}

/// `chat/responsePart`: appends a part to the active turn. An error part is not taken: a
/// turn's error comes with `chat/error`, which ends the turn.
pub(super) fn response_part(
    state: &mut ChatState,
    action: &ChatResponsePartAction,
) -> Handled<Field> {
    let turn = active_turn_mut(&mut state.active_turn, &action.turn_id)?;
    if matches!(action.part, ResponsePart::Error(_)) {
        return Err(NoOp::InvalidTransition);
    }
    turn.response_parts.push(action.part.clone());
    Ok(Changed::one(Field::ActiveTurn))
}

/// `chat/usage`: replaces the active turn's token usage.
pub(super) fn usage(state: &mut ChatState, action: &ChatUsageAction) -> Handled<Field> {
    let turn = active_turn_mut(&mut state.active_turn, &action.turn_id)?;
    turn.usage = Some(action.usage.clone());
    Ok(Changed::one(Field::ActiveTurn))
}

/// `chat/turnStarted`: opens a new active turn (replacing one still active: the host has
/// moved on), stamps `modifiedAt` with its start, marks the chat unread, and consumes the
/// pending message it came from (an emptied queue becomes absent).
pub(super) fn started(state: &mut ChatState, action: &ChatTurnStartedAction) -> Handled<Field> {
    state.active_turn = Some(ActiveTurn {
        id: action.turn_id.clone(),
        started_at: action.started_at.clone(),
        message: action.message.clone(),
        response_parts: Vec::new(),
        usage: None,
        extra: Default::default(),
    });
    state.status = with_flag(derived_status(state, None), SessionStatus::IsRead, false);
    state.modified_at.clone_from(&action.started_at);
    let mut changed = Changed::one(Field::ActiveTurn)
        .with(Field::Status)
        .with(Field::ModifiedAt);
    if let Some(id) = &action.queued_message_id {
        if state.steering_message.as_ref().is_some_and(|m| m.id == *id) {
            state.steering_message = None;
            changed.insert(Field::SteeringMessage);
        }
        if let Some(queue) = &mut state.queued_messages {
            queue.retain(|m| m.id != *id);
            if queue.is_empty() {
                state.queued_messages = None;
            }
            changed.insert(Field::QueuedMessages);
        }
    }
    Ok(changed)
}

/// How the active turn ends.
pub(super) enum Ending<'a> {
    Complete,
    Cancelled,
    Error(&'a Tagged<ErrorResponsePart>),
}

/// `chat/turnComplete`, `chat/turnCancelled`, `chat/error`: moves the active turn into the
/// history with its duration (a negative one counts as 0), cancelling (`skipped`) its
/// unfinished tool calls and appending the error part of an error; `modifiedAt` becomes the
/// turn's start plus its duration. A start that is not an RFC 3339 timestamp (or a sum out of
/// range) leaves the turn active. The finished turn is built anew, as the official reducers
/// build it: members of the active turn this version does not know are not carried over.
pub(super) fn end(
    state: &mut ChatState,
    turn_id: &str,
    duration: i64,
    ending: Ending<'_>,
) -> Handled<Field> {
    let turn = active_turn_mut(&mut state.active_turn, turn_id)?;
    let duration = duration.max(0);
    let modified_at =
        timestamp::add_milliseconds(&turn.started_at, duration).ok_or(NoOp::InvalidTransition)?;
    let Some(active) = state.active_turn.take() else {
        return Err(NoOp::WrongTurn);
    };
    let mut response_parts = active.response_parts;
    for part in &mut response_parts {
        if let ResponsePart::ToolCall(call) = part {
            tool_call::cancel_unfinished(call);
        }
    }
    let (turn_state, ended) = match ending {
        Ending::Complete => (TurnState::Complete, None),
        Ending::Cancelled => (TurnState::Cancelled, None),
        Ending::Error(part) => {
            response_parts.push(ResponsePart::Error(part.0.clone()));
            (TurnState::Error, Some(SessionStatus::Error))
        }
    };
    state.turns.push(Arc::new(Turn {
        id: active.id,
        started_at: Some(active.started_at),
        duration: Some(duration),
        message: active.message,
        response_parts,
        usage: active.usage,
        state: turn_state,
        extra: Default::default(),
    }));
    state.modified_at = modified_at;
    state.status = derived_status(state, ended);
    Ok(Changed::one(Field::Turns)
        .with(Field::ActiveTurn)
        .with(Field::ModifiedAt)
        .with(Field::Status))
}

/// `chat/turnResume`: reopens the last turn, when no turn is active and it is the named turn,
/// ended in error, with a resumable error part last (kept: the turn goes on after it). It
/// starts when it started (a turn without a start: at the chat's `modifiedAt`).
pub(super) fn resume(state: &mut ChatState, turn_id: &str) -> Handled<Field> {
    if state.active_turn.is_some() {
        return Err(NoOp::InvalidTransition);
    }
    let last = state.turns.last().ok_or(NoOp::UnknownTarget)?;
    if last.id != turn_id {
        return Err(NoOp::WrongTurn);
    }
    let resumable = matches!(
        last.response_parts.last(),
        Some(ResponsePart::Error(error)) if error.resumable == Some(true)
    );
    if last.state != TurnState::Error || !resumable {
        return Err(NoOp::InvalidTransition);
    }
    let Some(turn) = state.turns.pop() else {
        return Err(NoOp::UnknownTarget);
    };
    let turn = Arc::try_unwrap(turn).unwrap_or_else(|shared| (*shared).clone());
    state.active_turn = Some(ActiveTurn {
        id: turn.id,
        started_at: turn.started_at.unwrap_or_else(|| state.modified_at.clone()),
        message: turn.message,
        response_parts: turn.response_parts,
        usage: turn.usage,
        extra: Default::default(),
    });
    state.status = with_flag(derived_status(state, None), SessionStatus::IsRead, false);
    Ok(Changed::one(Field::Turns)
        .with(Field::ActiveTurn)
        .with(Field::Status))
}

/// `chat/truncated`: keeps the history up to and including the named turn (the first with the
/// id), or none of it (and forgets the cursor to older turns); drops the active turn.
pub(super) fn truncated(state: &mut ChatState, turn_id: Option<&str>) -> Handled<Field> {
    let mut changed = Changed::one(Field::Turns)
        .with(Field::ActiveTurn)
        .with(Field::Status);
    match turn_id {
        None => {
            state.turns.clear();
            state.turns_next_cursor = None;
            changed.insert(Field::TurnsNextCursor);
        }
        Some(id) => {
            let index = state
                .turns
                .iter()
                .position(|turn| turn.id == id)
                .ok_or(NoOp::UnknownTarget)?;
            state.turns.truncate(index + 1);
        }
    }
    state.active_turn = None;
    state.status = derived_status(state, None);
    Ok(changed)
}

/// `chat/turnsLoaded`: older turns go before the history (those whose id is already in it are
/// left out), and the cursor to still older ones is replaced.
pub(super) fn loaded(state: &mut ChatState, action: &ChatTurnsLoadedAction) -> Handled<Field> {
    let older = action
        .turns
        .iter()
        .filter(|turn| !state.turns.iter().any(|known| known.id == turn.id))
        .map(|turn| Arc::new(turn.clone()));
    let mut turns: Vec<Arc<Turn>> = older.collect();
    turns.append(&mut state.turns);
    state.turns = turns;
    state
        .turns_next_cursor
        .clone_from(&action.turns_next_cursor);
    Ok(Changed::one(Field::Turns).with(Field::TurnsNextCursor))
}
