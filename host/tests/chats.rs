//! The host's AHP 1.0 state (`hub/v1_mirror.rs`, `hub/chats.rs`): always there, kept in
//! SQLite with what only 1.0 has (a chat's draft, the session's archived flag), across restarts
//! and a kill -9 during a turn; a database of an older host (0.3.0 state only) is lifted once and
//! kept, one of a host that kept both states keeps the 1.0 one, and the 0.3.0 rows go.

mod common;
mod v1_raw;

use ahp_wasm::client::native::{AhpClient, ConnectOptions};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::v1;
use ahp_wasm::sync::v1::AnyState;
use common::*;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;
use v1_raw::V1;

fn options(client_id: &str) -> ConnectOptions {
    ConnectOptions {
        client_id: Some(client_id.into()),
        protocol_versions: vec!["1.0.0".into()],
        ..Default::default()
    }
}

/// A fresh 1.0 client's snapshots of session `s` and its chat `c`.
async fn snapshots(url: &str, s: &str, c: &str) -> (v1::SessionState, v1::ChatState) {
    let client = AhpClient::connect(url, options("snapshot-reader"))
        .await
        .expect("a 1.0.0 handshake");
    client.subscribe(s).await.expect("session");
    client.subscribe(c).await.expect("chat");
    let Some(AnyState::Session(session)) = client.state_v1(s) else {
        panic!("{s} is a session");
    };
    let Some(AnyState::Chat(chat)) = client.state_v1(c) else {
        panic!("{c} is a chat");
    };
    client.close();
    (session, chat)
}

/// A raw 1.0 connection (frames as JSON).
async fn raw_v1(host: &ahp_host::RunningHost, client_id: &str) -> Client {
    raw_v1_url(&url_with_token(host), client_id).await
}

async fn raw_v1_url(url: &str, client_id: &str) -> Client {
    let mut raw = Client::connect_url(url, client_id).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "channel": ROOT_CHANNEL, "protocolVersions": ["1.0.0"], "clientId": client_id}});
    raw.send_text(init.to_string()).await;
    let answer = answer_to(&mut raw, 1).await;
    assert_eq!(answer["result"]["protocolVersion"], "1.0.0", "{answer}");
    raw
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

/// Dispatches `action` on `channel` (subscribed to) and returns its echo (the envelope with
/// its `clientSeq`).
async fn dispatch(raw: &mut Client, channel: &str, seq: u64, action: Value) -> Value {
    let frame = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
        "channel": channel, "clientSeq": seq, "action": action}});
    raw.send_text(frame.to_string()).await;
    loop {
        let frame = raw.read_frame().await.expect("connection open");
        if frame["method"] == "action"
            && frame["params"]["channel"] == channel
            && frame["params"]["origin"]["clientSeq"] == seq
        {
            return frame["params"].clone();
        }
    }
}

/// Runs one turn of the built-in agent in chat `c` (as a 1.0 client) to its end.
async fn run_turn(raw: &mut Client, c: &str, seq: u64, turn_id: &str) {
    let started = json!({"type": "chat/turnStarted", "turnId": turn_id,
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": {"text": format!("hello {turn_id}"), "origin": {"kind": "user"}}});
    let echo = dispatch(raw, c, seq, started).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    loop {
        let frame = raw.read_frame().await.expect("connection open");
        let action = &frame["params"]["action"];
        if frame["params"]["channel"] == c
            && action["type"] == "chat/turnComplete"
            && action["turnId"] == turn_id
        {
            return;
        }
    }
}

/// A turn of the built-in agent that streams for a while (`long`).
fn long_turn() -> Value {
    json!({"type": "chat/turnStarted", "turnId": "long",
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": {"text": "/long 5000", "origin": {"kind": "user"}}})
}

/// Reads until `n` `chat/delta` envelopes came; the highest `serverSeq` seen, `last_seq` or above.
async fn deltas_seen(raw: &mut Client, n: usize, mut last_seq: u64) -> u64 {
    let mut deltas = 0;
    while deltas < n {
        let frame = raw.read_frame().await.expect("connection open");
        if frame["params"]["action"]["type"] == "chat/delta" {
            deltas += 1;
            last_seq = last_seq.max(frame["params"]["serverSeq"].as_u64().unwrap());
        }
    }
    last_seq
}

fn draft(text: &str) -> Value {
    json!({"type": "chat/draftChanged", "draft": {"text": text, "origin": {"kind": "user"}}})
}

#[tokio::test]
async fn state_only_1_0_has_is_kept_and_survives_a_restart() {
    let t = start_host().await;
    let url = url_with_token(&t.host);
    let (s, c) = ("ahp-session:/kept", "ahp-chat:/kept/default");
    let mut raw = raw_v1(&t.host, "kept-client").await;
    let created = request(&mut raw, 2, "createSession", json!({"channel": s})).await;
    assert!(created.get("result").is_some(), "{created}");
    request(&mut raw, 3, "subscribe", json!({"channel": s})).await;
    request(&mut raw, 4, "subscribe", json!({"channel": c})).await;
    request(&mut raw, 5, "subscribe", json!({"channel": ROOT_CHANNEL})).await;
    run_turn(&mut raw, c, 1, "t1").await;

    // A draft (chat) and the archived flag (session): 1.0 only, applied, echoed.
    let echo = dispatch(&mut raw, c, 2, draft("half a thought")).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    let archived = json!({"type": "session/isArchivedChanged", "isArchived": true});
    let echo = dispatch(&mut raw, s, 3, archived).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    let last_seq = echo["serverSeq"].as_u64().unwrap();
    // 1.0 root subscribers hear of the session's new status.
    let changed = loop {
        let frame = raw.read_frame().await.expect("connection open");
        if frame["method"] == "root/sessionSummaryChanged" && frame["params"]["session"] == s {
            break frame["params"]["changes"].clone();
        }
    };
    let status = changed["status"].as_u64().unwrap_or_default() as u32;
    assert_ne!(status & v1::SessionStatus::IsArchived.0, 0, "{changed}");
    // A 1.0-only action clients may not dispatch: rejected, nothing changed.
    let canvases = json!({"type": "chat/canvasesChanged", "canvases": []});
    let echo = dispatch(&mut raw, c, 4, canvases).await;
    assert!(
        echo["rejectionReason"]
            .as_str()
            .is_some_and(|r| r.contains("may not dispatch")),
        "{echo}"
    );

    let (session, chat) = snapshots(&url, s, c).await;
    assert_eq!(
        chat.draft.as_ref().map(|d| d.text.as_str()),
        Some("half a thought")
    );
    assert_eq!(chat.turns.len(), 1);
    assert_ne!(
        session.status & v1::SessionStatus::IsArchived.0,
        0,
        "archived: {}",
        session.status
    );
    // A 0.3.0 client of the same session is shown the session as before.
    let mut old = Client::ready(&t.host, "old-client").await;
    let view = session_state(&old.subscribe(s).await);
    assert_eq!(view.turns.len(), 1);
    old.close().await;
    raw.close().await;

    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let url = url_with_token(&host);
    let after = snapshots(&url, s, c).await;
    assert_eq!(after.1, chat, "the chat after a restart");
    assert_eq!(after.0, session, "the session after a restart");
    // serverSeq is never reused: the next number is past the last one handed out.
    let mut raw = raw_v1(&host, "kept-client-2").await;
    request(&mut raw, 2, "subscribe", json!({"channel": c})).await;
    let echo = dispatch(&mut raw, c, 1, draft("another")).await;
    assert!(echo["serverSeq"].as_u64().unwrap() > last_seq, "{echo}");
    raw.close().await;
    host.shutdown().await;
}

#[tokio::test]
async fn kill_9_during_a_turn_keeps_the_1_0_state_a_client_saw() {
    const TOKEN: &str = "chats-test-token-0123456789abcdef";
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let spawn = || HostProcess::spawn(data.path(), work.path(), TOKEN, &["--chunk-delay-ms", "1"]);
    let (s, c) = ("ahp-session:/killed", "ahp-chat:/killed/default");
    let host = spawn();
    let mut raw = raw_v1_url(&host.url(), "k1").await;
    request(&mut raw, 2, "createSession", json!({"channel": s})).await;
    request(&mut raw, 3, "subscribe", json!({"channel": c})).await;
    run_turn(&mut raw, c, 1, "t1").await;
    let started = long_turn();
    dispatch(&mut raw, c, 2, started).await;
    // A draft typed while the agent streams; then some more of the stream.
    let echo = dispatch(&mut raw, c, 3, draft("typed mid-turn")).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    let last_seq = deltas_seen(&mut raw, 20, echo["serverSeq"].as_u64().unwrap()).await;
    host.kill_9();

    let host = spawn();
    let url = host.url();
    let (_, chat) = snapshots(&url, s, c).await;
    assert_eq!(
        chat.draft.as_ref().map(|d| d.text.as_str()),
        Some("typed mid-turn")
    );
    // The interrupted turn ended (with the host's restart error) after the completed one.
    let ids: Vec<&str> = chat.turns.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["t1", "long"]);
    assert!(chat.active_turn.is_none());
    // The 0.3.0 view of the same session agrees.
    let mut old = Client::connect_url(&url, "k-old").await;
    old.initialize(&[]).await;
    let view = session_state(&old.subscribe(s).await);
    let view_ids: Vec<&str> = view.turns.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(view_ids, ids);
    old.close().await;
    let mut raw = raw_v1_url(&url, "k2").await;
    request(&mut raw, 2, "subscribe", json!({"channel": c})).await;
    let echo = dispatch(&mut raw, c, 1, draft("after")).await;
    assert!(echo["serverSeq"].as_u64().unwrap() > last_seq, "{echo}");
    raw.close().await;
    host.kill_9();
}

/// Makes the database what a host before AHP 1.0 left: no 1.0 tables, and `state` stored as
/// such a host stored a session (its head without the completed turns, the turns in order).
fn as_older_database(data: &Path, state: &ahp_wasm::protocol::SessionState) {
    let db = rusqlite::Connection::open(data.join("ahp-host.sqlite3")).unwrap();
    db.execute_batch("DROP TABLE v1_sessions; DROP TABLE chat_turns; DROP TABLE v1_actions;")
        .unwrap();
    write_older_rows(&db, state);
}

/// Stores `state` in the 0.3.0 tables as an older host did.
fn write_older_rows(db: &rusqlite::Connection, state: &ahp_wasm::protocol::SessionState) {
    let uri = &state.summary.resource;
    let mut head = serde_json::to_value(state).unwrap();
    head["turns"] = json!([]);
    let seq: i64 = db
        .query_row("SELECT value FROM meta WHERE key = 'seq'", [], |r| r.get(0))
        .unwrap();
    db.execute(
        "INSERT INTO sessions(uri, head, head_seq) VALUES (?1, ?2, ?3)",
        rusqlite::params![uri, head.to_string(), seq],
    )
    .unwrap();
    for (idx, turn) in state.turns.iter().enumerate() {
        db.execute(
            "INSERT INTO turns(uri, idx, turn_id, json) VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![
                uri,
                idx as i64,
                turn.id,
                serde_json::to_string(&**turn).unwrap()
            ],
        )
        .unwrap();
    }
}

/// Rows left in the tables of the 0.3.0 state older hosts stored.
fn older_rows(data: &Path) -> i64 {
    stored_rows(
        data,
        "SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM turns) + \
         (SELECT COUNT(*) FROM actions)",
    )
}

fn stored_v1_heads(data: &Path) -> i64 {
    stored_rows(data, "SELECT COUNT(*) FROM v1_sessions")
}

fn stored_rows(data: &Path, query: &str) -> i64 {
    let db = rusqlite::Connection::open(data.join("ahp-host.sqlite3")).unwrap();
    db.query_row(query, [], |r| r.get(0)).unwrap()
}

#[tokio::test]
async fn truncation_and_disposal_reach_the_stored_1_0_state() {
    let t = start_host().await;
    let (s, c) = ("ahp-session:/cut", "ahp-chat:/cut/default");
    let gone = "ahp-session:/gone";
    let mut old = Client::in_new_session(&t.host, "cutter", s).await;
    for n in 0..3 {
        let id = format!("t{n}");
        old.send_message(s, &id, &format!("turn {n}")).await;
        old.until_turn_end(&id).await;
    }
    let truncated: ahp_wasm::protocol::StateAction =
        serde_json::from_value(json!({"type": "session/truncated", "turnId": "t0"})).unwrap();
    old.dispatch(s, truncated).await;
    old.send_message(s, "t3", "after the cut").await;
    old.until_turn_end("t3").await;
    old.create_session(gone).await;
    old.subscribe(gone).await;
    old.send_message(gone, "g0", "soon gone").await;
    old.until_turn_end("g0").await;
    old.call("disposeSession", json!({"channel": gone}))
        .await
        .expect("disposeSession");
    old.close().await;
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    assert_eq!(
        stored_v1_heads(data.path()),
        1,
        "the disposed session's 1.0 head went"
    );
    let gone_rows = stored_rows(
        data.path(),
        "SELECT (SELECT COUNT(*) FROM chat_turns WHERE session = 'ahp-session:/gone') + \
         (SELECT COUNT(*) FROM v1_actions WHERE session = 'ahp-session:/gone')",
    );
    assert_eq!(
        gone_rows, 0,
        "nothing of the disposed session's 1.0 state is left"
    );

    let host = restart(data.path(), work.path()).await;
    let (_, chat) = snapshots(&url_with_token(&host), s, c).await;
    let ids: Vec<&str> = chat.turns.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["t0", "t3"]);
    host.shutdown().await;
}

#[tokio::test]
async fn a_database_of_an_older_host_is_lifted_once_and_kept() {
    let t = start_host().await;
    let (s, c) = ("ahp-session:/older", "ahp-chat:/older/default");
    let mut old = Client::in_new_session(&t.host, "old-client", s).await;
    for n in 0..2 {
        let id = format!("t{n}");
        old.send_message(s, &id, &format!("turn {n}")).await;
        old.until_turn_end(&id).await;
    }
    let before = session_state(&old.subscribe(s).await);
    old.close().await;
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    assert_eq!(
        older_rows(data.path()),
        0,
        "this host stores no 0.3.0 state"
    );
    as_older_database(data.path(), &before);

    let host = restart(data.path(), work.path()).await;
    let url = url_with_token(&host);
    let (session, chat) = snapshots(&url, s, c).await;
    let ids: Vec<&str> = chat.turns.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["t0", "t1"]);
    assert_eq!(session.title, before.summary.title);
    assert_eq!(session.default_chat.as_deref(), Some(c));
    // A 0.3.0 client sees the session as before: the view of the lifted state.
    let mut old = Client::ready(&host, "old-client-2").await;
    let view = session_state(&old.subscribe(s).await);
    assert_eq!(comparable(&view), comparable(&before));
    old.close().await;
    // A 1.0-only change on the lifted state is kept from now on.
    let mut raw = raw_v1(&host, "new-client").await;
    request(&mut raw, 2, "subscribe", json!({"channel": c})).await;
    let echo = dispatch(&mut raw, c, 1, draft("after the lift")).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    raw.close().await;
    host.shutdown().await;
    assert_eq!(stored_v1_heads(data.path()), 1, "lifted once and stored");
    assert_eq!(
        older_rows(data.path()),
        0,
        "the 0.3.0 rows went with the lift"
    );

    let host = restart(data.path(), work.path()).await;
    let url = url_with_token(&host);
    let (_, again) = snapshots(&url, s, c).await;
    assert_eq!(
        again.draft.as_ref().map(|d| d.text.as_str()),
        Some("after the lift")
    );
    assert_eq!(again.turns, chat.turns);
    let mut old = Client::ready(&host, "old-client-3").await;
    let view = session_state(&old.subscribe(s).await);
    assert_eq!(comparable(&view), comparable(&before));
    old.close().await;
    host.shutdown().await;
    // Let the host's files go before the directories do.
    tokio::time::sleep(Duration::from_millis(10)).await;
}

/// A host that kept both states stored the creation time and the 0.3.0 model selection in the
/// 0.3.0 state only: they are taken from there once, kept with the 1.0 state, and the 0.3.0
/// rows go.
#[tokio::test]
async fn a_database_that_kept_both_states_keeps_the_1_0_one() {
    let t = start_host().await;
    let s = "ahp-session:/both";
    let mut old = Client::in_new_session(&t.host, "old-client", s).await;
    old.send_message(s, "t0", "hello").await;
    old.until_turn_end("t0").await;
    let mut before = session_state(&old.subscribe(s).await);
    old.close().await;
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    // What that host stored: a 1.0 head without the host's fields, and the 0.3.0 state
    // (here with a creation time and a model of its own, to tell where they come from).
    before.summary.created_at = 1_700_000_000_000.0;
    before.summary.model = Some(ahp_wasm::protocol::ModelSelection {
        id: "chosen-by-an-older-client".into(),
        ..Default::default()
    });
    {
        let db = rusqlite::Connection::open(data.path().join("ahp-host.sqlite3")).unwrap();
        db.execute(
            "UPDATE v1_sessions SET head = json_remove(head, '$.host')",
            [],
        )
        .unwrap();
        write_older_rows(&db, &before);
    }

    for round in 0..2 {
        let host = restart(data.path(), work.path()).await;
        let mut old = Client::ready(&host, &format!("reader-{round}")).await;
        let view = session_state(&old.subscribe(s).await);
        assert_eq!(comparable(&view), comparable(&before), "round {round}");
        old.close().await;
        host.shutdown().await;
        assert_eq!(older_rows(data.path()), 0, "round {round}");
        let kept = stored_rows(
            data.path(),
            "SELECT CAST(json_extract(head, '$.host.createdAt') AS INTEGER) FROM v1_sessions",
        );
        assert_eq!(kept, 1_700_000_000_000, "round {round}");
    }
    tokio::time::sleep(Duration::from_millis(10)).await;
}

/// The resources of a session's `chats` entries, sorted.
fn chat_uris(session: &v1::SessionState) -> Vec<&str> {
    let mut uris: Vec<&str> = session.chats.iter().map(|c| c.resource.as_str()).collect();
    uris.sort();
    uris
}

fn turn_ids(chat: &v1::ChatState) -> Vec<&str> {
    chat.turns.iter().map(|t| t.id.as_str()).collect()
}

#[tokio::test]
async fn a_second_chat_is_a_conversation_of_its_own_and_survives_a_restart() {
    let t = start_host().await;
    let url = url_with_token(&t.host);
    let (s, c1, c2) = (
        "ahp-session:/two",
        "ahp-chat:/two/default",
        "ahp-chat:/two/second",
    );
    let mut raw = raw_v1(&t.host, "two-client").await;
    request(&mut raw, 2, "createSession", json!({"channel": s})).await;
    request(&mut raw, 3, "subscribe", json!({"channel": c1})).await;
    let created = request(&mut raw, 4, "createChat", json!({"channel": s, "chat": c2})).await;
    assert!(created.get("result").is_some(), "{created}");
    let subscribed = request(&mut raw, 5, "subscribe", json!({"channel": c2})).await;
    assert!(subscribed.get("result").is_some(), "{subscribed}");

    // A slow turn in the default chat does not hold up a turn in the second one.
    let slow = json!({"type": "chat/turnStarted", "turnId": "slow",
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": {"text": "/slow\n/long 400", "origin": {"kind": "user"}}});
    let echo = dispatch(&mut raw, c1, 1, slow).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    let begun = std::time::Instant::now();
    run_turn(&mut raw, c2, 2, "quick").await;
    assert!(
        begun.elapsed() < Duration::from_secs(10),
        "{:?}",
        begun.elapsed()
    );
    let (session, first) = snapshots(&url, s, c1).await;
    assert_eq!(
        first.active_turn.as_ref().map(|t| t.id.as_str()),
        Some("slow"),
        "the slow turn still runs"
    );
    assert!(first.turns.is_empty());
    assert_eq!(chat_uris(&session), [c1, c2]);
    let (_, second) = snapshots(&url, s, c2).await;
    assert_eq!(turn_ids(&second), ["quick"]);
    assert!(second.active_turn.is_none());

    // A 0.3.0 client sees the session as its default chat, and nothing of the other one.
    let mut old = Client::ready(&t.host, "old-client").await;
    let listed: Vec<String> = old
        .list_sessions()
        .await
        .items
        .into_iter()
        .map(|s| s.resource)
        .collect();
    assert_eq!(listed, [s]);
    old.expect_error("subscribe", json!({"channel": c2}), -32008)
        .await;
    let view = session_state(&old.subscribe(s).await);
    assert!(view.turns.is_empty());
    assert_eq!(
        view.active_turn.as_ref().map(|t| t.id.as_str()),
        Some("slow")
    );
    old.close().await;
    raw.close().await;

    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let url = url_with_token(&host);
    let (session, again) = snapshots(&url, s, c2).await;
    assert_eq!(again, second, "the second chat after a restart");
    assert_eq!(chat_uris(&session), [c1, c2]);
    // Its agent answers again after the restart.
    let mut raw = raw_v1(&host, "two-client-2").await;
    request(&mut raw, 2, "subscribe", json!({"channel": s})).await;
    request(&mut raw, 3, "subscribe", json!({"channel": c2})).await;
    run_turn(&mut raw, c2, 1, "again").await;
    let (_, after) = snapshots(&url, s, c2).await;
    assert_eq!(turn_ids(&after), ["quick", "again"]);

    // Disposed of: gone from the session, not subscribable, gone from the database.
    let disposed = request(&mut raw, 4, "disposeChat", json!({"channel": c2})).await;
    assert!(disposed.get("result").is_some(), "{disposed}");
    let gone = request(&mut raw, 5, "subscribe", json!({"channel": c2})).await;
    assert_eq!(gone["error"]["code"], -32001, "{gone}");
    let reader = AhpClient::connect(&url, options("reader"))
        .await
        .expect("a 1.0.0 handshake");
    reader.subscribe(s).await.expect("session");
    let Some(AnyState::Session(session)) = reader.state_v1(s) else {
        panic!("{s} is a session");
    };
    reader.close();
    assert_eq!(chat_uris(&session), [c1]);
    raw.close().await;
    host.shutdown().await;
    let left = stored_rows(
        data.path(),
        "SELECT (SELECT COUNT(*) FROM chat_turns WHERE chat = 'ahp-chat:/two/second') + \
         (SELECT COUNT(*) FROM v1_sessions WHERE uri = 'ahp-chat:/two/second') + \
         (SELECT COUNT(*) FROM sessions WHERE uri = 'ahp-chat:/two/second')",
    );
    assert_eq!(left, 0, "nothing of the disposed chat is stored");
    tokio::time::sleep(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn bad_chat_commands_get_typed_errors_and_change_nothing() {
    let t = start_host().await;
    let url = url_with_token(&t.host);
    let (s, c1, c2) = (
        "ahp-session:/strict",
        "ahp-chat:/strict/default",
        "ahp-chat:/strict/b",
    );
    let mut raw = raw_v1(&t.host, "strict-client").await;
    request(&mut raw, 2, "createSession", json!({"channel": s})).await;
    let ok = request(&mut raw, 3, "createChat", json!({"channel": s, "chat": c2})).await;
    assert!(ok.get("result").is_some(), "{ok}");
    let (before, _) = snapshots(&url, s, c2).await;
    let cases = [
        (
            "createChat",
            json!({"channel": "ahp-session:/nope", "chat": "ahp-chat:/nope/x"}),
            -32001,
        ),
        (
            "createChat",
            json!({"channel": s, "chat": "ahp-chat:/other/x"}),
            -32602,
        ),
        ("createChat", json!({"channel": s, "chat": c1}), -32602),
        (
            "createChat",
            json!({"channel": s, "chat": "ahp-chat:/strict/a\u{7}"}),
            -32602,
        ),
        ("createChat", json!({"channel": s, "chat": c2}), -32010),
        (
            "createChat",
            json!({"channel": c2, "chat": "ahp-chat:/strict/b/c"}),
            -32001,
        ),
        ("disposeChat", json!({"channel": c1}), -32602),
        (
            "disposeChat",
            json!({"channel": "ahp-chat:/strict/none"}),
            -32008,
        ),
        ("disposeChat", json!({"channel": s}), -32008),
        ("disposeSession", json!({"channel": c2}), -32001),
    ];
    for (i, (method, params, code)) in cases.into_iter().enumerate() {
        let answer = request(&mut raw, 10 + i as u64, method, params.clone()).await;
        assert_eq!(answer["error"]["code"], code, "{method} {params}: {answer}");
    }
    // Both connections alive, nothing changed.
    let pong = request(&mut raw, 99, "ping", json!({"channel": ROOT_CHANNEL})).await;
    assert!(pong.get("result").is_some(), "{pong}");
    let (after, _) = snapshots(&url, s, c2).await;
    assert_eq!(after, before);

    // The spec's opaque chat URI, with a first message: its turn runs on the chat's own.
    let opaque = "ahp-chat:/9f1c2d3e-opaque";
    let message = json!({"text": "hi there", "origin": {"kind": "user"}});
    let params = json!({"channel": s, "chat": opaque, "initialMessage": message});
    let made = request(&mut raw, 40, "createChat", params).await;
    assert!(made.get("result").is_some(), "{made}");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let (session, chat) = loop {
        let (session, chat) = snapshots(&url, s, opaque).await;
        if chat.active_turn.is_none() && !chat.turns.is_empty() {
            break (session, chat);
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no first turn: {chat:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(chat.turns.len(), 1);
    assert_eq!(chat.turns[0].message.text, "hi there");
    assert_eq!(chat_uris(&session), [opaque, c2, c1]);

    // The session's chats go with it.
    let disposed = request(&mut raw, 41, "disposeSession", json!({"channel": s})).await;
    assert!(disposed.get("result").is_some(), "{disposed}");
    let gone = request(&mut raw, 42, "subscribe", json!({"channel": opaque})).await;
    assert_eq!(gone["error"]["code"], -32001, "{gone}");
    raw.close().await;
    let common::TestHost { host, data, .. } = t;
    host.shutdown().await;
    let left = stored_rows(
        data.path(),
        "SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM v1_sessions) + \
         (SELECT COUNT(*) FROM chat_turns)",
    );
    assert_eq!(left, 0, "nothing of the session or its chats is stored");
    tokio::time::sleep(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn move_chat_hands_a_chat_to_another_session_and_survives_a_restart() {
    let t = start_host().await;
    let url = url_with_token(&t.host);
    let (s1, s2, c) = (
        "ahp-session:/from",
        "ahp-session:/to",
        "ahp-chat:/from/moving",
    );
    let (d1, d2) = ("ahp-chat:/from/default", "ahp-chat:/to/default");
    let mut raw = raw_v1(&t.host, "mover").await;
    request(&mut raw, 2, "createSession", json!({"channel": s1})).await;
    request(&mut raw, 3, "createSession", json!({"channel": s2})).await;
    request(&mut raw, 4, "createChat", json!({"channel": s1, "chat": c})).await;
    request(&mut raw, 5, "subscribe", json!({"channel": c})).await;
    run_turn(&mut raw, c, 1, "before").await;
    let (_, chat) = snapshots(&url, s1, c).await;
    assert_eq!(chat.movable, Some(true));

    // Refused, nothing changed: the default chat, a missing session, a missing anchor (a move
    // to its own session is a reorder, one to a new session creates it: `chats_more.rs`).
    let bad = [
        (
            json!({"channel": d1, "destination": {"kind": "session", "session": s2}}),
            -32602,
        ),
        (
            json!({"channel": c, "destination": {"kind": "session", "session": "ahp-session:/none"}}),
            -32001,
        ),
        (
            json!({"channel": c, "destination": {"kind": "session", "session": s2, "after": "ahp-chat:/x"}}),
            -32602,
        ),
        (
            json!({"channel": "ahp-chat:/from/none", "destination": {"kind": "session", "session": s2}}),
            -32008,
        ),
    ];
    for (i, (params, code)) in bad.into_iter().enumerate() {
        let answer = request(&mut raw, 10 + i as u64, "moveChat", params.clone()).await;
        assert_eq!(answer["error"]["code"], code, "{params}: {answer}");
    }
    let (from, _) = snapshots(&url, s1, c).await;
    assert_eq!(chat_uris(&from), [d1, c]);

    let params =
        json!({"channel": c, "destination": {"kind": "session", "session": s2, "after": d2}});
    let moved = request(&mut raw, 20, "moveChat", params).await;
    assert_eq!(moved["result"]["session"], s2, "{moved}");
    let (from, _) = snapshots(&url, s1, d1).await;
    assert_eq!(chat_uris(&from), [d1]);
    let (to, _) = snapshots(&url, s2, c).await;
    let order: Vec<&str> = to.chats.iter().map(|c| c.resource.as_str()).collect();
    assert_eq!(order, [d2, c]);
    raw.close().await;

    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let url = url_with_token(&host);
    let (to, after) = snapshots(&url, s2, c).await;
    assert_eq!(chat_uris(&to), [c, d2]);
    assert_eq!(after, chat, "the moved chat keeps its state");
    // Its agent still answers, and its entry now follows it in the new session.
    let mut raw = raw_v1(&host, "mover-2").await;
    request(&mut raw, 2, "subscribe", json!({"channel": s2})).await;
    request(&mut raw, 3, "subscribe", json!({"channel": c})).await;
    run_turn(&mut raw, c, 1, "after").await;
    let (to, after) = snapshots(&url, s2, c).await;
    assert_eq!(turn_ids(&after), ["before", "after"]);
    let entry = to
        .chats
        .iter()
        .find(|e| e.resource == c)
        .expect("its entry");
    assert_eq!(entry.modified_at, after.modified_at);
    raw.close().await;
    host.shutdown().await;
    tokio::time::sleep(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn a_chats_file_edits_name_no_session_on_the_root() {
    let t = start_host().await;
    let (s, c) = ("ahp-session:/edits", "ahp-chat:/edits/writer");
    let mut raw = raw_v1(&t.host, "edits-client").await;
    request(&mut raw, 2, "createSession", json!({"channel": s})).await;
    request(&mut raw, 3, "createChat", json!({"channel": s, "chat": c})).await;
    request(&mut raw, 4, "subscribe", json!({"channel": c})).await;
    request(&mut raw, 5, "subscribe", json!({"channel": ROOT_CHANNEL})).await;
    let started = json!({"type": "chat/turnStarted", "turnId": "w1",
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": {"text": "/write chat-note.txt hi", "origin": {"kind": "user"}}});
    let echo = dispatch(&mut raw, c, 1, started).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    let mut edited = false;
    loop {
        let frame = raw.read_frame().await.expect("connection open");
        if frame["method"] == "root/sessionSummaryChanged" || frame["method"] == "root/sessionAdded"
        {
            assert_eq!(frame["params"]["session"], s, "{frame}");
        }
        let action = &frame["params"]["action"];
        edited |= frame["params"]["channel"] == c && action["type"] == "chat/toolCallComplete";
        if frame["params"]["channel"] == c && action["type"] == "chat/turnComplete" {
            break;
        }
    }
    assert!(edited, "the agent wrote the file");
    assert_eq!(
        std::fs::read_to_string(t.work.path().join("chat-note.txt")).unwrap(),
        "hi"
    );
    raw.close().await;
    t.host.shutdown().await;
}

#[tokio::test]
async fn kill_9_during_a_second_chats_turn_keeps_it() {
    const TOKEN: &str = "chats-test-token-0123456789abcdef";
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let spawn = || HostProcess::spawn(data.path(), work.path(), TOKEN, &["--chunk-delay-ms", "1"]);
    let (s, c) = ("ahp-session:/killed2", "ahp-chat:/killed2/other");
    let host = spawn();
    let mut raw = raw_v1_url(&host.url(), "k1").await;
    request(&mut raw, 2, "createSession", json!({"channel": s})).await;
    request(&mut raw, 3, "createChat", json!({"channel": s, "chat": c})).await;
    request(&mut raw, 4, "subscribe", json!({"channel": c})).await;
    run_turn(&mut raw, c, 1, "t1").await;
    let started = long_turn();
    let echo = dispatch(&mut raw, c, 2, started).await;
    let last_seq = deltas_seen(&mut raw, 20, echo["serverSeq"].as_u64().unwrap()).await;
    host.kill_9();

    let host = spawn();
    let url = host.url();
    let (session, chat) = snapshots(&url, s, c).await;
    assert_eq!(turn_ids(&chat), ["t1", "long"]);
    assert!(chat.active_turn.is_none(), "the interrupted turn ended");
    assert_eq!(chat_uris(&session), ["ahp-chat:/killed2/default", c]);
    let mut raw = raw_v1_url(&url, "k2").await;
    request(&mut raw, 2, "subscribe", json!({"channel": c})).await;
    let echo = dispatch(&mut raw, c, 1, draft("after")).await;
    assert!(echo["serverSeq"].as_u64().unwrap() > last_seq, "{echo}");
    raw.close().await;
    host.kill_9();
}

/// The next `root/sessionSummaryChanged` of session `s` whose status satisfies `wanted`; that
/// status.
async fn summary_status_change(v: &mut V1, s: &str, wanted: impl Fn(u64) -> bool) -> u64 {
    loop {
        let frame = v.frame().await;
        let params = &frame["params"];
        if frame["method"] == "root/sessionSummaryChanged" && params["session"] == s {
            if let Some(status) = params["changes"]["status"].as_u64().filter(|&x| wanted(x)) {
                return status;
            }
        }
    }
}

/// Session `s`'s status as `listSessions` gives it.
async fn listed_status(v: &mut V1, s: &str) -> u64 {
    let listed = v
        .request("listSessions", json!({"channel": ROOT_CHANNEL}))
        .await;
    let items = listed["result"]["items"].as_array().expect("items").clone();
    let entry = items.iter().find(|e| e["resource"] == s).expect("listed");
    entry["status"].as_u64().expect("a status")
}

/// A session's 1.0 summary is in progress while a turn of any of its chats runs, a second
/// chat's included (its root subscribers hear it, `listSessions` says so), and idle after;
/// its read flag stays beside the activity.
#[tokio::test]
async fn a_sessions_summary_status_follows_its_chats() {
    const ACTIVITY: u64 = 31;
    let t = start_host().await;
    let (s, c2) = ("ahp-session:/busy", "ahp-chat:/busy/second");
    let mut v = V1::connect(&t.host, "status-watcher").await;
    v.create_session(s).await;
    v.subscribe(ROOT_CHANNEL).await;
    v.subscribe(s).await;
    let made = v
        .request("createChat", json!({"channel": s, "chat": c2}))
        .await;
    assert!(made.get("error").is_none(), "{made}");
    v.subscribe(c2).await;
    v.apply(s, json!({"type": "session/isReadChanged", "isRead": true}))
        .await;
    assert_eq!(listed_status(&mut v, s).await, 1 | 32, "idle and read");

    let slow = json!({"type": "chat/turnStarted", "turnId": "busy",
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": {"text": "/slow\n/long 400", "origin": {"kind": "user"}}});
    v.apply(c2, slow).await;
    let busy = summary_status_change(&mut v, s, |x| x & 8 != 0).await;
    assert_eq!(busy & ACTIVITY, 8, "{busy}");
    assert_eq!(listed_status(&mut v, s).await & ACTIVITY, 8);

    let cancel = json!({"type": "chat/turnCancelled", "turnId": "busy", "duration": 0});
    v.apply(c2, cancel).await;
    let idle = summary_status_change(&mut v, s, |x| x & 8 == 0).await;
    assert_eq!(idle & ACTIVITY, 1, "{idle}");
    assert_eq!(listed_status(&mut v, s).await & ACTIVITY, 1);
}
