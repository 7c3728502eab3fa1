//! The strict check: the official client's transport is `ahp-ws`'s WebSocket, wrapped so that
//! every frame it receives is decoded with `ahp-types` 1.0.0, typed by the method it answers,
//! and encoded back to the same JSON (nothing the host sent is lost or unknown to 1.0).

use ahp_types_v1::commands as cmd;
use ahp_types_v1::notifications as note;
use ahp_v1::{Transport, TransportError, TransportMessage};
use ahp_ws::WebSocketTransport;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What the strict check has seen: the method of each request the client sent (by id), the
/// frames checked, the methods answered with a result, and every frame that failed, with why.
#[derive(Default)]
pub struct Checked {
    methods: HashMap<u64, String>,
    pub frames: usize,
    pub answered: Vec<String>,
    pub failures: Vec<String>,
}

/// `ahp-ws`'s transport, checking each frame it receives (see the module doc).
pub struct Strict {
    pub inner: WebSocketTransport,
    pub checked: Arc<Mutex<Checked>>,
}

impl Transport for Strict {
    async fn send(&mut self, msg: TransportMessage) -> Result<(), TransportError> {
        let sent = match &msg {
            TransportMessage::Parsed(m) => serde_json::to_value(m).ok(),
            TransportMessage::Text(t) => serde_json::from_str(t).ok(),
            TransportMessage::Binary(b) => serde_json::from_slice(b).ok(),
        };
        if let Some(sent) = sent {
            if let (Some(id), Some(method)) = (sent["id"].as_u64(), sent["method"].as_str()) {
                let mut checked = self.checked.lock().unwrap();
                checked.methods.insert(id, method.to_owned());
            }
        }
        self.inner.send(msg).await
    }

    async fn recv(&mut self) -> Result<Option<TransportMessage>, TransportError> {
        let msg = self.inner.recv().await?;
        let text = match &msg {
            Some(TransportMessage::Text(text)) => Ok(text.as_str()),
            Some(TransportMessage::Binary(bytes)) => {
                std::str::from_utf8(bytes).map_err(|e| format!("a binary frame, not UTF-8 ({e})"))
            }
            Some(TransportMessage::Parsed(_)) | None => return Ok(msg),
        };
        let mut checked = self.checked.lock().unwrap();
        checked.frames += 1;
        match text.and_then(|text| check_frame(text, &checked.methods)) {
            Ok(Some(method)) => checked.answered.push(method),
            Ok(None) => {}
            Err(why) => checked.failures.push(why),
        }
        Ok(msg)
    }

    async fn close(&mut self) -> Result<(), TransportError> {
        self.inner.close().await
    }
}

/// Asserts every frame was strict 1.0, at least `at_least` of them.
pub fn assert_strict(checked: &Mutex<Checked>, at_least: usize) {
    let checked = checked.lock().unwrap();
    assert!(
        checked.failures.is_empty(),
        "{} of {} frames are not strict AHP 1.0.0:\n{}",
        checked.failures.len(),
        checked.frames,
        checked.failures.join("\n")
    );
    assert!(checked.frames >= at_least, "{} frames", checked.frames);
}

/// The host's documented additions to 1.0, which an official client ignores: the members
/// of `systemMessageTransform` (our extension, as its proposal specifies them, on each agent)
/// anywhere, and at the top of `initialize`'s result the reconnect secret and the frame limit
/// (host README: "Reconnect", "Limits").
const EXTENSIONS: &[&str] = &["systemMessageSections"];
const INITIALIZE_EXTENSIONS: &[&str] = &["clientSecret", "maxFrameBytes"];

fn without_extensions(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(without_extensions).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .filter(|(k, _)| !EXTENSIONS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), without_extensions(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `value`, but for the host's [`EXTENSIONS`], decoded as `T` and encoded back gives `value`
/// again (numbers compared as numbers, absent and `null` members alike).
fn round_trips<T: DeserializeOwned + Serialize>(what: &str, value: &Value) -> Result<(), String> {
    let value = &without_extensions(value);
    let typed: T = serde_json::from_value(value.clone())
        .map_err(|e| format!("{what} does not decode as 1.0 ({e}): {value}"))?;
    let back = serde_json::to_value(&typed).expect("encodes");
    if normal(&back) == normal(value) {
        Ok(())
    } else {
        Err(format!(
            "{what} loses or changes members in 1.0's types:\n host: {value}\n 1.0:  {back}"
        ))
    }
}

fn normal(value: &Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(items) => Value::Array(items.iter().map(normal).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), normal(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// One received frame, strictly: the JSON-RPC shape, then the result of the method it answers
/// or the params of the notification it is. The method answered with a result, if any.
fn check_frame(text: &str, methods: &HashMap<u64, String>) -> Result<Option<String>, String> {
    let frame: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e}): {text}"))?;
    round_trips::<ahp_types_v1::messages::JsonRpcMessage>("a frame", &frame)?;
    if let Some(method) = frame["method"].as_str() {
        let params = &frame["params"];
        return match method {
            "action" => round_trips::<ahp_types_v1::actions::ActionEnvelope>(method, params),
            "root/sessionAdded" => round_trips::<note::SessionAddedParams>(method, params),
            "root/sessionRemoved" => round_trips::<note::SessionRemovedParams>(method, params),
            "root/sessionSummaryChanged" => {
                round_trips::<note::SessionSummaryChangedParams>(method, params)
            }
            other => Err(format!("an unexpected message `{other}`: {text}")),
        }
        .map(|()| None);
    }
    let Some(result) = frame.get("result") else {
        return Ok(None); // an error response: its shape was checked above
    };
    let id = frame["id"].as_u64().unwrap_or(u64::MAX);
    let method = methods.get(&id).map(String::as_str).unwrap_or("?");
    match method {
        "initialize" => {
            let mut result = result.clone();
            for key in INITIALIZE_EXTENSIONS {
                result.as_object_mut().map(|r| r.remove(*key));
            }
            round_trips::<cmd::InitializeResult>(method, &result)
        }
        "reconnect" => round_trips::<cmd::ReconnectResult>(method, result),
        "subscribe" => round_trips::<cmd::SubscribeResult>(method, result),
        "listSessions" => round_trips::<cmd::ListSessionsResult>(method, result),
        "fetchTurns" => round_trips::<cmd::FetchTurnsResult>(method, result),
        "moveChat" => round_trips::<cmd::MoveChatResult>(method, result),
        "resourceRead" => round_trips::<cmd::ResourceReadResult>(method, result),
        "resourceWrite" => round_trips::<cmd::ResourceWriteResult>(method, result),
        "resourceList" => round_trips::<cmd::ResourceListResult>(method, result),
        "resourceCopy" => round_trips::<cmd::ResourceCopyResult>(method, result),
        "resourceDelete" => round_trips::<cmd::ResourceDeleteResult>(method, result),
        "resourceMove" => round_trips::<cmd::ResourceMoveResult>(method, result),
        "resourceResolve" => round_trips::<cmd::ResourceResolveResult>(method, result),
        "resourceMkdir" => round_trips::<cmd::ResourceMkdirResult>(method, result),
        "resourceRequest" => round_trips::<cmd::ResourceRequestResult>(method, result),
        "createResourceWatch" => round_trips::<cmd::CreateResourceWatchResult>(method, result),
        "completions" => round_trips::<cmd::CompletionsResult>(method, result),
        "resolveSessionConfig" => round_trips::<cmd::ResolveSessionConfigResult>(method, result),
        "sessionConfigCompletions" => {
            round_trips::<cmd::SessionConfigCompletionsResult>(method, result)
        }
        "authenticate" => round_trips::<cmd::AuthenticateResult>(method, result),
        "invokeChangesetOperation" => {
            round_trips::<cmd::InvokeChangesetOperationResult>(method, result)
        }
        "listAutomationTriggerDefinitions" => {
            round_trips::<cmd::ListAutomationTriggerDefinitionsResult>(method, result)
        }
        "runAutomation" => round_trips::<cmd::RunAutomationResult>(method, result),
        "fetchAutomationRuns" => round_trips::<cmd::FetchAutomationRunsResult>(method, result),
        // "No payload either way" (the spec's `ping`), and the commands 1.0 gives no result.
        "ping" | "createSession" | "disposeSession" | "unsubscribe" | "createChat"
        | "disposeChat" | "createTerminal" | "disposeTerminal"
            if result.is_null() =>
        {
            Ok(())
        }
        "createSession" | "disposeSession" | "createChat" | "disposeChat" | "createTerminal"
        | "disposeTerminal" => round_trips::<cmd::ResourceWriteResult>(method, result),
        other => Err(format!("a result of `{other}` (id {id}): {text}")),
    }
    .map(|()| Some(method.to_owned()))
}
