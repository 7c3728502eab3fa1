//! Servers declared by the working directory (its `.mcp.json`, written by the repository) wait
//! for a client's approval: listed, not enabled, in `error` with `errorType`
//! `McpServerNeedsApproval` and a message saying what they would run; enabling one
//! (`session/customizationToggled`) approves that exact declaration for that directory. Nothing
//! runs or is contacted before, not on `createSession` nor on a `subscribe` after a restart; a
//! changed declaration waits again; an operator's server of the same name is never replaced.

use super::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

const NEEDS_APPROVAL: &str = "McpServerNeedsApproval";

/// A `.mcp.json` server that appends a line to `marker` (outside the working directory) each
/// time it starts, then runs `tools.mjs`; `tag` (the script's `$0`) varies the declaration.
fn marking_server(marker: &Path, tag: &str) -> Value {
    json!({"command": "sh",
        "args": ["-c", "echo ran >> \"$MARKER\"; exec node \"$SERVER\"", tag],
        "env": {"MARKER": marker, "SERVER": fixture("tools.mjs")}})
}

/// How many times the marking server started.
fn runs(marker: &Path) -> usize {
    std::fs::read_to_string(marker).map_or(0, |s| s.lines().count())
}

/// Gives a server that would start time to do so, then checks it did not.
async fn still_runs(marker: &Path, expected: usize, when: &str) {
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        runs(marker),
        expected,
        "{when}: the working directory's server ran without approval (it wrote {})",
        marker.display()
    );
}

/// The entry waits for approval: not enabled, in `error` saying so; returns its message.
fn awaiting(m: &McpServerCustomization) -> String {
    assert!(
        !m.enabled,
        "{} waits for approval, not enabled: {m:?}",
        m.id
    );
    match &m.state {
        McpServerState::Error(e) if e.error.error_type == NEEDS_APPROVAL => e.error.message.clone(),
        other => panic!("{} does not wait for approval: {other:?}", m.id),
    }
}

/// Approves waiting server `id` of session `channel` (enables it) and waits until it is ready.
async fn allow(
    c: &mut Client,
    mirror: &mut SessionState,
    channel: &str,
    id: &str,
) -> McpServerCustomization {
    c.dispatch(channel, toggle(id, true)).await;
    until_state(c, mirror, id, "starting").await;
    until_state(c, mirror, id, "ready").await
}

#[tokio::test]
async fn a_working_directory_server_runs_only_once_approved_and_the_approval_is_remembered() {
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("marker");
    let t = start_host().await;
    write_mcp_json(t.work.path(), json!({"m": marking_server(&marker, "v1")}));
    let (mut c, mut mirror) = session(&t).await;
    still_runs(&marker, 0, "after createSession").await;
    settle(&mut c, &mut mirror).await;
    let entry = mcp_server(&mirror, "mcp/m").expect("the server is listed");
    let why = awaiting(entry);
    // Who declares what: the file, the command with its arguments, its environment.
    for shown in [
        ".mcp.json",
        "\"sh\"",
        "echo ran >> \\\"$MARKER\\\"",
        &marker.to_string_lossy(),
    ] {
        assert!(why.contains(shown), "`{shown}` in: {why}");
    }
    assert!(entry.uri.ends_with("/.mcp.json"), "{}", entry.uri);
    assert!(tool_names(&mirror).iter().all(|n| !n.starts_with("mcp__")));
    // Turning it off while it waits keeps it waiting.
    c.dispatch(S, toggle("mcp/m", false)).await;
    settle(&mut c, &mut mirror).await;
    awaiting(mcp_server(&mirror, "mcp/m").unwrap());

    // After a restart, a plain subscribe does not start it either.
    c.close().await;
    let TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut c = Client::ready(&host, "mcp-client").await;
    let mut mirror = session_state(&c.subscribe(S).await);
    still_runs(&marker, 0, "after a restart and subscribe").await;
    settle(&mut c, &mut mirror).await;
    awaiting(mcp_server(&mirror, "mcp/m").unwrap());

    // Enabling it approves it: it starts, its tools appear.
    let ready = allow(&mut c, &mut mirror, S, "mcp/m").await;
    assert!(ready.enabled);
    assert_eq!(runs(&marker), 1);
    assert!(tool_names(&mirror).contains(&"mcp__m__echo".to_owned()));

    // Remembered: a new session in that directory starts it at once, and so does this one
    // after another restart.
    c.create_session("ahp-session:/again").await;
    let mut again = session_state(&c.subscribe("ahp-session:/again").await);
    until_state(&mut c, &mut again, "mcp/m", "ready").await;
    assert_eq!(runs(&marker), 2);
    c.close().await;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut c = Client::ready(&host, "mcp-client").await;
    let mut mirror = session_state(&c.subscribe(S).await);
    until_state(&mut c, &mut mirror, "mcp/m", "ready").await;
    assert_eq!(runs(&marker), 3);
    c.close().await;
    host.shutdown().await;
}

#[tokio::test]
async fn a_changed_declaration_or_another_directory_waits_for_approval_again() {
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("marker");
    let t = start_host().await;
    write_mcp_json(t.work.path(), json!({"m": marking_server(&marker, "v1")}));
    let (mut c, mut mirror) = session(&t).await;
    allow(&mut c, &mut mirror, S, "mcp/m").await;
    assert_eq!(runs(&marker), 1);

    // The same name, another declaration: waiting again, and saying the new one.
    write_mcp_json(t.work.path(), json!({"m": marking_server(&marker, "v2")}));
    let changed = "ahp-session:/changed";
    c.create_session(changed).await;
    let mut other = session_state(&c.subscribe(changed).await);
    still_runs(&marker, 1, "after the declaration changed").await;
    settle(&mut c, &mut other).await;
    assert!(awaiting(mcp_server(&other, "mcp/m").unwrap()).contains("v2"));

    // The approved declaration in another directory (a subdirectory) is not approved there.
    let sub = t.work.path().join("sub");
    write_mcp_json(&sub, json!({"m": marking_server(&marker, "v1")}));
    let mut in_sub = c.create_session_in("ahp-session:/sub", &sub).await;
    still_runs(&marker, 1, "in another directory").await;
    settle(&mut c, &mut in_sub).await;
    awaiting(mcp_server(&in_sub, "mcp/m").unwrap());

    // Approving the new declaration runs it.
    allow(&mut c, &mut other, changed, "mcp/m").await;
    assert_eq!(runs(&marker), 2);
    healthy(&mut c, &mut mirror, "t1").await;
}

/// A TCP listener that counts the connections made to it (and closes them).
struct Listener {
    port: u16,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Listener {
    fn start() -> Listener {
        let socket = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        socket.set_nonblocking(true).unwrap();
        let port = socket.local_addr().unwrap().port();
        let (connections, stop) = (
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let (count, done) = (connections.clone(), stop.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                match socket.accept() {
                    Ok(_) => {
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Listener {
            port,
            connections,
            stop,
        }
    }

    fn count(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[tokio::test]
async fn an_http_server_declared_by_the_working_directory_is_not_contacted_before_approval() {
    let listener = Listener::start();
    let url = format!("http://127.0.0.1:{}/mcp", listener.port);
    let t = start_host_with(|c| c.mcp.init_timeout = Duration::from_secs(2)).await;
    write_mcp_json(
        t.work.path(),
        json!({"web": {"url": url, "headers": {"X-Repo": "1"}}}),
    );
    let (mut c, mut mirror) = session(&t).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        listener.count(),
        0,
        "the working directory's HTTP server was contacted without approval"
    );
    settle(&mut c, &mut mirror).await;
    let why = awaiting(mcp_server(&mirror, "mcp/web").unwrap());
    assert!(why.contains(&url) && why.contains("X-Repo"), "{why}");

    // Approved, it is contacted (the listener speaks no HTTP: the server ends in error).
    c.dispatch(S, toggle("mcp/web", true)).await;
    let deadline = Instant::now() + WAIT;
    while listener.count() == 0 {
        assert!(Instant::now() < deadline, "never contacted after approval");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    healthy(&mut c, &mut mirror, "t1").await;
}

#[tokio::test]
async fn a_working_directory_server_never_replaces_an_operator_server_of_its_name() {
    let outside = tempfile::tempdir().unwrap();
    let (marker, pid_file) = (outside.path().join("marker"), outside.path().join("op.pid"));
    let operator = outside.path().join("servers.json");
    std::fs::write(
        &operator,
        json!({"mcpServers": {"x": {"command": "node", "args": [fixture("tools.mjs")],
            "env": {"PID_FILE": pid_file}}}})
        .to_string(),
    )
    .unwrap();
    let t = start_host_with(|c| c.mcp_config = Some(operator.clone())).await;
    write_mcp_json(t.work.path(), json!({"x": marking_server(&marker, "v1")}));
    let (mut c, mut mirror) = session(&t).await;
    let x = until_state(&mut c, &mut mirror, "mcp/x", "ready").await;
    assert!(
        x.uri.ends_with("/servers.json"),
        "`mcp/x` is the operator's server, not the working directory's: {}",
        x.uri
    );
    assert!(alive(read_pid(&pid_file)));
    still_runs(&marker, 0, "beside the operator's server").await;

    // The working directory's `x` is listed as not used, and stays so when enabled.
    settle(&mut c, &mut mirror).await;
    let shadowed = mcp_server(&mirror, "mcp/x/shadowed").expect("the shadowed entry");
    assert!(!shadowed.enabled);
    assert!(shadowed.uri.ends_with("/.mcp.json"), "{}", shadowed.uri);
    assert!(error_message(shadowed).contains("operator"), "{shadowed:?}");
    c.dispatch(S, toggle("mcp/x/shadowed", true)).await;
    still_runs(&marker, 0, "after enabling the shadowed entry").await;
    settle(&mut c, &mut mirror).await;
    let shadowed = mcp_server(&mirror, "mcp/x/shadowed").unwrap();
    assert_eq!(kind(&shadowed.state), "error");
    let (_, echo, _) = mcp_turn(&mut c, &mut mirror, "t1", "/mcp x echo {\"text\": \"op\"}").await;
    assert_eq!(result_text(&echo), "op");
}

#[tokio::test]
async fn the_trust_project_mcp_flag_starts_working_directory_servers_without_approval() {
    use clap::Parser;
    let off: ahp_host::Config = ahp_host::Cli::parse_from(["ahp-host"]).into();
    assert!(!off.trust_project_mcp, "approvals are on by default");
    let on: ahp_host::Config =
        ahp_host::Cli::parse_from(["ahp-host", "--trust-project-mcp"]).into();
    assert!(on.trust_project_mcp);

    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("marker");
    let t = start_host_with(|c| c.trust_project_mcp = true).await;
    write_mcp_json(t.work.path(), json!({"m": marking_server(&marker, "v1")}));
    let (mut c, mut mirror) = session(&t).await;
    let m = until_state(&mut c, &mut mirror, "mcp/m", "ready").await;
    assert!(m.enabled);
    assert_eq!(runs(&marker), 1);
}
