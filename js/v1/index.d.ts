// TypeScript contract of the package's default entry `ahp-wasm`, AHP 1.0 (the wasm module built
// with cargo feature `v1` alone; `ahp-wasm/v1` is the same entry under its preview name).
// Hand-written; its generated half is ./generated.d.ts (`cargo run -p xtask -- codegen`: the
// named values from the 1.0 definition, the command types and methods from
// src/protocol/v1/command_table.rs), which it re-exports. scripts/build-pkg.sh copies both into
// pkg/ beside the 1.0 reducers' declarations and the 1.0 wire types (reducers.d.ts, types.d.ts)
// and the declarations shared with the 0.3.0 entry (common.d.ts, handles.d.ts; `../` here,
// `./` there).
//
// The client classes are the 0.3.0 entry's (one implementation), speaking 1.0 here, and typed
// so: `dispatch` takes the actions of the channel's kind, `state` is the channel's 1.0 state,
// the command methods are the 1.0 table's. The roles and handles (the active client, terminal
// and changeset handles, `McpChannel`; ../handles.d.ts) are the 0.3.0 entry's code too, typed
// here with 1.0's wire types.

export * from './generated.js';
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
  CreateTerminalParams,
  InvokeChangesetOperationResult,
  ListSessionsParams,
} from './types.js';
import type { AhpClientCommands, CommandMap, NotificationMap } from './generated.js';

/** The protocol version this entry speaks: `'1.0.0'`. */
export declare const PROTOCOL_VERSION: string;

/** Every protocol version this entry speaks: `['1.0.0']`. */
export declare const SUPPORTED_PROTOCOL_VERSIONS: string[];

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
    ClientHandlesCore<Types, ActiveClientHandle, TerminalHandle, ChangesetHandle>,
    AhpClientCommands {}
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
  // The command methods: `AhpClientCommands` (./generated.d.ts).
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
