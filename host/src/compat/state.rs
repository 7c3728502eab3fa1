//! The 0.3.0 session state of a 1.0 session and its default chat (a snapshot's view).

use super::millis;
use ahp_wasm::protocol::v1;
use serde_json::{json, Map, Value};

/// The 0.3.0 `SessionState` a 0.3.0 client sees of `session` (the 1.0 session state of the
/// channel `resource`, created at `created_at`, RFC 3339) with its default chat `chat` (absent
/// while the session has none: no turns then).
pub fn session_state(
    resource: &str,
    created_at: &str,
    session: &v1::SessionState,
    chat: Option<&v1::ChatState>,
) -> Value {
    let mut state = session_members(resource, created_at, session, chat);
    if let Some(chat) = chat {
        conversation_into(&mut state, chat, true);
    }
    state
}

/// [`session_state`] without the conversation (no turns, active turn, input requests,
/// steering or queued messages): the session's members and summary. Of the chat, only the
/// members the summary reads are converted.
pub fn session_members(
    resource: &str,
    created_at: &str,
    session: &v1::SessionState,
    chat: Option<&v1::ChatState>,
) -> Value {
    let session = to_json(session);
    let summary = summary_of(
        resource,
        created_at,
        &session,
        chat.map(chat_summary).as_ref(),
    );
    let mut state = Map::new();
    state.insert("summary".into(), summary);
    copy(
        &mut state,
        &session,
        &[
            "creationError",
            "serverTools",
            "config",
            "changesets",
            "_meta",
        ],
    );
    // 1.0 renamed the failed lifecycle.
    let lifecycle = match session.get("lifecycle").and_then(Value::as_str) {
        Some("failed") => "creationFailed".into(),
        _ => session.get("lifecycle").cloned().unwrap_or(Value::Null),
    };
    state.insert("lifecycle".into(), lifecycle);
    if let Some(mut list) = session
        .get("customizations")
        .filter(|c| c.is_array())
        .cloned()
    {
        customizations(&mut list);
        state.insert("customizations".into(), list);
    }
    if let Some(first) = session.get("activeClients").and_then(|c| c.get(0)) {
        let mut client = first.clone();
        active_client(&mut client);
        state.insert("activeClient".into(), client);
    }
    state.insert("turns".into(), Value::Array(Vec::new()));
    Value::Object(state)
}

/// Adds the conversation of `chat` to a [`session_members`] view `state`: its completed turns
/// (unless `completed_turns` is false: they stay empty), its active turn with the input
/// requests still open in it, and its steering and queued messages.
pub fn conversation_into(state: &mut Value, chat: &v1::ChatState, completed_turns: bool) {
    let Some(state) = state.as_object_mut() else {
        return;
    };
    if completed_turns {
        let turns = chat.turns.iter().map(|t| turn(&to_json(&**t))).collect();
        state.insert("turns".into(), Value::Array(turns));
    }
    if let Some(active) = chat.active_turn.as_ref().map(to_json) {
        state.insert("activeTurn".into(), active_turn(&active));
        let requests = open_input_requests(&active);
        if !requests.is_empty() {
            state.insert("inputRequests".into(), Value::Array(requests));
        }
    }
    let messages = json!({
        "steeringMessage": to_json(&chat.steering_message),
        "queuedMessages": to_json(&chat.queued_messages),
    });
    copy(state, &messages, &["steeringMessage", "queuedMessages"]);
}

/// The 0.3.0 `SessionSummary` of the same view ([`session_state`]'s `summary`), without
/// building the rest of it: of the chat, only the members the summary reads are converted
/// (not its turns).
pub fn session_summary(
    resource: &str,
    created_at: &str,
    session: &v1::SessionState,
    chat: Option<&v1::ChatState>,
) -> Value {
    let chat = chat.map(chat_summary);
    summary_of(resource, created_at, &to_json(session), chat.as_ref())
}

/// The members of a chat that the summary of the view reads.
fn chat_summary(chat: &v1::ChatState) -> Value {
    json!({
        "status": chat.status,
        "activity": chat.activity,
        "modifiedAt": chat.modified_at,
        "changes": to_json(&chat.changes),
    })
}

/// The summary of the view of `session` with its default chat `chat` (both as JSON; of the
/// chat it reads `status`, `activity`, `modifiedAt` and `changes`).
fn summary_of(resource: &str, created_at: &str, session: &Value, chat: Option<&Value>) -> Value {
    // The conversation's own status and activity are the chat's; the session's without one.
    let conversation = chat.unwrap_or(session);
    let empty = json!({});
    let chat = chat.unwrap_or(&empty);
    let of_chat = |key: &str| conversation.get(key).filter(|v| !v.is_null()).cloned();
    let mut summary = Map::new();
    summary.insert("resource".into(), resource.into());
    // `origin`: an automation run's session (a member 0.3.0 keeps without knowing it).
    copy(
        &mut summary,
        session,
        &["provider", "title", "project", "origin"],
    );
    summary.insert("status".into(), of_chat("status").unwrap_or(Value::from(0)));
    if let Some(activity) = of_chat("activity") {
        summary.insert("activity".into(), activity);
    }
    summary.insert("createdAt".into(), millis(Some(&Value::from(created_at))));
    let modified = chat.get("modifiedAt").cloned().unwrap_or(created_at.into());
    summary.insert("modifiedAt".into(), millis(Some(&modified)));
    if let Some(first) = session
        .get("workingDirectories")
        .and_then(|dirs| dirs.get(0))
    {
        summary.insert("workingDirectory".into(), first.clone());
    }
    copy(&mut summary, chat, &["changes"]);
    Value::Object(summary)
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    // The wire types always serialize (no maps with non-string keys, no failing impls).
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn copy(to: &mut Map<String, Value>, from: &Value, keys: &[&str]) {
    for key in keys {
        if let Some(value) = from.get(*key).filter(|v| !v.is_null()) {
            to.insert((*key).into(), value.clone());
        }
    }
}

/// A completed 1.0 turn as 0.3.0 has it: no times, the error part of a failed turn as `error`.
pub fn turn(turn: &Value) -> Value {
    let mut out = Map::new();
    let mut turn = turn.clone();
    super::content::edits_to_v03(&mut turn);
    let turn = &turn;
    copy(&mut out, turn, &["id", "message", "usage", "state"]);
    let parts = turn.get("responseParts").and_then(Value::as_array);
    let (parts, error) = response_parts(parts.map_or(&[][..], Vec::as_slice));
    out.insert("responseParts".into(), Value::Array(parts));
    // A resumed turn keeps the error part of its failed try, whatever it ended with.
    let failed = turn.get("state").and_then(Value::as_str) == Some("error");
    if let Some(error) = error.filter(|_| failed) {
        out.insert("error".into(), error);
    }
    Value::Object(out)
}

/// The active turn as 0.3.0 has it: no start time, no input-request or error parts.
fn active_turn(turn: &Value) -> Value {
    let mut out = Map::new();
    let mut turn = turn.clone();
    super::content::edits_to_v03(&mut turn);
    let turn = &turn;
    copy(&mut out, turn, &["id", "message", "usage"]);
    let parts = turn.get("responseParts").and_then(Value::as_array);
    let (parts, _) = response_parts(parts.map_or(&[][..], Vec::as_slice));
    out.insert("responseParts".into(), Value::Array(parts));
    Value::Object(out)
}

/// The parts 0.3.0 knows, and the error of the last error part (0.3.0's `Turn.error`).
fn response_parts(parts: &[Value]) -> (Vec<Value>, Option<Value>) {
    let mut error = None;
    let mut shown = Vec::with_capacity(parts.len());
    for part in parts {
        match part.get("kind").and_then(Value::as_str) {
            Some("inputRequest") => {}
            Some("error") => error = part.get("error").cloned(),
            _ => shown.push(response_part(part)),
        }
    }
    (shown, error)
}

/// One response part: a tool call's state without what only 1.0 has.
pub(super) fn response_part(part: &Value) -> Value {
    let mut part = part.clone();
    if let Some(call) = part.get_mut("toolCall") {
        tool_call_fields(call);
    }
    part
}

/// Removes a tool call's (or tool call action's) members that 0.3.0 has not, or has in
/// another shape: `intention`, `riskAssessment`, 1.0's `edits` collection, a `toolInput` held
/// by reference.
pub(super) fn tool_call_fields(call: &mut Value) {
    let Some(call) = call.as_object_mut() else {
        return;
    };
    call.remove("intention");
    call.remove("riskAssessment");
    call.remove("edits");
    if call
        .get("toolInput")
        .is_some_and(|input| !input.is_string())
    {
        call.remove("toolInput");
    }
}

/// The requests of the active turn's input-request parts still waiting for a response.
fn open_input_requests(turn: &Value) -> Vec<Value> {
    let parts = turn.get("responseParts").and_then(Value::as_array);
    parts
        .into_iter()
        .flatten()
        .filter(|part| part.get("kind").and_then(Value::as_str) == Some("inputRequest"))
        .filter(|part| part.get("response").is_none_or(Value::is_null))
        .filter_map(|part| part.get("request").cloned())
        .collect()
}

/// A 1.0 active client as 0.3.0 has it: its published customizations in 0.3.0's shape.
pub(super) fn active_client(client: &mut Value) {
    if let Some(list) = client.get_mut("customizations") {
        customizations(list);
    }
}

/// A list of 1.0 customizations as 0.3.0 has them ([`customization`] on each).
pub(super) fn customizations(list: &mut Value) {
    if let Some(items) = list.as_array_mut() {
        items.iter_mut().for_each(customization);
    }
}

/// A 1.0 customization (and its children) as 0.3.0 has it: an `enabled` flag where 1.0 may
/// list the sources of its enablement instead.
pub(super) fn customization(item: &mut Value) {
    let Some(object) = item.as_object_mut() else {
        return;
    };
    if let Some(sources) = object.remove("enablement") {
        object.insert("enabled".into(), enabled(Some(&sources)).into());
    }
    object.entry("enabled").or_insert(true.into());
    if let Some(children) = object.get_mut("children").and_then(Value::as_array_mut) {
        for child in children {
            match child.get("type").and_then(Value::as_str) {
                Some("mcpServer") => customization(child),
                // 0.3.0's agents, skills, prompts, rules and hooks cannot be switched off.
                _ => drop(child.as_object_mut().and_then(|c| c.remove("enabled"))),
            }
        }
    }
}

/// Whether a 1.0 enablement list enables: the first source decides, none means enabled
/// (as the 1.0 reducer sets the flag of the kinds that have one).
pub(super) fn enabled(sources: Option<&Value>) -> bool {
    match sources.and_then(Value::as_array).and_then(|s| s.first()) {
        None => true,
        Some(first) => first
            .get("enabled")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}
