//! AHP 1.0 canvases over a real WebSocket and HTTP (`hub/canvases.rs`, `canvas_pages.rs`):
//! the built-in agent's `/canvas` opens an `ahp-canvas:` channel whose page the host serves on
//! its own origin with a strict CSP; clients subscribe and change its state with
//! `canvas/stateChanged`; an off-origin URL, a changed identity or an oversized title is
//! refused with a reason, changes nothing and closes nothing; the canvas closes with its
//! session. The chat a canvas is opened in lists it (`chat/canvasesChanged`, one `serverSeq`
//! each, so a subscribed chat mirror equals a fresh snapshot), in that chat only, and no chat
//! lists a canvas after a restart (canvases do not outlive one).

mod common;
mod v1_raw;

use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::canvas_reducer;
use common::*;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use v1_raw::{after, chat_mirror, V1};

const S: &str = "ahp-session:/drawing";

/// A plain HTTP/1.1 GET; (status, lower-cased headers, body).
async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, Vec<(String, String)>, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
        .await
        .expect("response within 20 s")
        .unwrap();
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").expect("end of headers");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

/// The canvas channel the agent's answer in `chat` (a chat snapshot) names.
fn canvas_in(chat: &Value) -> String {
    let text = chat.to_string();
    let start = text
        .find("ahp-canvas:/")
        .expect("the agent names its canvas");
    let id: String = text[start + "ahp-canvas:/".len()..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    format!("ahp-canvas:/{id}")
}

/// The canvas reduced from `snapshot` over the logged envelopes after it.
fn mirror(snapshot: &Value, log: &[Value]) -> Value {
    let mut state: v1::CanvasState =
        serde_json::from_value(snapshot["state"].clone()).expect("a canvas");
    for action in after(snapshot, log) {
        let _ = canvas_reducer(&mut state, &action);
    }
    serde_json::to_value(state).unwrap()
}

/// The `chat/canvasesChanged` envelopes logged on `chat`.
fn canvases_changed<'a>(log: &'a [Value], chat: &str) -> Vec<&'a Value> {
    log.iter()
        .filter(|e| e["channel"] == chat && e["action"]["type"] == "chat/canvasesChanged")
        .collect()
}

/// The `resource`s a chat snapshot's `canvases` lists (none when the member is absent).
fn listed(chat: &Value) -> Vec<String> {
    chat["state"]["canvases"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["resource"].as_str().unwrap().to_owned())
        .collect()
}

fn changed(canvas: Value) -> Value {
    json!({"type": "canvas/stateChanged", "canvas": canvas})
}

#[tokio::test]
async fn a_canvas_the_agent_opens_is_served_subscribed_and_changed() {
    let t = start_host().await;
    let addr = t.host.addr;
    let mut a = V1::connect(&t.host, "canvas-a").await;
    let mut b = V1::connect(&t.host, "canvas-b").await;
    a.create_session(S).await;
    let chat = a.turn(S, "t1", "/canvas Plan <b>& more</b>").await;
    let uri = canvas_in(&chat);
    let snap_a = a.subscribe(&uri).await;
    let snap_b = b.subscribe(&uri).await;
    let state = snap_a["state"].clone();
    assert_eq!(state["title"], "Plan <b>& more</b>", "{state}");
    assert_eq!(state["status"], "open", "{state}");
    assert_eq!(state["canvasId"], "template", "{state}");
    assert_eq!(state["extensionId"], "ahp-host", "{state}");
    let url = state["url"].as_str().unwrap().to_owned();
    let path = url
        .strip_prefix(&format!("http://{addr}"))
        .unwrap_or_else(|| panic!("on the host's origin: {url}"));
    assert_eq!(
        path,
        format!("/canvas/{}/", state["instanceId"].as_str().unwrap())
    );

    // Served by the host, sandboxed and unable to load anything.
    let (status, headers, body) = get(addr, path).await;
    assert_eq!(status, 200, "{body}");
    let csp = header(&headers, "content-security-policy");
    for part in [
        "sandbox allow-scripts",
        "default-src 'none'",
        "connect-src 'none'",
    ] {
        assert!(csp.contains(part), "{csp}");
    }
    assert!(!csp.contains("allow-same-origin"), "{csp}");
    assert_eq!(header(&headers, "x-content-type-options"), "nosniff");
    assert!(header(&headers, "content-type").starts_with("text/html"));
    assert!(
        body.contains("Plan &lt;b&gt;&amp; more&lt;/b&gt;"),
        "{body}"
    );
    assert!(!body.contains("<b>"), "{body}");
    let (status, _, _) = get(addr, "/canvas/00112233445566778899aabbccddeeff/").await;
    assert_eq!(status, 404);

    // A client changes its state; the other sees it.
    let mut next = state.clone();
    next["status"] = "drawing".into();
    next["title"] = "Plan, revised".into();
    a.apply(&uri, changed(next.clone())).await;
    b.until("the change at b", |e| e["channel"] == uri.as_str())
        .await;
    // Its URL may move to another page of the host's.
    let mut moved = next.clone();
    moved["url"] = format!("{url}index.html").into();
    b.apply(&uri, changed(moved.clone())).await;
    a.until("the move at a", |e| {
        e["channel"] == uri.as_str() && e["origin"]["clientId"] == "canvas-b"
    })
    .await;
    let fresh = a.subscribe(&uri).await;
    assert_eq!(fresh["state"], moved);
    assert_eq!(mirror(&snap_a, &a.log), moved);
    assert_eq!(mirror(&snap_b, &b.log), moved);

    // It closes with its session: no channel, no page.
    let disposed = a.request("disposeSession", json!({"channel": S})).await;
    assert!(disposed.get("error").is_none(), "{disposed}");
    let gone = a.request("subscribe", json!({"channel": uri})).await;
    assert!(gone.get("error").is_some(), "{gone}");
    let (status, _, _) = get(addr, path).await;
    assert_eq!(status, 404);
    t.host.shutdown().await;
}

#[tokio::test]
async fn a_canvas_from_a_file_of_the_working_directory() {
    let t = start_host().await;
    std::fs::write(
        t.work.path().join("board.html"),
        "<!doctype html><p id=x>from the file</p><script>x.textContent += '!'</script>",
    )
    .unwrap();
    let mut a = V1::connect(&t.host, "canvas-file").await;
    a.create_session(S).await;
    let chat = a.turn(S, "t1", "/canvas --file board.html Board").await;
    let uri = canvas_in(&chat);
    let state = a.subscribe(&uri).await["state"].clone();
    assert_eq!(state["canvasId"], "file", "{state}");
    assert_eq!(state["title"], "Board", "{state}");
    let url = state["url"].as_str().unwrap();
    let path = &url[url.find("/canvas/").unwrap()..];
    let (status, headers, body) = get(t.host.addr, path).await;
    assert_eq!(status, 200);
    assert!(body.contains("from the file"), "{body}");
    assert!(header(&headers, "content-security-policy").contains("sandbox"));
    // A file outside the working directory opens nothing.
    let chat = a
        .turn(S, "t2", "/canvas --file ../../etc/passwd Secrets")
        .await;
    assert!(chat.to_string().contains("`/canvas` did nothing"), "{chat}");
    t.host.shutdown().await;
}

#[tokio::test]
async fn bad_canvas_states_are_refused_and_change_nothing() {
    let t = start_host().await;
    let mut a = V1::connect(&t.host, "canvas-bad").await;
    let mut b = V1::connect(&t.host, "canvas-watch").await;
    a.create_session(S).await;
    let chat = a.turn(S, "t1", "/canvas Board").await;
    let uri = canvas_in(&chat);
    let before = a.subscribe(&uri).await;
    let watched = b.subscribe(&uri).await;
    let state = before["state"].clone();
    let with = |member: &str, value: Value| {
        let mut s = state.clone();
        s[member] = value;
        changed(s)
    };
    let cases = [
        (
            with("url", "https://evil.example/canvas/ab/".into()),
            "canvasUrlOffOrigin",
        ),
        (
            with("url", "javascript:alert(1)".into()),
            "canvasUrlOffOrigin",
        ),
        (
            with("url", format!("http://{}/ahp", t.host.addr).into()),
            "canvasUrlOffOrigin",
        ),
        (with("instanceId", "someone-else".into()), "instanceId"),
        (with("canvasId", "other".into()), "canvasId"),
        (with("title", "x".repeat(600).into()), "at most 512 bytes"),
        (
            json!({"type": "annotations/removed", "annotationId": "x"}),
            "only canvas/stateChanged",
        ),
    ];
    for (action, why) in cases {
        let reason = a.refused(&uri, action.clone()).await;
        assert!(reason.contains(why), "{action}: {reason}");
    }
    // A canvas that is not open.
    let reason = a.refused("ahp-canvas:/0000", changed(state.clone())).await;
    assert!(!reason.is_empty());
    a.alive().await;
    b.alive().await;
    let after_all = a.subscribe(&uri).await;
    assert_eq!(after_all["state"], state);
    assert!(b.log.iter().all(|e| e["channel"] != uri.as_str()));
    assert_eq!(mirror(&watched, &b.log), state);
    t.host.shutdown().await;
}

const DEFAULT_CHAT: &str = "ahp-chat:/drawing/default";
const SECOND_CHAT: &str = "ahp-chat:/drawing/second";

#[tokio::test]
async fn the_chat_a_canvas_opens_in_lists_it_and_its_mirror_follows() {
    let t = start_host().await;
    let mut a = V1::connect(&t.host, "canvas-list-a").await;
    let mut b = V1::connect(&t.host, "canvas-list-b").await;
    a.create_session(S).await;
    let snap_a = a.subscribe(DEFAULT_CHAT).await;
    assert!(listed(&snap_a).is_empty(), "{snap_a}");
    let snap_b = b.subscribe(DEFAULT_CHAT).await;

    let first = a.turn(S, "t1", "/canvas Demo").await;
    let one = canvas_in(&first);
    assert_eq!(listed(&first), [one.as_str()], "{first}");
    let second = a.turn(S, "t2", "/canvas Second").await;
    let two = canvas_in(&json!(second["state"]["turns"][1]));
    assert_ne!(one, two);
    // Oldest first.
    assert_eq!(listed(&second), [one.as_str(), two.as_str()], "{second}");

    // One envelope per open, the host's (no origin), each its own number.
    let sent = canvases_changed(&a.log, DEFAULT_CHAT);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(sent.iter().all(|e| e.get("origin").is_none()), "{sent:?}");
    let mut seqs: Vec<u64> = a
        .log
        .iter()
        .map(|e| e["serverSeq"].as_u64().unwrap())
        .collect();
    let all = seqs.len();
    seqs.sort_unstable();
    seqs.dedup();
    assert_eq!(seqs.len(), all, "a serverSeq used twice");

    // Both mirrors (the SDK's 1.0 chat reducer) equal a fresh snapshot.
    b.alive().await;
    let fresh = a.subscribe(DEFAULT_CHAT).await;
    assert_eq!(chat_mirror(&snap_a, &a.log), fresh["state"]);
    assert_eq!(chat_mirror(&snap_b, &b.log), fresh["state"]);
    assert_eq!(canvases_changed(&b.log, DEFAULT_CHAT).len(), 2);
    // What is listed is a canvas channel one can subscribe to.
    for uri in [&one, &two] {
        a.subscribe(uri).await;
    }
    t.host.shutdown().await;
}

#[tokio::test]
async fn a_canvas_opened_in_a_second_chat_is_listed_there_only() {
    let t = start_host().await;
    let mut a = V1::connect(&t.host, "canvas-chat2").await;
    a.create_session(S).await;
    let created = a
        .request("createChat", json!({"channel": S, "chat": SECOND_CHAT}))
        .await;
    assert!(created.get("error").is_none(), "{created}");
    let default_before = a.subscribe(DEFAULT_CHAT).await;
    let snap = a.subscribe(SECOND_CHAT).await;
    a.turn_in(SECOND_CHAT, "c1", "hello there").await;
    let chat = a.turn_in(SECOND_CHAT, "c2", "/canvas Demo").await;
    let uri = canvas_in(&json!(chat["state"]["turns"][1]));
    assert_eq!(listed(&chat), [uri.as_str()], "{chat}");
    assert_eq!(chat_mirror(&snap, &a.log), chat["state"]);
    assert_eq!(canvases_changed(&a.log, SECOND_CHAT).len(), 1);
    // Not in the default chat, nor in the session's state.
    let default_chat = a.subscribe(DEFAULT_CHAT).await;
    assert!(listed(&default_chat).is_empty(), "{default_chat}");
    assert!(canvases_changed(&a.log, DEFAULT_CHAT).is_empty());
    assert_eq!(chat_mirror(&default_before, &a.log), default_chat["state"]);
    let session = a.subscribe(S).await;
    assert!(!session.to_string().contains(&uri), "{session}");
    let state = a.subscribe(&uri).await["state"].clone();
    assert_eq!(state["title"], "Demo", "{state}");

    // It goes with its chat.
    let disposed = a
        .request("disposeChat", json!({"channel": SECOND_CHAT}))
        .await;
    assert!(disposed.get("error").is_none(), "{disposed}");
    let gone = a.request("subscribe", json!({"channel": uri})).await;
    assert!(gone.get("error").is_some(), "{gone}");
    t.host.shutdown().await;
}

/// The `chat/canvasesChanged` rows of the 1.0 log (channel, action), in order.
fn logged_changes(data: &std::path::Path) -> Vec<(u64, String, Value)> {
    let db = rusqlite::Connection::open(data.join("ahp-host.sqlite3")).unwrap();
    let mut q = db
        .prepare("SELECT seq, channel, action FROM v1_actions ORDER BY rowid")
        .unwrap();
    let rows = q
        .query_map([], |r| {
            Ok((
                r.get::<_, u64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .map(|(seq, channel, action)| (seq, channel, serde_json::from_str(&action).unwrap()))
        .filter(|(_, _, action): &(u64, String, Value)| action["type"] == "chat/canvasesChanged")
        .collect();
    rows
}

/// The stored 1.0 heads and log, as one text.
fn stored_text(data: &std::path::Path) -> String {
    let db = rusqlite::Connection::open(data.join("ahp-host.sqlite3")).unwrap();
    let mut out = String::new();
    for sql in [
        "SELECT head FROM v1_sessions",
        "SELECT action FROM v1_actions",
    ] {
        let mut q = db.prepare(sql).unwrap();
        for row in q.query_map([], |r| r.get::<_, String>(0)).unwrap() {
            out += &row.unwrap();
        }
    }
    out
}

#[tokio::test]
async fn after_a_restart_no_chat_lists_a_canvas() {
    let t = start_host().await;
    let mut a = V1::connect(&t.host, "canvas-restart").await;
    a.create_session(S).await;
    let created = a
        .request("createChat", json!({"channel": S, "chat": SECOND_CHAT}))
        .await;
    assert!(created.get("error").is_none(), "{created}");
    let in_default = canvas_in(&a.turn(S, "t1", "/canvas One").await);
    let in_second = canvas_in(&a.turn_in(SECOND_CHAT, "c1", "/canvas Two").await);
    assert_eq!(
        listed(&a.subscribe(DEFAULT_CHAT).await),
        [in_default.as_str()]
    );
    assert_eq!(
        listed(&a.subscribe(SECOND_CHAT).await),
        [in_second.as_str()]
    );
    let last_seq = a.log.iter().map(|e| e["serverSeq"].as_u64().unwrap()).max();
    a.c.close().await;
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    // Stored with the chats (in their heads or the log after them).
    let stored = stored_text(data.path());
    assert!(stored.contains(&in_default) && stored.contains(&in_second));
    let before = logged_changes(data.path()).len();

    let host = restart(data.path(), work.path()).await;
    let mut a = V1::connect(&host, "canvas-restart").await;
    for (chat, canvas) in [(DEFAULT_CHAT, &in_default), (SECOND_CHAT, &in_second)] {
        let snap = a.subscribe(chat).await;
        assert!(listed(&snap).is_empty(), "{snap}");
        let gone = a.request("subscribe", json!({"channel": canvas})).await;
        assert!(gone.get("error").is_some(), "{gone}");
    }
    a.c.close().await;
    host.shutdown().await;
    // Cleared through the log: one clearing action per chat, numbered after all before.
    let changes = logged_changes(data.path());
    assert_eq!(changes.len(), before + 2, "{changes:?}");
    for (seq, channel, action) in &changes[before..] {
        assert!(action.get("canvases").is_none(), "{action}");
        assert!(Some(*seq) > last_seq, "{seq} reused");
        assert!([DEFAULT_CHAT, SECOND_CHAT].contains(&channel.as_str()));
    }
    assert_ne!(changes[before].1, changes[before + 1].1);

    // Nothing left to clear the next time.
    let host = restart(data.path(), work.path()).await;
    let mut a = V1::connect(&host, "canvas-restart").await;
    assert!(listed(&a.subscribe(SECOND_CHAT).await).is_empty());
    a.c.close().await;
    host.shutdown().await;
    assert_eq!(logged_changes(data.path()).len(), before + 2);
}
