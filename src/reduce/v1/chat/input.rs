//! Input requests: a request is an input-request part of the active turn, open until it has a
//! response. An action addresses the first open request with its id.

use super::{derived_status, refresh_status, Field, Handled};
use crate::protocol::v1::{
    ChatInputAnswerChangedAction, ChatInputCompletedAction, ChatInputRequest, ChatState,
    InputRequestResponsePart, ResponsePart, SessionStatus,
};
use crate::reduce::v1::with_flag;
use crate::reduce::{Changed, NoOp};

/// `chat/inputRequested`: replaces the open request with the id (keeping its answers when the
/// new one has none) or appends it; the chat waits for input and is marked unread.
pub(super) fn requested(state: &mut ChatState, request: &ChatInputRequest) -> Handled<Field> {
    let turn = state.active_turn.as_mut().ok_or(NoOp::WrongTurn)?;
    match open_request(&mut turn.response_parts, &request.id) {
        Some(part) => {
            let answers = request
                .answers
                .clone()
                .or_else(|| part.request.answers.take());
            part.request.clone_from(request);
            part.request.answers = answers;
        }
        None => turn
            .response_parts
            .push(ResponsePart::InputRequest(InputRequestResponsePart {
                request: request.clone(),
                response: None,
                extra: Default::default(),
            })),
    }
    state.status = with_flag(derived_status(state, None), SessionStatus::IsRead, false);
    Ok(Changed::one(Field::ActiveTurn).with(Field::Status))
}

/// `chat/inputAnswerChanged`: sets (or, without an answer, removes) one question's answer of
/// an open request; answers that become empty are absent.
pub(super) fn answer_changed(
    state: &mut ChatState,
    action: &ChatInputAnswerChangedAction,
) -> Handled<Field> {
    let part = active_open_request(state, &action.request_id)?;
    let answers = part.request.answers.get_or_insert_with(Default::default);
    match &action.answer {
        Some(answer) => {
            answers.insert(action.question_id.clone(), answer.clone());
        }
        None => {
            answers.remove(&action.question_id);
        }
    }
    if answers.is_empty() {
        part.request.answers = None;
    }
    Ok(Changed::one(Field::ActiveTurn))
}

/// `chat/inputCompleted`: closes an open request with the response, the action's answers
/// merged over the ones it had; the activity is recomputed.
pub(super) fn completed(
    state: &mut ChatState,
    action: &ChatInputCompletedAction,
) -> Handled<Field> {
    let part = active_open_request(state, &action.request_id)?;
    let mut answers = part.request.answers.take().unwrap_or_default();
    for (question, answer) in action.answers.iter().flatten() {
        answers.insert(question.clone(), answer.clone());
    }
    part.request.answers = (!answers.is_empty()).then_some(answers);
    part.response = Some(action.response.clone());
    Ok(refresh_status(state).with(Field::ActiveTurn))
}

/// The active turn's first open request with the id (no active turn: `WrongTurn`; no such
/// request: `UnknownTarget`).
fn active_open_request<'a>(
    state: &'a mut ChatState,
    id: &str,
) -> Result<&'a mut InputRequestResponsePart, NoOp> {
    let turn = state.active_turn.as_mut().ok_or(NoOp::WrongTurn)?;
    open_request(&mut turn.response_parts, id).ok_or(NoOp::UnknownTarget)
}

/// The first open request with the id.
fn open_request<'a>(
    parts: &'a mut [ResponsePart],
    id: &str,
) -> Option<&'a mut InputRequestResponsePart> {
    parts.iter_mut().find_map(|part| match part {
        ResponsePart::InputRequest(input) if input.response.is_none() && input.request.id == id => {
            Some(input)
        }
        _ => None,
    })
}
