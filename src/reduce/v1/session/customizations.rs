//! Customizations: top-level entries (plugins, directories, MCP servers) keyed by `id`, and
//! the children of containers (plugins, directories). An id is looked up at the top level
//! first, then among every container's children. Entries of unknown (newer) kinds have no id
//! here, as in the official reducers.

use super::{Changed, Field, Handled};
use crate::protocol::v1::{
    ChildCustomization, Customization, CustomizationEnablement, McpServerCustomization,
    McpServerStartingState, McpServerState, McpServerStoppedState, SessionState,
};
use crate::reduce::v1::upsert_where;
use crate::reduce::NoOp;

/// `session/customizationToggled`: sets the entry's enablement: its provenance list on
/// plugins and MCP servers, the effective `enabled` flag on the others (the first source
/// decides; none means enabled).
pub(super) fn toggled(
    state: &mut SessionState,
    id: &str,
    enablement: &[CustomizationEnablement],
) -> Handled<Field> {
    let enabled = match enablement.first() {
        None => true,
        Some(CustomizationEnablement::Global(source)) => source.enabled,
        Some(CustomizationEnablement::Workspace(source)) => source.enabled,
        Some(CustomizationEnablement::Session(source)) => source.enabled,
        Some(CustomizationEnablement::Unknown(_)) => false,
    };
    let provenance = (!enablement.is_empty()).then(|| enablement.to_vec());
    let list = state.customizations.as_mut().ok_or(NoOp::UnknownTarget)?;
    match find(list, id).ok_or(NoOp::UnknownTarget)? {
        Found::Top(index) => match &mut list[index] {
            Customization::Plugin(plugin) => plugin.enablement = provenance,
            Customization::Directory(directory) => directory.enabled = enabled,
            Customization::McpServer(server) => server.enablement = provenance,
            Customization::Unknown(_) => return Err(NoOp::UnknownTarget),
        },
        Found::Child(container, index) => {
            let child = children_mut(&mut list[container])
                .and_then(|children| children.get_mut(index))
                .ok_or(NoOp::UnknownTarget)?;
            match child {
                ChildCustomization::Agent(c) => c.enabled = Some(enabled),
                ChildCustomization::Skill(c) => c.enabled = Some(enabled),
                ChildCustomization::Prompt(c) => c.enabled = Some(enabled),
                ChildCustomization::Rule(c) => c.enabled = Some(enabled),
                ChildCustomization::Hook(c) => c.enabled = Some(enabled),
                ChildCustomization::McpServer(c) => c.enablement = provenance,
                ChildCustomization::Unknown(_) => return Err(NoOp::UnknownTarget),
            }
        }
    }
    Ok(Changed::one(Field::Customizations))
}

/// `session/customizationUpdated`: replaces the top-level entry with the id, whole, or
/// appends it. An entry of an unknown kind has no id: not taken.
pub(super) fn updated(state: &mut SessionState, customization: &Customization) -> Handled<Field> {
    // Validated before the list is created (the official Rust reducer creates an empty list
    // first; see tests/reference_v1_session.rs).
    let id = Customization::id(customization).ok_or(NoOp::InvalidTransition)?;
    upsert_where(&mut state.customizations, customization, |entry| {
        Customization::id(entry) == Some(id)
    });
    Ok(Changed::one(Field::Customizations))
}

/// `session/customizationRemoved`: removes the top-level entry with the id, else the first
/// child with it.
pub(super) fn removed(state: &mut SessionState, id: &str) -> Handled<Field> {
    let list = state.customizations.as_mut().ok_or(NoOp::UnknownTarget)?;
    match find(list, id).ok_or(NoOp::UnknownTarget)? {
        Found::Top(index) => {
            list.remove(index);
        }
        Found::Child(container, index) => {
            if let Some(children) = children_mut(&mut list[container]) {
                children.remove(index);
            }
        }
    }
    Ok(Changed::one(Field::Customizations))
}

/// `session/mcpServerStateChanged`: the MCP server's state and channel (absent clears it).
pub(super) fn mcp_state_changed(
    state: &mut SessionState,
    id: &str,
    next: &McpServerState,
    channel: Option<&String>,
) -> Handled<Field> {
    let server = mcp_server_mut(state, id)?;
    server.state.clone_from(next);
    server.channel = channel.cloned();
    Ok(Changed::one(Field::Customizations))
}

/// `session/mcpServerStartRequested`: the server is starting (no channel yet).
pub(super) fn mcp_start_requested(state: &mut SessionState, id: &str) -> Handled<Field> {
    let starting = McpServerState::Starting(McpServerStartingState {
        blocking: None,
        extra: Default::default(),
    });
    mcp_state_changed(state, id, &starting, None)
}

/// `session/mcpServerStopRequested`: the server is stopped (no channel).
pub(super) fn mcp_stop_requested(state: &mut SessionState, id: &str) -> Handled<Field> {
    let stopped = McpServerState::Stopped(McpServerStoppedState {
        extra: Default::default(),
    });
    mcp_state_changed(state, id, &stopped, None)
}

/// `session/mcpServerBackgroundRequested`: a server starting in the foreground (`blocking`)
/// goes on starting in the background; in any other state, nothing changes.
pub(super) fn mcp_background_requested(state: &mut SessionState, id: &str) -> Handled<Field> {
    let server = mcp_server_mut(state, id)?;
    match &mut server.state {
        McpServerState::Starting(starting) if starting.blocking == Some(true) => {
            starting.blocking = Some(false);
            Ok(Changed::one(Field::Customizations))
        }
        _ => Err(NoOp::InvalidTransition),
    }
}

/// Where an id was found.
enum Found {
    /// A top-level entry, by index.
    Top(usize),
    /// A container's child: (container index, child index).
    Child(usize, usize),
}

/// The entry with the id: the first top-level one, else the first child of the first
/// container that has one.
fn find(list: &[Customization], id: &str) -> Option<Found> {
    if let Some(index) = list
        .iter()
        .position(|entry| Customization::id(entry) == Some(id))
    {
        return Some(Found::Top(index));
    }
    list.iter().enumerate().find_map(|(container, entry)| {
        let children = children(entry)?;
        let index = children
            .iter()
            .position(|child| ChildCustomization::id(child) == Some(id))?;
        Some(Found::Child(container, index))
    })
}

/// The MCP server with the id (top level or child); an id naming another kind: none.
fn mcp_server_mut<'a>(
    state: &'a mut SessionState,
    id: &str,
) -> Result<&'a mut McpServerCustomization, NoOp> {
    let list = state.customizations.as_mut().ok_or(NoOp::UnknownTarget)?;
    match find(list, id).ok_or(NoOp::UnknownTarget)? {
        Found::Top(index) => match &mut list[index] {
            Customization::McpServer(server) => Ok(server),
            _ => Err(NoOp::UnknownTarget),
        },
        Found::Child(container, index) => {
            match children_mut(&mut list[container]).and_then(|children| children.get_mut(index)) {
                Some(ChildCustomization::McpServer(server)) => Ok(server),
                _ => Err(NoOp::UnknownTarget),
            }
        }
    }
}

fn children(entry: &Customization) -> Option<&Vec<ChildCustomization>> {
    match entry {
        Customization::Plugin(c) => c.children.as_ref(),
        Customization::Directory(c) => c.children.as_ref(),
        Customization::McpServer(_) | Customization::Unknown(_) => None,
    }
}

fn children_mut(entry: &mut Customization) -> Option<&mut Vec<ChildCustomization>> {
    match entry {
        Customization::Plugin(c) => c.children.as_mut(),
        Customization::Directory(c) => c.children.as_mut(),
        Customization::McpServer(_) | Customization::Unknown(_) => None,
    }
}
