// The declarations of the roles and handles both entries share (js/index.d.ts, AHP 0.3.0;
// js/v1/index.d.ts, AHP 1.0), over the client's public API: the active client
// (js/active-client.js), terminals (terminal.js), changesets (changeset.js) and `McpChannel`
// (mcp-channel.js), the same code on both versions. Generic over the version's types
// (`ProtocolTypes` of common.d.ts); each entry re-exports this file and declares the classes
// (`ActiveClientHandle`, `TerminalHandle`, `ChangesetHandle`, `McpChannel`) and the types
// without `Of` over these, with its own wire types. Hand-written; scripts/build-pkg.sh copies
// it into pkg/.

import type { DeepReadonly, ProtocolTypes } from './common.js';

/** What a tool call's content or result may be given as: text, content blocks, or both mixed. */
export type ToolContentOf<P extends ProtocolTypes> =
  | string
  | P['toolResultContent']
  | (string | P['toolResultContent'])[];

/** What a client tool's `execute` gets besides its input (`ToolContext`). */
export interface ToolContextOf<P extends ProtocolTypes> {
  /** Aborted when the call is cancelled (turn cancelled, call denied) or the role released. */
  signal: AbortSignal;
  /** Streams progress: replaces the call's `content` (0.3.0 `session/`, 1.0 `chat/toolCallContentChanged`). */
  update(content: ToolContentOf<P>): void;
  toolCallId: string;
  turnId: string;
  session: string;
  /** 1.0: the chat of the call (its `ahp-chat:` URI). */
  chat?: string;
}

/** What `execute` may return: text, content blocks, or a result with structured content (`ToolReturn`). */
export type ToolReturnOf<P extends ProtocolTypes> =
  | ToolContentOf<P>
  | { content?: ToolContentOf<P>; structuredContent?: Record<string, unknown>; pastTenseMessage?: string }
  | void;

/** A call the app is asked to confirm. */
export interface ToolCallRequest {
  tool: string;
  input: unknown;
  toolCallId: string;
  session: string;
  /** 1.0: the chat of the call (its `ahp-chat:` URI). */
  chat?: string;
}

/**
 * A tool this client lends the agent (`ClientTool`). `inputSchema` (JSON Schema) is published
 * and checked before `execute` runs: an input that does not match, a thrown error or a
 * rejected promise completes the call with `success: false` and the message.
 */
export interface ClientToolOf<P extends ProtocolTypes, I = any> {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** The app's own confirmation for this tool (overrides `ActiveClientOptions.confirm`); false denies the call. */
  confirm?: (call: ToolCallRequest) => boolean | Promise<boolean>;
  execute(input: I, context: ToolContextOf<P>): ToolReturnOf<P> | Promise<ToolReturnOf<P>>;
}

/** A plugin of in-memory files, from `buildClientPlugin` (`ClientPlugin`). */
export interface ClientPluginOf<P extends ProtocolTypes> {
  readonly customization: P['pluginCustomization'];
  /** File URIs (`virtual://...`) to their text. */
  readonly files: ReadonlyMap<string, string>;
}

/** What `buildClientPlugin` makes a plugin of: its id, name and files (relative path to text). */
export interface ClientPluginSource {
  id: string;
  name?: string;
  files: Record<string, string>;
}

/** `setActiveClient`'s options (`ActiveClientOptions`). */
export interface ActiveClientOptionsOf<P extends ProtocolTypes> {
  displayName?: string;
  tools?: ClientToolOf<P>[];
  /** Plugins to publish (`SessionActiveClient.customizations`). */
  plugins?: ClientPluginOf<P>[];
  /** Section ids this client wants to rewrite (see `RootState.agents[].systemMessageSections`). */
  systemMessageTransform?: { sections: string[] };
  /** Confirms every call before it runs, whatever the server's advisory `confirmed` says. */
  confirm?: (call: ToolCallRequest) => boolean | Promise<boolean>;
}

/** The members of `ActiveClientHandle`, the role of one session held by client `C`. */
export interface ActiveClientHandleCore<P extends ProtocolTypes, C> {
  readonly client: C;
  readonly session: string;
  /** What this handle publishes as `SessionActiveClient`. */
  readonly activeClient: P['activeClient'];
  /**
   * Whether the session state names this client as an active one (0.3.0: its
   * `activeClient`; 1.0: in `activeClients`).
   */
  readonly isActive: boolean;
  /**
   * Replaces the tools (0.3.0: `session/activeClientToolsChanged`; 1.0: the client's entry set
   * again, `session/activeClientSet`); running calls go on.
   */
  updateTools(tools: ClientToolOf<P>[]): void;
  /** Replaces the published plugins (claims the role again with them). */
  updatePlugins(plugins: ClientPluginOf<P>[]): void;
  /**
   * Gives the role up (0.3.0: `activeClient: null`; 1.0: `session/activeClientRemoved`) and
   * aborts running calls.
   */
  release(): void;
}

/**
 * One section of a `systemMessageTransform` request or answer: each entry exports the wire's
 * `SystemMessageTransformSection`, of this shape.
 */
type Section = { content: string };

/** Rewrites system-prompt sections: return the changed ones (a string or `{ content }` each). */
export type SystemMessageTransformHandler = (request: {
  channel: string;
  sections: Record<string, Section>;
}) =>
  | Record<string, string | Section>
  | { sections: Record<string, string | Section> }
  | Promise<Record<string, string | Section> | { sections: Record<string, string | Section> }>;

/** A shell-integration command event of `TerminalHandle.onCommand` (`TerminalCommandEvent`). */
export interface TerminalCommandEventOf<P extends ProtocolTypes> {
  type: 'executed' | 'finished';
  command: DeepReadonly<P['terminalCommandPart']>;
}

/**
 * The members of `TerminalHandle`: one terminal of client `C` (`AhpClient.terminal(uri)` /
 * `openTerminal(params)`), over its subscription `S`.
 *
 * ```ts
 * const term = await client.openTerminal({ cols: 100, rows: 30 });
 * term.onData((data, { reset }) => (reset ? print(data, true) : print(data)));
 * term.onCommand((e) => e.type === 'finished' && console.log(e.command.commandLine, e.command.exitCode));
 * term.write('echo hi\r');
 * await term.resize(120, 40);
 * ```
 */
export interface TerminalHandleCore<P extends ProtocolTypes, C, S> {
  readonly client: C;
  readonly uri: string;
  readonly subscription: S;
  readonly state: DeepReadonly<P['terminalState']>;
  readonly title: string;
  /** Who holds the terminal (`state.claim`; `claim()` changes it). */
  readonly holder: DeepReadonly<P['terminalClaim']> | undefined;
  readonly cols: number | undefined;
  readonly rows: number | undefined;
  readonly cwd: string | undefined;
  /**
   * The shell's exit code once it exited (-1: killed by a signal). 1.0: `undefined` also after
   * an exit the host reported without a code.
   */
  readonly exitCode: number | undefined;
  /** Resolves with the exit code once the shell exited (1.0: `undefined` for an exit without one). */
  readonly exited: Promise<P['terminalExit']>;
  /** Whether shell integration reports commands (`supportsCommandDetection`). */
  readonly commandDetection: boolean;
  /** The command parts reported so far (trimmed with the scrollback). */
  readonly commands: DeepReadonly<P['terminalCommandPart']>[];
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
  /**
   * `terminal/claimed` (default: this client): resolves once the host took it; rejects with an
   * AhpError of kind `'rejected'` and the host's reason. (1.0: a session claim names its chat.)
   */
  claim(claim?: P['terminalClaim']): Promise<void>;
  /** New output; with `reset` the whole text again (after a clear or a trim). Returns the remover. */
  onData(listener: (data: string, info: { reset: boolean }) => void): () => void;
  /** Commands as shell integration reports them. Returns the remover. */
  onCommand(listener: (event: TerminalCommandEventOf<P>) => void): () => void;
  /** Stops the listeners (and the subscription `terminal()` made); the terminal runs on. */
  close(): void;
  /** `disposeTerminal`, then `close()`. */
  dispose(): Promise<void>;
}

/**
 * The members of `ChangesetHandle`: one changeset of client `C` (`AhpClient.changeset(uri)` /
 * `sessionChangeset(session)`), over its subscription `S`: the changed files, the status, the
 * operations the host offers.
 *
 * ```ts
 * const changes = await client.sessionChangeset(session);
 * await changes?.ready();
 * for (const f of changes?.files ?? []) console.log(f.id, f.edit.diff?.added, f.edit.diff?.removed);
 * await changes?.invoke('revert', changes.files[0]?.id); // per file, if the host offers it
 * ```
 */
export interface ChangesetHandleCore<P extends ProtocolTypes, C, S> {
  readonly client: C;
  readonly uri: string;
  readonly subscription: S;
  /** The changeset's state (frozen). */
  readonly state: DeepReadonly<P['changesetState']>;
  readonly status: P['changesetState']['status'];
  /** The changed files: `id` is the file's URI, `edit` its before/after and line counts. */
  readonly files: DeepReadonly<P['changesetFile'][]>;
  /** The operations the host offers. */
  readonly operations: DeepReadonly<P['changesetOperation'][]>;
  /** The changed file `resource` (its URI), if it is in the changeset. */
  file(resource: string): DeepReadonly<P['changesetFile']> | undefined;
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
  invoke(operationId: string, resource?: string): Promise<P['invokeChangesetOperationResult']>;
  /** Listens to changes (the handle is passed). Returns the remover. */
  onChange(listener: (changeset: this) => void): () => void;
  /** Stops the listeners (and the subscription `changeset()` made). */
  close(): void;
}

/** Options of `McpChannel.request` and `McpChannel.ready`. */
export interface McpRequestOptions {
  /** Rejects with `RpcTimeoutError` after this long (default: the channel's `timeoutMs`, else the client's request timeout). */
  timeoutMs?: number;
  /** Rejects with an `AhpError` of kind `'aborted'` when it fires. */
  signal?: AbortSignal;
}

/**
 * The members of `McpChannel`: MCP JSON-RPC over the `mcp://` channel of a session's MCP server
 * customization (AHP `spec/mcp-channel.md`), for client `C`. The host serves only the methods
 * of the advertised capability sets (`capabilities`); anything else rejects with `RpcError`
 * code -32601. The channel URI is read again from the session state for every request, so a
 * channel that changes (a restart) is followed. The host only exposes channels to clients that
 * connected with `capabilities: { mcpApps: {} }`.
 *
 * ```ts
 * const client = await AhpClient.connect(url, { token, capabilities: { mcpApps: {} } });
 * const channel = await McpChannel.open(client, sessionUri, 'mcp/basic');
 * await channel.ready();
 * const { contents } = await channel.request('resources/read', { uri: 'ui://get-time/mcp-app.html' });
 * ```
 */
export interface McpChannelCore<P extends ProtocolTypes, C> {
  readonly client: C;
  readonly session: string;
  readonly customizationId: string;
  /** The customization as the session state has it now. */
  readonly customization: P['mcpServerCustomization'] | undefined;
  /** The channel URI now; `undefined` while the server is not ready. */
  readonly uri: string | undefined;
  /** What the host serves on the channel (`mcpApp.capabilities`). */
  readonly capabilities: P['mcpUiHostCapabilities'] | undefined;
  /** Resolves with the channel URI once present; rejects with `ChannelUnavailableError` if the server fails, stops or needs auth first. */
  ready(options?: McpRequestOptions): Promise<string>;
  /** Sends an MCP request; rejects with `ChannelUnavailableError`, `RpcError` or `RpcTimeoutError`. */
  request<R = unknown>(method: string, params?: object, options?: McpRequestOptions): Promise<R>;
  /** Listens to the MCP notifications forwarded on this channel (`params` without `channel`); returns the remover. */
  onNotification(listener: (method: string, params: Record<string, unknown>) => void): () => void;
  /** Stops listening; later requests reject with `ClientClosedError`. */
  close(): void;
}

/**
 * The members of `AhpClient` that hand out the roles and handles above: `A` is the entry's
 * `ActiveClientHandle`, `T` its `TerminalHandle`, `H` its `ChangesetHandle`.
 */
export interface ClientHandlesCore<P extends ProtocolTypes, A, T, H> {
  /**
   * Claims the active-client role of `session` (0.3.0: `session/activeClientChanged`; 1.0:
   * `session/activeClientSet`, this client's entry in `activeClients`) with tools the agent can
   * call, plugins, and the `systemMessageTransform` opt-in; subscribes to the session if
   * needed (1.0: and to its chats, which hold the calls). The SDK then runs the tools'
   * `execute` for calls this client owns (see `ClientTool`), denies calls for tools it does
   * not have, answers the host's reads of the plugins' files, and claims the role again after
   * a reconnect if it is vacant (1.0: if this client's entry is gone). Replaces this client's
   * earlier handle for the session. Throws InvalidInputError for bad options.
   */
  setActiveClient(session: string, options?: ActiveClientOptionsOf<P>): Promise<A>;
  /**
   * Gives up this client's active-client role of `session` (its handle's `release()`, or when
   * the state names this client without a handle: 0.3.0 `activeClient: null`, 1.0
   * `session/activeClientRemoved`). Returns whether this client held the role.
   */
  releaseActiveClient(session: string): boolean;
  /**
   * Handles the host's `systemMessageTransform` requests (our extension): `handler` gets the
   * rendered sections the host offers and returns rewritten ones; sections it leaves out pass
   * through, and ids the host did not offer are dropped. `null` removes the handler.
   */
  onSystemMessageTransform(handler: SystemMessageTransformHandler | null): void;
  /** The terminal at `uri` as a `TerminalHandle`, subscribing to it when needed. */
  terminal(uri: string): Promise<T>;
  /**
   * `createTerminal` with defaults (a fresh `ahp-terminal:/` URI, a client claim for this
   * client), then `terminal(uri)`. Throws InvalidInputError for `cols`/`rows` outside 1..=1000.
   */
  openTerminal(params?: Partial<P['createTerminalParams']>): Promise<T>;
  /** The changeset at `uri` (`ahp-changeset:`) as a `ChangesetHandle`, subscribing to it when needed. */
  changeset(uri: string): Promise<H>;
  /**
   * The changeset of `session`'s catalogue (its first entry that is a URI, not a template), or
   * `undefined` when the session offers none; subscribes to the session when needed.
   */
  sessionChangeset(session: string): Promise<H | undefined>;
}
