//! The `ChatState` reducer: one chat's turns (completed ones shared between copies of the
//! state, `Vec<Arc<Turn>>`), the active turn with its response parts, tool calls and input
//! requests, pending messages, and the chat's metadata.
//!
//! The hot path is `chat/delta` on the active turn: turn-scoped actions touch only
//! `activeTurn`, text is appended in place, and `status` is recomputed only by actions that
//! can change it. As in the official reducers, a turn-scoped action names the active turn
//! (any other turn id is a no-op), and a part or tool call is the first one with its id.

mod input;
mod pending;
mod tool_call;

pub(crate) use tool_call::id as tool_call_id;
mod turn;

use super::{
    outcome, remove_first, replace, set, with_activity, with_flag, Changed, Handled, Outcome,
};
use crate::protocol::v1::{
    BackgroundWork, ChatState, ChatStateField, ResponsePart, SessionStatus, StateAction,
    ToolCallState,
};
use crate::protocol::JsonValue;
use crate::reduce::by_id::active_turn_mut;
use crate::reduce::NoOp;

type Field = ChatStateField;

/// Applies `action` to a `ChatState`.
pub fn chat_reducer(state: &mut ChatState, action: &StateAction) -> Outcome<Field> {
    let handled = match action {
        // Turn content: the streaming hot path first.
        StateAction::ChatDelta(a) => turn::delta(state, a),
        StateAction::ChatReasoning(a) => turn::reasoning(state, a),
        StateAction::ChatResponsePart(a) => turn::response_part(state, a),
        StateAction::ChatUsage(a) => turn::usage(state, a),

        // Turn lifecycle.
        StateAction::ChatTurnStarted(a) => turn::started(state, a),
        StateAction::ChatTurnComplete(a) => {
            turn::end(state, &a.turn_id, a.duration, turn::Ending::Complete)
        }
        StateAction::ChatTurnCancelled(a) => {
            turn::end(state, &a.turn_id, a.duration, turn::Ending::Cancelled)
        }
        StateAction::ChatError(a) => {
            turn::end(state, &a.turn_id, a.duration, turn::Ending::Error(&a.part))
        }
        StateAction::ChatTurnResume(a) => turn::resume(state, &a.turn_id),
        StateAction::ChatTruncated(a) => turn::truncated(state, a.turn_id.as_deref()),
        StateAction::ChatTurnsLoaded(a) => turn::loaded(state, a),

        // Tool calls.
        StateAction::ChatToolCallStart(a) => tool_call::start(state, a),
        StateAction::ChatToolCallDelta(a) => tool_call::delta(state, a),
        StateAction::ChatToolCallReady(a) => tool_call::ready(state, a),
        StateAction::ChatToolCallConfirmed(a) => tool_call::confirmed(state, a),
        StateAction::ChatToolCallComplete(a) => tool_call::complete(state, a),
        StateAction::ChatToolCallResultConfirmed(a) => tool_call::result_confirmed(state, a),
        StateAction::ChatToolCallContentChanged(a) => tool_call::content_changed(state, a),
        StateAction::ChatToolCallAuthRequired(a) => tool_call::auth_required(state, a),
        StateAction::ChatToolCallAuthResolved(a) => tool_call::auth_resolved(state, a),

        // Input requests.
        StateAction::ChatInputRequested(a) => input::requested(state, &a.request),
        StateAction::ChatInputAnswerChanged(a) => input::answer_changed(state, a),
        StateAction::ChatInputCompleted(a) => input::completed(state, a),

        // Pending messages and the draft.
        StateAction::ChatPendingMessageSet(a) => pending::set(state, a),
        StateAction::ChatPendingMessageRemoved(a) => pending::removed(state, a),
        StateAction::ChatQueuedMessagesReordered(a) => pending::reordered(state, &a.order),
        StateAction::ChatDraftChanged(a) => replace(&mut state.draft, &a.draft, Field::Draft),

        // The chat's metadata.
        StateAction::ChatIsReadChanged(a) => {
            state.status = with_flag(state.status, SessionStatus::IsRead, a.is_read);
            Ok(Changed::one(Field::Status))
        }
        StateAction::ChatIsArchivedChanged(a) => {
            state.status = with_flag(state.status, SessionStatus::IsArchived, a.is_archived);
            Ok(Changed::one(Field::Status))
        }
        StateAction::ChatActivityChanged(a) => {
            replace(&mut state.activity, &a.activity, Field::Activity)
        }
        StateAction::ChatBackgroundWorkSet(a) => background_work_set(state, &a.work),
        StateAction::ChatBackgroundWorkRemoved(a) => state
            .background_work
            .as_mut()
            .ok_or(NoOp::UnknownTarget)
            .and_then(|list| remove_first(list, |work| work_id(work) == Some(a.id.as_str())))
            .map(|()| Changed::one(Field::BackgroundWork)),
        StateAction::ChatMovableChanged(a) => {
            set(&mut state.movable, Some(a.movable), Field::Movable)
        }
        StateAction::ChatChangesetsChanged(a) => {
            replace(&mut state.changesets, &a.changesets, Field::Changesets)
        }
        StateAction::ChatCanvasesChanged(a) => {
            replace(&mut state.canvases, &a.canvases, Field::Canvases)
        }
        StateAction::ChatWorkingDirectorySet(a) => {
            let list = state.working_directories.get_or_insert_with(Vec::new);
            if list.contains(&a.directory) {
                Err(NoOp::NothingToChange)
            } else {
                list.push(a.directory.clone());
                Ok(Changed::one(Field::WorkingDirectories))
            }
        }
        StateAction::ChatWorkingDirectoryRemoved(a) => state
            .working_directories
            .as_mut()
            .ok_or(NoOp::UnknownTarget)
            .and_then(|list| remove_first(list, |directory| *directory == a.directory))
            .map(|()| Changed::one(Field::WorkingDirectories)),
        _ => Err(NoOp::NotForThisChannel),
    };
    outcome(handled)
}

/// `chat/backgroundWorkSet`: upserts the work by id (work of an unknown kind by its raw
/// `id`; without one it is not taken).
fn background_work_set(state: &mut ChatState, work: &BackgroundWork) -> Handled<Field> {
    let id = work_id(work).ok_or(NoOp::InvalidTransition)?;
    let list = state.background_work.get_or_insert_with(Vec::new);
    match list
        .iter_mut()
        .find(|existing| work_id(existing) == Some(id))
    {
        Some(existing) => existing.clone_from(work),
        None => list.push(work.clone()),
    }
    Ok(Changed::one(Field::BackgroundWork))
}

fn work_id(work: &BackgroundWork) -> Option<&str> {
    match work {
        BackgroundWork::Shell(w) => Some(&w.id),
        BackgroundWork::Subagent(w) => Some(&w.id),
        BackgroundWork::Unknown(raw) => raw.0.get("id").and_then(JsonValue::as_str),
    }
}

/// The status with its activity derived from the chat: `ended` (how a turn just ended) if
/// given, else input needed while the active turn has an open input request or a tool call
/// waiting on the user (confirmation, result review, authentication), in progress while a
/// turn is active, idle otherwise. Flags and unknown bits are kept.
fn derived_status(state: &ChatState, ended: Option<SessionStatus>) -> u32 {
    let activity = ended.unwrap_or_else(|| match &state.active_turn {
        Some(turn) if turn.response_parts.iter().any(waits_on_user) => SessionStatus::InputNeeded,
        Some(_) => SessionStatus::InProgress,
        None => SessionStatus::Idle,
    });
    with_activity(state.status, activity)
}

/// Recomputes the activity (see [`derived_status`]); reports `status` changed.
fn refresh_status(state: &mut ChatState) -> Changed<Field> {
    state.status = derived_status(state, None);
    Changed::one(Field::Status)
}

fn waits_on_user(part: &ResponsePart) -> bool {
    match part {
        ResponsePart::InputRequest(input) => input.response.is_none(),
        ResponsePart::ToolCall(call) => matches!(
            call.tool_call,
            ToolCallState::PendingConfirmation(_)
                | ToolCallState::PendingResultConfirmation(_)
                | ToolCallState::AuthRequired(_)
        ),
        _ => false,
    }
}
