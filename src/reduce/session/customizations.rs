//! Session customizations: top-level entries (plugins, directories, MCP servers), the containers
//! among them holding children (agents, skills, prompts, rules, hooks, MCP servers).

use super::{Field, Handled};
use crate::protocol::{
    ChildCustomization, Customization, JsonValue, McpServerCustomization,
    SessionCustomizationRemovedAction, SessionCustomizationToggledAction,
    SessionCustomizationUpdatedAction, SessionCustomizationsChangedAction,
    SessionMcpServerStateChangedAction, SessionState,
};
use crate::reduce::{Changed, NoOp};

/// `session/customizationsChanged`: replaces the whole list.
pub(super) fn replaced(
    state: &mut SessionState,
    action: &SessionCustomizationsChangedAction,
) -> Handled {
    state.customizations = Some(action.customizations.clone());
    Ok(Changed::one(Field::Customizations))
}

/// `session/customizationToggled`: enables or disables a top-level entry by id. Children have no
/// switch of their own; they follow their container.
pub(super) fn toggled(
    state: &mut SessionState,
    action: &SessionCustomizationToggledAction,
) -> Handled {
    let enabled = state
        .customizations
        .as_mut()
        .and_then(|list| {
            list.iter_mut().find_map(|entry| match entry {
                Customization::Plugin(plugin) if plugin.id == action.id => {
                    Some(&mut plugin.enabled)
                }
                Customization::Directory(dir) if dir.id == action.id => Some(&mut dir.enabled),
                Customization::McpServer(server) if server.id == action.id => {
                    Some(&mut server.enabled)
                }
                _ => None,
            })
        })
        .ok_or(NoOp::UnknownTarget)?;
    if *enabled == action.enabled {
        return Err(NoOp::NothingToChange);
    }
    *enabled = action.enabled;
    Ok(Changed::one(Field::Customizations))
}

/// `session/customizationUpdated`: replaces the top-level entry with the same id (children
/// included) or appends it; creates the list if the session had none.
pub(super) fn updated(
    state: &mut SessionState,
    action: &SessionCustomizationUpdatedAction,
) -> Handled {
    let list = state.customizations.get_or_insert_with(Vec::new);
    let id = id_of(&action.customization);
    match list
        .iter_mut()
        .find(|entry| id.is_some() && id_of(entry) == id)
    {
        Some(entry) => *entry = action.customization.clone(),
        None => list.push(action.customization.clone()),
    }
    Ok(Changed::one(Field::Customizations))
}

/// `session/customizationRemoved`: removes a top-level entry (with its children) or a single
/// child, by id.
pub(super) fn removed(
    state: &mut SessionState,
    action: &SessionCustomizationRemovedAction,
) -> Handled {
    let list = state.customizations.as_mut().ok_or(NoOp::UnknownTarget)?;
    let id = Some(action.id.as_str());
    if let Some(index) = list.iter().position(|entry| id_of(entry) == id) {
        list.remove(index);
        return Ok(Changed::one(Field::Customizations));
    }
    for children in list.iter_mut().filter_map(children_mut) {
        if let Some(index) = children.iter().position(|child| child_id_of(child) == id) {
            children.remove(index);
            return Ok(Changed::one(Field::Customizations));
        }
    }
    Err(NoOp::UnknownTarget)
}

/// `session/mcpServerStateChanged`: replaces the runtime `state` and `channel` of an MCP server,
/// top-level or inside a container; every other field is kept.
///
/// Ids are session-unique; should several entries share one, the target is the one the
/// reference reducers pick: the first top-level entry with the id, else the first child with
/// it (containers in order). If that entry is not an MCP server the action does not apply.
pub(super) fn mcp_server_state_changed(
    state: &mut SessionState,
    action: &SessionMcpServerStateChangedAction,
) -> Handled {
    let server = state
        .customizations
        .as_mut()
        .and_then(|list| find_mcp_server(list, &action.id))
        .ok_or(NoOp::UnknownTarget)??;
    server.state = action.state.clone();
    server.channel = action.channel.clone();
    Ok(Changed::one(Field::Customizations))
}

/// The entry `id` names (see [`mcp_server_state_changed`]): `None` if no entry has the id,
/// `Some(Err)` if the one it names is not an MCP server.
fn find_mcp_server<'a>(
    list: &'a mut [Customization],
    id: &str,
) -> Option<Result<&'a mut McpServerCustomization, NoOp>> {
    let wanted = Some(id);
    if let Some(index) = list.iter().position(|entry| id_of(entry) == wanted) {
        return list.get_mut(index).map(|entry| match entry {
            Customization::McpServer(server) => Ok(server),
            _ => Err(NoOp::InvalidTransition),
        });
    }
    list.iter_mut()
        .filter_map(children_mut)
        .flat_map(|children| children.iter_mut())
        .find(|child| child_id_of(child) == wanted)
        .map(|child| match child {
            ChildCustomization::McpServer(server) => Ok(server),
            _ => Err(NoOp::InvalidTransition),
        })
}

/// A top-level entry's id. Entries of an unknown (newer-version) type are matched by their raw
/// `id`, so they can still be replaced or removed as a whole (as in the TypeScript reference,
/// whose entries are plain objects). A deliberate difference from the official Rust reducers
/// (`ahp` 0.3.0), which never match them: there a `customizationUpdated` carrying one is a
/// no-op (`tests/reference_reducers.rs`).
fn id_of(entry: &Customization) -> Option<&str> {
    match entry {
        Customization::Plugin(plugin) => Some(&plugin.id),
        Customization::Directory(dir) => Some(&dir.id),
        Customization::McpServer(server) => Some(&server.id),
        Customization::Unknown(unknown) => unknown.0.get("id").and_then(JsonValue::as_str),
    }
}

fn child_id_of(child: &ChildCustomization) -> Option<&str> {
    match child {
        ChildCustomization::Agent(c) => Some(&c.id),
        ChildCustomization::Skill(c) => Some(&c.id),
        ChildCustomization::Prompt(c) => Some(&c.id),
        ChildCustomization::Rule(c) => Some(&c.id),
        ChildCustomization::Hook(c) => Some(&c.id),
        ChildCustomization::McpServer(c) => Some(&c.id),
        ChildCustomization::Unknown(unknown) => unknown.0.get("id").and_then(JsonValue::as_str),
    }
}

/// A container's children, if it is a container that has them.
fn children_mut(entry: &mut Customization) -> Option<&mut Vec<ChildCustomization>> {
    match entry {
        Customization::Plugin(plugin) => plugin.children.as_mut(),
        Customization::Directory(dir) => dir.children.as_mut(),
        Customization::McpServer(_) | Customization::Unknown(_) => None,
    }
}
