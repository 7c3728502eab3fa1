// The declarations both entries share (js/index.d.ts, AHP 0.3.0; js/v1/index.d.ts, AHP 1.0):
// loading, errors, transports, options, and the client members whose types do not depend on
// the protocol version, the latter generic over the version's types (`ProtocolTypes`). Each
// entry's index.d.ts re-exports what it offers of this file and declares its client classes
// with its own types (the roles and handles over these: handles.d.ts). Hand-written;
// scripts/build-pkg.sh copies it into pkg/. The error classes must match
// src/client/error_classes.rs (`codegen --check` checks them).

/**
 * The types a protocol version gives the shared declarations below (each entry's index.d.ts
 * fills them in: AHP 0.3.0's or 1.0's `StateAction`, `CommandMap`, ...).
 */
export interface ProtocolTypes {
  /** Every action of the version (`StateAction`). */
  action: { type: string };
  /** `ClientCapabilities`, offered in `initialize`. */
  capabilities: unknown;
  /** `TelemetryCapabilities`, from the handshake. */
  telemetry: unknown;
  /** The params of each protocol notification by method (`NotificationMap`). */
  notifications: object;
  /** Each command's params and result by method (`CommandMap`). */
  commands: object;
  /** What a resource watch reports (`ResourceChange`). */
  resourceChange: unknown;
  /** An agent of the root state (`AgentInfo`). */
  agent: unknown;
  /** A session's summary (`SessionSummary`). */
  sessionSummary: unknown;
  /** `listSessions`' params (`ListSessionsParams`). */
  listSessionsParams: { channel: string };
  /** A block of a tool call's content or result (`ToolResultContent`). */
  toolResultContent: unknown;
  /** What an active client publishes (`SessionActiveClient`). */
  activeClient: unknown;
  /** A client-published plugin (`ClientPluginCustomization`). */
  pluginCustomization: unknown;
  /** An MCP server customization of a session (`McpServerCustomization`). */
  mcpServerCustomization: unknown;
  /** What the host serves on an `mcp://` channel (`AhpMcpUiHostCapabilities`). */
  mcpUiHostCapabilities: unknown;
  /** A terminal's state (`TerminalState`). */
  terminalState: unknown;
  /** Who holds a terminal (`TerminalClaim`). */
  terminalClaim: unknown;
  /** A command shell integration reported (`TerminalCommandPart`). */
  terminalCommandPart: unknown;
  /** `createTerminal`'s params (`CreateTerminalParams`). */
  createTerminalParams: unknown;
  /** What a terminal's `exited` resolves with: 0.3.0 always has a code, 1.0 may exit without one. */
  terminalExit: number | undefined;
  /** A changeset's state (`ChangesetState`). */
  changesetState: { status: unknown };
  /** A changed file of a changeset (`ChangesetFile`). */
  changesetFile: unknown;
  /** An operation a changeset offers (`ChangesetOperation`). */
  changesetOperation: unknown;
  /** `invokeChangesetOperation`'s result (`InvokeChangesetOperationResult`). */
  invokeChangesetOperationResult: unknown;
}

/** The params of command `M` of a `CommandMap`. */
export type CommandParams<C, M extends keyof C> = C[M] extends { params: infer X } ? X : never;
/** The result of command `M` of a `CommandMap`. */
export type CommandResult<C, M extends keyof C> = C[M] extends { result: infer X } ? X : never;

/**
 * Params of the commands addressed to the root channel: `channel` is always `'ahp-root://'`
 * and may be left out (the client fills it in).
 */
export type RootParams<T extends { channel: string }> = Omit<T, 'channel'> & { channel?: 'ahp-root://' };

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

/** `ConnectOptions` of a protocol version (its `capabilities`). */
export interface ConnectOptionsOf<P extends ProtocolTypes> {
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
  capabilities?: P['capabilities'];
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

/** What the server said in the handshake (`ServerInfo` of a protocol version). */
export interface ServerInfoOf<P extends ProtocolTypes> {
  protocolVersion: string;
  serverSeq: number;
  defaultDirectory?: string;
  completionTriggerCharacters?: string[];
  /** The host's OTLP telemetry channels, when it has any. */
  telemetry?: P['telemetry'];
  /**
   * The largest frame the host reads, when it says (`ahp-host` does: an extension). A larger
   * request is not sent: it rejects with a `TransportError` (`transportKind` `'send'`).
   */
  maxFrameBytes?: number;
}

/** An own action the server rejected (its optimistic effect is reverted). */
export interface RejectionOf<P extends ProtocolTypes> {
  clientSeq: number;
  action: P['action'];
  reason: string;
}

/** Why own pending actions were dropped without an echo. */
export type DropReason = 'skipped' | 'reconnectSnapshot' | 'inFlightOnReconnect' | 'channelLost' | 'unsubscribed';

/** Passed to `Subscription.onChange` listeners with the new state. */
export interface ChangeInfoOf<P extends ProtocolTypes> {
  /** Top-level fields of `state` that may differ from the previous notification. */
  changed: string[];
  /** Own actions still awaiting their echo. */
  pendingCount: number;
  /** Own actions the server rejected in this batch. */
  rejections: RejectionOf<P>[];
}

/**
 * A protocol notification (`root/sessionAdded`, `auth/required`, ...): checking `method`
 * narrows `params` to its type.
 */
export type NotificationEventOf<P extends ProtocolTypes> = {
  [M in keyof P['notifications']]: { type: 'notification'; method: M; params: P['notifications'][M] };
}[keyof P['notifications']];

/** Everything a client reports besides request results and per-subscription changes. */
export type ClientEventOf<P extends ProtocolTypes> =
  | { type: 'connectionState'; state: ConnectionState }
  | { type: 'connected'; info: ServerInfoOf<P>; resumed: boolean }
  | { type: 'reconnectFailed'; attempt: number; error: AhpError }
  /**
   * Reconnecting stopped for a failure no retry can fix (WebSocket transport: `error.reason` is
   * `'unauthorized'`, `'forbidden-origin'` or `'not-found'`); the client closes next.
   */
  | { type: 'reconnectAborted'; error: TransportError }
  | NotificationEventOf<P>
  /**
   * A notification outside the protocol's set (`NotificationMap`): MCP traffic on an `mcp://`
   * channel, an extension's.
   */
  | { type: 'otherNotification'; method: string; params: unknown }
  | { type: 'rejected'; channel: string; rejection: RejectionOf<P> }
  | { type: 'pendingDropped'; channel: string; actions: { clientSeq: number; action: P['action'] }[]; reason: DropReason }
  | { type: 'resync'; channel: string; reason: string }
  | { type: 'subscriptionLost'; channel: string; reason: string }
  /**
   * A subscribed resource watch's changes (its `resourceWatch/changed` actions of one batch, in
   * order): they leave the watch's state as it is, so they come here, not to `onChange`.
   */
  | { type: 'resourceChanges'; channel: string; changes: P['resourceChange'][] }
  | { type: 'malformed'; message: string; frame: string };

/**
 * The members of `AhpClient` whose types follow only from the protocol version's
 * (`ProtocolTypes`); each entry's `AhpClient` adds `connect`, `subscribe`, `dispatch` and its
 * command methods.
 */
export interface ClientCore<P extends ProtocolTypes> {
  readonly url: string;
  readonly clientId: string;
  /** The secret the host bound `clientId` to, once connected (`undefined` if it issues none). */
  readonly clientSecret: string | undefined;
  readonly connectionState: ConnectionState;
  readonly serverInfo: ServerInfoOf<P> | undefined;
  /** Listens to client events; returns the function that removes the listener. */
  onEvent(listener: (event: ClientEventOf<P>) => void): () => void;
  /** Listens to connection state changes. */
  onConnectionStateChange(listener: (state: ConnectionState) => void): () => void;
  /** Answers server→client requests of `method` (e.g. `'resourceRequest'`); others get -32601. */
  setRequestHandler(method: string, handler: (params: unknown) => unknown | Promise<unknown>): void;
  /**
   * Sends a request by method name, params as they go on the wire (the typed command methods
   * fill in the root channel and check the params first). A method of `CommandMap` is typed by
   * it; any other method name takes and gives `unknown`.
   */
  request<M extends keyof P['commands']>(
    method: M,
    params: CommandParams<P['commands'], M>,
  ): Promise<CommandResult<P['commands'], M>>;
  request<M extends string>(method: M extends keyof P['commands'] ? never : M, params?: unknown): Promise<unknown>;
  /**
   * Sends a notification by method name (no answer), at once: throws `TransportError` while
   * not connected (notifications are not queued), and for `dispatchAction` and `unsubscribe`
   * (use `dispatch()` and `unsubscribe()`, which keep the mirrors right).
   */
  notify(method: string, params?: unknown): void;
  /** Closes for good: outstanding requests reject with ClientClosedError. */
  close(): void;
}

/**
 * The members of `Subscription`: a live mirror of one channel whose state is `S` and whose
 * actions (what `dispatch` takes) are `A`.
 */
export interface SubscriptionCore<P extends ProtocolTypes, S, A> {
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
  onChange(listener: (state: DeepReadonly<S>, info: ChangeInfoOf<P>) => void): () => void;
  /** Same as `client.dispatch(this.uri, action)`. */
  dispatch(action: A): number;
  unsubscribe(): void;
}

/** The members of `MultiHostClient` over a version's client `C` and options `O`. */
export interface MultiHostClientCore<P extends ProtocolTypes, C, O> {
  /** Connects (or returns the existing client) under `name`. */
  addHost(name: string, url: string, options?: O): Promise<C>;
  /** Every host's agents (from its root state), each with its host's name. */
  agents(): { host: string; agent: DeepReadonly<P['agent']> }[];
  /** Every host's sessions (`listSessions` on each, at once); hosts that failed are in `failed`. */
  listSessions(params?: RootParams<P['listSessionsParams']>): Promise<{
    sessions: { host: string; session: P['sessionSummary'] }[];
    failed: { host: string; error: AhpError }[];
  }>;
  /** Closes and forgets a host. */
  removeHost(name: string): void;
  host(name: string): C | undefined;
  hostNames(): string[];
  onEvent(listener: (host: string, event: ClientEventOf<P>) => void): () => void;
  close(): void;
}

/** Where a `MultiHostClient` keeps each host's client id across runs. */
export interface ClientIdStore {
  get(host: string): string | undefined | null;
  set(host: string, clientId: string): void;
}

/** A `ClientIdStore` over `localStorage` (browsers): one JSON object under `key`. */
export declare function localStorageClientIds(key?: string): ClientIdStore;

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
