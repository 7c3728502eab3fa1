//! The turn lifecycle (start, end, truncation) and the content streamed into the active turn.

use super::target::text_part_index;
use super::target::TextKind::{self, Markdown, Reasoning};
use super::{active_turn_mut, status, tool_call, touch, Field, Handled};
use crate::protocol::{
    ActiveTurn, ErrorInfo, ResponsePart, SessionDeltaAction, SessionReasoningAction,
    SessionResponsePartAction, SessionState, SessionTruncatedAction, SessionTurnStartedAction,
    SessionUsageAction, ToolCallState, Turn, TurnState,
};
use crate::reduce::by_id::remove_queued;
use crate::reduce::{Changed, Clock, NoOp};

/// `session/delta`: appends text to a markdown part of the active turn (the part
/// [`text_part_index`] picks).
#[inline]
pub(super) fn delta(state: &mut SessionState, action: &SessionDeltaAction) -> Handled {
    let turn = active_turn_mut(&mut state.active_turn, &action.turn_id)?;
    append_text(turn, &action.part_id, Markdown, &action.content)
}

/// `session/reasoning`: appends text to a reasoning part of the active turn (the part
/// [`text_part_index`] picks).
pub(super) fn reasoning(state: &mut SessionState, action: &SessionReasoningAction) -> Handled {
    let turn = active_turn_mut(&mut state.active_turn, &action.turn_id)?;
    append_text(turn, &action.part_id, Reasoning, &action.content)
}

/// Appends `content` to the turn's `kind` part [`text_part_index`] picks; a part of another
/// kind (or none) is an unknown target.
#[inline]
fn append_text(turn: &mut ActiveTurn, part_id: &str, kind: TextKind, content: &str) -> Handled {
    let index = text_part_index(&turn.response_parts, part_id, kind).ok_or(NoOp::UnknownTarget)?;
    let text = match (turn.response_parts.get_mut(index), kind) {
        (Some(ResponsePart::Markdown(part)), TextKind::Markdown) => &mut part.content,
        (Some(ResponsePart::Reasoning(part)), TextKind::Reasoning) => &mut part.content,
        _ => return Err(NoOp::UnknownTarget),
    };
    text.push_str(content);
    Ok(Changed::one(Field::ActiveTurn))
}

/// `session/responsePart`: appends a part to the active turn. The status is left alone, also
/// for a tool call that arrives already waiting for the user: both official reducers append
/// and nothing else (we used to raise `input-needed`); the next tool-call action that settles
/// the status counts it.
pub(super) fn response_part(
    state: &mut SessionState,
    action: &SessionResponsePartAction,
) -> Handled {
    let turn = active_turn_mut(&mut state.active_turn, &action.turn_id)?;
    turn.response_parts.push(action.part.clone());
    Ok(Changed::one(Field::ActiveTurn))
}

/// `session/usage`: replaces the active turn's token usage.
pub(super) fn usage(state: &mut SessionState, action: &SessionUsageAction) -> Handled {
    let turn = active_turn_mut(&mut state.active_turn, &action.turn_id)?;
    turn.usage = Some(action.usage.clone());
    Ok(Changed::one(Field::ActiveTurn))
}

/// `session/turnStarted`: opens a new active turn, consuming the pending message it came from.
///
/// A turn that is still active is replaced: the server has moved on to the new turn, and
/// refusing would leave every later action of the new turn stranded.
pub(super) fn started(
    state: &mut SessionState,
    action: &SessionTurnStartedAction,
    clock: &dyn Clock,
) -> Handled {
    let mut changed = Changed::one(Field::ActiveTurn).with(Field::Summary);
    // TypeScript tests `queuedMessageId` for truth: an empty id names no message (the official
    // Rust reducers would remove one whose id is empty).
    if let Some(id) = action
        .queued_message_id
        .as_ref()
        .filter(|id| !id.is_empty())
    {
        // An emptied queue becomes absent, and so does one that was empty already.
        let was_empty = state.queued_messages.as_ref().is_some_and(Vec::is_empty);
        if was_empty {
            state.queued_messages = None;
        }
        if remove_queued(&mut state.queued_messages, id) || was_empty {
            changed.insert(Field::QueuedMessages);
        }
        if state.steering_message.as_ref().is_some_and(|m| &m.id == id) {
            state.steering_message = None;
            changed.insert(Field::SteeringMessage);
        }
    }
    state.active_turn = Some(ActiveTurn {
        id: action.turn_id.clone(),
        message: action.message.clone(),
        response_parts: Vec::new(),
        usage: None,
        extra: Default::default(),
    });
    let activity = if status::has_open_input(&state.input_requests) {
        status::INPUT_NEEDED
    } else {
        status::IN_PROGRESS
    };
    status::set_activity(&mut state.summary.status, activity);
    status::set_flag(&mut state.summary.status, status::IS_READ, false);
    touch(state, clock);
    Ok(changed)
}

/// How the active turn ended.
pub(super) enum TurnEnd<'a> {
    Complete,
    Cancelled,
    Error(&'a ErrorInfo),
}

/// `session/turnComplete`, `session/turnCancelled`, `session/error`: moves the active turn into
/// history, force-cancelling unfinished tool calls (and ones of unknown statuses, see
/// [`tool_call::force_cancel`]) and abandoning open input requests. The finished turn is built
/// anew, as both official reducers do: members of the active turn this version does not know,
/// and those of a cancelled call's part, are not carried over.
pub(super) fn end(
    state: &mut SessionState,
    turn_id: &str,
    end: TurnEnd<'_>,
    clock: &dyn Clock,
) -> Handled {
    active_turn_mut(&mut state.active_turn, turn_id)?;
    let Some(mut active) = state.active_turn.take() else {
        return Err(NoOp::WrongTurn);
    };
    for part in &mut active.response_parts {
        if let ResponsePart::ToolCall(part) = part {
            if !matches!(
                part.tool_call,
                ToolCallState::Completed(_) | ToolCallState::Cancelled(_)
            ) {
                tool_call::force_cancel(&mut part.tool_call);
                part.extra = Default::default();
            }
        }
    }
    let (turn_state, error, activity) = match end {
        TurnEnd::Complete => (TurnState::Complete, None, status::IDLE),
        TurnEnd::Cancelled => (TurnState::Cancelled, None, status::IDLE),
        TurnEnd::Error(error) => (TurnState::Error, Some(error.clone()), status::ERROR),
    };
    state.turns.push(std::sync::Arc::new(Turn {
        id: active.id,
        message: active.message,
        response_parts: active.response_parts,
        usage: active.usage.map(Box::new),
        state: turn_state,
        error: error.map(Box::new),
        extra: Default::default(),
    }));
    let mut changed = Changed::one(Field::Turns)
        .with(Field::ActiveTurn)
        .with(Field::Summary);
    if state.input_requests.take().is_some() {
        changed.insert(Field::InputRequests);
    }
    status::set_activity(&mut state.summary.status, activity);
    touch(state, clock);
    Ok(changed)
}

/// `session/truncated`: keeps the history up to and including `turnId` (or none of it), drops
/// the active turn and any open input requests, and returns the session to idle.
pub(super) fn truncated(
    state: &mut SessionState,
    action: &SessionTruncatedAction,
    clock: &dyn Clock,
) -> Handled {
    // Turn ids are unique; should several turns share one, the first is the one named, as in
    // the reference reducers.
    let keep = match &action.turn_id {
        Some(id) => match state.turns.iter().position(|turn| &turn.id == id) {
            Some(index) => index.saturating_add(1),
            None => return Err(NoOp::UnknownTarget),
        },
        None => 0,
    };
    let mut changed = Changed::one(Field::Summary);
    if keep < state.turns.len() {
        state.turns.truncate(keep);
        changed.insert(Field::Turns);
    }
    if state.active_turn.take().is_some() {
        changed.insert(Field::ActiveTurn);
    }
    if state.input_requests.take().is_some() {
        changed.insert(Field::InputRequests);
    }
    status::set_activity(&mut state.summary.status, status::IDLE);
    touch(state, clock);
    Ok(changed)
}
