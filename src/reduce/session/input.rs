//! Input requests (elicitation): live requests with answer drafts synchronized between clients.

use super::{status, touch, Field, Handled};
use crate::protocol::{
    SessionInputAnswerChangedAction, SessionInputCompletedAction, SessionInputRequestedAction,
    SessionState,
};
use crate::reduce::{Changed, Clock, NoOp};

/// `session/inputRequested`: upserts a request by id. Replacing a request keeps its answer
/// drafts unless the new request brings its own. An arriving request needs the user: the session
/// becomes input-needed and unread.
pub(super) fn requested(
    state: &mut SessionState,
    action: &SessionInputRequestedAction,
    clock: &dyn Clock,
) -> Handled {
    let requests = state.input_requests.get_or_insert_with(Vec::new);
    match requests
        .iter_mut()
        .find(|request| request.id == action.request.id)
    {
        Some(existing) => {
            let drafts = existing.answers.take();
            *existing = action.request.clone();
            if existing.answers.is_none() {
                existing.answers = drafts;
            }
        }
        None => requests.push(action.request.clone()),
    }
    status::set_activity(&mut state.summary.status, status::INPUT_NEEDED);
    status::set_flag(&mut state.summary.status, status::IS_READ, false);
    touch(state, clock);
    Ok(Changed::one(Field::InputRequests).with(Field::Summary))
}

/// `session/inputAnswerChanged`: sets one question's answer, or clears it when `answer` is
/// absent (an emptied answer map becomes absent, as on the wire). Like both official reducers,
/// it stamps `modifiedAt` whenever the request exists, also if the answers stay as they were.
pub(super) fn answer_changed(
    state: &mut SessionState,
    action: &SessionInputAnswerChangedAction,
    clock: &dyn Clock,
) -> Handled {
    let request = state
        .input_requests
        .as_mut()
        .and_then(|requests| {
            requests
                .iter_mut()
                .find(|request| request.id == action.request_id)
        })
        .ok_or(NoOp::UnknownTarget)?;
    let mut changed = Changed::one(Field::Summary);
    match &action.answer {
        Some(answer) => {
            request
                .answers
                .get_or_insert_with(Default::default)
                .insert(action.question_id.clone(), answer.clone());
            changed.insert(Field::InputRequests);
        }
        None => {
            // An empty map (as a peer may send it) is emptied too, as in the reference reducers.
            if let Some(answers) = request
                .answers
                .as_mut()
                .filter(|answers| answers.is_empty() || answers.contains_key(&action.question_id))
            {
                answers.remove(&action.question_id);
                if answers.is_empty() {
                    request.answers = None;
                }
                changed.insert(Field::InputRequests);
            }
        }
    }
    touch(state, clock);
    Ok(changed)
}

/// `session/inputCompleted`: the request is answered, declined or cancelled, so it is removed
/// (every request with its id, should a snapshot hold several, as the reference reducers do);
/// the session stops waiting unless something else still needs the user. Stamps `modifiedAt`,
/// as both official reducers do.
pub(super) fn completed(
    state: &mut SessionState,
    action: &SessionInputCompletedAction,
    clock: &dyn Clock,
) -> Handled {
    let requests = state.input_requests.as_mut().ok_or(NoOp::UnknownTarget)?;
    let before = requests.len();
    requests.retain(|request| request.id != action.request_id);
    if requests.len() == before {
        return Err(NoOp::UnknownTarget);
    }
    if requests.is_empty() {
        state.input_requests = None;
    }
    status::refresh_activity(state);
    touch(state, clock);
    Ok(Changed::one(Field::InputRequests).with(Field::Summary))
}
