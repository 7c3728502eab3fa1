//! AHP 1.0.0 clients of the host (`hub/v1.rs`): the SDK's native client offering 1.0.0 creates
//! a session, subscribes to it and its default chat, runs a turn there optimistically, and
//! converges on the host's state while a 0.3.0 client on the same session sees the same turn;
//! negotiation keeps 0.3.0 clients as they were and refuses other versions naming both; a 1.0
//! action with no 0.3.0 form, or one the 0.3.0 authorization refuses, is rejected in 1.0.

mod common;

use ahp_wasm::client::engine::{ChannelEventV1, Event};
use ahp_wasm::client::native::{
    AhpClient, ClientEvent, ConnectOptions, Subscription, SubscriptionEvent,
};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::v1;
use ahp_wasm::protocol::{ActionEnvelope, StateAction};
use ahp_wasm::sync::v1::AnyState;
use common::*;
use serde_json::{json, Value};
use std::time::Duration;

const S: &str = "ahp-session:/v1-flow";
const C: &str = "ahp-chat:/v1-flow/default";

fn options(client_id: &str, versions: &[&str]) -> ConnectOptions {
    ConnectOptions {
        client_id: Some(client_id.into()),
        protocol_versions: versions.iter().map(|v| v.to_string()).collect(),
        ..Default::default()
    }
}

/// Waits (up to [`WAIT`]) for `f` to give a value.
async fn until<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(value) = f() {
            return value;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn chat(client: &AhpClient, uri: &str) -> Option<v1::ChatState> {
    match client.state_v1(uri)? {
        AnyState::Chat(chat) => Some(chat),
        other => panic!("{uri} is a chat, not {other:?}"),
    }
}

fn session(client: &AhpClient, uri: &str) -> Option<v1::SessionState> {
    match client.state_v1(uri)? {
        AnyState::Session(session) => Some(session),
        other => panic!("{uri} is a session, not {other:?}"),
    }
}

/// The next 1.0 change event of a subscription handle (skipping `Subscribed` and the like).
async fn next_v1(sub: &mut Subscription) -> ChannelEventV1 {
    loop {
        match tokio::time::timeout(WAIT, sub.next_event()).await {
            Ok(Some(SubscriptionEvent::V1(e))) => return *e,
            Ok(Some(_)) => continue,
            other => panic!("no 1.0 change event: {other:?}"),
        }
    }
}

fn turn_started(turn_id: &str, text: &str) -> v1::StateAction {
    let action = json!({
        "type": "chat/turnStarted",
        "turnId": turn_id,
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": { "text": text, "origin": { "kind": "user" } },
    });
    serde_json::from_value(action).expect("a 1.0 action")
}

fn markdown(turn: &v1::Turn) -> String {
    serde_json::to_value(&turn.response_parts)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "markdown")
        .filter_map(|p| p["content"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn a_1_0_client_runs_a_turn_in_the_default_chat_beside_a_0_3_0_client() {
    let t = start_host().await;
    let url = url_with_token(&t.host);
    let client = AhpClient::connect(&url, options("v1-client", &["1.0.0"]))
        .await
        .expect("a 1.0.0 handshake");
    assert_eq!(client.protocol_version(), "1.0.0");

    client.subscribe(ROOT_CHANNEL).await.expect("root");
    let Some(AnyState::Root(root)) = client.state_v1(ROOT_CHANNEL) else {
        panic!("a 1.0 root state");
    };
    assert_eq!(root.active_sessions, Some(0));
    assert!(!root.agents.is_empty());

    client
        .v1()
        .create_session(v1::CreateSessionParams {
            channel: S.into(),
            ..Default::default()
        })
        .await
        .expect("createSession");
    let listed = client
        .v1()
        .list_sessions(v1::ListSessionsParams {
            channel: ROOT_CHANNEL.into(),
            ..Default::default()
        })
        .await
        .expect("listSessions");
    assert_eq!(listed.items.len(), 1);
    assert_eq!(listed.items[0].resource, S);
    assert_eq!(listed.items[0].default_chat.as_deref(), Some(C));
    // The root's 1.0 envelope (activeSessions, an integer in 1.0) reached the subscriber.
    until("activeSessions 1", || match client.state_v1(ROOT_CHANNEL) {
        Some(AnyState::Root(root)) => (root.active_sessions == Some(1)).then_some(()),
        _ => None,
    })
    .await;

    client.subscribe(S).await.expect("session");
    let mut chat_sub = client.subscribe(C).await.expect("default chat");
    let mut app_events = client.events();
    let s = session(&client, S).expect("session mirror");
    assert_eq!(s.default_chat.as_deref(), Some(C));
    assert_eq!(s.chats.len(), 1);
    assert_eq!(s.lifecycle, v1::SessionLifecycle::Ready);
    assert!(chat(&client, C).unwrap().turns.is_empty());

    // A 0.3.0 client on the same session.
    let mut old = Client::ready(&t.host, "v03-client").await;
    old.subscribe(S).await;

    client
        .dispatch_v1(C, turn_started("t1", "Hello from 1.0"))
        .expect("dispatched");
    // Optimistic at once.
    let optimistic = chat(&client, C).unwrap();
    assert_eq!(
        optimistic.active_turn.as_ref().map(|t| t.id.as_str()),
        Some("t1")
    );
    // The change reached both listeners (the chat's handle and the app's stream), and the
    // handle reads the mirror borrowed.
    assert_eq!(next_v1(&mut chat_sub).await.channel(), C);
    let on_stream = loop {
        match app_events.recv().await.expect("the app's stream") {
            ClientEvent::Protocol(Event::ChannelV1(e)) => break e,
            _ => continue,
        }
    };
    assert_eq!(on_stream.channel(), C);
    let borrowed = chat_sub.with_mirror_v1(|m| {
        let chat = m.typed::<v1::ChatState>().expect("a chat mirror").state();
        chat.active_turn.as_ref().map(|t| t.id.clone())
    });
    assert_eq!(borrowed, Some(Some("t1".to_string())));
    drop(app_events);

    // The built-in agent answers in the chat; the turn completes.
    let done = until("turn t1 completes in the chat mirror", || {
        let chat = chat(&client, C)?;
        (chat.active_turn.is_none() && chat.turns.len() == 1).then_some(chat)
    })
    .await;
    let turn = &done.turns[0];
    assert_eq!(turn.id, "t1");
    assert_eq!(turn.message.text, "Hello from 1.0");
    assert!(!markdown(turn).is_empty(), "the agent's reply: {turn:?}");

    // The 0.3.0 client saw the same turn: started by the 1.0 client, streamed, completed.
    let envelopes: Vec<ActionEnvelope> = old
        .until_turn_end("t1")
        .await
        .into_iter()
        .filter(|e| e.channel == S)
        .collect();
    let started = envelopes
        .iter()
        .find(|e| matches!(e.action, StateAction::SessionTurnStarted(_)))
        .expect("turnStarted");
    assert_eq!(started.origin.as_ref().unwrap().client_id, "v1-client");
    assert!(matches!(
        envelopes.last().unwrap().action,
        StateAction::SessionTurnComplete(_)
    ));
    let old_state = session_state(&old.subscribe(S).await);
    assert_eq!(old_state.turns.len(), 1);
    let old_text: String = serde_json::to_value(&old_state.turns[0].response_parts)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "markdown")
        .filter_map(|p| p["content"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(old_text, markdown(turn));

    // The mirror equals a fresh snapshot (another 1.0 client's).
    let fresh = AhpClient::connect(&url, options("v1-fresh", &["1.0.0"]))
        .await
        .expect("a second 1.0 client");
    let mut fresh_chat = fresh.subscribe(C).await.expect("chat");
    fresh.subscribe(S).await.expect("session");
    until("the mirrors settle", || {
        (chat(&client, C) == chat(&fresh, C)).then_some(())
    })
    .await;
    assert_eq!(chat(&client, C), chat(&fresh, C));
    // A handle whose app keeps no event stream gets the chat's changes too (moved, not copied).
    fresh
        .dispatch_v1(C, turn_started("t1b", "Hello again"))
        .expect("dispatched");
    assert_eq!(next_v1(&mut fresh_chat).await.channel(), C);
    until("turn t1b completes", || {
        let done = |c: Option<v1::ChatState>| {
            c.is_some_and(|c| c.turns.len() == 2 && c.active_turn.is_none())
        };
        (done(chat(&client, C)) && done(chat(&fresh, C))).then_some(())
    })
    .await;
    assert_eq!(chat(&client, C), chat(&fresh, C));
    assert_eq!(session(&client, S), session(&fresh, S));
    // The session's entry of its default chat followed the chat (`session/chatUpdated`).
    let (s, c) = (session(&client, S).unwrap(), chat(&client, C).unwrap());
    assert_eq!(s.chats[0].modified_at, c.modified_at);
    assert_eq!(s.chats[0].status, c.status);
    assert_ne!(s.chats[0].modified_at, optimistic.modified_at);

    // With no 1.0 client following the session, a turn of the 0.3.0 client's is still there for
    // the next one (the session's 1.0 state follows every 0.3.0 action).
    client.close();
    fresh.close();
    old.send_message(S, "t2", "Hello from 0.3.0").await;
    old.until_turn_end("t2").await;
    let late = AhpClient::connect(&url, options("v1-late", &["1.0.0"]))
        .await
        .expect("a third 1.0 client");
    late.subscribe(C).await.expect("chat");
    let ids: Vec<String> = chat(&late, C)
        .unwrap()
        .turns
        .into_iter()
        .map(|t| t.id.clone())
        .collect();
    assert_eq!(ids, ["t1", "t1b", "t2"]);
    late.close();
}

#[tokio::test]
async fn negotiation_prefers_1_0_keeps_0_3_0_and_refuses_others_naming_both() {
    let t = start_host().await;
    let url = url_with_token(&t.host);
    let both = AhpClient::connect(&url, options("both", &["1.0.0", "0.3.0"]))
        .await
        .expect("handshake");
    assert_eq!(both.protocol_version(), "1.0.0");
    let old = AhpClient::connect(&url, options("old", &["0.3.0"]))
        .await
        .expect("handshake");
    assert_eq!(old.protocol_version(), "0.3.0");
    both.close();
    old.close();

    let mut raw = Client::connect(&t.host, "neither").await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "channel": ROOT_CHANNEL, "protocolVersions": ["2.0.0", "0.2.0"], "clientId": "neither"}});
    raw.send_text(init.to_string()).await;
    let answer = raw.read_frame().await.expect("an answer");
    assert_eq!(answer["error"]["code"], -32005, "{answer}");
    assert_eq!(
        answer["error"]["data"]["supportedVersions"],
        json!(["1.0.0", "0.3.0"])
    );
}

/// A raw 1.0 connection: initialized with 1.0.0, answers read past notifications.
async fn raw_v1(t: &TestHost, client_id: &str) -> Client {
    raw_v1_secret(t, client_id).await.0
}

/// [`raw_v1`] and the client secret the host bound the id to.
async fn raw_v1_secret(t: &TestHost, client_id: &str) -> (Client, String) {
    let mut raw = Client::connect(&t.host, client_id).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "channel": ROOT_CHANNEL, "protocolVersions": ["1.0.0"], "clientId": client_id}});
    raw.send_text(init.to_string()).await;
    let answer = answer_to(&mut raw, 1).await;
    assert_eq!(answer["result"]["protocolVersion"], "1.0.0", "{answer}");
    let secret = answer["result"]["clientSecret"]
        .as_str()
        .unwrap()
        .to_owned();
    (raw, secret)
}

async fn answer_to(raw: &mut Client, id: u64) -> Value {
    loop {
        let frame = raw.read_frame().await.expect("connection open");
        if frame["id"] == id {
            return frame;
        }
    }
}

async fn request(raw: &mut Client, id: u64, method: &str, params: Value) -> Value {
    let text = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    raw.send_text(text.to_string()).await;
    answer_to(raw, id).await
}

/// The next `action` envelope on `channel`.
async fn envelope_on(raw: &mut Client, channel: &str) -> Value {
    loop {
        let frame = raw.read_frame().await.expect("connection open");
        if frame["method"] == "action" && frame["params"]["channel"] == channel {
            return frame["params"].clone();
        }
    }
}

#[tokio::test]
async fn dispatches_of_1_0_clients_are_rejected_in_1_0_and_unserved_commands_say_so() {
    let t = start_host().await;
    let mut raw = raw_v1(&t, "raw-v1").await;
    let root = request(&mut raw, 10, "subscribe", json!({"channel": ROOT_CHANNEL})).await;
    assert_eq!(
        root["result"]["snapshot"]["state"]["activeSessions"], 0,
        "{root}"
    );
    let created = request(&mut raw, 2, "createSession", json!({"channel": S})).await;
    assert!(created.get("result").is_some(), "{created}");
    // The root notification in its 1.0 shape (RFC 3339 times, the default chat).
    let added = loop {
        let frame = raw.read_frame().await.expect("connection open");
        if frame["method"] == "root/sessionAdded" {
            break frame["params"].clone();
        }
    };
    let added: v1::SessionAddedParams = serde_json::from_value(added).expect("1.0 params");
    assert_eq!(added.summary.resource, S);
    assert_eq!(added.summary.default_chat.as_deref(), Some(C));
    assert!(
        added.summary.created_at.ends_with('Z'),
        "{}",
        added.summary.created_at
    );
    let sub = request(&mut raw, 3, "subscribe", json!({"channel": C})).await;
    assert_eq!(sub["result"]["snapshot"]["resource"], C, "{sub}");
    assert!(sub["result"]["snapshot"]["state"]["turns"].is_array());

    // No 0.3.0 form: rejected with the reason.
    let loaded = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
        "channel": C, "clientSeq": 1,
        "action": {"type": "chat/turnsLoaded", "turns": [], "hasMore": false}}});
    raw.send_text(loaded.to_string()).await;
    let rejected = envelope_on(&mut raw, C).await;
    assert_eq!(rejected["origin"]["clientSeq"], 1, "{rejected}");
    assert_eq!(rejected["action"]["type"], "chat/turnsLoaded");
    assert!(
        rejected["rejectionReason"]
            .as_str()
            .is_some_and(|r| r.contains("older turns loaded")),
        "{rejected}"
    );

    // Refused by the 0.3.0 authorization (only user messages): rejected as dispatched.
    let agent_message = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
        "channel": C, "clientSeq": 2,
        "action": {"type": "chat/turnStarted", "turnId": "t9",
            "startedAt": "2026-01-01T00:00:00.000Z",
            "message": {"text": "hi", "origin": {"kind": "agent"}}}}});
    raw.send_text(agent_message.to_string()).await;
    let rejected = envelope_on(&mut raw, C).await;
    assert_eq!(rejected["origin"]["clientSeq"], 2, "{rejected}");
    assert_eq!(rejected["action"]["type"], "chat/turnStarted");
    assert!(
        rejected["rejectionReason"]
            .as_str()
            .is_some_and(|r| r.contains("user messages")),
        "{rejected}"
    );

    // On the session channel: applied, echoed there, and announced on the root in 1.0.
    let sub = request(&mut raw, 6, "subscribe", json!({"channel": S})).await;
    assert_eq!(
        sub["result"]["snapshot"]["state"]["defaultChat"], C,
        "{sub}"
    );
    let title = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
        "channel": S, "clientSeq": 3,
        "action": {"type": "session/titleChanged", "title": "Renamed over 1.0"}}});
    raw.send_text(title.to_string()).await;
    let mut echoed = false;
    let mut announced = false;
    while !(echoed && announced) {
        let frame = raw.read_frame().await.expect("connection open");
        let params = &frame["params"];
        if frame["method"] == "action" && params["channel"] == S {
            assert_eq!(params["origin"]["clientSeq"], 3, "{frame}");
            assert!(params.get("rejectionReason").is_none(), "{frame}");
            assert_eq!(params["action"]["title"], "Renamed over 1.0");
            echoed = true;
        }
        if frame["method"] == "root/sessionSummaryChanged" {
            let changed: v1::SessionSummaryChangedParams =
                serde_json::from_value(params.clone()).expect("1.0 params");
            assert_eq!(changed.session, S);
            if changed.changes.title.as_deref() == Some("Renamed over 1.0") {
                announced = true;
            }
        }
    }

    // The file commands (the same shapes in both versions).
    let hello = format!(
        "file://{}/hello.txt",
        t.work.path().canonicalize().unwrap().display()
    );
    let read = request(
        &mut raw,
        5,
        "resourceRead",
        json!({"channel": ROOT_CHANNEL, "uri": hello, "encoding": "utf-8"}),
    )
    .await;
    let read: v1::ResourceReadResult =
        serde_json::from_value(read["result"].clone()).expect("a 1.0 result");
    assert_eq!(read.data, "hello from the working directory\n");

    // Every 1.0 command is served: a default chat may not move (a typed error saying so).
    let chat = request(
        &mut raw,
        4,
        "moveChat",
        json!({"channel": C, "destination": {"kind": "session", "session": "ahp-session:/other"}}),
    )
    .await;
    assert_eq!(chat["error"]["code"], -32602, "{chat}");
    assert!(chat["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("default chat")));
}

/// Dispatches `chat/turnStarted` on the default chat and waits for the turn to complete there.
async fn run_turn(raw: &mut Client, client_seq: u64, turn_id: &str) {
    let started = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
        "channel": C, "clientSeq": client_seq,
        "action": {"type": "chat/turnStarted", "turnId": turn_id,
            "startedAt": "2026-01-01T00:00:00.000Z",
            "message": {"text": "hello", "origin": {"kind": "user"}}}}});
    raw.send_text(started.to_string()).await;
    let echo = envelope_on(raw, C).await;
    assert_eq!(echo["origin"]["clientSeq"], client_seq, "{echo}");
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    loop {
        let envelope = envelope_on(raw, C).await;
        if envelope["action"]["type"] == "chat/turnComplete" {
            assert_eq!(envelope["action"]["turnId"], turn_id);
            return;
        }
    }
}

#[tokio::test]
async fn a_1_0_client_reconnects_to_fresh_1_0_snapshots_and_its_session_survives_a_restart() {
    let t = start_host().await;
    let (mut raw, secret) = raw_v1_secret(&t, "r1").await;
    let created = request(&mut raw, 2, "createSession", json!({"channel": S})).await;
    assert!(created.get("result").is_some(), "{created}");
    request(&mut raw, 3, "subscribe", json!({"channel": C})).await;
    run_turn(&mut raw, 1, "t1").await;
    drop(raw);

    // `reconnect`: fresh 1.0 snapshots of the channels that exist; the others left out.
    let mut again = Client::connect(&t.host, "r1").await;
    let answer = request(
        &mut again,
        1,
        "reconnect",
        json!({"channel": ROOT_CHANNEL, "clientId": "r1", "clientSecret": secret,
            "lastSeenServerSeq": 0, "subscriptions": [S, C, "ahp-session:/gone"]}),
    )
    .await;
    assert_eq!(answer["result"]["type"], "snapshot", "{answer}");
    let snapshots = answer["result"]["snapshots"].as_array().unwrap();
    let resources: Vec<&str> = snapshots
        .iter()
        .map(|s| s["resource"].as_str().unwrap())
        .collect();
    assert_eq!(resources, [S, C]);
    let session: v1::SessionState =
        serde_json::from_value(snapshots[0]["state"].clone()).expect("a 1.0 session");
    assert_eq!(session.default_chat.as_deref(), Some(C));
    let chat: v1::ChatState =
        serde_json::from_value(snapshots[1]["state"].clone()).expect("a 1.0 chat");
    assert_eq!(chat.turns.len(), 1);
    // The reconnected connection speaks 1.0: its dispatches are decoded as 1.0.
    run_turn(&mut again, 2, "t2").await;
    drop(again);

    // After a restart the loaded session is lifted again: both turns are in the chat.
    let TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let client = AhpClient::connect(&url_with_token(&host), options("r2", &["1.0.0"]))
        .await
        .expect("a 1.0.0 handshake");
    client.subscribe(C).await.expect("the default chat");
    let chat = chat_of(&client);
    let ids: Vec<&str> = chat.turns.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["t1", "t2"]);
    client.close();
}

fn chat_of(client: &AhpClient) -> v1::ChatState {
    chat(client, C).expect("a chat mirror")
}

/// The host's `systemMessageTransform` request (the same in both versions) reaches the 1.0
/// client that is the session's active client and opted into the section; its answer is the
/// prompt the turn runs with.
#[tokio::test]
async fn a_1_0_active_client_transforms_the_system_prompt() {
    let t = start_host().await;
    let mut raw = raw_v1(&t, "v1-ide").await;
    let created = request(&mut raw, 2, "createSession", json!({"channel": S})).await;
    assert!(created.get("result").is_some(), "{created}");
    request(&mut raw, 3, "subscribe", json!({"channel": S})).await;
    request(&mut raw, 4, "subscribe", json!({"channel": C})).await;
    let claim = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
        "channel": S, "clientSeq": 1, "action": {"type": "session/activeClientSet",
        "activeClient": {"clientId": "v1-ide", "tools": [],
            "systemMessageTransform": {"sections": ["tone"]}}}}});
    raw.send_text(claim.to_string()).await;
    let echo = envelope_on(&mut raw, S).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    let started = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
        "channel": C, "clientSeq": 2,
        "action": {"type": "chat/turnStarted", "turnId": "t1",
            "startedAt": "2026-01-01T00:00:00.000Z",
            "message": {"text": "/prompt", "origin": {"kind": "user"}}}}});
    raw.send_text(started.to_string()).await;
    let asked = loop {
        let frame = raw.read_frame().await.expect("connection open");
        if frame["method"] == "systemMessageTransform" {
            break frame;
        }
    };
    assert_eq!(asked["params"]["channel"], S, "{asked}");
    let tone = asked["params"]["sections"]["tone"]["content"].as_str();
    assert!(
        tone.is_some_and(|t| t.starts_with("Write plainly")),
        "{asked}"
    );
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"],
        "result": {"sections": {"tone": {"content": "Talk like a pirate."}}}});
    raw.send_text(answer.to_string()).await;
    loop {
        let envelope = envelope_on(&mut raw, C).await;
        if envelope["action"]["type"] == "chat/turnComplete" {
            break;
        }
    }
    let sub = request(&mut raw, 5, "subscribe", json!({"channel": C})).await;
    let turn = sub["result"]["snapshot"]["state"]["turns"][0].to_string();
    assert!(turn.contains("## tone\\nTalk like a pirate."), "{turn}");
}
