//! `/run <command>`: the agent runs a shell command in a terminal of its session
//! (guide/terminals.md, "Agent Runs a Command").
//!
//! The tool call `run_in_terminal` starts as running (no confirmation: whoever may send the
//! message may also open a terminal and type the command). The hub starts the command in a
//! terminal of its own (`hub/terminals/run.rs`); the call's content then links to the terminal
//! (`ToolResultTerminalContent`, via `session/toolCallContentChanged`) so clients can subscribe
//! and watch it live. The result carries the same link, the exit code of the command's process
//! and the end of the output as text. A command running past its timeout gets Ctrl-C and the
//! call fails.
//!
//! `/run --background <command>`: the call completes as soon as the command started (its
//! result links to the terminal); the command runs on, listed in the chat's `backgroundWork`
//! until its process exits or its terminal goes (the hub keeps that list).

use super::calls::{self, text_content};
use super::{Step, Stopped, Turn};
use crate::bus::{HubMsg, RunEnd, RunMsg, RunOutcome, RunRequest};
use ahp_wasm::protocol::*;
use std::time::Duration;
use tokio::sync::oneshot;

/// A started run: its terminal, the call's link to it, its end.
type Started = (String, ToolResultContent, oneshot::Receiver<RunOutcome>);

/// How long the hub gets to answer once the timeout passed (it interrupts the command).
const AFTER_TIMEOUT: Duration = Duration::from_secs(10);

impl Turn {
    pub(super) async fn run_in_terminal(
        &mut self,
        command: String,
        timeout_secs: u64,
        background: bool,
    ) -> Step {
        let id = self
            .tool_start("run_in_terminal", "Run in terminal", None, None)
            .await?;
        let invocation = format!("Running `{command}` in a terminal");
        let input = serde_json::json!({ "command": command }).to_string();
        self.tool_ready(&id, invocation, input, None).await?;
        self.markdown = None;
        let (said, _) = if background {
            self.background_command(&id, &command).await?
        } else {
            self.terminal_command(&id, &command, timeout_secs).await?
        };
        self.say(&said).await
    }

    /// Starts `command` for started call `id` in a terminal of the session, left running as
    /// the chat's background work, and completes the call at once.
    pub(crate) async fn background_command(
        &mut self,
        id: &str,
        command: &str,
    ) -> Result<(String, ToolCallResult), Stopped> {
        let (_, link, _done) = match self.start_command(id, command, true).await? {
            Ok(started) => started,
            Err(why) => return self.run_failed(id, command, None, why).await,
        };
        let summary = format!("`{command}` runs in the background");
        let result = self
            .complete_run(id, true, &summary, vec![link], None)
            .await?;
        Ok((format!("\n\n{summary}.\n\n"), result))
    }

    /// Asks the hub to start `command` for call `id` in a terminal of its own; once on its
    /// way, links the call to that terminal. The terminal, the link and the run's end, or why
    /// it did not start.
    async fn start_command(
        &mut self,
        id: &str,
        command: &str,
        background: bool,
    ) -> Result<Result<Started, String>, Stopped> {
        let (started_tx, started) = oneshot::channel();
        let (done_tx, done) = oneshot::channel();
        let request = RunRequest {
            session: self.job.channel.clone(),
            turn_id: self.job.turn_id.clone(),
            tool_call_id: id.to_owned(),
            command: command.to_owned(),
            background,
            started: started_tx,
            done: done_tx,
        };
        self.hub
            .send(HubMsg::TerminalRun(Box::new(RunMsg::Start(request))))
            .await
            .map_err(|_| Stopped)?;
        let (uri, title) = match started.await {
            Ok(Ok(started)) => started,
            Ok(Err(why)) => return Ok(Err(why)),
            Err(_) => return Err(Stopped),
        };
        let link = ToolResultContent::Terminal(ToolResultTerminalContent {
            resource: uri.clone(),
            title,
            extra: Default::default(),
        });
        self.emit(vec![StateAction::SessionToolCallContentChanged(Box::new(
            SessionToolCallContentChangedAction {
                turn_id: self.job.turn_id.clone(),
                tool_call_id: id.to_owned(),
                meta: None,
                content: vec![link.clone()],
                extra: Default::default(),
            },
        ))])
        .await?;
        Ok(Ok((uri, link, done)))
    }

    /// Runs `command` for started call `id` in a terminal of the session and completes the
    /// call; answers what to tell the user, and the result.
    pub(crate) async fn terminal_command(
        &mut self,
        id: &str,
        command: &str,
        timeout_secs: u64,
    ) -> Result<(String, ToolCallResult), Stopped> {
        let (id, command) = (id.to_owned(), command.to_owned());
        let (uri, link, mut done) = match self.start_command(&id, &command, false).await? {
            Ok(started) => started,
            Err(why) => return self.run_failed(&id, &command, None, why).await,
        };
        let timeout = Duration::from_secs(timeout_secs);
        let outcome = match tokio::time::timeout(timeout, &mut done).await {
            Ok(outcome) => outcome,
            Err(_) => {
                let msg = RunMsg::TimedOut {
                    terminal: uri.clone(),
                    tool_call_id: id.clone(),
                };
                self.hub
                    .send(HubMsg::TerminalRun(Box::new(msg)))
                    .await
                    .map_err(|_| Stopped)?;
                tokio::time::timeout(AFTER_TIMEOUT, done)
                    .await
                    .map_err(|_| Stopped)?
            }
        };
        let Ok(outcome) = outcome else {
            let why = "the terminal was disposed while the command ran".to_owned();
            return self.run_failed(&id, &command, Some(link), why).await;
        };
        self.run_complete(&id, &command, link, outcome, timeout_secs)
            .await
    }

    async fn run_complete(
        &mut self,
        id: &str,
        command: &str,
        link: ToolResultContent,
        outcome: RunOutcome,
        timeout_secs: u64,
    ) -> Result<(String, ToolCallResult), Stopped> {
        let code = outcome
            .exit_code
            .map_or_else(|| "unknown".to_owned(), |c| c.to_string());
        let (success, summary) = match outcome.end {
            RunEnd::Finished => (
                outcome.exit_code == Some(0),
                format!("Ran `{command}` (exit code {code})"),
            ),
            RunEnd::TimedOut => (
                false,
                format!("`{command}` did not finish within {timeout_secs} s and was interrupted"),
            ),
            RunEnd::Detached => (
                true,
                format!("`{command}` goes on in the background (the terminal was detached)"),
            ),
        };
        let error_code = match outcome.end {
            RunEnd::TimedOut => Some("Timeout".to_owned()),
            _ => None,
        };
        let text = outcome.output;
        let result = self
            .complete_run(
                id,
                success,
                &summary,
                vec![link, text_content(&text)],
                error_code,
            )
            .await?;
        let said = format!("\n\n{summary}:\n\n```\n{}\n```\n\n", text.trim_end());
        Ok((said, result))
    }

    async fn run_failed(
        &mut self,
        id: &str,
        command: &str,
        link: Option<ToolResultContent>,
        why: String,
    ) -> Result<(String, ToolCallResult), Stopped> {
        let summary = format!("`{command}` was not run: {why}");
        let content = link.into_iter().collect();
        let result = self
            .complete_run(id, false, &summary, content, None)
            .await?;
        Ok((format!("\n\n{summary}\n\n"), result))
    }

    async fn complete_run(
        &mut self,
        id: &str,
        success: bool,
        summary: &str,
        content: Vec<ToolResultContent>,
        error_code: Option<String>,
    ) -> Result<ToolCallResult, Stopped> {
        let result = calls::tool_result(success, summary, content, error_code);
        self.complete_tool(id, result.clone()).await?;
        Ok(result)
    }
}
