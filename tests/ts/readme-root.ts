// The client example of the repository's README.md, verbatim after these three lines
// (tests/node/readme.test.mjs checks they match); type-checked with the consumer (tsc --strict).
declare const token: string, render: (...values: unknown[]) => void;
import { AhpClient, type ChatUri, type SessionUri } from 'ahp-wasm';

const client = await AhpClient.connect('ws://127.0.0.1:8787/ahp', { token }); // loads the module too
const uri: SessionUri = 'ahp-session:/demo';
await client.createSession({ channel: uri });
const session = await client.subscribe(uri); // a live mirror: Subscription<SessionState>
// The turns live in the session's chats; ahp-host names the default one `ahp-chat:/<session id>/default`.
const chat = await client.subscribe((session.state.defaultChat ?? 'ahp-chat:/demo/default') as ChatUri);
chat.onChange((state) => render(state.turns)); // frozen, structurally shared ChatState
chat.dispatch({
  type: 'chat/turnStarted',
  turnId: 't1',
  startedAt: new Date().toISOString(),
  message: { text: 'Hello', origin: { kind: 'user' } },
}); // optimistic: applied at once, reconciled with the host's echo
