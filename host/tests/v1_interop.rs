//! Interop with the official AHP 1.0.0 Rust client (`ahp` 1.0.0 from crates.io) as a test peer,
//! over the official WebSocket transport (`ahp-ws` 1.0.0): it initializes with 1.0.0, creates
//! a session, subscribes to it and its default chat, starts a turn with `chat/turnStarted`, and
//! reduces the streamed chat envelopes with its own 1.0 reducer to the state a fresh snapshot
//! of the host shows.

mod common;

use ahp_types_v1::actions::{ActionEnvelope, StateAction};
use ahp_types_v1::state::{ChatState, SnapshotState};
use ahp_v1::{Client, ClientConfig, SubscriptionEvent};
use common::*;
use serde_json::{json, Value};

const S: &str = "ahp-session:/official-v1";
const C: &str = "ahp-chat:/official-v1/default";

async fn chat_snapshot(client: &Client, uri: &str) -> ChatState {
    let (result, _) = client.subscribe(uri.into()).await.expect("subscribe");
    match result.snapshot.expect("a snapshot").state {
        SnapshotState::Chat(chat) => *chat,
        other => panic!("a chat snapshot expected, got {other:?}"),
    }
}

#[tokio::test]
async fn the_official_1_0_client_runs_a_turn_in_the_default_chat() {
    let t = start_host().await;
    let transport = ahp_ws::WebSocketTransport::connect(&url_with_token(&t.host))
        .await
        .expect("ahp-ws connects to the host");
    let client = Client::connect(transport, ClientConfig::default())
        .await
        .expect("connected");
    let init = client
        .initialize("official-v1".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    assert_eq!(init.protocol_version, "1.0.0");
    let _: Value = client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let (session, _) = client.subscribe(S.into()).await.expect("subscribe");
    let SnapshotState::Session(session) = session.snapshot.expect("a snapshot").state else {
        panic!("a session snapshot expected");
    };
    let session = serde_json::to_value(&*session).unwrap();
    assert_eq!(session["defaultChat"], C, "{session}");
    assert_eq!(session["lifecycle"], "ready", "{session}");

    let mut chat = chat_snapshot(&client, C).await;
    assert!(chat.turns.is_empty());
    let mut events = client.events();
    let started: StateAction = serde_json::from_value(json!({
        "type": "chat/turnStarted",
        "turnId": "t1",
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": { "text": "Hello from the official client", "origin": { "kind": "user" } },
    }))
    .expect("an official 1.0 action");
    let handle = client.dispatch(C.into(), started).await.expect("dispatch");

    // The chat's envelopes, reduced by the official reducer, until the turn completes.
    let mut envelopes: Vec<ActionEnvelope> = Vec::new();
    loop {
        let event = tokio::time::timeout(WAIT, events.recv())
            .await
            .expect("an event within the timeout")
            .expect("connected");
        let SubscriptionEvent::Action(envelope) = event.event else {
            continue;
        };
        if envelope.channel != C {
            continue;
        }
        assert!(envelope.rejection_reason.is_none(), "{envelope:?}");
        ahp_v1::reducers::apply_action_to_chat(&mut chat, &envelope.action);
        let action = serde_json::to_value(&envelope.action).unwrap();
        envelopes.push(envelope);
        if action["type"] == "chat/turnComplete" {
            break;
        }
    }
    let echo = envelopes[0].origin.as_ref().expect("the echo first");
    assert_eq!(echo.client_id, "official-v1");
    assert_eq!(echo.client_seq, handle.client_seq);
    assert!(envelopes
        .windows(2)
        .all(|w| w[0].server_seq < w[1].server_seq));
    assert_eq!(chat.turns.len(), 1);
    assert!(chat.active_turn.is_none());

    // The official reducer's state is the host's.
    let fresh = chat_snapshot(&client, C).await;
    assert_eq!(
        serde_json::to_value(&chat).unwrap(),
        serde_json::to_value(&fresh).unwrap()
    );
    client.shutdown().await;
}
