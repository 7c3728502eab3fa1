// The client quick start of pkg/README.md, verbatim (tests/node/readme.test.mjs checks they
// match); type-checked with the consumer (tsc --strict).
import {
  AhpClient,
  RpcError,
  TransportError,
  InvalidInputError,
  type ChatState,
  type ChatUri,
  type SessionUri,
  type DeepReadonly,
} from 'ahp-wasm';

// Connect (the global WebSocket; in Node 20, pass one: `{ WebSocket }` from the `ws` package,
// or run `node --experimental-websocket`). `initialize` (offering 1.0.0) is done when the promise
// resolves; the WebAssembly module is loaded on the way (no `init()` needed before `connect`).
const client = await AhpClient.connect('ws://127.0.0.1:8787/ahp', { token: 'the host token' });

// Create a session (a new URI each run: creating an existing one is an error) and subscribe:
// a live mirror of the channel. The subscription's types follow the URI's scheme:
// `SessionUri` -> `SessionState`, `ChatUri` -> `ChatState` and `ChatAction`.
const id = `demo-${crypto.randomUUID()}`;
const uri: SessionUri = `ahp-session:/${id}`;
await client.createSession({ channel: uri });
const session = await client.subscribe(uri);

// The turns live in the session's chats: `defaultChat` names the one that takes the session's
// input (`ahp-chat:/<session id>/default` on ahp-host). Subscribe to it too.
const chatUri = (session.state.defaultChat ?? `ahp-chat:/${id}/default`) as ChatUri;
const chat = await client.subscribe(chatUri);

// `state` is deeply frozen and structurally shared: what did not change keeps its identity.
const stop = chat.onChange((state, info) => {
  render(state); // once per incoming batch, after reconciliation
  for (const r of info.rejections) console.warn(`action ${r.clientSeq} rejected: ${r.reason}`);
});

// Dispatch: applied to `state` at once (optimistic), sent to the host; the echo confirms it,
// a rejection reverts it.
chat.dispatch({
  type: 'chat/turnStarted',
  turnId: 'turn-1',
  startedAt: new Date().toISOString(),
  message: { text: 'Hello', origin: { kind: 'user' } },
});

// Errors are typed Error subclasses.
try {
  await client.subscribe('ahp-session:/nope');
} catch (e) {
  if (e instanceof RpcError) console.error(e.code, e.message, e.data);
  else if (e instanceof TransportError) console.error('connection:', e.transportKind);
  else if (e instanceof InvalidInputError) console.error('bad argument', e.argument, e.path);
}

client.onConnectionStateChange((s) => console.log(s)); // connecting/connected/reconnecting/closed
stop();
client.close(); // the client keeps itself alive until closed, like a WebSocket

declare function render(state: DeepReadonly<ChatState>): void;
