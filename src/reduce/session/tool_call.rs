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
//! | any unfinished, unknown         | the turn ends                      | cancelled (`skipped`)         |
//!
//! As in the official TypeScript reducers (which real hosts run; the official Rust ones differ,
//! `tests/reference_reducers.rs`), an action updates EVERY tool call of the active turn with its
//! `toolCallId`, each one that is in a status the action applies to, and `toolCallReady`,
//! `toolCallConfirmed`, `toolCallComplete` and `toolCallResultConfirmed` then recompute
//! `summary.status` from the whole state, also when no call changed. A transition builds the
//! call anew from its base fields (id, names, contributor, `_meta`), its message and input, and
//! what the action brings, so members this version does not know are not carried over (a
//! completed call takes the result's); `toolCallDelta` and `toolCallContentChanged` change a
//! call in place and keep them. Every handler checks a call's status before it writes to it; a
//! call of an unknown (newer-version) status is left as it is until its turn ends.

use super::{active_turn_mut, status, Field, Handled};
use crate::protocol::decode::{from_text, Decode};
use crate::protocol::tagged::UnknownVariant;
use crate::protocol::{
    wire::json_text, ConfirmationOption, Extra, JsonObject, JsonValue, Message, ResponsePart,
    SessionState, SessionToolCallApprovedAction, SessionToolCallCompleteAction,
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

/// `session/toolCallDelta`: appends streamed parameters (and maybe a new progress message) to
/// every streaming call with the id.
pub(super) fn delta(state: &mut SessionState, action: &SessionToolCallDeltaAction) -> Handled {
    let updated = each_call(state, &action.turn_id, &action.tool_call_id, |tool_call| {
        let ToolCallState::Streaming(streaming) = tool_call else {
            return false;
        };
        streaming
            .partial_input
            .get_or_insert_with(String::new)
            .push_str(&action.content);
        if let Some(message) = &action.invocation_message {
            streaming.invocation_message = Some(message.clone());
        }
        true
    })?;
    Ok(updated)
}

/// `session/toolCallReady`: parameters are complete (from `streaming`) or a running tool needs
/// re-confirmation (from `running`). With `confirmed` the tool runs at once; otherwise it waits
/// for the user in `pending-confirmation`. The call takes the action's message and `toolInput`
/// (none if the action has none) and drops its earlier selected option; it keeps its own
/// `_meta` (0.3.0 does not copy the action's).
pub(super) fn ready(state: &mut SessionState, action: &SessionToolCallReadyAction) -> Handled {
    // TypeScript tests `confirmed` for truth: an empty reason is no confirmation.
    let confirmed = action
        .confirmed
        .as_ref()
        .filter(|reason| !reason.as_str().is_empty());
    let updated = each_call(state, &action.turn_id, &action.tool_call_id, |tool_call| {
        if !matches!(
            tool_call,
            ToolCallState::Streaming(_) | ToolCallState::Running(_)
        ) {
            return false;
        }
        transition(tool_call, Next::Ready(action, confirmed));
        true
    });
    settle(state, updated)
}

/// `session/toolCallConfirmed` (approved): `pending-confirmation` → `running`, with the client's
/// edited input if any and the chosen confirmation option resolved from the offered ones.
pub(super) fn approved(
    state: &mut SessionState,
    action: &SessionToolCallApprovedAction,
) -> Handled {
    let updated = each_call(state, &action.turn_id, &action.tool_call_id, |tool_call| {
        let ToolCallState::PendingConfirmation(pending) = &*tool_call else {
            return false;
        };
        let selected = selected_option(pending, action.selected_option_id.as_deref());
        transition(tool_call, Next::Approved(action, selected));
        true
    });
    settle(state, updated)
}

/// `session/toolCallConfirmed` (denied): `pending-confirmation` → `cancelled`.
pub(super) fn denied(state: &mut SessionState, action: &SessionToolCallDeniedAction) -> Handled {
    let updated = each_call(state, &action.turn_id, &action.tool_call_id, |tool_call| {
        let ToolCallState::PendingConfirmation(pending) = &*tool_call else {
            return false;
        };
        let selected = selected_option(pending, action.selected_option_id.as_deref());
        transition(tool_call, Next::Denied(action, selected));
        true
    });
    settle(state, updated)
}

/// `session/toolCallComplete`: `running` (or `pending-confirmation`, confirmed implicitly as
/// `not-needed`) → `completed`, or → `pending-result-confirmation` when the result needs review.
/// Every member of the result lands on the call, unknown ones too (TypeScript spreads it).
pub(super) fn complete(
    state: &mut SessionState,
    action: &SessionToolCallCompleteAction,
) -> Handled {
    let updated = each_call(state, &action.turn_id, &action.tool_call_id, |tool_call| {
        let confirmed = match &*tool_call {
            ToolCallState::Running(running) => running.confirmed.clone(),
            ToolCallState::PendingConfirmation(_) => ToolCallConfirmationReason::NotNeeded,
            _ => return false,
        };
        transition(tool_call, Next::Complete(confirmed, action));
        true
    });
    settle(state, updated)
}

/// `session/toolCallResultConfirmed`: `pending-result-confirmation` → `completed` if approved,
/// → `cancelled` (`result-denied`) if not.
pub(super) fn result_confirmed(
    state: &mut SessionState,
    action: &SessionToolCallResultConfirmedAction,
) -> Handled {
    let updated = each_call(state, &action.turn_id, &action.tool_call_id, |tool_call| {
        if !matches!(tool_call, ToolCallState::PendingResultConfirmation(_)) {
            return false;
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
        true
    });
    settle(state, updated)
}

/// `session/toolCallContentChanged`: replaces the partial output of every running tool with
/// the id.
pub(super) fn content_changed(
    state: &mut SessionState,
    action: &SessionToolCallContentChangedAction,
) -> Handled {
    each_call(state, &action.turn_id, &action.tool_call_id, |tool_call| {
        let ToolCallState::Running(running) = tool_call else {
            return false;
        };
        running.content = Some(action.content.clone());
        true
    })
}

/// When a turn ends, a tool call that has not finished is cancelled as `skipped`, keeping only
/// its base fields, message and input. A call of an unknown (newer-version) status is not known
/// to have finished, so it is cancelled too, from the same members of its raw object, as the
/// TypeScript reducers do (the official Rust ones make it an empty call; a required member the
/// raw object lacks becomes empty here, where TypeScript would leave it out).
pub(super) fn force_cancel(tool_call: &mut ToolCallState) {
    match tool_call {
        ToolCallState::Completed(_) | ToolCallState::Cancelled(_) => {}
        ToolCallState::Unknown(raw) => {
            let cancelled =
                Carried::from_raw(raw).cancelled(ToolCallCancellationReason::Skipped, None, None);
            *tool_call = cancelled;
        }
        _ => transition(tool_call, Next::Skipped),
    }
}

/// Runs `update` on every tool call of the active turn `turn_id` whose `toolCallId` is
/// `tool_call_id` (a call of an unknown status by its raw id, which no update changes);
/// `update` returns whether it changed the call. The active turn changed if any did; else the
/// reason nothing did: the turn is not active, no call has the id, or none is in a status the
/// action applies to.
#[inline]
fn each_call(
    state: &mut SessionState,
    turn_id: &str,
    tool_call_id: &str,
    mut update: impl FnMut(&mut ToolCallState) -> bool,
) -> Handled {
    each_call_dyn(state, turn_id, tool_call_id, &mut update)
}

/// [`each_call`] through a `dyn` closure: one copy of the loop for the six actions.
fn each_call_dyn(
    state: &mut SessionState,
    turn_id: &str,
    tool_call_id: &str,
    update: &mut dyn FnMut(&mut ToolCallState) -> bool,
) -> Handled {
    let turn = active_turn_mut(&mut state.active_turn, turn_id)?;
    let (mut found, mut changed) = (false, false);
    for part in &mut turn.response_parts {
        let ResponsePart::ToolCall(part) = part else {
            continue;
        };
        let id = part.tool_call.tool_call_id();
        if id.is_some_and(|id| crate::words::same(id, tool_call_id)) {
            found = true;
            changed |= update(&mut part.tool_call);
        }
    }
    match (found, changed) {
        (_, true) => Ok(Changed::one(Field::ActiveTurn)),
        (true, false) => Err(NoOp::InvalidTransition),
        (false, false) => Err(NoOp::UnknownTarget),
    }
}

/// After a transition (applied or not): recomputes `summary.status` from the whole state, as
/// the TypeScript reducers do after `toolCallReady`, `toolCallConfirmed`, `toolCallComplete`
/// and `toolCallResultConfirmed` (the official Rust reducers only when a call matched). So a
/// late action for a finished turn still settles a status that says otherwise (an `error`
/// outcome becomes idle).
fn settle(state: &mut SessionState, updated: Handled) -> Handled {
    let status_changed = status::refresh_activity(state);
    match updated {
        Ok(changed) if status_changed => Ok(changed.with(Field::Summary)),
        Err(_) if status_changed => Ok(Changed::one(Field::Summary)),
        other => other,
    }
}

/// The offered option the client picked, if it names one. An empty id names none (TypeScript
/// tests it for truth; the official Rust reducers would pick an option whose id is empty).
fn selected_option(
    pending: &ToolCallPendingConfirmationState,
    option_id: Option<&str>,
) -> Option<ConfirmationOption> {
    let option_id = option_id.filter(|id| !id.is_empty())?;
    pending
        .options
        .as_ref()?
        .iter()
        .find(|option| option.id == option_id)
        .cloned()
}

/// What a transition makes of a call, with what the action brings.
enum Next<'a> {
    /// `toolCallReady`: the action's message and input, no selected option; running at once
    /// with the confirmation reason, else waiting for the user.
    Ready(
        &'a SessionToolCallReadyAction,
        Option<&'a ToolCallConfirmationReason>,
    ),
    /// `toolCallConfirmed` (approved): the edited input, if any, and the selected option.
    Approved(
        &'a SessionToolCallApprovedAction,
        Option<ConfirmationOption>,
    ),
    /// `toolCallConfirmed` (denied), with the selected option.
    Denied(&'a SessionToolCallDeniedAction, Option<ConfirmationOption>),
    /// `toolCallComplete`, with how the tool was confirmed.
    Complete(
        ToolCallConfirmationReason,
        &'a SessionToolCallCompleteAction,
    ),
    /// The turn ended first: cancelled as `skipped`, no selected option.
    Skipped,
}

/// Moves the tool call out of its slot, builds its next state from the carried fields, and puts
/// the result back. Callers check the status first; an unknown status is put back unchanged.
/// Not generic and not inlined: one copy of the state builders for every transition.
#[inline(never)]
fn transition(tool_call: &mut ToolCallState, next: Next<'_>) {
    replace_with(tool_call, |old| {
        let mut carried = match Carried::take(old) {
            Ok(carried) => carried,
            Err(unknown) => return ToolCallState::Unknown(unknown),
        };
        match next {
            Next::Ready(action, confirmed) => {
                carried.invocation_message = action.invocation_message.clone();
                carried.tool_input = action.tool_input.clone();
                carried.selected_option = None;
                match confirmed {
                    Some(confirmed) => carried.running(confirmed.clone()),
                    None => carried.pending_confirmation(action),
                }
            }
            Next::Approved(action, selected) => {
                if let Some(edited) = &action.edited_tool_input {
                    carried.tool_input = Some(edited.clone());
                }
                carried.selected_option = selected;
                carried.running(action.confirmed.clone())
            }
            Next::Denied(action, selected) => {
                carried.selected_option = selected;
                carried.cancelled(
                    action.reason.clone(),
                    action.reason_message.clone(),
                    action.user_suggestion.clone(),
                )
            }
            Next::Complete(confirmed, action) => {
                let result = action.result.clone();
                if action.requires_result_confirmation == Some(true) {
                    carried.pending_result_confirmation(confirmed, result)
                } else {
                    carried.completed(confirmed, result)
                }
            }
            Next::Skipped => {
                carried.selected_option = None;
                carried.cancelled(ToolCallCancellationReason::Skipped, None, None)
            }
        }
    });
}

/// Replaces `slot` by a function of its old value. The placeholder left in the slot meanwhile
/// owns no allocation, and `next` never panics, so the slot always ends up holding a real state.
fn replace_with(slot: &mut ToolCallState, next: impl FnOnce(ToolCallState) -> ToolCallState) {
    let placeholder = ToolCallState::Streaming(ToolCallStreamingState::default());
    let old = std::mem::replace(slot, placeholder);
    *slot = next(old);
}

/// What a tool call keeps from one status to the next: its base fields (the TypeScript
/// reducers' `tcBase`), message, input and selected option. Its unknown members are not kept.
struct Carried {
    tool_call_id: String,
    tool_name: String,
    display_name: String,
    contributor: Option<ToolCallContributor>,
    meta: Option<JsonObject>,
    invocation_message: StringOrMarkdown,
    tool_input: Option<String>,
    selected_option: Option<ConfirmationOption>,
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
        }
    };
}

/// The unknown members of a tool's result, for the call that takes the result (TypeScript
/// spreads the result over the call). Names the call itself uses are left out, so the call
/// never carries a member twice.
fn result_members(extra: Extra) -> Extra {
    const CALL_MEMBERS: [&str; 10] = [
        "status",
        "toolCallId",
        "toolName",
        "displayName",
        "contributor",
        "_meta",
        "invocationMessage",
        "toolInput",
        "confirmed",
        "selectedOption",
    ];
    if extra.is_empty() {
        return extra;
    }
    let mut members = extra.into_object();
    members.retain(|name, _| !CALL_MEMBERS.contains(&name.as_str()));
    Extra::from(members)
}

/// A member of a raw JSON object as a wire type, if it is present and of that type.
fn raw_member<T: Decode>(raw: &JsonObject, key: &str) -> Option<T> {
    raw.get(key)
        .filter(|value| !value.is_null())
        .and_then(|value| from_text(&json_text(value)).ok())
}

impl Carried {
    /// The base fields, message and input of a call of an unknown status, read from its raw
    /// object (a member that is missing or not of its type becomes empty).
    fn from_raw(raw: &UnknownVariant) -> Self {
        let raw = &raw.0;
        let text = |key: &str| raw_member::<String>(raw, key).unwrap_or_default();
        Carried {
            tool_call_id: text("toolCallId"),
            tool_name: text("toolName"),
            display_name: text("displayName"),
            contributor: raw_member(raw, "contributor"),
            meta: raw.get("_meta").and_then(JsonValue::as_object).cloned(),
            invocation_message: raw_member(raw, "invocationMessage").unwrap_or_default(),
            tool_input: raw_member(raw, "toolInput"),
            selected_option: None,
        }
    }

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
        // The call's members, not the result's unknown ones (a fresh object in TypeScript).
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
            extra: Default::default(),
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
            extra: Default::default(),
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
            extra: result_members(result.extra),
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
            extra: result_members(result.extra),
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
            extra: Default::default(),
        })
    }
}
