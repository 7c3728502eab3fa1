//! What a 1.0 session action changes that the 0.3.0 view shows ([`SessionChange`]), derived
//! from the session before the action and the action alone: the translation of a session
//! action needs the values it changes before and after, never a copy of the whole session.

use ahp_wasm::protocol::v1::{self, ChildCustomization, Customization, StateAction};
use ahp_wasm::protocol::wire::Blank;
use ahp_wasm::reduce::v1::session_reducer;

/// The members of the view one session action can change, before and after it.
#[derive(Debug, PartialEq)]
pub enum SessionChange<'a> {
    /// None the view derives (what the action says is all it shows).
    Nothing,
    /// The first of the session's active clients (the view's single one).
    ActiveClient {
        before: Option<&'a v1::SessionActiveClient>,
        after: Option<&'a v1::SessionActiveClient>,
    },
    /// The first working directory (the view's only one).
    WorkingDirectory {
        before: Option<&'a str>,
        after: Option<String>,
    },
    /// The whole list of customizations, replaced.
    Customizations {
        before: Option<&'a [Customization]>,
        after: &'a [Customization],
    },
    /// One top-level customization (the one holding the action's id): the list before, the
    /// entry's index in it (`None`: appended) and the entry after (`None`: removed).
    Customization {
        list: Option<&'a [Customization]>,
        index: Option<usize>,
        after: Option<Box<Customization>>,
    },
}

impl<'a> SessionChange<'a> {
    /// What `action` changes in `state` (the session before it). Only the one member the
    /// action's kind can change is read; a single customization is copied to apply the action
    /// to it, a working directory list to read its first entry.
    pub fn of(state: &'a v1::SessionState, action: &'a StateAction) -> SessionChange<'a> {
        let first_client = state.active_clients.first();
        match action {
            // `activeClientSet` replaces the entry with its id in place or appends it.
            StateAction::SessionActiveClientSet(a) => SessionChange::ActiveClient {
                before: first_client,
                after: match first_client {
                    Some(c) if c.client_id != a.active_client.client_id => Some(c),
                    _ => Some(&a.active_client),
                },
            },
            StateAction::SessionActiveClientRemoved(a) => SessionChange::ActiveClient {
                before: first_client,
                after: match first_client {
                    Some(c) if c.client_id == a.client_id => state.active_clients.get(1),
                    other => other,
                },
            },
            StateAction::SessionWorkingDirectorySet(_)
            | StateAction::SessionWorkingDirectoryRemoved(_)
            | StateAction::SessionWorkingDirectoryReplaced(_) => {
                let mut scratch = v1::SessionState::blank();
                scratch
                    .working_directories
                    .clone_from(&state.working_directories);
                let _ = session_reducer(&mut scratch, action);
                let first = |s: &'a v1::SessionState| {
                    s.working_directories
                        .as_ref()
                        .and_then(|d| d.first())
                        .map(String::as_str)
                };
                SessionChange::WorkingDirectory {
                    before: first(state),
                    after: scratch
                        .working_directories
                        .and_then(|d| d.into_iter().next()),
                }
            }
            StateAction::SessionCustomizationsChanged(a) => SessionChange::Customizations {
                before: state.customizations.as_deref(),
                after: &a.customizations,
            },
            StateAction::SessionCustomizationUpdated(a) => {
                match Customization::id(&a.customization) {
                    Some(id) => one_customization(state, action, Target::Top(id)),
                    // Refused by the reducer: an entry of an unknown kind has no id.
                    None => SessionChange::Nothing,
                }
            }
            StateAction::SessionCustomizationToggled(a) => {
                one_customization(state, action, Target::Any(&a.id))
            }
            StateAction::SessionCustomizationRemoved(a) => {
                one_customization(state, action, Target::Any(&a.id))
            }
            StateAction::SessionMcpServerStateChanged(a) => {
                one_customization(state, action, Target::Any(&a.id))
            }
            StateAction::SessionMcpServerStartRequested(a) => {
                one_customization(state, action, Target::Any(&a.id))
            }
            StateAction::SessionMcpServerStopRequested(a) => {
                one_customization(state, action, Target::Any(&a.id))
            }
            StateAction::SessionMcpServerBackgroundRequested(a) => {
                one_customization(state, action, Target::Any(&a.id))
            }
            _ => SessionChange::Nothing,
        }
    }
}

/// How the 1.0 reducer finds the entry an action names.
enum Target<'a> {
    /// The top-level entry with the id (`customizationUpdated`).
    Top(&'a str),
    /// The top-level entry with the id, else the first container with a child with it.
    Any(&'a str),
}

/// The top-level customization `action` changes, before and after: the action is applied to
/// a session holding only that entry (the 1.0 reducer finds it there as in the whole list).
fn one_customization<'a>(
    state: &'a v1::SessionState,
    action: &StateAction,
    target: Target<'_>,
) -> SessionChange<'a> {
    let list = state.customizations.as_deref();
    let index = list.and_then(|list| match target {
        Target::Top(id) => list.iter().position(|c| Customization::id(c) == Some(id)),
        Target::Any(id) => list
            .iter()
            .position(|c| Customization::id(c) == Some(id))
            .or_else(|| {
                list.iter().position(|c| {
                    children(c)
                        .iter()
                        .any(|ch| ChildCustomization::id(ch) == Some(id))
                })
            }),
    });
    let before = list.zip(index).map(|(list, i)| &list[i]);
    if before.is_none() && matches!(target, Target::Any(_)) {
        // Nothing to toggle, remove or restart: the reducer leaves the list alone.
        return SessionChange::Nothing;
    }
    let mut scratch = v1::SessionState::blank();
    scratch.customizations = Some(before.into_iter().cloned().collect());
    let _ = session_reducer(&mut scratch, action);
    SessionChange::Customization {
        list,
        index,
        after: scratch
            .customizations
            .and_then(|l| l.into_iter().next())
            .map(Box::new),
    }
}

fn children(entry: &Customization) -> &[ChildCustomization] {
    match entry {
        Customization::Plugin(c) => c.children.as_deref().unwrap_or_default(),
        Customization::Directory(c) => c.children.as_deref().unwrap_or_default(),
        Customization::McpServer(_) | Customization::Unknown(_) => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn session(extra: serde_json::Value) -> v1::SessionState {
        let mut json = json!({
            "provider": "p", "title": "S", "status": 1, "lifecycle": "ready",
            "activeClients": [], "chats": [],
        });
        json.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        serde_json::from_value(json).unwrap()
    }

    fn action(json: serde_json::Value) -> StateAction {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_child_toggled_changes_its_container_only() {
        let state = session(json!({ "customizations": [
            { "type": "plugin", "id": "q", "name": "q", "uri": "https://plugins.example/q" },
            { "type": "plugin", "id": "p", "name": "p", "uri": "https://plugins.example/p",
              "children": [{ "type": "skill", "id": "s", "name": "s", "uri": "file:///p/s" }] },
        ]}));
        let toggle = action(json!({ "type": "session/customizationToggled", "id": "s",
            "enablement": [{ "kind": "session", "enabled": false }] }));
        let SessionChange::Customization { list, index, after } =
            SessionChange::of(&state, &toggle)
        else {
            panic!("one customization");
        };
        assert_eq!(list.map(<[_]>::len), Some(2));
        assert_eq!(index, Some(1));
        let after = serde_json::to_value(after.expect("kept")).unwrap();
        assert_eq!(after["id"], "p");
        assert_eq!(after["children"][0]["enabled"], false);
        // Nothing to toggle: nothing changes.
        let missing = action(json!({ "type": "session/customizationToggled", "id": "x",
            "enablement": [] }));
        assert_eq!(SessionChange::of(&state, &missing), SessionChange::Nothing);
    }

    #[test]
    fn the_first_active_client_follows_sets_and_removals() {
        let state = session(json!({ "activeClients": [
            { "clientId": "a", "tools": [] }, { "clientId": "b", "tools": [] },
        ]}));
        let set_b = action(json!({ "type": "session/activeClientSet",
            "activeClient": { "clientId": "b", "tools": [] } }));
        let SessionChange::ActiveClient { before, after } = SessionChange::of(&state, &set_b)
        else {
            panic!("the active client");
        };
        assert_eq!(before.map(|c| c.client_id.as_str()), Some("a"));
        assert_eq!(after.map(|c| c.client_id.as_str()), Some("a"));
        let remove_a = action(json!({ "type": "session/activeClientRemoved", "clientId": "a" }));
        let SessionChange::ActiveClient { after, .. } = SessionChange::of(&state, &remove_a) else {
            panic!("the active client");
        };
        assert_eq!(after.map(|c| c.client_id.as_str()), Some("b"));
    }
}
