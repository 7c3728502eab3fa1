//! The table of AHP request methods: every command once, with everything its consumers need.
//!
//! [`for_each_command!`] hands the table to a callback macro. It expands into the
//! [`Command`](super::jsonrpc::Command) marker types and
//! [`REQUEST_METHODS`](super::jsonrpc::REQUEST_METHODS) (`jsonrpc.rs`), the native client's
//! methods (`client/native/commands.rs`), the wasm client's methods (`wasm/client/commands.rs`),
//! and [`COMMANDS`], from which `cargo run -p xtask -- codegen` writes the methods' TypeScript
//! signatures into `js/index.d.ts`. Adding a command is one row here (then run the codegen).
//!
//! AHP 1.0's table (`v1/command_table.rs`, `for_each_command_v1!`) has the same row format, so
//! the same consumers expand it: the consumers take the table as an argument, and a consumer
//! that needs more than the rows (where to put the methods, which markers they call) gets it
//! as a bracketed prefix (`for_each_command!(native_methods [AhpClient, rpc])`).
//!
//! The xtask compiles this file on its own, so it refers to nothing else in the crate.

/// How a client calls a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandCall {
    /// `handshake`: sent by the client itself (`initialize`, `reconnect`, `subscribe`); no
    /// command method.
    Handshake,
    /// `params`: a method taking the params.
    Params,
    /// `root_params`: a method taking params whose `channel` is the root channel; filled in
    /// when absent (JavaScript).
    RootParams,
    /// `optional_root_params`: like `root_params`, and the params may be left out.
    OptionalRootParams,
    /// `no_params`: a method without arguments (the params are only the root channel).
    NoParams,
}

impl CommandCall {
    /// Whether the params are addressed to the root channel (filled in when absent).
    pub const fn fills_root(self) -> bool {
        matches!(
            self,
            CommandCall::RootParams | CommandCall::OptionalRootParams | CommandCall::NoParams
        )
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandInfo {
    /// The marker type in `protocol::jsonrpc` (`"CreateSession"`).
    pub marker: &'static str,
    /// The JSON-RPC method (`"createSession"`), also the JavaScript method name.
    pub method: &'static str,
    /// The native client's method (`"create_session"`).
    pub rust_name: &'static str,
    /// The params type (`"CreateSessionParams"`).
    pub params: &'static str,
    /// The result type, or `"void"`: an empty result (`EmptyResult` on the wire) that the
    /// methods resolve to nothing.
    pub result: &'static str,
    /// How a client calls it.
    pub call: CommandCall,
    /// One sentence.
    pub doc: &'static str,
}

/// Calls `$callback! { rows }` with the table. One row per command:
///
/// ```text
/// call Marker = "wireMethod" => rust_method(ParamsType) -> ResultType, "Doc.";
/// ```
///
/// `call` is a [`CommandCall`] in snake case; `ResultType` is `void` for an empty result. The
/// order is the wire table's (`REQUEST_METHODS`). `for_each_command!(callback [args])` hands
/// the callback `[args]` before the rows.
macro_rules! for_each_command {
    ($callback:ident $([$($args:tt)*])?) => {
        $callback! {
            $([$($args)*])?
            handshake Initialize = "initialize" => initialize(InitializeParams) -> InitializeResult, "Handshake with version negotiation.";
            handshake Reconnect = "reconnect" => reconnect(ReconnectParams) -> ReconnectResult, "Resume after a dropped transport.";
            no_params Ping = "ping" => ping(PingParams) -> void, "Liveness check: resolves when the server answers.";
            handshake Subscribe = "subscribe" => subscribe(SubscribeParams) -> SubscribeResult, "Subscribe to a channel, returning its snapshot.";
            params CreateSession = "createSession" => create_session(CreateSessionParams) -> void, "Create a session at a client-chosen URI.";
            params DisposeSession = "disposeSession" => dispose_session(DisposeSessionParams) -> void, "Dispose a session.";
            optional_root_params ListSessions = "listSessions" => list_sessions(ListSessionsParams) -> ListSessionsResult, "List session summaries.";
            params FetchTurns = "fetchTurns" => fetch_turns(FetchTurnsParams) -> FetchTurnsResult, "Page through a session's completed turns.";
            root_params ResourceRead = "resourceRead" => resource_read(ResourceReadParams) -> ResourceReadResult, "Read a resource.";
            root_params ResourceWrite = "resourceWrite" => resource_write(ResourceWriteParams) -> ResourceWriteResult, "Write a resource.";
            root_params ResourceList = "resourceList" => resource_list(ResourceListParams) -> ResourceListResult, "List a directory.";
            root_params ResourceCopy = "resourceCopy" => resource_copy(ResourceCopyParams) -> ResourceCopyResult, "Copy a resource.";
            root_params ResourceDelete = "resourceDelete" => resource_delete(ResourceDeleteParams) -> ResourceDeleteResult, "Delete a resource.";
            root_params ResourceMove = "resourceMove" => resource_move(ResourceMoveParams) -> ResourceMoveResult, "Move a resource.";
            root_params ResourceResolve = "resourceResolve" => resource_resolve(ResourceResolveParams) -> ResourceResolveResult, "`stat` + `realpath`.";
            root_params ResourceMkdir = "resourceMkdir" => resource_mkdir(ResourceMkdirParams) -> ResourceMkdirResult, "`mkdir -p`.";
            root_params ResourceRequest = "resourceRequest" => resource_request(ResourceRequestParams) -> ResourceRequestResult, "Ask the peer for access to resources (either direction).";
            root_params CreateResourceWatch = "createResourceWatch" => create_resource_watch(CreateResourceWatchParams) -> CreateResourceWatchResult, "Open a file watcher; returns its channel (subscribe to it).";
            root_params Authenticate = "authenticate" => authenticate(AuthenticateParams) -> AuthenticateResult, "Push a bearer token for a protected resource.";
            params Completions = "completions" => completions(CompletionsParams) -> CompletionsResult, "Input completions (e.g. `@` mentions).";
            root_params ResolveSessionConfig = "resolveSessionConfig" => resolve_session_config(ResolveSessionConfigParams) -> ResolveSessionConfigResult, "Resolve a session config before creating the session.";
            root_params SessionConfigCompletions = "sessionConfigCompletions" => session_config_completions(SessionConfigCompletionsParams) -> SessionConfigCompletionsResult, "Complete dynamic fields of a pre-creation session config.";
            params CreateTerminal = "createTerminal" => create_terminal(CreateTerminalParams) -> void, "Create a terminal.";
            params DisposeTerminal = "disposeTerminal" => dispose_terminal(DisposeTerminalParams) -> void, "Dispose a terminal.";
            params InvokeChangesetOperation = "invokeChangesetOperation" => invoke_changeset_operation(InvokeChangesetOperationParams) -> InvokeChangesetOperationResult, "Run a changeset operation.";
        }
    };
}
pub(crate) use for_each_command;

/// The [`CommandCall`] of a row's `call` word.
macro_rules! command_call {
    (handshake) => {
        CommandCall::Handshake
    };
    (params) => {
        CommandCall::Params
    };
    (root_params) => {
        CommandCall::RootParams
    };
    (optional_root_params) => {
        CommandCall::OptionalRootParams
    };
    (no_params) => {
        CommandCall::NoParams
    };
}
// The wasm client passes the `CommandCall` of each row; the 1.0 table's `COMMANDS` too.
pub(crate) use command_call;

/// `COMMANDS`: the table's rows as [`CommandInfo`]s (where [`CommandInfo`] and
/// [`CommandCall`] are in scope).
macro_rules! command_infos {
    ($($call:ident $marker:ident = $method:literal => $rust_name:ident($params:ident) -> $result:ident, $doc:literal;)*) => {
        /// Every request method of the table, in its order.
        pub const COMMANDS: &[CommandInfo] = &[$(CommandInfo {
            marker: stringify!($marker),
            method: $method,
            rust_name: stringify!($rust_name),
            params: stringify!($params),
            result: stringify!($result),
            call: command_call!($call),
            doc: $doc,
        }),*];
    };
}

pub(crate) use command_infos;

for_each_command!(command_infos);
