//! Forks and side chats (`createChat`'s `source`, `hub/chat_views.rs`): the new chat starts with
//! its source chat's turns through `source.turnId` and says where it came from (`origin`, in its
//! state and in its session's `chats`); it is a conversation of its own and survives a restart.
//! A side chat may start from the source's active turn, as far as it went. Bad sources get a
//! typed error and create nothing. The host's agents advertise both
//! (`capabilities.multipleChats`).

mod common;
mod v1_raw;

use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use common::*;
use serde_json::{json, Value};
use std::time::Duration;
use v1_raw::V1;

const S: &str = "ahp-session:/sources";
const D: &str = "ahp-chat:/sources/default";

/// The entry of chat `chat` in a session snapshot's `chats`.
fn entry_of(session: &Value, chat: &str) -> Value {
    session["state"]["chats"]
        .as_array()
        .expect("chats")
        .iter()
        .find(|c| c["resource"] == chat)
        .cloned()
        .unwrap_or_else(|| panic!("{chat} is not listed: {session}"))
}

/// `createChat` of `chat` in `S` from `source`.
async fn create_from(v: &mut V1, chat: &str, source: Value) -> Value {
    v.request(
        "createChat",
        json!({"channel": S, "chat": chat, "source": source}),
    )
    .await
}

/// `createChat` of `chat` in `S` from `source`, which must succeed; the chat's snapshot.
async fn made_from(v: &mut V1, chat: &str, source: Value) -> Value {
    let made = create_from(v, chat, source).await;
    assert!(made.get("error").is_none(), "{made}");
    v.subscribe(chat).await
}

/// Starts turn `t2` in `D`, which asks a question: the source's active turn from then on.
async fn ask_in_default(v: &mut V1) {
    let asking = json!({"type": "chat/turnStarted", "turnId": "t2",
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": {"text": "/ask Your name?", "origin": {"kind": "user"}}});
    v.apply(D, asking).await;
    v.until("the question", |e| {
        e["channel"] == D && e["action"]["type"] == "chat/inputRequested"
    })
    .await;
}

/// A chat snapshot's state, decoded by the official 1.0 types (so it is one a 1.0 peer takes).
fn official(chat: &Value) -> ahp_types_v1::state::ChatState {
    serde_json::from_value(chat["state"].clone()).expect("an official 1.0 chat state")
}

#[tokio::test]
async fn a_fork_starts_with_its_sources_turns_and_survives_a_restart() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "forker").await;
    v.create_session(S).await;
    v.turn_in(D, "t1", "first").await;
    let source = v.turn_in(D, "t2", "second").await;

    let f = "ahp-chat:/sources/fork";
    let fork = made_from(
        &mut v,
        f,
        json!({"kind": "fork", "chat": D, "turnId": "t1"}),
    )
    .await;
    official(&fork);
    assert_eq!(fork["state"]["turns"], json!([source["state"]["turns"][0]]));
    let origin = json!({"kind": "fork", "chat": D, "turnId": "t1"});
    assert_eq!(fork["state"]["origin"], origin, "{fork}");
    assert_eq!(entry_of(&v.subscribe(S).await, f)["origin"], origin);

    // A conversation of its own: its turn leaves the source as it was.
    let fork = v.turn_in(f, "t3", "only in the fork").await;
    assert_eq!(fork["state"]["turns"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        v.subscribe(D).await["state"]["turns"],
        source["state"]["turns"]
    );
    // A chat other than the default one is a source too.
    let g = "ahp-chat:/sources/fork-of-fork";
    let again = made_from(
        &mut v,
        g,
        json!({"kind": "fork", "chat": f, "turnId": "t3"}),
    )
    .await;
    assert_eq!(again["state"]["turns"], fork["state"]["turns"]);
    v.c.close().await;

    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut v = V1::connect(&host, "forker-2").await;
    let kept = v.subscribe(f).await;
    assert_eq!(kept["state"]["turns"], fork["state"]["turns"]);
    assert_eq!(kept["state"]["origin"], origin);
    assert_eq!(entry_of(&v.subscribe(S).await, f)["origin"], origin);
    assert_eq!(
        v.subscribe(g).await["state"]["turns"],
        fork["state"]["turns"]
    );
    host.shutdown().await;
    tokio::time::sleep(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn a_side_chat_takes_the_active_turn_as_far_as_it_went_and_its_selection() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "sider").await;
    v.create_session(S).await;
    v.turn_in(D, "t1", "first").await;
    // t2 waits for an answer: the source's active turn.
    ask_in_default(&mut v).await;

    let side = "ahp-chat:/sources/side";
    let selection = json!({"text": "Your name?"});
    let source = json!({"kind": "sideChat", "chat": D, "turnId": "t2", "selection": selection});
    let chat = made_from(&mut v, side, source).await;
    official(&chat);
    let turns = chat["state"]["turns"].as_array().expect("turns");
    assert_eq!(turns.len(), 2, "{chat}");
    assert_eq!(turns[1]["id"], "t2");
    assert_eq!(turns[1]["message"]["text"], "/ask Your name?");
    assert_eq!(turns[1]["state"], "cancelled", "{chat}");
    assert!(chat["state"].get("activeTurn").is_none(), "{chat}");
    let origin = json!({"kind": "sideChat", "chat": D, "turnId": "t2", "selection": selection});
    assert_eq!(chat["state"]["origin"], origin, "{chat}");
    assert_eq!(entry_of(&v.subscribe(S).await, side)["origin"], origin);
    // The source still waits for its answer.
    let source = v.subscribe(D).await;
    assert_eq!(source["state"]["activeTurn"]["id"], "t2", "{source}");
    // A side chat of a completed turn takes the turns through it.
    let done = "ahp-chat:/sources/side-done";
    let chat = made_from(
        &mut v,
        done,
        json!({"kind": "sideChat", "chat": D, "turnId": "t1"}),
    )
    .await;
    assert_eq!(chat["state"]["turns"], json!([source["state"]["turns"][0]]));
    t.host.shutdown().await;
}

#[tokio::test]
async fn bad_sources_get_typed_errors_and_create_nothing() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "bad-sources").await;
    v.create_session(S).await;
    v.create_session("ahp-session:/other").await;
    v.turn_in(D, "t1", "first").await;
    // The host advertises forks and side chats (strictly decoded by the official types).
    let root = v.subscribe(ROOT_CHANNEL).await;
    let state: ahp_types_v1::state::RootState =
        serde_json::from_value(root["state"].clone()).expect("an official root state");
    let chats = state.agents[0]
        .capabilities
        .as_ref()
        .and_then(|c| c.multiple_chats.as_ref())
        .expect("capabilities.multipleChats");
    assert_eq!((chats.fork, chats.side_chat), (Some(true), Some(true)));
    ask_in_default(&mut v).await;

    let before = v.subscribe(S).await["state"]["chats"].clone();
    let c = "ahp-chat:/sources/never";
    let long = "x".repeat(64 * 1024 + 1);
    for source in [
        // A chat of another session, a missing chat, a missing turn.
        json!({"kind": "fork", "chat": "ahp-chat:/other/default", "turnId": "t1"}),
        json!({"kind": "fork", "chat": "ahp-chat:/sources/none", "turnId": "t1"}),
        json!({"kind": "fork", "chat": D, "turnId": "none"}),
        // A fork of the active turn (forks take completed turns).
        json!({"kind": "fork", "chat": D, "turnId": "t2"}),
        json!({"kind": "sideChat", "chat": D, "turnId": "none"}),
        // Selections empty or too long; an unknown kind.
        json!({"kind": "sideChat", "chat": D, "turnId": "t1", "selection": {"text": ""}}),
        json!({"kind": "sideChat", "chat": D, "turnId": "t1", "selection": {"text": long}}),
        json!({"kind": "branch", "chat": D, "turnId": "t1"}),
    ] {
        let answer = create_from(&mut v, c, source.clone()).await;
        assert_eq!(answer["error"]["code"], -32602, "{source}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("source")),
            "{answer}"
        );
    }
    v.alive().await;
    assert_eq!(v.subscribe(S).await["state"]["chats"], before);
    let none = v.request("subscribe", json!({"channel": c})).await;
    assert!(none.get("error").is_some(), "{none}");
    t.host.shutdown().await;
}
