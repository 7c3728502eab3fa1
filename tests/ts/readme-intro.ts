// The first example of pkg/README.md, verbatim after these three lines (tests/node/readme.test.mjs
// checks they match); type-checked with the consumer (tsc --strict).
declare const savedChatJson: string;
import {
  init,
  chatReducer,
  type ChatState,
  type ChatAction,
  PROTOCOL_VERSION,
  InvalidInputError,
} from 'ahp-wasm';

await init(); // loads the WebAssembly module (see Loading)
console.log(PROTOCOL_VERSION); // '1.0.0'
// A session's turns live in its chats (`ahp-chat:` channels). A chat's state from anywhere:
// a subscription (below), a snapshot, your own store.
let chat = JSON.parse(savedChatJson) as ChatState;
const action: ChatAction = { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'Hello' };
chat = chatReducer(chat, action); // a new, deeply frozen state
