//! Servers over stdio and HTTP: start, fail, tools, toggles, disposal, shutdown, restart.

use super::*;

#[tokio::test]
async fn the_basic_example_server_runs_and_the_agent_calls_get_time() {
    let t = basic_host().await;
    let (mut c, mut mirror) = session(&t).await;
    let server = until_state(&mut c, &mut mirror, "mcp/basic", "ready").await;
    assert_eq!(server.name, "basic");
    assert!(server.enabled);
    assert!(server.uri.starts_with("file://") && server.uri.ends_with(".mcp.json"));

    // The tool joined the session's tools, with the server as contributor.
    let tool = mirror
        .server_tools
        .iter()
        .flatten()
        .find(|t| t.name == "mcp__basic__get-time")
        .unwrap_or_else(|| panic!("get-time is listed: {:?}", tool_names(&mirror)));
    let meta = tool.meta.as_ref().expect("_meta");
    assert_eq!(
        meta["contributor"],
        json!({"kind": "mcp", "customizationId": "mcp/basic"})
    );
    assert_eq!(meta["mcpTool"], "get-time");
    assert_eq!(tool.title.as_deref(), Some("Get Time"));
    assert!(tool_names(&mirror).contains(&"list_files".to_owned()));

    let (start, result, text) = mcp_turn(&mut c, &mut mirror, "t1", "/mcp basic get-time {}").await;
    assert_eq!(start.tool_name, "mcp__basic__get-time");
    assert_eq!(
        start.contributor,
        Some(ToolCallContributor::MCP(ToolCallMcpContributor {
            customization_id: "mcp/basic".into(),
            extra: Default::default(),
        }))
    );
    assert!(result.success, "{result:?}");
    let time = result_text(&result);
    assert!(
        time.len() >= 20 && time.starts_with("20") && time.contains('T') && time.ends_with('Z'),
        "an ISO 8601 time: {time}"
    );
    assert_eq!(
        result
            .structured_content
            .as_ref()
            .and_then(|s| s.get("time")),
        Some(&Value::from(time.clone()))
    );
    assert!(
        text.contains(&format!("MCP tool `get-time` returned: {time}")),
        "{text}"
    );

    // Every client sees the same: a fresh subscriber's snapshot equals the mirror.
    let host = host_state(&t.host, S).await;
    assert_eq!(comparable(&mirror), comparable(&host));
}

#[tokio::test]
async fn bad_servers_end_in_error_with_the_reason_and_the_host_stays_healthy() {
    let t = host_with(
        |_| {
            json!({
                "exits": {"command": "node", "args": [fixture("exit_at_start.mjs")]},
                "silent": {"command": "node", "args": [fixture("silent.mjs")]},
                "garbage": {"command": "node", "args": [fixture("garbage.mjs")]},
                "missing": {"command": "/nonexistent/mcp-server"},
                "badconfig": {"command": 5},
            })
        },
        |c| c.mcp.init_timeout = Duration::from_millis(4000),
    )
    .await;
    let started = Instant::now();
    let (mut c, mut mirror) = session(&t).await;

    let exits = until_state(&mut c, &mut mirror, "mcp/exits", "error").await;
    let why = error_message(&exits);
    assert!(why.contains("exited") && why.contains('3'), "{why}");
    assert!(
        why.contains("fatal: the frobnicator config is missing"),
        "stderr tail: {why}"
    );

    let garbage = until_state(&mut c, &mut mirror, "mcp/garbage", "error").await;
    let why = error_message(&garbage);
    assert!(
        why.contains("stdout") && why.contains("Starting server... done!"),
        "{why}"
    );

    let silent = until_state(&mut c, &mut mirror, "mcp/silent", "error").await;
    let why = error_message(&silent);
    assert!(
        why.contains("`initialize`") && why.contains("4000 ms"),
        "{why}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "bounded by the timeout"
    );

    let missing = until_state(&mut c, &mut mirror, "mcp/missing", "error").await;
    assert!(
        error_message(&missing).contains("cannot start"),
        "{missing:?}"
    );
    let bad = until_state(&mut c, &mut mirror, "mcp/badconfig", "error").await;
    assert!(error_message(&bad).contains("`command`"), "{bad:?}");

    // No MCP tool was published, no server is restarted in a loop, the session works.
    assert!(tool_names(&mirror).iter().all(|n| !n.starts_with("mcp__")));
    healthy(&mut c, &mut mirror, "t1").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let host = host_state(&t.host, S).await;
    for id in ["mcp/exits", "mcp/silent", "mcp/garbage"] {
        assert_eq!(kind(&mcp_server(&host, id).unwrap().state), "error");
    }
    assert_eq!(comparable(&mirror), comparable(&host));

    // A broken file is an entry in error too, not a failed session.
    std::fs::write(t.work.path().join(".mcp.json"), "{ not json").unwrap();
    c.create_session("ahp-session:/broken").await;
    let state = session_state(&c.subscribe("ahp-session:/broken").await);
    let entry = mcp_server(&state, "mcp-config/.mcp.json").expect("an entry for the file");
    assert!(error_message(entry).contains("invalid"), "{entry:?}");
    ping(&mut c).await;
}

#[tokio::test]
async fn tool_failures_become_failed_tool_calls() {
    let t = host_with(
        |_| json!({"t": {"command": "node", "args": [fixture("tools.mjs")]}}),
        |c| c.mcp.request_timeout = Duration::from_millis(4000),
    )
    .await;
    let (mut c, mut mirror) = session(&t).await;
    until_state(&mut c, &mut mirror, "mcp/t", "ready").await;

    // A 20 MiB result: discarded by the transport (over the 4 MiB limit), a clear failure.
    let (_, big, _) = mcp_turn(&mut c, &mut mirror, "t1", "/mcp t big {\"mb\": 20}").await;
    // (Found as it streams in: not a timeout, whose message would differ.)
    assert_failed(&big, "larger than the limit of 4194304 bytes");

    let (_, fail, _) = mcp_turn(&mut c, &mut mirror, "t2", "/mcp t fail").await;
    assert_failed(&fail, "the widget is broken");

    let (_, rpc, _) = mcp_turn(&mut c, &mut mirror, "t3", "/mcp t rpc-error").await;
    assert_failed(&rpc, "kaput: backend unreachable");

    let (_, hang, _) = mcp_turn(&mut c, &mut mirror, "t4", "/mcp t hang").await;
    assert_failed(&hang, "within 4000 ms");

    // The server is still ready and answers normally afterwards.
    let (_, echo, text) = mcp_turn(
        &mut c,
        &mut mirror,
        "t5",
        "/mcp t echo {\"text\": \"hi there\"}",
    )
    .await;
    assert!(echo.success);
    assert_eq!(result_text(&echo), "hi there");
    assert!(text.contains("returned: hi there"), "{text}");
    assert_eq!(kind(&mcp_server(&mirror, "mcp/t").unwrap().state), "ready");

    // Unknown servers, tools and bad arguments are said, not called.
    c.send_message(S, "t6", "/mcp nope echo\n/mcp t nope\n/mcp t echo [1]")
        .await;
    let envs = c.until_turn_end("t6").await;
    reduce_all(&mut mirror, &envs);
    assert!(!envs
        .iter()
        .any(|e| matches!(e.action, StateAction::SessionToolCallStart(_))));
    let said = markdown(&mirror.turns.last().unwrap().response_parts);
    assert!(said.contains("No MCP server named `nope`"), "{said}");
    assert!(said.contains("has no tool named `nope`"), "{said}");
    assert!(said.contains("must be a JSON object"), "{said}");
    healthy(&mut c, &mut mirror, "t7").await;
}

/// A host whose session `S` runs `tools.mjs` as server `t`, ready; it writes its pid to the
/// returned file.
async fn pid_server_ready() -> (TestHost, PathBuf, Client, SessionState) {
    let t = host_with(
        |work| {
            json!({"t": {"command": "node", "args": [fixture("tools.mjs")],
                "env": {"PID_FILE": work.join("t.pid").to_string_lossy()}}})
        },
        |_| {},
    )
    .await;
    let pid_file = t.work.path().join("t.pid");
    let (mut c, mut mirror) = session(&t).await;
    until_state(&mut c, &mut mirror, "mcp/t", "ready").await;
    (t, pid_file, c, mirror)
}

#[tokio::test]
async fn toggles_stop_and_start_servers_and_disposal_kills_them() {
    let (t, pid_file, mut c, mut mirror) = pid_server_ready().await;
    let first = read_pid(&pid_file);
    assert!(alive(first));
    assert!(tool_names(&mirror).contains(&"mcp__t__echo".to_owned()));

    // Off: stopped, the process is gone, its tools are withdrawn.
    let toggle = |enabled: bool| {
        StateAction::SessionCustomizationToggled(SessionCustomizationToggledAction {
            id: "mcp/t".into(),
            enabled,
            extra: Default::default(),
        })
    };
    c.dispatch(S, toggle(false)).await;
    let off = until_state(&mut c, &mut mirror, "mcp/t", "stopped").await;
    assert!(!off.enabled);
    until_dead(first).await;
    assert!(tool_names(&mirror).iter().all(|n| !n.starts_with("mcp__")));

    // On: a new process, ready again.
    std::fs::remove_file(&pid_file).unwrap();
    c.dispatch(S, toggle(true)).await;
    until_state(&mut c, &mut mirror, "mcp/t", "ready").await;
    let second = read_pid(&pid_file);
    assert_ne!(first, second);
    assert!(alive(second));

    // A crash during a call: the call fails, the server is in error (stderr tail), and it is
    // not restarted.
    let (_, crash, _) = mcp_turn(&mut c, &mut mirror, "t1", "/mcp t crash").await;
    assert!(!crash.success);
    let down = until_state(&mut c, &mut mirror, "mcp/t", "error").await;
    let why = error_message(&down);
    assert!(
        why.contains("exited") && why.contains("panic: crash requested"),
        "{why}"
    );
    until_dead(second).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        kind(
            &mcp_server(&host_state(&t.host, S).await, "mcp/t")
                .unwrap()
                .state
        ),
        "error"
    );
    healthy(&mut c, &mut mirror, "t2").await;

    // Off and on again restarts it; disposing of the session kills it.
    c.dispatch(S, toggle(false)).await;
    until_state(&mut c, &mut mirror, "mcp/t", "stopped").await;
    c.dispatch(S, toggle(true)).await;
    until_state(&mut c, &mut mirror, "mcp/t", "ready").await;
    let third = read_pid(&pid_file);
    assert!(alive(third));
    c.request::<ahp_wasm::protocol::jsonrpc::DisposeSession>(DisposeSessionParams {
        channel: S.into(),
        extra: Default::default(),
    })
    .await
    .expect("disposeSession");
    until_dead(third).await;
    ping(&mut c).await;
}

#[tokio::test]
async fn host_shutdown_kills_its_servers_and_global_config_applies_to_every_session() {
    let data = tempfile::tempdir().unwrap();
    let global = data.path().join("servers.json");
    let pid_file = data.path().join("g.pid");
    std::fs::write(
        &global,
        json!({"mcpServers": {"g": {"command": "node", "args": [fixture("tools.mjs")],
            "env": {"PID_FILE": pid_file.to_string_lossy()}}}})
        .to_string(),
    )
    .unwrap();
    // A plugin directory's `.mcp.json` adds its servers too.
    let plugin = data.path().join("plugin");
    std::fs::create_dir(&plugin).unwrap();
    let plugin_pid = data.path().join("p.pid");
    std::fs::write(
        plugin.join(".mcp.json"),
        json!({"mcpServers": {"p": {"command": "node", "args": [fixture("tools.mjs")],
            "env": {"PID_FILE": plugin_pid.to_string_lossy()}}}})
        .to_string(),
    )
    .unwrap();
    let t = start_host_with(|c| {
        c.mcp_config = Some(global.clone());
        c.plugins = vec![plugin.clone()];
    })
    .await;
    let (mut c, mut mirror) = session(&t).await;
    until_state(&mut c, &mut mirror, "mcp/g", "ready").await;
    let from_plugin = until_state(&mut c, &mut mirror, "mcp/p", "ready").await;
    assert!(
        from_plugin.uri.ends_with("/plugin/.mcp.json"),
        "{}",
        from_plugin.uri
    );
    let pid = read_pid(&pid_file);
    let pid_p = read_pid(&plugin_pid);
    assert!(alive(pid) && alive(pid_p));
    c.close().await;
    t.host.shutdown().await;
    until_dead(pid).await;
    until_dead(pid_p).await;
}

#[tokio::test]
async fn after_a_restart_servers_start_again_when_the_session_is_used() {
    let (t, pid_file, c, _) = pid_server_ready().await;
    let before = read_pid(&pid_file);
    c.close().await;
    let TestHost { host, data, work } = t;
    host.shutdown().await;
    until_dead(before).await;
    std::fs::remove_file(&pid_file).unwrap();

    let host = restart_trusting(data.path(), work.path()).await;
    // Not running until the session is used: the restored state says `stopped`.
    let mut c = Client::ready(&host, "mcp-client").await;
    let mut mirror = session_state(&c.subscribe(S).await);
    let restored = mcp_server(&mirror, "mcp/t").expect("the entry was kept");
    assert!(restored.enabled);
    assert_eq!(kind(&restored.state), "stopped", "{restored:?}");
    until_state(&mut c, &mut mirror, "mcp/t", "ready").await;
    let after = read_pid(&pid_file);
    assert!(alive(after));
    let (_, echo, _) = mcp_turn(
        &mut c,
        &mut mirror,
        "t1",
        "/mcp t echo {\"text\": \"back\"}",
    )
    .await;
    assert_eq!(result_text(&echo), "back");
    c.close().await;
    host.shutdown().await;
    until_dead(after).await;
}

#[tokio::test]
async fn a_url_server_is_reached_over_streamable_http() {
    // The same example server, in its HTTP mode (stateless streamable HTTP at /mcp).
    let (_server, port) = http_fixture(basic_server()).await;
    let closed = free_port();
    let t = host_with(
        |_| {
            json!({
                "web": {"url": format!("http://127.0.0.1:{port}/mcp"), "headers": {"X-Test": "1"}},
                "down": {"url": format!("http://127.0.0.1:{closed}/mcp")},
            })
        },
        |c| c.mcp.init_timeout = Duration::from_secs(3),
    )
    .await;
    let (mut c, mut mirror) = session(&t).await;
    until_state(&mut c, &mut mirror, "mcp/web", "ready").await;
    assert!(tool_names(&mirror).contains(&"mcp__web__get-time".to_owned()));
    let (start, result, _) = mcp_turn(&mut c, &mut mirror, "t1", "/mcp web get-time").await;
    assert_eq!(start.tool_name, "mcp__web__get-time");
    assert!(result.success, "{result:?}");
    assert!(result_text(&result).starts_with("20"), "{result:?}");
    let down = until_state(&mut c, &mut mirror, "mcp/down", "error").await;
    assert!(error_message(&down).contains("initialize"), "{down:?}");
    healthy(&mut c, &mut mirror, "t2").await;
}

/// Linux only: the parent-death signal is a Linux feature.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_host_killed_with_sigkill_takes_its_servers_with_it() {
    let (data, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let pid_file = work.path().join("stubborn.pid");
    write_mcp_json(
        work.path(),
        json!({"s": {"command": "node", "args": [fixture("stubborn.mjs")],
            "env": {"PID_FILE": pid_file.to_string_lossy()}}}),
    );
    let host = HostProcess::spawn(
        data.path(),
        work.path(),
        "sigkill-test-host-token-0123456789",
        &["--trust-project-mcp"],
    );
    let mut c = Client::connect_url(&host.url(), "sigkill").await;
    c.initialize(&[]).await;
    c.create_session(S).await;
    let mut mirror = session_state(&c.subscribe(S).await);
    until_state(&mut c, &mut mirror, "mcp/s", "ready").await;
    let pid = read_pid(&pid_file);
    assert!(alive(pid));

    // Nothing of the host runs any more: its server (which outlives a closed stdin and
    // SIGTERM) goes with it.
    host.kill_9();
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) {
        if Instant::now() > deadline {
            // Do not leave it behind for the next test run.
            // SAFETY: kill(2) on a pid this test saw alive a moment ago.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("the server {pid} outlived the host killed with SIGKILL");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
