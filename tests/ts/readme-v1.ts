// The AHP 1.0 example of pkg/README.md, verbatim after these three lines
// (tests/node/readme.test.mjs checks they match); type-checked with the consumer (tsc --strict).
declare const savedChatJson: string;
import { init, chatReducer, PROTOCOL_VERSION, type ChatState, type ChatAction } from 'ahp-wasm/v1';

await init(); // the 1.0 module: no 0.3.0 code in it
console.log(PROTOCOL_VERSION); // '1.0.0'
// In AHP 1.0 a session's turns live in its chats (`ahp-chat:` channels).
let chat = JSON.parse(savedChatJson) as ChatState;
const action: ChatAction = { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'Hello' };
chat = chatReducer(chat, action); // a new, deeply frozen state
