//! The threat-model suite: one test per host-side minimum of DESIGN.md "Security posture" (from
//! the protocol's THREAT_MODEL), each named after its requirement, quoting it, and asserting the
//! control itself (the input used would be accepted if the control were missing). Each test was
//! checked to fail with its control disabled in `host/src`.
//!
//! The minimums that are not the host's, and where they stand today:
//! - "client tools are local, allowlisted and confirmed by the app (server `confirmed:
//!   'not-needed'` is advisory)": an SDK/app concern. The SDK has no client-tool handler API yet
//!   (the page lends no tools), so there is nothing to allowlist or confirm and nothing tests it.
//!   The host's half — only the client that provides a tool completes its calls — is
//!   `tool_calls_are_completed_only_by_their_owner` below.
//! - "MCP App views run in a sandboxed iframe with no access to the page's origin": a page
//!   concern; the page does not render MCP Apps yet: not tested. (The host's half, the bounded
//!   and permission-checked `mcp://` channel, is tested in tests/mcp/.)
//! - "peer-provided Markdown/HTML is sanitized before rendering": a page concern. The page (`www/`)
//!   renders host data with `textContent`/DOM nodes only; tests/browser/page-e2e.test.mjs checks
//!   that `innerHTML` with a string throws under the page's CSP (Trusted Types) and that
//!   `<script>` in an answer shows as text; host/tests/static_files.rs checks the CSP itself (no
//!   inline script).
//! - "terminal scrollback" bound: `terminal_scrollback_is_bounded` (a shell printing 3 MB).
//!
//! Beyond that list (issue 30): a repository's MCP servers (the working directory's `.mcp.json`)
//! run only once a client approves them: `a_repository_s_mcp_servers_run_only_once_a_client_approves_them`
//! (more in tests/mcp/trust.rs: a changed declaration, HTTP servers not contacted, the operator's
//! server winning a name clash). Not prevented: an approved command running repository files that
//! changed since (the declaration is approved, not what it executes); any client holding the token
//! can approve; `--trust-project-mcp` turns approvals off.
//!
//! Untrusted content the host builds state from or writes back, tested in its topical file:
//! - a repository's `HEAD` ("revert-all writes the hook executable and overwrites the real
//!   config, and the next `git status` / `git commit` runs the attacker's commands"): paths
//!   naming `.git` in any of git's spellings are never listed nor written, and `revert-all`
//!   says exactly what it did and ends: `a_head_tree_naming_git_paths_is_never_listed_nor_written`
//!   in tests/changesets.rs, `paths_inside_git_are_never_written` (a link into `.git`) in
//!   src/changes/revert.rs. Not prevented: restoring other files `HEAD` holds that tools run.
//! - a client's published plugin ("a 32 KiB `uri` and a 4 KiB `hooks/hooks.json` of 1,200
//!   entries became a 37.7 MiB `customizationUpdated` broadcast to every subscriber"): children
//!   per container, id and uri lengths and the bytes one client's entries take in a session are
//!   bounded; over budget is `degraded`, the session stays subscribable and re-publishing does
//!   not grow the log without end:
//!   `a_client_plugin_cannot_amplify_its_uri_and_hooks_into_a_huge_state` and
//!   `a_client_plugin_over_its_byte_budget_is_degraded_and_the_database_stays_bounded` in
//!   tests/customizations.rs. Not bounded beyond the frame limit: the published fields
//!   themselves (shown once).
//! - "actions authorized against current state and the connection that owns them", for
//!   terminals and their processes: tests/terminal_ownership.rs (only the holder types, resizes
//!   or disposes; the active-client role grants no session terminal; `/run` never runs in a
//!   terminal a client planted) and tests/child_processes.rs (no child gets the access token;
//!   no command forges its exit code). Not prevented: any token holder gets a shell outside the
//!   `resource*` sandbox, and any client may read any terminal (host/README.md, "Security and
//!   limits").
//!
//! Ownership by `clientId` ("the connection that owns them") rests on the host's binding of ids
//! (`a_client_id_is_not_taken_from_its_connection`). Prevented: taking an id from a connection
//! that answers pings, and taking the id of a client that has presented its `clientSecret`
//! (the SDK clients), connected or not. Not prevented, and asserted there: while a
//! spec-following client (which cannot present a secret) is disconnected, anyone with the
//! host's token may claim its id first; the host cannot tell that from the client's reconnect.

mod common;

use ahp_host::Config;
use ahp_wasm::protocol::jsonrpc::{ReconnectResult, ROOT_CHANNEL};
use ahp_wasm::protocol::*;
use common::*;
use serde_json::{json, Value};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const S: &str = "ahp-session:/threat";

fn action(v: Value) -> StateAction {
    serde_json::from_value(v).expect("a valid action")
}

/// Dispatches `a` and asserts the host rejected it, for a reason containing `because`.
async fn assert_rejected(c: &mut Client, channel: &str, a: StateAction, what: &str, because: &str) {
    let seq = c.dispatch(channel, a).await;
    let e = c.echo_of(seq).await;
    let reason = e
        .rejection_reason
        .unwrap_or_else(|| panic!("{what}: the host applied it: {:?}", e.action));
    assert!(
        reason.contains(because),
        "{what}: rejected for {reason:?}, not {because:?}"
    );
}

/// All a piped child's standard error says (until it closes).
fn stderr_of(child: &mut std::process::Child) -> String {
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr piped")
        .read_to_string(&mut stderr)
        .unwrap();
    stderr
}

/// Waits up to 10 s for a child to exit; kills it and returns `None` if it keeps running.
fn exit_within(child: &mut std::process::Child) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// "loopback bind by default and explicit opt-in for other interfaces"
///
/// Controls: the `--listen` default (config.rs) and the refusal in `server::start`.
#[tokio::test]
async fn loopback_bind_by_default_and_explicit_opt_in_for_other_interfaces() {
    use clap::Parser;
    let cli = ahp_host::Cli::parse_from(["ahp-host"]);
    assert!(
        cli.listen.is_loopback(),
        "default listen address {} is not loopback",
        cli.listen
    );
    assert!(!cli.allow_remote, "remote access is opt-in");

    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    // The binary refuses a non-loopback address without --allow-remote, and says why.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ahp-host"))
        .args(["--listen", "0.0.0.0", "--port", "0"])
        .arg("--data-dir")
        .arg(data.path())
        .arg("--workdir")
        .arg(work.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = exit_within(&mut child).expect("ahp-host --listen 0.0.0.0 must refuse to run");
    let stderr = stderr_of(&mut child);
    assert!(!status.success());
    assert!(stderr.contains("--allow-remote"), "{stderr}");

    // So does the library; with the explicit opt-in it listens there.
    let mut config = Config::local(data.path(), work.path());
    config.listen = "0.0.0.0".parse().unwrap();
    let err = ahp_host::start(config.clone())
        .await
        .expect_err("a non-loopback address without allow_remote must be refused");
    assert!(err.to_string().contains("--allow-remote"), "{err}");
    config.allow_remote = true;
    let host = ahp_host::start(config)
        .await
        .expect("with allow_remote it starts");
    assert!(host.addr.ip().is_unspecified());
    host.shutdown().await;
}

/// "authenticate before `initialize` (access token, `tkn` query parameter for browsers,
/// `Authorization` header otherwise)"
///
/// Control: the token check in `server::upgrade`.
#[tokio::test]
async fn authenticate_before_initialize() {
    let t = start_host().await;
    let url = t.host.ws_url();
    let token = t.host.token().expose().to_owned();
    let refused = [
        (url.clone(), None),
        (format!("{url}?tkn="), None),
        (format!("{url}?tkn=not-the-token-at-all"), None),
        (format!("{url}?tkn={}", &token[..token.len() - 1]), None),
        (format!("{url}?tkn={token}x"), None),
        (url.clone(), Some("Bearer nope-nope-nope-nope".to_owned())),
        (url.clone(), Some(format!("Basic {token}"))),
        (url.clone(), Some(token.clone())),
    ];
    for (u, auth) in refused {
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("authorization", a.as_str())).collect();
        assert_eq!(
            try_connect(&u, &headers).await.err(),
            Some(401),
            "no upgrade, so no JSON-RPC at all, without the token: {u} {auth:?}"
        );
    }
    // The browser way (query parameter) and the header way both work.
    let ws = try_connect(&format!("{url}?tkn={token}"), &[])
        .await
        .expect("tkn query parameter accepted");
    Client::from_ws(ws, "query").initialize(&[]).await;
    let bearer = format!("Bearer {token}");
    let ws = try_connect(&url, &[("authorization", bearer.as_str())])
        .await
        .expect("Authorization: Bearer accepted");
    Client::from_ws(ws, "header").initialize(&[]).await;
}

/// "Origin check on the WebSocket upgrade"
///
/// Control: `origin_allowed` in `server::upgrade`.
#[tokio::test]
async fn origin_is_checked_on_the_websocket_upgrade() {
    let t = start_host_with(|c| c.allow_origins = vec!["http://dev.example:5173".into()]).await;
    let url = url_with_token(&t.host);
    let port = t.host.addr.port();
    for origin in [
        "http://evil.example".to_owned(),
        "null".to_owned(),
        format!("http://evil.example:{port}"),
        format!("https://127.0.0.1:{port}"),
        format!("http://127.0.0.1:{}", port.wrapping_add(1)),
        "http://dev.example:5174".to_owned(),
    ] {
        assert_eq!(
            try_connect(&url, &[("origin", origin.as_str())])
                .await
                .err(),
            Some(403),
            "a valid token from Origin {origin} must still be refused"
        );
    }
    for origin in [
        format!("http://{}", t.host.addr),
        format!("http://localhost:{port}"),
        "http://dev.example:5173".to_owned(),
    ] {
        assert!(
            try_connect(&url, &[("origin", origin.as_str())])
                .await
                .is_ok(),
            "own or allowed Origin {origin} refused"
        );
    }
}

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

/// "actions authorized against current state" (server-only actions, the root channel, a turn
/// while one is active)
///
/// Controls: `authorize` in `hub/dispatch.rs` (client-dispatchable actions, the active-turn
/// check) and the root-channel check in `on_dispatch`.
#[tokio::test]
async fn actions_are_authorized_against_current_state() {
    let t = start_host().await;
    let (mut c, mut mirror) = Client::with_new_session(&t.host, "forger", S).await;
    // A turn that stays active (it waits for an answer), with a markdown part to forge into.
    c.send_message(S, "t1", "question time\n/ask Your name?")
        .await;
    let envs = c
        .envelopes_until(|e| matches!(e.action, StateAction::SessionInputRequested(_)))
        .await;
    reduce_all(&mut mirror, &envs);
    let part_id = mirror
        .active_turn
        .as_ref()
        .unwrap()
        .response_parts
        .iter()
        .find_map(|p| match p {
            ResponsePart::Markdown(m) => Some(m.id.clone()),
            _ => None,
        })
        .expect("a markdown part");
    let before = host_state(&t.host, S).await;

    // Agent output forged by a client, though the state would take it.
    let forged = [
        action(
            json!({"type": "session/delta", "turnId": "t1", "partId": part_id,
            "content": "FORGED"}),
        ),
        action(json!({"type": "session/responsePart", "turnId": "t1",
            "part": {"kind": "markdown", "id": "forged", "content": "FORGED"}})),
        action(json!({"type": "session/turnComplete", "turnId": "t1"})),
        action(json!({"type": "session/ready"})),
    ];
    for a in forged {
        let what = format!("{a:?}");
        assert_rejected(&mut c, S, a, &what, "not client-dispatchable").await;
    }
    // A second turn while one is active.
    assert_rejected(
        &mut c,
        S,
        turn_started("t2", "me too"),
        "a second turn",
        "already active",
    )
    .await;
    // Root state is the server's, except config.
    assert_rejected(
        &mut c,
        ROOT_CHANNEL,
        action(json!({"type": "root/activeSessionsChanged", "activeSessions": 99})),
        "root/activeSessionsChanged",
        "not client-dispatchable",
    )
    .await;

    assert_eq!(
        comparable(&host_state(&t.host, S).await),
        comparable(&before),
        "a rejected action changed the state"
    );
    let mut o = Client::ready(&t.host, "observer").await;
    let list = o
        .call("listSessions", json!({"channel": ROOT_CHANNEL}))
        .await;
    assert_eq!(list.unwrap()["items"].as_array().unwrap().len(), 1);
}

/// "actions authorized against ... the connection that owns them (active client ...)"
///
/// Control: the `activeClientChanged` / `activeClientToolsChanged` arms of `authorize`.
#[tokio::test]
async fn active_client_role_belongs_to_its_client() {
    let t = start_host().await;
    let (mut a, mut b) = two_clients_on(&t.host, S).await;
    let claim = |id: &str| {
        action(json!({"type": "session/activeClientChanged",
            "activeClient": {"clientId": id, "tools": [{"name": "pick_color"}]}}))
    };
    let release = || action(json!({"type": "session/activeClientChanged", "activeClient": null}));
    let tools = || action(json!({"type": "session/activeClientToolsChanged", "tools": []}));

    assert_rejected(&mut b, S, claim("client-a"), "B claims for A", "for itself").await;
    let seq = a.dispatch(S, claim("client-a")).await;
    assert!(a.echo_of(seq).await.rejection_reason.is_none());
    assert_rejected(
        &mut b,
        S,
        claim("client-b"),
        "B takes over",
        "another client is active",
    )
    .await;
    assert_rejected(
        &mut b,
        S,
        tools(),
        "B changes A's tools",
        "only the active client",
    )
    .await;
    assert_rejected(
        &mut b,
        S,
        release(),
        "B releases A's role",
        "only the active client",
    )
    .await;
    let state = host_state(&t.host, S).await;
    let active = state.active_client.expect("A is still active");
    assert_eq!(active.client_id, "client-a");
    assert_eq!(active.tools.len(), 1);
    // A may change its own tools.
    let seq = a.dispatch(S, tools()).await;
    assert!(a.echo_of(seq).await.rejection_reason.is_none());
}

/// "actions authorized against ... the connection that owns them (... tool-call owner)"
///
/// Control: `tool_owner` in `hub/dispatch.rs`.
#[tokio::test]
async fn tool_calls_are_completed_only_by_their_owner() {
    let t = start_host().await;
    let (mut a, mut b) = two_clients_on(&t.host, S).await;
    let seq = a
        .dispatch(
            S,
            action(json!({"type": "session/activeClientChanged",
                "activeClient": {"clientId": "client-a", "tools": [{"name": "pick_color"}]}})),
        )
        .await;
    a.echo_of(seq).await;

    // A client tool call of A's.
    b.send_message(S, "t1", "/client-tool pick_color {}").await;
    let envs = b
        .envelopes_until(|e| matches!(e.action, StateAction::SessionToolCallReady(_)))
        .await;
    let StateAction::SessionToolCallReady(ready) = &envs.last().unwrap().action else {
        unreachable!()
    };
    let id = ready.tool_call_id.clone();
    let complete = |turn: &str, id: &str, text: &str| {
        action(
            json!({"type": "session/toolCallComplete", "turnId": turn, "toolCallId": id,
            "result": {"success": true, "pastTenseMessage": "Picked",
                "content": [{"type": "text", "text": text}]}}),
        )
    };
    let content = action(
        json!({"type": "session/toolCallContentChanged", "turnId": "t1",
        "toolCallId": id, "content": [{"type": "text", "text": "from B"}]}),
    );
    assert_rejected(
        &mut b,
        S,
        content,
        "B streams A's tool content",
        "only the client",
    )
    .await;
    assert_rejected(
        &mut b,
        S,
        complete("t1", &id, "from B"),
        "B completes A's tool",
        "only the client",
    )
    .await;
    a.dispatch(S, complete("t1", &id, "from A")).await;
    b.until_turn_end("t1").await;
    let text = markdown(&host_state(&t.host, S).await.turns[0].response_parts);
    assert!(
        text.contains("from A") && !text.contains("from B"),
        "{text}"
    );

    // A server tool call: no client completes it, not even the active one.
    a.send_message(S, "t2", "/tool list").await;
    let envs = a
        .envelopes_until(
            |e| matches!(&e.action, StateAction::SessionToolCallReady(r) if r.turn_id == "t2"),
        )
        .await;
    let StateAction::SessionToolCallReady(ready) = &envs.last().unwrap().action else {
        unreachable!()
    };
    let id = ready.tool_call_id.clone();
    assert_rejected(
        &mut a,
        S,
        complete("t2", &id, "forged"),
        "A completes a server tool",
        "executed by the server",
    )
    .await;
}

/// A handshake claiming `client_id` without a `clientSecret`, as every spec-following client
/// sends it.
fn claim_without_secret(method: &str, client_id: &str) -> Value {
    match method {
        "initialize" => json!({"channel": ROOT_CHANNEL, "protocolVersions": ["0.3.0"],
            "clientId": client_id}),
        _ => json!({"channel": ROOT_CHANNEL, "clientId": client_id, "lastSeenServerSeq": 0,
            "subscriptions": []}),
    }
}

/// "actions authorized against ... the connection that owns them (active client, tool-call
/// owner)": ownership goes by `clientId`, which every subscriber reads from state, so the id
/// must not pass to another connection on its say-so.
///
/// Controls: `claim_client_id` and the ping of the holding connection (`hub/identity.rs`,
/// `hub/id_claims.rs`). Prevented: taking an id from a live connection without its secret;
/// taking the id of a client that has presented its secret (the SDK clients), connected or not.
/// Not prevented, and asserted so: while no connection holds the id of a client that never
/// presented a secret (any official client), a handshake with that id is accepted: the host
/// cannot tell the client's own `reconnect` from someone else's.
#[tokio::test]
async fn a_client_id_is_not_taken_from_its_connection() {
    let t = start_host().await;
    // A connected client that never presented its secret, as an official client: each claim
    // is refused once its connection answers the host's ping.
    let mut holder = Client::ready(&t.host, "holder").await;
    for method in ["initialize", "reconnect"] {
        let mut intruder = Client::connect(&t.host, "intruder").await;
        let claim = intruder.call(method, claim_without_secret(method, "holder"));
        let e = holder.reading_while(claim).await.unwrap_err();
        assert_eq!(e.code, errors::PERMISSION_DENIED, "{method}: {e:?}");
        assert!(e.message.contains("live connection"), "{e:?}");
        // The intruder's connection stays, and may use an id of its own.
        ping(&mut intruder).await;
    }
    ping(&mut holder).await;

    // A client that presented its secret once (the SDK clients do at every reconnect) keeps
    // its id while it is away too.
    let sdk = Client::ready(&t.host, "sdk").await;
    sdk.close().await;
    let mut sdk = Client::connect(&t.host, "sdk").await;
    sdk.reconnect(0, vec![])
        .await
        .expect("its own reconnect, with its secret");
    sdk.close().await;
    let mut intruder = Client::connect(&t.host, "intruder").await;
    for method in ["initialize", "reconnect"] {
        let e = intruder
            .call(method, claim_without_secret(method, "sdk"))
            .await
            .unwrap_err();
        assert_eq!(e.code, errors::PERMISSION_DENIED, "{method}: {e:?}");
        assert!(e.message.contains("clientSecret"), "{e:?}");
    }

    // NOT prevented: once the holder is gone, its id is anyone's who asks first.
    holder.close().await;
    intruder
        .call("reconnect", claim_without_secret("reconnect", "holder"))
        .await
        .expect("a secret-less reconnect with a free id is the spec's flow, and accepted");
}

/// "tokens are never logged"
///
/// Controls: `Token`'s redacting `Debug` (security.rs), `hide_env_values` on `--token`, and no
/// logging of presented tokens.
#[tokio::test]
async fn tokens_are_never_logged() {
    const SECRET: &str = "threat-model-secret-token-0123456789";
    const WRONG: &str = "presented-wrong-token-9876543210";
    // Not in Debug output of the running host or its configuration.
    let t = start_host_with(|c| c.token = Some(SECRET.parse().unwrap())).await;
    let mut config = Config::local(t.data.path(), t.work.path());
    config.token = Some(SECRET.parse().unwrap());
    for debug in [format!("{:?}", t.host), format!("{config:?}")] {
        assert!(!debug.contains(SECRET), "{debug}");
    }
    // Not in `--help` when it comes from the environment.
    let help = Command::new(env!("CARGO_BIN_EXE_ahp-host"))
        .arg("--help")
        .env("AHP_HOST_TOKEN", SECRET)
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("AHP_HOST_TOKEN"), "{help}");
    assert!(!help.contains(SECRET), "--help shows the token:\n{help}");

    // The binary prints it once, in the URL to open; it never logs it, nor a wrong one.
    let data = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ahp-host"))
        .args(["--port", "0"])
        .arg("--data-dir")
        .arg(data.path())
        .arg("--workdir")
        .arg(t.work.path())
        .env("AHP_HOST_TOKEN", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut banner = Vec::new();
    let addr = loop {
        let mut line = String::new();
        use std::io::BufRead;
        assert!(stdout.read_line(&mut line).unwrap() > 0, "no banner");
        banner.push(line.clone());
        if let Some(rest) = line.strip_prefix("open: http://") {
            break rest.split('/').next().unwrap().to_owned();
        }
    };
    let url = format!("ws://{addr}/ahp");
    assert_eq!(
        try_connect(&format!("{url}?tkn={WRONG}"), &[]).await.err(),
        Some(401)
    );
    let wrong = format!("Bearer {WRONG}");
    assert_eq!(
        try_connect(&url, &[("authorization", wrong.as_str())])
            .await
            .err(),
        Some(401)
    );
    let mut c = Client::connect_url(&format!("{url}?tkn={SECRET}"), "logged").await;
    c.initialize(&[]).await;
    c.create_session(S).await;
    c.send_text("not json").await;
    next_error(&mut c).await;
    c.close().await;
    // SIGTERM: a clean stop, so everything it would print is printed.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = exit_within(&mut child).expect("ahp-host stops on SIGTERM");
    assert!(status.success());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let stderr = stderr_of(&mut child);
    let stdout = banner.concat() + &rest;
    let with_token: Vec<&str> = stdout.lines().filter(|l| l.contains(SECRET)).collect();
    assert_eq!(with_token.len(), 1, "stdout:\n{stdout}");
    assert!(with_token[0].starts_with("open: "), "{stdout}");
    assert!(
        !stderr.contains(SECRET) && !stderr.contains(WRONG),
        "stderr:\n{stderr}"
    );
    assert!(!stdout.contains(WRONG), "{stdout}");
}

/// "a repository's commands run only once a client approves them" (issue 30: a working
/// directory's `.mcp.json` is written by the repository, not by the operator; VS Code and Claude
/// Code ask before running a workspace's MCP servers)
///
/// Controls: `hub/mcp_trust.rs` (a server declared by the working directory waits, not enabled,
/// in `error` `McpServerNeedsApproval`, until a client enables it; approvals in SQLite, per
/// directory and declaration) and the guard in `hub/mcp.rs` `mcp_start`.
#[tokio::test]
async fn a_repository_s_mcp_servers_run_only_once_a_client_approves_them() {
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("pwned");
    let t = start_host().await;
    std::fs::write(
        t.work.path().join(".mcp.json"),
        json!({"mcpServers": {"repo": {"command": "sh",
            "args": ["-c", "echo pwned > \"$MARKER\""], "env": {"MARKER": marker}}}})
        .to_string(),
    )
    .unwrap();
    let c = Client::in_new_session(&t.host, "threat-mcp", S).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !marker.exists(),
        "createSession ran the repository's command (it wrote outside the working directory)"
    );
    c.close().await;
    let TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut c = Client::ready(&host, "threat-mcp").await;
    c.subscribe(S).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !marker.exists(),
        "a subscribe after a restart ran the repository's command"
    );
    let state = host_state(&host, S).await;
    let entry = state
        .customizations
        .iter()
        .flatten()
        .find_map(|c| match c {
            Customization::McpServer(m) if m.id == "mcp/repo" => Some(m.clone()),
            _ => None,
        })
        .expect("the server is listed");
    assert!(!entry.enabled);
    assert!(
        matches!(&entry.state, McpServerState::Error(e)
            if e.error.error_type == "McpServerNeedsApproval" && e.error.message.contains("pwned")),
        "{entry:?}"
    );
    // The approval: a client enables it.
    c.dispatch(
        S,
        action(json!({"type": "session/customizationToggled", "id": "mcp/repo", "enabled": true})),
    )
    .await;
    let deadline = Instant::now() + WAIT;
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the approved server never ran");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    c.close().await;
    host.shutdown().await;
}
