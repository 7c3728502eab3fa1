//! The official clients as peers of one host (issue 34's checks): the `ahp` 1.0.0 client calls
//! every method it has against `ahp-host`, each succeeding, and every frame it receives is
//! decoded strictly with `ahp-types` 1.0.0 (typed by the method it answers, then encoded back
//! to the same JSON: nothing the host sent is lost or unknown to 1.0); its mirror of root,
//! session and default chat, reduced by the official 1.0 reducers across a reconnect, equals
//! fresh snapshots. An official 0.3.0 client (`ahp` 0.3.0) on the same session sees the default
//! chat: the 1.0 client's turn, and its own turn reaches the 1.0 client's chat.
//! The official 1.0 client also creates a second chat and runs a turn there: its mirror of the
//! session and that chat equals fresh snapshots.

mod common;
mod v1_support;

use ahp_host::resources::file_uri;
use ahp_types_v1::actions::StateAction;
use ahp_types_v1::commands as cmd;
use ahp_types_v1::notifications as note;
use ahp_types_v1::state::{ChatState, RootState, SessionState, SnapshotState};
use ahp_v1::{
    Client, ClientConfig, ClientEvent, ClientEventStream, SubscriptionEvent, Transport,
    TransportError, TransportMessage,
};
use common::*;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use v1_support::WsTransport;

const S: &str = "ahp-session:/peers";
const C: &str = "ahp-chat:/peers/default";
const ROOT: &str = "ahp-root://";

/// What the strict check has seen: the method of each request the client sent (by id), the
/// frames checked, and every frame that failed, with why.
#[derive(Default)]
struct Checked {
    methods: HashMap<u64, String>,
    frames: usize,
    failures: Vec<String>,
}

/// The official client's transport, checking each frame it receives (see the module doc).
struct Strict {
    inner: WsTransport,
    checked: Arc<Mutex<Checked>>,
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
        if let Some(TransportMessage::Text(text)) = &msg {
            let mut checked = self.checked.lock().unwrap();
            checked.frames += 1;
            if let Err(why) = check_frame(text, &checked.methods) {
                checked.failures.push(why);
            }
        }
        Ok(msg)
    }

    async fn close(&mut self) -> Result<(), TransportError> {
        self.inner.close().await
    }
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
/// or the params of the notification it is.
fn check_frame(text: &str, methods: &HashMap<u64, String>) -> Result<(), String> {
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
        };
    }
    let Some(result) = frame.get("result") else {
        return Ok(()); // an error response: its shape was checked above
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
        // "No payload either way" (the spec's `ping`), and the commands 1.0 gives no result.
        "ping" | "createSession" | "disposeSession" | "unsubscribe" | "createChat"
        | "disposeChat"
            if result.is_null() =>
        {
            Ok(())
        }
        "createSession" | "disposeSession" | "createChat" | "disposeChat" => {
            round_trips::<cmd::ResourceWriteResult>(method, result)
        }
        other => Err(format!("a result of `{other}` (id {id}): {text}")),
    }
}

async fn connect(t: &TestHost) -> (Client, Arc<Mutex<Checked>>) {
    let (ws, _) = tokio_tungstenite::connect_async(url_with_token(&t.host))
        .await
        .unwrap();
    let checked = Arc::new(Mutex::new(Checked::default()));
    let transport = Strict {
        inner: WsTransport(ws),
        checked: checked.clone(),
    };
    let client = Client::connect(transport, ClientConfig::default())
        .await
        .expect("connected");
    (client, checked)
}

fn assert_strict(checked: &Mutex<Checked>, at_least: usize) {
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

/// The official client's view of the three channels, reduced by the official reducers.
struct Mirror {
    root: RootState,
    session: SessionState,
    chat: ChatState,
}

async fn snapshot(client: &Client, uri: &str) -> SnapshotState {
    let (result, _) = client.subscribe(uri.into()).await.expect("subscribe");
    result.snapshot.expect("a snapshot").state
}

impl Mirror {
    async fn subscribe(client: &Client) -> Mirror {
        let SnapshotState::Root(root) = snapshot(client, ROOT).await else {
            panic!("a root snapshot expected");
        };
        let SnapshotState::Session(session) = snapshot(client, S).await else {
            panic!("a session snapshot expected");
        };
        let SnapshotState::Chat(chat) = snapshot(client, C).await else {
            panic!("a chat snapshot expected");
        };
        Mirror {
            root: *root,
            session: *session,
            chat: *chat,
        }
    }

    fn apply(&mut self, event: &ClientEvent) {
        let SubscriptionEvent::Action(envelope) = &event.event else {
            return;
        };
        assert!(
            envelope.rejection_reason.is_none(),
            "a rejection: {envelope:?}"
        );
        match envelope.channel.as_str() {
            ROOT => drop(ahp_v1::reducers::apply_action_to_root(
                &mut self.root,
                &envelope.action,
            )),
            S => drop(ahp_v1::reducers::apply_action_to_session(
                &mut self.session,
                &envelope.action,
            )),
            C => drop(ahp_v1::reducers::apply_action_to_chat(
                &mut self.chat,
                &envelope.action,
            )),
            _ => {}
        }
    }

    /// Applies events until none came for a while.
    async fn settle(&mut self, events: &mut ClientEventStream) {
        while let Ok(Some(event)) =
            tokio::time::timeout(Duration::from_millis(500), events.recv()).await
        {
            self.apply(&event);
        }
    }

    fn json(&self) -> [Value; 3] {
        [
            serde_json::to_value(&self.root).unwrap(),
            serde_json::to_value(&self.session).unwrap(),
            serde_json::to_value(&self.chat).unwrap(),
        ]
    }
}

/// Applies `client`'s events to `mirror` until the chat's turn `turn_id` completed.
async fn until_turn_complete(mirror: &mut Mirror, events: &mut ClientEventStream, turn_id: &str) {
    loop {
        let event = tokio::time::timeout(WAIT, events.recv())
            .await
            .expect("an event within the timeout")
            .expect("connected");
        mirror.apply(&event);
        if let SubscriptionEvent::Action(envelope) = &event.event {
            let action = serde_json::to_value(&envelope.action).unwrap();
            if action["type"] == "chat/turnComplete" && action["turnId"] == turn_id {
                return;
            }
        }
    }
}

fn turn_started(turn_id: &str, text: &str) -> StateAction {
    serde_json::from_value(json!({
        "type": "chat/turnStarted",
        "turnId": turn_id,
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": { "text": text, "origin": { "kind": "user" } },
    }))
    .expect("an official 1.0 action")
}

fn params<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("official params")
}

#[tokio::test]
async fn every_method_of_the_official_1_0_client_succeeds_and_every_frame_is_strict_1_0() {
    let t = start_host().await;
    let (root, _outside) = t.work_and_outside();
    let uri = |rel: &str| file_uri(&root.join(rel));
    let (client, checked) = connect(&t).await;

    // `ping` before and after `initialize`.
    client.ping().await.expect("ping before initialize");
    let init = client
        .initialize("peers-1".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    assert_eq!(init.protocol_version, "1.0.0");
    client.ping().await.expect("ping");

    let _: Value = client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let listed: cmd::ListSessionsResult = client
        .request("listSessions", json!({"channel": ROOT}))
        .await
        .expect("listSessions");
    assert!(listed.items.iter().any(|s| s.resource == S), "{listed:?}");

    // The file commands, in the host's working directory.
    let written = "written by the official client";
    client
        .resource_write(params(json!({"channel": ROOT, "uri": uri("peer.txt"),
            "data": written, "encoding": "utf-8", "createOnly": true})))
        .await
        .expect("resourceWrite");
    let read = client
        .resource_read(params(json!({"channel": ROOT, "uri": uri("peer.txt")})))
        .await
        .expect("resourceRead");
    assert_eq!(read.data, written);
    let resolved = client
        .resource_resolve(params(json!({"channel": ROOT, "uri": uri("peer.txt")})))
        .await
        .expect("resourceResolve");
    assert_eq!(resolved.size, Some(written.len() as i64));
    client
        .resource_mkdir(params(json!({"channel": ROOT, "uri": uri("made/deeper")})))
        .await
        .expect("resourceMkdir");
    client
        .resource_copy(params(json!({"channel": ROOT, "source": uri("peer.txt"),
            "destination": uri("made/copy.txt")})))
        .await
        .expect("resourceCopy");
    client
        .resource_move(params(
            json!({"channel": ROOT, "source": uri("made/copy.txt"),
            "destination": uri("made/moved.txt")}),
        ))
        .await
        .expect("resourceMove");
    let listing = client
        .resource_list(params(json!({"channel": ROOT, "uri": uri("made")})))
        .await
        .expect("resourceList");
    let mut names: Vec<_> = listing.entries.iter().map(|e| e.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["deeper", "moved.txt"]);
    client
        .resource_delete(params(
            json!({"channel": ROOT, "uri": uri("made"), "recursive": true}),
        ))
        .await
        .expect("resourceDelete");
    assert!(!root.join("made").exists());
    client
        .resource_request(params(
            json!({"channel": ROOT, "uri": uri("peer.txt"), "read": true}),
        ))
        .await
        .expect("resourceRequest");
    let watch = client
        .create_resource_watch(params(
            json!({"channel": ROOT, "uri": uri(""), "recursive": true}),
        ))
        .await
        .expect("createResourceWatch");
    assert!(
        watch.channel.starts_with("ahp-resource-watch:"),
        "{watch:?}"
    );
    let (_, _watching) = client
        .subscribe(watch.channel.clone())
        .await
        .expect("subscribe to the watch");
    client
        .unsubscribe(watch.channel)
        .await
        .expect("unsubscribe");

    // Config and completions.
    let config: cmd::ResolveSessionConfigResult = client
        .request("resolveSessionConfig", json!({"channel": ROOT}))
        .await
        .expect("resolveSessionConfig");
    assert!(config.values.contains_key("model"), "{config:?}");
    let models = client
        .session_config_completions(params(json!({"channel": ROOT, "property": "model"})))
        .await
        .expect("sessionConfigCompletions");
    assert!(!models.items.is_empty());
    let offered = client
        .completions(params(json!({"channel": C, "kind": "userMessage",
            "text": "see @peer", "offset": 9})))
        .await
        .expect("completions");
    assert!(
        offered
            .items
            .iter()
            .any(|i| i.insert_text.contains("peer.txt")),
        "{offered:?}"
    );

    // A turn, mirrored by the official reducers, then a reconnect on a new connection.
    let mut mirror = Mirror::subscribe(&client).await;
    let mut events = client.events();
    let handle = client
        .dispatch(
            C.into(),
            turn_started("t1", "Hello from the official client\n/write note.txt hi"),
        )
        .await
        .expect("dispatch");
    assert!(handle.client_seq >= 0);
    until_turn_complete(&mut mirror, &mut events, "t1").await;
    mirror.settle(&mut events).await;
    // The agent's file edit, followed live: completed, its text by reference (a `data:` URI
    // the host reads back).
    let turn = serde_json::to_value(&mirror.chat.turns[0]).unwrap();
    let call = turn["responseParts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "toolCall")
        .map(|p| p["toolCall"].clone())
        .expect("the write_file call");
    assert_eq!(call["status"], "completed", "{call}");
    let edit = call["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "fileEdit")
        .expect("a fileEdit")
        .clone();
    let after = edit["after"]["content"]["uri"]
        .as_str()
        .expect("a ContentRef");
    let text = client
        .resource_read(params(json!({"channel": ROOT, "uri": after})))
        .await
        .expect("resourceRead of the edit's content");
    assert_eq!(text.data, "hi");
    let _: Value = client
        .request("fetchTurns", json!({"channel": C, "limit": 10}))
        .await
        .expect("fetchTurns");
    assert_strict(&checked, 20);
    client.shutdown().await;

    let (again, checked) = connect(&t).await;
    let reconnected = again
        .reconnect("peers-1".into(), 0, vec![ROOT.into(), S.into(), C.into()])
        .await
        .expect("reconnect");
    let reconnected = serde_json::to_value(&reconnected).unwrap();
    assert_eq!(reconnected["type"], "snapshot", "{reconnected}");
    let mut events = again.events();
    for snapshot in reconnected["snapshots"].as_array().expect("snapshots") {
        let state = &snapshot["state"];
        match snapshot["resource"].as_str() {
            Some(ROOT) => mirror.root = serde_json::from_value(state.clone()).unwrap(),
            Some(S) => mirror.session = serde_json::from_value(state.clone()).unwrap(),
            Some(C) => mirror.chat = serde_json::from_value(state.clone()).unwrap(),
            other => panic!("a snapshot of {other:?}"),
        }
    }
    again
        .dispatch(C.into(), turn_started("t2", "Again, after a reconnect"))
        .await
        .expect("dispatch");
    until_turn_complete(&mut mirror, &mut events, "t2").await;
    mirror.settle(&mut events).await;
    assert_eq!(mirror.chat.turns.len(), 2);

    // The official mirror is the host's state: fresh snapshots on a third connection.
    let (fresh, fresh_checked) = connect(&t).await;
    fresh
        .initialize("peers-fresh".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    let host = Mirror::subscribe(&fresh).await;
    for ((mine, hosts), name) in mirror
        .json()
        .iter()
        .zip(host.json())
        .zip(["root", "session", "chat"])
    {
        assert_eq!(
            first_difference(mine, &hosts),
            None,
            "the official mirror's {name} differs from the host's"
        );
    }

    // `disposeSession` last: the session leaves the list.
    let _: Value = fresh
        .request("disposeSession", json!({"channel": S}))
        .await
        .expect("disposeSession");
    let listed: cmd::ListSessionsResult = fresh
        .request("listSessions", json!({"channel": ROOT}))
        .await
        .expect("listSessions");
    assert!(listed.items.iter().all(|s| s.resource != S));
    assert_strict(&checked, 5);
    assert_strict(&fresh_checked, 5);
    again.shutdown().await;
    fresh.shutdown().await;
}

/// The text of each turn's user message in a 0.3.0 session state (JSON).
fn user_texts_v03(state: &Value) -> Vec<String> {
    let turns = state["turns"].as_array().cloned().unwrap_or_default();
    turns
        .iter()
        .map(|t| t["message"]["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn an_official_0_3_0_client_sees_the_default_chat_of_a_1_0_clients_session() {
    let t = start_host().await;
    let (v1_client, checked) = connect(&t).await;
    v1_client
        .initialize("peers-v1".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    let _: Value = v1_client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let mut mirror = Mirror::subscribe(&v1_client).await;
    let mut events = v1_client.events();
    v1_client
        .dispatch(C.into(), turn_started("t1", "From the 1.0 client"))
        .await
        .expect("dispatch");
    until_turn_complete(&mut mirror, &mut events, "t1").await;

    // The official 0.3.0 client: the session is the default chat, with the 1.0 client's turn.
    let (ws, _) = tokio_tungstenite::connect_async(url_with_token(&t.host))
        .await
        .unwrap();
    let old = ahp::Client::connect(WsTransport(ws), ahp::ClientConfig::default())
        .await
        .expect("connected");
    let init = old
        .initialize("peers-v03".into(), vec!["0.3.0".into()], vec![])
        .await
        .expect("initialize");
    assert_eq!(init.protocol_version, "0.3.0");
    let (subscribed, mut sub) = old.subscribe(S.into()).await.expect("subscribe");
    let ahp_types::state::SnapshotState::Session(mut state) =
        subscribed.snapshot.expect("a snapshot").state
    else {
        panic!("a 0.3.0 session snapshot expected");
    };
    let seen = serde_json::to_value(&state).unwrap();
    assert_eq!(user_texts_v03(&seen), ["From the 1.0 client"], "{seen}");

    // Its turn lands in the 1.0 client's default chat; both mirrors end as the host's.
    let action: ahp_types::actions::StateAction = serde_json::from_value(json!({
        "type": "session/turnStarted", "turnId": "t2",
        "message": {"text": "From the 0.3.0 client", "origin": {"kind": "user"}}}))
    .expect("an official 0.3.0 action");
    old.dispatch(S.into(), action).await.expect("dispatch");
    until_turn_complete(&mut mirror, &mut events, "t2").await;
    mirror.settle(&mut events).await;
    loop {
        let event = tokio::time::timeout(WAIT, sub.recv())
            .await
            .expect("an envelope within the timeout")
            .expect("subscribed");
        let ahp::SubscriptionEvent::Action(envelope) = event else {
            continue;
        };
        ahp::apply_action_to_session(&mut state, &envelope.action);
        let action = serde_json::to_value(&envelope.action).unwrap();
        if action["type"] == "session/turnComplete" && action["turnId"] == "t2" {
            break;
        }
    }
    let seen = serde_json::to_value(&state).unwrap();
    assert_eq!(
        user_texts_v03(&seen),
        ["From the 1.0 client", "From the 0.3.0 client"]
    );
    let texts: Vec<_> = mirror
        .chat
        .turns
        .iter()
        .map(|t| t.message.text.clone())
        .collect();
    assert_eq!(texts, ["From the 1.0 client", "From the 0.3.0 client"]);
    let (fresh, _) = connect(&t).await;
    fresh
        .initialize("peers-fresh".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    let host = Mirror::subscribe(&fresh).await;
    assert_eq!(
        first_difference(&mirror.json()[2], &host.json()[2]),
        None,
        "the 1.0 client's chat differs from the host's"
    );
    assert_strict(&checked, 10);
    v1_client.shutdown().await;
    old.shutdown().await;
    fresh.shutdown().await;
}

#[tokio::test]
async fn the_official_1_0_client_creates_a_second_chat_and_its_mirror_is_the_hosts() {
    const C2: &str = "ahp-chat:/peers/second";
    let t = start_host().await;
    let (client, checked) = connect(&t).await;
    client
        .initialize("peers-chats".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    let _: Value = client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let SnapshotState::Session(mut session) = snapshot(&client, S).await else {
        panic!("a session snapshot expected");
    };
    let mut events = client.events();
    let _: Value = client
        .request("createChat", json!({"channel": S, "chat": C2}))
        .await
        .expect("createChat");
    let SnapshotState::Chat(mut chat) = snapshot(&client, C2).await else {
        panic!("a chat snapshot expected");
    };
    client
        .dispatch(C2.into(), turn_started("c2-t1", "In the second chat"))
        .await
        .expect("dispatch");
    let mut apply = |event: &ClientEvent| {
        let SubscriptionEvent::Action(envelope) = &event.event else {
            return false;
        };
        assert!(envelope.rejection_reason.is_none(), "{envelope:?}");
        match envelope.channel.as_str() {
            S => drop(ahp_v1::reducers::apply_action_to_session(
                &mut session,
                &envelope.action,
            )),
            C2 => drop(ahp_v1::reducers::apply_action_to_chat(
                &mut chat,
                &envelope.action,
            )),
            _ => {}
        }
        let action = serde_json::to_value(&envelope.action).unwrap();
        action["type"] == "chat/turnComplete" && action["turnId"] == "c2-t1"
    };
    loop {
        let event = tokio::time::timeout(WAIT, events.recv())
            .await
            .expect("an event within the timeout")
            .expect("connected");
        if apply(&event) {
            break;
        }
    }
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(500), events.recv()).await
    {
        apply(&event);
    }
    assert_eq!(chat.turns.len(), 1);
    assert_eq!(session.chats.len(), 2, "{:?}", session.chats);

    // The official mirror is the host's state: fresh snapshots on another connection.
    let (fresh, fresh_checked) = connect(&t).await;
    fresh
        .initialize("peers-chats-fresh".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    let SnapshotState::Session(hosts_session) = snapshot(&fresh, S).await else {
        panic!("a session snapshot expected");
    };
    let SnapshotState::Chat(hosts_chat) = snapshot(&fresh, C2).await else {
        panic!("a chat snapshot expected");
    };
    assert_eq!(
        first_difference(
            &serde_json::to_value(&session).unwrap(),
            &serde_json::to_value(&hosts_session).unwrap()
        ),
        None,
        "the official mirror's session differs from the host's"
    );
    assert_eq!(
        first_difference(
            &serde_json::to_value(&chat).unwrap(),
            &serde_json::to_value(&hosts_chat).unwrap()
        ),
        None,
        "the official mirror's second chat differs from the host's"
    );
    assert_strict(&checked, 5);
    assert_strict(&fresh_checked, 2);
    client.shutdown().await;
    fresh.shutdown().await;
}
