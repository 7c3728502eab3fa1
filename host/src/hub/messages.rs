//! What the hub is sent: [`HubMsg`] from connections, agent tasks, terminals, watchers and
//! timers, and the [`Request`]s of clients it answers.

use super::*;

/// A request the hub answers.
#[derive(Debug)]
pub enum Request {
    /// `initialize`, with the `clientSecret` it presented (see `identity.rs`).
    Initialize(InitializeParams, Option<String>),
    /// `reconnect`, with the `clientSecret` it presented.
    Reconnect(ReconnectParams, Option<String>),
    /// `subscribe`.
    Subscribe(SubscribeParams),
    /// `createSession`.
    CreateSession(Box<CreateSessionParams>),
    /// `disposeSession`.
    DisposeSession(DisposeSessionParams),
    /// `listSessions`, with its checked filter.
    ListSessions(SessionFilter),
    /// `fetchTurns`.
    FetchTurns(FetchTurnsParams),
    /// `authenticate` (a token for an MCP server's resource).
    Authenticate(Authenticate),
    /// `resolveSessionConfig`.
    ResolveSessionConfig(ahp_wasm::protocol::ResolveSessionConfigParams),
    /// `sessionConfigCompletions`.
    SessionConfigCompletions(ahp_wasm::protocol::SessionConfigCompletionsParams),
    /// `completions`.
    Completions(ahp_wasm::protocol::CompletionsParams),
    /// `createResourceWatch`.
    CreateResourceWatch(Box<ahp_wasm::protocol::CreateResourceWatchParams>),
    /// `createTerminal`.
    CreateTerminal(Box<ahp_wasm::protocol::CreateTerminalParams>),
    /// `disposeTerminal`.
    DisposeTerminal(ahp_wasm::protocol::DisposeTerminalParams),
    /// `invokeChangesetOperation`.
    InvokeChangesetOperation(ahp_wasm::protocol::InvokeChangesetOperationParams),
}

/// A message to the hub.
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
    /// A connection answered the ping the hub asked for (`id_claims.rs`).
    Pong {
        /// Its id.
        conn: ConnId,
    },
    /// A handshake's wait for the connection holding its `clientId` is over (`id_claims.rs`).
    ClaimWaitOver {
        /// The connection that sent the handshake.
        claimant: ConnId,
        /// Which wait.
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
    /// A client tool call's timer fired (see `customizations/client_tools.rs`).
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
    /// A connection's unlock of the protected agent ran out (`agent_auth.rs`).
    AgentAuthExpired {
        /// The connection.
        conn: ConnId,
        /// Which unlock.
        timer: u64,
    },
    /// An MCP server task reported (see `mcp/`).
    Mcp(crate::mcp::McpEvent),
    /// A message on an `mcp://` channel (see `mcp/channel.rs`).
    McpChannel(Box<ChannelMessage>),
    /// The agent holds a tool call until its MCP server has a new token (`mcp/step_up.rs`).
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
    /// Debounced file-system changes under customization directories (`customize::watch`).
    CustomizationsChanged {
        /// What changed.
        paths: Vec<std::path::PathBuf>,
        /// Changes were lost: read every directory again.
        overflow: bool,
    },
    /// A customization container was read (`customizations/`).
    Customization(Box<customizations::Read>),
    /// A watcher for `createResourceWatch` started or failed (`watches.rs`).
    WatchOpened(Box<watches::WatchOpened>),
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
        event: crate::terminals::shell::ShellEvent,
    },
    /// The agent's `/run` (`terminals/run.rs`): start, or give up on (timed out).
    TerminalRun(Box<RunMsg>),
    /// Changeset jobs and file changes (`changesets.rs`).
    Changes(Box<ChangesMsg>),
    /// Stop the hub.
    Shutdown,
}

/// The sending side of the hub's queue.
pub type HubSender = mpsc::Sender<HubMsg>;
