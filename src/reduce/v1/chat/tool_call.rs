//! The tool-call state machine of the active turn:
//!
//! | from                                    | action                              | to                          |
//! |-----------------------------------------|-------------------------------------|-----------------------------|
//! | (none)                                  | toolCallStart                       | streaming                   |
//! | streaming                               | toolCallDelta                       | streaming                   |
//! | streaming, pending-confirmation, running | toolCallReady with `confirmed`     | running                     |
//! | streaming, pending-confirmation, running | toolCallReady                      | pending-confirmation        |
//! | pending-confirmation                    | toolCallConfirmed (approved)        | running                     |
//! | pending-confirmation                    | toolCallConfirmed (denied)          | cancelled                   |
//! | running (MCP contributor)               | toolCallAuthRequired                | auth-required               |
//! | auth-required                           | toolCallAuthResolved                | running                     |
//! | running, pending-confirmation           | toolCallComplete                    | completed                   |
//! | running, pending-confirmation           | toolCallComplete needing review     | pending-result-confirmation |
//! | auth-required                           | toolCallComplete (failed)           | completed                   |
//! | pending-result-confirmation             | toolCallResultConfirmed (approved)  | completed                   |
//! | pending-result-confirmation             | toolCallResultConfirmed (denied)    | cancelled (`result-denied`) |
//! | running                                 | toolCallContentChanged              | running                     |
//! | any but completed, cancelled            | the turn ends                       | cancelled (`skipped`)       |
//!
//! An action addresses the first tool call of the active turn with its `toolCallId`, as the
//! official reducers do. `toolCallReady`, `toolCallConfirmed`, `toolCallComplete`,
//! `toolCallResultConfirmed`, `toolCallAuthRequired` and `toolCallAuthResolved` then recompute
//! the activity, also when the call's status did not allow the action. A transition builds
//! the call anew from its base fields (id, names, intention, contributor, `_meta`), message,
//! input and what the action brings, so members this version does not know are not carried
//! over; `toolCallDelta` and `toolCallContentChanged` change the call in place and keep them.

use super::{active_turn_mut, refresh_status, Field, Handled};
use crate::protocol::tagged::UnknownVariant;
use crate::protocol::v1::{
    ChatState, ChatToolCallAuthRequiredAction, ChatToolCallAuthResolvedAction,
    ChatToolCallCompleteAction, ChatToolCallConfirmedAction, ChatToolCallContentChangedAction,
    ChatToolCallDeltaAction, ChatToolCallReadyAction, ChatToolCallResultConfirmedAction,
    ChatToolCallStartAction, ConfirmationOption, ResponsePart, StringOrMarkdown,
    ToolCallAuthRequiredState, ToolCallCancellationReason, ToolCallCancelledState,
    ToolCallCompletedState, ToolCallConfirmationReason, ToolCallContributor,
    ToolCallPendingConfirmationState, ToolCallPendingResultConfirmationState, ToolCallResponsePart,
    ToolCallRunningState, ToolCallState, ToolCallStreamingState, ToolInput,
};
use crate::protocol::{JsonObject, JsonValue};
use crate::reduce::{Changed, NoOp};

/// A tool call's id (a call of an unknown status has none here, as in the official
/// reducers). Also what the chat mirror's patches look calls up by (`sync::v1`).
pub(crate) fn id(call: &ToolCallState) -> Option<&str> {
    Some(match call {
        ToolCallState::Streaming(s) => &s.tool_call_id,
        ToolCallState::PendingConfirmation(s) => &s.tool_call_id,
        ToolCallState::Running(s) => &s.tool_call_id,
        ToolCallState::AuthRequired(s) => &s.tool_call_id,
        ToolCallState::PendingResultConfirmation(s) => &s.tool_call_id,
        ToolCallState::Completed(s) => &s.tool_call_id,
        ToolCallState::Cancelled(s) => &s.tool_call_id,
        ToolCallState::Unknown(_) => return None,
    })
}

/// `chat/toolCallStart`: appends a streaming tool call to the active turn.
pub(super) fn start(state: &mut ChatState, action: &ChatToolCallStartAction) -> Handled<Field> {
    let turn = active_turn_mut(&mut state.active_turn, &action.turn_id)?;
    let streaming = ToolCallStreamingState {
        tool_call_id: action.tool_call_id.clone(),
        tool_name: action.tool_name.clone(),
        display_name: action.display_name.clone(),
        intention: action.intention.clone(),
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

/// `chat/toolCallDelta`: a streaming call's input grows, and its `_meta` and message are
/// replaced by the action's, if it has them.
pub(super) fn delta(state: &mut ChatState, action: &ChatToolCallDeltaAction) -> Handled<Field> {
    let call = call_mut(state, &action.turn_id, &action.tool_call_id)?;
    let ToolCallState::Streaming(streaming) = call else {
        return Err(NoOp::InvalidTransition);
    };
    if let Some(content) = &action.content {
        streaming
            .partial_input
            .get_or_insert_with(String::new)
            .push_str(content);
    }
    if let Some(meta) = &action.meta {
        streaming.meta = Some(meta.clone());
    }
    if let Some(message) = &action.invocation_message {
        streaming.invocation_message = Some(message.clone());
    }
    Ok(Changed::one(Field::ActiveTurn))
}

/// `chat/toolCallContentChanged`: a running call's content is replaced (and its `_meta`, if
/// the action has one).
pub(super) fn content_changed(
    state: &mut ChatState,
    action: &ChatToolCallContentChangedAction,
) -> Handled<Field> {
    let call = call_mut(state, &action.turn_id, &action.tool_call_id)?;
    let ToolCallState::Running(running) = call else {
        return Err(NoOp::InvalidTransition);
    };
    if let Some(meta) = &action.meta {
        running.meta = Some(meta.clone());
    }
    running.content = Some(action.content.clone());
    Ok(Changed::one(Field::ActiveTurn))
}

/// `chat/toolCallReady`: the call's input is complete. With `confirmed` it runs; otherwise it
/// waits for confirmation (a call already waiting keeps what the action does not replace).
pub(super) fn ready(state: &mut ChatState, action: &ChatToolCallReadyAction) -> Handled<Field> {
    settle(state, &action.turn_id, &action.tool_call_id, |call| {
        let pending = match call {
            ToolCallState::PendingConfirmation(pending) => Some(pending.clone()),
            ToolCallState::Streaming(_) | ToolCallState::Running(_) => None,
            _ => return false,
        };
        transition(call, |base| {
            let base = Base {
                intention: action.intention.clone().or(base.intention),
                tool_input: action.tool_input.clone().or(base.tool_input),
                contributor: refine_contributor(base.contributor, action.contributor.as_ref()),
                meta: action.meta.clone().or(base.meta),
                invocation_message: action.invocation_message.clone(),
                ..base
            };
            match &action.confirmed {
                Some(confirmed) => running(Base {
                    confirmed: confirmed.clone(),
                    selected_option: None,
                    content: None,
                    ..base
                }),
                None => {
                    // What the action does not bring, a call already waiting keeps.
                    let pending = pending.as_ref();
                    ToolCallState::PendingConfirmation(ToolCallPendingConfirmationState {
                        confirmation_title: action
                            .confirmation_title
                            .clone()
                            .or_else(|| pending.and_then(|p| p.confirmation_title.clone())),
                        risk_assessment: action
                            .risk_assessment
                            .clone()
                            .or_else(|| pending.and_then(|p| p.risk_assessment.clone())),
                        edits: action
                            .edits
                            .clone()
                            .or_else(|| pending.and_then(|p| p.edits.clone())),
                        editable: action.editable.or_else(|| pending.and_then(|p| p.editable)),
                        options: action
                            .options
                            .clone()
                            .or_else(|| pending.and_then(|p| p.options.clone())),
                        tool_call_id: base.tool_call_id,
                        tool_name: base.tool_name,
                        display_name: base.display_name,
                        intention: base.intention,
                        contributor: base.contributor,
                        meta: base.meta,
                        invocation_message: base.invocation_message,
                        tool_input: base.tool_input,
                        extra: Default::default(),
                    })
                }
            }
        });
        true
    })
}

/// `chat/toolCallConfirmed`: a call waiting for confirmation runs (approved; an edited input
/// replaces an inline one) or is cancelled (denied), with the option the user picked.
pub(super) fn confirmed(
    state: &mut ChatState,
    action: &ChatToolCallConfirmedAction,
) -> Handled<Field> {
    settle(state, &action.turn_id, &action.tool_call_id, |call| {
        let ToolCallState::PendingConfirmation(pending) = call else {
            return false;
        };
        let selected = action.selected_option_id.as_ref().and_then(|id| {
            pending
                .options
                .iter()
                .flatten()
                .find(|option| option.id == *id)
                .cloned()
        });
        transition(call, |base| {
            let base = Base {
                meta: action.meta.clone().or(base.meta),
                ..base
            };
            if action.approved {
                let tool_input = match (&action.edited_tool_input, base.tool_input) {
                    (Some(edited), Some(ToolInput::Inline(_))) => {
                        Some(ToolInput::Inline(edited.clone()))
                    }
                    (_, input) => input,
                };
                let confirmed = action
                    .confirmed
                    .clone()
                    .unwrap_or(ToolCallConfirmationReason::NotNeeded);
                running(Base {
                    tool_input,
                    confirmed,
                    selected_option: selected,
                    content: None,
                    ..base
                })
            } else {
                let reason = action
                    .reason
                    .clone()
                    .unwrap_or(ToolCallCancellationReason::Denied);
                let mut cancelled = cancelled(base, reason, selected);
                cancelled.reason_message.clone_from(&action.reason_message);
                cancelled
                    .user_suggestion
                    .clone_from(&action.user_suggestion);
                ToolCallState::Cancelled(cancelled)
            }
        });
        true
    })
}

/// `chat/toolCallComplete`: a running call (or one still waiting for confirmation) takes its
/// result, completed or (`requiresResultConfirmation`) waiting for the result's review. A
/// call waiting for authentication can only fail (the client gave up authenticating): it
/// completes with its earlier content unless the result has its own, never for review.
pub(super) fn complete(
    state: &mut ChatState,
    action: &ChatToolCallCompleteAction,
) -> Handled<Field> {
    settle(state, &action.turn_id, &action.tool_call_id, |call| {
        let from_auth = match call {
            ToolCallState::Running(_) | ToolCallState::PendingConfirmation(_) => false,
            ToolCallState::AuthRequired(_) if !action.result.success => true,
            _ => return false,
        };
        transition(call, |base| {
            let result = &action.result;
            // Only a call that paused for authentication keeps the content it had.
            let content = match from_auth {
                true => result.content.clone().or(base.content),
                false => result.content.clone(),
            };
            let completed = ToolCallCompletedState {
                tool_call_id: base.tool_call_id,
                tool_name: base.tool_name,
                display_name: base.display_name,
                intention: base.intention,
                contributor: base.contributor,
                meta: action.meta.clone().or(base.meta),
                invocation_message: base.invocation_message,
                tool_input: base.tool_input,
                success: result.success,
                past_tense_message: result.past_tense_message.clone(),
                content,
                structured_content: result.structured_content.clone(),
                error: result.error.clone(),
                confirmed: base.confirmed,
                selected_option: base.selected_option,
                extra: Default::default(),
            };
            if action.requires_result_confirmation == Some(true) && !from_auth {
                ToolCallState::PendingResultConfirmation(under_review(completed))
            } else {
                ToolCallState::Completed(completed)
            }
        });
        true
    })
}

/// A completed call's result, put up for review.
fn under_review(c: ToolCallCompletedState) -> ToolCallPendingResultConfirmationState {
    ToolCallPendingResultConfirmationState {
        tool_call_id: c.tool_call_id,
        tool_name: c.tool_name,
        display_name: c.display_name,
        intention: c.intention,
        contributor: c.contributor,
        meta: c.meta,
        invocation_message: c.invocation_message,
        tool_input: c.tool_input,
        success: c.success,
        past_tense_message: c.past_tense_message,
        content: c.content,
        structured_content: c.structured_content,
        error: c.error,
        confirmed: c.confirmed,
        selected_option: c.selected_option,
        extra: Default::default(),
    }
}

/// A reviewed result, accepted.
fn accepted(r: ToolCallPendingResultConfirmationState) -> ToolCallCompletedState {
    ToolCallCompletedState {
        tool_call_id: r.tool_call_id,
        tool_name: r.tool_name,
        display_name: r.display_name,
        intention: r.intention,
        contributor: r.contributor,
        meta: r.meta,
        invocation_message: r.invocation_message,
        tool_input: r.tool_input,
        success: r.success,
        past_tense_message: r.past_tense_message,
        content: r.content,
        structured_content: r.structured_content,
        error: r.error,
        confirmed: r.confirmed,
        selected_option: r.selected_option,
        extra: Default::default(),
    }
}

/// `chat/toolCallResultConfirmed`: a result under review is accepted (completed) or
/// rejected (cancelled, `result-denied`).
pub(super) fn result_confirmed(
    state: &mut ChatState,
    action: &ChatToolCallResultConfirmedAction,
) -> Handled<Field> {
    settle(state, &action.turn_id, &action.tool_call_id, |call| {
        let ToolCallState::PendingResultConfirmation(_) = call else {
            return false;
        };
        replace_with(call, |old| {
            let ToolCallState::PendingResultConfirmation(mut review) = old else {
                return old;
            };
            review.meta = action.meta.clone().or(review.meta.take());
            if action.approved {
                return ToolCallState::Completed(accepted(review));
            }
            let selected = review.selected_option.take();
            let base = Base::take(ToolCallState::Completed(accepted(review)));
            let reason = ToolCallCancellationReason::ResultDenied;
            ToolCallState::Cancelled(cancelled(base, reason, selected))
        });
        true
    })
}

/// `chat/toolCallAuthRequired`: a running call of an MCP server waits for the user to
/// authenticate with that server (a call of another contributor cannot).
pub(super) fn auth_required(
    state: &mut ChatState,
    action: &ChatToolCallAuthRequiredAction,
) -> Handled<Field> {
    settle(state, &action.turn_id, &action.tool_call_id, |call| {
        let ToolCallState::Running(running) = call else {
            return false;
        };
        if !matches!(running.contributor, Some(ToolCallContributor::Mcp(_))) {
            return false;
        }
        transition(call, |base| {
            ToolCallState::AuthRequired(Box::new(ToolCallAuthRequiredState {
                tool_call_id: base.tool_call_id,
                tool_name: base.tool_name,
                display_name: base.display_name,
                intention: base.intention,
                contributor: base.contributor,
                meta: action.meta.clone().or(base.meta),
                invocation_message: base.invocation_message,
                tool_input: base.tool_input,
                confirmed: base.confirmed,
                selected_option: base.selected_option,
                auth: action.auth.clone(),
                content: base.content,
                extra: Default::default(),
            }))
        });
        true
    })
}

/// `chat/toolCallAuthResolved`: a call waiting for authentication runs again.
pub(super) fn auth_resolved(
    state: &mut ChatState,
    action: &ChatToolCallAuthResolvedAction,
) -> Handled<Field> {
    settle(state, &action.turn_id, &action.tool_call_id, |call| {
        let ToolCallState::AuthRequired(_) = call else {
            return false;
        };
        transition(call, |base| {
            running(Base {
                meta: action.meta.clone().or(base.meta),
                ..base
            })
        });
        true
    })
}

/// An unfinished call of a turn that ends is cancelled (`skipped`), built anew: the part's
/// unknown members are not kept either. A call of an unknown (newer) status is cancelled from
/// its raw members, as TypeScript reads them (the official Rust reducer writes an empty
/// call instead; see tests/reference_v1_chat.rs).
pub(super) fn cancel_unfinished(part: &mut ToolCallResponsePart) {
    if matches!(
        part.tool_call,
        ToolCallState::Completed(_) | ToolCallState::Cancelled(_)
    ) {
        return;
    }
    replace_with(&mut part.tool_call, |old| {
        let base = match old {
            ToolCallState::Unknown(raw) => Base::from_raw(&raw),
            known => Base::take(known),
        };
        let base = Base {
            selected_option: None,
            ..base
        };
        ToolCallState::Cancelled(cancelled(base, ToolCallCancellationReason::Skipped, None))
    });
    part.extra = Default::default();
}

/// The first tool call of the active turn with the id.
fn call_mut<'a>(
    state: &'a mut ChatState,
    turn_id: &str,
    tool_call_id: &str,
) -> Result<&'a mut ToolCallState, NoOp> {
    let turn = active_turn_mut(&mut state.active_turn, turn_id)?;
    turn.response_parts
        .iter_mut()
        .find_map(|part| match part {
            ResponsePart::ToolCall(part)
                if id(&part.tool_call).is_some_and(|id| crate::words::same(id, tool_call_id)) =>
            {
                Some(&mut part.tool_call)
            }
            _ => None,
        })
        .ok_or(NoOp::UnknownTarget)
}

/// Runs `update` on the addressed call (it reports whether it changed the call), then
/// recomputes the activity: a found call settles the status even when its own status did
/// not allow the action, as in the official reducers.
fn settle(
    state: &mut ChatState,
    turn_id: &str,
    tool_call_id: &str,
    update: impl FnOnce(&mut ToolCallState) -> bool,
) -> Handled<Field> {
    let call = call_mut(state, turn_id, tool_call_id)?;
    let changed_call = update(call);
    let old_status = state.status;
    let mut changed = refresh_status(state);
    if state.status == old_status {
        changed = Changed::none();
    }
    if changed_call {
        changed.insert(Field::ActiveTurn);
    }
    if changed.is_empty() {
        return Err(NoOp::InvalidTransition);
    }
    Ok(changed)
}

/// What a tool call carries from one status to the next.
struct Base {
    tool_call_id: String,
    tool_name: String,
    display_name: String,
    intention: Option<String>,
    contributor: Option<ToolCallContributor>,
    meta: Option<Box<JsonObject>>,
    invocation_message: StringOrMarkdown,
    tool_input: Option<ToolInput>,
    confirmed: ToolCallConfirmationReason,
    selected_option: Option<ConfirmationOption>,
    content: Option<Vec<crate::protocol::v1::ToolResultContent>>,
}

/// `Base` of a state struct: `base!(s, invocation_message, tool_input, confirmed, selected,
/// content)`.
macro_rules! base {
    ($s:ident, $message:expr, $input:expr, $confirmed:expr, $selected:expr, $content:expr) => {
        Base {
            tool_call_id: $s.tool_call_id,
            tool_name: $s.tool_name,
            display_name: $s.display_name,
            intention: $s.intention,
            contributor: $s.contributor,
            meta: $s.meta,
            invocation_message: $message,
            tool_input: $input,
            confirmed: $confirmed,
            selected_option: $selected,
            content: $content,
        }
    };
}

impl Base {
    /// Splits a known state into what carries over (a call that has not been confirmed
    /// counts as `not-needed`). Callers pass known states; an unknown one gives an empty base.
    fn take(state: ToolCallState) -> Self {
        use ToolCallConfirmationReason::NotNeeded;
        match state {
            ToolCallState::Streaming(s) => {
                let message = s.invocation_message.unwrap_or_default();
                base!(s, message, None, NotNeeded, None, None)
            }
            ToolCallState::PendingConfirmation(s) => {
                base!(s, s.invocation_message, s.tool_input, NotNeeded, None, None)
            }
            ToolCallState::Running(s) => base!(
                s,
                s.invocation_message,
                s.tool_input,
                s.confirmed,
                s.selected_option,
                s.content
            ),
            ToolCallState::AuthRequired(s) => {
                let s = *s;
                base!(
                    s,
                    s.invocation_message,
                    s.tool_input,
                    s.confirmed,
                    s.selected_option,
                    s.content
                )
            }
            ToolCallState::PendingResultConfirmation(s) => base!(
                s,
                s.invocation_message,
                s.tool_input,
                s.confirmed,
                s.selected_option,
                s.content
            ),
            ToolCallState::Completed(s) => base!(
                s,
                s.invocation_message,
                s.tool_input,
                s.confirmed,
                s.selected_option,
                s.content
            ),
            ToolCallState::Cancelled(s) => base!(
                s,
                s.invocation_message,
                s.tool_input,
                NotNeeded,
                s.selected_option,
                None
            ),
            ToolCallState::Unknown(raw) => Self::from_raw(&raw),
        }
    }

    /// The base members of a call of an unknown status, read from its raw object (one that is
    /// missing or not of its type is empty).
    fn from_raw(raw: &UnknownVariant) -> Self {
        // The crate's own decoder, not serde's: a serde `Deserialize` reached from the reducers
        // links serde_json's whole parser into the wasm module.
        fn member<T: crate::protocol::decode::Decode>(raw: &JsonObject, key: &str) -> Option<T> {
            raw.get(key)
                .filter(|value| !value.is_null())
                .and_then(|value| {
                    crate::protocol::decode::from_text(&crate::protocol::wire::json_text(value))
                        .ok()
                })
        }
        let raw = &raw.0;
        Base {
            tool_call_id: member(raw, "toolCallId").unwrap_or_default(),
            tool_name: member(raw, "toolName").unwrap_or_default(),
            display_name: member(raw, "displayName").unwrap_or_default(),
            intention: member(raw, "intention"),
            contributor: member(raw, "contributor"),
            meta: raw
                .get("_meta")
                .and_then(JsonValue::as_object)
                .cloned()
                .map(Box::new),
            invocation_message: member(raw, "invocationMessage").unwrap_or_default(),
            tool_input: member(raw, "toolInput"),
            confirmed: ToolCallConfirmationReason::NotNeeded,
            selected_option: None,
            content: None,
        }
    }
}

/// A running call: the base with its confirmation, option and content.
fn running(base: Base) -> ToolCallState {
    ToolCallState::Running(ToolCallRunningState {
        tool_call_id: base.tool_call_id,
        tool_name: base.tool_name,
        display_name: base.display_name,
        intention: base.intention,
        contributor: base.contributor,
        meta: base.meta,
        invocation_message: base.invocation_message,
        tool_input: base.tool_input,
        confirmed: base.confirmed,
        selected_option: base.selected_option,
        content: base.content,
        extra: Default::default(),
    })
}

fn cancelled(
    base: Base,
    reason: ToolCallCancellationReason,
    selected_option: Option<ConfirmationOption>,
) -> ToolCallCancelledState {
    ToolCallCancelledState {
        tool_call_id: base.tool_call_id,
        tool_name: base.tool_name,
        display_name: base.display_name,
        intention: base.intention,
        contributor: base.contributor,
        meta: base.meta,
        invocation_message: base.invocation_message,
        tool_input: base.tool_input,
        reason,
        reason_message: None,
        user_suggestion: None,
        selected_option,
        extra: Default::default(),
    }
}

/// A streaming call keeps its contributor unless the action names one: a client contributor
/// is replaced only by the same client (refined), and never by another kind; any other is
/// replaced by anything but a client.
fn refine_contributor(
    current: Option<ToolCallContributor>,
    next: Option<&ToolCallContributor>,
) -> Option<ToolCallContributor> {
    let Some(next) = next else {
        return current;
    };
    match (&current, next) {
        (Some(ToolCallContributor::Client(now)), ToolCallContributor::Client(new))
            if now.client_id == new.client_id =>
        {
            Some(next.clone())
        }
        (Some(ToolCallContributor::Client(_)), _) | (_, ToolCallContributor::Client(_)) => current,
        _ => Some(next.clone()),
    }
}

/// Builds the call's next state from its [`Base`]; the caller checked its status.
fn transition(call: &mut ToolCallState, next: impl FnOnce(Base) -> ToolCallState) {
    replace_with(call, |old| next(Base::take(old)));
}

/// Replaces `slot` by a function of its old value (the placeholder meanwhile allocates
/// nothing, and `next` never panics).
fn replace_with(slot: &mut ToolCallState, next: impl FnOnce(ToolCallState) -> ToolCallState) {
    let placeholder = ToolCallState::Unknown(UnknownVariant(JsonObject::new()));
    let old = std::mem::replace(slot, placeholder);
    *slot = next(old);
}
