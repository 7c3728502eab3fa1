// Types of the AHP 0.3.0 entry `ahp-wasm/v0.3` (js/node.js, js/web.js over the 0.3.0 module).
// Hand-written but for the sections between `generated` markers (`cargo run -p xtask --
// codegen`); the build script copies it into pkg/v0.3/, its imports of the shared declarations
// then `../`. What does not depend on the protocol version (loading, errors, transports,
// options, the client's version-independent members) is in common.d.ts, the roles and handles
// (active client, terminals, changesets, `McpChannel`) in handles.d.ts, both shared with the
// default entry (AHP 1.0, v1/index.d.ts). The wire types (SessionState, StateAction, ...) and the
// reducer signatures are generated from the Rust types (tsify + wasm-bindgen) into
// ahp_wasm.d.ts.

export * from './common.js';
export * from './handles.js';
import type {
  ChangeInfoOf,
  ClientCore,
  ClientEventOf,
  ClientIdStore,
  ConnectOptionsOf,
  DeepReadonly,
  MultiHostClientCore,
  NotificationEventOf,
  RejectionOf,
  RootParams,
  ServerInfoOf,
  SubscriptionCore,
} from './common.js';
import type {
  ActiveClientHandleCore,
  ActiveClientOptionsOf,
  ChangesetHandleCore,
  ClientHandlesCore,
  ClientPluginOf,
  ClientPluginSource,
  ClientToolOf,
  McpChannelCore,
  TerminalCommandEventOf,
  TerminalHandleCore,
  ToolContextOf,
  ToolReturnOf,
} from './handles.js';

/**
 * The reducers: `action` applied to `state`, a new deeply frozen state (or `state` itself when
 * the action does not apply); the input is never mutated. The result has the type of the
 * input: a `DeepReadonly` state (a subscription's, a reducer's result) stays read-only, and a
 * mutable one keeps the official client's signature (`(state: SessionState, action) =>
 * SessionState`). Throws `InvalidInputError` for a value of the wrong shape.
 */
export declare function rootReducer<S extends DeepReadonly<RootState>>(state: S, action: StateAction): S;
export declare function sessionReducer<S extends DeepReadonly<SessionState>>(state: S, action: StateAction): S;
export declare function terminalReducer<S extends DeepReadonly<TerminalState>>(state: S, action: StateAction): S;
export declare function changesetReducer<S extends DeepReadonly<ChangesetState>>(state: S, action: StateAction): S;
export declare function resourceWatchReducer<S extends DeepReadonly<ResourceWatchState>>(
  state: S,
  action: StateAction,
): S;

// Every wire type: RootState, SessionState, TerminalState, ChangesetState, ResourceWatchState,
// StateAction and everything they reference.
export type * from './ahp_wasm.js';

/** The protocol version this SDK implements: `'0.3.0'`. */
export declare const PROTOCOL_VERSION: string;

/** Every protocol version this SDK speaks, most preferred first. */
export declare const SUPPORTED_PROTOCOL_VERSIONS: string[];

// The protocol's named values under the official names (js/protocol.js; they work before
// `init()`).
// <generated: protocol names> from protocol/ahp-0.3.0-overlay.json: cargo run -p xtask -- codegen
export declare const ActionType: {
  readonly ChangesetCleared: 'changeset/cleared';
  readonly ChangesetFileRemoved: 'changeset/fileRemoved';
  readonly ChangesetFileSet: 'changeset/fileSet';
  readonly ChangesetOperationStatusChanged: 'changeset/operationStatusChanged';
  readonly ChangesetOperationsChanged: 'changeset/operationsChanged';
  readonly ChangesetStatusChanged: 'changeset/statusChanged';
  readonly ResourceWatchChanged: 'resourceWatch/changed';
  readonly RootActiveSessionsChanged: 'root/activeSessionsChanged';
  readonly RootAgentsChanged: 'root/agentsChanged';
  readonly RootConfigChanged: 'root/configChanged';
  readonly RootTerminalsChanged: 'root/terminalsChanged';
  readonly SessionActiveClientChanged: 'session/activeClientChanged';
  readonly SessionActiveClientToolsChanged: 'session/activeClientToolsChanged';
  readonly SessionActivityChanged: 'session/activityChanged';
  readonly SessionAgentChanged: 'session/agentChanged';
  readonly SessionChangesetsChanged: 'session/changesetsChanged';
  readonly SessionConfigChanged: 'session/configChanged';
  readonly SessionCreationFailed: 'session/creationFailed';
  readonly SessionCustomizationRemoved: 'session/customizationRemoved';
  readonly SessionCustomizationToggled: 'session/customizationToggled';
  readonly SessionCustomizationUpdated: 'session/customizationUpdated';
  readonly SessionCustomizationsChanged: 'session/customizationsChanged';
  readonly SessionDelta: 'session/delta';
  readonly SessionError: 'session/error';
  readonly SessionInputAnswerChanged: 'session/inputAnswerChanged';
  readonly SessionInputCompleted: 'session/inputCompleted';
  readonly SessionInputRequested: 'session/inputRequested';
  readonly SessionIsArchivedChanged: 'session/isArchivedChanged';
  readonly SessionIsReadChanged: 'session/isReadChanged';
  readonly SessionMcpServerStateChanged: 'session/mcpServerStateChanged';
  readonly SessionMetaChanged: 'session/metaChanged';
  readonly SessionModelChanged: 'session/modelChanged';
  readonly SessionPendingMessageRemoved: 'session/pendingMessageRemoved';
  readonly SessionPendingMessageSet: 'session/pendingMessageSet';
  readonly SessionQueuedMessagesReordered: 'session/queuedMessagesReordered';
  readonly SessionReady: 'session/ready';
  readonly SessionReasoning: 'session/reasoning';
  readonly SessionResponsePart: 'session/responsePart';
  readonly SessionServerToolsChanged: 'session/serverToolsChanged';
  readonly SessionTitleChanged: 'session/titleChanged';
  readonly SessionToolCallComplete: 'session/toolCallComplete';
  readonly SessionToolCallConfirmed: 'session/toolCallConfirmed';
  readonly SessionToolCallContentChanged: 'session/toolCallContentChanged';
  readonly SessionToolCallDelta: 'session/toolCallDelta';
  readonly SessionToolCallReady: 'session/toolCallReady';
  readonly SessionToolCallResultConfirmed: 'session/toolCallResultConfirmed';
  readonly SessionToolCallStart: 'session/toolCallStart';
  readonly SessionTruncated: 'session/truncated';
  readonly SessionTurnCancelled: 'session/turnCancelled';
  readonly SessionTurnComplete: 'session/turnComplete';
  readonly SessionTurnStarted: 'session/turnStarted';
  readonly SessionUsage: 'session/usage';
  readonly TerminalClaimed: 'terminal/claimed';
  readonly TerminalCleared: 'terminal/cleared';
  readonly TerminalCommandDetectionAvailable: 'terminal/commandDetectionAvailable';
  readonly TerminalCommandExecuted: 'terminal/commandExecuted';
  readonly TerminalCommandFinished: 'terminal/commandFinished';
  readonly TerminalCwdChanged: 'terminal/cwdChanged';
  readonly TerminalData: 'terminal/data';
  readonly TerminalExited: 'terminal/exited';
  readonly TerminalInput: 'terminal/input';
  readonly TerminalResized: 'terminal/resized';
  readonly TerminalTitleChanged: 'terminal/titleChanged';
};
export type ActionType = (typeof ActionType)[keyof typeof ActionType];
export declare const AhpErrorCodes: {
  readonly SessionNotFound: -32001;
  readonly ProviderNotFound: -32002;
  readonly SessionAlreadyExists: -32003;
  readonly TurnInProgress: -32004;
  readonly UnsupportedProtocolVersion: -32005;
  readonly ContentNotFound: -32006;
  readonly AuthRequired: -32007;
  readonly NotFound: -32008;
  readonly PermissionDenied: -32009;
  readonly AlreadyExists: -32010;
};
export type AhpErrorCodes = number;
export declare const AuthRequiredReason: {
  readonly Required: 'required';
  readonly Expired: 'expired';
};
export type AuthRequiredReason = (typeof AuthRequiredReason)[keyof typeof AuthRequiredReason];
export declare const ChangesetOperationScope: {
  readonly Changeset: 'changeset';
  readonly Resource: 'resource';
  readonly Range: 'range';
};
export type ChangesetOperationScope = (typeof ChangesetOperationScope)[keyof typeof ChangesetOperationScope];
export declare const ChangesetOperationStatus: {
  readonly Idle: 'idle';
  readonly Running: 'running';
  readonly Error: 'error';
};
export type ChangesetOperationStatus = (typeof ChangesetOperationStatus)[keyof typeof ChangesetOperationStatus];
export declare const ChangesetStatus: {
  readonly Computing: 'computing';
  readonly Ready: 'ready';
  readonly Error: 'error';
};
export type ChangesetStatus = (typeof ChangesetStatus)[keyof typeof ChangesetStatus];
export declare const CompletionItemKind: {
  readonly UserMessage: 'userMessage';
};
export type CompletionItemKind = (typeof CompletionItemKind)[keyof typeof CompletionItemKind];
export declare const ConfirmationOptionKind: {
  readonly Approve: 'approve';
  readonly Deny: 'deny';
};
export type ConfirmationOptionKind = (typeof ConfirmationOptionKind)[keyof typeof ConfirmationOptionKind];
export declare const ContentEncoding: {
  readonly Base64: 'base64';
  readonly Utf8: 'utf-8';
};
export type ContentEncoding = (typeof ContentEncoding)[keyof typeof ContentEncoding];
export declare const CustomizationLoadStatus: {
  readonly Degraded: 'degraded';
  readonly Error: 'error';
  readonly Loaded: 'loaded';
  readonly Loading: 'loading';
};
export type CustomizationLoadStatus = (typeof CustomizationLoadStatus)[keyof typeof CustomizationLoadStatus];
export declare const CustomizationType: {
  readonly Agent: 'agent';
  readonly Directory: 'directory';
  readonly Hook: 'hook';
  readonly McpServer: 'mcpServer';
  readonly Plugin: 'plugin';
  readonly Prompt: 'prompt';
  readonly Rule: 'rule';
  readonly Skill: 'skill';
};
export type CustomizationType = (typeof CustomizationType)[keyof typeof CustomizationType];
export declare const JsonRpcErrorCodes: {
  readonly ParseError: -32700;
  readonly InvalidRequest: -32600;
  readonly MethodNotFound: -32601;
  readonly InvalidParams: -32602;
  readonly InternalError: -32603;
};
export type JsonRpcErrorCodes = number;
export declare const McpAuthRequiredReason: {
  readonly Required: 'required';
  readonly Expired: 'expired';
  readonly InsufficientScope: 'insufficientScope';
};
export type McpAuthRequiredReason = (typeof McpAuthRequiredReason)[keyof typeof McpAuthRequiredReason];
export declare const McpServerStatus: {
  readonly AuthRequired: 'authRequired';
  readonly Error: 'error';
  readonly Ready: 'ready';
  readonly Starting: 'starting';
  readonly Stopped: 'stopped';
};
export type McpServerStatus = (typeof McpServerStatus)[keyof typeof McpServerStatus];
export declare const MessageAttachmentKind: {
  readonly EmbeddedResource: 'embeddedResource';
  readonly Resource: 'resource';
  readonly Simple: 'simple';
};
export type MessageAttachmentKind = (typeof MessageAttachmentKind)[keyof typeof MessageAttachmentKind];
export declare const PendingMessageKind: {
  readonly Steering: 'steering';
  readonly Queued: 'queued';
};
export type PendingMessageKind = (typeof PendingMessageKind)[keyof typeof PendingMessageKind];
export declare const PolicyState: {
  readonly Enabled: 'enabled';
  readonly Disabled: 'disabled';
  readonly Unconfigured: 'unconfigured';
};
export type PolicyState = (typeof PolicyState)[keyof typeof PolicyState];
export declare const ReconnectResultType: {
  readonly Replay: 'replay';
  readonly Snapshot: 'snapshot';
};
export type ReconnectResultType = (typeof ReconnectResultType)[keyof typeof ReconnectResultType];
export declare const ResourceChangeType: {
  readonly Added: 'added';
  readonly Updated: 'updated';
  readonly Deleted: 'deleted';
};
export type ResourceChangeType = (typeof ResourceChangeType)[keyof typeof ResourceChangeType];
export declare const ResourceType: {
  readonly File: 'file';
  readonly Directory: 'directory';
  readonly Symlink: 'symlink';
};
export type ResourceType = (typeof ResourceType)[keyof typeof ResourceType];
export declare const ResourceWriteMode: {
  readonly Truncate: 'truncate';
  readonly Append: 'append';
  readonly Insert: 'insert';
};
export type ResourceWriteMode = (typeof ResourceWriteMode)[keyof typeof ResourceWriteMode];
export declare const ResponsePartKind: {
  readonly ContentRef: 'contentRef';
  readonly Markdown: 'markdown';
  readonly Reasoning: 'reasoning';
  readonly SystemNotification: 'systemNotification';
  readonly ToolCall: 'toolCall';
};
export type ResponsePartKind = (typeof ResponsePartKind)[keyof typeof ResponsePartKind];
export declare const SessionInputAnswerState: {
  readonly Draft: 'draft';
  readonly Skipped: 'skipped';
  readonly Submitted: 'submitted';
};
export type SessionInputAnswerState = (typeof SessionInputAnswerState)[keyof typeof SessionInputAnswerState];
export declare const SessionInputAnswerValueKind: {
  readonly Boolean: 'boolean';
  readonly Number: 'number';
  readonly Selected: 'selected';
  readonly SelectedMany: 'selected-many';
  readonly Text: 'text';
};
export type SessionInputAnswerValueKind = (typeof SessionInputAnswerValueKind)[keyof typeof SessionInputAnswerValueKind];
export declare const SessionInputQuestionKind: {
  readonly Boolean: 'boolean';
  readonly Integer: 'integer';
  readonly MultiSelect: 'multi-select';
  readonly Number: 'number';
  readonly SingleSelect: 'single-select';
  readonly Text: 'text';
};
export type SessionInputQuestionKind = (typeof SessionInputQuestionKind)[keyof typeof SessionInputQuestionKind];
export declare const SessionInputResponseKind: {
  readonly Accept: 'accept';
  readonly Decline: 'decline';
  readonly Cancel: 'cancel';
};
export type SessionInputResponseKind = (typeof SessionInputResponseKind)[keyof typeof SessionInputResponseKind];
export declare const SessionLifecycle: {
  readonly Creating: 'creating';
  readonly Ready: 'ready';
  readonly CreationFailed: 'creationFailed';
};
export type SessionLifecycle = (typeof SessionLifecycle)[keyof typeof SessionLifecycle];
export declare const SessionStatus: {
  readonly Error: 2;
  readonly Idle: 1;
  readonly InProgress: 8;
  readonly InputNeeded: 24;
  readonly IsArchived: 64;
  readonly IsRead: 32;
};
export type SessionStatus = number;
export declare const TerminalClaimKind: {
  readonly Client: 'client';
  readonly Session: 'session';
};
export type TerminalClaimKind = (typeof TerminalClaimKind)[keyof typeof TerminalClaimKind];
export declare const ToolCallCancellationReason: {
  readonly Denied: 'denied';
  readonly Skipped: 'skipped';
  readonly ResultDenied: 'result-denied';
};
export type ToolCallCancellationReason = (typeof ToolCallCancellationReason)[keyof typeof ToolCallCancellationReason];
export declare const ToolCallConfirmationReason: {
  readonly NotNeeded: 'not-needed';
  readonly UserAction: 'user-action';
  readonly Setting: 'setting';
};
export type ToolCallConfirmationReason = (typeof ToolCallConfirmationReason)[keyof typeof ToolCallConfirmationReason];
export declare const ToolCallContributorKind: {
  readonly Client: 'client';
  readonly MCP: 'mcp';
};
export type ToolCallContributorKind = (typeof ToolCallContributorKind)[keyof typeof ToolCallContributorKind];
export declare const ToolCallStatus: {
  readonly Cancelled: 'cancelled';
  readonly Completed: 'completed';
  readonly PendingConfirmation: 'pending-confirmation';
  readonly PendingResultConfirmation: 'pending-result-confirmation';
  readonly Running: 'running';
  readonly Streaming: 'streaming';
};
export type ToolCallStatus = (typeof ToolCallStatus)[keyof typeof ToolCallStatus];
export declare const ToolResultContentType: {
  readonly EmbeddedResource: 'embeddedResource';
  readonly FileEdit: 'fileEdit';
  readonly Resource: 'resource';
  readonly Subagent: 'subagent';
  readonly Terminal: 'terminal';
  readonly Text: 'text';
};
export type ToolResultContentType = (typeof ToolResultContentType)[keyof typeof ToolResultContentType];
export declare const TurnState: {
  readonly Complete: 'complete';
  readonly Cancelled: 'cancelled';
  readonly Error: 'error';
};
export type TurnState = (typeof TurnState)[keyof typeof TurnState];
declare module './ahp_wasm.js' {
  interface ChangesetClearedAction { type: 'changeset/cleared'; }
  interface ChangesetFileRemovedAction { type: 'changeset/fileRemoved'; }
  interface ChangesetFileSetAction { type: 'changeset/fileSet'; }
  interface ChangesetOperationStatusChangedAction { type: 'changeset/operationStatusChanged'; }
  interface ChangesetOperationsChangedAction { type: 'changeset/operationsChanged'; }
  interface ChangesetStatusChangedAction { type: 'changeset/statusChanged'; }
  interface ResourceWatchChangedAction { type: 'resourceWatch/changed'; }
  interface RootActiveSessionsChangedAction { type: 'root/activeSessionsChanged'; }
  interface RootAgentsChangedAction { type: 'root/agentsChanged'; }
  interface RootConfigChangedAction { type: 'root/configChanged'; }
  interface RootTerminalsChangedAction { type: 'root/terminalsChanged'; }
  interface SessionActiveClientChangedAction { type: 'session/activeClientChanged'; }
  interface SessionActiveClientToolsChangedAction { type: 'session/activeClientToolsChanged'; }
  interface SessionActivityChangedAction { type: 'session/activityChanged'; }
  interface SessionAgentChangedAction { type: 'session/agentChanged'; }
  interface SessionChangesetsChangedAction { type: 'session/changesetsChanged'; }
  interface SessionConfigChangedAction { type: 'session/configChanged'; }
  interface SessionCreationFailedAction { type: 'session/creationFailed'; }
  interface SessionCustomizationRemovedAction { type: 'session/customizationRemoved'; }
  interface SessionCustomizationToggledAction { type: 'session/customizationToggled'; }
  interface SessionCustomizationUpdatedAction { type: 'session/customizationUpdated'; }
  interface SessionCustomizationsChangedAction { type: 'session/customizationsChanged'; }
  interface SessionDeltaAction { type: 'session/delta'; }
  interface SessionErrorAction { type: 'session/error'; }
  interface SessionInputAnswerChangedAction { type: 'session/inputAnswerChanged'; }
  interface SessionInputCompletedAction { type: 'session/inputCompleted'; }
  interface SessionInputRequestedAction { type: 'session/inputRequested'; }
  interface SessionIsArchivedChangedAction { type: 'session/isArchivedChanged'; }
  interface SessionIsReadChangedAction { type: 'session/isReadChanged'; }
  interface SessionMcpServerStateChangedAction { type: 'session/mcpServerStateChanged'; }
  interface SessionMetaChangedAction { type: 'session/metaChanged'; }
  interface SessionModelChangedAction { type: 'session/modelChanged'; }
  interface SessionPendingMessageRemovedAction { type: 'session/pendingMessageRemoved'; }
  interface SessionPendingMessageSetAction { type: 'session/pendingMessageSet'; }
  interface SessionQueuedMessagesReorderedAction { type: 'session/queuedMessagesReordered'; }
  interface SessionReadyAction { type: 'session/ready'; }
  interface SessionReasoningAction { type: 'session/reasoning'; }
  interface SessionResponsePartAction { type: 'session/responsePart'; }
  interface SessionServerToolsChangedAction { type: 'session/serverToolsChanged'; }
  interface SessionTitleChangedAction { type: 'session/titleChanged'; }
  interface SessionToolCallCompleteAction { type: 'session/toolCallComplete'; }
  interface SessionToolCallApprovedAction { type: 'session/toolCallConfirmed'; }
  interface SessionToolCallDeniedAction { type: 'session/toolCallConfirmed'; }
  interface SessionToolCallContentChangedAction { type: 'session/toolCallContentChanged'; }
  interface SessionToolCallDeltaAction { type: 'session/toolCallDelta'; }
  interface SessionToolCallReadyAction { type: 'session/toolCallReady'; }
  interface SessionToolCallResultConfirmedAction { type: 'session/toolCallResultConfirmed'; }
  interface SessionToolCallStartAction { type: 'session/toolCallStart'; }
  interface SessionTruncatedAction { type: 'session/truncated'; }
  interface SessionTurnCancelledAction { type: 'session/turnCancelled'; }
  interface SessionTurnCompleteAction { type: 'session/turnComplete'; }
  interface SessionTurnStartedAction { type: 'session/turnStarted'; }
  interface SessionUsageAction { type: 'session/usage'; }
  interface TerminalClaimedAction { type: 'terminal/claimed'; }
  interface TerminalClearedAction { type: 'terminal/cleared'; }
  interface TerminalCommandDetectionAvailableAction { type: 'terminal/commandDetectionAvailable'; }
  interface TerminalCommandExecutedAction { type: 'terminal/commandExecuted'; }
  interface TerminalCommandFinishedAction { type: 'terminal/commandFinished'; }
  interface TerminalCwdChangedAction { type: 'terminal/cwdChanged'; }
  interface TerminalDataAction { type: 'terminal/data'; }
  interface TerminalExitedAction { type: 'terminal/exited'; }
  interface TerminalInputAction { type: 'terminal/input'; }
  interface TerminalResizedAction { type: 'terminal/resized'; }
  interface TerminalTitleChangedAction { type: 'terminal/titleChanged'; }
}
/** The action types clients may dispatch. */
export type ClientDispatchableActionType =
  | 'root/configChanged'
  | 'session/turnStarted'
  | 'session/turnCancelled'
  | 'session/truncated'
  | 'session/toolCallConfirmed'
  | 'session/toolCallComplete'
  | 'session/toolCallResultConfirmed'
  | 'session/toolCallContentChanged'
  | 'session/titleChanged'
  | 'session/modelChanged'
  | 'session/agentChanged'
  | 'session/isReadChanged'
  | 'session/isArchivedChanged'
  | 'session/configChanged'
  | 'session/activeClientChanged'
  | 'session/activeClientToolsChanged'
  | 'session/pendingMessageSet'
  | 'session/pendingMessageRemoved'
  | 'session/queuedMessagesReordered'
  | 'session/inputAnswerChanged'
  | 'session/inputCompleted'
  | 'session/customizationToggled'
  | 'terminal/input'
  | 'terminal/resized'
  | 'terminal/claimed'
  | 'terminal/titleChanged'
  | 'terminal/cleared'
  ;
/** The actions clients may dispatch. */
export type ClientDispatchableAction = Extract<StateAction, { type: ClientDispatchableActionType }>;
/** Whether clients may dispatch this action (or action type) at all. */
export declare function isClientDispatchable(action: StateAction | string): boolean;
// </generated: protocol names>

// ---------------------------------------------------------------------------------------------
// The client: AhpClient, Subscription, MultiHostClient (src/wasm/client/).
// ---------------------------------------------------------------------------------------------

import type {
  AhpMcpUiHostCapabilities,
  ClientCapabilities,
  ClientPluginCustomization,
  McpServerCustomization,
  SessionActiveClient,
  ToolResultContent,
  StateAction,
  RootState,
  SessionState,
  TerminalState,
  TerminalClaim,
  TerminalCommandPart,
  ChangesetState,
  ResourceWatchState,
  ResourceChange,
  ChangesetFile,
  ChangesetOperation,
  TelemetryCapabilities,
  AgentInfo,
  SessionSummary,
} from './ahp_wasm.js';
// <generated: command types> from src/protocol/command_table.rs: cargo run -p xtask -- codegen
import type {
  PingParams,
  CreateSessionParams,
  DisposeSessionParams,
  ListSessionsParams,
  ListSessionsResult,
  FetchTurnsParams,
  FetchTurnsResult,
  ResourceReadParams,
  ResourceReadResult,
  ResourceWriteParams,
  ResourceWriteResult,
  ResourceListParams,
  ResourceListResult,
  ResourceCopyParams,
  ResourceCopyResult,
  ResourceDeleteParams,
  ResourceDeleteResult,
  ResourceMoveParams,
  ResourceMoveResult,
  ResourceResolveParams,
  ResourceResolveResult,
  ResourceMkdirParams,
  ResourceMkdirResult,
  ResourceRequestParams,
  ResourceRequestResult,
  CreateResourceWatchParams,
  CreateResourceWatchResult,
  AuthenticateParams,
  AuthenticateResult,
  CompletionsParams,
  CompletionsResult,
  ResolveSessionConfigParams,
  ResolveSessionConfigResult,
  SessionConfigCompletionsParams,
  SessionConfigCompletionsResult,
  CreateTerminalParams,
  DisposeTerminalParams,
  InvokeChangesetOperationParams,
  InvokeChangesetOperationResult,
  SessionAddedParams,
  SessionRemovedParams,
  SessionSummaryChangedParams,
  AuthRequiredParams,
  OtlpExportLogsParams,
  OtlpExportTracesParams,
  OtlpExportMetricsParams,
} from './ahp_wasm.js';

/** Each command's wire params and result by method name, for `request<M>()`. */
export interface CommandMap {
  ping: { params: PingParams; result: unknown };
  createSession: { params: CreateSessionParams; result: unknown };
  disposeSession: { params: DisposeSessionParams; result: unknown };
  listSessions: { params: ListSessionsParams; result: ListSessionsResult };
  fetchTurns: { params: FetchTurnsParams; result: FetchTurnsResult };
  resourceRead: { params: ResourceReadParams; result: ResourceReadResult };
  resourceWrite: { params: ResourceWriteParams; result: ResourceWriteResult };
  resourceList: { params: ResourceListParams; result: ResourceListResult };
  resourceCopy: { params: ResourceCopyParams; result: ResourceCopyResult };
  resourceDelete: { params: ResourceDeleteParams; result: ResourceDeleteResult };
  resourceMove: { params: ResourceMoveParams; result: ResourceMoveResult };
  resourceResolve: { params: ResourceResolveParams; result: ResourceResolveResult };
  resourceMkdir: { params: ResourceMkdirParams; result: ResourceMkdirResult };
  resourceRequest: { params: ResourceRequestParams; result: ResourceRequestResult };
  createResourceWatch: { params: CreateResourceWatchParams; result: CreateResourceWatchResult };
  authenticate: { params: AuthenticateParams; result: AuthenticateResult };
  completions: { params: CompletionsParams; result: CompletionsResult };
  resolveSessionConfig: { params: ResolveSessionConfigParams; result: ResolveSessionConfigResult };
  sessionConfigCompletions: { params: SessionConfigCompletionsParams; result: SessionConfigCompletionsResult };
  createTerminal: { params: CreateTerminalParams; result: unknown };
  disposeTerminal: { params: DisposeTerminalParams; result: unknown };
  invokeChangesetOperation: { params: InvokeChangesetOperationParams; result: InvokeChangesetOperationResult };
}

/**
 * The params of each protocol notification by method (`action` aside), for the
 * `'notification'` `ClientEvent`.
 */
export interface NotificationMap {
  'root/sessionAdded': SessionAddedParams;
  'root/sessionRemoved': SessionRemovedParams;
  'root/sessionSummaryChanged': SessionSummaryChangedParams;
  'auth/required': AuthRequiredParams;
  'otlp/exportLogs': OtlpExportLogsParams;
  'otlp/exportTraces': OtlpExportTracesParams;
  'otlp/exportMetrics': OtlpExportMetricsParams;
}
// </generated: command types>

/** The state of any subscribed channel. */
export type ChannelState = RootState | SessionState | TerminalState | ChangesetState | ResourceWatchState;

/** The root channel's URI. */
export type RootUri = `ahp-root:${string}`;
/** A session's channel URI (`ahp-session:/<id>`). */
export type SessionUri = `ahp-session:${string}`;
/** A terminal's channel URI (`ahp-terminal:/<id>`). */
export type TerminalUri = `ahp-terminal:${string}`;
/** A changeset's channel URI (`ahp-changeset:/<id>`). */
export type ChangesetUri = `ahp-changeset:${string}`;
/** A resource watch's channel URI (`ahp-resource-watch:/<id>`). */
export type ResourceWatchUri = `ahp-resource-watch:${string}`;

/**
 * The state of the channel `U` names, by its scheme, as the SDK decodes it: `SessionUri` ->
 * `SessionState`, and so on. A URI typed only `string`, or of another scheme, gives
 * `ChannelState` (any of them): give the variable a URI type (`const uri: SessionUri = ...`)
 * to get the precise one.
 */
export type StateOfUri<U extends string> = string extends U
  ? ChannelState
  : U extends RootUri
    ? RootState
    : U extends SessionUri
      ? SessionState
      : U extends TerminalUri
        ? TerminalState
        : U extends ChangesetUri
          ? ChangesetState
          : U extends ResourceWatchUri
            ? ResourceWatchState
            : ChannelState;

/** AHP 0.3.0's types in the shared declarations (common.d.ts). */
interface Types {
  action: StateAction;
  capabilities: ClientCapabilities;
  telemetry: TelemetryCapabilities;
  notifications: NotificationMap;
  commands: CommandMap;
  resourceChange: ResourceChange;
  agent: AgentInfo;
  sessionSummary: SessionSummary;
  listSessionsParams: ListSessionsParams;
  toolResultContent: ToolResultContent;
  activeClient: SessionActiveClient;
  pluginCustomization: ClientPluginCustomization;
  mcpServerCustomization: McpServerCustomization;
  mcpUiHostCapabilities: AhpMcpUiHostCapabilities;
  terminalState: TerminalState;
  terminalClaim: TerminalClaim;
  terminalCommandPart: TerminalCommandPart;
  createTerminalParams: CreateTerminalParams;
  terminalExit: number;
  changesetState: ChangesetState;
  changesetFile: ChangesetFile;
  changesetOperation: ChangesetOperation;
  invokeChangesetOperationResult: InvokeChangesetOperationResult;
}

export interface ConnectOptions extends ConnectOptionsOf<Types> {}
/** What the server said in the handshake. */
export interface ServerInfo extends ServerInfoOf<Types> {}
/** An own action the server rejected (its optimistic effect is reverted). */
export interface Rejection extends RejectionOf<Types> {}
/** Passed to `Subscription.onChange` listeners with the new state. */
export interface ChangeInfo extends ChangeInfoOf<Types> {}
/**
 * A protocol notification (`root/sessionAdded`, `auth/required`, ...): checking `method`
 * narrows `params` to its type.
 */
export type NotificationEvent = NotificationEventOf<Types>;
/** Everything a client reports besides request results and per-subscription changes. */
export type ClientEvent = ClientEventOf<Types>;

/**
 * A connection to one agent host. Keeps itself alive while open (like a WebSocket): call
 * `close()` when done.
 */
export interface AhpClient
  extends ClientCore<Types>,
    ClientHandlesCore<Types, ActiveClientHandle, TerminalHandle, ChangesetHandle> {}

export declare class AhpClient {
  private constructor();
  /**
   * Opens the connection and performs `initialize`; rejects with a typed error if that fails.
   * Loads the WebAssembly module first if `init()` has not (a failed load rejects with an
   * `AhpError` of kind `'wasmLoad'`; the next call tries again).
   */
  static connect(url: string, options?: ConnectOptions): Promise<AhpClient>;
  /**
   * Subscribes (or returns the live subscription) to a channel. The state type follows the
   * URI's scheme (`StateOfUri`): `subscribe('ahp-session:/1')` is a `Subscription<SessionState>`.
   * The type argument, when given, is the URI's type, never a state: `subscribe<SessionState>(uri)`
   * does not compile, so a state cannot be claimed for the wrong channel.
   */
  subscribe<U extends string>(uri: U): Promise<Subscription<StateOfUri<U>>>;
  /** The live subscription of `uri`, if any (typed like `subscribe`). */
  subscription<U extends string>(uri: U): Subscription<StateOfUri<U>> | undefined;
  /** Applies `action` optimistically, sends `dispatchAction`; returns its `clientSeq`. Throws NotSubscribedError / ClientClosedError / InvalidInputError. */
  dispatch(uri: string, action: ClientDispatchableAction): number;
  // <generated: command methods> from src/protocol/command_table.rs: cargo run -p xtask -- codegen
  /** Liveness check: resolves when the server answers. */
  ping(): Promise<void>;
  /** Create a session at a client-chosen URI. */
  createSession(params: CreateSessionParams): Promise<void>;
  /** Dispose a session. */
  disposeSession(params: DisposeSessionParams): Promise<void>;
  /** List session summaries. */
  listSessions(params?: RootParams<ListSessionsParams>): Promise<ListSessionsResult>;
  /** Page through a session's completed turns. */
  fetchTurns(params: FetchTurnsParams): Promise<FetchTurnsResult>;
  /** Read a resource. */
  resourceRead(params: RootParams<ResourceReadParams>): Promise<ResourceReadResult>;
  /** Write a resource. */
  resourceWrite(params: RootParams<ResourceWriteParams>): Promise<ResourceWriteResult>;
  /** List a directory. */
  resourceList(params: RootParams<ResourceListParams>): Promise<ResourceListResult>;
  /** Copy a resource. */
  resourceCopy(params: RootParams<ResourceCopyParams>): Promise<ResourceCopyResult>;
  /** Delete a resource. */
  resourceDelete(params: RootParams<ResourceDeleteParams>): Promise<ResourceDeleteResult>;
  /** Move a resource. */
  resourceMove(params: RootParams<ResourceMoveParams>): Promise<ResourceMoveResult>;
  /** `stat` + `realpath`. */
  resourceResolve(params: RootParams<ResourceResolveParams>): Promise<ResourceResolveResult>;
  /** `mkdir -p`. */
  resourceMkdir(params: RootParams<ResourceMkdirParams>): Promise<ResourceMkdirResult>;
  /** Ask the peer for access to resources (either direction). */
  resourceRequest(params: RootParams<ResourceRequestParams>): Promise<ResourceRequestResult>;
  /** Open a file watcher; returns its channel (subscribe to it). */
  createResourceWatch(params: RootParams<CreateResourceWatchParams>): Promise<CreateResourceWatchResult>;
  /** Push a bearer token for a protected resource. */
  authenticate(params: RootParams<AuthenticateParams>): Promise<AuthenticateResult>;
  /** Input completions (e.g. `@` mentions). */
  completions(params: CompletionsParams): Promise<CompletionsResult>;
  /** Resolve a session config before creating the session. */
  resolveSessionConfig(params: RootParams<ResolveSessionConfigParams>): Promise<ResolveSessionConfigResult>;
  /** Complete dynamic fields of a pre-creation session config. */
  sessionConfigCompletions(params: RootParams<SessionConfigCompletionsParams>): Promise<SessionConfigCompletionsResult>;
  /** Create a terminal. */
  createTerminal(params: CreateTerminalParams): Promise<void>;
  /** Dispose a terminal. */
  disposeTerminal(params: DisposeTerminalParams): Promise<void>;
  /** Run a changeset operation. */
  invokeChangesetOperation(params: InvokeChangesetOperationParams): Promise<InvokeChangesetOperationResult>;
  // </generated: command methods>
}

/** A live mirror of one channel (one object per channel and client). */
export interface Subscription<S = ChannelState> extends SubscriptionCore<Types, S, ClientDispatchableAction> {}
export declare class Subscription<S = ChannelState> {
  private constructor();
}

/** Several hosts at once, each with its own connection and reconnect; events fanned in. */
export interface MultiHostClient extends MultiHostClientCore<Types, AhpClient, ConnectOptions> {}
export declare class MultiHostClient {
  /**
   * `clientIds`: each host's client id is read from it on `addHost` (unless `options.clientId`
   * is given) and written back once connected, so a host sees the same client after a reload.
   */
  constructor(options?: { clientIds?: ClientIdStore });
}

// The roles and handles (handles.d.ts) with AHP 0.3.0's types.

/** What a client tool's `execute` gets besides its input. */
export interface ToolContext extends ToolContextOf<Types> {}
/** What `execute` may return: text, content blocks, or a result with structured content. */
export type ToolReturn = ToolReturnOf<Types>;
/**
 * A tool this client lends the agent. `inputSchema` (JSON Schema) is published and checked
 * before `execute` runs: an input that does not match, a thrown error or a rejected promise
 * completes the call with `success: false` and the message.
 */
export interface ClientTool<I = any> extends ClientToolOf<Types, I> {}
/** A plugin of in-memory files, from `buildClientPlugin`. */
export interface ClientPlugin extends ClientPluginOf<Types> {}
export interface ActiveClientOptions extends ActiveClientOptionsOf<Types> {}

/** The active-client role of one session, from `AhpClient.setActiveClient`. */
export interface ActiveClientHandle extends ActiveClientHandleCore<Types, AhpClient> {}
export declare class ActiveClientHandle {
  private constructor();
}

/** A shell-integration command event of `TerminalHandle.onCommand`. */
export interface TerminalCommandEvent extends TerminalCommandEventOf<Types> {}

/** One changeset (`AhpClient.changeset(uri)` / `sessionChangeset(session)`), over its subscription. */
export interface ChangesetHandle extends ChangesetHandleCore<Types, AhpClient, Subscription<ChangesetState>> {}
export declare class ChangesetHandle {
  private constructor();
}

/** One terminal (`AhpClient.terminal(uri)` / `openTerminal(params)`), over its subscription. */
export interface TerminalHandle extends TerminalHandleCore<Types, AhpClient, Subscription<TerminalState>> {}
export declare class TerminalHandle {
  private constructor();
}

/**
 * A plugin from in-memory files (Open Plugins layout with YAML frontmatter, e.g.
 * `skills/review/SKILL.md`), published under `virtual://<clientId>/<id>/` with a content-hash
 * `nonce`. Pass it to `setActiveClient({ plugins })`.
 */
export declare function buildClientPlugin(client: AhpClient, plugin: ClientPluginSource): ClientPlugin;

/** MCP JSON-RPC over the `mcp://` channel of a session's MCP server customization (see `McpChannelCore`). */
export interface McpChannel extends McpChannelCore<Types, AhpClient> {}
export declare class McpChannel {
  private constructor();
  /** Opens the channel of customization `customizationId` of `session` (subscribing to the session if needed). */
  static open(client: AhpClient, session: string, customizationId: string, options?: { timeoutMs?: number }): Promise<McpChannel>;
}
