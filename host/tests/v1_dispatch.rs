//! What an AHP 1.0 client dispatches is what the host keeps, though 0.3.0 clients are sent its
//! translation: a turn's message with what only 1.0 has (the model and agent chosen for it),
//! and the action's `_meta`, are echoed as sent (the host stamps `startedAt` by its own clock),
//! stored as sent, and back after a restart, in the default chat and in a second chat, while a
//! 0.3.0 client sees the same turn in the default chat; a client tool's result whose file edit
//! holds its sides by reference (which 0.3.0 holds inline only) is kept with its references.

mod common;
mod v1_raw;

use common::*;
use serde_json::{json, Value};
use v1_raw::{chat_mirror, V1};

const S: &str = "ahp-session:/fidelity";
const DEFAULT_CHAT: &str = "ahp-chat:/fidelity/default";
const SECOND_CHAT: &str = "ahp-chat:/fidelity/second";

/// A user's turn whose message names a model and an agent, with `_meta` on the action and
/// the message.
fn rich_turn(turn_id: &str) -> Value {
    json!({"type": "chat/turnStarted", "turnId": turn_id,
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": {"text": "hello", "origin": {"kind": "user"},
            "model": {"id": "a-model-the-client-chose"},
            "agent": {"uri": "agent://reviewer"},
            "_meta": {"draftedIn": "editor"}},
        "_meta": {"trace": "t-1"}})
}

/// `action` without `startedAt` (the host stamps it).
fn unstamped(action: &Value) -> Value {
    let mut action = action.clone();
    action.as_object_mut().unwrap().remove("startedAt");
    action
}

/// Runs the rich turn `turn_id` in `chat`: the echo is the action as sent but for its
/// `startedAt`, and the completed turn keeps the message as sent. The chat's snapshot.
async fn rich_turn_in(v: &mut V1, chat: &str, turn_id: &str) -> Value {
    let snapshot = v.subscribe(chat).await;
    let sent = rich_turn(turn_id);
    let echo = v.apply(chat, sent.clone()).await;
    assert_eq!(unstamped(&echo["action"]), unstamped(&sent), "{echo}");
    assert!(echo["action"]["startedAt"].is_string(), "{echo}");
    v.until("the turn to complete", |e| {
        e["channel"] == chat
            && e["action"]["type"] == "chat/turnComplete"
            && e["action"]["turnId"] == turn_id
    })
    .await;
    let fresh = v.subscribe(chat).await;
    let turn = &fresh["state"]["turns"][0];
    assert_eq!(turn["message"], sent["message"], "{fresh}");
    assert_eq!(turn["startedAt"], echo["action"]["startedAt"], "{fresh}");
    assert_eq!(chat_mirror(&snapshot, &v.log), fresh["state"]);
    fresh
}

#[tokio::test]
async fn a_1_0_clients_turn_is_kept_as_it_sent_it() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "fidelity-client").await;
    v.create_session(S).await;
    let default_chat = rich_turn_in(&mut v, DEFAULT_CHAT, "t-default").await;
    let made = v
        .request("createChat", json!({"channel": S, "chat": SECOND_CHAT}))
        .await;
    assert!(made.get("error").is_none(), "{made}");
    let second_chat = rich_turn_in(&mut v, SECOND_CHAT, "t-second").await;

    // A 0.3.0 client sees the default chat's turn (0.3.0 has no place for the model and agent
    // of a message).
    let mut old = Client::ready(&t.host, "fidelity-0-3").await;
    let state = serde_json::to_value(session_state(&old.subscribe(S).await)).unwrap();
    assert_eq!(state["turns"][0]["id"], "t-default", "{state}");
    assert_eq!(state["turns"][0]["message"]["text"], "hello", "{state}");
    assert_eq!(
        state["turns"][0]["message"]["_meta"],
        json!({"draftedIn": "editor"}),
        "{state}"
    );

    v.c.close().await;
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut v = V1::connect(&host, "fidelity-client-2").await;
    assert_eq!(
        v.subscribe(DEFAULT_CHAT).await["state"],
        default_chat["state"]
    );
    assert_eq!(
        v.subscribe(SECOND_CHAT).await["state"],
        second_chat["state"]
    );
}

/// The tool call `id` in the turns or active turn of chat state `chat`.
fn tool_call<'a>(chat: &'a Value, id: &str) -> &'a Value {
    let turns = chat["turns"].as_array().into_iter().flatten();
    let mut parts = turns
        .chain(chat.get("activeTurn"))
        .filter_map(|t| t["responseParts"].as_array())
        .flatten();
    let found = parts.find(|p| p["toolCall"]["toolCallId"] == id);
    found.map_or_else(|| panic!("no tool call {id}: {chat}"), |p| &p["toolCall"])
}

#[tokio::test]
async fn a_1_0_clients_tool_result_is_kept_as_it_sent_it() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "tool-client").await;
    v.create_session(S).await;
    v.subscribe(S).await;
    let snapshot = v.subscribe(DEFAULT_CHAT).await;
    let tool = json!({"name": "pick_file", "description": "Picks a file in the editor"});
    v.apply(
        S,
        json!({"type": "session/activeClientSet", "activeClient": {
            "clientId": "tool-client", "tools": [tool]}}),
    )
    .await;
    let started = json!({"type": "chat/turnStarted", "turnId": "t-tool",
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": {"text": "/client-tool pick_file {}", "origin": {"kind": "user"}}});
    v.apply(DEFAULT_CHAT, started).await;
    let ready = v
        .until("the client's tool call", |e| {
            e["channel"] == DEFAULT_CHAT && e["action"]["type"] == "chat/toolCallReady"
        })
        .await;
    let call_id = ready["action"]["toolCallId"].as_str().unwrap().to_owned();
    // An edit whose sides the client holds by reference (its editor's blobs): 0.3.0 has them
    // inline only, so a translation through 0.3.0 would lose the references.
    let side = |blob: &str| {
        json!({"uri": "file:///w/notes.txt",
            "content": {"uri": blob, "contentType": "text/plain", "sizeHint": 12}})
    };
    let result = json!({"success": true, "pastTenseMessage": "Picked notes.txt",
        "content": [{"type": "text", "text": "notes.txt"},
            {"type": "fileEdit", "before": side("editor-blob:/1"), "after": side("editor-blob:/2"),
                "diff": {"added": 1, "removed": 0}}]});
    let complete = json!({"type": "chat/toolCallComplete", "turnId": "t-tool",
        "toolCallId": call_id, "result": result});
    let echo = v.apply(DEFAULT_CHAT, complete.clone()).await;
    assert_eq!(echo["action"], complete);
    v.until("the turn to complete", |e| {
        e["channel"] == DEFAULT_CHAT && e["action"]["type"] == "chat/turnComplete"
    })
    .await;
    let fresh = v.subscribe(DEFAULT_CHAT).await;
    let call = tool_call(&fresh["state"], &call_id);
    assert_eq!(call["status"], "completed", "{call}");
    assert_eq!(call["content"], result["content"], "{call}");
    assert_eq!(chat_mirror(&snapshot, &v.log), fresh["state"]);
}
