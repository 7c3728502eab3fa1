//! AHP 1.0 canvases over a real WebSocket and HTTP (`hub/canvases.rs`, `canvas_pages.rs`):
//! the built-in agent's `/canvas` opens an `ahp-canvas:` channel whose page the host serves on
//! its own origin with a strict CSP; clients subscribe and change its state with
//! `canvas/stateChanged`; an off-origin URL, a changed identity or an oversized title is
//! refused with a reason, changes nothing and closes nothing; the canvas closes with its
//! session.

mod common;
mod v1_raw;

use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::canvas_reducer;
use common::*;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use v1_raw::{after, V1};

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
