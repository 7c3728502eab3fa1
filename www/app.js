// The ahp-host page: a small AHP 1.0 client built on the ahp-wasm SDK (served by the host under
// /pkg/: the default entry, /pkg/web.js).
//
// - Connects with the `tkn` query parameter of the page URL; shows the connection state.
// - Creates sessions with the agent picked beside "New session" (shown when the host has more
//   than one: model providers).
// - Keeps the session list from `listSessions` plus the root channel's `root/session*`
//   notifications (and re-fetches it when the root state's `activeSessions` changes or after a
//   reconnect), so sessions created or deleted in another tab appear live.
// - Opens a session as an SDK Subscription, lists its chats and opens one (its default chat
//   first) as another: the chat's optimistic `state` is the transcript: own messages appear at
//   once, replies stream in (reasoning, markdown, tool calls), tool calls awaiting confirmation
//   get Approve / Deny, `/ask` questions get an answer box.
// - Lists the host's automations (`ahp-automations://`), creates them, runs them, shows their
//   runs and opens the sessions they made.
//
// Safety: everything from the host is untrusted. It is rendered with textContent and DOM nodes
// only, never parsed as HTML (the page's CSP enforces Trusted Types, so innerHTML with a string
// would throw). Markdown is rendered from a tiny subset into DOM nodes; links stay text.
//
// Efficiency: the SDK's state is structurally shared (what did not change keeps its identity),
// so each view remembers the object it last rendered and skips the work when it is `===`;
// completed turns are never rebuilt, a streaming markdown part re-renders only its last blocks.
//
// Test hook: `window.__ahp` = { sdk, client, root, subscription (the open session's), chat (the
// open chat's), automations, annotations (the open session's), current, terminal, sessions() }
// (the SDK objects of the page, for tests and the devtools console; tests/browser/ reads it).
//
// Modules: state.js (the shared state), connection.js (connecting, client events),
// session-list.js (the sidebar), session.js (the open session), chats.js (its chat bar),
// chat.js (the open chat), turns.js (views of its turns), automations.js (the automations panel),
// mcp.js (the MCP servers panel and inline MCP Apps), browser-tools.js (tools lent to the agent,
// skills published from the page), terminal-panel.js (a terminal with xterm.js),
// customizations.js (plugins and directories), annotations.js (the open session's annotations),
// canvases.js (the open chat's canvases in sandboxed frames), markdown.js (the safe Markdown subset), composer.js (the message box), errors.js, dom.js.
// This file wires the page's buttons and starts connecting.

import { app } from './state.js';
import { $, uuid } from './dom.js';
import { showError } from './errors.js';
import { connect } from './connection.js';
import { refreshSessions } from './session-list.js';
import { openSession } from './session.js';
import { dispatchChat } from './chat.js';
import { initChats } from './chats.js';
import { initAutomations } from './automations.js';
import { initComposer } from './composer.js';
import { initBrowserTools } from './browser-tools.js';
import { initTerminalPanel } from './terminal-panel.js';
import { initAnnotations } from './annotations.js';

window.__ahp = {
  get sdk() { return app.sdk; },
  get client() { return app.client; },
  get root() { return app.root; },
  get subscription() { return app.current?.sub ?? null; },
  get chat() { return app.current?.chat?.sub ?? null; },
  get automations() { return app.automations?.sub ?? null; },
  get annotations() { return app.current?.annotations?.sub ?? null; },
  get current() { return app.current; },
  get terminal() { return app.terminal?.handle ?? null; },
  sessions: () => [...app.sessions.values()],
};

window.addEventListener('unhandledrejection', (ev) => showError('Unexpected error', ev.reason));

$('retry').addEventListener('click', () => connect());

$('sessions').addEventListener('click', (ev) => {
  const item = ev.target.closest('button[data-uri]');
  if (item) openSession(item.dataset.uri).catch((e) => showError('Open session', e));
});

$('new-session').addEventListener('click', async () => {
  const uri = `ahp-session:/${uuid()}`;
  try {
    const agent = $('new-session-agent');
    const provider = agent.hidden || !agent.value ? undefined : agent.value;
    await app.client.createSession({ channel: uri, ...(provider ? { provider } : {}) });
    if (!app.sessions.has(uri)) {
      // The root notification usually arrives first; refresh in case it did not.
      await refreshSessions();
    }
    await openSession(uri);
  } catch (e) {
    showError('Create session', e);
  }
});

$('dispose-session').addEventListener('click', async () => {
  const uri = app.current?.uri;
  if (!uri) return;
  try {
    await app.client.disposeSession({ channel: uri });
  } catch (e) {
    showError('Delete session', e);
  }
});

$('cancel-turn').addEventListener('click', () => {
  const turnId = app.current?.chat?.sub?.state?.activeTurn?.id;
  if (turnId) dispatchChat({ type: 'chat/turnCancelled', turnId });
});

initComposer();
initChats({ openSession });
initAutomations();
initBrowserTools();
initTerminalPanel();
initAnnotations();
connect();
