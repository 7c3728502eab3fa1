//! Shell integration on the hub side and the built-in agent's `/run`.
//!
//! The pty's forwarder hands over the shell's events in output order (`HubMsg::TerminalShell`,
//! see `crate::terminals::shell`); here they become `terminal/commandDetectionAvailable`,
//! `terminal/commandExecuted`, `terminal/commandFinished`, `terminal/cwdChanged` and
//! `terminal/titleChanged`, all through the SDK's terminal reducer like the rest. They are for
//! display: a command in the shell can forge them, so nothing is decided on them.
//!
//! `/run` (guide/terminals.md, "Agent Runs a Command"): every run gets a terminal of its own,
//! started by the host for the session's agent ([`Owner::Agent`]) and running the command
//! itself (`Program::Command`, not an interactive shell), claimed by `{session, turnId,
//! toolCallId}`; the host shows the command line (`$ <command>`) and dispatches its
//! `commandExecuted`. A terminal a client made is never used, even when handed to the session.
//! The run ends when the process exits, with the exit code the kernel reports for it
//! (`waitpid`), never one read from its output; when a client takes the claim away (detaching
//! it); or when the agent gives up (its timeout: the command gets Ctrl-C). At the end the claim
//! narrows back to `{session}` and the agent gets the exit code and the command's output. A
//! session keeps its [`KEEP_FINISHED_RUNS`] newest finished run terminals.

use super::{NewTerminal, Owner};
use crate::bus::{RunEnd as End, RunMsg, RunOutcome, RunRequest, ShellEvent};
use crate::hub::automations::schedule::now_iso;
use crate::hub::base::Core;
use crate::hub::Hub;
use crate::terminals::{Program, MAX_TERMINALS};
use ahp_wasm::protocol::*;
use serde_json::json;
use std::time::Instant;
use tokio::sync::oneshot;

/// The most of a command's output handed to the agent (the end of it), in bytes.
pub const MAX_RUN_OUTPUT: usize = 16 * 1024;
/// Finished `/run` terminals a session keeps (older ones are disposed of when a run starts).
pub const KEEP_FINISHED_RUNS: usize = 3;
/// The `commandId` of a run's command in its terminal.
const RUN_COMMAND_ID: &str = "cmd-1";

/// What shell integration reported so far for one terminal (and a run's own command).
#[derive(Debug, Default)]
pub(in crate::hub) struct Tracking {
    /// `terminal/commandDetectionAvailable` was dispatched.
    available: bool,
    /// The command line of the next `commandExecuted`.
    line: Option<String>,
    /// The running command: its id and start.
    running: Option<(String, Instant)>,
    commands: u64,
}

/// A run in progress on a terminal.
#[derive(Debug)]
pub(in crate::hub) struct Run {
    session: String,
    tool_call_id: String,
    done: oneshot::Sender<RunOutcome>,
    /// A background run (`/run --background`): the id of its entry in the chat's
    /// `backgroundWork` (the terminal's URI).
    background: Option<String>,
}

impl Run {
    /// Takes a background run's entry out of its chat's `backgroundWork` (its process ended,
    /// a client took its terminal, or the terminal went).
    pub(in crate::hub) fn end_background(&self, core: &mut Core) {
        if let Some(id) = &self.background {
            let removed = json!({ "type": "chat/backgroundWorkRemoved", "id": id });
            core.v1_chat_action(&self.session, removed);
        }
    }
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64)
}

impl Hub {
    fn apply_terminal(&mut self, channel: &str, action: StateAction) -> bool {
        self.apply(channel, action, None).is_ok()
    }

    /// An event of a terminal's shell integration.
    pub(in crate::hub) fn on_terminal_shell(&mut self, channel: &str, id: u64, event: ShellEvent) {
        if !self.is_terminal(channel, id) {
            return;
        }
        let terminal = self.terminals.map.get_mut(channel).expect("checked above");
        let first = !terminal.shell.available && !matches!(event, ShellEvent::Title(_));
        if first {
            terminal.shell.available = true;
            self.apply_terminal(
                channel,
                StateAction::TerminalCommandDetectionAvailable(Default::default()),
            );
        }
        let terminal = self.terminals.map.get_mut(channel).expect("checked above");
        match event {
            ShellEvent::CommandLine(line) => terminal.shell.line = Some(line),
            ShellEvent::Executed => {
                let command_line = terminal.shell.line.take().unwrap_or_default();
                self.command_executed(channel, command_line);
            }
            // Without a running command: the first prompt, an empty line or Ctrl-C at the
            // prompt.
            ShellEvent::Finished(code) => self.command_finished(channel, code),
            ShellEvent::Cwd(path) => {
                let cwd = crate::resources::file_uri(std::path::Path::new(&path));
                if terminal.state.cwd.as_deref() != Some(cwd.as_str()) {
                    self.apply_terminal(
                        channel,
                        StateAction::TerminalCwdChanged(TerminalCwdChangedAction {
                            cwd,
                            extra: Default::default(),
                        }),
                    );
                }
            }
            ShellEvent::Title(title) => {
                if title != terminal.state.title
                    && self.apply_terminal(
                        channel,
                        StateAction::TerminalTitleChanged(TerminalTitleChangedAction {
                            title,
                            extra: Default::default(),
                        }),
                    )
                {
                    self.terminals.update_root(&mut self.core);
                }
            }
        }
    }

    /// A command starts in `channel`: `commandExecuted` with the next `cmd-<n>`.
    fn command_executed(&mut self, channel: &str, command_line: String) {
        let Some(terminal) = self.terminals.map.get_mut(channel) else {
            return;
        };
        let shell = &mut terminal.shell;
        shell.commands += 1;
        let command_id = format!("cmd-{}", shell.commands);
        shell.running = Some((command_id.clone(), Instant::now()));
        self.apply_terminal(
            channel,
            StateAction::TerminalCommandExecuted(TerminalCommandExecutedAction {
                command_id,
                command_line,
                timestamp: now_ms(),
                extra: Default::default(),
            }),
        );
    }

    /// The running command of `channel`, if any, finished with `code`: `commandFinished`.
    fn command_finished(&mut self, channel: &str, code: Option<i32>) {
        let Some((command_id, start)) = self
            .terminals
            .map
            .get_mut(channel)
            .and_then(|t| t.shell.running.take())
        else {
            return;
        };
        self.apply_terminal(
            channel,
            StateAction::TerminalCommandFinished(TerminalCommandFinishedAction {
                command_id,
                exit_code: code.map(f64::from),
                duration_ms: Some(start.elapsed().as_millis() as f64),
                extra: Default::default(),
            }),
        );
    }

    pub(in crate::hub) fn on_terminal_run(&mut self, msg: RunMsg) {
        match msg {
            RunMsg::Start(req) => self.start_run(req),
            RunMsg::TimedOut {
                terminal,
                tool_call_id,
            } => {
                let ours = self.terminals.map.get_mut(&terminal).filter(|t| {
                    t.run
                        .as_ref()
                        .is_some_and(|r| r.tool_call_id == tool_call_id)
                });
                if let Some(t) = ours {
                    // Interrupt the command; its exit finishes its command part later.
                    let _ = t.pty.write(b"\x03");
                    self.end_run(&terminal, End::TimedOut, None);
                }
            }
        }
    }

    /// Starts the command of `req` in a terminal of its own (see the module docs).
    fn start_run(&mut self, req: RunRequest) {
        let Some(session) = self.core.sessions.get(&req.session) else {
            let _ = req.started.send(Err("the session is gone".into()));
            return;
        };
        let workdir = self.core.session_workdir(&session.members);
        self.prune_finished_runs(&req.session, KEEP_FINISHED_RUNS);
        if self.terminals.map.len() >= MAX_TERMINALS {
            let _ = req.started.send(Err(format!(
                "this host keeps at most {MAX_TERMINALS} terminals; dispose of one first"
            )));
            return;
        }
        let mut n = self.terminals.next_id + 1;
        while self
            .terminals
            .map
            .contains_key(&format!("ahp-terminal:/run-{n}"))
        {
            n += 1;
        }
        let uri = format!("ahp-terminal:/run-{n}");
        let claim = self.session_claim(
            &req.session,
            Some(req.turn_id.clone()),
            Some(req.tool_call_id.clone()),
        );
        let title: String = format!("run: {}", req.command).chars().take(80).collect();
        let new = NewTerminal {
            uri: uri.clone(),
            cwd: &workdir,
            size: (120, 30),
            title: title.clone(),
            claim,
            owner: Owner::Agent,
        };
        if let Err(e) = self.spawn_terminal(new, Program::Command(&req.command)) {
            let _ = req.started.send(Err(e.message));
            return;
        }
        // Before any of its output (the hub handles the pty's messages after this one): the
        // command line as an interactive shell would show it, then its command part.
        let shown: String = req.command.chars().filter(|c| !c.is_control()).collect();
        self.apply_terminal(
            &uri,
            StateAction::TerminalData(TerminalDataAction {
                data: format!("$ {shown}\r\n"),
                extra: Default::default(),
            }),
        );
        // A background run is the chat's background work until it ends.
        let background = req.background.then(|| uri.clone());
        if background.is_some() {
            let set = json!({ "type": "chat/backgroundWorkSet", "work": {
                "kind": "shell", "id": uri, "label": title, "startedAt": now_iso(),
                "command": req.command, "terminal": uri,
            }});
            self.core.v1_chat_action(&req.session, set);
        }
        self.command_executed(&uri, req.command);
        self.terminals.update_root(&mut self.core);
        let terminal = self.terminals.map.get_mut(&uri).expect("made above");
        terminal.run = Some(Run {
            session: req.session,
            tool_call_id: req.tool_call_id,
            done: req.done,
            background,
        });
        let _ = req.started.send(Ok((uri, title)));
    }

    /// A client changed the claim of `channel`: a run that no longer holds it is over.
    pub(in crate::hub) fn run_claim_changed(&mut self, channel: &str) {
        let Some(t) = self.terminals.map.get(channel) else {
            return;
        };
        let Some(run) = &t.run else {
            return;
        };
        let still = matches!(&t.state.claim, TerminalClaim::Session(c)
            if super::claim_key(c) == run.session
                && c.tool_call_id.as_deref() == Some(run.tool_call_id.as_str()));
        if !still {
            self.end_run(channel, End::Detached, None);
        }
    }

    /// The process of `channel` exited with `code`: the agent's command (if it is a run's
    /// terminal) finishes with it, and so does its run.
    pub(in crate::hub) fn run_process_exited(&mut self, channel: &str, code: Option<i32>) {
        let Some(terminal) = self.terminals.map.get(channel) else {
            return;
        };
        if terminal.owner == Owner::Agent {
            self.command_finished(channel, code);
        }
        self.end_run(channel, End::Finished, code);
    }

    /// Ends the run on `channel`: narrows the claim back to the session (unless a client took
    /// it) and tells the agent.
    fn end_run(&mut self, channel: &str, end: End, exit_code: Option<i32>) {
        let Some(run) = self
            .terminals
            .map
            .get_mut(channel)
            .and_then(|t| t.run.take())
        else {
            return;
        };
        run.end_background(&mut self.core);
        let state = &self.terminals.map[channel].state;
        let output = state
            .content
            .iter()
            .find_map(|p| match p {
                TerminalContentPart::Command(c) if c.command_id == RUN_COMMAND_ID => {
                    Some(plain_text(&c.output))
                }
                _ => None,
            })
            .unwrap_or_default();
        if end != End::Detached {
            let claim = self.session_claim(&run.session, None, None);
            self.apply_terminal(
                channel,
                StateAction::TerminalClaimed(TerminalClaimedAction {
                    claim,
                    extra: Default::default(),
                }),
            );
            self.terminals.update_root(&mut self.core);
        }
        let _ = run.done.send(RunOutcome {
            end,
            exit_code,
            output,
        });
    }
}

/// Terminal output as plain text: escape sequences and carriage returns removed, the last
/// [`MAX_RUN_OUTPUT`] bytes kept (at a character boundary).
pub fn plain_text(vt: &str) -> String {
    let mut out = String::with_capacity(vt.len().min(MAX_RUN_OUTPUT * 2));
    let mut chars = vt.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters, then a final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ESC \.
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            chars.next();
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => {}
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    if out.len() > MAX_RUN_OUTPUT {
        let mut cut = out.len() - MAX_RUN_OUTPUT;
        while !out.is_char_boundary(cut) {
            cut += 1;
        }
        out.drain(..cut);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_drops_escapes_and_keeps_the_end() {
        assert_eq!(
            plain_text("\u{1b}[?2004l\r\u{1b}[1;31mhi\u{1b}[0m\r\n\u{1b}]0;t\u{7}ok\n"),
            "hi\nok\n"
        );
        let long = "é".repeat(MAX_RUN_OUTPUT);
        let kept = plain_text(&long);
        assert!(kept.len() <= MAX_RUN_OUTPUT && kept.chars().all(|c| c == 'é'));
    }
}
