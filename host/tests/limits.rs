//! Hostile and malformed input: every problem gets a JSON-RPC error, the connection keeps
//! answering `ping`, and the state is intact. Plus the resource sandbox and the queue bounds.

mod common;

use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::*;
use common::*;
use serde_json::{json, Value};
use std::time::Duration;

const S: &str = "ahp-session:/limits";

#[tokio::test]
async fn malformed_input_gets_errors_and_the_connection_survives() {
    let t = start_host().await;
    let (mut c, before) = session_after_a_turn(&t.host, "fuzz", S).await;

    let cases: Vec<(String, i64)> = vec![
        ("x".repeat(2 << 20), errors::INVALID_REQUEST),               // oversized frame
        (format!("{}1{}", "[".repeat(5000), "]".repeat(5000)), errors::INVALID_REQUEST), // deep
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"#.into(), errors::PARSE_ERROR),
        ("garbage \u{0} text".into(), errors::PARSE_ERROR),
        ("[1,2,3]".into(), errors::INVALID_REQUEST),
        (r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#.into(), errors::INVALID_REQUEST),
        (r#"{"jsonrpc":"2.0","id":8,"method":"noSuchMethod","params":{}}"#.into(), errors::METHOD_NOT_FOUND),
        (r#"{"jsonrpc":"2.0","id":9,"method":"invokeChangesetOperation","params":{"channel":"ahp-changeset:/1","operationId":"x"}}"#.into(), errors::NOT_FOUND),
        (r#"{"jsonrpc":"2.0","id":9,"method":"createTerminal","params":{"channel":"ahp-terminal:/1"}}"#.into(), errors::INVALID_PARAMS),
        (r#"{"jsonrpc":"2.0","id":10,"method":"subscribe","params":{"chanel":"x"}}"#.into(), errors::INVALID_PARAMS),
        (r#"{"jsonrpc":"2.0","id":11,"method":"fetchTurns","params":{"channel":7}}"#.into(), errors::INVALID_PARAMS),
        (r#"{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"x","clientSeq":"one"}}"#.into(), errors::INVALID_PARAMS),
    ];
    for (text, code) in cases {
        c.send_text(text).await;
        let e = next_error(&mut c).await;
        assert_eq!(e["error"]["code"], code, "{e}");
        ping(&mut c).await;
    }
    // Deep nesting inside an otherwise valid request.
    let deep = json!({"jsonrpc": "2.0", "id": 12, "method": "ping",
        "params": {"channel": ROOT_CHANNEL, "x": serde_json::from_str::<Value>(&format!("{}{}", "[".repeat(100), "]".repeat(100))).unwrap()}});
    c.send_text(deep.to_string()).await;
    assert_eq!(
        next_error(&mut c).await["error"]["code"],
        errors::INVALID_REQUEST
    );
    // A binary frame.
    c.send_binary(vec![0, 159, 146, 150]).await;
    assert_eq!(
        next_error(&mut c).await["error"]["code"],
        errors::INVALID_REQUEST
    );
    ping(&mut c).await;

    // Actions: unknown type, server-only type, root action other than config -> rejected;
    // an unknown channel -> ignored silently.
    let unknown: StateAction =
        serde_json::from_value(json!({"type": "session/fromTheFuture", "x": 1})).unwrap();
    let server_only = StateAction::SessionDelta(SessionDeltaAction {
        turn_id: "t1".into(),
        part_id: "p".into(),
        content: "forged".into(),
        extra: Default::default(),
    });
    let root_forged = StateAction::RootActiveSessionsChanged(RootActiveSessionsChangedAction {
        active_sessions: 99.0,
        extra: Default::default(),
    });
    c.dispatch(
        "ahp-session:/nowhere",
        StateAction::SessionTitleChanged(SessionTitleChangedAction {
            title: "x".into(),
            extra: Default::default(),
        }),
    )
    .await;
    let s1 = c.dispatch(S, unknown).await;
    let s2 = c.dispatch(S, server_only).await;
    let s3 = c.dispatch(ROOT_CHANNEL, root_forged).await;
    let mut rejected = Vec::new();
    while rejected.len() < 3 {
        let e = c.envelope().await;
        assert!(
            e.rejection_reason.is_some(),
            "only rejections expected: {e:?}"
        );
        rejected.push(e.origin.unwrap().client_seq);
    }
    assert_eq!(rejected, vec![s1, s2, s3]);
    ping(&mut c).await;

    assert_session_survived(&t.host, &mut c, S, &before).await;
}

#[tokio::test]
async fn subscriptions_per_connection_are_bounded() {
    let t = start_host_with(|c| c.limits.max_subscriptions = 3).await;
    let mut c = Client::ready(&t.host, "subs").await; // root = 1
    for i in 0..3 {
        c.create_session(&format!("ahp-session:/s{i}")).await;
    }
    c.subscribe("ahp-session:/s0").await;
    c.subscribe("ahp-session:/s1").await;
    let e = c
        .expect_error(
            "subscribe",
            json!({"channel": "ahp-session:/s2"}),
            errors::INVALID_REQUEST,
        )
        .await;
    assert!(e.message.contains("limit"));
    c.call("unsubscribe_is_a_notification", json!({}))
        .await
        .unwrap_err();
    c.send_text(
        r#"{"jsonrpc":"2.0","method":"unsubscribe","params":{"channel":"ahp-session:/s0"}}"#,
    )
    .await;
    c.subscribe("ahp-session:/s2").await;
}

#[tokio::test]
async fn resources_are_confined_to_the_working_directory() {
    let t = start_host().await;
    let root = t.work.path().canonicalize().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("linkdir")).unwrap();
    let uri = |p: &std::path::Path| format!("file://{}", p.display());
    let mut c = Client::ready(&t.host, "fs").await;

    let read = c
        .call(
            "resourceRead",
            json!({"channel": ROOT_CHANNEL, "uri": uri(&root.join("hello.txt"))}),
        )
        .await
        .unwrap();
    assert_eq!(read["data"], "hello from the working directory\n");
    assert_eq!(read["encoding"], "utf-8");
    let list = c
        .call(
            "resourceList",
            json!({"channel": ROOT_CHANNEL, "uri": uri(&root)}),
        )
        .await
        .unwrap();
    let names: Vec<&str> = list["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"hello.txt") && names.contains(&"sub"));
    c.call("resourceWrite", json!({"channel": ROOT_CHANNEL, "uri": uri(&root.join("sub/new.txt")), "data": "new", "encoding": "utf-8"}))
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("sub/new.txt")).unwrap(),
        "new"
    );

    let escapes = [
        (
            "resourceRead",
            uri(&root
                .join("../")
                .join(outside.path().file_name().unwrap())
                .join("secret.txt")),
        ),
        ("resourceRead", uri(&outside.path().join("secret.txt"))),
        ("resourceRead", uri(&root.join("link.txt"))),
        ("resourceRead", uri(&root.join("linkdir/secret.txt"))),
        (
            "resourceRead",
            format!("file://{}/sub/..%2F..%2Fetc%2Fpasswd", root.display()),
        ),
        ("resourceList", uri(&root.join(".."))),
        ("resourceList", uri(&root.join("linkdir"))),
        ("resourceWrite", uri(&root.join("linkdir/evil.txt"))),
        ("resourceWrite", uri(&outside.path().join("evil.txt"))),
        ("resourceWrite", uri(&root.join("link.txt"))),
    ];
    for (method, target) in escapes {
        let e = c
            .call(
                method,
                json!({"channel": ROOT_CHANNEL, "uri": target, "data": "x", "encoding": "utf-8"}),
            )
            .await
            .unwrap_err();
        assert!(
            e.code == errors::PERMISSION_DENIED || e.code == errors::NOT_FOUND,
            "{method} {target}: {e:?}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "secret"
    );
    assert!(!outside.path().join("evil.txt").exists());
    c.expect_error(
        "resourceRead",
        json!({"channel": ROOT_CHANNEL, "uri": "http://example.com/x"}),
        errors::INVALID_PARAMS,
    )
    .await;
    ping(&mut c).await;
}

#[tokio::test]
async fn a_slow_consumer_is_disconnected_not_buffered() {
    let t = start_host_with(|c| {
        // Above one hub batch (512 messages), far below the stream.
        c.limits.outbound_queue = 1024;
        c.chunk_delay = Duration::ZERO;
    })
    .await;
    // The driver does not subscribe to the session: it only starts the turn.
    let mut driver = Client::ready(&t.host, "driver").await;
    driver.create_session(S).await;
    let mut slow = Client::ready(&t.host, "slow").await;
    slow.subscribe(S).await;
    // The slow client stops reading; a big stream fills its socket and then its queue.
    driver.send_message(S, "t1", "/long 20000").await;
    loop {
        let page = driver
            .call("fetchTurns", json!({"channel": S}))
            .await
            .unwrap();
        if !page["turns"].as_array().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Reading now: the host has closed the slow connection instead of buffering the stream.
    let mut frames = 0usize;
    while slow.read_frame().await.is_some() {
        frames += 1;
    }
    assert!(slow.closed);
    assert!(
        frames < 60_000,
        "the slow client got everything ({frames} frames): not bounded"
    );
    // The driver is unaffected.
    ping(&mut driver).await;
}

#[tokio::test]
async fn tokens_never_appear_in_debug_output() {
    let t = start_host().await;
    let debug = format!("{:?}", t.host);
    assert!(!debug.contains(t.host.token().expose()), "{debug}");
    let _ = tokio::time::timeout(Duration::from_millis(10), async {}).await;
}
