//! Session customizations: top-level entries (plugins, directories, MCP servers), the containers
//! among them holding children (agents, skills, prompts, rules, hooks, MCP servers).

use super::{Field, Handled};
use crate::protocol::decode::from_text;
use crate::protocol::encode::to_text;
use crate::protocol::{
    ChildCustomization, Customization, JsonValue, SessionCustomizationRemovedAction,
    SessionCustomizationToggledAction, SessionCustomizationUpdatedAction,
    SessionCustomizationsChangedAction, SessionMcpServerStateChangedAction, SessionState,
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

/// `session/customizationToggled`: enables or disables the first top-level entry with the id,
/// one of an unknown (newer) type too (its raw `enabled` member). Children have no switch of
/// their own; they follow their container.
pub(super) fn toggled(
    state: &mut SessionState,
    action: &SessionCustomizationToggledAction,
) -> Handled {
    let list = state.customizations.as_mut().ok_or(NoOp::UnknownTarget)?;
    let wanted = Some(Id::Text(&action.id));
    let entry = list
        .iter_mut()
        .find(|entry| id_of(entry) == wanted)
        .ok_or(NoOp::UnknownTarget)?;
    let enabled = match entry {
        Customization::Plugin(plugin) => &mut plugin.enabled,
        Customization::Directory(dir) => &mut dir.enabled,
        Customization::McpServer(server) => &mut server.enabled,
        Customization::Unknown(unknown) => {
            let value = JsonValue::Bool(action.enabled);
            if unknown.0.get("enabled") == Some(&value) {
                return Err(NoOp::NothingToChange);
            }
            unknown.0.insert("enabled".to_owned(), value);
            return Ok(Changed::one(Field::Customizations));
        }
    };
    if *enabled == action.enabled {
        return Err(NoOp::NothingToChange);
    }
    *enabled = action.enabled;
    Ok(Changed::one(Field::Customizations))
}

/// `session/customizationUpdated`: replaces the first top-level entry with the same id
/// (children included) or appends it; creates the list if the session had none. Ids are read
/// raw, so an entry of an unknown type is matched too, and one without an id replaces the first
/// entry without one (as the TypeScript reducers compare `c.id === action.customization.id`).
pub(super) fn updated(
    state: &mut SessionState,
    action: &SessionCustomizationUpdatedAction,
) -> Handled {
    let list = state.customizations.get_or_insert_with(Vec::new);
    let id = id_of(&action.customization);
    match list.iter_mut().find(|entry| id_of(entry) == id) {
        Some(entry) => *entry = action.customization.clone(),
        None => list.push(action.customization.clone()),
    }
    Ok(Changed::one(Field::Customizations))
}

/// `session/customizationRemoved`: removes the first top-level entry with the id (with its
/// children); if none has it, the first child with the id of EVERY container (any entry but an
/// MCP server, one of an unknown type with a `children` array too), as the TypeScript reducers
/// do (the official Rust reducers stop at the first container).
pub(super) fn removed(
    state: &mut SessionState,
    action: &SessionCustomizationRemovedAction,
) -> Handled {
    let list = state.customizations.as_mut().ok_or(NoOp::UnknownTarget)?;
    let wanted = Some(Id::Text(&action.id));
    if let Some(index) = list.iter().position(|entry| id_of(entry) == wanted) {
        list.remove(index);
        return Ok(Changed::one(Field::Customizations));
    }
    let mut removed = false;
    for entry in list.iter_mut() {
        match children_mut(entry) {
            Some(Children::Known(children)) => {
                if let Some(index) = children.iter().position(|c| child_id_of(c) == wanted) {
                    children.remove(index);
                    removed = true;
                }
            }
            Some(Children::Raw(children)) => {
                if let Some(index) = children.iter().position(|c| raw_id(c) == wanted) {
                    children.remove(index);
                    removed = true;
                }
            }
            None => {}
        }
    }
    if removed {
        Ok(Changed::one(Field::Customizations))
    } else {
        Err(NoOp::UnknownTarget)
    }
}

/// `session/mcpServerStateChanged`: replaces the runtime `state` and `channel` of an MCP server;
/// every other field is kept.
///
/// Ids are session-unique; should several entries share one, the targets are the ones the
/// TypeScript reducers pick: the first top-level entry with the id (if it is not an MCP server,
/// nothing changes), else in EVERY container the first child with the id, if that child is an
/// MCP server (the official Rust reducers stop at the first container with the id).
pub(super) fn mcp_server_state_changed(
    state: &mut SessionState,
    action: &SessionMcpServerStateChangedAction,
) -> Handled {
    let list = state.customizations.as_mut().ok_or(NoOp::UnknownTarget)?;
    let wanted = Some(Id::Text(&action.id));
    if let Some(entry) = list.iter_mut().find(|entry| id_of(entry) == wanted) {
        let Customization::McpServer(server) = entry else {
            return Err(NoOp::InvalidTransition);
        };
        server.state = action.state.clone();
        server.channel = action.channel.clone();
        return Ok(Changed::one(Field::Customizations));
    }
    let (mut found, mut changed) = (false, false);
    for entry in list.iter_mut() {
        match children_mut(entry) {
            Some(Children::Known(children)) => {
                if let Some(child) = children.iter_mut().find(|c| child_id_of(c) == wanted) {
                    found = true;
                    if let ChildCustomization::McpServer(server) = child {
                        server.state = action.state.clone();
                        server.channel = action.channel.clone();
                        changed = true;
                    }
                }
            }
            Some(Children::Raw(children)) => {
                if let Some(child) = children.iter_mut().find(|c| raw_id(c) == wanted) {
                    found = true;
                    if let Some(server) = child
                        .as_object_mut()
                        .filter(|c| c.get("type").and_then(JsonValue::as_str) == Some("mcpServer"))
                    {
                        let state = from_text::<JsonValue>(&to_text(&action.state));
                        server.insert("state".to_owned(), state.unwrap_or_default());
                        match &action.channel {
                            Some(channel) => {
                                server.insert("channel".to_owned(), channel.clone().into())
                            }
                            None => server.remove("channel"),
                        };
                        changed = true;
                    }
                }
            }
            None => {}
        }
    }
    match (found, changed) {
        (_, true) => Ok(Changed::one(Field::Customizations)),
        (true, false) => Err(NoOp::InvalidTransition),
        (false, false) => Err(NoOp::UnknownTarget),
    }
}

/// A customization's id as the TypeScript reducers read it: the raw `id` member, whatever its
/// JSON type (`None` when absent).
#[derive(Debug, Clone, Copy)]
enum Id<'a> {
    Text(&'a str),
    Raw(&'a JsonValue),
}

impl PartialEq for Id<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Id::Text(a), Id::Text(b)) => a == b,
            (Id::Text(a), Id::Raw(b)) | (Id::Raw(b), Id::Text(a)) => b.as_str() == Some(*a),
            (Id::Raw(a), Id::Raw(b)) => a == b,
        }
    }
}

fn raw_id(object: &JsonValue) -> Option<Id<'_>> {
    object.get("id").filter(|id| !id.is_null()).map(Id::Raw)
}

/// A top-level entry's id; an entry of an unknown (newer-version) type is matched by its raw
/// `id` (the official Rust reducers never match one).
fn id_of(entry: &Customization) -> Option<Id<'_>> {
    match entry {
        Customization::Plugin(plugin) => Some(Id::Text(&plugin.id)),
        Customization::Directory(dir) => Some(Id::Text(&dir.id)),
        Customization::McpServer(server) => Some(Id::Text(&server.id)),
        Customization::Unknown(unknown) => {
            unknown.0.get("id").filter(|id| !id.is_null()).map(Id::Raw)
        }
    }
}

fn child_id_of(child: &ChildCustomization) -> Option<Id<'_>> {
    match child {
        ChildCustomization::Agent(c) => Some(Id::Text(&c.id)),
        ChildCustomization::Skill(c) => Some(Id::Text(&c.id)),
        ChildCustomization::Prompt(c) => Some(Id::Text(&c.id)),
        ChildCustomization::Rule(c) => Some(Id::Text(&c.id)),
        ChildCustomization::Hook(c) => Some(Id::Text(&c.id)),
        ChildCustomization::McpServer(c) => Some(Id::Text(&c.id)),
        ChildCustomization::Unknown(unknown) => {
            unknown.0.get("id").filter(|id| !id.is_null()).map(Id::Raw)
        }
    }
}

/// A container's children: typed for plugins and directories, raw for an entry of an unknown
/// type that has a `children` array.
enum Children<'a> {
    Known(&'a mut Vec<ChildCustomization>),
    Raw(&'a mut Vec<JsonValue>),
}

fn children_mut(entry: &mut Customization) -> Option<Children<'_>> {
    match entry {
        Customization::Plugin(plugin) => plugin.children.as_mut().map(Children::Known),
        Customization::Directory(dir) => dir.children.as_mut().map(Children::Known),
        Customization::McpServer(_) => None,
        Customization::Unknown(unknown) => match unknown.0.get_mut("children") {
            Some(JsonValue::Array(children)) => Some(Children::Raw(children)),
            _ => None,
        },
    }
}
