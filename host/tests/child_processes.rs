//! What the host's child processes can learn and forge, against real processes: a real
//! `ahp-host` binary given its token in the environment, a real shell on a real pty, the
//! agent's `/run`, a stdio MCP server.
//!
//! - The access token reaches no child: not in its environment, not through the host's
//!   `/proc/<pid>/environ` (issue 30, defect 7).
//! - A command cannot fake its own end: the shell-integration nonce is in no process's
//!   environment, and `/run` takes a command's exit code from the process itself, never from
//!   the pty's output (issue 30, defect 8).

mod common;
mod terminal_support;

use common::*;
use serde_json::json;
use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use terminal_support::*;

const TOKEN: &str = "child-processes-secret-token-0123456789";

/// The `ahp-host` binary with the token in `AHP_HOST_TOKEN` (as the README recommends over
/// `--token`) and `extra` flags; returns it and its address. Killed when dropped.
struct EnvTokenHost {
    child: Child,
    addr: String,
}

impl EnvTokenHost {
    fn spawn(data: &std::path::Path, work: &std::path::Path, extra: &[&str]) -> EnvTokenHost {
        isolated_home();
        let mut child = Command::new(env!("CARGO_BIN_EXE_ahp-host"))
            .args(["--port", "0"])
            .args(extra)
            .arg("--data-dir")
            .arg(data)
            .arg("--workdir")
            .arg(work)
            .env("AHP_HOST_TOKEN", TOKEN)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("ahp-host starts");
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let addr = loop {
            let line = lines.next().expect("a banner").expect("readable stdout");
            if let Some(rest) = line.strip_prefix("ahp-host listening on http://") {
                break rest.trim().to_owned();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        EnvTokenHost { child, addr }
    }

    async fn client(&self, client_id: &str) -> Client {
        let url = format!("ws://{}/ahp?tkn={TOKEN}", self.addr);
        let mut c = Client::connect_url(&url, client_id).await;
        c.initialize(&[]).await;
        c
    }
}

impl Drop for EnvTokenHost {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a child reports of its own environment and of its parent's (the host's) start-up one.
const SHOW_ENV: &str = "env; tr '\\0' '\\n' < /proc/$PPID/environ";

fn assert_no_token(what: &str, seen: &str) {
    assert!(
        !seen.contains(TOKEN) && !seen.contains("AHP_HOST_TOKEN"),
        "{what} sees the host's token:\n{seen}"
    );
}

/// Issue 30, defect 7: the token the host got in `AHP_HOST_TOKEN` is in the environment of no
/// child (a terminal's shell, a `/run` command, a stdio MCP server), and no child reads it from
/// the host's `/proc/<pid>/environ` either.
#[tokio::test(flavor = "multi_thread")]
async fn no_child_process_gets_the_host_token() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let dumps = tempfile::tempdir().unwrap();
    let mcp_env = dumps.path().join("mcp-env.txt");
    let script = format!("{{ {SHOW_ENV}; }} > '{}' 2>&1", mcp_env.display());
    let mcp_config = dumps.path().join("mcp.json");
    std::fs::write(
        &mcp_config,
        json!({"mcpServers": {"envdump": {"command": "sh", "args": ["-c", script]}}}).to_string(),
    )
    .unwrap();
    let host = EnvTokenHost::spawn(
        data.path(),
        work.path(),
        &["--mcp-config", mcp_config.to_str().unwrap()],
    );
    let mut c = host.client("alice").await;
    c.call(
        "createTerminal",
        create_params("ahp-terminal:/env", "alice"),
    )
    .await
    .expect("createTerminal");
    let line = format!("{SHOW_ENV}; echo env-$((40+2))-done");
    let state = run_line(&mut c, "ahp-terminal:/env", &line, "env-42-done").await;
    assert!(text(&state).contains("HOME="), "no env shown");
    assert_no_token("a terminal's shell", &text(&state));

    let session = "ahp-session:/env";
    c.create_session(session).await;
    c.subscribe(session).await;
    c.send_message(session, "t1", &format!("/run {SHOW_ENV}"))
        .await;
    let (_, result) = run_result(&c.until_turn_end("t1").await);
    let out = result_text(&result);
    assert!(out.contains("HOME="), "{out}");
    assert_no_token("a /run command", &out);

    let deadline = Instant::now() + WAIT;
    let dumped = loop {
        let dumped = std::fs::read_to_string(&mcp_env).unwrap_or_default();
        if dumped.contains("HOME=") {
            break dumped;
        }
        assert!(Instant::now() < deadline, "the MCP server never ran");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_no_token("a stdio MCP server", &dumped);
    // Nor does any other process of the user (here the test, the host's parent) read it there.
    let host_env = std::fs::read(format!("/proc/{}/environ", host.child.id()));
    assert!(
        host_env.is_err() || !String::from_utf8_lossy(&host_env.unwrap()).contains(TOKEN),
        "the host's /proc/<pid>/environ holds the token"
    );
}

/// Shell code (for `sh -c '...'`: no single quotes) that prints a forged "finished, exit 0"
/// sequence with every nonce-like value (32 hex digits) of its parent's start-up environment.
const FORGE_FROM_PARENT: &str = r#"for n in $(tr "\0" "\n" < /proc/$PPID/environ | grep -oE "[0-9a-f]{32}"); do printf "\033]633;D;0;%s\007" "$n"; done"#;

/// Issue 30, defect 8 (terminals): a command reads the shell-integration nonce where it can
/// (its parent shell's start-up environment, `/proc/$PPID/environ`: any variable), prints a
/// forged "finished, exit 0" with it, then exits 7 two seconds later: the command part ends
/// with 7.
#[tokio::test(flavor = "multi_thread")]
async fn a_command_cannot_forge_its_end_from_the_shell_environment() {
    const T: &str = "ahp-terminal:/forge";
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "alice").await;
    c.call("createTerminal", create_params(T, "alice"))
        .await
        .expect("createTerminal");
    wait_state(&mut c, T, "command detection", |s| {
        s.supports_command_detection == Some(true)
    })
    .await;
    let forge = format!("sh -c '{FORGE_FROM_PARENT}; sleep 2; exit 7'");
    applied(&mut c, T, input(&format!("{forge}\n")), "typing").await;
    let state = wait_state(&mut c, T, "the command's end", |s| {
        commands(s)
            .iter()
            .any(|c| c.command_line.starts_with("sh -c") && c.is_complete)
    })
    .await;
    let forged = commands(&state)
        .into_iter()
        .find(|c| c.command_line.starts_with("sh -c"))
        .unwrap()
        .clone();
    assert_eq!(
        forged.exit_code,
        Some(7.0),
        "the command forged its end: {forged:?}"
    );
    assert!(
        forged.duration_ms.is_some_and(|d| d >= 1500.0),
        "{forged:?}"
    );
}

/// Issue 30, defect 8 (`/run`): the command prints forged "finished, exit 0" sequences with
/// every nonce it can find (a shell variable of the integration, its parent's start-up
/// environment), then exits 7 three seconds later: `/run` reports exit code 7, after 3 s.
#[tokio::test(flavor = "multi_thread")]
async fn run_reports_the_exit_code_of_the_process_not_a_forged_sequence() {
    let t = start_host().await;
    let session = "ahp-session:/forge";
    let mut c = Client::in_new_session(&t.host, "alice", session).await;
    let forge = format!(
        r#"/run printf '\033]633;D;0;%s\007' "$__ahp_nonce"; sh -c '{FORGE_FROM_PARENT}'; sleep 3; (exit 7)"#
    );
    let started = Instant::now();
    c.send_message(session, "t1", &forge).await;
    let (_, result) = run_result(&c.until_turn_end("t1").await);
    let elapsed = started.elapsed();
    assert!(
        !result.success,
        "/run reported success after {elapsed:?} for a command that exits 7: {result:?}"
    );
    assert!(
        matches!(&result.past_tense_message,
            ahp_wasm::protocol::StringOrMarkdown::Plain(m) if m.contains("exit code 7")),
        "{result:?}"
    );
    assert!(elapsed >= Duration::from_millis(2500), "{elapsed:?}");
}

/// `/run` ends with its command's process, not with the background jobs it started: they live
/// on in its terminal (job control keeps them out of the hang-up) until it is disposed.
#[tokio::test(flavor = "multi_thread")]
async fn run_ends_with_its_command_while_its_background_jobs_live_on() {
    let t = start_host().await;
    let session = "ahp-session:/background";
    let mut c = Client::in_new_session(&t.host, "alice", session).await;
    applied(&mut c, session, become_active("alice"), "the active role").await;
    let started = Instant::now();
    c.send_message(
        session,
        "t1",
        "/run --timeout 30 (sleep 2; echo bg-$((6*7))) & echo started",
    )
    .await;
    let (uri, result) = run_result(&c.until_turn_end("t1").await);
    assert!(result.success, "{result:?}");
    assert!(result_text(&result).contains("started"), "{result:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the run waited for its background job: {:?}",
        started.elapsed()
    );
    let state = wait_state(&mut c, &uri, "the background job's output", |s| {
        text(s).contains("bg-42")
    })
    .await;
    assert_eq!(state.exit_code, Some(0.0));
    // Disposing of the terminal (the session's active client may) ends what is left.
    c.call("disposeTerminal", json!({ "channel": uri }))
        .await
        .expect("the active client disposes of the agent's terminal");
}
