// The first example of pkg/README.md, verbatim after these three lines (tests/node/readme.test.mjs
// checks they match); type-checked with the consumer (tsc --strict).
declare const savedSessionJson: string;
import {
  init,
  sessionReducer,
  type SessionState,
  type StateAction,
  PROTOCOL_VERSION,
  InvalidInputError,
} from 'ahp-wasm';

await init(); // loads the WebAssembly module (see Loading)
// A session's state from anywhere: a subscription (below), a snapshot, your own store.
let state = JSON.parse(savedSessionJson) as SessionState;
const action: StateAction = { type: 'session/titleChanged', title: 'Refactor parser' };
state = sessionReducer(state, action); // a new, deeply frozen state
