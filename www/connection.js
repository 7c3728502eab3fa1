// The connection: connects to the host that served the page (with the page URL's `tkn`) over
// AHP 1.0, shows the connection state, subscribes to the root and automations channels, and
// routes client events to the session list and the open session. `connect()` again (Retry)
// starts over with a new client.

import { ROOT, app } from './state.js';
import { $ } from './dom.js';
import { showError } from './errors.js';
import { applyRootNotification, refreshSessions, renderRoot } from './session-list.js';
import { closeSession, openSession, sessionDeleted } from './session.js';
import { closeChat } from './chat.js';
import { renderChats } from './chats.js';
import { agentAuthNotification, agentAuthReconnected, renderAgentAuth } from './agent-auth.js';
import { closeAutomations, openAutomations } from './automations.js';

function setConnection(state) {
  const out = $('connection');
  out.value = state;
  out.textContent = state;
  out.dataset.state = state;
  $('new-session').disabled = !app.client || state === 'closed';
  $('new-terminal').disabled = $('new-session').disabled;
  $('retry').hidden = state !== 'failed' && state !== 'closed';
}

/** Whether a recovery (below) is under way. */
let recovering = false;

/**
 * A 1.0 channel (the open chat, the automations) was not resumed after a reconnect: subscribe
 * to it afresh. A host that restarted may have forgotten that this client chose AHP 1.0 and
 * answered its `reconnect` as a 0.3.0 client's (ahp-host does: it then knows no `ahp-chat:`
 * channel on this connection, -32008): then initialize again under the same client id and
 * secret, which negotiates 1.0, and reopen what was open.
 */
async function recover(reason) {
  if (recovering || !app.client) return;
  recovering = true;
  const cur = app.current;
  const session = cur?.uri;
  const chat = cur?.chat?.uri;
  const lend = Boolean(cur?.tools);
  try {
    try {
      if (chat) {
        closeChat(cur);
        await renderChats(cur, chat);
      }
      if (!app.automations?.sub?.active) await openAutomations();
      return;
    } catch (e) {
      if (e?.code !== -32008) {
        showError('Resubscribe', `${reason}; subscribing again failed: ${e?.message ?? e}`);
        return;
      }
    }
    const { clientId, clientSecret } = app.client;
    await connect({ clientId, clientSecret, session, chat, lend });
  } finally {
    recovering = false;
  }
}

/**
 * Connects (again: Retry, or a recovery, which passes the client's identity, what to reopen
 * and whether the page lent its tools there). Without `session`, the page URL's
 * `#<session URI>` is opened.
 */
export async function connect({ clientId, clientSecret, session, chat, lend } = {}) {
  if (app.client) {
    // Start over with a new client.
    closeSession();
    closeAutomations();
    try { app.client.close(); } catch { /* already closed */ }
    app.client = null;
    app.root = null;
  }
  setConnection('connecting');
  $('retry').hidden = true;
  const params = new URLSearchParams(location.search);
  const token = params.get('tkn') ?? undefined;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ahp`;
  let client;
  try {
    if (!app.sdk) {
      // The SDK's browser entry; init() compiles its WebAssembly module while it downloads.
      const sdk = await import('/pkg/web.js');
      await sdk.init();
      app.sdk = sdk;
    }
    // capabilities.mcpApps: the host then serves MCP servers' `mcp://` channels to this page.
    const identity = clientId && clientSecret ? { clientId, clientSecret } : {};
    client = await app.sdk.AhpClient.connect(url, { token, ...identity, initialSubscriptions: [ROOT], capabilities: { mcpApps: {} } });
  } catch (e) {
    setConnection('failed');
    showError('Connect', e);
    return;
  }
  app.client = client;
  agentAuthReconnected();
  client.onConnectionStateChange((state) => { if (app.client === client) setConnection(state); });
  client.onEvent((event) => {
    if (app.client !== client) return;
    switch (event.type) {
      case 'notification':
        agentAuthNotification(event.method, event.params);
        if (applyRootNotification(event.method, event.params) && event.method === 'root/sessionRemoved') {
          sessionDeleted(event.params.session);
        }
        break;
      case 'connected':
        // Root notifications are not replayed after a reconnect: fetch the list again.
        refreshSessions();
        agentAuthReconnected();
        break;
      case 'rejected':
        // Also reported per subscription (onChange rejections); show the others here.
        if (!reportedBySubscription(event.channel)) showError(`The host rejected ${event.rejection?.action?.type ?? 'an action'}`, event.rejection?.reason);
        break;
      case 'pendingDropped':
        // Leaving a session (unsubscribing) stops tracking its sent actions: nothing was lost.
        if (event.reason === 'unsubscribed') break;
        showError('Connection lost', `${event.actions?.length ?? 0} unsent action(s) on ${event.channel} were dropped (${event.reason})`);
        break;
      case 'reconnectFailed':
        setConnection('reconnecting');
        break;
      case 'subscriptionLost':
        if (event.channel === app.current?.uri) closeSession(`Subscription lost: ${event.reason}`);
        else if (event.channel === app.current?.chat?.uri || event.channel === app.automations?.uri) recover(`${event.channel}: ${event.reason}`);
        break;
      default:
        break;
    }
  });
  setConnection(client.connectionState ?? 'connected');

  try {
    app.root = client.subscription(ROOT) ?? (await client.subscribe(ROOT));
    renderRoot(app.root.state);
    renderAgentAuth(app.root.state);
    let lastCount = app.root.state?.activeSessions;
    app.root.onChange((state) => {
      renderRoot(state);
      renderAgentAuth(state);
      // The session count changed (a session added or removed somewhere): make sure the list
      // matches even if a notification was missed.
      if (state?.activeSessions !== lastCount) {
        lastCount = state?.activeSessions;
        refreshSessions();
      }
    });
  } catch (e) {
    showError('Subscribe to the root channel', e);
  }
  await refreshSessions();
  openAutomations().catch((e) => showError('Automations', e));

  const wanted = session ?? decodeURIComponent(location.hash.slice(1));
  if (wanted.startsWith('ahp-session:')) openSession(wanted, chat, lend).catch((e) => showError('Open session', e));
}

/** Whether the page's own subscription of `channel` shows its rejections (onChange). */
function reportedBySubscription(channel) {
  const cur = app.current;
  return channel === cur?.uri || channel === cur?.chat?.uri || channel === app.automations?.uri
    || channel === cur?.annotations?.uri || Boolean(cur?.chat?.canvasViews?.has(channel));
}
