//! `summary.status`, a bitset: bits 0–4 hold exactly one activity (idle, error, in progress,
//! input needed) and bits 5+ hold metadata flags (read, archived) that survive activity changes.

use crate::protocol::{ResponsePart, SessionInputRequest, SessionState, ToolCallState};

/// No active turn and nothing asked of the user.
pub(super) const IDLE: u32 = 1;
/// The most recent turn ended with an error.
pub(super) const ERROR: u32 = 1 << 1;
/// A turn is active.
pub(super) const IN_PROGRESS: u32 = 1 << 3;
/// Waiting for the user (input request or tool confirmation); includes the in-progress bit.
pub(super) const INPUT_NEEDED: u32 = (1 << 3) | (1 << 4);
/// The client has viewed the session since its last modification.
pub(super) const IS_READ: u32 = 1 << 5;
/// The client archived the session.
pub(super) const IS_ARCHIVED: u32 = 1 << 6;

const ACTIVITY_MASK: u32 = 0b1_1111;

/// Replaces the activity bits, keeping the metadata flags. Returns whether the status changed.
pub(super) fn set_activity(status: &mut u32, activity: u32) -> bool {
    let next = (*status & !ACTIVITY_MASK) | activity;
    let changed = next != *status;
    *status = next;
    changed
}

/// Sets or clears one metadata flag. Returns whether the status changed.
pub(super) fn set_flag(status: &mut u32, flag: u32, on: bool) -> bool {
    let next = if on { *status | flag } else { *status & !flag };
    let changed = next != *status;
    *status = next;
    changed
}

/// Whether `flag` is set.
pub(super) fn has_flag(status: u32, flag: u32) -> bool {
    status & flag != 0
}

/// Whether any input request is open.
pub(super) fn has_open_input(requests: &Option<Vec<SessionInputRequest>>) -> bool {
    requests
        .as_ref()
        .is_some_and(|requests| !requests.is_empty())
}

/// Whether a tool call waits for the user (to approve it, or to approve its result).
pub(super) fn awaits_user(tool_call: &ToolCallState) -> bool {
    matches!(
        tool_call,
        ToolCallState::PendingConfirmation(_) | ToolCallState::PendingResultConfirmation(_)
    )
}

/// The activity the rest of the state implies (the official reducers' `summaryStatus`): input
/// needed while an input request is open or a tool call of the active turn waits for the user,
/// in progress while a turn is active, idle otherwise. An `error` outcome of the last turn is
/// not kept: both official reducers recompute it to idle like any other activity (we used to
/// keep it until something replaced it, after the state-model guide's wording).
fn implied_activity(state: &SessionState) -> u32 {
    let input_open = has_open_input(&state.input_requests);
    match &state.active_turn {
        _ if input_open => INPUT_NEEDED,
        Some(turn)
            if turn.response_parts.iter().any(
                |part| matches!(part, ResponsePart::ToolCall(part) if awaits_user(&part.tool_call)),
            ) =>
        {
            INPUT_NEEDED
        }
        Some(_) => IN_PROGRESS,
        None => IDLE,
    }
}

/// Recomputes the activity from scratch (scans the active turn's parts). Only for actions that
/// may have resolved the last thing the user was waiting on. Returns whether the status changed.
pub(super) fn refresh_activity(state: &mut SessionState) -> bool {
    let activity = implied_activity(state);
    set_activity(&mut state.summary.status, activity)
}
