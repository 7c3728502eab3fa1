//! The TypeScript `sessionReducer` (0.3.0) over plain JSON; see the parent module.
//!
//! What sets it apart from the official Rust reducers, as read from its source:
//! - tool-call actions update every tool call with the id (`updateToolCallInParts` maps over
//!   all parts), and `toolCallReady`, `toolCallConfirmed`, `toolCallComplete` and
//!   `toolCallResultConfirmed` recompute `summary.status` even when nothing matched;
//! - ids are read from the raw objects: a tool call of an unknown status answers to its own
//!   `toolCallId`, any part with an `id` member takes a delta's or reasoning's lookup, and
//!   customizations of unknown types match by `id` (absent matching absent);
//! - ending a turn cancels a tool call of an unknown status too, from its raw fields;
//! - `queuedMessagesReordered` keeps unnamed messages in their original order;
//! - an empty `queuedMessageId` or `selectedOptionId` is falsy: it names nothing.

use super::{
    append, array_mut, config_changed, find_index, get, put, same, truthy_str, upsert_by_id, Object,
};
use serde_json::{json, Value};

const IDLE: u64 = 1;
const ERROR: u64 = 1 << 1;
const IN_PROGRESS: u64 = 1 << 3;
const INPUT_NEEDED: u64 = (1 << 3) | (1 << 4);
const IS_READ: u64 = 1 << 5;
const IS_ARCHIVED: u64 = 1 << 6;
const ACTIVITY_MASK: u64 = 0b1_1111;

/// `sessionReducer(state, action)` with `Date.now()` reading `now`.
pub fn session(state: &mut Value, action: &Value, now: f64) {
    let ty = get(action, "type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let ty = ty.strip_prefix("session/").unwrap_or("");
    match ty {
        "ready" => put(state, "lifecycle", Some(json!("ready"))),
        "creationFailed" => {
            put(state, "lifecycle", Some(json!("creationFailed")));
            put(state, "creationError", get(action, "error").cloned());
        }
        "turnStarted" => turn_started(state, action, now),
        "delta" => text(state, action, "markdown"),
        "reasoning" => text(state, action, "reasoning"),
        "responsePart" => {
            if let Some(turn) = active_turn(state, action) {
                let part = get(action, "part").cloned().unwrap_or(Value::Null);
                array_mut(turn, "responseParts").push(part);
            }
        }
        "turnComplete" => end_turn(state, action, "complete", None, now),
        "turnCancelled" => end_turn(state, action, "cancelled", None, now),
        "error" => end_turn(state, action, "error", Some(ERROR), now),
        "toolCallStart" => {
            if let Some(turn) = active_turn(state, action) {
                // The action carries the same members as a tool call's base.
                let call = base(action, "streaming");
                array_mut(turn, "responseParts")
                    .push(json!({"kind": "toolCall", "toolCall": call}));
            }
        }
        "toolCallDelta" => update_tool_calls(state, action, |tc| {
            (status(tc) == "streaming").then(|| {
                let mut next = tc.clone();
                append(
                    &mut next,
                    "partialInput",
                    get(action, "content").and_then(Value::as_str).unwrap_or(""),
                );
                if let Some(message) = get(action, "invocationMessage") {
                    put(&mut next, "invocationMessage", Some(message.clone()));
                }
                next
            })
        }),
        "toolCallReady" | "toolCallConfirmed" | "toolCallComplete" | "toolCallResultConfirmed" => {
            // The transitions that can change what the session waits for.
            let step: fn(&Value, &Value) -> Option<Value> = match ty {
                "toolCallReady" => ready,
                "toolCallConfirmed" => confirmed,
                "toolCallComplete" => complete,
                _ => result_confirmed,
            };
            update_tool_calls(state, action, |tc| step(tc, action));
            refresh_status(state);
        }
        "toolCallContentChanged" => update_tool_calls(state, action, |tc| {
            (status(tc) == "running").then(|| {
                let mut next = tc.clone();
                put(&mut next, "content", get(action, "content").cloned());
                next
            })
        }),
        "titleChanged" => {
            let summary = summary_mut(state);
            put(summary, "title", get(action, "title").cloned());
            put(summary, "modifiedAt", Some(json!(now)));
        }
        "usage" => {
            if let Some(turn) = active_turn(state, action) {
                put(turn, "usage", get(action, "usage").cloned());
            }
        }
        "modelChanged" | "agentChanged" => {
            let key = if ty == "modelChanged" {
                "model"
            } else {
                "agent"
            };
            let summary = summary_mut(state);
            put(summary, key, get(action, key).cloned());
            put(summary, "modifiedAt", Some(json!(now)));
        }
        "isReadChanged" => set_flag(state, IS_READ, get(action, "isRead") == Some(&json!(true))),
        "isArchivedChanged" => set_flag(
            state,
            IS_ARCHIVED,
            get(action, "isArchived") == Some(&json!(true)),
        ),
        "activityChanged" => put(
            summary_mut(state),
            "activity",
            get(action, "activity").cloned(),
        ),
        "changesetsChanged" => put(state, "changesets", get(action, "changesets").cloned()),
        "configChanged" if config_changed(state, action) => {
            put(summary_mut(state), "modifiedAt", Some(json!(now)));
        }
        "metaChanged" => put(state, "_meta", get(action, "_meta").cloned()),
        "serverToolsChanged" => put(state, "serverTools", get(action, "tools").cloned()),
        "activeClientChanged" => put(state, "activeClient", get(action, "activeClient").cloned()),
        "activeClientToolsChanged" => {
            if let Some(client) = state.get_mut("activeClient").filter(|c| !c.is_null()) {
                put(client, "tools", get(action, "tools").cloned());
            }
        }
        "customizationsChanged" => put(
            state,
            "customizations",
            get(action, "customizations").cloned(),
        ),
        "customizationToggled" => {
            let id = get(action, "id").cloned();
            if let Some(i) =
                find_index(state, "customizations", |c| same(get(c, "id"), id.as_ref()))
            {
                let entry = &mut array_mut(state, "customizations")[i];
                put(entry, "enabled", get(action, "enabled").cloned());
            }
        }
        "customizationUpdated" => {
            let entry = get(action, "customization").cloned().unwrap_or(Value::Null);
            upsert_by_id(array_mut(state, "customizations"), entry);
        }
        "customizationRemoved" => customization_removed(state, action),
        "mcpServerStateChanged" => mcp_server_state_changed(state, action),
        "truncated" => truncated(state, action, now),
        "inputRequested" => input_requested(state, action, now),
        "inputAnswerChanged" => input_answer_changed(state, action, now),
        "inputCompleted" => input_completed(state, action, now),
        "pendingMessageSet" => pending_message_set(state, action),
        "pendingMessageRemoved" => pending_message_removed(state, action),
        "queuedMessagesReordered" => reordered(state, action),
        _ => {}
    }
}

fn status(tool_call: &Value) -> &str {
    get(tool_call, "status")
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn summary_mut(state: &mut Value) -> &mut Value {
    if !state.get("summary").is_some_and(Value::is_object) {
        put(state, "summary", Some(Value::Object(Object::new())));
    }
    state.get_mut("summary").expect("summary was just made")
}

fn status_bits(state: &Value) -> u64 {
    get(state, "summary")
        .and_then(|s| get(s, "status"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0) as u64
}

fn set_status(state: &mut Value, bits: u64) {
    put(summary_mut(state), "status", Some(json!(bits)));
}

fn set_flag(state: &mut Value, flag: u64, on: bool) {
    let bits = status_bits(state);
    set_status(state, if on { bits | flag } else { bits & !flag });
}

/// `summaryStatus(state, terminalStatus)`: the activity from scratch, flags kept.
fn summary_status(state: &Value, terminal: Option<u64>) -> u64 {
    let input_open = get(state, "inputRequests")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty());
    let turn = get(state, "activeTurn");
    let tool_waits = turn
        .and_then(|t| get(t, "responseParts"))
        .and_then(Value::as_array)
        .is_some_and(|parts| {
            parts.iter().any(|p| {
                get(p, "kind").and_then(Value::as_str) == Some("toolCall")
                    && get(p, "toolCall").is_some_and(|tc| {
                        matches!(
                            status(tc),
                            "pending-confirmation" | "pending-result-confirmation"
                        )
                    })
            })
        });
    let activity = match terminal {
        Some(t) => t,
        None if input_open || tool_waits => INPUT_NEEDED,
        None if turn.is_some() => IN_PROGRESS,
        None => IDLE,
    };
    (status_bits(state) & !ACTIVITY_MASK) | activity
}

fn refresh_status(state: &mut Value) {
    let bits = summary_status(state, None);
    set_status(state, bits);
}

/// The active turn, if the action's `turnId` names it.
fn active_turn<'a>(state: &'a mut Value, action: &Value) -> Option<&'a mut Value> {
    let turn_id = get(action, "turnId");
    state
        .get_mut("activeTurn")
        .filter(|t| !t.is_null() && same(get(t, "id"), turn_id))
}

fn turn_started(state: &mut Value, action: &Value, now: f64) {
    let mut turn = json!({"responseParts": []});
    put(&mut turn, "id", get(action, "turnId").cloned());
    put(&mut turn, "message", get(action, "message").cloned());
    put(state, "activeTurn", Some(turn));
    let bits = summary_status(state, None) & !IS_READ;
    set_status(state, bits);
    put(summary_mut(state), "modifiedAt", Some(json!(now)));
    if let Some(id) = truthy_str(action, "queuedMessageId") {
        let id = json!(id);
        if get(state, "steeringMessage").is_some_and(|m| get(m, "id") == Some(&id)) {
            put(state, "steeringMessage", None);
        }
        if get(state, "queuedMessages").is_some() {
            let queue = array_mut(state, "queuedMessages");
            queue.retain(|m| get(m, "id") != Some(&id));
            if queue.is_empty() {
                put(state, "queuedMessages", None);
            }
        }
    }
}

/// `session/delta` and `session/reasoning` (`updateResponsePart`): the first part whose id is
/// `partId` (a tool call's raw `toolCallId`, else any part's `id` member) takes the text if it
/// is of `kind`.
fn text(state: &mut Value, action: &Value, kind: &str) {
    let part_id = get(action, "partId");
    let content = get(action, "content").and_then(Value::as_str).unwrap_or("");
    let Some(turn) = active_turn(state, action) else {
        return;
    };
    let parts = array_mut(turn, "responseParts");
    let hit = parts.iter_mut().find(|part| {
        let id = if get(part, "kind").and_then(Value::as_str) == Some("toolCall") {
            get(part, "toolCall").and_then(|tc| get(tc, "toolCallId"))
        } else {
            get(part, "id")
        };
        part_id.is_some() && same(id, part_id)
    });
    if let Some(part) = hit {
        if get(part, "kind").and_then(Value::as_str) == Some(kind) {
            append(part, "content", content);
        }
    }
}

/// `updateToolCallInParts`: `update` on every tool call of the active turn with the action's
/// `toolCallId`; `None` leaves a call as it is.
fn update_tool_calls(state: &mut Value, action: &Value, update: impl Fn(&Value) -> Option<Value>) {
    let id = get(action, "toolCallId");
    let Some(turn) = active_turn(state, action) else {
        return;
    };
    for part in array_mut(turn, "responseParts") {
        if get(part, "kind").and_then(Value::as_str) != Some("toolCall") {
            continue;
        }
        let Some(tc) = part.get_mut("toolCall") else {
            continue;
        };
        if id.is_some() && same(get(tc, "toolCallId"), id) {
            if let Some(next) = update(tc) {
                *tc = next;
            }
        }
    }
}

/// `tcBase(tc)` plus `status`.
fn base(tc: &Value, status: &str) -> Value {
    let mut next = json!({"status": status});
    for key in [
        "toolCallId",
        "toolName",
        "displayName",
        "contributor",
        "_meta",
    ] {
        put(&mut next, key, get(tc, key).cloned());
    }
    next
}

fn copy(to: &mut Value, from: &Value, keys: &[&str]) {
    for key in keys {
        put(to, key, get(from, key).cloned());
    }
}

fn ready(tc: &Value, action: &Value) -> Option<Value> {
    if !matches!(status(tc), "streaming" | "running") {
        return None;
    }
    let confirmed = truthy_str(action, "confirmed");
    let mut next = base(
        tc,
        if confirmed.is_some() {
            "running"
        } else {
            "pending-confirmation"
        },
    );
    copy(&mut next, action, &["invocationMessage", "toolInput"]);
    if confirmed.is_some() {
        copy(&mut next, action, &["confirmed"]);
    } else {
        copy(
            &mut next,
            action,
            &["confirmationTitle", "edits", "editable", "options"],
        );
    }
    Some(next)
}

/// `resolveSelectedOption(tc.options, action.selectedOptionId)`.
fn selected_option(tc: &Value, action: &Value) -> Option<Value> {
    let id = truthy_str(action, "selectedOptionId")?;
    get(tc, "options")?
        .as_array()?
        .iter()
        .find(|o| get(o, "id").and_then(Value::as_str) == Some(id))
        .cloned()
}

fn confirmed(tc: &Value, action: &Value) -> Option<Value> {
    if status(tc) != "pending-confirmation" {
        return None;
    }
    let selected = selected_option(tc, action);
    let approved = get(action, "approved") == Some(&json!(true));
    let mut next = base(tc, if approved { "running" } else { "cancelled" });
    copy(&mut next, tc, &["invocationMessage", "toolInput"]);
    if approved {
        if let Some(edited) = get(action, "editedToolInput") {
            put(&mut next, "toolInput", Some(edited.clone()));
        }
        copy(&mut next, action, &["confirmed"]);
    } else {
        copy(
            &mut next,
            action,
            &["reason", "reasonMessage", "userSuggestion"],
        );
    }
    put(&mut next, "selectedOption", selected);
    Some(next)
}

fn complete(tc: &Value, action: &Value) -> Option<Value> {
    let running = match status(tc) {
        "running" => true,
        "pending-confirmation" => false,
        _ => return None,
    };
    let review = get(action, "requiresResultConfirmation") == Some(&json!(true));
    let mut next = base(
        tc,
        if review {
            "pending-result-confirmation"
        } else {
            "completed"
        },
    );
    copy(&mut next, tc, &["invocationMessage", "toolInput"]);
    if running {
        copy(&mut next, tc, &["confirmed", "selectedOption"]);
    } else {
        put(&mut next, "confirmed", Some(json!("not-needed")));
    }
    // `...action.result`: every member of the result, unknown ones too.
    if let (Value::Object(next), Some(Value::Object(result))) = (&mut next, get(action, "result")) {
        for (key, value) in result {
            if !value.is_null() {
                next.insert(key.clone(), value.clone());
            }
        }
    }
    Some(next)
}

fn result_confirmed(tc: &Value, action: &Value) -> Option<Value> {
    if status(tc) != "pending-result-confirmation" {
        return None;
    }
    let approved = get(action, "approved") == Some(&json!(true));
    let mut next = base(tc, if approved { "completed" } else { "cancelled" });
    copy(
        &mut next,
        tc,
        &["invocationMessage", "toolInput", "selectedOption"],
    );
    if approved {
        copy(
            &mut next,
            tc,
            &[
                "confirmed",
                "success",
                "pastTenseMessage",
                "content",
                "structuredContent",
                "error",
            ],
        );
    } else {
        put(&mut next, "reason", Some(json!("result-denied")));
    }
    Some(next)
}

fn end_turn(state: &mut Value, action: &Value, turn_state: &str, terminal: Option<u64>, now: f64) {
    let Some(active) = active_turn(state, action).map(|t| t.take()) else {
        return;
    };
    let parts: Vec<Value> = get(&active, "responseParts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|part| {
            if get(&part, "kind").and_then(Value::as_str) != Some("toolCall") {
                return part;
            }
            let tc = get(&part, "toolCall").cloned().unwrap_or(Value::Null);
            if matches!(status(&tc), "completed" | "cancelled") {
                return part;
            }
            let streaming = status(&tc) == "streaming";
            let mut call = base(&tc, "cancelled");
            let message = get(&tc, "invocationMessage").cloned();
            put(
                &mut call,
                "invocationMessage",
                if streaming {
                    message.or(Some(json!("")))
                } else {
                    message
                },
            );
            if !streaming {
                copy(&mut call, &tc, &["toolInput"]);
            }
            put(&mut call, "reason", Some(json!("skipped")));
            json!({"kind": "toolCall", "toolCall": call})
        })
        .collect();
    let mut turn = json!({"responseParts": parts, "state": turn_state});
    copy(&mut turn, &active, &["id", "message", "usage"]);
    if terminal.is_some() {
        copy(&mut turn, action, &["error"]);
    }
    array_mut(state, "turns").push(turn);
    put(state, "activeTurn", None);
    put(state, "inputRequests", None);
    put(summary_mut(state), "modifiedAt", Some(json!(now)));
    let bits = summary_status(state, terminal);
    set_status(state, bits);
}

fn truncated(state: &mut Value, action: &Value, now: f64) {
    let keep = match get(action, "turnId") {
        None => 0,
        Some(id) => match find_index(state, "turns", |t| get(t, "id") == Some(id)) {
            Some(i) => i + 1,
            None => return,
        },
    };
    array_mut(state, "turns").truncate(keep);
    put(state, "activeTurn", None);
    put(state, "inputRequests", None);
    put(summary_mut(state), "modifiedAt", Some(json!(now)));
    refresh_status(state);
}

fn customization_removed(state: &mut Value, action: &Value) {
    let Some(id) = get(action, "id").cloned() else {
        return;
    };
    if get(state, "customizations").is_none() {
        return;
    }
    let list = array_mut(state, "customizations");
    if let Some(i) = list.iter().position(|c| get(c, "id") == Some(&id)) {
        list.remove(i);
        return;
    }
    // The first child with the id, in every container (any type but an MCP server).
    for container in list.iter_mut() {
        if get(container, "type").and_then(Value::as_str) == Some("mcpServer") {
            continue;
        }
        if let Some(Value::Array(children)) = container.get_mut("children") {
            if let Some(i) = children.iter().position(|c| get(c, "id") == Some(&id)) {
                children.remove(i);
            }
        }
    }
}

fn mcp_server_state_changed(state: &mut Value, action: &Value) {
    let Some(id) = get(action, "id").cloned() else {
        return;
    };
    if get(state, "customizations").is_none() {
        return;
    }
    let update = |server: &mut Value| {
        put(server, "state", get(action, "state").cloned());
        put(server, "channel", get(action, "channel").cloned());
    };
    let is_server = |c: &Value| get(c, "type").and_then(Value::as_str) == Some("mcpServer");
    let list = array_mut(state, "customizations");
    if let Some(i) = list.iter().position(|c| get(c, "id") == Some(&id)) {
        if is_server(&list[i]) {
            update(&mut list[i]);
        }
        return;
    }
    for container in list.iter_mut() {
        if is_server(container) {
            continue;
        }
        if let Some(Value::Array(children)) = container.get_mut("children") {
            if let Some(child) = children.iter_mut().find(|c| get(c, "id") == Some(&id)) {
                if is_server(child) {
                    update(child);
                }
            }
        }
    }
}

fn input_requested(state: &mut Value, action: &Value, now: f64) {
    let request = get(action, "request").cloned().unwrap_or(Value::Null);
    let id = get(&request, "id").cloned();
    let requests = array_mut(state, "inputRequests");
    match requests
        .iter()
        .position(|r| same(get(r, "id"), id.as_ref()))
    {
        Some(i) => {
            let mut next = request.clone();
            if get(&request, "answers").is_none() {
                put(&mut next, "answers", get(&requests[i], "answers").cloned());
            }
            requests[i] = next;
        }
        None => requests.push(request),
    }
    let bits = summary_status(state, None) & !IS_READ;
    set_status(state, bits);
    put(summary_mut(state), "modifiedAt", Some(json!(now)));
}

fn input_answer_changed(state: &mut Value, action: &Value, now: f64) {
    let id = get(action, "requestId").cloned();
    let Some(i) = find_index(state, "inputRequests", |r| same(get(r, "id"), id.as_ref())) else {
        return;
    };
    let request = &mut array_mut(state, "inputRequests")[i];
    let mut answers = get(request, "answers")
        .cloned()
        .unwrap_or(Value::Object(Object::new()));
    let question = get(action, "questionId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if let Value::Object(map) = &mut answers {
        match get(action, "answer") {
            Some(answer) => {
                map.insert(question, answer.clone());
            }
            None => {
                map.remove(&question);
            }
        }
    }
    let empty = answers.as_object().is_some_and(Object::is_empty);
    put(request, "answers", (!empty).then_some(answers));
    put(summary_mut(state), "modifiedAt", Some(json!(now)));
}

fn input_completed(state: &mut Value, action: &Value, now: f64) {
    let id = get(action, "requestId").cloned();
    if find_index(state, "inputRequests", |r| same(get(r, "id"), id.as_ref())).is_none() {
        return;
    }
    let requests = array_mut(state, "inputRequests");
    requests.retain(|r| !same(get(r, "id"), id.as_ref()));
    if requests.is_empty() {
        put(state, "inputRequests", None);
    }
    refresh_status(state);
    put(summary_mut(state), "modifiedAt", Some(json!(now)));
}

/// `pendingMessageSet`: any kind but `steering` goes to the queue.
fn pending_message_set(state: &mut Value, action: &Value) {
    let mut entry = json!({});
    copy(&mut entry, action, &["id", "message"]);
    if get(action, "kind").and_then(Value::as_str) == Some("steering") {
        put(state, "steeringMessage", Some(entry));
        return;
    }
    let id = get(action, "id").cloned();
    let queue = array_mut(state, "queuedMessages");
    match queue.iter().position(|m| same(get(m, "id"), id.as_ref())) {
        Some(i) => queue[i] = entry,
        None => queue.push(entry),
    }
}

fn pending_message_removed(state: &mut Value, action: &Value) {
    let id = get(action, "id").cloned();
    if get(action, "kind").and_then(Value::as_str) == Some("steering") {
        if get(state, "steeringMessage").is_some_and(|m| same(get(m, "id"), id.as_ref())) {
            put(state, "steeringMessage", None);
        }
        return;
    }
    if get(state, "queuedMessages").is_none() {
        return;
    }
    let queue = array_mut(state, "queuedMessages");
    let before = queue.len();
    queue.retain(|m| !same(get(m, "id"), id.as_ref()));
    if queue.len() != before && queue.is_empty() {
        put(state, "queuedMessages", None);
    }
}

/// `queuedMessagesReordered`: each id of `order` that is queued, once, as the LAST queued
/// message with that id (a `Map` built from the queue keeps the last); then every message
/// whose id `order` did not name, in the original order.
fn reordered(state: &mut Value, action: &Value) {
    let Some(queue) = get(state, "queuedMessages")
        .and_then(Value::as_array)
        .cloned()
    else {
        return;
    };
    let mut named: Vec<Value> = Vec::new();
    let mut out = Vec::new();
    for id in get(action, "order")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if named.contains(id) {
            continue;
        }
        if let Some(last) = queue.iter().rev().find(|m| get(m, "id") == Some(id)) {
            named.push(id.clone());
            out.push(last.clone());
        }
    }
    out.extend(
        queue
            .iter()
            .filter(|m| !get(m, "id").is_some_and(|id| named.contains(id)))
            .cloned(),
    );
    put(state, "queuedMessages", Some(Value::Array(out)));
}
