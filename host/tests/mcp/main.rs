//! MCP servers run by the host with `rmcp`: the real `@modelcontextprotocol/server-basic-vanillajs`
//! (from the workspace's `node_modules`, installed by `scripts/install-tools.sh`) and small Node
//! servers under `tests/fixtures/mcp/` that misbehave on purpose. Each test drives the host
//! over its WebSocket and asserts on the session state every client sees, on tool call results
//! and on the liveness of the server processes.

#[path = "../common/mod.rs"]
mod common;

mod apps;
mod auth;
mod servers;
mod trust;

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

/// A host whose working directory holds `.mcp.json` with `servers`, started without approval
/// (`--trust-project-mcp`: these tests are about the servers, `trust.rs` about approving them);
/// MCP limits tweaked.
async fn host_with(
    servers: impl FnOnce(&Path) -> Value,
    tweak: impl FnOnce(&mut ahp_host::Config),
) -> TestHost {
    let t = start_host_with(|c| {
        c.trust_project_mcp = true;
        tweak(c);
    })
    .await;
    write_mcp_json(t.work.path(), servers(t.work.path()));
    t
}

/// [`restart`] with `--trust-project-mcp`, as [`host_with`] starts hosts.
async fn restart_trusting(data: &Path, work: &Path) -> ahp_host::RunningHost {
    isolated_home();
    let mut config = ahp_host::Config::local(data, work);
    config.chunk_delay = Duration::from_millis(1);
    config.token = Some(test_token(data));
    config.trust_project_mcp = true;
    ahp_host::start(config).await.expect("host restarts")
}

/// A client with session `S` created and subscribed, and its mirrored state.
async fn session(t: &TestHost) -> (Client, SessionState) {
    Client::with_new_session(&t.host, "mcp-client", S).await
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

/// Starts a turn with one `/mcp` directive and approves the tool call; returns its start
/// action.
async fn approved_call(
    c: &mut Client,
    mirror: &mut SessionState,
    turn: &str,
    text: &str,
) -> SessionToolCallStartAction {
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
    start
}

/// The result of tool call `id` among `envs`.
fn completed(envs: &[ActionEnvelope], id: &str) -> ToolCallResult {
    envs.iter()
        .find_map(|e| match &e.action {
            StateAction::SessionToolCallComplete(a) if a.tool_call_id == id => {
                Some(a.result.clone())
            }
            _ => None,
        })
        .expect("the tool call completed")
}

/// Runs a turn with one `/mcp` directive, approving the tool call; returns the tool call's
/// start action, its result and the turn's markdown.
async fn mcp_turn(
    c: &mut Client,
    mirror: &mut SessionState,
    turn: &str,
    text: &str,
) -> (SessionToolCallStartAction, ToolCallResult, String) {
    let start = approved_call(c, mirror, turn, text).await;
    let envs = c.until_turn_end(turn).await;
    reduce_all(mirror, &envs);
    let result = completed(&envs, &start.tool_call_id);
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

/// Applies the envelopes already received to `mirror`.
async fn settle(c: &mut Client, mirror: &mut SessionState) {
    reduce_all(mirror, &drain_envelopes(c).await);
}

fn toggle(id: &str, enabled: bool) -> StateAction {
    StateAction::SessionCustomizationToggled(SessionCustomizationToggledAction {
        id: id.into(),
        enabled,
        extra: Default::default(),
    })
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

/// Runs the Node HTTP server `script` with `PORT` set to a free port; resolves once it listens.
async fn http_fixture(script: impl AsRef<std::ffi::OsStr>) -> (Killed, u16) {
    let port = free_port();
    let server = Killed(
        std::process::Command::new("node")
            .arg(script)
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
