//! Terminals against a real host over a real WebSocket, each with a real shell on a real pty:
//! `createTerminal` (and its refusals), the terminal channel (`terminal/input` → the shell →
//! `terminal/data`, resize, claims, exit), root `terminals`, `disposeTerminal`, and no shell
//! left behind by a dispose or a host shutdown.

mod common;
mod terminal_support;

use ahp_host::resources::file_uri;
use ahp_wasm::protocol::jsonrpc::{ErrorObject, ROOT_CHANNEL};
use ahp_wasm::protocol::*;
use ahp_wasm::reduce::{terminal_reducer, SystemClock};
use common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use terminal_support::{commands, create_params, text};

/// A client's mirror of one terminal, kept with the SDK's reducer from the envelopes it gets.
struct Mirror {
    uri: String,
    state: TerminalState,
    root: Option<Vec<TerminalInfo>>,
    rejections: Vec<(String, String)>,
}

async fn subscribe_terminal(c: &mut Client, uri: &str) -> Mirror {
    let r = c
        .call("subscribe", json!({ "channel": uri }))
        .await
        .expect("subscribe to the terminal");
    let state: TerminalState = serde_json::from_value(r["snapshot"]["state"].clone()).unwrap();
    Mirror {
        uri: uri.into(),
        state,
        root: None,
        rejections: Vec::new(),
    }
}

impl Mirror {
    /// Applies envelopes until `done` holds (or fails after the deadline).
    async fn until(&mut self, c: &mut Client, what: &str, done: impl Fn(&Mirror) -> bool) {
        let deadline = Instant::now() + WAIT;
        while !done(self) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "timed out waiting for {what}; terminal text: {:?}",
                text(&self.state)
            );
            let Some(Some(frame)) = c.frame_within(left).await else {
                continue;
            };
            if frame["method"] != "action" {
                continue;
            }
            let e: ActionEnvelope = serde_json::from_value(frame["params"].clone()).unwrap();
            if let Some(reason) = e.rejection_reason {
                self.rejections
                    .push((e.action.variant_tag().to_owned(), reason));
                continue;
            }
            if e.channel == self.uri {
                terminal_reducer(&mut self.state, &e.action, &SystemClock);
            } else if e.channel == ROOT_CHANNEL {
                if let StateAction::RootTerminalsChanged(a) = e.action {
                    self.root = Some(a.terminals);
                }
            }
        }
    }

    async fn type_line(&mut self, c: &mut Client, line: &str) {
        let action = StateAction::TerminalInput(TerminalInputAction {
            data: format!("{line}\n"),
            extra: Default::default(),
        });
        c.dispatch(&self.uri.clone(), action).await;
    }

    /// Runs a command and waits for `expect` in the output.
    async fn run(&mut self, c: &mut Client, line: &str, expect: &str) {
        self.type_line(c, line).await;
        let expect = expect.to_owned();
        self.until(c, &format!("`{expect}`"), move |m| {
            text(&m.state).contains(&expect)
        })
        .await;
    }

    /// The shell's pid, read from the shell itself.
    async fn shell_pid(&mut self, c: &mut Client) -> u32 {
        self.number(c, "echo pid=$$=pid", "pid").await
    }

    /// Runs `line`, which prints `<tag>=<number>=<tag>`, and returns the number.
    async fn number(&mut self, c: &mut Client, line: &str, tag: &str) -> u32 {
        self.type_line(c, line).await;
        let (open, close) = (format!("{tag}="), format!("={tag}"));
        let found = |m: &Mirror| {
            text(&m.state)
                .split(open.as_str())
                .filter_map(|s| s.split_once(close.as_str()))
                .find_map(|(n, _)| n.parse::<u32>().ok())
        };
        self.until(c, &format!("a number tagged {tag}"), |m| found(m).is_some())
            .await;
        found(self).unwrap()
    }
}

use ahp_wasm::protocol::tagged::TaggedUnion;

async fn root_terminals(c: &mut Client) -> Vec<TerminalInfo> {
    let r = c
        .call("subscribe", json!({ "channel": ROOT_CHANNEL }))
        .await
        .unwrap();
    let state: RootState = serde_json::from_value(r["snapshot"]["state"].clone()).unwrap();
    state.terminals.unwrap_or_default()
}

fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // A zombie is dead, just not reaped yet.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

async fn wait_gone(pid: u32) {
    let deadline = Instant::now() + WAIT;
    while !process_gone(pid) {
        assert!(Instant::now() < deadline, "shell {pid} still runs");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn input_reaches_the_shell_and_output_the_state() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "alice").await;
    c.call("createTerminal", create_params("ahp-terminal:/t1", "alice"))
        .await
        .expect("createTerminal");
    let mut m = subscribe_terminal(&mut c, "ahp-terminal:/t1").await;
    assert_eq!(m.state.cols, Some(80.0));
    assert_eq!(m.state.rows, Some(24.0));
    let root = t.work.path().canonicalize().unwrap();
    assert_eq!(m.state.cwd.as_deref(), Some(file_uri(&root).as_str()));
    m.run(&mut c, "echo hello-$((6*7))", "hello-42").await;
    // The shell runs in the working directory.
    m.run(&mut c, "cat hello.txt", "hello from the working directory")
        .await;
    // Resizing changes the state and the pty itself.
    c.dispatch(
        "ahp-terminal:/t1",
        StateAction::TerminalResized(TerminalResizedAction {
            cols: 101.0,
            rows: 33.0,
            extra: Default::default(),
        }),
    )
    .await;
    m.until(&mut c, "the resize", |m| m.state.cols == Some(101.0))
        .await;
    assert_eq!(m.state.rows, Some(33.0));
    m.run(&mut c, "stty size", "33 101").await;
    // Out of bounds: rejected, the pty keeps its size.
    c.dispatch(
        "ahp-terminal:/t1",
        StateAction::TerminalResized(TerminalResizedAction {
            cols: 0.0,
            rows: 1e9,
            extra: Default::default(),
        }),
    )
    .await;
    m.until(&mut c, "the rejection", |m| !m.rejections.is_empty())
        .await;
    assert!(m.rejections[0].1.contains("cols"), "{:?}", m.rejections);
    assert_eq!(m.state.cols, Some(101.0));
    // Title and clear, from the holder.
    c.dispatch(
        "ahp-terminal:/t1",
        StateAction::TerminalTitleChanged(TerminalTitleChangedAction {
            title: "build".into(),
            extra: Default::default(),
        }),
    )
    .await;
    m.until(&mut c, "the title", |m| m.state.title == "build")
        .await;
    m.until(&mut c, "the root list", |m| {
        m.root.as_ref().is_some_and(|r| r[0].title == "build")
    })
    .await;
    c.dispatch(
        "ahp-terminal:/t1",
        StateAction::TerminalCleared(TerminalClearedAction {
            extra: Default::default(),
        }),
    )
    .await;
    m.until(&mut c, "the clear", |m| {
        !text(&m.state).contains("hello-42")
    })
    .await;
    // `terminal/data` is the server's.
    c.dispatch(
        "ahp-terminal:/t1",
        StateAction::TerminalData(TerminalDataAction {
            data: "forged".into(),
            extra: Default::default(),
        }),
    )
    .await;
    m.until(&mut c, "the rejection", |m| m.rejections.len() == 2)
        .await;
    assert_eq!(m.rejections[1].0, "terminal/data");
}

#[tokio::test(flavor = "multi_thread")]
async fn exit_code_reaches_the_state_and_the_root_list() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "alice").await;
    c.call("createTerminal", create_params("ahp-terminal:/x", "alice"))
        .await
        .unwrap();
    let mut m = subscribe_terminal(&mut c, "ahp-terminal:/x").await;
    m.type_line(&mut c, "exit 3").await;
    m.until(&mut c, "the exit", |m| m.state.exit_code.is_some())
        .await;
    assert_eq!(m.state.exit_code, Some(3.0));
    m.until(&mut c, "the root list", |m| {
        m.root
            .as_ref()
            .is_some_and(|r| r.len() == 1 && r[0].exit_code == Some(3.0))
    })
    .await;
    // Input to an exited terminal is refused.
    m.type_line(&mut c, "echo late").await;
    m.until(&mut c, "the rejection", |m| !m.rejections.is_empty())
        .await;
    assert!(m.rejections[0].1.contains("exited"), "{:?}", m.rejections);
}

#[tokio::test(flavor = "multi_thread")]
async fn only_the_claimant_types() {
    let t = start_host().await;
    let mut a = Client::ready(&t.host, "alice").await;
    let mut b = Client::ready(&t.host, "bob").await;
    a.call("createTerminal", create_params("ahp-terminal:/c", "alice"))
        .await
        .unwrap();
    let mut ma = subscribe_terminal(&mut a, "ahp-terminal:/c").await;
    let mut mb = subscribe_terminal(&mut b, "ahp-terminal:/c").await;
    // Bob may neither type nor take the terminal.
    mb.type_line(&mut b, "echo from-$((1+1))-bob").await;
    mb.until(&mut b, "bob's rejection", |m| !m.rejections.is_empty())
        .await;
    assert!(mb.rejections[0].1.contains("claim"), "{:?}", mb.rejections);
    let claim_for = |id: &str| {
        StateAction::TerminalClaimed(TerminalClaimedAction {
            claim: TerminalClaim::Client(TerminalClientClaim {
                client_id: id.into(),
                extra: Default::default(),
            }),
            extra: Default::default(),
        })
    };
    b.dispatch("ahp-terminal:/c", claim_for("bob")).await;
    mb.until(&mut b, "bob's rejection", |m| m.rejections.len() == 2)
        .await;
    // Alice hands it to bob: now bob types, alice is refused.
    a.dispatch("ahp-terminal:/c", claim_for("bob")).await;
    let is_bob =
        |m: &Mirror| matches!(&m.state.claim, TerminalClaim::Client(c) if c.client_id == "bob");
    ma.until(&mut a, "the claim", is_bob).await;
    mb.until(&mut b, "the claim", is_bob).await;
    ma.type_line(&mut a, "echo from-$((2+2))-alice").await;
    ma.until(&mut a, "alice's rejection", |m| !m.rejections.is_empty())
        .await;
    mb.run(&mut b, "echo from-$((1+1))-bob", "from-2-bob").await;
    assert!(!text(&mb.state).contains("from-4-alice"));
    ma.until(&mut a, "the root list", |m| {
        m.root.as_ref().is_some_and(
            |r| matches!(&r[0].claim, TerminalClaim::Client(c) if c.client_id == "bob"),
        )
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_params_create_nothing() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "alice").await;
    let outside = tempfile::tempdir().unwrap();
    let with = |key: &str, value: Value| {
        let mut p = create_params("ahp-terminal:/bad", "alice");
        p[key] = value;
        p
    };
    let cases: Vec<(&str, Value, i64, &str)> = vec![
        ("cols 0", with("cols", json!(0)), -32602, "cols"),
        ("rows 10^9", with("rows", json!(1e9)), -32602, "rows"),
        ("cols 1.5", with("cols", json!(1.5)), -32602, "cols"),
        (
            "cwd outside",
            with("cwd", json!(file_uri(outside.path()))),
            errors::PERMISSION_DENIED,
            "outside the working directory",
        ),
        (
            "cwd a file",
            with(
                "cwd",
                json!(file_uri(
                    &t.work.path().canonicalize().unwrap().join("hello.txt")
                )),
            ),
            -32602,
            "not a directory",
        ),
        (
            "bad URI",
            with("channel", json!("ahp-session:/nope")),
            -32602,
            "ahp-terminal:/",
        ),
        (
            "empty id",
            with("channel", json!("ahp-terminal:/")),
            -32602,
            "ahp-terminal:/",
        ),
        (
            "someone else's claim",
            with("claim", json!({ "kind": "client", "clientId": "bob" })),
            -32602,
            "claim",
        ),
        (
            "claim for no session",
            with(
                "claim",
                json!({ "kind": "session", "session": "ahp-session:/none" }),
            ),
            -32602,
            "session",
        ),
    ];
    for (what, params, code, needle) in cases {
        let e: ErrorObject = c.call("createTerminal", params).await.expect_err(what);
        assert_eq!(e.code, code, "{what}: {e:?}");
        assert!(e.message.contains(needle), "{what}: {e:?}");
        assert!(root_terminals(&mut c).await.is_empty(), "{what}");
    }
    c.call("createTerminal", create_params("ahp-terminal:/ok", "alice"))
        .await
        .unwrap();
    let e = c
        .call("createTerminal", create_params("ahp-terminal:/ok", "alice"))
        .await
        .expect_err("duplicate");
    assert_eq!(e.code, errors::ALREADY_EXISTS, "{e:?}");
    assert_eq!(root_terminals(&mut c).await.len(), 1);
    let e = c
        .call(
            "disposeTerminal",
            json!({ "channel": "ahp-terminal:/none" }),
        )
        .await
        .expect_err("no such terminal");
    assert_eq!(e.code, errors::NOT_FOUND, "{e:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn at_most_sixteen_terminals() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "alice").await;
    for i in 0..ahp_host::terminals::MAX_TERMINALS {
        let uri = format!("ahp-terminal:/n{i}");
        c.call("createTerminal", create_params(&uri, "alice"))
            .await
            .unwrap();
    }
    let e = c
        .call(
            "createTerminal",
            create_params("ahp-terminal:/over", "alice"),
        )
        .await
        .expect_err("over the limit");
    assert!(e.message.contains("at most 16 terminals"), "{e:?}");
    assert_eq!(root_terminals(&mut c).await.len(), 16);
    c.call("disposeTerminal", json!({ "channel": "ahp-terminal:/n3" }))
        .await
        .unwrap();
    c.call(
        "createTerminal",
        create_params("ahp-terminal:/over", "alice"),
    )
    .await
    .expect("room again after a dispose");
    let list = root_terminals(&mut c).await;
    assert_eq!(list.len(), 16);
    assert!(list.iter().all(|i| i.resource != "ahp-terminal:/n3"));
    assert_eq!(list[15].resource, "ahp-terminal:/over");
}

#[tokio::test(flavor = "multi_thread")]
async fn dispose_kills_the_shell_and_removes_the_channel() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "alice").await;
    c.call("createTerminal", create_params("ahp-terminal:/d", "alice"))
        .await
        .unwrap();
    let mut m = subscribe_terminal(&mut c, "ahp-terminal:/d").await;
    m.until(&mut c, "the root list", |m| {
        m.root.as_ref().is_some_and(|r| r.len() == 1)
    })
    .await;
    let pid = m.shell_pid(&mut c).await;
    let job = m
        .number(&mut c, "sleep 1000 & echo job=$!=job", "job")
        .await;
    assert!(!process_gone(pid) && !process_gone(job));
    c.call("disposeTerminal", json!({ "channel": "ahp-terminal:/d" }))
        .await
        .unwrap();
    wait_gone(pid).await;
    wait_gone(job).await;
    m.until(&mut c, "the root list", |m| {
        m.root.as_ref().is_some_and(|r| r.is_empty())
    })
    .await;
    let e = c
        .call("subscribe", json!({ "channel": "ahp-terminal:/d" }))
        .await
        .expect_err("gone");
    assert_eq!(e.code, errors::NOT_FOUND);
    // The URI may be used again, for a new shell.
    c.call("createTerminal", create_params("ahp-terminal:/d", "alice"))
        .await
        .unwrap();
    let mut m = subscribe_terminal(&mut c, "ahp-terminal:/d").await;
    assert!(m.state.exit_code.is_none());
    assert_ne!(m.shell_pid(&mut c).await, pid);
}

#[tokio::test(flavor = "multi_thread")]
async fn host_shutdown_leaves_no_shell() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "alice").await;
    let mut pids = Vec::new();
    for uri in ["ahp-terminal:/s1", "ahp-terminal:/s2"] {
        c.call("createTerminal", create_params(uri, "alice"))
            .await
            .unwrap();
        let mut m = subscribe_terminal(&mut c, uri).await;
        // A background job of the shell must go too.
        pids.push(
            m.number(&mut c, "sleep 1000 & echo job=$!=job", "job")
                .await,
        );
        pids.push(m.shell_pid(&mut c).await);
    }
    t.host.shutdown().await;
    for pid in pids {
        wait_gone(pid).await;
    }
}

/// The command parts of a terminal's content.
#[tokio::test(flavor = "multi_thread")]
async fn bash_reports_commands_cwd_and_title() {
    let t = start_host().await;
    std::fs::create_dir(t.work.path().join("sub dir;x")).unwrap();
    let mut c = Client::ready(&t.host, "alice").await;
    c.call("createTerminal", create_params("ahp-terminal:/si", "alice"))
        .await
        .expect("createTerminal");
    let mut m = subscribe_terminal(&mut c, "ahp-terminal:/si").await;
    m.until(&mut c, "command detection", |m| {
        m.state.supports_command_detection == Some(true)
    })
    .await;
    // The user's ~/.bashrc ran first.
    m.run(&mut c, "echo rc=$AHP_TEST_BASHRC", "rc=sourced")
        .await;
    m.type_line(&mut c, "echo si-$((6*7))").await;
    m.until(&mut c, "the first command to finish", |m| {
        commands(&m.state).get(1).is_some_and(|c| c.is_complete)
    })
    .await;
    let first = commands(&m.state)[1].clone();
    assert_eq!(first.command_line, "echo si-$((6*7))");
    assert_eq!(first.exit_code, Some(0.0));
    assert!(first.output.contains("si-42"), "{:?}", first.output);
    assert!(first.duration_ms.is_some());
    // A failing command, a command line with the script's escapes, and a directory change.
    m.type_line(&mut c, "(exit 3)").await;
    m.type_line(&mut c, "cd 'sub dir;x' && echo 'a\\b;c'").await;
    m.until(&mut c, "four finished commands", |m| {
        let done = commands(&m.state);
        done.len() == 4 && done.iter().all(|c| c.is_complete)
    })
    .await;
    let done = commands(&m.state);
    assert_eq!(done[2].exit_code, Some(3.0));
    assert_eq!(done[3].command_line, "cd 'sub dir;x' && echo 'a\\b;c'");
    assert!(done[3].output.contains("a\\b;c"));
    let sub = t.work.path().canonicalize().unwrap().join("sub dir;x");
    m.until(&mut c, "the new cwd", |m| {
        m.state.cwd.as_deref() == Some(file_uri(&sub).as_str())
    })
    .await;
    // A window title (OSC 2) renames the terminal; the root list follows.
    m.type_line(&mut c, "printf '\\033]2;%s\\007' 'my build'")
        .await;
    m.until(&mut c, "the title", |m| m.state.title == "my build")
        .await;
    m.until(&mut c, "the root list", |m| {
        m.root.as_ref().is_some_and(|r| r[0].title == "my build")
    })
    .await;
    // A program printing forged boundaries (no nonce) neither fakes a command nor leaks them.
    m.type_line(
        &mut c,
        "printf '\\033]633;D;0;x\\007\\033]633;C;x\\007forged-done\\n'",
    )
    .await;
    m.until(&mut c, "the forged output", |m| {
        commands(&m.state)
            .last()
            .is_some_and(|c| c.is_complete && c.output.contains("forged-done"))
    })
    .await;
    assert_eq!(commands(&m.state).len(), 6);
    let all = text(&m.state);
    assert!(
        !all.contains("\u{1b}]633"),
        "shell integration leaked: {all:?}"
    );
}

/// The tool call `run_in_terminal` of a turn: its terminal link and its result.
fn run_result(envelopes: &[ActionEnvelope]) -> (String, ToolCallResult) {
    let mut linked = None;
    for e in envelopes {
        match &e.action {
            StateAction::SessionToolCallContentChanged(a) => {
                if let Some(ToolResultContent::Terminal(t)) = a.content.first() {
                    linked = Some(t.resource.clone());
                }
            }
            StateAction::SessionToolCallComplete(a) => {
                let uri = linked
                    .clone()
                    .expect("the call linked its terminal while running");
                match a.result.content.as_deref() {
                    Some([ToolResultContent::Terminal(t), ..]) => assert_eq!(t.resource, uri),
                    other => panic!("no terminal link in the result: {other:?}"),
                }
                return (uri, a.result.clone());
            }
            _ => {}
        }
    }
    panic!("no run_in_terminal result");
}

#[tokio::test(flavor = "multi_thread")]
async fn run_directive_uses_a_session_terminal() {
    let t = start_host().await;
    let session = "ahp-session:/run";
    let mut c = Client::in_new_session(&t.host, "alice", session).await;
    c.send_message(session, "t1", "/run echo run-$((40+2)); false")
        .await;
    let envelopes = c.until_turn_end("t1").await;
    let (uri, result) = run_result(&envelopes);
    assert!(!result.success, "the command's status is 1: {result:?}");
    assert!(result_text(&result).contains("run-42"), "{result:?}");
    assert!(
        matches!(result.past_tense_message, StringOrMarkdown::Plain(ref m) if m.contains("exit code 1")),
        "{result:?}"
    );
    // The terminal stays, claimed by the session alone (backgrounded), with the command part;
    // its process was the command.
    let m = subscribe_terminal(&mut c, &uri).await;
    assert_eq!(m.state.exit_code, Some(1.0));
    match &m.state.claim {
        TerminalClaim::Session(s) => {
            assert_eq!(s.session, session);
            assert_eq!(s.tool_call_id, None);
        }
        other => panic!("claim {other:?}"),
    }
    assert!(
        text(&m.state).starts_with("$ echo run-$((40+2)); false\r\nrun-42"),
        "{:?}",
        text(&m.state)
    );
    let cmd = commands(&m.state)[0].clone();
    assert_eq!(cmd.command_line, "echo run-$((40+2)); false");
    assert_eq!(cmd.exit_code, Some(1.0));
    // A command that never ends: interrupted at its timeout. Every run has a terminal of its
    // own, which exits with the command.
    c.send_message(
        session,
        "t2",
        "/run --timeout 1 sleep 600\n/run echo after-$((1+1))",
    )
    .await;
    let envelopes = c.until_turn_end("t2").await;
    let completes: Vec<&SessionToolCallCompleteAction> = envelopes
        .iter()
        .filter_map(|e| match &e.action {
            StateAction::SessionToolCallComplete(a) => Some(a.as_ref()),
            _ => None,
        })
        .collect();
    assert_eq!(completes.len(), 2);
    let timed_out = &completes[0].result;
    assert!(!timed_out.success);
    assert_eq!(
        timed_out.error.as_ref().and_then(|e| e.code.as_deref()),
        Some("Timeout")
    );
    let after = &completes[1].result;
    assert!(after.success, "{after:?}");
    assert!(result_text(after).contains("after-2"));
    let link = |r: &ToolCallResult| match r.content.as_deref() {
        Some([ToolResultContent::Terminal(t), ..]) => t.resource.clone(),
        other => panic!("{other:?}"),
    };
    let (interrupted, second) = (link(timed_out), link(after));
    assert!(interrupted != uri && second != uri && second != interrupted);
    // Ctrl-C ended the interrupted command: 130, as a shell reports it.
    let mut m = subscribe_terminal(&mut c, &interrupted).await;
    m.until(&mut c, "the interrupted command's end", |m| {
        m.state.exit_code.is_some()
    })
    .await;
    assert_eq!(m.state.exit_code, Some(130.0));
    assert_eq!(commands(&m.state)[0].exit_code, Some(130.0));
    assert_eq!(root_terminals(&mut c).await.len(), 3);
    // A session keeps its three newest finished run terminals: the next run takes the oldest.
    c.send_message(session, "t3", "/run true").await;
    c.until_turn_end("t3").await;
    assert_eq!(root_terminals(&mut c).await.len(), 4);
    c.send_message(session, "t4", "/run true").await;
    c.until_turn_end("t4").await;
    let left = root_terminals(&mut c).await;
    assert_eq!(left.len(), 4);
    assert!(left.iter().all(|t| t.resource != uri), "{left:?}");
    // They go with the session.
    c.call("disposeSession", json!({ "channel": session }))
        .await
        .expect("disposeSession");
    assert!(root_terminals(&mut c).await.is_empty());
    let gone = c.call("subscribe", json!({ "channel": second })).await;
    assert!(gone.is_err(), "{gone:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn run_output_is_bounded() {
    let t = start_host().await;
    let session = "ahp-session:/big";
    let mut c = Client::in_new_session(&t.host, "alice", session).await;
    // 200 KiB of output: the result keeps the end of it.
    c.send_message(
        session,
        "t1",
        "/run head -c 204800 /dev/zero | tr '\\0' x; echo; echo tail-end",
    )
    .await;
    let envelopes = c.until_turn_end("t1").await;
    let (_, result) = run_result(&envelopes);
    let text = result_text(&result);
    assert!(result.success);
    assert!(text.len() <= 16 * 1024, "{}", text.len());
    assert!(
        text.trim_end().ends_with("tail-end"),
        "{:?}",
        &text[text.len() - 40..]
    );
}

/// A lower bound only (a slow machine takes longer, never shorter): 6 MiB at 1 MiB/s cannot
/// arrive in under 5 s unless the limit is gone (without it: about 3.5 s here).
#[tokio::test(flavor = "multi_thread")]
async fn output_rate_is_bounded() {
    let t = start_host().await;
    let session = "ahp-session:/flood";
    let mut c = Client::in_new_session(&t.host, "alice", session).await;
    let started = std::time::Instant::now();
    c.send_message(
        session,
        "t1",
        "/run --timeout 120 head -c 6291456 /dev/zero | tr '\\0' x; echo; echo flood-end",
    )
    .await;
    let envelopes = c.until_turn_end("t1").await;
    let elapsed = started.elapsed();
    let (_, result) = run_result(&envelopes);
    assert!(result.success);
    assert!(result_text(&result).trim_end().ends_with("flood-end"));
    assert!(
        elapsed >= std::time::Duration::from_secs(5),
        "6 MiB of output in {elapsed:?}: over {} bytes/s",
        ahp_host::terminals::MAX_OUTPUT_BYTES_PER_SEC
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn input_nobody_reads_is_refused_without_blocking_the_host() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "alice").await;
    c.call(
        "createTerminal",
        create_params("ahp-terminal:/full", "alice"),
    )
    .await
    .unwrap();
    let mut m = subscribe_terminal(&mut c, "ahp-terminal:/full").await;
    // A program that never reads its input, in raw mode (nothing is dropped by the line
    // discipline): the pty's buffer fills, then the host's queue, then input is refused.
    m.run(
        &mut c,
        "stty raw -echo; echo sleep-ing; sleep 600",
        "sleep-ing",
    )
    .await;
    let chunk = "y".repeat(64 * 1024);
    for _ in 0..40 {
        let action = StateAction::TerminalInput(TerminalInputAction {
            data: chunk.clone(),
            extra: Default::default(),
        });
        c.dispatch("ahp-terminal:/full", action).await;
    }
    m.until(&mut c, "a refused input", |m| !m.rejections.is_empty())
        .await;
    assert!(
        m.rejections[0].1.contains("input queue is full"),
        "{:?}",
        m.rejections
    );
    // The host goes on: other requests are answered, the terminal can be disposed.
    ping(&mut c).await;
    c.call(
        "disposeTerminal",
        json!({ "channel": "ahp-terminal:/full" }),
    )
    .await
    .expect("disposeTerminal");
    ping(&mut c).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_detaches_a_running_command() {
    let t = start_host().await;
    let session = "ahp-session:/detach";
    let mut c = Client::in_new_session(&t.host, "alice", session).await;
    // Alice is the session's active client: she may detach the agent's terminal.
    let active: StateAction = serde_json::from_value(json!({"type": "session/activeClientChanged",
        "activeClient": {"clientId": "alice", "tools": []}}))
    .unwrap();
    c.dispatch(session, active).await;
    c.send_message(session, "t1", "/run --timeout 60 sleep 600")
        .await;
    let linked = c
        .envelopes_until(|e| matches!(&e.action, StateAction::SessionToolCallContentChanged(_)))
        .await;
    let uri = match &linked.last().unwrap().action {
        StateAction::SessionToolCallContentChanged(a) => match &a.content[0] {
            ToolResultContent::Terminal(t) => t.resource.clone(),
            other => panic!("{other:?}"),
        },
        _ => unreachable!(),
    };
    // Narrowing the claim to the session backgrounds the command: the call completes at once.
    let narrow: StateAction = serde_json::from_value(json!({"type": "terminal/claimed",
        "claim": {"kind": "session", "session": session}}))
    .unwrap();
    c.dispatch(&uri, narrow).await;
    let envelopes = c.until_turn_end("t1").await;
    let (_, result) = run_result(&[linked, envelopes].concat());
    assert!(result.success, "{result:?}");
    assert!(
        matches!(result.past_tense_message, StringOrMarkdown::Plain(ref m) if m.contains("background")),
        "{result:?}"
    );
    // The command runs on in its terminal.
    let mut m = subscribe_terminal(&mut c, &uri).await;
    m.until(&mut c, "the running command", |m| {
        commands(&m.state)
            .last()
            .is_some_and(|c| c.command_line == "sleep 600" && !c.is_complete)
    })
    .await;
}
