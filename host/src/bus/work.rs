//! What workers (the agent, terminals, watchers) and connections tell the hub beside their
//! [`super::HubMsg`] variant's own fields.

use super::ConnId;
use ahp_wasm::protocol::jsonrpc::RequestId;
use serde_json::Value;
use tokio::sync::oneshot;

/// A message a client sent on an `mcp://` channel, as its connection decoded it.
#[derive(Debug)]
pub struct ChannelMessage {
    /// From.
    pub conn: ConnId,
    /// The request id; `None` for a notification.
    pub id: Option<RequestId>,
    /// The MCP method.
    pub method: String,
    /// The `mcp://` channel URI (from `params.channel`).
    pub channel: String,
    /// The params without `channel`.
    pub params: Option<Value>,
    /// Size of the params as sent, in bytes.
    pub bytes: usize,
}

/// A tool call the agent holds until its MCP server has a new token.
#[derive(Debug)]
pub struct StepUp {
    /// Session URI.
    pub channel: String,
    /// The turn of the call.
    pub turn_id: String,
    /// The call.
    pub tool_call_id: String,
    /// The MCP tool's name.
    pub tool: String,
    /// The server's customization id.
    pub server_id: String,
    /// The start attempt whose connection was refused.
    pub generation: u64,
}

/// Why a client tool call was failed by the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolExpiry {
    /// The call ran longer than `--client-tool-timeout-ms`.
    Timeout,
    /// Its client stayed disconnected longer than `--client-tool-grace-ms`.
    Disconnected,
    /// Its client denied it (`toolCallConfirmed` with `approved: false` on the running call:
    /// the spec's answer to a call for a tool the client does not have).
    Denied,
}

impl ToolExpiry {
    /// The `error.code` of the failed result.
    pub fn code(self) -> &'static str {
        match self {
            ToolExpiry::Timeout => "ClientToolTimeout",
            ToolExpiry::Disconnected => "ClientDisconnected",
            ToolExpiry::Denied => "ClientDenied",
        }
    }
}

/// A `/run` from the agent.
#[derive(Debug)]
pub struct RunRequest {
    /// The session running it.
    pub session: String,
    /// Its turn.
    pub turn_id: String,
    /// Its tool call.
    pub tool_call_id: String,
    /// The command line.
    pub command: String,
    /// Left running as the chat's background work once started (the call does not wait).
    pub background: bool,
    /// The terminal's URI and title once the command is on its way, or why not.
    pub started: oneshot::Sender<Result<(String, String), String>>,
    /// The end of the run.
    pub done: oneshot::Sender<RunOutcome>,
}

/// What the hub is told about `/run`s.
#[derive(Debug)]
pub enum RunMsg {
    /// Start one.
    Start(RunRequest),
    /// The agent's timeout for the run of `tool_call_id` on `terminal` passed.
    TimedOut {
        /// Terminal URI.
        terminal: String,
        /// The tool call.
        tool_call_id: String,
    },
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// The command's process exited.
    Finished,
    /// The agent's timeout passed; the command was interrupted.
    TimedOut,
    /// A client took the terminal's claim.
    Detached,
}

/// The end of a run, for the agent.
#[derive(Debug)]
pub struct RunOutcome {
    /// How.
    pub end: RunEnd,
    /// The command's exit code (its process's: 128 + the signal when one killed it), when it
    /// finished.
    pub exit_code: Option<i32>,
    /// The end of its output (at most the hub's `MAX_RUN_OUTPUT`), escape sequences removed.
    pub output: String,
}

/// What the shell reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellEvent {
    /// `E`: the command line about to run.
    CommandLine(String),
    /// `C`: the command started.
    Executed,
    /// `D`: a prompt follows; the last command's exit code.
    Finished(Option<i32>),
    /// `P;Cwd=`: the shell's working directory.
    Cwd(String),
    /// OSC 0 or 2: the window title.
    Title(String),
}

/// The built-in agent's `/annotate` and `/canvas` (`hub/annotations.rs`, `hub/canvases.rs`):
/// what to add to its session, answered with what to tell the user or why it was refused.
#[derive(Debug)]
pub struct PanelRequest {
    /// Session URI.
    pub session: String,
    /// The turn that asks.
    pub turn_id: String,
    /// What to add.
    pub ask: PanelAsk,
    /// The answer: a line for the user, or why nothing was added.
    pub reply: oneshot::Sender<Result<String, String>>,
}

/// What a [`PanelRequest`] adds.
#[derive(Debug)]
pub enum PanelAsk {
    /// An annotation with one entry on a file of the working directory.
    Annotate {
        /// The file's `file://` URI.
        resource: String,
        /// Zero-based line the annotation covers.
        line: u32,
        /// The entry's text.
        text: String,
    },
    /// A canvas whose page the host serves.
    Canvas {
        /// Its title.
        title: String,
        /// The HTML the host serves for it.
        html: String,
        /// Where the HTML comes from (`template` or `file`): the canvas's `canvasId`.
        kind: &'static str,
    },
}
