//! The tool-call state machine:
//!
//! | from                            | action                             | to                            |
//! |---------------------------------|------------------------------------|-------------------------------|
//! | streaming                       | toolCallDelta                      | streaming                     |
//! | streaming, running              | toolCallReady with `confirmed`     | running                       |
//! | streaming, running              | toolCallReady                      | pending-confirmation          |
//! | pending-confirmation            | toolCallConfirmed (approved)       | running                       |
//! | pending-confirmation            | toolCallConfirmed (denied)         | cancelled                     |
//! | running, pending-confirmation   | toolCallComplete                   | completed                     |
//! | running, pending-confirmation   | toolCallComplete needing review    | pending-result-confirmation   |
//! | pending-result-confirmation     | toolCallResultConfirmed (approved) | completed                     |
//! | pending-result-confirmation     | toolCallResultConfirmed (denied)   | cancelled (`result-denied`)   |
//! | any unfinished                  | the turn ends                      | cancelled (`skipped`)         |
//!
//! Every handler checks the current status before it writes; a tool call in an unexpected (or
//! unknown, newer-version) status is left exactly as it is.

use super::target::tool_call_index;
use super::{active_turn_mut, status, Field, Handled};
use crate::protocol::tagged::UnknownVariant;
use crate::protocol::{
    ConfirmationOption, Extra, JsonObject, Message, ResponsePart, SessionState,
    SessionToolCallApprovedAction, SessionToolCallCompleteAction,
    SessionToolCallContentChangedAction, SessionToolCallDeltaAction, SessionToolCallDeniedAction,
    SessionToolCallReadyAction, SessionToolCallResultConfirmedAction, SessionToolCallStartAction,
    StringOrMarkdown, ToolCallCancellationReason, ToolCallCancelledState, ToolCallCompletedState,
    ToolCallConfirmationReason, ToolCallContributor, ToolCallPendingConfirmationState,
    ToolCallPendingConfirmationStateEdits, ToolCallPendingResultConfirmationState,
    ToolCallResponsePart, ToolCallResult, ToolCallRunningState, ToolCallState,
    ToolCallStreamingState,
};
use crate::reduce::{Changed, NoOp};

/// `session/toolCallStart`: appends a streaming tool call to the active turn.
pub(super) fn start(state: &mut SessionState, action: &SessionToolCallStartAction) -> Handled {
    let turn = active_turn_mut(&mut state.active_turn, &action.turn_id)?;
    let streaming = ToolCallStreamingState {
        tool_call_id: action.tool_call_id.clone(),
        tool_name: action.tool_name.clone(),
        display_name: action.display_name.clone(),
        contributor: action.contributor.clone(),
        meta: action.meta.clone(),
        partial_input: None,
        invocation_message: None,
        extra: Default::default(),
    };
    turn.response_parts
        .push(ResponsePart::ToolCall(Box::new(ToolCallResponsePart {
            tool_call: ToolCallState::Streaming(streaming),
            extra: Default::default(),
        })));
    Ok(Changed::one(Field::ActiveTurn))
}

/// `session/toolCallDelta`: appends streamed parameters (and maybe a new progress message).
pub(super) fn delta(state: &mut SessionState, action: &SessionToolCallDeltaAction) -> Handled {
    let tool_call = find(state, &action.turn_id, &action.tool_call_id)?;
    let ToolCallState::Streaming(streaming) = tool_call else {
        return Err(NoOp::InvalidTransition);
    };
    streaming
        .partial_input
        .get_or_insert_with(String::new)
        .push_str(&action.content);
    if let Some(message) = &action.invocation_message {
        streaming.invocation_message = Some(message.clone());
    }
    Ok(Changed::one(Field::ActiveTurn))
}

/// `session/toolCallReady`: parameters are complete (from `streaming`) or a running tool needs
/// re-confirmation (from `running`). With `confirmed` the tool runs at once; otherwise it waits
/// for the user in `pending-confirmation`. A missing `toolInput` keeps the input the call already
/// has; the call keeps its own `_meta` (the conformance fixtures do not copy the action's).
pub(super) fn ready(state: &mut SessionState, action: &SessionToolCallReadyAction) -> Handled {
    let tool_call = find(state, &action.turn_id, &action.tool_call_id)?;
    if !matches!(
        tool_call,
        ToolCallState::Streaming(_) | ToolCallState::Running(_)
    ) {
        return Err(NoOp::InvalidTransition);
    }
    transition(tool_call, |mut carried| {
        carried.invocation_message = action.invocation_message.clone();
        if let Some(input) = &action.tool_input {
            carried.tool_input = Some(input.clone());
        }
        match &action.confirmed {
            Some(confirmed) => carried.running(confirmed.clone()),
            None => carried.pending_confirmation(action),
        }
    });
    Ok(tool_call_changed(state, false, action.confirmed.is_none()))
}

/// `session/toolCallConfirmed` (approved): `pending-confirmation` → `running`, with the client's
/// edited input if any and the chosen confirmation option resolved from the offered ones.
pub(super) fn approved(
    state: &mut SessionState,
    action: &SessionToolCallApprovedAction,
) -> Handled {
    let tool_call = find(state, &action.turn_id, &action.tool_call_id)?;
    let ToolCallState::PendingConfirmation(pending) = &*tool_call else {
        return Err(NoOp::InvalidTransition);
    };
    let selected = selected_option(pending, action.selected_option_id.as_deref());
    transition(tool_call, |mut carried| {
        if let Some(edited) = &action.edited_tool_input {
            carried.tool_input = Some(edited.clone());
        }
        carried.selected_option = selected;
        carried.running(action.confirmed.clone())
    });
    Ok(tool_call_changed(state, true, false))
}

/// `session/toolCallConfirmed` (denied): `pending-confirmation` → `cancelled`.
pub(super) fn denied(state: &mut SessionState, action: &SessionToolCallDeniedAction) -> Handled {
    let tool_call = find(state, &action.turn_id, &action.tool_call_id)?;
    let ToolCallState::PendingConfirmation(pending) = &*tool_call else {
        return Err(NoOp::InvalidTransition);
    };
    let selected = selected_option(pending, action.selected_option_id.as_deref());
    transition(tool_call, |mut carried| {
        carried.selected_option = selected;
        carried.cancelled(
            action.reason.clone(),
            action.reason_message.clone(),
            action.user_suggestion.clone(),
        )
    });
    Ok(tool_call_changed(state, true, false))
}

/// `session/toolCallComplete`: `running` (or `pending-confirmation`, confirmed implicitly as
/// `not-needed`) → `completed`, or → `pending-result-confirmation` when the result needs review.
pub(super) fn complete(
    state: &mut SessionState,
    action: &SessionToolCallCompleteAction,
) -> Handled {
    let tool_call = find(state, &action.turn_id, &action.tool_call_id)?;
    let (confirmed, was_waiting) = match &*tool_call {
        ToolCallState::Running(running) => (running.confirmed.clone(), false),
        ToolCallState::PendingConfirmation(_) => (ToolCallConfirmationReason::NotNeeded, true),
        _ => return Err(NoOp::InvalidTransition),
    };
    let needs_review = action.requires_result_confirmation == Some(true);
    transition(tool_call, |carried| {
        let result = action.result.clone();
        if needs_review {
            carried.pending_result_confirmation(confirmed, result)
        } else {
            carried.completed(confirmed, result)
        }
    });
    Ok(tool_call_changed(state, was_waiting, needs_review))
}

/// `session/toolCallResultConfirmed`: `pending-result-confirmation` → `completed` if approved,
/// → `cancelled` (`result-denied`) if not.
pub(super) fn result_confirmed(
    state: &mut SessionState,
    action: &SessionToolCallResultConfirmedAction,
) -> Handled {
    let tool_call = find(state, &action.turn_id, &action.tool_call_id)?;
    if !matches!(tool_call, ToolCallState::PendingResultConfirmation(_)) {
        return Err(NoOp::InvalidTransition);
    }
    replace_with(tool_call, |old| match old {
        ToolCallState::PendingResultConfirmation(pending) => {
            let (carried, confirmed, result) = Carried::from_pending_result(pending);
            if action.approved {
                carried.completed(confirmed, result)
            } else {
                carried.cancelled(ToolCallCancellationReason::ResultDenied, None, None)
            }
        }
        other => other,
    });
    Ok(tool_call_changed(state, true, false))
}

/// `session/toolCallContentChanged`: replaces the partial output of a running tool.
pub(super) fn content_changed(
    state: &mut SessionState,
    action: &SessionToolCallContentChangedAction,
) -> Handled {
    let tool_call = find(state, &action.turn_id, &action.tool_call_id)?;
    let ToolCallState::Running(running) = tool_call else {
        return Err(NoOp::InvalidTransition);
    };
    running.content = Some(action.content.clone());
    Ok(Changed::one(Field::ActiveTurn))
}

/// When a turn ends, a tool call that has not finished is cancelled as `skipped`; finished and
/// unknown (newer-version) tool calls are kept as they are.
pub(super) fn force_cancel(tool_call: &mut ToolCallState) {
    if matches!(
        tool_call,
        ToolCallState::Streaming(_)
            | ToolCallState::PendingConfirmation(_)
            | ToolCallState::Running(_)
            | ToolCallState::PendingResultConfirmation(_)
    ) {
        transition(tool_call, |carried| {
            carried.cancelled(ToolCallCancellationReason::Skipped, None, None)
        });
    }
}

/// The tool call `tool_call_id` of the active turn `turn_id`: the first one with that id
/// ([`tool_call_index`]; a later call with the same id is never tried).
fn find<'a>(
    state: &'a mut SessionState,
    turn_id: &str,
    tool_call_id: &str,
) -> Result<&'a mut ToolCallState, NoOp> {
    let turn = active_turn_mut(&mut state.active_turn, turn_id)?;
    let index = tool_call_index(&turn.response_parts, tool_call_id).ok_or(NoOp::UnknownTarget)?;
    match turn.response_parts.get_mut(index) {
        Some(ResponsePart::ToolCall(part)) => Ok(&mut part.tool_call),
        _ => Err(NoOp::UnknownTarget),
    }
}

/// The offered option the client picked, if it names one.
fn selected_option(
    pending: &ToolCallPendingConfirmationState,
    option_id: Option<&str>,
) -> Option<ConfirmationOption> {
    let option_id = option_id?;
    pending
        .options
        .as_ref()?
        .iter()
        .find(|option| option.id == option_id)
        .cloned()
}

/// The fields after a tool-call transition: the active turn, plus the summary if the session's
/// "waiting for the user" status changed. `was_waiting`/`now_waiting` say whether the tool call
/// awaited the user before and after; only when it stopped waiting must the turn be rescanned
/// (another tool call or an input request may still be waiting).
fn tool_call_changed(
    state: &mut SessionState,
    was_waiting: bool,
    now_waiting: bool,
) -> Changed<Field> {
    let mut changed = Changed::one(Field::ActiveTurn);
    let status_changed = if now_waiting {
        status::set_activity(&mut state.summary.status, status::INPUT_NEEDED)
    } else if was_waiting {
        status::refresh_activity(state)
    } else {
        false
    };
    if status_changed {
        changed.insert(Field::Summary);
    }
    changed
}

/// Moves the tool call out of its slot, builds its next state from the carried fields, and puts
/// the result back. Callers check the status first; an unknown status is put back unchanged.
fn transition(tool_call: &mut ToolCallState, next: impl FnOnce(Carried) -> ToolCallState) {
    replace_with(tool_call, |old| match Carried::take(old) {
        Ok(carried) => next(carried),
        Err(unknown) => ToolCallState::Unknown(unknown),
    });
}

/// Replaces `slot` by a function of its old value. The placeholder left in the slot meanwhile
/// owns no allocation, and `next` never panics, so the slot always ends up holding a real state.
fn replace_with(slot: &mut ToolCallState, next: impl FnOnce(ToolCallState) -> ToolCallState) {
    let placeholder = ToolCallState::Streaming(ToolCallStreamingState::default());
    let old = std::mem::replace(slot, placeholder);
    *slot = next(old);
}

/// What a tool call keeps from one status to the next.
struct Carried {
    tool_call_id: String,
    tool_name: String,
    display_name: String,
    contributor: Option<ToolCallContributor>,
    meta: Option<JsonObject>,
    invocation_message: StringOrMarkdown,
    tool_input: Option<String>,
    selected_option: Option<ConfirmationOption>,
    /// The unknown members: a tool call keeps them across its states (as the TypeScript
    /// reducers' `{ ...toolCall, status }` does).
    extra: Extra,
}

/// Builds a [`Carried`] from any tool-call state struct (they share the base field names):
/// `carried_from!(state, invocation_message, tool_input, selected_option)`.
macro_rules! carried_from {
    ($state:expr, $invocation_message:expr, $tool_input:expr, $selected_option:expr) => {
        Carried {
            tool_call_id: $state.tool_call_id,
            tool_name: $state.tool_name,
            display_name: $state.display_name,
            contributor: $state.contributor,
            meta: $state.meta,
            invocation_message: $invocation_message,
            tool_input: $tool_input,
            selected_option: $selected_option,
            extra: $state.extra,
        }
    };
}

impl Carried {
    /// Splits a known state into what carries over; an unknown state comes back as `Err`.
    fn take(state: ToolCallState) -> Result<Self, UnknownVariant> {
        Ok(match state {
            // A streaming call has no complete input yet, and maybe no message.
            ToolCallState::Streaming(s) => {
                carried_from!(s, s.invocation_message.unwrap_or_default(), None, None)
            }
            ToolCallState::PendingConfirmation(s) => {
                carried_from!(s, s.invocation_message, s.tool_input, None)
            }
            ToolCallState::Running(s) => {
                carried_from!(s, s.invocation_message, s.tool_input, s.selected_option)
            }
            ToolCallState::PendingResultConfirmation(s) => {
                carried_from!(s, s.invocation_message, s.tool_input, s.selected_option)
            }
            ToolCallState::Completed(s) => {
                carried_from!(s, s.invocation_message, s.tool_input, s.selected_option)
            }
            ToolCallState::Cancelled(s) => {
                carried_from!(s, s.invocation_message, s.tool_input, s.selected_option)
            }
            ToolCallState::Unknown(unknown) => return Err(unknown),
        })
    }

    /// Splits a `pending-result-confirmation` state into what carries over, how the tool was
    /// confirmed, and its result.
    fn from_pending_result(
        s: ToolCallPendingResultConfirmationState,
    ) -> (Self, ToolCallConfirmationReason, ToolCallResult) {
        let result = ToolCallResult {
            success: s.success,
            past_tense_message: s.past_tense_message,
            content: s.content,
            structured_content: s.structured_content,
            error: s.error,
            extra: Default::default(),
        };
        let confirmed = s.confirmed;
        let carried = carried_from!(s, s.invocation_message, s.tool_input, s.selected_option);
        (carried, confirmed, result)
    }

    fn pending_confirmation(self, ready: &SessionToolCallReadyAction) -> ToolCallState {
        ToolCallState::PendingConfirmation(ToolCallPendingConfirmationState {
            tool_call_id: self.tool_call_id,
            tool_name: self.tool_name,
            display_name: self.display_name,
            contributor: self.contributor,
            meta: self.meta,
            invocation_message: self.invocation_message,
            tool_input: self.tool_input,
            confirmation_title: ready.confirmation_title.clone(),
            edits: ready
                .edits
                .as_ref()
                .map(|edits| ToolCallPendingConfirmationStateEdits {
                    items: edits.items.clone(),
                    extra: edits.extra.clone(),
                }),
            editable: ready.editable,
            options: ready.options.clone(),
            extra: self.extra,
        })
    }

    fn running(self, confirmed: ToolCallConfirmationReason) -> ToolCallState {
        ToolCallState::Running(ToolCallRunningState {
            tool_call_id: self.tool_call_id,
            tool_name: self.tool_name,
            display_name: self.display_name,
            contributor: self.contributor,
            meta: self.meta,
            invocation_message: self.invocation_message,
            tool_input: self.tool_input,
            confirmed,
            selected_option: self.selected_option,
            content: None,
            extra: self.extra,
        })
    }

    fn pending_result_confirmation(
        self,
        confirmed: ToolCallConfirmationReason,
        result: ToolCallResult,
    ) -> ToolCallState {
        ToolCallState::PendingResultConfirmation(ToolCallPendingResultConfirmationState {
            tool_call_id: self.tool_call_id,
            tool_name: self.tool_name,
            display_name: self.display_name,
            contributor: self.contributor,
            meta: self.meta,
            invocation_message: self.invocation_message,
            tool_input: self.tool_input,
            success: result.success,
            past_tense_message: result.past_tense_message,
            content: result.content,
            structured_content: result.structured_content,
            error: result.error,
            confirmed,
            selected_option: self.selected_option,
            extra: self.extra,
        })
    }

    fn completed(
        self,
        confirmed: ToolCallConfirmationReason,
        result: ToolCallResult,
    ) -> ToolCallState {
        ToolCallState::Completed(ToolCallCompletedState {
            tool_call_id: self.tool_call_id,
            tool_name: self.tool_name,
            display_name: self.display_name,
            contributor: self.contributor,
            meta: self.meta,
            invocation_message: self.invocation_message,
            tool_input: self.tool_input,
            success: result.success,
            past_tense_message: result.past_tense_message,
            content: result.content,
            structured_content: result.structured_content,
            error: result.error,
            confirmed,
            selected_option: self.selected_option,
            extra: self.extra,
        })
    }

    fn cancelled(
        self,
        reason: ToolCallCancellationReason,
        reason_message: Option<StringOrMarkdown>,
        user_suggestion: Option<Message>,
    ) -> ToolCallState {
        ToolCallState::Cancelled(ToolCallCancelledState {
            tool_call_id: self.tool_call_id,
            tool_name: self.tool_name,
            display_name: self.display_name,
            contributor: self.contributor,
            meta: self.meta,
            invocation_message: self.invocation_message,
            tool_input: self.tool_input,
            reason,
            reason_message,
            user_suggestion,
            selected_option: self.selected_option,
            extra: self.extra,
        })
    }
}
