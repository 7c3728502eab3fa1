//! Session-level fields outside the turn: lifecycle, summary metadata, configuration and the
//! active client's tools. (Fields an action replaces whole are set in the reducer's `match`.)

use super::{status, touch, Field, Handled};
use crate::protocol::{
    SessionActiveClientToolsChangedAction, SessionAgentChangedAction, SessionConfigChangedAction,
    SessionCreationFailedAction, SessionIsArchivedChangedAction, SessionIsReadChangedAction,
    SessionLifecycle, SessionModelChangedAction, SessionState, SessionTitleChangedAction,
};
use crate::reduce::{Changed, Clock, NoOp};

/// `session/ready`: the backend is up. The status is left alone: a provisional session may
/// already have a turn in progress.
pub(super) fn ready(state: &mut SessionState) -> Handled {
    if state.lifecycle == SessionLifecycle::Ready {
        return Err(NoOp::NothingToChange);
    }
    state.lifecycle = SessionLifecycle::Ready;
    Ok(Changed::one(Field::Lifecycle))
}

/// `session/creationFailed`: the backend could not start.
pub(super) fn creation_failed(
    state: &mut SessionState,
    action: &SessionCreationFailedAction,
) -> Handled {
    state.lifecycle = SessionLifecycle::CreationFailed;
    state.creation_error = Some(action.error.clone());
    Ok(Changed::one(Field::Lifecycle).with(Field::CreationError))
}

/// `session/titleChanged`: a modification, so `modifiedAt` moves.
pub(super) fn title_changed(
    state: &mut SessionState,
    action: &SessionTitleChangedAction,
    clock: &dyn Clock,
) -> Handled {
    state.summary.title.clone_from(&action.title);
    touch(state, clock);
    Ok(Changed::one(Field::Summary))
}

/// `session/modelChanged`: a modification, so `modifiedAt` moves.
pub(super) fn model_changed(
    state: &mut SessionState,
    action: &SessionModelChangedAction,
    clock: &dyn Clock,
) -> Handled {
    state.summary.model = Some(action.model.clone());
    touch(state, clock);
    Ok(Changed::one(Field::Summary))
}

/// `session/agentChanged`: selects a custom agent, or clears the selection when absent.
pub(super) fn agent_changed(
    state: &mut SessionState,
    action: &SessionAgentChangedAction,
    clock: &dyn Clock,
) -> Handled {
    state.summary.agent = action.agent.clone();
    touch(state, clock);
    Ok(Changed::one(Field::Summary))
}

/// `session/isReadChanged`: a view-state flag, not a modification (`modifiedAt` stays).
pub(super) fn is_read_changed(
    state: &mut SessionState,
    action: &SessionIsReadChangedAction,
) -> Handled {
    set_flag(state, status::IS_READ, action.is_read)
}

/// `session/isArchivedChanged`: a view-state flag, not a modification (`modifiedAt` stays).
pub(super) fn is_archived_changed(
    state: &mut SessionState,
    action: &SessionIsArchivedChangedAction,
) -> Handled {
    set_flag(state, status::IS_ARCHIVED, action.is_archived)
}

fn set_flag(state: &mut SessionState, flag: u32, on: bool) -> Handled {
    if status::has_flag(state.summary.status, flag) == on {
        return Err(NoOp::NothingToChange);
    }
    status::set_flag(&mut state.summary.status, flag, on);
    Ok(Changed::one(Field::Summary))
}

/// `session/configChanged`: merges values into `config.values` (or replaces them all with
/// `replace`). A session without a config schema has nothing to merge into.
pub(super) fn config_changed(
    state: &mut SessionState,
    action: &SessionConfigChangedAction,
    clock: &dyn Clock,
) -> Handled {
    let config = state.config.as_mut().ok_or(NoOp::NothingToChange)?;
    if action.replace == Some(true) {
        config.values.clone_from(&action.config);
    } else {
        for (key, value) in &action.config {
            config.values.insert(key.clone(), value.clone());
        }
    }
    touch(state, clock);
    Ok(Changed::one(Field::Config).with(Field::Summary))
}

/// `session/activeClientToolsChanged`: replaces the active client's tools; without an active
/// client there is no one to give them to.
pub(super) fn active_client_tools_changed(
    state: &mut SessionState,
    action: &SessionActiveClientToolsChangedAction,
) -> Handled {
    let client = state.active_client.as_mut().ok_or(NoOp::UnknownTarget)?;
    client.tools.clone_from(&action.tools);
    Ok(Changed::one(Field::ActiveClient))
}
