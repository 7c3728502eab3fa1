//! `session/inputNeeded*`: the session-level list of what the session waits for (mirrored
//! from its chats), keyed by `id`, and the input-needed activity it implies.

use super::{Changed, Field, Handled};
use crate::protocol::v1::{SessionInputRequest, SessionState, SessionStatus};
use crate::protocol::JsonValue;
use crate::reduce::v1::{upsert_where, ACTIVITY_MASK};
use crate::reduce::NoOp;

/// `session/inputNeededSet`: upserts the entry by id (an entry of an unknown kind by its raw
/// `id`; one without an id is not taken), then refreshes the activity.
pub(super) fn set(state: &mut SessionState, request: &SessionInputRequest) -> Handled<Field> {
    let id = request_id(request).ok_or(NoOp::InvalidTransition)?;
    upsert_where(&mut state.input_needed, request, |entry| {
        request_id(entry) == Some(id)
    });
    Ok(refresh_status(state))
}

/// `session/inputNeededRemoved`: removes the first entry with the id (an emptied list becomes
/// absent), then refreshes the activity.
pub(super) fn removed(state: &mut SessionState, id: &str) -> Handled<Field> {
    let list = state.input_needed.as_mut().ok_or(NoOp::UnknownTarget)?;
    let index = list
        .iter()
        .position(|entry| request_id(entry) == Some(id))
        .ok_or(NoOp::UnknownTarget)?;
    list.remove(index);
    if list.is_empty() {
        state.input_needed = None;
    }
    Ok(refresh_status(state))
}

/// Input needed while any entry waits on the user (a client executing a tool is not the
/// user); otherwise the input-needed bit is cleared, which leaves in-progress (input needed
/// implies it) or whatever activity the session had.
fn refresh_status(state: &mut SessionState) -> Changed<Field> {
    let waits_on_user = state
        .input_needed
        .iter()
        .flatten()
        .any(|entry| !matches!(entry, SessionInputRequest::ToolClientExecution(_)));
    let input_only = SessionStatus::InputNeeded.bits() & !SessionStatus::InProgress.bits();
    state.status = if waits_on_user {
        (state.status & !ACTIVITY_MASK) | SessionStatus::InputNeeded.bits()
    } else {
        state.status & !input_only
    };
    Changed::one(Field::InputNeeded).with(Field::Status)
}

/// An entry's id (an entry of an unknown kind: its raw `id`, if it is a string).
fn request_id(request: &SessionInputRequest) -> Option<&str> {
    match request {
        SessionInputRequest::ChatInput(r) => Some(&r.id),
        SessionInputRequest::ToolConfirmation(r) => Some(&r.id),
        SessionInputRequest::ToolClientExecution(r) => Some(&r.id),
        SessionInputRequest::ToolAuthentication(r) => Some(&r.id),
        SessionInputRequest::Unknown(raw) => raw.0.get("id").and_then(JsonValue::as_str),
    }
}
