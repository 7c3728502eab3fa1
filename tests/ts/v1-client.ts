// The AHP 1.0 client of `ahp-wasm` as an app uses it, type-checked against the built
// package (tsc --strict): connect, the root and a chat channel, dispatching 1.0 actions,
// reading 1.0 states, the 1.0 commands, events; the active client, terminal and changeset
// handles and `McpChannel` with 1.0's types. Each `@ts-expect-error` line is a misuse the
// declarations must refuse: tsc fails if one of them compiles.
import {
  AhpClient,
  MultiHostClient,
  InMemoryTransport,
  RpcError,
  ActionType,
  AhpErrorCodes,
  SessionStatus,
  PROTOCOL_VERSION,
  type ChatAction,
  type ChatState,
  type ChatUri,
  type ClientEvent,
  type CommandMap,
  type ConnectOptions,
  type DeepReadonly,
  type ListAutomationTriggerDefinitionsResult,
  type MoveChatResult,
  type RootState,
  type RunAutomationResult,
  type SessionState,
  type StateAction,
  type Subscription,
  type Turn,
} from 'ahp-wasm';
import type { Subscription as Subscription03, McpChannel as McpChannel03 } from 'ahp-wasm/v0.3';
import { mountMcpApp } from 'ahp-wasm/mcp-apps';

declare const render: (...values: unknown[]) => void;

export async function ide(url: string): Promise<void> {
  const version: string = PROTOCOL_VERSION;
  const options: ConnectOptions = { token: 'secret', capabilities: {}, keepaliveMs: 0 };
  const client = await AhpClient.connect(url, options);
  render(version, client.serverInfo?.protocolVersion);

  // The root channel: 1.0's RootState.
  const root = await client.subscribe('ahp-root://');
  const rootState: DeepReadonly<RootState> = root.state;
  render(rootState.agents.map((agent) => agent.provider));

  // A session holds chats; a chat's channel carries the turns.
  await client.createSession({ channel: 'ahp-session:/s1', provider: 'copilot' });
  await client.createChat({ channel: 'ahp-session:/s1', chat: 'ahp-chat:/c1' });
  const session = await client.subscribe('ahp-session:/s1');
  const sessionState: DeepReadonly<SessionState> = session.state;
  render(sessionState.chats);

  const chatUri: ChatUri = 'ahp-chat:/c1';
  const chat = await client.subscribe(chatUri);
  const typed: Subscription<ChatState, ChatAction> = chat;
  const turnStarted: ChatAction = {
    type: ActionType.ChatTurnStarted,
    turnId: 'turn-1',
    startedAt: new Date().toISOString(),
    message: { text: 'Hello', origin: { kind: 'user' } },
  };
  const seq: number = chat.dispatch(turnStarted);
  client.dispatch(chatUri, { type: 'chat/isReadChanged', isRead: true });
  const turns: readonly DeepReadonly<Turn>[] = chat.state.turns;
  render(seq, typed.uri, turns.length, chat.state.activeTurn?.message.text);
  chat.onChange((state, info) => {
    render(state.turns.length, (state.status & SessionStatus.InputNeeded) !== 0);
    for (const rejection of info.rejections) {
      const type: StateAction['type'] = rejection.action.type;
      render(type, rejection.reason);
    }
  });

  // The 1.0 commands, typed by the 1.0 table.
  const moved: MoveChatResult = await client.moveChat({
    channel: chatUri,
    destination: { kind: 'session', session: 'ahp-session:/s2' },
  });
  const triggers: ListAutomationTriggerDefinitionsResult = await client.listAutomationTriggerDefinitions({
    channel: 'ahp-automations://',
  });
  const run: RunAutomationResult = await client.runAutomation({
    channel: 'ahp-automations://',
    automation: 'nightly',
    requestId: 'r-1',
  });
  await client.fetchAutomationRuns({ channel: 'ahp-automations://', automation: 'nightly' });
  const runChannel = await client.subscribe(run.resource);
  render(moved.session, triggers.items.length, runChannel.state);
  const listed = await client.listSessions();
  render(listed.items.map((summary) => summary.resource));
  const viaRequest: CommandMap['createChat']['result'] = await client.request('createChat', {
    channel: 'ahp-session:/s1',
    chat: 'ahp-chat:/c2',
  });
  render(viaRequest);
  await client.disposeChat({ channel: 'ahp-chat:/c2' });

  // Events carry 1.0 actions and notifications.
  client.onEvent((event: ClientEvent) => {
    if (event.type === 'notification' && event.method === 'root/sessionAdded') render(event.params.summary.resource);
    // `progress` is new in 1.0: its params are typed by the method.
    if (event.type === 'notification' && event.method === 'progress') {
      const done: number = event.params.progress;
      const token: string = event.params.progressToken;
      render([done, event.params.total, token]);
      // @ts-expect-error: no such member on ProgressParams
      render(event.params.summary);
    }
    if (event.type === 'pendingDropped') render(event.actions.map((a) => a.action.type));
  });

  try {
    await client.createChat({ channel: 'ahp-session:/s1', chat: chatUri });
  } catch (e) {
    if (e instanceof RpcError && e.code === AhpErrorCodes.AlreadyExists) render('exists');
  }

  const hosts = new MultiHostClient();
  const other: AhpClient = await hosts.addHost('other', url, { transport: InMemoryTransport.pair().client });
  render(other.clientId, hosts.agents());

  // Misuse the declarations refuse:
  // @ts-expect-error a 0.3.0 action (`session/turnStarted`) on the 1.0 chat subscription
  chat.dispatch({ type: 'session/turnStarted', session: 'ahp-session:/s1', turnId: 't', userMessage: { text: 'hi' } });
  // @ts-expect-error a session action on a chat channel
  client.dispatch(chatUri, { type: 'session/titleChanged', title: 'Renamed' });
  // @ts-expect-error createChat needs the chat's URI
  await client.createChat({ channel: 'ahp-session:/s1' });
  // @ts-expect-error the chat's URI is a string
  await client.createChat({ channel: 'ahp-session:/s1', chat: 42 });
  // @ts-expect-error runAutomation needs the run's requestId
  await client.runAutomation({ channel: 'ahp-automations://', automation: 'nightly' });
  // @ts-expect-error 1.0's chats hold the turns: a session's state has none
  render(session.state.turns);
  // @ts-expect-error a subscription's state is read-only
  chat.state.turns.push(turns[0]);
  // @ts-expect-error a 1.0 chat subscription is no 0.3.0 subscription
  const old: Subscription03 = chat;
  render(old);
  // @ts-expect-error request() checks the params of a 1.0 command too
  await client.request('createChat', { channel: 'ahp-session:/s1' });
}

// The roles and handles on 1.0: an IDE lends a tool (its calls run in the session's chats),
// publishes a plugin, rewrites a system-prompt section; a terminal and a changeset as objects.
import {
  buildClientPlugin,
  McpChannel,
  ActiveClientHandle,
  TerminalHandle,
  ChangesetHandle,
  type ActiveClientOptions,
  type ClientPlugin,
  type ClientTool,
  type ToolCallRequest,
  type ToolContext,
  type ToolReturn,
  type SystemMessageTransformHandler,
  type SystemMessageTransformSection,
  type TerminalCommandEvent,
  type McpRequestOptions,
  type ChangesetAction,
  type ChangesetFile,
  type ChangesetState,
  type InvokeChangesetOperationResult,
  type SessionActiveClient,
  type TerminalAction,
  type TerminalClaim,
  type TerminalState,
  type ToolResultContent,
} from 'ahp-wasm';
import type {
  ActiveClientHandle as ActiveClientHandle03,
  ChangesetHandle as ChangesetHandle03,
  TerminalHandle as TerminalHandle03,
} from 'ahp-wasm/v0.3';

export async function ideRoles(client: AhpClient): Promise<void> {
  const session = 'ahp-session:/s1';

  // A tool whose calls name their chat (1.0).
  const openFile: ClientTool<{ path: string }> = {
    name: 'openFile',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    async execute(input, context: ToolContext): Promise<ToolReturn> {
      const chat: string | undefined = context.chat;
      const block: ToolResultContent = { type: 'text', text: `opening ${input.path}` };
      context.update([block, 'still opening']);
      if (context.signal.aborted) return;
      return { content: `opened ${input.path} for ${chat ?? context.session}`, structuredContent: { turn: context.turnId } };
    },
  };
  const plugin: ClientPlugin = buildClientPlugin(client, {
    id: 'ide-skills',
    name: 'IDE skills',
    files: { 'skills/review/SKILL.md': '---\nname: review\n---\nReview the diff.' },
  });
  const options: ActiveClientOptions = {
    displayName: 'IDE',
    tools: [openFile],
    plugins: [plugin],
    systemMessageTransform: { sections: ['tone'] },
    confirm: async (call: ToolCallRequest) => call.tool !== 'rm' && call.chat !== undefined,
  };
  const handle: ActiveClientHandle = await client.setActiveClient(session, options);
  const published: SessionActiveClient = handle.activeClient;
  const isActive: boolean = handle.isActive;
  const fromHandle: AhpClient = handle.client;
  handle.updateTools([openFile]);
  handle.updatePlugins([plugin]);
  const transform: SystemMessageTransformHandler = ({ channel, sections }) => {
    const tone: SystemMessageTransformSection | undefined = sections.tone;
    return { sections: { tone: `${tone?.content ?? ''}\nBe brief (${channel}).` } };
  };
  client.onSystemMessageTransform(transform);
  client.onSystemMessageTransform(null);
  handle.release();
  const released: boolean = client.releaseActiveClient(session);
  render(published.tools.map((t) => t.name), published.customizations?.[0]?.uri, isActive, fromHandle.clientId, released);

  // A terminal: its subscription is 1.0's, its exit may come without a code.
  const term: TerminalHandle = await client.openTerminal({ cols: 100, rows: 30, name: 'build' });
  const again: TerminalHandle = await client.terminal(term.uri);
  const termSub: Subscription<TerminalState, TerminalAction> = term.subscription;
  const seqs: number[] = term.write('npm test\r');
  await term.resize(120, 40);
  const chatClaim: TerminalClaim = { kind: 'session', session, chat: 'ahp-chat:/c1', turnId: 't', toolCallId: 'tc' };
  await again.claim(chatClaim);
  await term.claim();
  term.onData((data, { reset }) => render(data, reset));
  term.onCommand((event: TerminalCommandEvent) => render(event.type, event.command.commandLine, event.command.exitCode));
  const exit: number | undefined = await term.exited;
  const lifecycle = term.state.lifecycle.status;
  render(termSub.uri, seqs, exit, lifecycle, term.holder?.kind, term.exitCode, term.commands.length, term.text, term.isClaimant);
  await term.dispose();

  // A changeset: 1.0's files (with `reviewed`) and operations.
  const changes: ChangesetHandle | undefined = await client.sessionChangeset(session);
  const same: ChangesetHandle = await client.changeset('ahp-changeset:/s1/session');
  const changesetSub: Subscription<ChangesetState, ChangesetAction> = same.subscription;
  await same.ready({ timeoutMs: 5_000 });
  const file: DeepReadonly<ChangesetFile> | undefined = same.file('file:///src/a.ts');
  const reviewed: boolean | undefined = file?.reviewed;
  const counts: [string, number | undefined][] = same.files.map((f) => [f.id, f.edit.diff?.added]);
  const result: InvokeChangesetOperationResult = await same.invoke('revert', file?.id);
  const off = same.onChange((c: ChangesetHandle) => render(c.status, c.operations.map((o) => o.label)));
  off();
  same.close();
  render(changes?.uri, changesetSub.uri, reviewed, counts, result.followUp);

  // MCP over a 1.0 session's `mcp://` channel.
  const mcpOptions: McpRequestOptions = { timeoutMs: 1_000, signal: AbortSignal.timeout(2_000) };
  const channel: McpChannel = await McpChannel.open(client, session, 'mcp/basic');
  const uri: string = await channel.ready(mcpOptions);
  const tools = await channel.request<{ tools: { name: string }[] }>('tools/list', {}, mcpOptions);
  const state: string | undefined = channel.customization?.state.kind;
  render(uri, tools.tools.length, state, channel.client === client);
  // `ahp-wasm/mcp-apps` takes a client of either entry; the handle's channel is its entry's.
  const app = await mountMcpApp(document.body, { client, session, toolCallId: 'call-1' });
  const appChannel: McpChannel = app.channel;
  // @ts-expect-error a 1.0 client's App channel is not the 0.3.0 entry's McpChannel
  const appChannel03: McpChannel03 = app.channel;
  render(appChannel, appChannel03);

  // Misuse the declarations refuse:
  // @ts-expect-error a tool needs execute
  await client.setActiveClient(session, { tools: [{ name: 'noExecute' }] });
  // @ts-expect-error a tool's execute gets a ToolContext, whose chat is a string
  const badTool: ClientTool = { name: 'bad', execute: (_input, { chat }: { chat?: number }) => String(chat) };
  // @ts-expect-error a 1.0 session claim names its chat
  await term.claim({ kind: 'session', session });
  // @ts-expect-error 1.0's exit may come without a code: `exited` is not always a number
  const code: number = await term.exited;
  // @ts-expect-error 1.0's terminal state has `lifecycle`, not 0.3.0's `exitCode`
  render(term.state.exitCode);
  // @ts-expect-error a terminal handle's subscription takes terminal actions only
  term.subscription.dispatch({ type: 'chat/isReadChanged', isRead: true });
  // @ts-expect-error a changeset handle's subscription takes changeset actions only
  same.subscription.dispatch({ type: 'terminal/input', data: 'ls\r' });
  // @ts-expect-error a 1.0 handle's state is read-only
  same.state.files.push(same.files[0]!);
  // @ts-expect-error the 1.0 capabilities leave `serverTools` untyped (0.3.0 types `listChanged`)
  render(channel.capabilities?.serverTools?.listChanged);
  // @ts-expect-error a 1.0 handle is no 0.3.0 handle (its client speaks 1.0)
  const oldHandle: ActiveClientHandle03 = handle;
  // @ts-expect-error ... nor is a 1.0 terminal handle
  const oldTerm: TerminalHandle03 = term;
  // @ts-expect-error ... nor a 1.0 changeset handle
  const oldChanges: ChangesetHandle03 = same;
  // @ts-expect-error onSystemMessageTransform takes a handler or null
  client.onSystemMessageTransform(undefined);
  render(badTool, code, oldHandle, oldTerm, oldChanges);
}
