//! The 0.3.0 actions of a 1.0 action (the envelopes' view).

use super::change::SessionChange;
use super::state::{active_client, customization, response_part, tool_call_fields};
use ahp_wasm::protocol::v1::{self, Customization};
use serde_json::{json, Map, Value};

/// What a 0.3.0 client is sent for one 1.0 action.
#[derive(Debug, PartialEq)]
pub enum View {
    /// These actions (none when the view does not show what changed).
    Actions(Vec<Value>),
    /// No 0.3.0 action says what changed (the reason names the [`super::GAPS`] entry): the
    /// client needs a fresh snapshot of the session.
    Resync(&'static str),
}

/// Where a 1.0 action was applied.
pub enum Source<'a> {
    /// The session channel, with what the action changes there that the view derives
    /// ([`SessionChange::of`] the session before it).
    Session(&'a SessionChange<'a>),
    /// The session's default chat (shown), with its state before the action.
    DefaultChat { before: &'a v1::ChatState },
    /// Any other chat of the session: not shown.
    OtherChat,
}

/// What a 0.3.0 client subscribed to the session is sent for `action`, applied at `source`.
pub fn action(source: Source<'_>, action: &Value) -> View {
    let kind = action.get("type").and_then(Value::as_str).unwrap_or("");
    match source {
        Source::DefaultChat { before } => chat_action(kind, action, before),
        Source::OtherChat => View::Actions(Vec::new()),
        Source::Session(change) => session_action(kind, action, change),
    }
}

/// The 1.0 tool call `turn_id`/`tool_call_id` of the active turn, as JSON.
fn tool_call(chat: &v1::ChatState, action: &Value) -> Option<Value> {
    let turn = chat.active_turn.as_ref()?;
    if action.get("turnId").and_then(Value::as_str) != Some(turn.id.as_str()) {
        return None;
    }
    let id = action.get("toolCallId").and_then(Value::as_str)?;
    turn.response_parts.iter().find_map(|part| match part {
        v1::ResponsePart::ToolCall(part) => {
            let call = serde_json::to_value(&part.tool_call).ok()?;
            (call.get("toolCallId").and_then(Value::as_str) == Some(id)).then_some(call)
        }
        _ => None,
    })
}

/// `action` as `session/<name>`, without the members in `drop`.
fn renamed(action: &Value, name: &str, drop: &[&str]) -> Value {
    let mut out = action.as_object().cloned().unwrap_or_default();
    for key in drop {
        out.remove(*key);
    }
    out.insert("type".into(), format!("session/{name}").into());
    Value::Object(out)
}

fn chat_action(kind: &str, action: &Value, before: &v1::ChatState) -> View {
    match chat_resync(kind, action, before) {
        Some(reason) => View::Resync(reason),
        None => View::Actions(chat_action_of(kind, action, before).into_iter().collect()),
    }
}

/// Why the 0.3.0 reducer cannot follow `action` (where 1.0's reducer does what 0.3.0's has no
/// action for), if it cannot.
fn chat_resync(kind: &str, action: &Value, before: &v1::ChatState) -> Option<&'static str> {
    let has = |key: &str| action.get(key).is_some_and(|v| !v.is_null());
    let call = || tool_call(before, action);
    let status = |call: &Value| {
        call.get("status")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    if kind.starts_with("chat/toolCall") && kind != "chat/toolCallStart" {
        if call().and_then(|c| status(&c)).as_deref() == Some("auth-required") {
            return Some("tool calls waiting for authentication");
        }
        // 1.0 merges an action's `_meta` into the call; 0.3.0 keeps the start's.
        if has("_meta") {
            return Some("a tool call's metadata, owner or confirmation refined");
        }
    }
    match kind {
        "chat/toolCallAuthRequired" | "chat/toolCallAuthResolved" => {
            Some("tool calls waiting for authentication")
        }
        "chat/turnResume" => Some("a resumed turn"),
        "chat/turnsLoaded" => Some("older turns loaded"),
        "chat/toolCallReady" => {
            let pending =
                call().and_then(|c| status(&c)).as_deref() == Some("pending-confirmation");
            (pending || has("contributor"))
                .then_some("a tool call's metadata, owner or confirmation refined")
        }
        "chat/toolCallDelta" => {
            (!has("content")).then_some("a tool call's metadata, owner or confirmation refined")
        }
        _ => None,
    }
}

fn chat_action_of(kind: &str, action: &Value, before: &v1::ChatState) -> Option<Value> {
    let name = kind.strip_prefix("chat/")?;
    Some(match name {
        "delta"
        | "usage"
        | "reasoning"
        | "toolCallResultConfirmed"
        | "truncated"
        | "pendingMessageSet"
        | "pendingMessageRemoved"
        | "queuedMessagesReordered"
        | "inputAnswerChanged"
        | "inputCompleted"
        | "isReadChanged"
        | "isArchivedChanged"
        | "activityChanged" => renamed(action, name, &[]),
        "toolCallComplete" | "toolCallContentChanged" => {
            let mut out = renamed(action, name, &[]);
            super::content::edits_to_v03(&mut out);
            out
        }
        // 1.0 asks for input inside the active turn only.
        "inputRequested" => {
            before.active_turn.as_ref()?;
            renamed(action, name, &[])
        }
        // 1.0 keeps a tool input held by reference (the view does not show it) over an edit.
        "toolCallConfirmed" => {
            let by_reference = tool_call(before, action)
                .and_then(|call| call.get("toolInput").map(|input| !input.is_string()))
                .unwrap_or(false);
            let drop: &[&str] = if by_reference {
                &["editedToolInput"]
            } else {
                &[]
            };
            let mut out = renamed(action, name, drop);
            // 0.3.0 requires the reason 1.0 leaves optional: the 1.0 reducers' defaults.
            let (key, default) = match out.get("approved") {
                Some(Value::Bool(true)) => ("confirmed", "not-needed"),
                _ => ("reason", "denied"),
            };
            if out.get(key).is_none_or(Value::is_null) {
                out[key] = default.into();
            }
            out
        }
        "turnStarted" => renamed(action, name, &["startedAt"]),
        "turnComplete" | "turnCancelled" => renamed(action, name, &["duration"]),
        "toolCallStart" | "toolCallReady" => {
            let mut out = renamed(action, name, &[]);
            tool_call_fields(&mut out);
            out
        }
        "toolCallDelta" => renamed(action, name, &[]),
        "error" => json!({
            "type": "session/error",
            "turnId": action.get("turnId")?,
            "error": action.get("part")?.get("error")?,
        }),
        "responsePart" => {
            let part = action.get("part")?;
            match part.get("kind").and_then(Value::as_str) {
                // The view keeps open input requests beside the turn, not in it.
                Some("inputRequest") => {
                    if !part.get("response").is_none_or(Value::is_null) {
                        return None;
                    }
                    json!({ "type": "session/inputRequested", "request": part.get("request")? })
                }
                // An error part of the active turn shows once the turn ends with it.
                Some("error") => return None,
                _ => {
                    let mut out = renamed(action, name, &[]);
                    out["part"] = response_part(part);
                    out
                }
            }
        }
        // Authentication of tool calls, drafts, background work, canvases, loaded turns,
        // per-chat working directories and changesets: not in 0.3.0 (`super::GAPS`).
        _ => return None,
    })
}

/// The 0.3.0 action a 1.0 client's dispatch of `action` on a session is applied as, where that
/// differs from what the view is sent: a 1.0 `session/customizationToggled` is 0.3.0's toggle
/// (enabled as its first source says), which clients may dispatch and which approves a working
/// directory's MCP server; the view's `customizationUpdated` is the host's own action.
pub fn dispatched_on_session(action: &Value) -> Option<Value> {
    if action.get("type")?.as_str()? != "session/customizationToggled" {
        return None;
    }
    Some(json!({
        "type": "session/customizationToggled",
        "id": action.get("id")?,
        "enabled": super::state::enabled(action.get("enablement")),
    }))
}

fn session_action(kind: &str, action: &Value, change: &SessionChange<'_>) -> View {
    let Some(name) = kind.strip_prefix("session/") else {
        return View::Actions(Vec::new());
    };
    let none = || View::Actions(Vec::new());
    let one = match (name, change) {
        (
            "ready" | "creationFailed" | "titleChanged" | "serverToolsChanged" | "configChanged"
            | "changesetsChanged",
            _,
        ) => renamed(action, name, &[]),
        // 1.0 has more ways to change a customization (per-source enablement, children,
        // start/stop requests); 0.3.0 is sent what changed, entry by entry.
        (_, SessionChange::Customizations { before, after }) => {
            return View::Actions(customization_changes(before.unwrap_or_default(), after));
        }
        (_, SessionChange::Customization { list, index, after }) => {
            return View::Actions(one_customization(*list, *index, after.as_deref()));
        }
        (_, SessionChange::WorkingDirectory { before, after }) => {
            if *before == after.as_deref() {
                return none();
            }
            return View::Resync("the session's working directory");
        }
        ("metaChanged", _) => {
            let mut out = renamed(action, name, &[]);
            if out.get("meta").is_none_or(Value::is_null) {
                out["meta"] = Value::Object(Map::new());
            }
            out
        }
        (_, SessionChange::ActiveClient { before, after }) => {
            if before == after {
                return none();
            }
            let now = after
                .and_then(|c| serde_json::to_value(c).ok())
                .map(|mut c| {
                    active_client(&mut c);
                    c
                });
            json!({ "type": "session/activeClientChanged", "activeClient": now })
        }
        // Chats, annotations, input-needed summaries, read and archived flags and the
        // activity of the session itself: the view shows the default chat's.
        _ => return none(),
    };
    View::Actions(vec![one])
}

/// A customization as the view shows it.
fn view_of(entry: &Customization) -> Value {
    let mut out = serde_json::to_value(entry).unwrap_or(Value::Null);
    customization(&mut out);
    out
}

/// The 0.3.0 actions for one top-level customization changed: `customizationRemoved` or
/// `customizationUpdated` (which appends a new one); the whole list when another entry has the
/// same id (0.3.0's by-id actions could not say which one changed).
fn one_customization(
    list: Option<&[Customization]>,
    index: Option<usize>,
    after: Option<&Customization>,
) -> Vec<Value> {
    let list = list.unwrap_or_default();
    let before = index.and_then(|i| list.get(i));
    let Some(id) = before.or(after).and_then(Customization::id) else {
        return Vec::new();
    };
    let shared = list
        .iter()
        .enumerate()
        .any(|(i, c)| Some(i) != index && Customization::id(c) == Some(id));
    if shared {
        let mut now: Vec<Customization> = list.to_vec();
        match (index, after) {
            (Some(i), Some(entry)) => now[i] = entry.clone(),
            (Some(i), None) => drop(now.remove(i)),
            (None, Some(entry)) => now.push(entry.clone()),
            (None, None) => {}
        }
        return customization_changes(list, &now);
    }
    match (before, after) {
        (Some(_), None) => vec![json!({ "type": "session/customizationRemoved", "id": id })],
        (_, Some(entry)) => {
            let now = view_of(entry);
            if before.map(view_of).as_ref() == Some(&now) {
                return Vec::new();
            }
            vec![json!({ "type": "session/customizationUpdated", "customization": now })]
        }
        (None, None) => Vec::new(),
    }
}

/// The 0.3.0 actions that take the view's customizations from `before` to `after`: one
/// `customizationUpdated` per entry that changed or came, one `customizationRemoved` per entry
/// that went, or the whole list when the order changed.
fn customization_changes(before: &[Customization], after: &[Customization]) -> Vec<Value> {
    let list = |l: &[Customization]| -> Vec<Value> { l.iter().map(view_of).collect() };
    let (was, now) = (list(before), list(after));
    if was == now {
        return Vec::new();
    }
    let id = |c: &Value| c.get("id").and_then(Value::as_str).map(str::to_owned);
    let kept: Vec<_> = was
        .iter()
        .filter_map(id)
        .filter(|i| now.iter().any(|c| id(c).as_ref() == Some(i)))
        .collect();
    let stays: Vec<_> = now
        .iter()
        .filter_map(id)
        .filter(|i| kept.contains(i))
        .collect();
    // Entries without an id, or kept entries in another order: the whole list.
    if was.iter().chain(&now).any(|c| id(c).is_none()) || kept != stays {
        return vec![json!({ "type": "session/customizationsChanged", "customizations": now })];
    }
    let mut out = Vec::new();
    for gone in was.iter().filter_map(id).filter(|i| !kept.contains(i)) {
        out.push(json!({ "type": "session/customizationRemoved", "id": gone }));
    }
    for entry in &now {
        if !was.contains(entry) {
            out.push(json!({ "type": "session/customizationUpdated", "customization": entry }));
        }
    }
    out
}
