//! The table of AHP 1.0.0 request methods: every command once, in the row format of the 0.3.0
//! table (`protocol/command_table.rs`), so the same consumers expand it: the 1.0
//! [`Command`](crate::protocol::jsonrpc::Command) markers, `REQUEST_METHODS` and `COMMANDS`
//! (`v1/jsonrpc.rs`) and the native client's 1.0 methods (`client/native/commands_v1.rs`).
//!
//! The methods are the official 1.0.0 definition's: its command params types, less the two
//! client notifications (`unsubscribe`, `dispatchAction`), plus `ping`, which it sends without
//! naming a params type; a test checks the table against the official sources. 1.0 has no
//! commands to create, update or remove automations (those are the `automation/*Requested`
//! actions), and none for canvases or annotations (channels only).
//!
//! Types are `protocol::v1`'s; `PingParams` is 0.3.0's (the same `{channel}`), `void` is an
//! empty result as in 0.3.0. The automation commands take the channel the caller names
//! (`params`): the definition does not say it is the root channel.
//!
//! Like the 0.3.0 table this file refers to nothing else, so the xtask can compile it on its
//! own (the wasm package's 1.0 TypeScript will come from here).

/// Calls `$callback! { rows }` (or `$callback! { [args] rows }`) with the 1.0 table; the rows
/// are the 0.3.0 table's format (see `for_each_command!`).
macro_rules! for_each_command_v1 {
    ($callback:ident $([$($args:tt)*])?) => {
        $callback! {
            $([$($args)*])?
            handshake Initialize = "initialize" => initialize(InitializeParams) -> InitializeResult, "Handshake with version negotiation.";
            handshake Reconnect = "reconnect" => reconnect(ReconnectParams) -> ReconnectResult, "Resume after a dropped transport.";
            no_params Ping = "ping" => ping(PingParams) -> void, "Liveness check: resolves when the server answers.";
            handshake Subscribe = "subscribe" => subscribe(SubscribeParams) -> SubscribeResult, "Subscribe to a channel, returning its snapshot.";
            params CreateSession = "createSession" => create_session(CreateSessionParams) -> void, "Create a session at a client-chosen URI.";
            params DisposeSession = "disposeSession" => dispose_session(DisposeSessionParams) -> void, "Dispose a session.";
            params CreateChat = "createChat" => create_chat(CreateChatParams) -> void, "Create a chat in a session (the channel), at a client-chosen chat URI.";
            params DisposeChat = "disposeChat" => dispose_chat(DisposeChatParams) -> void, "Dispose a chat (the channel).";
            params MoveChat = "moveChat" => move_chat(MoveChatParams) -> MoveChatResult, "Move a chat (the channel) within or between sessions; returns its owning session.";
            optional_root_params ListSessions = "listSessions" => list_sessions(ListSessionsParams) -> ListSessionsResult, "List session summaries.";
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
            params FetchTurns = "fetchTurns" => fetch_turns(FetchTurnsParams) -> FetchTurnsResult, "Load a chat's older turns into its state (`chat/turnsLoaded`); the result carries none.";
            root_params Authenticate = "authenticate" => authenticate(AuthenticateParams) -> AuthenticateResult, "Push a bearer token for a protected resource.";
            params CreateTerminal = "createTerminal" => create_terminal(CreateTerminalParams) -> void, "Create a terminal.";
            params DisposeTerminal = "disposeTerminal" => dispose_terminal(DisposeTerminalParams) -> void, "Dispose a terminal.";
            root_params ResolveSessionConfig = "resolveSessionConfig" => resolve_session_config(ResolveSessionConfigParams) -> ResolveSessionConfigResult, "Resolve a session config before creating the session.";
            root_params SessionConfigCompletions = "sessionConfigCompletions" => session_config_completions(SessionConfigCompletionsParams) -> SessionConfigCompletionsResult, "Complete dynamic fields of a pre-creation session config.";
            params Completions = "completions" => completions(CompletionsParams) -> CompletionsResult, "Input completions (e.g. `@` mentions).";
            params InvokeChangesetOperation = "invokeChangesetOperation" => invoke_changeset_operation(InvokeChangesetOperationParams) -> InvokeChangesetOperationResult, "Run a changeset operation.";
            params ListAutomationTriggerDefinitions = "listAutomationTriggerDefinitions" => list_automation_trigger_definitions(ListAutomationTriggerDefinitionsParams) -> ListAutomationTriggerDefinitionsResult, "The event-trigger types available for a prospective automation's session template.";
            params RunAutomation = "runAutomation" => run_automation(RunAutomationParams) -> RunAutomationResult, "Start a manual run of an automation (idempotent per `requestId`); returns the run's channel.";
            params FetchAutomationRuns = "fetchAutomationRuns" => fetch_automation_runs(FetchAutomationRunsParams) -> FetchAutomationRunsResult, "Load an older page of an automation's runs (delivered by `automation/set`).";
        }
    };
}
pub(crate) use for_each_command_v1;
