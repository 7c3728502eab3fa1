//! The other direction: a 0.3.0 session as a 1.0 session with one chat (how a 0.3.0 database
//! opens in a 1.0 host), and a 0.3.0 action as the 1.0 action that makes the same change (a
//! 0.3.0 client's dispatch, or the 0.3.0 agent's output, applied to 1.0 state).

use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::{from_unix_millis, unix_millis};
use serde_json::{json, Map, Value};

/// Which 1.0 channel a translated action goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The session channel.
    Session,
    /// The session's default chat.
    DefaultChat,
}

/// RFC 3339 of 0.3.0's milliseconds (a time out of range reads as the epoch).
fn iso(millis: Option<&Value>) -> Value {
    let millis = millis.and_then(Value::as_f64).unwrap_or(0.0) as i64;
    from_unix_millis(millis)
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".into())
        .into()
}

fn copy(to: &mut Map<String, Value>, from: &Value, keys: &[&str]) {
    for key in keys {
        if let Some(value) = from.get(*key).filter(|v| !v.is_null()) {
            to.insert((*key).into(), value.clone());
        }
    }
}

/// `state` (0.3.0) as a 1.0 session and its one chat, the chat's URI `chat`. Open input
/// requests move into the active turn (without one they are lost: 1.0 has no other place).
pub fn lift(state: &v03::SessionState, chat: &str) -> (Value, Value) {
    let old = serde_json::to_value(state).unwrap_or(Value::Null);
    let summary = old.get("summary").cloned().unwrap_or(Value::Null);

    let mut session = Map::new();
    copy(
        &mut session,
        &summary,
        // `origin`: an automation run's session (a member 0.3.0 keeps without knowing it).
        &[
            "provider", "title", "status", "activity", "project", "origin",
        ],
    );
    if let Some(dir) = summary.get("workingDirectory").filter(|d| d.is_string()) {
        session.insert("workingDirectories".into(), json!([dir]));
    }
    let lifecycle = match old.get("lifecycle").and_then(Value::as_str) {
        Some("creationFailed") => "failed".into(),
        _ => old.get("lifecycle").cloned().unwrap_or(Value::Null),
    };
    session.insert("lifecycle".into(), lifecycle);
    copy(
        &mut session,
        &old,
        &[
            "creationError",
            "serverTools",
            "config",
            "changesets",
            "_meta",
        ],
    );
    let clients = old.get("activeClient").filter(|c| c.is_object()).cloned();
    session.insert("activeClients".into(), clients.into_iter().collect());
    let title = summary.get("title").cloned().unwrap_or_else(|| "".into());
    let status = summary.get("status").cloned().unwrap_or_else(|| 0.into());
    let modified = iso(summary.get("modifiedAt"));
    session.insert(
        "chats".into(),
        json!([{ "resource": chat, "title": title, "status": status, "modifiedAt": modified }]),
    );
    session.insert("defaultChat".into(), chat.into());
    if let Some(mut list) = old.get("customizations").filter(|c| c.is_array()).cloned() {
        customizations(&mut list);
        session.insert("customizations".into(), list);
    }

    let mut out = Map::new();
    out.insert("resource".into(), chat.into());
    out.insert("title".into(), title);
    copy(&mut out, &summary, &["status", "activity", "changes"]);
    out.insert("modifiedAt".into(), iso(summary.get("modifiedAt")));
    let turns = old.get("turns").and_then(Value::as_array);
    out.insert(
        "turns".into(),
        turns.into_iter().flatten().map(turn).collect(),
    );
    if let Some(active) = old.get("activeTurn").filter(|t| t.is_object()) {
        let mut active = active.clone();
        active["startedAt"] = iso(summary.get("modifiedAt"));
        if let Some(parts) = active
            .get_mut("responseParts")
            .and_then(Value::as_array_mut)
        {
            parts.iter_mut().for_each(tool_call_part);
            for request in old
                .get("inputRequests")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                parts.push(json!({ "kind": "inputRequest", "request": request }));
            }
        }
        out.insert("activeTurn".into(), active);
    }
    // The chat's changesets are its session's (one working directory per session here).
    copy(
        &mut out,
        &old,
        &["steeringMessage", "queuedMessages", "changesets"],
    );
    let mut chat = Value::Object(out);
    super::content::edits_to_v1(&mut chat);
    (Value::Object(session), chat)
}

/// A 0.3.0 turn as 1.0 has it: its error as an error part.
fn turn(turn: &Value) -> Value {
    let mut out = turn.clone();
    let Some(object) = out.as_object_mut() else {
        return out;
    };
    let error = object.remove("error").filter(|e| !e.is_null());
    if let Some(parts) = object
        .get_mut("responseParts")
        .and_then(Value::as_array_mut)
    {
        parts.iter_mut().for_each(tool_call_part);
        if let Some(error) = error {
            parts.push(json!({ "kind": "error", "error": error }));
        }
    }
    out
}

/// A tool call part without 0.3.0's `edits` (1.0 has another shape for them).
fn tool_call_part(part: &mut Value) {
    if let Some(call) = part.get_mut("toolCall").and_then(Value::as_object_mut) {
        call.remove("edits");
    }
}

/// 0.3.0's `enabled` flag of plugins and MCP servers as 1.0's list of enablement sources (a
/// disabled one was disabled for this session; an enabled one needs no source).
fn customizations(list: &mut Value) {
    for item in list.as_array_mut().into_iter().flatten() {
        let Some(object) = item.as_object_mut() else {
            continue;
        };
        let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
        if matches!(kind, "plugin" | "mcpServer") {
            if let Some(enabled) = object.remove("enabled").and_then(|e| e.as_bool()) {
                if !enabled {
                    object.insert(
                        "enablement".into(),
                        json!([{ "kind": "session", "enabled": false }]),
                    );
                }
            }
        }
        if let Some(children) = object.get_mut("children") {
            customizations(children);
        }
    }
}

/// The 1.0 action that makes `action`'s change (a 0.3.0 action on the session's channel) to
/// `session` and its default chat `chat` at `now` (milliseconds since the epoch; 1.0 stamps
/// turns with their start and duration). `None` where 1.0 has no such change (the model or
/// agent of the session: 1.0 selects them per message).
pub fn to_v1(
    action: &Value,
    session: &v1::SessionState,
    chat: &v1::ChatState,
    now: i64,
) -> Option<(Target, Value)> {
    let name = action.get("type")?.as_str()?.strip_prefix("session/")?;
    let mut out = action.as_object()?.clone();
    let chat_action = |mut out: Map<String, Value>| {
        out.insert("type".into(), format!("chat/{name}").into());
        Some((Target::DefaultChat, Value::Object(out)))
    };
    match name {
        // 0.3.0 refines neither a call waiting for confirmation nor, after its start, a
        // call's `_meta`; 1.0 does both.
        "toolCallReady" if waits_for_confirmation(chat, action) => None,
        "toolCallDelta"
        | "toolCallReady"
        | "toolCallConfirmed"
        | "toolCallComplete"
        | "toolCallResultConfirmed"
        | "toolCallContentChanged" => {
            out.remove("_meta");
            super::content::edits_to_v1(out.get_mut("result").unwrap_or(&mut Value::Null));
            super::content::edits_to_v1(out.get_mut("content").unwrap_or(&mut Value::Null));
            if let Some(edits) = out.get("edits") {
                if !edits.get("items").is_some_and(Value::is_array) {
                    out.remove("edits");
                }
            }
            chat_action(out)
        }
        "delta"
        | "responsePart"
        | "toolCallStart"
        | "usage"
        | "reasoning"
        | "truncated"
        | "pendingMessageSet"
        | "pendingMessageRemoved"
        | "queuedMessagesReordered"
        | "inputRequested"
        | "inputAnswerChanged"
        | "inputCompleted"
        | "isReadChanged"
        | "isArchivedChanged"
        | "activityChanged" => chat_action(out),
        "turnStarted" => {
            out.insert("startedAt".into(), iso(Some(&Value::from(now as f64))));
            chat_action(out)
        }
        "turnComplete" | "turnCancelled" | "error" => {
            let started = chat
                .active_turn
                .as_ref()
                .and_then(|turn| unix_millis(&turn.started_at))
                .unwrap_or(now);
            out.insert("duration".into(), (now - started).max(0).into());
            if name == "error" {
                let error = out.remove("error").unwrap_or(Value::Null);
                out.insert("part".into(), json!({ "kind": "error", "error": error }));
            }
            chat_action(out)
        }
        "activeClientChanged" => {
            let first = session.active_clients.first();
            match out.get("activeClient").filter(|c| c.is_object()) {
                Some(client) => Some((
                    Target::Session,
                    json!({ "type": "session/activeClientSet", "activeClient": client }),
                )),
                None => Some((
                    Target::Session,
                    json!({ "type": "session/activeClientRemoved", "clientId": first?.client_id }),
                )),
            }
        }
        "activeClientToolsChanged" => {
            let mut client = serde_json::to_value(session.active_clients.first()?).ok()?;
            client["tools"] = out.get("tools")?.clone();
            Some((
                Target::Session,
                json!({ "type": "session/activeClientSet", "activeClient": client }),
            ))
        }
        "customizationToggled" => {
            let enabled = out.get("enabled")?.as_bool()?;
            Some((
                Target::Session,
                json!({
                    "type": "session/customizationToggled",
                    "id": out.get("id")?,
                    "enablement": [{ "kind": "session", "enabled": enabled }],
                }),
            ))
        }
        "customizationsChanged" | "customizationUpdated" => {
            for key in ["customizations", "customization"] {
                if let Some(value) = out.get_mut(key) {
                    if value.is_object() {
                        let mut list = Value::Array(vec![value.take()]);
                        customizations(&mut list);
                        *value = list[0].take();
                    } else {
                        customizations(value);
                    }
                }
            }
            Some((Target::Session, Value::Object(out)))
        }
        "modelChanged" | "agentChanged" => None,
        _ => Some((Target::Session, Value::Object(out))),
    }
}

/// Whether `action`'s tool call (in the chat's active turn) waits for confirmation.
fn waits_for_confirmation(chat: &v1::ChatState, action: &Value) -> bool {
    let Some(turn) = chat.active_turn.as_ref() else {
        return false;
    };
    let id = action.get("toolCallId").and_then(Value::as_str);
    action.get("turnId").and_then(Value::as_str) == Some(turn.id.as_str())
        && turn.response_parts.iter().any(|part| match part {
            v1::ResponsePart::ToolCall(part) => matches!(
                &part.tool_call,
                v1::ToolCallState::PendingConfirmation(call) if Some(call.tool_call_id.as_str()) == id
            ),
            _ => false,
        })
}
