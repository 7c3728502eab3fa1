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
//!   `tool_calls_are_completed_only_by_their_owner` (authority.rs).
//! - "MCP App views run in a sandboxed iframe with no access to the page's origin": a page
//!   concern; the page does not render MCP Apps yet: not tested. (The host's half, the bounded
//!   and permission-checked `mcp://` channel, is tested in tests/mcp/.)
//! - "peer-provided Markdown/HTML is sanitized before rendering": a page concern. The page (`www/`)
//!   renders host data with `textContent`/DOM nodes only; tests/browser/page-e2e.test.mjs checks
//!   that `innerHTML` with a string throws under the page's CSP (Trusted Types) and that
//!   `<script>` in an answer shows as text; host/tests/static_files.rs checks the CSP itself (no
//!   inline script).
//! - "terminal scrollback" bound: `terminal_scrollback_is_bounded` (bounds.rs: a shell printing 3 MB).
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
//! (`a_client_id_is_not_taken_from_its_connection`, authority.rs). Prevented: taking an id from a connection
//! that answers pings, and taking the id of a client that has presented its `clientSecret`
//! (the SDK clients), connected or not. Not prevented, and asserted there: while a
//! spec-following client (which cannot present a secret) is disconnected, anyone with the
//! host's token may claim its id first; the host cannot tell that from the client's reconnect.

#[path = "../common/mod.rs"]
mod common;

mod authority;
mod bounds;

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
