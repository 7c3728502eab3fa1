// The AHP 0.3.0 example of pkg/README.md, verbatim after these three lines
// (tests/node/readme.test.mjs checks they match); type-checked with the consumer (tsc --strict).
declare const url: string, token: string, savedSessionJson: string, render: (...values: unknown[]) => void;
import { init, AhpClient, sessionReducer, PROTOCOL_VERSION, type SessionState, type SessionUri } from 'ahp-wasm/v0.3';

await init(); // the 0.3.0 module: no 1.0 code in it
console.log(PROTOCOL_VERSION); // '0.3.0'
// In 0.3.0 a session's turns are in the session's own state: no chats.
let state = JSON.parse(savedSessionJson) as SessionState;
state = sessionReducer(state, { type: 'session/titleChanged', title: 'Refactor parser' });
const client = await AhpClient.connect(url, { token }); // offers 0.3.0 only
const uri: SessionUri = 'ahp-session:/s1';
const session = await client.subscribe(uri); // a Subscription<SessionState>
session.onChange((s) => render(s.turns));
session.dispatch({ type: 'session/turnStarted', turnId: 'turn-1', message: { text: 'Hello', origin: { kind: 'user' } } });
