//! The `SessionState` reducer (1.0: flat): the session's metadata and lifecycle, its chats'
//! summaries, active clients, working directories, the input it waits for, customizations
//! and config. A chat's turns are on the chat's own channel (`super::chat`).

mod customizations;
mod input_needed;

use super::{
    merge_config, outcome, remove_first, replace, set, upsert, with_flag, Changed, Handled, Outcome,
};
use crate::protocol::v1::{
    SessionLifecycle, SessionState, SessionStateField, SessionStatus, StateAction,
};
use crate::reduce::NoOp;

type Field = SessionStateField;

/// Applies `action` to a `SessionState`.
pub fn session_reducer(state: &mut SessionState, action: &StateAction) -> Outcome<Field> {
    let handled = match action {
        // The lifecycle only: `status` is the chats' business.
        StateAction::SessionReady(_) => set(
            &mut state.lifecycle,
            SessionLifecycle::Ready,
            Field::Lifecycle,
        ),
        StateAction::SessionCreationFailed(a) => {
            state.lifecycle = SessionLifecycle::Failed;
            state.creation_error = Some(a.error.clone());
            Ok(Changed::one(Field::Lifecycle).with(Field::CreationError))
        }
        StateAction::SessionChatAdded(a) => {
            upsert(&mut state.chats, &a.summary, |chat| chat.resource.clone());
            Ok(Changed::one(Field::Chats))
        }
        StateAction::SessionChatRemoved(a) => chat_removed(state, &a.chat),
        StateAction::SessionChatUpdated(a) => chat_updated(state, a),
        StateAction::SessionChatsReordered(a) => chats_reordered(state, &a.chats),
        StateAction::SessionDefaultChatChanged(a) => {
            replace(&mut state.default_chat, &a.default_chat, Field::DefaultChat)
        }
        StateAction::SessionTitleChanged(a) => replace(&mut state.title, &a.title, Field::Title),
        StateAction::SessionIsReadChanged(a) => {
            state.status = with_flag(state.status, SessionStatus::IsRead, a.is_read);
            Ok(Changed::one(Field::Status))
        }
        StateAction::SessionIsArchivedChanged(a) => {
            state.status = with_flag(state.status, SessionStatus::IsArchived, a.is_archived);
            Ok(Changed::one(Field::Status))
        }
        StateAction::SessionActivityChanged(a) => {
            replace(&mut state.activity, &a.activity, Field::Activity)
        }
        StateAction::SessionChangesetsChanged(a) => {
            replace(&mut state.changesets, &a.changesets, Field::Changesets)
        }
        StateAction::SessionConfigChanged(a) => merge_config(
            state.config.as_mut().map(|config| &mut config.values),
            &a.config,
            a.replace,
        )
        .map(|()| Changed::one(Field::Config)),
        StateAction::SessionMetaChanged(a) => replace(&mut state.meta, &a.meta, Field::Meta),
        StateAction::SessionServerToolsChanged(a) => set(
            &mut state.server_tools,
            Some(a.tools.clone()),
            Field::ServerTools,
        ),
        StateAction::SessionActiveClientSet(a) => {
            upsert(&mut state.active_clients, &a.active_client, |client| {
                client.client_id.clone()
            });
            Ok(Changed::one(Field::ActiveClients))
        }
        StateAction::SessionActiveClientRemoved(a) => {
            remove_first(&mut state.active_clients, |client| {
                client.client_id == a.client_id
            })
            .map(|()| Changed::one(Field::ActiveClients))
        }
        StateAction::SessionWorkingDirectorySet(a) => working_directory_set(state, &a.directory),
        StateAction::SessionWorkingDirectoryRemoved(a) => state
            .working_directories
            .as_mut()
            .ok_or(NoOp::UnknownTarget)
            .and_then(|list| remove_first(list, |directory| *directory == a.directory))
            .map(|()| Changed::one(Field::WorkingDirectories)),
        StateAction::SessionWorkingDirectoryReplaced(a) => {
            working_directory_replaced(state, &a.directory, &a.replacement)
        }
        StateAction::SessionInputNeededSet(a) => input_needed::set(state, &a.request),
        StateAction::SessionInputNeededRemoved(a) => input_needed::removed(state, &a.id),
        StateAction::SessionCustomizationsChanged(a) => set(
            &mut state.customizations,
            Some(a.customizations.clone()),
            Field::Customizations,
        ),
        StateAction::SessionCustomizationToggled(a) => {
            customizations::toggled(state, &a.id, &a.enablement)
        }
        StateAction::SessionCustomizationUpdated(a) => {
            customizations::updated(state, &a.customization)
        }
        StateAction::SessionCustomizationRemoved(a) => customizations::removed(state, &a.id),
        StateAction::SessionMcpServerStateChanged(a) => {
            customizations::mcp_state_changed(state, &a.id, &a.state, a.channel.as_ref())
        }
        StateAction::SessionMcpServerStartRequested(a) => {
            customizations::mcp_start_requested(state, &a.id)
        }
        StateAction::SessionMcpServerStopRequested(a) => {
            customizations::mcp_stop_requested(state, &a.id)
        }
        StateAction::SessionMcpServerBackgroundRequested(a) => {
            customizations::mcp_background_requested(state, &a.id)
        }
        _ => Err(NoOp::NotForThisChannel),
    };
    outcome(handled)
}

/// `session/chatRemoved`: drops the chat's summary, and the default chat if it was that one.
fn chat_removed(state: &mut SessionState, chat: &str) -> Handled<Field> {
    remove_first(&mut state.chats, |summary| summary.resource == chat)?;
    let mut changed = Changed::one(Field::Chats);
    if state.default_chat.as_deref() == Some(chat) {
        state.default_chat = None;
        changed.insert(Field::DefaultChat);
    }
    Ok(changed)
}

/// `session/chatUpdated`: sets the members of the chat's summary that the change has (title,
/// status, activity, modifiedAt, changes, origin, working directories; as the official
/// reducers, not `resource`, `movable` or members this version does not know).
fn chat_updated(
    state: &mut SessionState,
    action: &crate::protocol::v1::SessionChatUpdatedAction,
) -> Handled<Field> {
    let chat = state
        .chats
        .iter_mut()
        .find(|chat| chat.resource == action.chat)
        .ok_or(NoOp::UnknownTarget)?;
    let changes = &action.changes;
    if let Some(title) = &changes.title {
        chat.title.clone_from(title);
    }
    if let Some(status) = changes.status {
        chat.status = status;
    }
    if let Some(activity) = &changes.activity {
        chat.activity = Some(activity.clone());
    }
    if let Some(modified_at) = &changes.modified_at {
        chat.modified_at.clone_from(modified_at);
    }
    if let Some(summary) = &changes.changes {
        chat.changes = Some(summary.clone());
    }
    if let Some(origin) = &changes.origin {
        chat.origin = Some(origin.clone());
    }
    if let Some(directories) = &changes.working_directories {
        chat.working_directories = Some(directories.clone());
    }
    Ok(Changed::one(Field::Chats))
}

/// `session/chatsReordered`: the chats in the order given, which must name each chat exactly
/// once; any other order (or the current one) changes nothing.
fn chats_reordered(state: &mut SessionState, order: &[String]) -> Handled<Field> {
    if order.len() != state.chats.len() {
        return Err(NoOp::InvalidTransition);
    }
    let mut indices = Vec::with_capacity(order.len());
    for (position, resource) in order.iter().enumerate() {
        if order[..position].contains(resource) {
            return Err(NoOp::InvalidTransition);
        }
        let index = state
            .chats
            .iter()
            .position(|chat| chat.resource == *resource)
            .ok_or(NoOp::UnknownTarget)?;
        indices.push(index);
    }
    if indices.iter().enumerate().all(|(i, index)| i == *index) {
        return Err(NoOp::NothingToChange);
    }
    let mut old: Vec<Option<_>> = std::mem::take(&mut state.chats)
        .into_iter()
        .map(Some)
        .collect();
    state.chats = indices
        .into_iter()
        .filter_map(|index| old.get_mut(index).and_then(Option::take))
        .collect();
    Ok(Changed::one(Field::Chats))
}

/// `session/workingDirectorySet`: adds a directory not listed yet.
fn working_directory_set(state: &mut SessionState, directory: &str) -> Handled<Field> {
    let listed = state
        .working_directories
        .as_ref()
        .is_some_and(|list| list.iter().any(|d| d == directory));
    if listed {
        return Err(NoOp::NothingToChange);
    }
    state
        .working_directories
        .get_or_insert_with(Vec::new)
        .push(directory.to_owned());
    Ok(Changed::one(Field::WorkingDirectories))
}

/// `session/workingDirectoryReplaced`: `directory` becomes `replacement` in its place; other
/// entries equal to `replacement` are dropped, and if one comes before `directory`, that one
/// stays and `directory` is dropped instead (the list stays free of duplicates).
fn working_directory_replaced(
    state: &mut SessionState,
    directory: &str,
    replacement: &str,
) -> Handled<Field> {
    let list = state
        .working_directories
        .as_mut()
        .ok_or(NoOp::UnknownTarget)?;
    let index = list
        .iter()
        .position(|d| d == directory)
        .ok_or(NoOp::UnknownTarget)?;
    if list[..index].iter().any(|d| d == replacement) {
        list.remove(index);
    } else {
        let mut position = 0;
        list.retain(|d| {
            let keep = position == index || d != replacement;
            position += 1;
            keep
        });
        // Nothing before `index` was dropped: none of it equals `replacement`.
        if let Some(slot) = list.get_mut(index) {
            replacement.clone_into(slot);
        }
    }
    Ok(Changed::one(Field::WorkingDirectories))
}
