// TypeScript contract of the package's AHP 1.0 entry, `ahp-wasm/v1` (the wasm module built with
// cargo feature `v1` alone). Hand-written but for the sections between `generated` markers
// (`cargo run -p xtask -- codegen`: the command methods from src/protocol/v1/command_table.rs,
// the named values from the 1.0 definition); scripts/build-pkg.sh copies it into pkg/v1/ beside
// the 1.0 reducers' declarations and the 1.0 wire types (reducers.d.ts, types.d.ts), and
// common.d.ts (shared with the 0.3.0 entry) into pkg/.
//
// The client classes are the 0.3.0 entry's (one implementation), speaking 1.0 here, and typed
// so: `dispatch` takes the actions of the channel's kind, `state` is the channel's 1.0 state,
// the command methods are the 1.0 table's. The roles and handles (the active client, terminal
// and changeset handles, `McpChannel`; ../handles.d.ts) are the 0.3.0 entry's code too, typed
// here with 1.0's wire types.

export * from './reducers.js';
export * from '../common.js';
export * from '../handles.js';
import type {
  ChangeInfoOf,
  ClientCore,
  ClientEventOf,
  ClientIdStore,
  ConnectOptionsOf,
  MultiHostClientCore,
  NotificationEventOf,
  RejectionOf,
  RootParams,
  ServerInfoOf,
  SubscriptionCore,
} from '../common.js';
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
} from '../handles.js';
import type {
  AnnotationsAction,
  AutomationAction,
  AutomationRunAction,
  CanvasAction,
  ChangesetAction,
  ChatAction,
  ResourceWatchAction,
  RootAction,
  SessionAction,
  TerminalAction,
} from './reducers.js';
import type {
  AgentInfo,
  AhpMcpUiHostCapabilities,
  AnnotationsState,
  AutomationRunState,
  AutomationState,
  CanvasState,
  ChangesetFile,
  ChangesetOperation,
  ChangesetState,
  ChatState,
  ClientCapabilities,
  ClientPluginCustomization,
  McpServerCustomization,
  ResourceChange,
  ResourceWatchState,
  RootState,
  SessionActiveClient,
  SessionState,
  SessionSummary,
  StateAction,
  TelemetryCapabilities,
  TerminalClaim,
  TerminalCommandPart,
  TerminalState,
  ToolResultContent,
} from './types.js';

/** The protocol version this entry speaks: `'1.0.0'`. */
export declare const PROTOCOL_VERSION: string;

/** Every protocol version this entry speaks: `['1.0.0']`. */
export declare const SUPPORTED_PROTOCOL_VERSIONS: string[];

// AHP 1.0's named values under the official names (js/v1/protocol.js; they work before
// `init()`).
// <generated: protocol names> from the 1.0 definition: cargo run -p xtask -- codegen
export declare const ActionType: {
  readonly RootAgentsChanged: 'root/agentsChanged';
  readonly RootActiveSessionsChanged: 'root/activeSessionsChanged';
  readonly SessionReady: 'session/ready';
  readonly SessionCreationFailed: 'session/creationFailed';
  readonly SessionChatAdded: 'session/chatAdded';
  readonly SessionChatRemoved: 'session/chatRemoved';
  readonly SessionChatUpdated: 'session/chatUpdated';
  readonly SessionChatsReordered: 'session/chatsReordered';
  readonly SessionDefaultChatChanged: 'session/defaultChatChanged';
  readonly ChatTurnStarted: 'chat/turnStarted';
  readonly ChatDelta: 'chat/delta';
  readonly ChatResponsePart: 'chat/responsePart';
  readonly ChatToolCallStart: 'chat/toolCallStart';
  readonly ChatToolCallDelta: 'chat/toolCallDelta';
  readonly ChatToolCallReady: 'chat/toolCallReady';
  readonly ChatToolCallConfirmed: 'chat/toolCallConfirmed';
  readonly ChatToolCallComplete: 'chat/toolCallComplete';
  readonly ChatToolCallResultConfirmed: 'chat/toolCallResultConfirmed';
  readonly ChatToolCallContentChanged: 'chat/toolCallContentChanged';
  readonly ChatToolCallAuthRequired: 'chat/toolCallAuthRequired';
  readonly ChatToolCallAuthResolved: 'chat/toolCallAuthResolved';
  readonly ChatTurnComplete: 'chat/turnComplete';
  readonly ChatTurnCancelled: 'chat/turnCancelled';
  readonly ChatError: 'chat/error';
  readonly ChatTurnResume: 'chat/turnResume';
  readonly ChatActivityChanged: 'chat/activityChanged';
  readonly ChatBackgroundWorkSet: 'chat/backgroundWorkSet';
  readonly ChatBackgroundWorkRemoved: 'chat/backgroundWorkRemoved';
  readonly ChatMovableChanged: 'chat/movableChanged';
  readonly ChatChangesetsChanged: 'chat/changesetsChanged';
  readonly ChatCanvasesChanged: 'chat/canvasesChanged';
  readonly CanvasStateChanged: 'canvas/stateChanged';
  readonly ChatWorkingDirectorySet: 'chat/workingDirectorySet';
  readonly ChatWorkingDirectoryRemoved: 'chat/workingDirectoryRemoved';
  readonly SessionTitleChanged: 'session/titleChanged';
  readonly ChatUsage: 'chat/usage';
  readonly ChatReasoning: 'chat/reasoning';
  readonly SessionServerToolsChanged: 'session/serverToolsChanged';
  readonly SessionActiveClientSet: 'session/activeClientSet';
  readonly SessionActiveClientRemoved: 'session/activeClientRemoved';
  readonly SessionWorkingDirectorySet: 'session/workingDirectorySet';
  readonly SessionWorkingDirectoryRemoved: 'session/workingDirectoryRemoved';
  readonly SessionWorkingDirectoryReplaced: 'session/workingDirectoryReplaced';
  readonly SessionInputNeededSet: 'session/inputNeededSet';
  readonly SessionInputNeededRemoved: 'session/inputNeededRemoved';
  readonly ChatPendingMessageSet: 'chat/pendingMessageSet';
  readonly ChatPendingMessageRemoved: 'chat/pendingMessageRemoved';
  readonly ChatQueuedMessagesReordered: 'chat/queuedMessagesReordered';
  readonly ChatDraftChanged: 'chat/draftChanged';
  readonly ChatIsReadChanged: 'chat/isReadChanged';
  readonly ChatIsArchivedChanged: 'chat/isArchivedChanged';
  readonly ChatInputRequested: 'chat/inputRequested';
  readonly ChatInputAnswerChanged: 'chat/inputAnswerChanged';
  readonly ChatInputCompleted: 'chat/inputCompleted';
  readonly SessionCustomizationsChanged: 'session/customizationsChanged';
  readonly SessionCustomizationToggled: 'session/customizationToggled';
  readonly SessionCustomizationUpdated: 'session/customizationUpdated';
  readonly SessionCustomizationRemoved: 'session/customizationRemoved';
  readonly SessionMcpServerStateChanged: 'session/mcpServerStateChanged';
  readonly SessionMcpServerStartRequested: 'session/mcpServerStartRequested';
  readonly SessionMcpServerStopRequested: 'session/mcpServerStopRequested';
  readonly SessionMcpServerBackgroundRequested: 'session/mcpServerBackgroundRequested';
  readonly ChatTruncated: 'chat/truncated';
  readonly ChatTurnsLoaded: 'chat/turnsLoaded';
  readonly SessionIsReadChanged: 'session/isReadChanged';
  readonly SessionIsArchivedChanged: 'session/isArchivedChanged';
  readonly SessionActivityChanged: 'session/activityChanged';
  readonly SessionChangesetsChanged: 'session/changesetsChanged';
  readonly SessionConfigChanged: 'session/configChanged';
  readonly SessionMetaChanged: 'session/metaChanged';
  readonly ChangesetStatusChanged: 'changeset/statusChanged';
  readonly ChangesetFileSet: 'changeset/fileSet';
  readonly ChangesetFileRemoved: 'changeset/fileRemoved';
  readonly ChangesetFilesReviewChanged: 'changeset/filesReviewChanged';
  readonly ChangesetContentChanged: 'changeset/contentChanged';
  readonly ChangesetOperationsChanged: 'changeset/operationsChanged';
  readonly ChangesetOperationStatusChanged: 'changeset/operationStatusChanged';
  readonly ChangesetCleared: 'changeset/cleared';
  readonly AnnotationsSet: 'annotations/set';
  readonly AnnotationsUpdated: 'annotations/updated';
  readonly AnnotationsRemoved: 'annotations/removed';
  readonly AnnotationsEntrySet: 'annotations/entrySet';
  readonly AnnotationsEntryRemoved: 'annotations/entryRemoved';
  readonly RootTerminalsChanged: 'root/terminalsChanged';
  readonly RootConfigChanged: 'root/configChanged';
  readonly TerminalData: 'terminal/data';
  readonly TerminalInput: 'terminal/input';
  readonly TerminalResized: 'terminal/resized';
  readonly TerminalClaimed: 'terminal/claimed';
  readonly TerminalTitleChanged: 'terminal/titleChanged';
  readonly TerminalCwdChanged: 'terminal/cwdChanged';
  readonly TerminalExited: 'terminal/exited';
  readonly TerminalCleared: 'terminal/cleared';
  readonly TerminalCommandDetectionAvailable: 'terminal/commandDetectionAvailable';
  readonly TerminalCommandExecuted: 'terminal/commandExecuted';
  readonly TerminalCommandFinished: 'terminal/commandFinished';
  readonly ResourceWatchChanged: 'resourceWatch/changed';
  readonly AutomationCreateRequested: 'automation/createRequested';
  readonly AutomationUpdateRequested: 'automation/updateRequested';
  readonly AutomationSet: 'automation/set';
  readonly AutomationRemoved: 'automation/removed';
  readonly AutomationRunLifecycleChanged: 'automationRun/lifecycleChanged';
  readonly AutomationRunSessionSet: 'automationRun/sessionSet';
  readonly AutomationRunSessionRemoved: 'automationRun/sessionRemoved';
  readonly AutomationRunPrimarySessionChanged: 'automationRun/primarySessionChanged';
  readonly AutomationRunCancelRequested: 'automationRun/cancelRequested';
};
export type ActionType = import('./types.js').ActionType;
export declare const AhpErrorCodes: {
  readonly SessionNotFound: -32001;
  readonly ProviderNotFound: -32002;
  readonly SessionAlreadyExists: -32003;
  readonly TurnInProgress: -32004;
  readonly UnsupportedProtocolVersion: -32005;
  readonly AuthRequired: -32007;
  readonly NotFound: -32008;
  readonly PermissionDenied: -32009;
  readonly AlreadyExists: -32010;
  readonly Conflict: -32011;
};
export type AhpErrorCodes = number;
export declare const AuthRequiredReason: {
  readonly Required: 'required';
  readonly Expired: 'expired';
};
export type AuthRequiredReason = import('./types.js').AuthRequiredReason;
export declare const AutomationDisableConditionKind: {
  readonly AfterRuns: 'afterRuns';
  readonly AfterDate: 'afterDate';
};
export type AutomationDisableConditionKind = import('./types.js').AutomationDisableConditionKind;
export declare const AutomationMisfirePolicy: {
  readonly Skip: 'skip';
  readonly RunOnce: 'runOnce';
};
export type AutomationMisfirePolicy = import('./types.js').AutomationMisfirePolicy;
export declare const AutomationOperation: {
  readonly Update: 'update';
  readonly Remove: 'remove';
  readonly Run: 'run';
};
export type AutomationOperation = import('./types.js').AutomationOperation;
export declare const AutomationRunOriginKind: {
  readonly Manual: 'manual';
  readonly Trigger: 'trigger';
};
export type AutomationRunOriginKind = import('./types.js').AutomationRunOriginKind;
export declare const AutomationRunStatus: {
  readonly Pending: 'pending';
  readonly Running: 'running';
  readonly Completed: 'completed';
  readonly Failed: 'failed';
  readonly Cancelled: 'cancelled';
};
export type AutomationRunStatus = import('./types.js').AutomationRunStatus;
export declare const AutomationTriggerKind: {
  readonly Schedule: 'schedule';
  readonly Event: 'event';
};
export type AutomationTriggerKind = import('./types.js').AutomationTriggerKind;
export declare const BackgroundWorkKind: {
  readonly Shell: 'shell';
  readonly Subagent: 'subagent';
};
export type BackgroundWorkKind = import('./types.js').BackgroundWorkKind;
export declare const ChangesetOperationScope: {
  readonly Changeset: 'changeset';
  readonly Resource: 'resource';
  readonly Range: 'range';
};
export type ChangesetOperationScope = import('./types.js').ChangesetOperationScope;
export declare const ChangesetOperationStatus: {
  readonly Idle: 'idle';
  readonly Running: 'running';
  readonly Error: 'error';
  readonly Disabled: 'disabled';
};
export type ChangesetOperationStatus = import('./types.js').ChangesetOperationStatus;
export declare const ChangesetStatus: {
  readonly Computing: 'computing';
  readonly Recomputing: 'recomputing';
  readonly Ready: 'ready';
  readonly Error: 'error';
};
export type ChangesetStatus = import('./types.js').ChangesetStatus;
export declare const ChatInputAnswerState: {
  readonly Draft: 'draft';
  readonly Submitted: 'submitted';
  readonly Skipped: 'skipped';
};
export type ChatInputAnswerState = import('./types.js').ChatInputAnswerState;
export declare const ChatInputAnswerValueKind: {
  readonly Text: 'text';
  readonly Number: 'number';
  readonly Boolean: 'boolean';
  readonly Selected: 'selected';
  readonly SelectedMany: 'selected-many';
};
export type ChatInputAnswerValueKind = import('./types.js').ChatInputAnswerValueKind;
export declare const ChatInputQuestionKind: {
  readonly Text: 'text';
  readonly Number: 'number';
  readonly Integer: 'integer';
  readonly Boolean: 'boolean';
  readonly SingleSelect: 'single-select';
  readonly MultiSelect: 'multi-select';
};
export type ChatInputQuestionKind = import('./types.js').ChatInputQuestionKind;
export declare const ChatInputResponseKind: {
  readonly Accept: 'accept';
  readonly Decline: 'decline';
  readonly Cancel: 'cancel';
};
export type ChatInputResponseKind = import('./types.js').ChatInputResponseKind;
export declare const ChatInteractivity: {
  readonly Full: 'full';
  readonly ReadOnly: 'read-only';
  readonly Hidden: 'hidden';
};
export type ChatInteractivity = import('./types.js').ChatInteractivity;
export declare const ChatMoveDestinationKind: {
  readonly Session: 'session';
  readonly NewSession: 'newSession';
};
export type ChatMoveDestinationKind = import('./types.js').ChatMoveDestinationKind;
export declare const ChatOriginKind: {
  readonly User: 'user';
  readonly Fork: 'fork';
  readonly SideChat: 'sideChat';
  readonly Tool: 'tool';
};
export type ChatOriginKind = import('./types.js').ChatOriginKind;
export declare const ChatSourceKind: {
  readonly Fork: 'fork';
  readonly SideChat: 'sideChat';
};
export type ChatSourceKind = import('./types.js').ChatSourceKind;
export declare const CompletionItemKind: {
  readonly UserMessage: 'userMessage';
};
export type CompletionItemKind = import('./types.js').CompletionItemKind;
export declare const ConfirmationOptionKind: {
  readonly Approve: 'approve';
  readonly Deny: 'deny';
};
export type ConfirmationOptionKind = import('./types.js').ConfirmationOptionKind;
export declare const ContentEncoding: {
  readonly Base64: 'base64';
  readonly Utf8: 'utf-8';
};
export type ContentEncoding = import('./types.js').ContentEncoding;
export declare const CustomizationEnablementKind: {
  readonly Global: 'global';
  readonly Workspace: 'workspace';
  readonly Session: 'session';
};
export type CustomizationEnablementKind = import('./types.js').CustomizationEnablementKind;
export declare const CustomizationLoadStatus: {
  readonly Loading: 'loading';
  readonly Loaded: 'loaded';
  readonly Degraded: 'degraded';
  readonly Error: 'error';
};
export type CustomizationLoadStatus = import('./types.js').CustomizationLoadStatus;
export declare const CustomizationType: {
  readonly Plugin: 'plugin';
  readonly Directory: 'directory';
  readonly Agent: 'agent';
  readonly Skill: 'skill';
  readonly Prompt: 'prompt';
  readonly Rule: 'rule';
  readonly Hook: 'hook';
  readonly McpServer: 'mcpServer';
};
export type CustomizationType = import('./types.js').CustomizationType;
export declare const JsonRpcErrorCodes: {
  readonly ParseError: -32700;
  readonly InvalidRequest: -32600;
  readonly MethodNotFound: -32601;
  readonly InvalidParams: -32602;
  readonly InternalError: -32603;
};
export type JsonRpcErrorCodes = number;
export declare const JsonRpcVersion: {
  readonly 20: '2.0';
};
export type JsonRpcVersion = import('./types.js').JsonRpcVersion;
export declare const McpAuthRequiredReason: {
  readonly Required: 'required';
  readonly Expired: 'expired';
  readonly InsufficientScope: 'insufficientScope';
};
export type McpAuthRequiredReason = import('./types.js').McpAuthRequiredReason;
export declare const McpServerStatus: {
  readonly Starting: 'starting';
  readonly Ready: 'ready';
  readonly AuthRequired: 'authRequired';
  readonly Error: 'error';
  readonly Stopped: 'stopped';
};
export type McpServerStatus = import('./types.js').McpServerStatus;
export declare const MessageAttachmentKind: {
  readonly Simple: 'simple';
  readonly EmbeddedResource: 'embeddedResource';
  readonly Resource: 'resource';
  readonly Annotations: 'annotations';
  readonly Chat: 'chat';
};
export type MessageAttachmentKind = import('./types.js').MessageAttachmentKind;
export declare const MessageKind: {
  readonly User: 'user';
  readonly Agent: 'agent';
  readonly Tool: 'tool';
  readonly Automation: 'automation';
  readonly SystemNotification: 'systemNotification';
};
export type MessageKind = import('./types.js').MessageKind;
export declare const PendingMessageKind: {
  readonly Steering: 'steering';
  readonly Queued: 'queued';
};
export type PendingMessageKind = import('./types.js').PendingMessageKind;
export declare const PolicyState: {
  readonly Enabled: 'enabled';
  readonly Disabled: 'disabled';
  readonly Unconfigured: 'unconfigured';
};
export type PolicyState = import('./types.js').PolicyState;
export declare const ReconnectResultType: {
  readonly Replay: 'replay';
  readonly Snapshot: 'snapshot';
};
export type ReconnectResultType = import('./types.js').ReconnectResultType;
export declare const ResourceChangeType: {
  readonly Added: 'added';
  readonly Updated: 'updated';
  readonly Deleted: 'deleted';
};
export type ResourceChangeType = import('./types.js').ResourceChangeType;
export declare const ResourceType: {
  readonly File: 'file';
  readonly Directory: 'directory';
  readonly Symlink: 'symlink';
};
export type ResourceType = import('./types.js').ResourceType;
export declare const ResourceWriteMode: {
  readonly Truncate: 'truncate';
  readonly Append: 'append';
  readonly Insert: 'insert';
};
export type ResourceWriteMode = import('./types.js').ResourceWriteMode;
export declare const ResponsePartKind: {
  readonly Markdown: 'markdown';
  readonly ContentRef: 'contentRef';
  readonly ToolCall: 'toolCall';
  readonly Reasoning: 'reasoning';
  readonly SystemNotification: 'systemNotification';
  readonly InputRequest: 'inputRequest';
  readonly Error: 'error';
};
export type ResponsePartKind = import('./types.js').ResponsePartKind;
export declare const SessionInputRequestKind: {
  readonly ChatInput: 'chatInput';
  readonly ToolConfirmation: 'toolConfirmation';
  readonly ToolClientExecution: 'toolClientExecution';
  readonly ToolAuthentication: 'toolAuthentication';
};
export type SessionInputRequestKind = import('./types.js').SessionInputRequestKind;
export declare const SessionLifecycle: {
  readonly Creating: 'creating';
  readonly Ready: 'ready';
  readonly Failed: 'failed';
};
export type SessionLifecycle = import('./types.js').SessionLifecycle;
export declare const SessionOriginKind: {
  readonly Automation: 'automation';
};
export type SessionOriginKind = import('./types.js').SessionOriginKind;
export declare const SessionStatus: {
  readonly Idle: 1;
  readonly Error: 2;
  readonly InProgress: 8;
  readonly InputNeeded: 24;
  readonly IsRead: 32;
  readonly IsArchived: 64;
};
export type SessionStatus = import('./types.js').SessionStatus;
export declare const TerminalClaimKind: {
  readonly Client: 'client';
  readonly Session: 'session';
};
export type TerminalClaimKind = import('./types.js').TerminalClaimKind;
export declare const TerminalLifecycleStatus: {
  readonly Running: 'running';
  readonly Exited: 'exited';
};
export type TerminalLifecycleStatus = import('./types.js').TerminalLifecycleStatus;
export declare const ToolCallCancellationReason: {
  readonly Denied: 'denied';
  readonly Skipped: 'skipped';
  readonly ResultDenied: 'result-denied';
};
export type ToolCallCancellationReason = import('./types.js').ToolCallCancellationReason;
export declare const ToolCallConfirmationReason: {
  readonly NotNeeded: 'not-needed';
  readonly UserAction: 'user-action';
  readonly Setting: 'setting';
};
export type ToolCallConfirmationReason = import('./types.js').ToolCallConfirmationReason;
export declare const ToolCallContributorKind: {
  readonly Client: 'client';
  readonly MCP: 'mcp';
};
export type ToolCallContributorKind = import('./types.js').ToolCallContributorKind;
export declare const ToolCallRiskAssessmentKind: {
  readonly Judge: 'judge';
};
export type ToolCallRiskAssessmentKind = import('./types.js').ToolCallRiskAssessmentKind;
export declare const ToolCallRiskAssessmentStatus: {
  readonly Loading: 'loading';
  readonly Complete: 'complete';
};
export type ToolCallRiskAssessmentStatus = import('./types.js').ToolCallRiskAssessmentStatus;
export declare const ToolCallStatus: {
  readonly Streaming: 'streaming';
  readonly PendingConfirmation: 'pending-confirmation';
  readonly Running: 'running';
  readonly AuthRequired: 'auth-required';
  readonly PendingResultConfirmation: 'pending-result-confirmation';
  readonly Completed: 'completed';
  readonly Cancelled: 'cancelled';
};
export type ToolCallStatus = import('./types.js').ToolCallStatus;
export declare const ToolResultContentType: {
  readonly Text: 'text';
  readonly EmbeddedResource: 'embeddedResource';
  readonly Resource: 'resource';
  readonly FileEdit: 'fileEdit';
  readonly Terminal: 'terminal';
  readonly Subagent: 'subagent';
};
export type ToolResultContentType = import('./types.js').ToolResultContentType;
export declare const TurnState: {
  readonly Complete: 'complete';
  readonly Cancelled: 'cancelled';
  readonly Error: 'error';
};
export type TurnState = import('./types.js').TurnState;
// </generated: protocol names>

// <generated: command types> from src/protocol/v1/command_table.rs: cargo run -p xtask -- codegen
import type {
  CreateSessionParams,
  DisposeSessionParams,
  CreateChatParams,
  DisposeChatParams,
  MoveChatParams,
  MoveChatResult,
  ListSessionsParams,
  ListSessionsResult,
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
  FetchTurnsParams,
  FetchTurnsResult,
  AuthenticateParams,
  AuthenticateResult,
  CreateTerminalParams,
  DisposeTerminalParams,
  ResolveSessionConfigParams,
  ResolveSessionConfigResult,
  SessionConfigCompletionsParams,
  SessionConfigCompletionsResult,
  CompletionsParams,
  CompletionsResult,
  InvokeChangesetOperationParams,
  InvokeChangesetOperationResult,
  ListAutomationTriggerDefinitionsParams,
  ListAutomationTriggerDefinitionsResult,
  RunAutomationParams,
  RunAutomationResult,
  FetchAutomationRunsParams,
  FetchAutomationRunsResult,
  SessionAddedParams,
  SessionRemovedParams,
  SessionSummaryChangedParams,
  AuthRequiredParams,
  OtlpExportLogsParams,
  OtlpExportTracesParams,
  OtlpExportMetricsParams,
} from './types.js';

/** `ping`'s params (the 1.0 definition names no type for them). */
export interface PingParams {
  channel: string;
}

/** Each command's wire params and result by method name, for `request<M>()`. */
export interface CommandMap {
  ping: { params: PingParams; result: unknown };
  createSession: { params: CreateSessionParams; result: unknown };
  disposeSession: { params: DisposeSessionParams; result: unknown };
  createChat: { params: CreateChatParams; result: unknown };
  disposeChat: { params: DisposeChatParams; result: unknown };
  moveChat: { params: MoveChatParams; result: MoveChatResult };
  listSessions: { params: ListSessionsParams; result: ListSessionsResult };
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
  fetchTurns: { params: FetchTurnsParams; result: FetchTurnsResult };
  authenticate: { params: AuthenticateParams; result: AuthenticateResult };
  createTerminal: { params: CreateTerminalParams; result: unknown };
  disposeTerminal: { params: DisposeTerminalParams; result: unknown };
  resolveSessionConfig: { params: ResolveSessionConfigParams; result: ResolveSessionConfigResult };
  sessionConfigCompletions: { params: SessionConfigCompletionsParams; result: SessionConfigCompletionsResult };
  completions: { params: CompletionsParams; result: CompletionsResult };
  invokeChangesetOperation: { params: InvokeChangesetOperationParams; result: InvokeChangesetOperationResult };
  listAutomationTriggerDefinitions: { params: ListAutomationTriggerDefinitionsParams; result: ListAutomationTriggerDefinitionsResult };
  runAutomation: { params: RunAutomationParams; result: RunAutomationResult };
  fetchAutomationRuns: { params: FetchAutomationRunsParams; result: FetchAutomationRunsResult };
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

/** AHP 1.0's types in the shared declarations (common.d.ts). */
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
  /** 1.0's `terminal/exited` may carry no code. */
  terminalExit: number | undefined;
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

/** The state of any subscribed channel. */
export type ChannelState =
  | RootState
  | SessionState
  | AnnotationsState
  | ChatState
  | TerminalState
  | ChangesetState
  | ResourceWatchState
  | AutomationState
  | AutomationRunState
  | CanvasState;

/** The root channel's URI. */
export type RootUri = `ahp-root:${string}`;
/** A session's channel URI (`ahp-session:/<id>`). */
export type SessionUri = `ahp-session:${string}`;
/** A session's annotations channel URI (`ahp-session:/<id>/annotations`). */
export type AnnotationsUri = `ahp-session:${string}/annotations`;
/** A chat's channel URI (`ahp-chat:/<id>`). */
export type ChatUri = `ahp-chat:${string}`;
/** A terminal's channel URI (`ahp-terminal:/<id>`). */
export type TerminalUri = `ahp-terminal:${string}`;
/** A changeset's channel URI (`ahp-changeset:/<id>`). */
export type ChangesetUri = `ahp-changeset:${string}`;
/** A resource watch's channel URI (`ahp-resource-watch:/<id>`). */
export type ResourceWatchUri = `ahp-resource-watch:${string}`;
/** The automation catalogue's URI (`ahp-automations://`). */
export type AutomationsUri = `ahp-automations:${string}`;
/** An automation run's channel URI (`ahp-automation-run:/<id>`). */
export type AutomationRunUri = `ahp-automation-run:${string}`;
/** A canvas's channel URI (`ahp-canvas:/<id>`). */
export type CanvasUri = `ahp-canvas:${string}`;

/**
 * The kind of the channel `U` names, as the SDK tells them apart (by the scheme; a session's
 * annotations by the path): its state and its actions. A URI typed only `string`, or of
 * another scheme, gives any state and any action.
 */
type ChannelOfUri<U extends string> = string extends U
  ? { state: ChannelState; action: StateAction }
  : U extends RootUri
    ? { state: RootState; action: RootAction }
    : U extends AnnotationsUri
      ? { state: AnnotationsState; action: AnnotationsAction }
      : U extends SessionUri
        ? { state: SessionState; action: SessionAction }
        : U extends ChatUri
          ? { state: ChatState; action: ChatAction }
          : U extends TerminalUri
            ? { state: TerminalState; action: TerminalAction }
            : U extends ChangesetUri
              ? { state: ChangesetState; action: ChangesetAction }
              : U extends ResourceWatchUri
                ? { state: ResourceWatchState; action: ResourceWatchAction }
                : U extends AutomationsUri
                  ? { state: AutomationState; action: AutomationAction }
                  : U extends AutomationRunUri
                    ? { state: AutomationRunState; action: AutomationRunAction }
                    : U extends CanvasUri
                      ? { state: CanvasState; action: CanvasAction }
                      : { state: ChannelState; action: StateAction };

/**
 * The state of the channel `U` names: `ChatUri` -> `ChatState`, and so on. Give the variable
 * a URI type (`const uri: ChatUri = ...`) to get the precise one.
 */
export type StateOfUri<U extends string> = ChannelOfUri<U>['state'];
/** The actions of the channel `U` names (what `dispatch` takes): `ChatUri` -> `ChatAction`. */
export type ActionOfUri<U extends string> = ChannelOfUri<U>['action'];

/**
 * A connection to one AHP 1.0 agent host. Keeps itself alive while open (like a WebSocket):
 * call `close()` when done.
 */
export interface AhpClient
  extends ClientCore<Types>,
    ClientHandlesCore<Types, ActiveClientHandle, TerminalHandle, ChangesetHandle> {}
export declare class AhpClient {
  private constructor();
  /**
   * Opens the connection and performs `initialize` (offering `1.0.0`); rejects with a typed
   * error if that fails (`UnsupportedProtocolVersionError` from a host without 1.0). Loads the
   * WebAssembly module first if `init()` has not.
   */
  static connect(url: string, options?: ConnectOptions): Promise<AhpClient>;
  /**
   * Subscribes (or returns the live subscription) to a channel. The state and action types
   * follow the URI (`StateOfUri`, `ActionOfUri`): `subscribe('ahp-chat:/1')` is a
   * `Subscription<ChatState, ChatAction>`.
   */
  subscribe<U extends string>(uri: U): Promise<Subscription<StateOfUri<U>, ActionOfUri<U>>>;
  /** The live subscription of `uri`, if any (typed like `subscribe`). */
  subscription<U extends string>(uri: U): Subscription<StateOfUri<U>, ActionOfUri<U>> | undefined;
  /**
   * Applies `action` (one of the channel's kind) optimistically, sends `dispatchAction`;
   * returns its `clientSeq`. The host refuses actions clients may not dispatch (rejected, then
   * reverted). Throws NotSubscribedError / ClientClosedError / InvalidInputError.
   */
  dispatch<U extends string>(uri: U, action: ActionOfUri<U>): number;

  // <generated: command methods> from src/protocol/v1/command_table.rs: cargo run -p xtask -- codegen
  /** Liveness check: resolves when the server answers. */
  ping(): Promise<void>;
  /** Create a session at a client-chosen URI. */
  createSession(params: CreateSessionParams): Promise<void>;
  /** Dispose a session. */
  disposeSession(params: DisposeSessionParams): Promise<void>;
  /** Create a chat in a session (the channel), at a client-chosen chat URI. */
  createChat(params: CreateChatParams): Promise<void>;
  /** Dispose a chat (the channel). */
  disposeChat(params: DisposeChatParams): Promise<void>;
  /** Move a chat (the channel) within or between sessions; returns its owning session. */
  moveChat(params: MoveChatParams): Promise<MoveChatResult>;
  /** List session summaries. */
  listSessions(params?: RootParams<ListSessionsParams>): Promise<ListSessionsResult>;
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
  /** Load a chat's older turns into its state (`chat/turnsLoaded`); the result carries none. */
  fetchTurns(params: FetchTurnsParams): Promise<FetchTurnsResult>;
  /** Push a bearer token for a protected resource. */
  authenticate(params: RootParams<AuthenticateParams>): Promise<AuthenticateResult>;
  /** Create a terminal. */
  createTerminal(params: CreateTerminalParams): Promise<void>;
  /** Dispose a terminal. */
  disposeTerminal(params: DisposeTerminalParams): Promise<void>;
  /** Resolve a session config before creating the session. */
  resolveSessionConfig(params: RootParams<ResolveSessionConfigParams>): Promise<ResolveSessionConfigResult>;
  /** Complete dynamic fields of a pre-creation session config. */
  sessionConfigCompletions(params: RootParams<SessionConfigCompletionsParams>): Promise<SessionConfigCompletionsResult>;
  /** Input completions (e.g. `@` mentions). */
  completions(params: CompletionsParams): Promise<CompletionsResult>;
  /** Run a changeset operation. */
  invokeChangesetOperation(params: InvokeChangesetOperationParams): Promise<InvokeChangesetOperationResult>;
  /** The event-trigger types available for a prospective automation's session template. */
  listAutomationTriggerDefinitions(params: ListAutomationTriggerDefinitionsParams): Promise<ListAutomationTriggerDefinitionsResult>;
  /** Start a manual run of an automation (idempotent per `requestId`); returns the run's channel. */
  runAutomation(params: RunAutomationParams): Promise<RunAutomationResult>;
  /** Load an older page of an automation's runs (delivered by `automation/set`). */
  fetchAutomationRuns(params: FetchAutomationRunsParams): Promise<FetchAutomationRunsResult>;
  // </generated: command methods>
}

/**
 * A live mirror of one channel (one object per channel and client): its 1.0 state `S`, its
 * actions `A`.
 */
export interface Subscription<S = ChannelState, A = StateAction> extends SubscriptionCore<Types, S, A> {}
export declare class Subscription<S = ChannelState, A = StateAction> {
  private constructor();
}

/** Several AHP 1.0 hosts at once, each with its own connection and reconnect; events fanned in. */
export interface MultiHostClient extends MultiHostClientCore<Types, AhpClient, ConnectOptions> {}
export declare class MultiHostClient {
  /**
   * `clientIds`: each host's client id is read from it on `addHost` (unless `options.clientId`
   * is given) and written back once connected, so a host sees the same client after a reload.
   */
  constructor(options?: { clientIds?: ClientIdStore });
}

// The roles and handles (../handles.d.ts) with AHP 1.0's types.

/** What a client tool's `execute` gets besides its input (1.0: `chat`, the chat of the call). */
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

/**
 * This client's active-client role of one session (its entry in `activeClients`), from
 * `AhpClient.setActiveClient`.
 */
export interface ActiveClientHandle extends ActiveClientHandleCore<Types, AhpClient> {}
export declare class ActiveClientHandle {
  private constructor();
}

/** A shell-integration command event of `TerminalHandle.onCommand`. */
export interface TerminalCommandEvent extends TerminalCommandEventOf<Types> {}

/** One changeset (`AhpClient.changeset(uri)` / `sessionChangeset(session)`), over its subscription. */
export interface ChangesetHandle
  extends ChangesetHandleCore<Types, AhpClient, Subscription<ChangesetState, ChangesetAction>> {}
export declare class ChangesetHandle {
  private constructor();
}

/**
 * One terminal (`AhpClient.terminal(uri)` / `openTerminal(params)`), over its subscription.
 * The exit is 1.0's `lifecycle` (`exitCode` and `exited` are `undefined` for an exit without a code).
 */
export interface TerminalHandle
  extends TerminalHandleCore<Types, AhpClient, Subscription<TerminalState, TerminalAction>> {}
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
