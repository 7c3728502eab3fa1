// The page's state, shared by its modules: the SDK, the client, the root subscription, the
// session list and the open session. connection.js, session-list.js and session.js change it;
// the views (turns.js, markdown.js) only see what they are given.

export const ROOT = 'ahp-root://';

export const app = {
  sdk: null,
  client: null,
  root: null,
  sessions: new Map(), // resource -> SessionSummary
  listGeneration: 0,
  current: null, // { uri, sub, off, turnViews: Map, inputViews: Map, lastState }
  terminal: null, // the terminal panel's { handle, xterm, offs } (terminal-panel.js)
};
