//! A model of the official TypeScript reducers (`@microsoft/agent-host-protocol`, tag
//! `typescript/v0.3.0`: `types/channels-*/reducer.ts` in microsoft/agent-host-protocol), written
//! here over plain JSON from what their published source does, as the test oracle for the cases
//! where the official Rust reducers (`ahp` 0.3.0) do something else, and for the changeset and
//! resource-watch channels, which the Rust crate has no reducer for. It is our own rendition,
//! not their code: [`ts_model_passes_the_fixtures`](super) checks it against the 163 official
//! conformance fixtures (which the TypeScript reducers produce), and the differential tests
//! check it against the Rust reducers wherever the two official implementations agree.
//!
//! Modelling choices: `null` and an absent member are the same (the project's wire rule; the
//! generators emit no `null`), and a JavaScript "truthy" test on a string is "present and not
//! empty".

pub mod session;

use serde_json::{Map, Value};

/// A JSON object.
pub type Object = Map<String, Value>;

/// `value[key]`, with `null` read as absent.
pub fn get<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get(key).filter(|v| !v.is_null())
}

/// Sets `object[key]`, or removes it for `None` (JavaScript's `{ ...x, key: undefined }`).
pub fn put(object: &mut Value, key: &str, value: Option<Value>) {
    if let Value::Object(map) = object {
        match value {
            Some(v) if !v.is_null() => {
                map.insert(key.to_owned(), v);
            }
            _ => {
                map.remove(key);
            }
        }
    }
}

/// A string member that is present and not empty (JavaScript truthiness of a string).
pub fn truthy_str<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    get(value, key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// `a === b` for two possibly absent members (absent equals absent).
pub fn same(a: Option<&Value>, b: Option<&Value>) -> bool {
    a == b
}

/// `Array.prototype.findIndex` over `value[key]` (absent or not an array: `None`).
pub fn find_index(value: &Value, key: &str, pred: impl FnMut(&Value) -> bool) -> Option<usize> {
    get(value, key)?.as_array()?.iter().position(pred)
}

// ─── Root ─────────────────────────────────────────────────────────────

/// `rootReducer`.
pub fn root(state: &mut Value, action: &Value) {
    match get(action, "type").and_then(Value::as_str).unwrap_or("") {
        "root/agentsChanged" => put(state, "agents", get(action, "agents").cloned()),
        "root/activeSessionsChanged" => put(
            state,
            "activeSessions",
            get(action, "activeSessions").cloned(),
        ),
        "root/terminalsChanged" => put(state, "terminals", get(action, "terminals").cloned()),
        "root/configChanged" => {
            config_changed(state, action);
        }
        _ => {}
    }
}

/// `configChanged` of root and session: merges (or with `replace` replaces) `config.values`;
/// without a `config` it changes nothing. Returns whether it applied.
pub fn config_changed(state: &mut Value, action: &Value) -> bool {
    let Some(config) = state.get_mut("config").filter(|c| !c.is_null()) else {
        return false;
    };
    let incoming = get(action, "config")
        .cloned()
        .unwrap_or(Value::Object(Object::new()));
    let replace = get(action, "replace").and_then(Value::as_bool) == Some(true);
    let values = if replace {
        incoming
    } else {
        let mut merged = get(config, "values")
            .cloned()
            .unwrap_or(Value::Object(Object::new()));
        if let (Value::Object(m), Value::Object(i)) = (&mut merged, incoming) {
            m.extend(i);
        }
        merged
    };
    put(config, "values", Some(values));
    true
}

// ─── Terminal ─────────────────────────────────────────────────────────

/// `terminalReducer`.
pub fn terminal(state: &mut Value, action: &Value) {
    let ty = get(action, "type").and_then(Value::as_str).unwrap_or("");
    match ty {
        "terminal/data" => {
            let data = get(action, "data").and_then(Value::as_str).unwrap_or("");
            let content = content_mut(state);
            let kind = content
                .last()
                .and_then(|t| get(t, "type"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            let open = content
                .last()
                .is_some_and(|t| get(t, "isComplete") != Some(&Value::Bool(true)));
            match (kind.as_deref(), content.last_mut()) {
                (Some("command"), Some(tail)) if open => append(tail, "output", data),
                (Some("unclassified"), Some(tail)) => append(tail, "value", data),
                _ => content.push(serde_json::json!({"type": "unclassified", "value": data})),
            }
        }
        "terminal/resized" => {
            put(state, "cols", get(action, "cols").cloned());
            put(state, "rows", get(action, "rows").cloned());
        }
        "terminal/claimed" => put(state, "claim", get(action, "claim").cloned()),
        "terminal/titleChanged" => put(state, "title", get(action, "title").cloned()),
        "terminal/cwdChanged" => put(state, "cwd", get(action, "cwd").cloned()),
        "terminal/exited" => put(state, "exitCode", get(action, "exitCode").cloned()),
        "terminal/cleared" => put(state, "content", Some(Value::Array(Vec::new()))),
        "terminal/commandDetectionAvailable" => {
            put(state, "supportsCommandDetection", Some(Value::Bool(true)))
        }
        "terminal/commandExecuted" => {
            let mut part = serde_json::json!({"type": "command", "output": "",
                "isComplete": false});
            for key in ["commandId", "commandLine", "timestamp"] {
                put(&mut part, key, get(action, key).cloned());
            }
            content_mut(state).push(part);
            put(state, "supportsCommandDetection", Some(Value::Bool(true)));
        }
        // Every command part with the id, not only the first.
        "terminal/commandFinished" => {
            let id = get(action, "commandId");
            for part in content_mut(state) {
                if get(part, "type").and_then(Value::as_str) == Some("command")
                    && same(get(part, "commandId"), id)
                {
                    put(part, "isComplete", Some(Value::Bool(true)));
                    put(part, "exitCode", get(action, "exitCode").cloned());
                    put(part, "durationMs", get(action, "durationMs").cloned());
                }
            }
        }
        // `terminal/input` is side-effect only; other types are unknown.
        _ => {}
    }
}

fn content_mut(state: &mut Value) -> &mut Vec<Value> {
    if !matches!(state.get("content"), Some(Value::Array(_))) {
        put(state, "content", Some(Value::Array(Vec::new())));
    }
    match state.get_mut("content") {
        Some(Value::Array(items)) => items,
        _ => unreachable!("content was just made an array"),
    }
}

/// `object[key] += text` for a string member (absent counts as empty).
pub fn append(object: &mut Value, key: &str, text: &str) {
    let mut current = get(object, key)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    current.push_str(text);
    put(object, key, Some(Value::String(current)));
}

// ─── Changeset ────────────────────────────────────────────────────────

/// The action's `status` on `target`, with its `error` when the status is `error` (else none).
fn set_status(target: &mut Value, action: &Value) {
    let status = get(action, "status").cloned();
    let error = (status.as_ref().and_then(Value::as_str) == Some("error"))
        .then(|| get(action, "error").cloned())
        .flatten();
    put(target, "status", status);
    put(target, "error", error);
}

/// Replaces the first entry with `entry`'s `id`, or appends it.
pub fn upsert_by_id(list: &mut Vec<Value>, entry: Value) {
    let id = get(&entry, "id").cloned();
    match list.iter().position(|e| same(get(e, "id"), id.as_ref())) {
        Some(i) => list[i] = entry,
        None => list.push(entry),
    }
}

/// `changesetReducer` (the 0.3.0 action set).
pub fn changeset(state: &mut Value, action: &Value) {
    let ty = get(action, "type").and_then(Value::as_str).unwrap_or("");
    match ty {
        "changeset/statusChanged" => {
            set_status(state, action);
        }
        "changeset/fileSet" => {
            let file = get(action, "file").cloned().unwrap_or(Value::Null);
            upsert_by_id(array_mut(state, "files"), file);
        }
        // The first file with the id only.
        "changeset/fileRemoved" => {
            let id = get(action, "fileId").cloned();
            let files = array_mut(state, "files");
            if let Some(i) = files.iter().position(|f| same(get(f, "id"), id.as_ref())) {
                files.remove(i);
            }
        }
        "changeset/operationsChanged" => {
            put(state, "operations", get(action, "operations").cloned())
        }
        "changeset/operationStatusChanged" => {
            let id = get(action, "operationId").cloned();
            let Some(Value::Array(operations)) = state.get_mut("operations") else {
                return;
            };
            if let Some(op) = operations
                .iter_mut()
                .find(|o| same(get(o, "id"), id.as_ref()))
            {
                set_status(op, action);
            }
        }
        "changeset/cleared" => {
            let files = array_mut(state, "files");
            files.clear();
        }
        _ => {}
    }
}

/// `object[key]` as an array, made one if absent.
pub fn array_mut<'a>(object: &'a mut Value, key: &str) -> &'a mut Vec<Value> {
    if !matches!(object.get(key), Some(Value::Array(_))) {
        put(object, key, Some(Value::Array(Vec::new())));
    }
    match object.get_mut(key) {
        Some(Value::Array(items)) => items,
        _ => unreachable!("the member was just made an array"),
    }
}

// ─── Resource watch ───────────────────────────────────────────────────

/// `resourceWatchReducer`: a watch's state never changes.
pub fn resource_watch(_state: &mut Value, _action: &Value) {}
