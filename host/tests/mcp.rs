//! MCP servers run by the host with `rmcp`: the real `@modelcontextprotocol/server-basic-vanillajs`
//! (from the workspace's `node_modules`, installed by `scripts/install-tools.sh`) and small Node
//! servers under `tests/fixtures/mcp/` that misbehave on purpose. Each test drives the host
//! over its WebSocket and asserts on the session state every client sees, on tool call results
//! and on the liveness of the server processes.

mod common;

use ahp_wasm::protocol::*;
use ahp_wasm::protocol::{errors, jsonrpc};
use common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const S: &str = "ahp-session:/mcp";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The example server's entry point; a missing one fails the test (never a silent skip).
fn basic_server() -> PathBuf {
    let entry = workspace()
        .join("node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js")
        .canonicalize();
    match entry {
        Ok(path) => path,
        Err(e) => panic!(
            "node_modules/@modelcontextprotocol/server-basic-vanillajs is missing ({e}); \
             run scripts/install-tools.sh (npm ci) at the workspace root"
        ),
    }
}

/// A host whose sessions run the example server as `basic` (over stdio).
async fn basic_host() -> TestHost {
    let entry = basic_server();
    host_with(
        |_| json!({"basic": {"command": "node", "args": [entry, "--stdio"]}}),
        |_| {},
    )
    .await
}

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp")
        .join(name);
    path.canonicalize()
        .unwrap_or_else(|e| panic!("fixture {name}: {e}"))
        .to_string_lossy()
        .into_owned()
}

fn write_mcp_json(work: &Path, servers: Value) {
    std::fs::write(
        work.join(".mcp.json"),
        json!({ "mcpServers": servers }).to_string(),
    )
    .unwrap();
}

/// A host whose working directory holds `.mcp.json` with `servers`; MCP limits tweaked.
async fn host_with(
    servers: impl FnOnce(&Path) -> Value,
    tweak: impl FnOnce(&mut ahp_host::Config),
) -> TestHost {
    let t = start_host_with(tweak).await;
    write_mcp_json(t.work.path(), servers(t.work.path()));
    t
}

/// A client with session `S` created and subscribed, and its mirrored state.
async fn session(t: &TestHost) -> (Client, SessionState) {
    let mut c = Client::ready(&t.host, "mcp-client").await;
    c.create_session(S).await;
    let state = session_state(&c.subscribe(S).await);
    (c, state)
}

fn mcp_server<'a>(state: &'a SessionState, id: &str) -> Option<&'a McpServerCustomization> {
    state.customizations.iter().flatten().find_map(|c| match c {
        Customization::McpServer(m) if m.id == id => Some(m),
        _ => None,
    })
}

fn kind(state: &McpServerState) -> &'static str {
    match state {
        McpServerState::Starting(_) => "starting",
        McpServerState::Ready(_) => "ready",
        McpServerState::AuthRequired(_) => "authRequired",
        McpServerState::Error(_) => "error",
        McpServerState::Stopped(_) => "stopped",
        McpServerState::Unknown(_) => "unknown",
    }
}

/// Reads envelopes into `mirror` until server `id` is in state `want`; returns it.
async fn until_state(
    c: &mut Client,
    mirror: &mut SessionState,
    id: &str,
    want: &str,
) -> McpServerCustomization {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(m) = mcp_server(mirror, id) {
            if kind(&m.state) == want {
                return m.clone();
            }
            if kind(&m.state) == "error" && want == "ready" {
                panic!(
                    "server {id} failed instead of reaching {want}: {:?}",
                    m.state
                );
            }
        }
        assert!(
            Instant::now() < deadline,
            "server {id} never reached {want}"
        );
        let e = c.envelope().await;
        reduce_all(mirror, &[e]);
    }
}

fn error_message(m: &McpServerCustomization) -> String {
    match &m.state {
        McpServerState::Error(e) => e.error.message.clone(),
        other => panic!("{} is not in error: {other:?}", m.id),
    }
}

/// Runs a turn with one `/mcp` directive, approving the tool call; returns the tool call's
/// start action, its result and the turn's markdown.
async fn mcp_turn(
    c: &mut Client,
    mirror: &mut SessionState,
    turn: &str,
    text: &str,
) -> (SessionToolCallStartAction, ToolCallResult, String) {
    c.send_message(S, turn, text).await;
    let envs = c
        .envelopes_until(|e| matches!(&e.action, StateAction::SessionToolCallReady(_)))
        .await;
    reduce_all(mirror, &envs);
    let start = envs
        .iter()
        .find_map(|e| match &e.action {
            StateAction::SessionToolCallStart(s) => Some((**s).clone()),
            _ => None,
        })
        .expect("the tool call started");
    let StateAction::SessionToolCallReady(ready) = &envs.last().unwrap().action else {
        unreachable!()
    };
    assert!(ready.confirmed.is_none(), "MCP tools need confirmation");
    c.dispatch(S, approve(turn, &start.tool_call_id)).await;
    let envs = c.until_turn_end(turn).await;
    reduce_all(mirror, &envs);
    let result = envs
        .iter()
        .find_map(|e| match &e.action {
            StateAction::SessionToolCallComplete(a) if a.tool_call_id == start.tool_call_id => {
                Some(a.result.clone())
            }
            _ => None,
        })
        .expect("the tool call completed");
    assert!(
        matches!(
            envs.last().unwrap().action,
            StateAction::SessionTurnComplete(_)
        ),
        "the turn completes normally"
    );
    let text = markdown(&mirror.turns.last().unwrap().response_parts);
    (start, result, text)
}

fn result_text(r: &ToolCallResult) -> String {
    r.content
        .iter()
        .flatten()
        .filter_map(|c| match c {
            ToolResultContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect()
}

/// A failed tool call whose error message contains `needle`.
fn assert_failed(r: &ToolCallResult, needle: &str) {
    assert!(!r.success, "{r:?}");
    let message = &r.error.as_ref().expect("an error").message;
    assert!(message.contains(needle), "`{needle}` in {message}");
}

/// The session still works: `ping`, then a plain turn completes.
async fn healthy(c: &mut Client, mirror: &mut SessionState, turn: &str) {
    ping(c).await;
    c.send_message(S, turn, "still there?").await;
    let envs = c.until_turn_end(turn).await;
    reduce_all(mirror, &envs);
    assert!(matches!(
        envs.last().unwrap().action,
        StateAction::SessionTurnComplete(_)
    ));
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name; a zombie is dead.
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

async fn until_dead(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        assert!(Instant::now() < deadline, "process {pid} is still alive");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn read_pid(file: &Path) -> u32 {
    std::fs::read_to_string(file)
        .expect("the server wrote its pid")
        .trim()
        .parse()
        .unwrap()
}

fn tool_names(state: &SessionState) -> Vec<String> {
    state
        .server_tools
        .iter()
        .flatten()
        .map(|t| t.name.clone())
        .collect()
}

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
            extra: Default::default()
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

    let host = restart(data.path(), work.path()).await;
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

/// A child process killed when dropped.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn a_url_server_is_reached_over_streamable_http() {
    // The same example server, in its HTTP mode (stateless streamable HTTP at /mcp).
    let port = free_port();
    let _server = Killed(
        std::process::Command::new("node")
            .arg(basic_server())
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("node runs"),
    );
    let deadline = Instant::now() + WAIT;
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "the HTTP server never listened");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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

// ---- Servers that need a token ----

/// The `auth_http.mjs` fixture (a streamable-HTTP server that wants `Bearer s3cret`), listening
/// on a free port.
async fn auth_fixture() -> (Killed, u16) {
    let port = free_port();
    let server = Killed(
        std::process::Command::new("node")
            .arg(fixture("auth_http.mjs"))
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("node runs"),
    );
    let deadline = Instant::now() + WAIT;
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "the HTTP server never listened");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (server, port)
}

fn auth_state(m: &McpServerCustomization) -> &McpServerAuthRequiredState {
    match &m.state {
        McpServerState::AuthRequired(a) => a,
        other => panic!("{} is not authRequired: {other:?}", m.id),
    }
}

async fn authenticate(
    c: &mut Client,
    resource: &str,
    token: &str,
) -> Result<Value, jsonrpc::ErrorObject> {
    let params = json!({"channel": "ahp-root://", "resource": resource, "token": token});
    c.call("authenticate", params).await
}

/// Applies the envelopes already received to `mirror`.
async fn settle(c: &mut Client, mirror: &mut SessionState) {
    reduce_all(mirror, &drain_envelopes(c).await);
}

/// The first file under `dir` that contains `needle`.
fn found_in(dir: &Path, needle: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir).unwrap().find_map(|entry| {
        let path = entry.unwrap().path();
        if path.is_dir() {
            return found_in(&path, needle);
        }
        let bytes = std::fs::read(&path).unwrap();
        bytes
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
            .then_some(path)
    })
}

#[tokio::test]
async fn a_server_that_needs_a_token_waits_in_auth_required_until_authenticate() {
    let (_server, port) = auth_fixture().await;
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let (data, work, logs) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let bare = format!("http://127.0.0.1:{port}/bare");
    write_mcp_json(
        work.path(),
        json!({"secure": {"url": resource}, "bare": {"url": bare}}),
    );
    let log = || {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(logs.path().join("host.log"))
            .unwrap()
    };
    let host_token = "auth-test-host-token-0123456789";
    let spawn = || HostProcess::spawn_with_stderr(data.path(), work.path(), host_token, &[], log());
    let host = spawn();
    let mut c = Client::connect_url(&host.url(), "auth-a").await;
    c.initialize(&["ahp-root://"]).await;
    c.create_session(S).await;
    let mut mirror = session_state(&c.subscribe(S).await);
    // A second client watches the session the whole time.
    let mut other = Client::connect_url(&host.url(), "auth-b").await;
    other.initialize(&["ahp-root://", S]).await;

    // Refused at `initialize`: authRequired, with the metadata the challenge points at.
    let m = until_state(&mut c, &mut mirror, "mcp/secure", "authRequired").await;
    let needs = auth_state(&m);
    assert_eq!(needs.reason, McpAuthRequiredReason::Required);
    assert_eq!(needs.resource.resource, resource);
    assert_eq!(needs.resource.resource_name.as_deref(), Some("Fixture MCP"));
    assert_eq!(
        needs.resource.authorization_servers,
        Some(vec!["https://auth.example".to_owned()])
    );
    assert_eq!(needs.required_scopes, Some(vec!["tools:read".to_owned()]));
    assert!(m.channel.is_none());
    // A 401 without a challenge, and metadata naming another resource (…/mcp): the server's own
    // URL stands in.
    let m = until_state(&mut c, &mut mirror, "mcp/bare", "authRequired").await;
    assert_eq!(auth_state(&m).resource.resource, bare);
    assert_eq!(auth_state(&m).resource.authorization_servers, None);
    assert!(!tool_names(&mirror)
        .iter()
        .any(|n| n.starts_with("mcp__secure__")));

    // A token for a resource no server asked for, or on another channel: InvalidParams.
    let e = authenticate(&mut c, "https://elsewhere.example/mcp", "s3cret")
        .await
        .unwrap_err();
    assert_eq!(e.code, errors::INVALID_PARAMS, "{e:?}");
    assert!(e.message.contains("no MCP server"), "{e:?}");
    let e = c
        .call(
            "authenticate",
            json!({"channel": S, "resource": resource, "token": "s3cret"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, errors::INVALID_PARAMS, "{e:?}");

    // A wrong token: AuthRequired; the server is tried with it and stays authRequired.
    let e = authenticate(&mut c, &resource, "wrong-token")
        .await
        .unwrap_err();
    assert_eq!(e.code, errors::AUTH_REQUIRED, "{e:?}");
    assert!(
        e.message.contains("refused by MCP server `secure`"),
        "{e:?}"
    );
    assert_eq!(
        e.data.unwrap()["resources"][0]["resource"],
        resource.as_str()
    );
    settle(&mut c, &mut mirror).await;
    let m = mcp_server(&mirror, "mcp/secure").unwrap();
    assert_eq!(auth_state(m).reason, McpAuthRequiredReason::Required);
    assert_eq!(
        auth_state(m).description.as_deref(),
        Some("The access token is invalid")
    );

    // The right token: `{}`, ready, its tools listed and callable.
    let ok = authenticate(&mut c, &resource, "s3cret")
        .await
        .expect("accepted");
    assert_eq!(ok, json!({}));
    settle(&mut c, &mut mirror).await;
    let m = mcp_server(&mirror, "mcp/secure").unwrap();
    assert_eq!(kind(&m.state), "ready", "{m:?}");
    assert!(tool_names(&mirror).contains(&"mcp__secure__whoami".to_owned()));
    let (_, whoami, _) = mcp_turn(&mut c, &mut mirror, "t1", "/mcp secure whoami").await;
    assert_eq!(result_text(&whoami), "authorized");

    // Mid-session the token stops working: the call fails saying so, the server is
    // authRequired (`expired`: the token had worked) and a new token brings it back.
    let (_, rotated, _) = mcp_turn(&mut c, &mut mirror, "t2", "/mcp secure rotate").await;
    assert_eq!(result_text(&rotated), "rotated");
    let (_, refused, _) = mcp_turn(&mut c, &mut mirror, "t3", "/mcp secure whoami").await;
    assert_failed(&refused, "authenticate");
    let m = until_state(&mut c, &mut mirror, "mcp/secure", "authRequired").await;
    assert_eq!(auth_state(&m).reason, McpAuthRequiredReason::Expired);
    assert!(!tool_names(&mirror)
        .iter()
        .any(|n| n.starts_with("mcp__secure__")));
    authenticate(&mut c, &resource, "s3cret-2")
        .await
        .expect("accepted");
    settle(&mut c, &mut mirror).await;
    assert_eq!(
        kind(&mcp_server(&mirror, "mcp/secure").unwrap().state),
        "ready"
    );

    // The token is kept for its resource: the same server in a new session uses it.
    let mut third = Client::connect_url(&host.url(), "auth-c").await;
    third.initialize(&[]).await;
    third.create_session("ahp-session:/mcp-2").await;
    let mut mirror_2 = session_state(&third.subscribe("ahp-session:/mcp-2").await);
    until_state(&mut third, &mut mirror_2, "mcp/secure", "ready").await;
    third.close().await;

    // The other client saw every state, never a token.
    let mut seen = Vec::new();
    while let Some(Some(frame)) = other.frame_within(Duration::from_millis(300)).await {
        seen.push(frame.to_string());
    }
    assert!(seen.iter().any(|f| f.contains("\"authRequired\"")));
    assert!(seen.iter().any(|f| f.contains("\"ready\"")));
    for token in ["s3cret", "wrong-token"] {
        assert!(
            !seen.iter().any(|f| f.contains(token)),
            "{token} sent to another client"
        );
    }
    c.close().await;
    other.close().await;
    host.kill_9();

    // After a restart the tokens are gone: authRequired again once the session is used.
    let host = spawn();
    let mut c = Client::connect_url(&host.url(), "auth-a").await;
    c.initialize(&["ahp-root://"]).await;
    let mut mirror = session_state(&c.subscribe(S).await);
    until_state(&mut c, &mut mirror, "mcp/secure", "starting").await;
    until_state(&mut c, &mut mirror, "mcp/secure", "authRequired").await;
    c.close().await;
    host.kill_9();

    // Neither the database nor the host's log holds a token (the state is there).
    assert!(found_in(data.path(), "https://auth.example").is_some());
    for token in ["s3cret", "wrong-token"] {
        assert_eq!(
            found_in(data.path(), token),
            None,
            "{token} in the database"
        );
        assert_eq!(found_in(logs.path(), token), None, "{token} in the log");
    }
}

// ---- MCP Apps and the `mcp://` channel ----

/// A client that declared `capabilities.mcpApps` at `initialize`.
async fn apps_client(host: &ahp_host::RunningHost, client_id: &str) -> Client {
    let mut c = Client::connect(host, client_id).await;
    let capabilities = ClientCapabilities {
        mcp_apps: Some(JsonObject::new()),
        extra: Default::default(),
    };
    c.try_initialize_with(&[], Some(capabilities))
        .await
        .expect("initialize");
    c
}

/// Session `S` created by client `apps` (which declared `capabilities.mcpApps`) and subscribed
/// to by it and by client `plain` (which did not), with their snapshots.
async fn apps_and_plain(t: &TestHost) -> (Client, Snapshot, Client, Snapshot) {
    let mut a = apps_client(&t.host, "apps").await;
    a.create_session(S).await;
    let snap = a.subscribe(S).await;
    let mut plain = Client::ready(&t.host, "plain").await;
    let plain_snap = plain.subscribe(S).await;
    (a, snap, plain, plain_snap)
}

/// A host whose sessions run `tools.mjs` as an MCP App server `t`.
async fn app_fixture_host(tweak: impl FnOnce(&mut ahp_host::Config)) -> TestHost {
    host_with(
        |_| json!({"t": {"command": "node", "args": [fixture("tools.mjs")], "env": {"APP": "1"}}}),
        tweak,
    )
    .await
}

fn toggle(id: &str, enabled: bool) -> StateAction {
    StateAction::SessionCustomizationToggled(SessionCustomizationToggledAction {
        id: id.into(),
        enabled,
        extra: Default::default(),
    })
}

static NEXT_MCP_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Sends MCP request `method` on `channel` (the channel in `params`); returns its id.
async fn mcp_send(c: &mut Client, channel: &str, method: &str, mut params: Value) -> Value {
    let id = Value::from(format!(
        "mcp-{}",
        NEXT_MCP_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    params["channel"] = Value::from(channel);
    let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    c.send_text(frame.to_string()).await;
    id
}

/// An MCP request on `channel` and its whole response frame.
async fn mcp_call(c: &mut Client, channel: &str, method: &str, params: Value) -> Value {
    let id = mcp_send(c, channel, method, params).await;
    c.frame_with_id(&id).await
}

/// The result of a response frame, which must carry `channel`.
fn mcp_ok<'a>(frame: &'a Value, channel: &str) -> &'a Value {
    assert_eq!(frame["channel"], channel, "{frame}");
    assert!(frame.get("error").is_none(), "{frame}");
    &frame["result"]
}

/// The error code and message of a response frame.
fn mcp_err(frame: &Value) -> (i64, String) {
    let e = frame
        .get("error")
        .unwrap_or_else(|| panic!("an error: {frame}"));
    (
        e["code"].as_i64().unwrap(),
        e["message"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn mcp_apps_clients_get_the_app_and_its_channel_and_other_clients_do_not() {
    let t = basic_host().await;
    let (mut a, snap, mut plain, plain_snap) = apps_and_plain(&t).await;
    let (mut mirror, mut plain_mirror) = (session_state(&snap), session_state(&plain_snap));

    let server = until_state(&mut a, &mut mirror, "mcp/basic", "ready").await;
    let app = server
        .mcp_app
        .clone()
        .expect("mcpApp on a server with an App tool");
    assert_eq!(
        serde_json::to_value(&app.capabilities).unwrap(),
        json!({"serverTools": {"listChanged": true}, "serverResources": {"listChanged": true}})
    );
    let channel = server.channel.clone().expect("a channel while ready");
    assert!(channel.starts_with("mcp://"), "{channel}");

    // A client without `capabilities.mcpApps` sees the same server without either, from its
    // envelopes and from a snapshot; a fresh mcpApps client's snapshot equals the mirror.
    let seen = until_state(&mut plain, &mut plain_mirror, "mcp/basic", "ready").await;
    assert!(seen.mcp_app.is_none() && seen.channel.is_none(), "{seen:?}");
    let fresh_plain = host_state(&t.host, S).await;
    assert_eq!(comparable(&plain_mirror), comparable(&fresh_plain));
    let mut fresh = apps_client(&t.host, "apps-2").await;
    let fresh_apps = session_state(&fresh.subscribe(S).await);
    assert_eq!(comparable(&mirror), comparable(&fresh_apps));
    fresh.close().await;

    // The App tool's call carries `_meta.ui` as the MCP tool has it.
    let (start, result, _) = mcp_turn(&mut a, &mut mirror, "t1", "/mcp basic get-time {}").await;
    assert_eq!(
        start.meta.as_ref().and_then(|m| m.get("ui")),
        Some(&json!({"resourceUri": "ui://get-time/mcp-app.html"})),
        "{start:?}"
    );
    assert!(result.success);

    // Over the channel: the UI resource, the tool list, the tool itself.
    let read = mcp_call(
        &mut a,
        &channel,
        "resources/read",
        json!({"uri": "ui://get-time/mcp-app.html"}),
    )
    .await;
    let contents = &mcp_ok(&read, &channel)["contents"][0];
    assert_eq!(contents["uri"], "ui://get-time/mcp-app.html");
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
    let html = contents["text"].as_str().expect("HTML text");
    assert!(
        html.to_lowercase().contains("<html"),
        "{}",
        &html[..200.min(html.len())]
    );
    let list = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    let tools = mcp_ok(&list, &channel)["tools"].as_array().unwrap().clone();
    let get_time = tools
        .iter()
        .find(|t| t["name"] == "get-time")
        .expect("listed");
    assert_eq!(
        get_time["_meta"]["ui"]["resourceUri"],
        "ui://get-time/mcp-app.html"
    );
    let call = mcp_call(
        &mut a,
        &channel,
        "tools/call",
        json!({"name": "get-time", "arguments": {}}),
    )
    .await;
    let time = mcp_ok(&call, &channel)["structuredContent"]["time"]
        .as_str()
        .expect("a time")
        .to_owned();
    assert!(time.starts_with("20") && time.ends_with('Z'), "{time}");
    let resources = mcp_call(&mut a, &channel, "resources/list", json!({})).await;
    assert_eq!(
        mcp_ok(&resources, &channel)["resources"][0]["uri"],
        "ui://get-time/mcp-app.html"
    );
    let templates = mcp_call(&mut a, &channel, "resources/templates/list", json!({})).await;
    assert!(mcp_ok(&templates, &channel)["resourceTemplates"].is_array());

    // Outside the advertised capability sets: -32601, whatever the server would say.
    for method in [
        "logging/setLevel",
        "sampling/createMessage",
        "prompts/list",
        "initialize",
        "ping",
        "completion/complete",
    ] {
        let r = mcp_call(&mut a, &channel, method, json!({"level": "info"})).await;
        assert_eq!(r["channel"], channel.as_str());
        let (code, message) = mcp_err(&r);
        assert_eq!(code, -32601, "{method}: {r}");
        assert!(message.contains("not served"), "{message}");
    }
    // Params that do not have the method's shape, an unknown channel.
    let bad = mcp_call(&mut a, &channel, "resources/read", json!({"nouri": 1})).await;
    assert_eq!(mcp_err(&bad).0, -32602, "{bad}");
    let unknown = mcp_call(&mut a, "mcp://ahp-host/nope", "tools/list", json!({})).await;
    assert_eq!(mcp_err(&unknown).0, errors::NOT_FOUND, "{unknown}");

    // Refused: a client without `capabilities.mcpApps`, and one not subscribed to the session.
    let denied = mcp_call(&mut plain, &channel, "tools/list", json!({})).await;
    let (code, message) = mcp_err(&denied);
    assert_eq!(code, errors::PERMISSION_DENIED);
    assert!(message.contains("mcpApps"), "{message}");
    let mut stranger = apps_client(&t.host, "stranger").await;
    let refused = mcp_call(&mut stranger, &channel, "tools/list", json!({})).await;
    let (code, message) = mcp_err(&refused);
    assert_eq!(code, errors::PERMISSION_DENIED);
    assert!(message.contains("subscribe to"), "{message}");
    // Subscribed, it may.
    stranger.subscribe(S).await;
    let allowed = mcp_call(&mut stranger, &channel, "tools/list", json!({})).await;
    mcp_ok(&allowed, &channel);

    // Off: the channel goes with `ready` (mcpApp stays), requests fail cleanly.
    a.dispatch(S, toggle("mcp/basic", false)).await;
    let off = until_state(&mut a, &mut mirror, "mcp/basic", "stopped").await;
    assert!(off.channel.is_none(), "{off:?}");
    let gone = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    let (code, message) = mcp_err(&gone);
    assert_eq!(code, errors::NOT_FOUND, "{gone}");
    assert!(message.contains("not ready"), "{message}");
    // On again: a channel again, served again.
    a.dispatch(S, toggle("mcp/basic", true)).await;
    let on = until_state(&mut a, &mut mirror, "mcp/basic", "ready").await;
    let channel = on.channel.expect("a channel again");
    let again = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    mcp_ok(&again, &channel);
    healthy(&mut a, &mut mirror, "t2").await;
    let host = host_state(&t.host, S).await;
    let mut plain_now = plain_mirror.clone();
    reduce_all(&mut plain_now, &drain_envelopes(&mut plain).await);
    assert_eq!(comparable(&plain_now), comparable(&host));
}

/// The envelopes already received (waits briefly for more).
async fn drain_envelopes(c: &mut Client) -> Vec<ActionEnvelope> {
    let mut out = Vec::new();
    while let Some(Some(frame)) = c.frame_within(Duration::from_millis(300)).await {
        if frame["method"] == "action" {
            out.push(serde_json::from_value(frame["params"].clone()).unwrap());
        }
    }
    out
}

#[tokio::test]
async fn the_channel_is_bounded_and_forwards_advertised_notifications() {
    let t = app_fixture_host(|c| {
        c.mcp.request_timeout = Duration::from_millis(3000);
        c.mcp.max_message_bytes = 1 << 20;
        c.mcp.max_channel_request_bytes = 4096;
        c.mcp.max_channel_inflight = 2;
    })
    .await;
    let (mut a, snap, mut plain, _) = apps_and_plain(&t).await;
    let mut mirror = session_state(&snap);
    let server = until_state(&mut a, &mut mirror, "mcp/t", "ready").await;
    assert_eq!(
        serde_json::to_value(&server.mcp_app.expect("mcpApp").capabilities).unwrap(),
        json!({"serverTools": {"listChanged": true}, "serverResources": {}})
    );
    let channel = server.channel.expect("channel");

    // `_meta.ui` verbatim on an App tool's call; none on the others.
    let (start, _, _) = mcp_turn(&mut a, &mut mirror, "t1", "/mcp t echo {\"text\": \"hi\"}").await;
    assert_eq!(
        start.meta.as_ref().map(|m| m["ui"].clone()),
        Some(json!({"resourceUri": "ui://t/app.html", "visibility": ["model", "app"]}))
    );
    let (start, _, _) = mcp_turn(&mut a, &mut mirror, "t2", "/mcp t fail").await;
    assert!(start.meta.is_none(), "{start:?}");

    // Request size: over the limit refused before the server sees it; under it served.
    let over = mcp_call(
        &mut a,
        &channel,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x".repeat(5000)}}),
    )
    .await;
    let (code, message) = mcp_err(&over);
    assert_eq!(code, -32600);
    assert!(
        message.contains("over the limit of 4096 bytes"),
        "{message}"
    );
    let under = mcp_call(
        &mut a,
        &channel,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "y".repeat(3000)}}),
    )
    .await;
    assert_eq!(
        mcp_ok(&under, &channel)["content"][0]["text"],
        "y".repeat(3000)
    );
    // Reply size: a result over the message limit is a clear error, at once.
    let started = Instant::now();
    let big = mcp_call(
        &mut a,
        &channel,
        "tools/call",
        json!({"name": "big", "arguments": {"mb": 2}}),
    )
    .await;
    let (code, message) = mcp_err(&big);
    assert_eq!(code, -32603);
    assert!(
        message.contains("larger than the limit of 1048576 bytes"),
        "{message}"
    );
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "not a timeout"
    );
    // Server errors pass through as they are.
    let missing = mcp_call(
        &mut a,
        &channel,
        "resources/read",
        json!({"uri": "ui://t/nope"}),
    )
    .await;
    assert_eq!(
        mcp_err(&missing),
        (-32002, "no resource ui://t/nope".to_owned())
    );
    let html = mcp_call(
        &mut a,
        &channel,
        "resources/read",
        json!({"uri": "ui://t/app.html"}),
    )
    .await;
    assert!(mcp_ok(&html, &channel)["contents"][0]["text"]
        .as_str()
        .unwrap()
        .contains("echo app"));

    // In flight: two hanging calls fill the bound, a third request is refused at once; the
    // hanging ones time out, after which requests are served again.
    let h1 = mcp_send(&mut a, &channel, "tools/call", json!({"name": "hang"})).await;
    let h2 = mcp_send(&mut a, &channel, "tools/call", json!({"name": "hang"})).await;
    let third = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    let (code, message) = mcp_err(&third);
    assert_eq!(code, -32600);
    assert!(message.contains("in flight"), "{message}");
    for h in [h1, h2] {
        let r = a.frame_with_id(&h).await;
        let (code, message) = mcp_err(&r);
        assert_eq!(code, -32603);
        assert!(message.contains("within 3000 ms"), "{message}");
    }
    let list = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    assert!(mcp_ok(&list, &channel)["tools"].as_array().unwrap().len() >= 7);

    // Notifications: tools/list_changed (advertised with listChanged) reaches the mcpApps
    // client with the channel; resources/list_changed (not advertised) does not; the client
    // without mcpApps gets neither.
    let notified = mcp_call(&mut a, &channel, "tools/call", json!({"name": "notify"})).await;
    assert_eq!(
        mcp_ok(&notified, &channel)["content"][0]["text"],
        "notified"
    );
    let n = a
        .notification_named("notifications/tools/list_changed")
        .await;
    assert_eq!(n["params"], json!({"channel": channel}));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut frames = Vec::new();
    while let Some(Some(frame)) = a.frame_within(Duration::from_millis(200)).await {
        frames.push(frame);
    }
    while let Some(Some(frame)) = plain.frame_within(Duration::from_millis(200)).await {
        frames.push(frame);
    }
    assert!(
        frames.iter().all(|f| !f["method"]
            .as_str()
            .unwrap_or("")
            .starts_with("notifications/")),
        "{frames:?}"
    );

    // A request in flight when the server is turned off fails cleanly; then the channel is gone.
    let pending = mcp_send(&mut a, &channel, "tools/call", json!({"name": "hang"})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    a.dispatch(S, toggle("mcp/t", false)).await;
    let r = a.frame_with_id(&pending).await;
    let (code, message) = mcp_err(&r);
    assert_eq!(code, -32603, "{r}");
    assert!(
        !message.contains("within 3000 ms"),
        "not a timeout: {message}"
    );
    let gone = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    assert_eq!(mcp_err(&gone).0, errors::NOT_FOUND);
    healthy(&mut a, &mut mirror, "t3").await;
}

#[tokio::test]
async fn reconnecting_clients_get_what_they_declared_at_initialize() {
    let t = app_fixture_host(|_| {}).await;
    let (mut a, snap, plain, plain_snap) = apps_and_plain(&t).await;
    let mut mirror = session_state(&snap);
    until_state(&mut a, &mut mirror, "mcp/t", "ready").await;
    a.close().await;
    plain.close().await;

    // Both come back on new connections: the replay is the one each got live.
    for (id, base, apps) in [("apps", &snap, true), ("plain", &plain_snap, false)] {
        let mut c = Client::connect(&t.host, id).await;
        let replayed = match c.reconnect(base.from_seq, vec![S.into()]).await {
            Ok(jsonrpc::ReconnectResult::Replay(r)) => r.actions,
            other => panic!("a replay: {other:?}"),
        };
        let mut state = session_state(base);
        reduce_all(&mut state, &replayed);
        let server = mcp_server(&state, "mcp/t").expect("the server");
        assert_eq!(kind(&server.state), "ready");
        assert_eq!(server.channel.is_some(), apps, "{id}: {server:?}");
        assert_eq!(server.mcp_app.is_some(), apps, "{id}: {server:?}");
        // Only the mcpApps client may use the channel after its reconnect.
        let channel = mcp_server(&mirror, "mcp/t")
            .unwrap()
            .channel
            .clone()
            .unwrap();
        let r = mcp_call(&mut c, &channel, "tools/list", json!({})).await;
        assert_eq!(r.get("error").is_none(), apps, "{id}: {r}");
    }
}
