// The 1.0 porting example of pkg/README.md, verbatim after these three lines
// (tests/node/readme.test.mjs checks they match); type-checked with the consumer (tsc --strict).
declare const url: string, token: string, render: (...values: unknown[]) => void;
import { AhpClient, ActionType, isClientDispatchable, type ChatUri } from 'ahp-wasm';

const client = await AhpClient.connect(url, { token }); // transport, connect(), initialize()
const chatUri: ChatUri = 'ahp-chat:/c1';
await client.createChat({ channel: 'ahp-session:/s1', chat: chatUri }); // request('createChat', ...)
const chat = await client.subscribe(chatUri); // a ChatState mirror, no reducers to call
chat.onChange((state) => render(state.turns));
chat.dispatch({
  type: ActionType.ChatTurnStarted,
  turnId: 'turn-1',
  startedAt: new Date().toISOString(),
  message: { text: 'Hello', origin: { kind: 'user' } },
});
const mayCancel = isClientDispatchable(ActionType.ChatTurnCancelled); // true: 1.0's list
const run = await client.runAutomation({ channel: 'ahp-automations://', automation: 'nightly', requestId: 'run-1' });
