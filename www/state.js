// The page's state, shared by its modules: the SDK, the client, the root and automations
// subscriptions, the session list and the open session with its open chat. connection.js,
// session-list.js, session.js, chats.js and automations.js change it; the views (turns.js,
// markdown.js) only see what they are given.

export const ROOT = 'ahp-root://';
export const AUTOMATIONS = 'ahp-automations://';

export const app = {
  sdk: null,
  client: null,
  root: null,
  automations: null, // the `ahp-automations://` subscription (automations.js)
  sessions: new Map(), // resource -> SessionSummary
  listGeneration: 0,
  // The open session: { uri, sub, off, chat, mcpViews, containerViews, apps, tools, last };
  // `chat` is its open chat: { uri, sub, off, turnViews, inputViews, history, last } (chat.js).
  current: null,
  terminal: null, // the terminal panel's { handle, xterm, offs } (terminal-panel.js)
};
