//! The bus: what is sent to the hub ([`HubMsg`] on its queue, a [`HubSender`]) and the
//! connection handles it answers on ([`ConnHandle`]).
//!
//! It is the bottom floor of the host's running parts: the agent, the terminals, the
//! watchers, the peer requests and the connections import it to talk to the hub, and the hub
//! imports it to read their messages, so none of them imports another to talk. It imports
//! only data types of the leaf libraries it carries (`changes`, `mcp`'s events and tokens,
//! `customize`'s scans, `watches`' watchers), none of which talks to the hub.
//!
//! - [`conn`]: a connection's id, queue and shared flags;
//! - [`requests`]: the host's command table and the [`Request`]s of clients it defines, with
//!   their checked params; [`session_filter`]: the `listSessions` filter;
//! - [`work`]: what workers and connections report (agent `/run`s, step-ups, shell events,
//!   `mcp://` messages);
//! - [`jobs`]: results of the jobs the hub runs off its thread.

pub mod conn;
pub mod jobs;
pub mod requests;
pub mod requests_v1;
pub mod session_filter;
pub mod work;

pub use conn::{ConnHandle, ConnId, ConnShared, QueueError};
pub use jobs::{ChangesMsg, CustomizationKey, CustomizationRead, WatchOpened};
pub use requests::{Authenticate, Request, SessionFilter};
pub use requests_v1::RequestV1;
pub use work::{
    ChannelMessage, PanelAsk, PanelRequest, RunEnd, RunMsg, RunOutcome, RunRequest, ShellEvent,
    StepUp, ToolExpiry,
};

use ahp_wasm::protocol::jsonrpc::RequestId;
use ahp_wasm::protocol::{DispatchActionParams, StateAction};
use tokio::sync::mpsc;

#[derive(Debug)]
pub enum HubMsg {
    /// A connection opened.
    Connect {
        /// Its id.
        conn: ConnId,
        /// Its queue.
        handle: ConnHandle,
    },
    /// A connection closed.
    Disconnect {
        /// Its id.
        conn: ConnId,
    },
    /// A connection answered the ping the hub asked for (`hub/id_claims.rs`).
    Pong {
        /// Its id.
        conn: ConnId,
    },
    /// A handshake's wait for the connection holding its `clientId` is over (`hub/id_claims.rs`).
    ClaimWaitOver {
        /// The connection that sent the handshake.
        claimant: ConnId,
        /// Which wait.
        timer: u64,
    },
    /// The hub's idle timer for a database checkpoint is over (`hub/mod.rs`).
    CheckpointIdle {
        /// How many messages the hub had handled when it was armed: the hub was idle if it
        /// has handled none since.
        handled: u64,
    },
    /// The automations' scheduler woke up (`hub/automations/runs.rs`).
    AutomationDue {
        /// Which wake-up (only the latest counts).
        timer: u64,
    },
    /// A request to answer.
    Request {
        /// From.
        conn: ConnId,
        /// Request id.
        id: RequestId,
        /// What.
        request: Box<Request>,
    },
    /// A request of an AHP 1.0 client (`hub/v1.rs`).
    RequestV1 {
        /// From.
        conn: ConnId,
        /// Request id.
        id: RequestId,
        /// What.
        request: Box<RequestV1>,
    },
    /// `dispatchAction` of an AHP 1.0 client.
    DispatchV1 {
        /// From.
        conn: ConnId,
        /// The params.
        params: Box<ahp_wasm::protocol::v1::DispatchActionParams>,
    },
    /// `dispatchAction`.
    Dispatch {
        /// From.
        conn: ConnId,
        /// The params.
        params: DispatchActionParams,
    },
    /// `unsubscribe`.
    Unsubscribe {
        /// From.
        conn: ConnId,
        /// The channel.
        channel: String,
    },
    /// Actions produced by the built-in agent for one turn.
    Agent {
        /// Session URI.
        channel: String,
        /// The turn the agent works on.
        turn_id: String,
        /// Server-originated actions, applied in order.
        actions: Vec<StateAction>,
    },
    /// A client tool call's timer fired (see `hub/customizations/client_tools.rs`).
    ClientToolExpired {
        /// Session URI.
        channel: String,
        /// The turn of the call.
        turn_id: String,
        /// The call.
        tool_call_id: String,
        /// Which timer.
        timer: u64,
        /// Deadline or disconnect grace.
        reason: ToolExpiry,
    },
    /// A connection's unlock of the protected agent ran out (`hub/agent_auth.rs`).
    AgentAuthExpired {
        /// The connection.
        conn: ConnId,
        /// Which unlock.
        timer: u64,
    },
    /// An MCP server task reported (see `hub/mcp/`).
    Mcp(crate::mcp::McpEvent),
    /// A message on an `mcp://` channel (see `hub/mcp/channel.rs`).
    McpChannel(Box<ChannelMessage>),
    /// The agent holds a tool call until its MCP server has a new token (`hub/mcp/step_up.rs`).
    McpStepUp(Box<StepUp>),
    /// The wait of such a call is over.
    McpStepUpExpired {
        /// Session URI.
        channel: String,
        /// The call.
        tool_call_id: String,
        /// Which timer.
        timer: u64,
    },
    /// Debounced file-system changes under customization directories (`dir_watch`).
    CustomizationsChanged {
        /// What changed.
        paths: Vec<std::path::PathBuf>,
        /// Changes were lost: read every directory again.
        overflow: bool,
    },
    /// A customization container was read (`hub/customizations/`).
    Customization(Box<CustomizationRead>),
    /// A watcher for `createResourceWatch` started or failed (`hub/watches.rs`).
    WatchOpened(Box<WatchOpened>),
    /// A batch of changes seen by a watch.
    WatchChanged {
        /// The watch channel.
        channel: String,
        /// What changed.
        changes: Vec<ahp_wasm::protocol::ResourceChange>,
    },
    /// Output of a terminal's pty (`crate::terminals`).
    TerminalOutput {
        /// Terminal URI.
        channel: String,
        /// Which terminal at that URI.
        id: u64,
        /// The output, coalesced.
        data: String,
    },
    /// A terminal's process (its shell, or a `/run` command) exited.
    TerminalExited {
        /// Terminal URI.
        channel: String,
        /// Which terminal at that URI.
        id: u64,
        /// Its exit code from `waitpid` (128 + the signal that killed it), when known.
        exit_code: Option<u32>,
    },
    /// Shell integration reported something (`crate::terminals::shell`), in output order.
    TerminalShell {
        /// Terminal URI.
        channel: String,
        /// Which terminal at that URI.
        id: u64,
        /// What.
        event: ShellEvent,
    },
    /// The agent's `/run` (`hub/terminals/run.rs`): start, or give up on (timed out).
    TerminalRun(Box<RunMsg>),
    /// The agent's `/annotate` or `/canvas` (`hub/annotations.rs`, `hub/canvases.rs`).
    Panel(Box<PanelRequest>),
    /// Changeset jobs and file changes (`hub/changesets.rs`).
    Changes(Box<ChangesMsg>),
    /// Stop the hub.
    Shutdown,
}

/// The sending side of the hub's queue.
pub type HubSender = mpsc::Sender<HubMsg>;
