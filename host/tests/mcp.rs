//! MCP servers run by the host with `rmcp`: the real `@modelcontextprotocol/server-basic-vanillajs`
//! (from the workspace's `node_modules`, installed by `scripts/install-tools.sh`) and small Node
//! servers under `tests/fixtures/mcp/` that misbehave on purpose. Each test drives the host
//! over its WebSocket and asserts on the session state every client sees, on tool call results
//! and on the liveness of the server processes.

mod common;

use ahp_wasm::protocol::*;
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
    let entry = basic_server();
    let t = host_with(
        |_| json!({"basic": {"command": "node", "args": [entry, "--stdio"]}}),
        |_| {},
    )
    .await;
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
            customization_id: "mcp/basic".into()
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
    let t = start_host_with(|c| c.mcp_config = Some(global.clone())).await;
    let (mut c, mut mirror) = session(&t).await;
    until_state(&mut c, &mut mirror, "mcp/g", "ready").await;
    let pid = read_pid(&pid_file);
    assert!(alive(pid));
    c.close().await;
    t.host.shutdown().await;
    until_dead(pid).await;
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
