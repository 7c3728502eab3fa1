//! A chat's background work (`backgroundWork`, `hub/terminals/run.rs`): the built-in agent's
//! `/run --background <command>` completes its tool call once the command started and lists the
//! command as a `shell` entry of the chat until its process exits; a restart ends it (the
//! process did not survive), so the restored chat lists none.

mod common;
mod v1_raw;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;
use v1_raw::V1;

const S: &str = "ahp-session:/background";
const D: &str = "ahp-chat:/background/default";

/// The chat's `backgroundWork` entries (none when absent).
fn work(chat: &Value) -> Vec<Value> {
    chat["state"]["backgroundWork"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The last turn's tool call of a chat snapshot.
fn last_tool_call(chat: &Value) -> Value {
    let turns = chat["state"]["turns"].as_array().expect("turns");
    let parts = turns.last().expect("a turn")["responseParts"]
        .as_array()
        .expect("parts");
    parts
        .iter()
        .find(|p| p["kind"] == "toolCall")
        .cloned()
        .unwrap_or_else(|| panic!("no tool call: {chat}"))
}

#[tokio::test]
async fn a_background_run_is_listed_until_its_process_exits() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "background").await;
    v.create_session(S).await;
    let chat = v.turn_in(D, "t1", "/run --background sleep 2").await;
    // Strictly an official 1.0 chat state.
    let _: ahp_types_v1::state::ChatState =
        serde_json::from_value(chat["state"].clone()).expect("an official chat state");
    // The call is over (successful, linking the terminal) while the command runs on.
    let call = last_tool_call(&chat);
    assert_eq!(call["toolCall"]["status"], "completed", "{call}");
    assert_eq!(call["toolCall"]["success"], true, "{call}");
    let listed = work(&chat);
    assert_eq!(listed.len(), 1, "{chat}");
    let entry = &listed[0];
    assert_eq!(entry["kind"], "shell");
    assert_eq!(entry["command"], "sleep 2");
    let terminal = entry["terminal"].as_str().expect("its terminal").to_owned();
    assert_eq!(entry["id"], terminal);
    assert!(
        entry["startedAt"]
            .as_str()
            .is_some_and(|s| s.ends_with('Z')),
        "{entry}"
    );
    assert!(call.to_string().contains(&terminal), "{call}");
    let snapshot = v.subscribe(&terminal).await;
    assert!(snapshot.get("error").is_none(), "{snapshot}");

    // Its process exits: the entry goes (one `chat/backgroundWorkRemoved`).
    let removed = v
        .until("the work to end", |e| {
            e["channel"] == D && e["action"]["type"] == "chat/backgroundWorkRemoved"
        })
        .await;
    assert_eq!(removed["action"]["id"], terminal.as_str(), "{removed}");
    let chat = v.subscribe(D).await;
    assert!(work(&chat).is_empty(), "{chat}");
    t.host.shutdown().await;
}

#[tokio::test]
async fn a_restart_ends_background_work() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "background-restart").await;
    v.create_session(S).await;
    let chat = v.turn_in(D, "t1", "/run --background sleep 60").await;
    assert_eq!(work(&chat).len(), 1, "{chat}");
    v.c.close().await;

    let common::TestHost {
        host,
        data,
        work: dir,
    } = t;
    host.shutdown().await;
    let host = restart(data.path(), dir.path()).await;
    let mut v = V1::connect(&host, "background-restart-2").await;
    let chat = v.subscribe(D).await;
    assert!(work(&chat).is_empty(), "{chat}");
    // The turn itself is kept.
    assert_eq!(last_tool_call(&chat)["toolCall"]["status"], "completed");
    host.shutdown().await;
    tokio::time::sleep(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn a_background_run_with_no_command_is_not_a_directive() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "background-empty").await;
    v.create_session(S).await;
    let chat = v.turn_in(D, "t1", "/run --background").await;
    assert!(work(&chat).is_empty(), "{chat}");
    let text = chat["state"]["turns"][0]["responseParts"].to_string();
    assert!(!text.contains("toolCall"), "{text}");
    assert_eq!(json!(chat["state"]["turns"][0]["state"]), "complete");
    t.host.shutdown().await;
}
