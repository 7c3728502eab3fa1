//! The bounds of DESIGN.md "Security posture": frames, JSON depth, subscriptions, replay
//! history, terminal scrollback, and malformed input answered without losing the connection.

use super::*;

/// "bound frame size"
///
/// Controls: `max_frame_bytes` in `connection.rs` (`on_text`), `hard_frame_bytes` on the upgrade.
#[tokio::test]
async fn frame_size_is_bounded() {
    let t = start_host_with(|c| {
        c.limits.max_frame_bytes = 4096;
        c.limits.hard_frame_bytes = 64 * 1024;
    })
    .await;
    let mut c = Client::ready(&t.host, "frames").await;
    // A valid request, just too big: a JSON-RPC error, and the connection stays.
    let padded = json!({"jsonrpc": "2.0", "id": 1, "method": "ping",
        "params": {"channel": ROOT_CHANNEL, "pad": "x".repeat(5000)}});
    c.send_text(padded.to_string()).await;
    expect_refused(&mut c, "an oversized frame", "exceeds", 1).await;
    // Beyond the hard bound the WebSocket layer closes the connection instead of buffering.
    let huge = json!({"jsonrpc": "2.0", "id": 2, "method": "ping",
        "params": {"channel": ROOT_CHANNEL, "pad": "x".repeat(100 * 1024)}});
    c.send_text(huge.to_string()).await;
    c.assert_closed("a frame over the hard bound must close the connection")
        .await;
}

/// "bound ... JSON depth"
///
/// Control: the `json_depth_within` pre-scan in `connection.rs` (`on_text`).
#[tokio::test]
async fn json_depth_is_bounded() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "depth").await;
    // Depth 100: small, valid JSON the parser would take; refused before parsing.
    let nested = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"channel":"{ROOT_CHANNEL}","x":{nested}}}}}"#
    );
    c.send_text(text).await;
    expect_refused(&mut c, "a too deeply nested frame", "deeper", 1).await;
}

/// The next frame is an `InvalidRequest` error for request `id` (found although the frame was
/// not parsed: its sender gets the error instead of a timeout) whose message contains
/// `needle`, and the connection still answers `ping`.
async fn expect_refused(c: &mut Client, what: &str, needle: &str, id: u64) {
    let e = c.read_frame().await.expect("the connection stays open");
    assert!(e.get("error").is_some(), "{what} was served: {e}");
    assert_eq!(e["id"], id, "{what}: the error answers the request: {e}");
    assert_eq!(e["error"]["code"], errors::INVALID_REQUEST, "{e}");
    assert!(
        e["error"]["message"].as_str().unwrap().contains(needle),
        "{e}"
    );
    ping(c).await;
}

/// "bound ... subscriptions"
///
/// Controls: `max_subscriptions` in `hub/commands.rs` (`add_subscription` and
/// `handshake_channels`).
#[tokio::test]
async fn subscriptions_are_bounded() {
    let t = start_host_with(|c| c.limits.max_subscriptions = 3).await;
    let mut setup = Client::ready(&t.host, "setup").await;
    let sessions: Vec<String> = (0..4).map(|i| format!("ahp-session:/sub{i}")).collect();
    for s in &sessions {
        setup.create_session(s).await;
    }
    // A handshake asking for more channels than the bound is refused as a whole.
    let mut c = Client::connect(&t.host, "subs").await;
    let mut all = vec![ROOT_CHANNEL];
    all.extend(sessions.iter().map(String::as_str));
    let e = c
        .try_initialize(&all)
        .await
        .expect_err("initialSubscriptions beyond the bound must be refused");
    assert_eq!(e.code, errors::INVALID_REQUEST);
    assert!(e.message.contains("limit"), "{e:?}");
    let init = c.try_initialize(&all[..3]).await.unwrap_or_else(|e| {
        panic!("the refused handshake registered something (it must be refused whole): {e:?}")
    });
    assert_eq!(init.snapshots.len(), 3);
    let e = c
        .call("subscribe", json!({"channel": sessions[3]}))
        .await
        .expect_err("a fourth subscription must be refused");
    assert_eq!(e.code, errors::INVALID_REQUEST);
    assert!(e.message.contains("limit"), "{e:?}");
    // Subscribing again to a held channel is not a new one; unsubscribing frees a slot.
    c.subscribe(&sessions[0]).await;
    c.send_text(format!(
        r#"{{"jsonrpc":"2.0","method":"unsubscribe","params":{{"channel":"{}"}}}}"#,
        sessions[0]
    ))
    .await;
    c.subscribe(&sessions[3]).await;
}

/// "bound ... replay history"
///
/// Control: eviction in `ReplayRing::push` (entries and bytes).
#[tokio::test]
async fn replay_history_is_bounded() {
    // By entries, then by bytes.
    let by_entries = |c: &mut Config| c.limits.replay_entries = 8;
    let by_bytes = |c: &mut Config| c.limits.replay_bytes = 4096;
    for (bound, tweak) in [
        ("entries", &by_entries as &dyn Fn(&mut Config)),
        ("bytes", &by_bytes),
    ] {
        let t = start_host_with(tweak).await;
        let mut a = Client::in_new_session(&t.host, "replay", S).await;
        a.send_message(S, "t1", "/long 40").await;
        let envs = a.until_turn_end("t1").await;
        a.close().await;
        let seqs: Vec<u64> = envs.iter().map(|e| e.server_seq).collect();
        // From the start of the turn: beyond the bound, so snapshots, not 40+ envelopes.
        let mut b = Client::connect(&t.host, "replay").await;
        match b.reconnect(seqs[0], vec![S.into()]).await.unwrap() {
            ReconnectResult::Snapshot(s) => assert_eq!(s.snapshots.len(), 1),
            ReconnectResult::Replay(r) => panic!(
                "replay history not bounded by {bound}: {} envelopes replayed",
                r.actions.len()
            ),
        }
        b.close().await;
        // From near the end: replayed, within the bound.
        let mut b = Client::connect(&t.host, "replay").await;
        match b
            .reconnect(seqs[seqs.len() - 4], vec![S.into()])
            .await
            .unwrap()
        {
            ReconnectResult::Replay(r) => assert_eq!(r.actions.len(), 3, "by {bound}"),
            ReconnectResult::Snapshot(_) => panic!("the last envelopes are replayable ({bound})"),
        }
    }
}

/// "bound ... terminal scrollback"
///
/// Control: the host applies `terminal/data` through the SDK's terminal reducer, which keeps a
/// terminal's content under `MAX_SCROLLBACK_BYTES` (1 MiB) by dropping the oldest output. A shell
/// printing 3 MB leaves a snapshot within the bound that still ends with the latest output.
#[tokio::test(flavor = "multi_thread")]
async fn terminal_scrollback_is_bounded() {
    use ahp_wasm::reduce::MAX_SCROLLBACK_BYTES;
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "term").await;
    c.call(
        "createTerminal",
        json!({"channel": "ahp-terminal:/1", "claim": {"kind": "client", "clientId": "term"}}),
    )
    .await
    .expect("createTerminal");
    c.subscribe("ahp-terminal:/1").await;
    let input = StateAction::TerminalInput(TerminalInputAction {
        data: "yes first-line | head -c 3000000; echo flood-$((40+2))-done\n".into(),
        extra: Default::default(),
    });
    c.dispatch("ahp-terminal:/1", input).await;
    let deadline = std::time::Instant::now() + WAIT;
    let state = loop {
        assert!(
            std::time::Instant::now() < deadline,
            "the flood did not end"
        );
        let r = c
            .call("subscribe", json!({"channel": "ahp-terminal:/1"}))
            .await
            .unwrap();
        let state: TerminalState = serde_json::from_value(r["snapshot"]["state"].clone()).unwrap();
        let text = ahp_wasm::reduce::terminal_text(&state.content);
        if text.contains("flood-42-done") {
            break text;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(
        state.len() <= MAX_SCROLLBACK_BYTES,
        "{} bytes kept",
        state.len()
    );
    assert!(
        state.len() > MAX_SCROLLBACK_BYTES / 2,
        "{} bytes kept",
        state.len()
    );
    // The command line echoed before the flood was trimmed away.
    assert!(!state.contains("yes first-line"));
}

/// "malformed input gets a JSON-RPC error and the connection and all state survive"
///
/// Control: the reader in `connection.rs` answers every bad frame and goes on.
#[tokio::test]
async fn malformed_input_gets_a_json_rpc_error_and_the_connection_and_state_survive() {
    let t = start_host().await;
    let (mut c, before) = session_after_a_turn(&t.host, "fuzz", S).await;
    // An uninitialized connection is treated the same.
    let mut fresh = Client::connect(&t.host, "fresh").await;

    let cases: Vec<(&str, i64)> = vec![
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"#,
            errors::PARSE_ERROR,
        ),
        ("garbage \u{0} text", errors::PARSE_ERROR),
        ("", errors::PARSE_ERROR),
        ("[1,2,3]", errors::INVALID_REQUEST),
        ("42", errors::INVALID_REQUEST),
        (
            r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#,
            errors::INVALID_REQUEST,
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"noSuchMethod","params":{}}"#,
            errors::METHOD_NOT_FOUND,
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"subscribe","params":{"chanel":"x"}}"#,
            errors::INVALID_PARAMS,
        ),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":"fetchTurns","params":{"channel":7}}"#,
            errors::INVALID_PARAMS,
        ),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"createSession","params":{"channel":"ahp-session:/x","fork":5}}"#,
            errors::INVALID_PARAMS,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"x","clientSeq":"one"}}"#,
            errors::INVALID_PARAMS,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-session:/threat"}}"#,
            errors::INVALID_PARAMS,
        ),
    ];
    for (conn, initialized) in [(&mut c, true), (&mut fresh, false)] {
        for (text, code) in &cases {
            conn.send_text(*text).await;
            let e = next_error(conn).await;
            let got = e["error"]["code"].as_i64().unwrap();
            // Before initialize, a well-formed request for a method that needs it is refused
            // as such.
            assert!(
                got == *code || (!initialized && got == errors::INVALID_REQUEST),
                "{text:?} -> {e}"
            );
            ping(conn).await;
        }
        conn.send_binary(vec![0, 159, 146, 150]).await;
        assert_eq!(
            next_error(conn).await["error"]["code"],
            errors::INVALID_REQUEST
        );
        ping(conn).await;
    }
    // All state survived and the connection still works.
    assert_session_survived(&t.host, &mut c, S, &before).await;
}
