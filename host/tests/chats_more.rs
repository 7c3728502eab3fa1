//! A chat beyond a session's default one gets what the default chat has (`hub/chat_views.rs`):
//! `completions`, terminal claims (a client's and the agent's `/run`), `moveChat` within its
//! session (a reorder) and to a new session, `createChat.workingDirectories`. Bad input: a typed error, nothing
//! changed, the connection alive.

mod common;
mod v1_raw;

use ahp_host::resources::file_uri;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use common::*;
use serde_json::{json, Value};
use std::time::Duration;
use v1_raw::V1;

/// The `resource`s of a session snapshot's `chats`, in order.
fn chats(session: &Value) -> Vec<String> {
    session["state"]["chats"]
        .as_array()
        .expect("chats")
        .iter()
        .map(|c| c["resource"].as_str().unwrap().to_owned())
        .collect()
}

/// The sessions `listSessions` names, sorted.
async fn listed(v: &mut V1) -> Vec<String> {
    let list = v
        .request("listSessions", json!({"channel": ROOT_CHANNEL}))
        .await;
    let mut uris: Vec<String> = list["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"))
        .iter()
        .map(|s| s["resource"].as_str().unwrap().to_owned())
        .collect();
    uris.sort();
    uris
}

/// A session `s` with a second chat `c` (created with `extra` params).
async fn session_with_chat(v: &mut V1, s: &str, c: &str, extra: Value) {
    v.create_session(s).await;
    let mut params = json!({"channel": s, "chat": c});
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let made = v.request("createChat", params).await;
    assert!(made.get("error").is_none(), "{made}");
}

#[tokio::test]
async fn completions_work_on_any_chat_of_a_session() {
    let t = start_host().await;
    let (s, c) = ("ahp-session:/complete", "ahp-chat:/complete/second");
    let mut v = V1::connect(&t.host, "completer").await;
    session_with_chat(&mut v, s, c, json!({})).await;
    for chat in ["ahp-chat:/complete/default", c] {
        let answer = v
            .request(
                "completions",
                json!({"channel": chat, "kind": "userMessage", "text": "see @hel", "offset": 8}),
            )
            .await;
        let items = answer["result"]["items"].as_array().expect("items");
        assert!(
            items.iter().any(|i| i.to_string().contains("hello.txt")),
            "{chat}: {answer}"
        );
    }
    // A chat nobody made, a session, something else: typed errors.
    for (channel, code) in [
        ("ahp-chat:/complete/none", -32001),
        ("ahp-chat:/elsewhere", -32001),
        (s, -32602),
        ("file:///x", -32602),
    ] {
        let answer = v
            .request(
                "completions",
                json!({"channel": channel, "kind": "userMessage", "text": "@", "offset": 1}),
            )
            .await;
        assert_eq!(answer["error"]["code"], code, "{channel}: {answer}");
    }
    v.alive().await;
    // A 0.3.0 client never sees a chat beyond the default one.
    let mut old = Client::ready(&t.host, "completer-0.3").await;
    let params = json!({"channel": c, "kind": "userMessage", "text": "@", "offset": 1});
    old.expect_error("completions", params, -32001).await;
    t.host.shutdown().await;
}

#[tokio::test]
async fn a_terminal_claim_may_name_any_chat_of_its_session() {
    let t = start_host().await;
    let (s, c, other) = (
        "ahp-session:/claims",
        "ahp-chat:/claims/second",
        "ahp-session:/claims-other",
    );
    let mut v = V1::connect(&t.host, "claimer").await;
    session_with_chat(&mut v, s, c, json!({})).await;
    v.create_session(other).await;
    let before = v.subscribe(ROOT_CHANNEL).await;

    // Refused, nothing made: a chat of another session, a chat nobody made, not a chat.
    for (session, chat) in [
        (other, c),
        (s, "ahp-chat:/claims/none"),
        (s, "ahp-chat:/claims-other/default"),
        (s, "ahp-session:/claims"),
    ] {
        let claim = json!({"kind": "session", "session": session, "chat": chat});
        let bad = v
            .request(
                "createTerminal",
                json!({"channel": "ahp-terminal:/bad", "claim": claim}),
            )
            .await;
        assert_eq!(bad["error"]["code"], -32602, "{claim}: {bad}");
    }
    v.alive().await;
    // A 0.3.0 client cannot name a chat's view as a session.
    let mut old = Client::ready(&t.host, "claimer-0.3").await;
    let claim = json!({"kind": "session", "session": c});
    let params = json!({"channel": "ahp-terminal:/bad", "claim": claim});
    old.expect_error("createTerminal", params, -32602).await;
    let gone = v
        .request("subscribe", json!({"channel": "ahp-terminal:/bad"}))
        .await;
    assert!(gone.get("error").is_some(), "{gone}");
    assert_eq!(
        v.subscribe(ROOT_CHANNEL).await["state"]["terminals"],
        before["state"]["terminals"]
    );

    let claim = json!({"kind": "session", "session": s, "chat": c});
    let made = v
        .request(
            "createTerminal",
            json!({"channel": "ahp-terminal:/mine", "claim": claim}),
        )
        .await;
    assert!(made.get("error").is_none(), "{made}");
    let snapshot = v.subscribe("ahp-terminal:/mine").await;
    assert_eq!(snapshot["state"]["claim"], claim, "{snapshot}");
    let root = v.subscribe(ROOT_CHANNEL).await;
    let listed = root["state"]["terminals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["resource"] == "ahp-terminal:/mine")
        .cloned()
        .expect("listed");
    assert_eq!(listed["claim"], claim, "{listed}");
    let disposed = v
        .request("disposeTerminal", json!({"channel": "ahp-terminal:/mine"}))
        .await;
    assert!(disposed.get("error").is_none(), "{disposed}");
    t.host.shutdown().await;
}

#[tokio::test]
async fn the_agents_run_in_a_chat_claims_its_terminal_for_that_chat_and_follows_a_move() {
    let t = start_host().await;
    let (s, c, to) = (
        "ahp-session:/runner",
        "ahp-chat:/runner/second",
        "ahp-session:/runner-to",
    );
    let mut v = V1::connect(&t.host, "runner").await;
    session_with_chat(&mut v, s, c, json!({})).await;
    v.create_session(to).await;
    v.subscribe(ROOT_CHANNEL).await;
    v.turn_in(c, "t1", "/run echo from-a-chat").await;
    let root = v.subscribe(ROOT_CHANNEL).await;
    let terminals = root["state"]["terminals"].as_array().unwrap().clone();
    assert_eq!(terminals.len(), 1, "{root}");
    let terminal = terminals[0]["resource"].as_str().unwrap().to_owned();
    // The run is over: the claim is narrowed to the chat, still naming the real session.
    assert_eq!(
        terminals[0]["claim"],
        json!({"kind": "session", "session": s, "chat": c}),
        "{root}"
    );
    let snapshot = v.subscribe(&terminal).await;
    assert_eq!(snapshot["state"]["claim"]["session"], s, "{snapshot}");
    assert_eq!(snapshot["state"]["claim"]["chat"], c, "{snapshot}");

    let moved = v
        .request(
            "moveChat",
            json!({"channel": c, "destination": {"kind": "session", "session": to}}),
        )
        .await;
    assert!(moved.get("error").is_none(), "{moved}");
    let snapshot = v.subscribe(&terminal).await;
    assert_eq!(
        snapshot["state"]["claim"],
        json!({"kind": "session", "session": to, "chat": c}),
        "{snapshot}"
    );
    // The chat's terminals go with it.
    let disposed = v.request("disposeChat", json!({"channel": c})).await;
    assert!(disposed.get("error").is_none(), "{disposed}");
    let root = v.subscribe(ROOT_CHANNEL).await;
    assert_eq!(root["state"]["terminals"], json!([]), "{root}");
    t.host.shutdown().await;
}

#[tokio::test]
async fn move_chat_within_its_session_reorders_it_and_survives_a_restart() {
    let t = start_host().await;
    let s = "ahp-session:/order";
    let (d, a, b) = (
        "ahp-chat:/order/default",
        "ahp-chat:/order/a",
        "ahp-chat:/order/b",
    );
    let mut v = V1::connect(&t.host, "orderer").await;
    session_with_chat(&mut v, s, a, json!({})).await;
    let made = v
        .request("createChat", json!({"channel": s, "chat": b}))
        .await;
    assert!(made.get("error").is_none(), "{made}");
    let session = v.subscribe(s).await;
    assert_eq!(chats(&session), [d, a, b]);

    // Refused, nothing changed: itself as the anchor, an anchor of no chat, the default chat,
    // a new session.
    for (params, code) in [
        (
            json!({"channel": a, "destination": {"kind": "session", "session": s, "after": a}}),
            -32602,
        ),
        (
            json!({"channel": a, "destination": {"kind": "session", "session": s, "after": "ahp-chat:/order/none"}}),
            -32602,
        ),
        (
            json!({"channel": d, "destination": {"kind": "session", "session": s}}),
            -32602,
        ),
        (
            json!({"channel": a, "destination": {"kind": "elsewhere"}}),
            -32602,
        ),
    ] {
        let answer = v.request("moveChat", params.clone()).await;
        assert_eq!(answer["error"]["code"], code, "{params}: {answer}");
    }
    v.alive().await;
    assert_eq!(chats(&v.subscribe(s).await), [d, a, b]);

    let moved = v
        .request(
            "moveChat",
            json!({"channel": b, "destination": {"kind": "session", "session": s, "after": d}}),
        )
        .await;
    assert_eq!(moved["result"]["session"], s, "{moved}");
    // Sent before the answer.
    let reordered = v
        .log
        .iter()
        .rfind(|e| e["channel"] == s && e["action"]["type"] == "session/chatsReordered")
        .expect("session/chatsReordered");
    assert_eq!(reordered["action"]["chats"], json!([d, b, a]));
    // First when no anchor is given.
    let moved = v
        .request(
            "moveChat",
            json!({"channel": b, "destination": {"kind": "session", "session": s}}),
        )
        .await;
    assert_eq!(moved["result"]["session"], s, "{moved}");
    assert_eq!(chats(&v.subscribe(s).await), [b, d, a]);
    let moved = v
        .request(
            "moveChat",
            json!({"channel": a, "destination": {"kind": "session", "session": s, "after": b}}),
        )
        .await;
    assert!(moved.get("error").is_none(), "{moved}");
    assert_eq!(chats(&v.subscribe(s).await), [b, a, d]);
    v.c.close().await;

    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut v = V1::connect(&host, "orderer-2").await;
    assert_eq!(chats(&v.subscribe(s).await), [b, a, d]);
    host.shutdown().await;
    tokio::time::sleep(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn move_chat_to_a_new_session_creates_it_like_the_source_and_survives_a_restart() {
    let t = start_host().await;
    let s = "ahp-session:/mover";
    let c = "ahp-chat:/mover/c";
    let mut v = V1::connect(&t.host, "mover").await;
    let made = v
        .request(
            "createSession",
            json!({"channel": s, "config": {"mode": "ask"}}),
        )
        .await;
    assert!(made.get("error").is_none(), "{made}");
    let made = v
        .request("createChat", json!({"channel": s, "chat": c}))
        .await;
    assert!(made.get("error").is_none(), "{made}");
    let before = v.turn_in(c, "t1", "moved with its turns").await;
    let sessions = listed(&mut v).await;

    let moved = v
        .request(
            "moveChat",
            json!({"channel": c, "destination": {"kind": "newSession"}}),
        )
        .await;
    let to = moved["result"]["session"]
        .as_str()
        .unwrap_or_else(|| panic!("{moved}"))
        .to_owned();
    assert!(to.starts_with("ahp-session:/") && to != s, "{moved}");
    // The root lists it; the source keeps its default chat only; the new session has the chat
    // first, then its own default chat, and the source's working directory and config.
    let mut now = listed(&mut v).await;
    assert!(now.iter().any(|uri| uri == &to), "{now:?}");
    now.retain(|uri| uri != &to);
    assert_eq!(now, sessions);
    assert_eq!(chats(&v.subscribe(s).await), ["ahp-chat:/mover/default"]);
    let own_default = to.replacen("ahp-session:/", "ahp-chat:/", 1) + "/default";
    let source = v.subscribe(s).await;
    let session = v.subscribe(&to).await;
    assert_eq!(chats(&session), [c, own_default.as_str()], "{session}");
    assert_eq!(
        session["state"]["defaultChat"],
        json!(own_default),
        "{session}"
    );
    for key in ["workingDirectories", "config"] {
        assert_eq!(session["state"][key], source["state"][key], "{key}");
    }
    assert_eq!(
        session["state"]["config"]["values"]["mode"], "ask",
        "{session}"
    );
    // The chat kept its URI and turns, and still runs turns there.
    let chat = v.subscribe(c).await;
    assert_eq!(chat["state"]["turns"], before["state"]["turns"]);
    v.turn_in(c, "t2", "after the move").await;
    v.c.close().await;

    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut v = V1::connect(&host, "mover-2").await;
    assert_eq!(chats(&v.subscribe(&to).await), [c, own_default.as_str()]);
    let chat = v.subscribe(c).await;
    assert_eq!(
        chat["state"]["turns"].as_array().map_or(0, Vec::len),
        2,
        "{chat}"
    );
    host.shutdown().await;
    tokio::time::sleep(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn a_move_to_a_new_session_the_host_cannot_make_changes_nothing() {
    // The session and its second chat fill the host (chats count as sessions here).
    let t = start_host_with(|c| c.limits.max_sessions = 2).await;
    let (s, c) = ("ahp-session:/full", "ahp-chat:/full/c");
    let mut v = V1::connect(&t.host, "full").await;
    session_with_chat(&mut v, s, c, json!({})).await;
    let before = listed(&mut v).await;
    let refused = v
        .request(
            "moveChat",
            json!({"channel": c, "destination": {"kind": "newSession"}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("at most 2 sessions")),
        "{refused}"
    );
    v.alive().await;
    assert_eq!(listed(&mut v).await, before);
    assert_eq!(chats(&v.subscribe(s).await), ["ahp-chat:/full/default", c]);
    t.host.shutdown().await;
}

#[tokio::test]
async fn create_chat_takes_only_the_sessions_working_directories() {
    let t = start_host().await;
    let s = "ahp-session:/dirs";
    let dir = file_uri(&t.work.path().canonicalize().unwrap());
    let mut v = V1::connect(&t.host, "dirs").await;
    let created = v
        .request(
            "createSession",
            json!({"channel": s, "workingDirectories": [dir]}),
        )
        .await;
    assert!(created.get("error").is_none(), "{created}");
    let before = v.subscribe(s).await;
    let listed = before["state"]["workingDirectories"].clone();
    assert_eq!(listed, json!([dir]), "{before}");

    let outside = file_uri(&std::env::temp_dir());
    for dirs in [json!([outside]), json!([dir, "file:///nowhere"])] {
        let params =
            json!({"channel": s, "chat": "ahp-chat:/dirs/bad", "workingDirectories": dirs});
        let bad = v.request("createChat", params).await;
        assert_eq!(bad["error"]["code"], -32602, "{dirs}: {bad}");
    }
    v.alive().await;
    let after = v.subscribe(s).await;
    assert_eq!(chats(&after), chats(&before));
    let none = v
        .request("subscribe", json!({"channel": "ahp-chat:/dirs/bad"}))
        .await;
    assert!(none.get("error").is_some(), "{none}");

    let c = "ahp-chat:/dirs/good";
    let params = json!({"channel": s, "chat": c, "workingDirectories": [dir]});
    let made = v.request("createChat", params).await;
    assert!(made.get("error").is_none(), "{made}");
    let chat = v.subscribe(c).await;
    assert_eq!(chat["state"]["workingDirectories"], json!([dir]), "{chat}");
    let session = v.subscribe(s).await;
    let entry = session["state"]["chats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["resource"] == c)
        .cloned()
        .expect("listed");
    assert_eq!(entry["workingDirectories"], json!([dir]), "{entry}");
    t.host.shutdown().await;
}
