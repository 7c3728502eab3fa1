// A TypeScript consumer of the package. Every `@ts-expect-error` must be a real error: if the
// package's .d.ts degraded to `any` (or lost optional/required fields or the action union),
// tsc would report the directive as unused and this check fails.
import {
  sessionReducer,
  rootReducer,
  terminalReducer,
  changesetReducer,
  resourceWatchReducer,
  PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  AhpError,
  InvalidInputError,
  type SessionState,
  type StateAction,
  type RootState,
  type TerminalState,
  type ChangesetState,
  type ResourceWatchState,
  type ResponsePart,
  type SessionSummary,
  init,
  type InitOptions,
  type WasmSource,
} from 'ahp-wasm/v0.3';
import * as ahp from 'ahp-wasm/v0.3';

// Loading: `init()` before anything that needs the WebAssembly module; no top-level await in
// the package, so the app decides when to wait.
const loaded: Promise<void> = init();
await init({ wasm: new URL('https://cdn.example/ahp_wasm_bg.wasm') });
await init({ wasm: '/assets/ahp_wasm_bg.wasm' });
await init({ wasm: fetch('/assets/ahp_wasm_bg.wasm') });
await init({ wasm: new Uint8Array(8) });
declare const compiled: WebAssembly.Module;
const fromModule: InitOptions = { wasm: compiled };
const source: WasmSource = new ArrayBuffer(8);
// (WebAssembly.Module is an empty interface in lib.dom, so any non-null value type-checks.)
// @ts-expect-error null is no wasm source
await init({ wasm: null });

// The protocol's named values, under the official names: values and types.
const deltaType: ahp.ActionType = ahp.ActionType.SessionDelta;
// Each action interface carries its `type`.
const titled: ahp.SessionTitleChangedAction = { type: 'session/titleChanged', title: 'x' };
// @ts-expect-error the wrong type for this action interface
const mistyped: ahp.SessionTitleChangedAction = { type: 'session/delta', title: 'x' };
const namedDelta: StateAction = { type: ahp.ActionType.SessionDelta, turnId: 't', partId: 'p', content: 'x' };
// @ts-expect-error a string that is no action type
const notAnActionType: ahp.ActionType = 'session/nope';
const turnState: ahp.TurnState = ahp.TurnState.Complete;
const waiting = (s: SessionSummary): boolean => (s.status & ahp.SessionStatus.InputNeeded) !== 0;
const notFound: number = ahp.AhpErrorCodes.SessionNotFound;
const mayDispatch: boolean = ahp.isClientDispatchable(namedDelta) || ahp.isClientDispatchable('terminal/input');
const dispatchableType: ahp.ClientDispatchableActionType = 'session/titleChanged';
// @ts-expect-error servers alone send deltas
const serverOnly: ahp.ClientDispatchableActionType = 'session/delta';

const version: string = PROTOCOL_VERSION;
const versions: string[] = SUPPORTED_PROTOCOL_VERSIONS;
// @ts-expect-error PROTOCOL_VERSION is a string
const notANumber: number = PROTOCOL_VERSION;

const summary: SessionSummary = {
  resource: 'copilot:/s',
  provider: 'copilot',
  title: 'Test',
  status: 8,
  createdAt: 1000,
  modifiedAt: 2000,
  // optional fields (activity?, project?, model?, ...) may be left out
};

// Optional fields (creationError?, activeTurn?, _meta?, ...) may be omitted.
const state: SessionState = { summary, lifecycle: 'ready', turns: [] };

const delta: StateAction = { type: 'session/delta', turnId: 'turn-1', partId: 'p1', content: 'Hello' };
const next: SessionState = sessionReducer(state, delta);
const title: string = sessionReducer(next, { type: 'session/titleChanged', title: 'Renamed' }).summary.title;

// StateAction is a union discriminated by `type`: narrowing gives each action's own fields.
function describe(action: StateAction): string {
  switch (action.type) {
    case 'session/delta':
      return `${action.turnId}/${action.partId}: ${action.content}`;
    case 'session/titleChanged':
      return action.title;
    case 'terminal/data':
      return action.data;
    default:
      return action.type;
  }
}

function partText(part: ResponsePart): string | undefined {
  return part.kind === 'markdown' ? part.content : undefined;
}

// --- wrong shapes ---------------------------------------------------------------------------

// @ts-expect-error missing required field `summary`
const noSummary: SessionState = { lifecycle: 'ready', turns: [] };

// @ts-expect-error a member the types do not declare (kept at run time, not typed)
const undeclared: SessionState = { summary, lifecycle: 'ready', turns: [], newerField: 1 };

// @ts-expect-error wrong literal in `lifecycle`
const badLifecycle: SessionState = { summary, lifecycle: 'sleeping', turns: [] };

// @ts-expect-error unknown action `type`
const unknownType: StateAction = { type: 'session/doesNotExist', turnId: 'turn-1' };

// @ts-expect-error wrong field type: `turnId` is a string
const badTurnId: StateAction = { type: 'session/delta', turnId: 1, partId: 'p1', content: 'x' };

// @ts-expect-error missing required field `title` of session/titleChanged
sessionReducer(state, { type: 'session/titleChanged' });

// @ts-expect-error the state argument must be a SessionState
sessionReducer('not a state', delta);

// @ts-expect-error the action argument must be a StateAction
sessionReducer(state, { kind: 'session/delta' });

// @ts-expect-error the result is a SessionState, not a number
const notAState: number = sessionReducer(state, delta);

// @ts-expect-error a terminal state is not a session state
const wrongChannel: SessionState = terminalReducer({} as TerminalState, delta);

// @ts-expect-error `content` does not exist on every response part
const noNarrowing = (part: ResponsePart): string => part.content;

// @ts-expect-error the wasm-bindgen init functions are not part of the package's value exports
ahp.initSync;

// --- the other reducers keep their own state types ----------------------------------------

declare const rootState: RootState;
declare const terminal: TerminalState;
declare const changeset: ChangesetState;
declare const watch: ResourceWatchState;
const r: RootState = rootReducer(rootState, { type: 'root/activeSessionsChanged', activeSessions: 1 });
const t: TerminalState = terminalReducer(terminal, { type: 'terminal/data', data: 'ls\r\n' });
const c: ChangesetState = changesetReducer(changeset, delta);
const w: ResourceWatchState = resourceWatchReducer(watch, delta);

// --- errors ---------------------------------------------------------------------------------

try {
  sessionReducer(state, delta);
} catch (e) {
  if (e instanceof InvalidInputError) {
    const path: string = e.path;
    const argument: string = e.argument;
    const kind: 'invalid-input' = e.kind;
    console.log(path, argument, kind, e.message);
  } else if (e instanceof AhpError) {
    const kind: string = e.kind;
    const code: number | undefined = e.code;
    console.log(kind, code);
  }
}

export { version, versions, notANumber, title, describe, partText, r, t, c, w };
export { noSummary, badLifecycle, unknownType, badTurnId, notAState, wrongChannel, noNarrowing };

// --- the client ---------------------------------------------------------------------------

import {
  AhpClient,
  TerminalHandle,
  Subscription,
  MultiHostClient,
  RpcError,
  RpcTimeoutError,
  TransportError,
  ClientClosedError,
  UnsupportedProtocolVersionError,
  NotSubscribedError,
  InvalidResponseError,
  type ClientEvent,
  type ConnectOptions,
  type ChangeInfo,
  type ConnectionState,
  type TransportFactory,
  webSocketTransport,
} from 'ahp-wasm/v0.3';

async function clientUsage(): Promise<void> {
  const options: ConnectOptions = {
    token: 'secret',
    reconnect: { initialDelayMs: 100, maxAttempts: 5 },
    pendingPolicy: 'dropInFlight',
  };
  const client: AhpClient = await AhpClient.connect('ws://127.0.0.1:8787/ahp', options);
  const stateNow: ConnectionState = client.connectionState;
  const sessions = await client.listSessions();
  const firstTitle: string | undefined = sessions.items[0]?.title;
  // request<M>(): typed by CommandMap for the protocol's methods, unknown for others.
  const raw = await client.request('listSessions', { channel: 'ahp-root://' });
  const rawTitle: string | undefined = raw.items[0]?.title;
  // @ts-expect-error fetchTurns needs its params
  await client.request('fetchTurns', { nope: 1 });
  const customResult: unknown = await client.request('x/custom', { anything: 1 });
  const pair = ahp.InMemoryTransport.pair();
  pair.server.onMessage((frame: string) => pair.server.send(frame));
  const inMemory: AhpClient = await AhpClient.connect('ws://in-memory/ahp', { transport: pair.client });
  const multiHost = new ahp.MultiHostClient({ clientIds: ahp.localStorageClientIds() });
  const everywhere: { host: string; session: ahp.SessionSummary }[] = (await multiHost.listSessions()).sessions;
  const agentNames: string[] = multiHost.agents().map((a) => a.agent.provider);
  client.notify('x/custom', { anything: 1 });
  await client.createSession({ channel: 'ahp-session:/1' });
  // The state type follows the URI's scheme.
  const sub: Subscription<SessionState> = await client.subscribe('ahp-session:/1');
  const rootSub: Subscription<ahp.RootState> = await client.subscribe('ahp-root://');
  const agentCount: number = rootSub.state.agents.length;
  // @ts-expect-error the root state has no turns
  rootSub.state.turns;
  // @ts-expect-error the type argument is the URI's type: a state cannot be claimed for a channel
  await client.subscribe<SessionState>('ahp-root://');
  // @ts-expect-error ... nor can the wrong channel's state be expected from a root URI
  const wrong: Subscription<SessionState> = await client.subscribe('ahp-root://');
  const terminalUri: ahp.TerminalUri = `ahp-terminal:/${agentCount}`;
  const terminalSub: Subscription<ahp.TerminalState> | undefined = client.subscription(terminalUri);
  const someUri: string = rootSub.uri;
  // A URI typed only `string` gives any channel's state, to narrow.
  const anyState: ahp.DeepReadonly<ahp.ChannelState> = (await client.subscribe(someUri)).state;
  // @ts-expect-error ... which is not known to be a session
  const notKnown: Subscription<SessionState> = await client.subscribe(someUri);
  const templated: Subscription<SessionState> = await client.subscribe(`ahp-session:/${someUri}`);
  console.log(wrong, terminalSub, anyState, notKnown, templated);
  const seq: number = sub.dispatch({ type: 'session/titleChanged', title: 'Hi' });
  // @ts-expect-error a server-only action cannot be dispatched
  sub.dispatch({ type: 'session/delta', turnId: 't', partId: 'p', content: 'x' });
  const stop: () => void = sub.onChange((state: ahp.DeepReadonly<SessionState>, info: ChangeInfo) => {
    const turns: number = state.turns.length;
    // @ts-expect-error states are frozen: read-only at every level
    state.turns.push(state.turns[0]!);
    // @ts-expect-error ... and so are their objects
    state.summary.title = 'changed';
    // A reducer keeps the type it is given: read-only stays read-only.
    const next: ahp.DeepReadonly<SessionState> = sessionReducer(state, { type: 'session/titleChanged', title: 'x' });
    const rejected: string[] = info.rejections.map((r) => r.reason);
    console.log(turns, rejected, info.changed, info.pendingCount);
  });
  stop();
  client.onEvent((event: ClientEvent) => {
    switch (event.type) {
      case 'connectionState':
        return console.log(event.state);
      case 'rejected':
        return console.log(event.channel, event.rejection.clientSeq, event.rejection.reason);
      case 'pendingDropped':
        return console.log(event.actions.length, event.reason);
      case 'reconnectFailed':
        return console.log(event.attempt, event.error.kind);
      case 'notification':
        // `method` narrows `params`.
        if (event.method === 'auth/required') {
          const reason: ahp.AuthRequiredReason | undefined = event.params.reason;
          return console.log(reason, event.params.channel);
        }
        if (event.method === 'root/sessionAdded') return console.log(event.params.summary.title);
        // @ts-expect-error a protocol notification's method is one of NotificationMap's
        if (event.method === 'notifications/message') return undefined;
        return undefined;
      case 'resourceChanges':
        return console.log(event.channel, event.changes.map((c: ahp.ResourceChange) => `${c.type} ${c.uri}`));
      case 'otherNotification': {
        const params: unknown = event.params;
        // @ts-expect-error params of other notifications are unknown
        return console.log(event.method, params.channel);
      }
      default:
        return undefined;
    }
  });
  client.setRequestHandler('resourceRequest', async (params) => ({ params }));
  await client.ping();
  try {
    await client.fetchTurns({ channel: 'ahp-session:/1' });
  } catch (e) {
    if (e instanceof RpcError) console.log(e.code, e.data, e.method);
    else if (e instanceof RpcTimeoutError) console.log(e.method);
    else if (e instanceof TransportError) console.log(e.transportKind);
    else if (e instanceof UnsupportedProtocolVersionError) console.log(e.offered, e.supported);
    else if (e instanceof NotSubscribedError) console.log(e.channel);
    else if (e instanceof InvalidResponseError) console.log(e.method);
    else if (e instanceof ClientClosedError) console.log(e.kind);
  }
  const custom: TransportFactory = (url, callbacks) => {
    const ws = new WebSocket(url);
    ws.onopen = () => callbacks.open();
    ws.onmessage = (m) => callbacks.message(String(m.data));
    ws.onclose = (e) => callbacks.close(e.reason);
    return { send: (frame) => ws.send(frame), close: () => ws.close() };
  };
  const multi = new MultiHostClient();
  const other: AhpClient = await multi.addHost('b', 'ws://b/ahp', { transport: custom });
  // Any WHATWG-style WebSocket constructor: the DOM's here, the `ws` package's in Node 20.
  await multi.addHost('c', 'ws://c/ahp', { WebSocket });
  const viaFactory: TransportFactory = webSocketTransport(WebSocket);
  await multi.addHost('d', 'ws://d/ahp', { transport: viaFactory });
  multi.onEvent((host: string, event: ClientEvent) => console.log(host, event.type));
  console.log(stateNow, firstTitle, seq, other.url, multi.hostNames());
  client.close();

  // @ts-expect-error dispatch takes a StateAction
  sub.dispatch({ type: 'session/titleChanged', title: 3 });
  // @ts-expect-error a session subscription's state is a SessionState
  const wrongState: TerminalState = sub.state;
  // @ts-expect-error there is no public constructor: use AhpClient.connect
  new AhpClient();
  // @ts-expect-error createSession needs params
  await client.createSession();
  // @ts-expect-error unknown option
  await AhpClient.connect('ws://x', { tokn: 'typo' });
  // @ts-expect-error listSessions resolves a ListSessionsResult
  const notSessions: number = await client.listSessions({});
  console.log(wrongState, notSessions);
}

export { clientUsage };

// MCP: the channel (main entry) and the App renderer (its own entry).
import { McpChannel, ChannelUnavailableError, AhpClient as Client2 } from 'ahp-wasm/v0.3';
import { mountMcpApp, McpAppError, type McpAppHandle } from 'ahp-wasm/mcp-apps';

async function mcpUsage(client: Client2, el: HTMLElement) {
  const channel = await McpChannel.open(client, 'ahp-session:/s', 'mcp/basic', { timeoutMs: 5000 });
  const uri: string = await channel.ready({ timeoutMs: 1000 });
  const listed = await channel.request<{ tools: { name: string }[] }>('tools/list');
  const names: string[] = listed.tools.map((t) => t.name);
  const off: () => void = channel.onNotification((method: string, params) => console.log(method, params));
  const serverTools: boolean | undefined = channel.capabilities?.serverTools?.listChanged;
  try {
    await channel.request('tools/call', { name: 'get-time', arguments: {} }, { signal: AbortSignal.timeout(100) });
  } catch (e) {
    if (e instanceof ChannelUnavailableError) console.log(e.customizationId, e.serverState, e.kind);
  }
  // @ts-expect-error params is an object
  await channel.request('tools/list', 'nope');
  const app: McpAppHandle = await mountMcpApp(el, {
    client,
    session: 'ahp-session:/s',
    toolCallId: 'call-1',
    onOpenLink: (url: string) => console.log(url),
  });
  await app.close();
  // A 0.3.0 client's App: the handle's channel is the 0.3.0 entry's McpChannel.
  const app03 = await mountMcpApp(el, { client, session: 'ahp-session:/s', toolCallId: 'call-1' });
  const channel03: McpChannel = app03.channel;
  console.log(channel03);
  // @ts-expect-error toolCallId is required
  await mountMcpApp(el, { client, session: 'ahp-session:/s' });
  const err = new McpAppError('x', { kind: 'resource' });
  console.log(uri, names, off, serverTools, err.kind satisfies string);
}

export { mcpUsage };

// The active-client role.
import { buildClientPlugin, type ActiveClientHandle, type ClientTool } from 'ahp-wasm/v0.3';

async function activeClientUsage(client: Client2) {
  const echo: ClientTool<{ text: string }> = {
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    async execute(input, { update, signal }) {
      update(`echoing ${input.text}`);
      if (signal.aborted) return;
      return { content: input.text, structuredContent: { n: input.text.length } };
    },
  };
  const plugin = buildClientPlugin(client, { id: 'skills', files: { 'skills/a/SKILL.md': '---\nname: a\n---\nA.' } });
  const handle: ActiveClientHandle = await client.setActiveClient('ahp-session:/s', {
    displayName: 'IDE',
    tools: [echo],
    plugins: [plugin],
    systemMessageTransform: { sections: ['tone'] },
    confirm: async ({ tool }) => tool !== 'rm',
  });
  handle.updateTools([]);
  handle.release();
  client.onSystemMessageTransform(({ sections }) => ({ tone: `${sections.tone?.content ?? ''}\nBe brief.` }));
  client.onSystemMessageTransform(null);
  const released: boolean = client.releaseActiveClient('ahp-session:/s');
  void released;
  // @ts-expect-error the session is a URI string
  client.releaseActiveClient(1);
  // @ts-expect-error a tool needs execute
  await client.setActiveClient('ahp-session:/s', { tools: [{ name: 'x' }] });
  const active: boolean = handle.isActive;
  console.log(active, plugin.customization.nonce);
}

export { activeClientUsage };

// Changesets as objects (ChangesetHandle).
async function changesetUsage(client: AhpClient) {
  const changes: ahp.ChangesetHandle | undefined = await client.sessionChangeset('ahp-session:/s');
  const same: ahp.ChangesetHandle = await client.changeset('ahp-changeset:/s/changeset/session');
  await same.ready({ timeoutMs: 5_000 });
  const counts: [string, number | undefined][] = same.files.map((f) => [f.id, f.edit.diff?.added]);
  const offered: string[] = same.operations.map((o) => o.id);
  const result: ahp.InvokeChangesetOperationResult = await same.invoke('revert', same.files[0]?.id);
  const off = same.onChange((c: ahp.ChangesetHandle) => console.log(c.status));
  // @ts-expect-error files are read-only
  same.files.push(same.files[0]!);
  // @ts-expect-error `reviewed` is 1.0's: a 0.3.0 ChangesetFile has none
  console.log(same.file('file:///a.ts')?.reviewed);
  off();
  same.close();
  console.log(changes, counts, offered, result);
}

// Terminals as objects (TerminalHandle).
async function terminalUsage(client: AhpClient) {
  const term: TerminalHandle = await client.openTerminal({ cols: 100, rows: 30, name: 'build' });
  const again = await client.terminal(term.uri);
  const seqs: number[] = term.write('echo hi\r');
  await term.resize(120, 40);
  await again.claim();
  await term.claim({ kind: 'session', session: 'ahp-session:/s' });
  const off = term.onData((data: string, { reset }: { reset: boolean }) => console.log(data, reset));
  term.onCommand((e) => {
    const code: number | undefined = e.command.exitCode;
    console.log(e.type === 'finished', e.command.commandLine, code);
  });
  const exit: number = await term.exited;
  const detected: boolean = term.commandDetection;
  // @ts-expect-error write takes a string
  term.write(42);
  // @ts-expect-error a claim has a kind
  await term.claim({ clientId: 'x' });
  off();
  term.close();
  await term.dispose();
  console.log(seqs, exit, detected, term.text.length, term.cols, term.exitCode, term.isClaimant);
}

export { terminalUsage };
