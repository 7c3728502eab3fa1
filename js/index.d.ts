// Types of the package entry (js/node.js, js/web.js). Hand-written but for the sections between
// `generated` markers (`cargo run -p xtask -- codegen`); the build script copies it into pkg/.
// The wire types (SessionState, StateAction, ...) and the reducer signatures are generated from
// the Rust types (tsify + wasm-bindgen) into ahp_wasm.d.ts. The error classes must match
// src/client/error_classes.rs (`codegen --check` checks them).

/**
 * `T` as the SDK hands it out: deeply frozen at runtime, so read-only at every level. A mutable
 * `T` is assignable to it; the other way round needs a copy (`structuredClone`).
 */
export type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

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

/**
 * Where `init()` finds the WebAssembly module: its URL (a `string` is resolved like `fetch`
 * does), a `Request`, a `Response` (or a promise of one; streaming compilation when it is
 * served as `application/wasm`), its bytes, or an already compiled `WebAssembly.Module`.
 */
export type WasmSource =
  | string
  | URL
  | Request
  | Response
  | PromiseLike<Response>
  | BufferSource
  | WebAssembly.Module;

export interface InitOptions {
  /** Default: `ahp_wasm_bg.wasm` beside the package's entry (`new URL(..., import.meta.url)`). */
  wasm?: WasmSource;
}

/**
 * Loads the WebAssembly module. `AhpClient.connect` calls it itself (sharing the load with any
 * `init()` already running). The synchronous entry points cannot wait for it: the reducers and
 * `new MultiHostClient()` throw an `AhpError` of kind `'notInitialized'` until it has resolved.
 * The error classes and the version constants work before it.
 *
 * Idempotent: every call returns the same promise (later `options` are ignored), until a call
 * fails: that promise rejects with an `AhpError` of kind `'wasmLoad'` and the next call retries.
 * In Node (the `node` export condition) the module is loaded synchronously on import and `init()`
 * resolves at once.
 */
export declare function init(options?: InitOptions): Promise<void>;

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
/** The actions clients may dispatch (what `dispatch` accepts). */
export type ClientDispatchableAction = Extract<StateAction, { type: ClientDispatchableActionType }>;
/** Whether clients may dispatch this action (or action type) at all. */
export declare function isClientDispatchable(action: StateAction | string): boolean;
// </generated: protocol names>

/** Base class of every error the SDK throws. */
export declare class AhpError extends Error {
  constructor(message: string, options?: { kind?: string; code?: number; cause?: unknown });
  /**
   * Stable machine-readable category, e.g. `'invalid-input'`, `'internal'`; `'notInitialized'`
   * (called before `init()` resolved) and `'wasmLoad'` (`init()` failed) on a plain `AhpError`.
   */
  readonly kind: string;
  /** JSON-RPC / AHP error code when one applies. */
  readonly code: number | undefined;
}

/**
 * A value passed to the SDK does not have the shape the protocol requires (wrong type,
 * missing field, unknown enum value, nested too deep, too large). The message names the
 * argument and the field path.
 */
export declare class InvalidInputError extends AhpError {
  constructor(message: string, argument: string, path: string);
  readonly kind: 'invalid-input';
  /** JSON-RPC `InvalidParams`. */
  readonly code: -32602;
  /** Which argument was wrong: `'state'`, `'action'`, `'uri'`, `'params'`, `'options'`, `'listener'`, ... */
  readonly argument: string;
  /** The offending field, e.g. `'activeTurn.responseParts[0].kind'`; `''` for the value itself. */
  readonly path: string;
}

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

/**
 * Params of the commands addressed to the root channel: `channel` is always `'ahp-root://'`
 * and may be left out (the client fills it in).
 */
export type RootParams<T extends { channel: string }> = Omit<T, 'channel'> & { channel?: 'ahp-root://' };

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

/** The connection as an app shows it. */
export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** Exponential backoff after a dropped connection. Defaults: 250 ms doubling up to 30 s, forever. */
export interface ReconnectOptions {
  initialDelayMs?: number;
  maxDelayMs?: number;
  multiplier?: number;
  /** Attempts before giving up (the client then closes). Default: never give up. */
  maxAttempts?: number;
}

/** Callbacks the SDK gives a custom transport. */
export interface TransportCallbacks {
  /** The connection is open (the SDK then sends `initialize` or `reconnect`). */
  open(): void;
  /** One incoming text frame. */
  message(frame: string): void;
  /** Several frames that arrived together: one change notification per channel for all. */
  messages(frames: string[]): void;
  /**
   * The connection closed or failed (the SDK reconnects per its policy). Before `open()`: the
   * connection attempt failed. Calls after this one are ignored.
   */
  close(reason: string): void;
}

/**
 * A connection opened by a custom transport. `send` may throw (the connection is then treated
 * as lost); it may also deliver answers synchronously through the callbacks.
 */
export interface Transport {
  send(frame: string): void;
  close(): void;
}

/** Opens a connection to `url` (the URL with the `tkn` parameter added). Default: the browser WebSocket. */
export type TransportFactory = (url: string, callbacks: TransportCallbacks) => Transport;

/** The server end of an in-memory pair: text frames to and from the client. */
export interface InMemoryServerEnd {
  /** Whether a client connection is open. */
  readonly connected: boolean;
  /** Sends one text frame to the client (ignored when no connection is open). */
  send(frame: string): void;
  /** Closes the client's connection (it reconnects per its policy, through the factory again). */
  close(reason?: string): void;
  /** Listens to the client's frames; returns the remover. */
  onMessage(listener: (frame: string) => void): () => void;
  /** Listens to new connections (each connection attempt, reconnections too); returns the remover. */
  onConnect(listener: (url: string) => void): () => void;
  /** Listens to the client closing its connection; returns the remover. */
  onClose(listener: () => void): () => void;
}

/**
 * In-memory connections, for tests and for a host in the same page or process. Frames cross
 * asynchronously (a microtask) and in order, as over a socket; one connection at a time.
 *
 * ```ts
 * const { client: transport, server } = InMemoryTransport.pair();
 * server.onMessage((frame) => answer(JSON.parse(frame)));
 * const client = await AhpClient.connect('memory://host', { transport });
 * ```
 */
export declare class InMemoryTransport {
  private constructor();
  /** A connected pair: `client` goes into `ConnectOptions.transport`; `server` is the other end. */
  static pair(): { client: TransportFactory; server: InMemoryServerEnd };
}

export interface ConnectOptions {
  /** This client's id (`origin.clientId` of its echoes); generated when absent. Kept across reconnects. */
  clientId?: string;
  /**
   * The secret the host bound `clientId` to (read `client.clientSecret` after connecting).
   * Only needed to resume a stored `clientId` after the app restarts: within one `AhpClient`
   * it is kept across reconnects automatically. A host refuses a bound id without it.
   */
  clientSecret?: string;
  /** Access token, appended to the URL as the `tkn` query parameter. */
  token?: string;
  /** Channels subscribed to in `initialize` (default `['ahp-root://']`). */
  initialSubscriptions?: string[];
  /** Offered protocol versions, most preferred first (default SUPPORTED_PROTOCOL_VERSIONS). */
  protocolVersions?: string[];
  capabilities?: ClientCapabilities;
  locale?: string;
  /**
   * Per-request timeout (default 30 000 ms). It bounds each connection attempt too: opening
   * the connection plus `initialize` (or `reconnect`).
   */
  requestTimeoutMs?: number;
  /** Ping after this long without traffic; an unanswered ping reconnects. Default 30 000; 0 = off. */
  keepaliveMs?: number;
  /** Reconnection policy; `false`: never reconnect. */
  reconnect?: ReconnectOptions | false;
  /**
   * Own actions a dropped connection may have carried: `'resendUnseen'` (default: resend those
   * the server's replay proves unseen, drop and report the rest) or `'dropInFlight'`.
   */
  pendingPolicy?: 'resendUnseen' | 'dropInFlight';
  /** Opens connections (default: the browser/Node `WebSocket`). */
  transport?: TransportFactory;
  /**
   * The WebSocket constructor to connect with, where there is no global one (Node 20 without
   * `--experimental-websocket`): e.g. `import WebSocket from 'ws'`. Not together with `transport`.
   */
  WebSocket?: WebSocketConstructorLike;
}

/** A WHATWG-style WebSocket constructor: the global one, or the `ws` package's. */
export type WebSocketConstructorLike = new (url: string) => {
  onopen: ((event: any) => void) | null;
  onmessage: ((event: any) => void) | null;
  onerror: ((event: any) => void) | null;
  onclose: ((event: any) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
};

/** A `TransportFactory` over a WebSocket constructor (what the `WebSocket` option uses). */
export declare function webSocketTransport(WebSocket: WebSocketConstructorLike): TransportFactory;

/** What the server said in the handshake. */
export interface ServerInfo {
  protocolVersion: string;
  serverSeq: number;
  defaultDirectory?: string;
  completionTriggerCharacters?: string[];
  /** The host's OTLP telemetry channels, when it has any. */
  telemetry?: TelemetryCapabilities;
  /**
   * The largest frame the host reads, when it says (`ahp-host` does: an extension). A larger
   * request is not sent: it rejects with a `TransportError` (`transportKind` `'send'`).
   */
  maxFrameBytes?: number;
}

/** An own action the server rejected (its optimistic effect is reverted). */
export interface Rejection {
  clientSeq: number;
  action: StateAction;
  reason: string;
}

/** Why own pending actions were dropped without an echo. */
export type DropReason = 'skipped' | 'reconnectSnapshot' | 'inFlightOnReconnect' | 'channelLost' | 'unsubscribed';

/** Passed to `Subscription.onChange` listeners with the new state. */
export interface ChangeInfo {
  /** Top-level fields of `state` that may differ from the previous notification. */
  changed: string[];
  /** Own actions still awaiting their echo. */
  pendingCount: number;
  /** Own actions the server rejected in this batch. */
  rejections: Rejection[];
}

/**
 * A protocol notification (`root/sessionAdded`, `auth/required`, ...): checking `method`
 * narrows `params` to its type.
 */
export type NotificationEvent = {
  [M in keyof NotificationMap]: { type: 'notification'; method: M; params: NotificationMap[M] };
}[keyof NotificationMap];

/** Everything a client reports besides request results and per-subscription changes. */
export type ClientEvent =
  | { type: 'connectionState'; state: ConnectionState }
  | { type: 'connected'; info: ServerInfo; resumed: boolean }
  | { type: 'reconnectFailed'; attempt: number; error: AhpError }
  /**
   * Reconnecting stopped for a failure no retry can fix (WebSocket transport: `error.reason` is
   * `'unauthorized'`, `'forbidden-origin'` or `'not-found'`); the client closes next.
   */
  | { type: 'reconnectAborted'; error: TransportError }
  | NotificationEvent
  /**
   * A notification outside the protocol's set (`NotificationMap`): MCP traffic on an `mcp://`
   * channel, an extension's.
   */
  | { type: 'otherNotification'; method: string; params: unknown }
  | { type: 'rejected'; channel: string; rejection: Rejection }
  | { type: 'pendingDropped'; channel: string; actions: { clientSeq: number; action: StateAction }[]; reason: DropReason }
  | { type: 'resync'; channel: string; reason: string }
  | { type: 'subscriptionLost'; channel: string; reason: string }
  /**
   * A subscribed resource watch's changes (its `resourceWatch/changed` actions of one batch, in
   * order): they leave the watch's state as it is, so they come here, not to `onChange`.
   */
  | { type: 'resourceChanges'; channel: string; changes: ResourceChange[] }
  | { type: 'malformed'; message: string; frame: string };

/**
 * A connection to one agent host. Keeps itself alive while open (like a WebSocket): call
 * `close()` when done.
 */
export declare class AhpClient {
  private constructor();
  /**
   * Opens the connection and performs `initialize`; rejects with a typed error if that fails.
   * Loads the WebAssembly module first if `init()` has not (a failed load rejects with an
   * `AhpError` of kind `'wasmLoad'`; the next call tries again).
   */
  static connect(url: string, options?: ConnectOptions): Promise<AhpClient>;
  readonly url: string;
  readonly clientId: string;
  /** The secret the host bound `clientId` to, once connected (`undefined` if it issues none). */
  readonly clientSecret: string | undefined;
  readonly connectionState: ConnectionState;
  readonly serverInfo: ServerInfo | undefined;
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
  /** Listens to client events; returns the function that removes the listener. */
  onEvent(listener: (event: ClientEvent) => void): () => void;
  /** Listens to connection state changes. */
  onConnectionStateChange(listener: (state: ConnectionState) => void): () => void;
  /** Answers server→client requests of `method` (e.g. `'resourceRequest'`); others get -32601. */
  setRequestHandler(method: string, handler: (params: unknown) => unknown | Promise<unknown>): void;
  /**
   * Sends a request by method name, params as they go on the wire (the typed command methods
   * above fill in the root channel and check the params first). A method of `CommandMap` is
   * typed by it; any other method name takes and gives `unknown`.
   */
  request<M extends keyof CommandMap>(method: M, params: CommandMap[M]['params']): Promise<CommandMap[M]['result']>;
  request<M extends string>(method: M extends keyof CommandMap ? never : M, params?: unknown): Promise<unknown>;
  /**
   * Sends a notification by method name (no answer), at once: throws `TransportError` while
   * not connected (notifications are not queued), and for `dispatchAction` and `unsubscribe`
   * (use `dispatch()` and `unsubscribe()`, which keep the mirrors right).
   */
  notify(method: string, params?: unknown): void;
  /**
   * Claims the active-client role of `session` (`session/activeClientChanged`) with tools the
   * agent can call, plugins, and the `systemMessageTransform` opt-in; subscribes to the session
   * if needed. The SDK then runs the tools' `execute` for calls this client owns (see
   * `ClientTool`), denies calls for tools it does not have, answers the host's reads of the
   * plugins' files, and claims the role again after a reconnect if it is vacant. Replaces this
   * client's earlier handle for the session. Throws InvalidInputError for bad options.
   */
  setActiveClient(session: string, options?: ActiveClientOptions): Promise<ActiveClientHandle>;
  /**
   * Gives up this client's active-client role of `session` (its handle's `release()`, or
   * `activeClient: null` when the state names this client without a handle). Returns whether
   * this client held the role.
   */
  releaseActiveClient(session: string): boolean;
  /**
   * Handles the host's `systemMessageTransform` requests (our extension): `handler` gets the
   * rendered sections the host offers and returns rewritten ones; sections it leaves out pass
   * through, and ids the host did not offer are dropped. `null` removes the handler.
   */
  onSystemMessageTransform(handler: SystemMessageTransformHandler | null): void;
  /** The terminal at `uri` as a `TerminalHandle`, subscribing to it when needed. */
  terminal(uri: string): Promise<TerminalHandle>;
  /**
   * `createTerminal` with defaults (a fresh `ahp-terminal:/` URI, a client claim for this
   * client), then `terminal(uri)`. Throws InvalidInputError for `cols`/`rows` outside 1..=1000.
   */
  openTerminal(params?: Partial<CreateTerminalParams>): Promise<TerminalHandle>;
  /** The changeset at `uri` (`ahp-changeset:`) as a `ChangesetHandle`, subscribing to it when needed. */
  changeset(uri: string): Promise<ChangesetHandle>;
  /**
   * The changeset of `session`'s catalogue (its first entry that is a URI, not a template), or
   * `undefined` when the session offers none; subscribes to the session when needed.
   */
  sessionChangeset(session: string): Promise<ChangesetHandle | undefined>;

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
  /** Closes for good: outstanding requests reject with ClientClosedError. */
  close(): void;
}

/** A live mirror of one channel (one object per channel and client). */
export declare class Subscription<S = ChannelState> {
  private constructor();
  readonly uri: string;
  /**
   * Optimistic state: deeply frozen; unchanged parts keep their identity across updates
   * (reading it twice without a change in between gives the same object). Once the
   * subscription has ended (`unsubscribe()`, or a `subscriptionLost` event), the last state it
   * had, without the pending actions that were dropped with it. (`undefined` only for a
   * channel whose state was lost before it was ever read.)
   */
  readonly state: DeepReadonly<S>;
  /** The last server-acknowledged state (frozen; built on first read after a change). */
  readonly confirmedState: DeepReadonly<S>;
  readonly pendingCount: number;
  /** Whether the subscription is still live. */
  readonly active: boolean;
  /** Called once per incoming batch (and per own dispatch), after reconciliation. */
  onChange(listener: (state: DeepReadonly<S>, info: ChangeInfo) => void): () => void;
  /** Same as `client.dispatch(this.uri, action)`. */
  dispatch(action: ClientDispatchableAction): number;
  unsubscribe(): void;
}

/** Several hosts at once, each with its own connection and reconnect; events fanned in. */
/** Where a `MultiHostClient` keeps each host's client id across runs. */
export interface ClientIdStore {
  get(host: string): string | undefined | null;
  set(host: string, clientId: string): void;
}

/** A `ClientIdStore` over `localStorage` (browsers): one JSON object under `key`. */
export declare function localStorageClientIds(key?: string): ClientIdStore;

export declare class MultiHostClient {
  /**
   * `clientIds`: each host's client id is read from it on `addHost` (unless `options.clientId`
   * is given) and written back once connected, so a host sees the same client after a reload.
   */
  constructor(options?: { clientIds?: ClientIdStore });
  /** Connects (or returns the existing client) under `name`. */
  addHost(name: string, url: string, options?: ConnectOptions): Promise<AhpClient>;
  /** Every host's agents (from its root state), each with its host's name. */
  agents(): { host: string; agent: DeepReadonly<AgentInfo> }[];
  /** Every host's sessions (`listSessions` on each, at once); hosts that failed are in `failed`. */
  listSessions(
    params?: RootParams<ListSessionsParams>,
  ): Promise<{ sessions: { host: string; session: SessionSummary }[]; failed: { host: string; error: AhpError }[] }>;
  /** Closes and forgets a host. */
  removeHost(name: string): void;
  host(name: string): AhpClient | undefined;
  hostNames(): string[];
  onEvent(listener: (host: string, event: ClientEvent) => void): () => void;
  close(): void;
}

/** The server answered a request with a JSON-RPC error. */
export declare class RpcError extends AhpError {
  constructor(message: string, options: { code: number; data?: unknown; method?: string });
  readonly kind: 'rpc';
  readonly code: number;
  readonly data: unknown;
  readonly method: string;
}
/** No response within the request timeout. */
export declare class RpcTimeoutError extends AhpError {
  constructor(message: string, options: { method: string; timeoutMs?: number });
  readonly kind: 'timeout';
  readonly method: string;
  /** The timeout the request exceeded (`requestTimeoutMs`), in milliseconds. */
  readonly timeoutMs: number | undefined;
}
/** Why the WebSocket transport could not connect (asked of the host over plain HTTP). */
export type ConnectFailureReason =
  | 'unauthorized'
  | 'forbidden-origin'
  | 'not-found'
  | 'unavailable'
  | 'unreachable'
  | 'handshake'
  | 'unknown';
/** The transport failed: `transportKind` is `'connect' | 'connectionLost' | 'send' | 'receive'`. */
export declare class TransportError extends AhpError {
  constructor(
    message: string,
    options: {
      transportKind: 'connect' | 'connectionLost' | 'send' | 'receive';
      reason?: ConnectFailureReason;
      status?: number;
      cause?: unknown;
    },
  );
  readonly kind: 'transport';
  readonly transportKind: 'connect' | 'connectionLost' | 'send' | 'receive';
  /** Set when the WebSocket transport (not a custom one) failed to connect. */
  readonly reason?: ConnectFailureReason;
  /** The host's HTTP status when it answered (401, 403, 404, 503, 426). */
  readonly status?: number;
}
/** The client was closed. */
export declare class ClientClosedError extends AhpError {
  constructor(message?: string);
  readonly kind: 'closed';
}
/** The server speaks none of the offered protocol versions (code -32005). */
export declare class UnsupportedProtocolVersionError extends AhpError {
  constructor(message: string, options: { offered: string[]; supported?: string[] });
  readonly kind: 'unsupportedProtocolVersion';
  readonly code: -32005;
  readonly offered: string[];
  readonly supported: string[] | undefined;
}
/** `dispatch` on a channel this client is not subscribed to. */
export declare class NotSubscribedError extends AhpError {
  constructor(message: string, options: { channel: string });
  readonly kind: 'notSubscribed';
  readonly channel: string;
}
/**
 * The server's response could not be understood (a handshake or subscribe answer whose
 * snapshot is not a channel state, a result that is not JSON). Command results are otherwise
 * handed over as the server sent them, not validated against their types.
 */
export declare class InvalidResponseError extends AhpError {
  constructor(message: string, options: { method: string });
  readonly kind: 'invalidResponse';
  readonly method: string;
}
/**
 * An action or a command of a protocol version the connection did not negotiate (a 0.3.0
 * action on a 1.0 connection, a 1.0-only command on a 0.3.0 one): refused, nothing was sent.
 */
export declare class WrongProtocolVersionError extends AhpError {
  constructor(message: string, options: { negotiated: string; version: string; attempted: string });
  readonly kind: 'wrongProtocolVersion';
  /** The version the host chose in `initialize`. */
  readonly negotiated: string;
  /** The version of what was attempted. */
  readonly version: string;
  /** What was attempted ("the action `session/turnStarted` on `ahp-chat:/1`"). */
  readonly attempted: string;
}
/** An MCP server customization has no `mcp://` channel now (not ready, or none is served to this client). */
export declare class ChannelUnavailableError extends AhpError {
  constructor(message: string, options: { customizationId: string; serverState?: string });
  readonly kind: 'channelUnavailable';
  readonly customizationId: string;
  /** The server's runtime state kind (`starting`, `error`, `authRequired`, ...), if the customization exists. */
  readonly serverState: string | undefined;
}

/** What a client tool's `execute` gets besides its input. */
export interface ToolContext {
  /** Aborted when the call is cancelled (turn cancelled, call denied) or the role released. */
  signal: AbortSignal;
  /** Streams progress: replaces the call's `content` (`session/toolCallContentChanged`). */
  update(content: string | ToolResultContent | (string | ToolResultContent)[]): void;
  toolCallId: string;
  turnId: string;
  session: string;
}

/** What `execute` may return: text, content blocks, or a result with structured content. */
export type ToolReturn =
  | string
  | ToolResultContent
  | (string | ToolResultContent)[]
  | { content?: string | ToolResultContent | (string | ToolResultContent)[]; structuredContent?: Record<string, unknown>; pastTenseMessage?: string }
  | void;

/**
 * A tool this client lends the agent. `inputSchema` (JSON Schema) is published and checked
 * before `execute` runs: an input that does not match, a thrown error or a rejected promise
 * completes the call with `success: false` and the message.
 */
export interface ClientTool<I = any> {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** The app's own confirmation for this tool (overrides `ActiveClientOptions.confirm`); false denies the call. */
  confirm?: (call: ToolCallRequest) => boolean | Promise<boolean>;
  execute(input: I, context: ToolContext): ToolReturn | Promise<ToolReturn>;
}

/** A call the app is asked to confirm. */
export interface ToolCallRequest {
  tool: string;
  input: unknown;
  toolCallId: string;
  session: string;
}

/** A plugin of in-memory files, from `buildClientPlugin`. */
export interface ClientPlugin {
  readonly customization: ClientPluginCustomization;
  /** File URIs (`virtual://...`) to their text. */
  readonly files: ReadonlyMap<string, string>;
}

export interface ActiveClientOptions {
  displayName?: string;
  tools?: ClientTool[];
  /** Plugins to publish (`SessionActiveClient.customizations`). */
  plugins?: ClientPlugin[];
  /** Section ids this client wants to rewrite (see `RootState.agents[].systemMessageSections`). */
  systemMessageTransform?: { sections: string[] };
  /** Confirms every call before it runs, whatever the server's advisory `confirmed` says. */
  confirm?: (call: ToolCallRequest) => boolean | Promise<boolean>;
}

/** The active-client role of one session, from `AhpClient.setActiveClient`. */
export declare class ActiveClientHandle {
  private constructor();
  readonly client: AhpClient;
  readonly session: string;
  /** What this handle publishes as `SessionActiveClient`. */
  readonly activeClient: SessionActiveClient;
  /** Whether the session state names this client as the active one. */
  readonly isActive: boolean;
  /** Replaces the tools (`session/activeClientToolsChanged`). */
  updateTools(tools: ClientTool[]): void;
  /** Replaces the published plugins (claims the role again with them). */
  updatePlugins(plugins: ClientPlugin[]): void;
  /** Gives the role up and aborts running calls. */
  release(): void;
}

/** A shell-integration command event of `TerminalHandle.onCommand`. */
export interface TerminalCommandEvent {
  type: 'executed' | 'finished';
  command: DeepReadonly<TerminalCommandPart>;
}

/**
 * One changeset (`AhpClient.changeset(uri)` / `sessionChangeset(session)`), over its
 * subscription: the changed files, the status, the operations the host offers.
 *
 * ```ts
 * const changes = await client.sessionChangeset(session);
 * await changes?.ready();
 * for (const f of changes?.files ?? []) console.log(f.id, f.edit.diff?.added, f.edit.diff?.removed);
 * await changes?.invoke('revert', changes.files[0]?.id); // per file, if the host offers it
 * ```
 */
export declare class ChangesetHandle {
  private constructor();
  readonly client: AhpClient;
  readonly uri: string;
  readonly subscription: Subscription<ChangesetState>;
  /** The changeset's state (frozen). */
  readonly state: DeepReadonly<ChangesetState>;
  readonly status: ChangesetState['status'];
  /** The changed files: `id` is the file's URI, `edit` its before/after and line counts. */
  readonly files: DeepReadonly<ChangesetFile[]>;
  /** The operations the host offers. */
  readonly operations: DeepReadonly<ChangesetOperation[]>;
  /** The changed file `resource` (its URI), if it is in the changeset. */
  file(resource: string): DeepReadonly<ChangesetFile> | undefined;
  /**
   * Resolves once `status` is `'ready'`; rejects with an `AhpError` (kind `'changesetError'`)
   * if it ends in `'error'`, or `RpcTimeoutError` after `timeoutMs` (default 30 000).
   */
  ready(options?: { timeoutMs?: number }): Promise<void>;
  /**
   * `invokeChangesetOperation`: operation `operationId` on the whole changeset, or on the file
   * `resource`. Rejects with `InvalidInputError` before sending when the operation is not
   * offered, does not take that scope, or the file is not in the changeset; with `RpcError`
   * when the host refuses.
   */
  invoke(operationId: string, resource?: string): Promise<InvokeChangesetOperationResult>;
  /** Listens to changes (the handle is passed). Returns the remover. */
  onChange(listener: (changeset: ChangesetHandle) => void): () => void;
  /** Stops the listeners (and the subscription `changeset()` made). */
  close(): void;
}

/**
 * One terminal (`AhpClient.terminal(uri)` / `openTerminal(params)`), over its subscription.
 *
 * ```ts
 * const term = await client.openTerminal({ cols: 100, rows: 30 });
 * term.onData((data, { reset }) => (reset ? print(data, true) : print(data)));
 * term.onCommand((e) => e.type === 'finished' && console.log(e.command.commandLine, e.command.exitCode));
 * term.write('echo hi\r');
 * await term.resize(120, 40);
 * ```
 */
export declare class TerminalHandle {
  private constructor();
  readonly client: AhpClient;
  readonly uri: string;
  readonly subscription: Subscription<TerminalState>;
  readonly state: DeepReadonly<TerminalState>;
  readonly title: string;
  /** Who holds the terminal (`state.claim`; `claim()` changes it). */
  readonly holder: DeepReadonly<TerminalClaim> | undefined;
  readonly cols: number | undefined;
  readonly rows: number | undefined;
  readonly cwd: string | undefined;
  /** The shell's exit code once it exited (-1: killed by a signal). */
  readonly exitCode: number | undefined;
  /** Resolves with the exit code once the shell exited. */
  readonly exited: Promise<number>;
  /** Whether shell integration reports commands (`supportsCommandDetection`). */
  readonly commandDetection: boolean;
  /** The command parts reported so far (trimmed with the scrollback). */
  readonly commands: DeepReadonly<TerminalCommandPart>[];
  /** The whole output the state keeps (escape sequences included). */
  readonly text: string;
  /** Whether this client holds a client claim on it (only the holder may type, resize, claim). */
  readonly isClaimant: boolean;
  /**
   * Types `data` (`terminal/input`; `\r` is Enter), split into inputs the host takes; at most
   * 1 MiB (InvalidInputError beyond). Input of a non-holder is rejected (a `rejected` event).
   * Returns the clientSeq of each input.
   */
  write(data: string): number[];
  /** `terminal/resized` (each 1..=1000, else InvalidInputError): resolves once applied, rejects with an AhpError of kind `'rejected'`. */
  resize(cols: number, rows: number): Promise<void>;
  /** `terminal/claimed` (default: this client): resolves once the host took it; rejects with an AhpError of kind `'rejected'` and the host's reason. */
  claim(claim?: TerminalClaim): Promise<void>;
  /** New output; with `reset` the whole text again (after a clear or a trim). Returns the remover. */
  onData(listener: (data: string, info: { reset: boolean }) => void): () => void;
  /** Commands as shell integration reports them. Returns the remover. */
  onCommand(listener: (event: TerminalCommandEvent) => void): () => void;
  /** Stops the listeners (and the subscription `terminal()` made); the terminal runs on. */
  close(): void;
  /** `disposeTerminal`, then `close()`. */
  dispose(): Promise<void>;
}

/** One section of a `systemMessageTransform` request or answer. */
export interface SystemMessageTransformSection {
  content: string;
}

/** Rewrites system-prompt sections: return the changed ones (a string or `{ content }` each). */
export type SystemMessageTransformHandler = (request: {
  channel: string;
  sections: Record<string, SystemMessageTransformSection>;
}) =>
  | Record<string, string | SystemMessageTransformSection>
  | { sections: Record<string, string | SystemMessageTransformSection> }
  | Promise<Record<string, string | SystemMessageTransformSection> | { sections: Record<string, string | SystemMessageTransformSection> }>;

/**
 * A plugin from in-memory files (Open Plugins layout with YAML frontmatter, e.g.
 * `skills/review/SKILL.md`), published under `virtual://<clientId>/<id>/` with a content-hash
 * `nonce`. Pass it to `setActiveClient({ plugins })`.
 */
export declare function buildClientPlugin(client: AhpClient, plugin: { id: string; name?: string; files: Record<string, string> }): ClientPlugin;

/** Options of `McpChannel.request` and `McpChannel.ready`. */
export interface McpRequestOptions {
  /** Rejects with `RpcTimeoutError` after this long (default: the channel's `timeoutMs`, else the client's request timeout). */
  timeoutMs?: number;
  /** Rejects with an `AhpError` of kind `'aborted'` when it fires. */
  signal?: AbortSignal;
}

/**
 * MCP JSON-RPC over the `mcp://` channel of a session's MCP server customization (AHP
 * `spec/mcp-channel.md`). The host serves only the methods of the advertised capability sets
 * (`capabilities`); anything else rejects with `RpcError` code -32601. The channel URI is read
 * again from the session state for every request, so a channel that changes (a restart) is
 * followed. The host only exposes channels to clients that connected with
 * `capabilities: { mcpApps: {} }`.
 *
 * ```ts
 * const client = await AhpClient.connect(url, { token, capabilities: { mcpApps: {} } });
 * const channel = await McpChannel.open(client, sessionUri, 'mcp/basic');
 * await channel.ready();
 * const { contents } = await channel.request('resources/read', { uri: 'ui://get-time/mcp-app.html' });
 * ```
 */
export declare class McpChannel {
  private constructor();
  /** Opens the channel of customization `customizationId` of `session` (subscribing to the session if needed). */
  static open(client: AhpClient, session: string, customizationId: string, options?: { timeoutMs?: number }): Promise<McpChannel>;
  readonly client: AhpClient;
  readonly session: string;
  readonly customizationId: string;
  /** The customization as the session state has it now. */
  readonly customization: McpServerCustomization | undefined;
  /** The channel URI now; `undefined` while the server is not ready. */
  readonly uri: string | undefined;
  /** What the host serves on the channel (`mcpApp.capabilities`). */
  readonly capabilities: AhpMcpUiHostCapabilities | undefined;
  /** Resolves with the channel URI once present; rejects with `ChannelUnavailableError` if the server fails, stops or needs auth first. */
  ready(options?: McpRequestOptions): Promise<string>;
  /** Sends an MCP request; rejects with `ChannelUnavailableError`, `RpcError` or `RpcTimeoutError`. */
  request<R = unknown>(method: string, params?: object, options?: McpRequestOptions): Promise<R>;
  /** Listens to the MCP notifications forwarded on this channel (`params` without `channel`); returns the remover. */
  onNotification(listener: (method: string, params: Record<string, unknown>) => void): () => void;
  /** Stops listening; later requests reject with `ClientClosedError`. */
  close(): void;
}
