// The AHP 1.0 client of `ahp-wasm/v1` as an app uses it, type-checked against the built
// package (tsc --strict): connect, the root and a chat channel, dispatching 1.0 actions,
// reading 1.0 states, the 1.0 commands, events. Each `@ts-expect-error` line is a misuse the
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
} from 'ahp-wasm/v1';
import type { Subscription as Subscription03 } from 'ahp-wasm';

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
