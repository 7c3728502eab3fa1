// The sidebar: the session list (from `listSessions`, kept live by the root channel's
// notifications) and the root state's summary (agents, session count). A session's button
// carries its URI in `data-uri`; app.js opens it on click.

import { ROOT, app } from './state.js';
import { $, h } from './dom.js';
import { showError } from './errors.js';
import { renderMoveTargets } from './chats.js';

/** A summary's creation time in ms (AHP 1.0: an ISO 8601 string). */
const created = (s) => (typeof s.createdAt === 'string' ? Date.parse(s.createdAt) : Number(s.createdAt)) || 0;

export function renderSessions() {
  const items = [...app.sessions.values()].sort((a, b) => created(b) - created(a));
  const list = $('sessions');
  list.replaceChildren(...items.map((s) => {
    // SessionStatus bits: 2 error, 8 in progress, 16 (with 8) input needed.
    const badge = (s.status & 16) !== 0 ? 'needs input' : (s.status & 8) !== 0 ? 'working' : (s.status & 2) !== 0 ? 'error' : null;
    const current = app.current?.uri === s.resource;
    return h('li', null, h('button', {
      type: 'button',
      'aria-current': current ? 'true' : null,
      dataset: { testid: 'session-item', uri: s.resource },
    }, String(s.title || s.resource), badge ? h('span', { class: 'badge' }, ` · ${badge}`) : null));
  }));
  if (app.current) renderMoveTargets();
}

export async function refreshSessions() {
  const generation = ++app.listGeneration;
  const client = app.client;
  try {
    const result = await client.listSessions({ channel: ROOT });
    if (generation !== app.listGeneration) return; // a newer fetch is under way
    app.sessions = new Map((result?.items ?? []).map((s) => [s.resource, s]));
    renderSessions();
  } catch (e) {
    if (client === app.client) showError('List sessions', e); // else: a client the page closed
  }
}

/** Applies a root notification to the list; whether it was one of the list's. */
export function applyRootNotification(method, params) {
  if (method === 'root/sessionAdded' && params?.summary?.resource) {
    app.sessions.set(params.summary.resource, params.summary);
  } else if (method === 'root/sessionRemoved' && params?.session) {
    app.sessions.delete(params.session);
  } else if (method === 'root/sessionSummaryChanged' && app.sessions.has(params?.session)) {
    app.sessions.set(params.session, { ...app.sessions.get(params.session), ...params.changes });
  } else {
    return false;
  }
  renderSessions();
  return true;
}

export function renderRoot(state) {
  renderAgentPicker(state?.agents ?? []);
  const agents = (state?.agents ?? []).map((a) => a.displayName ?? a.provider).join(', ');
  const count = state?.activeSessions;
  $('root-info').textContent = `${agents ? `Agent: ${agents}` : ''}${count != null ? ` · ${count} session${count === 1 ? '' : 's'}` : ''}`;
}

/** The agents last put in the picker (the SDK's state is structurally shared). */
let renderedAgents;

/** The agent a new session gets: shown only when the host has more than one (model providers);
 * the first (the host's default) is preselected, a choice survives root updates. */
function renderAgentPicker(agents) {
  if (agents === renderedAgents) return;
  renderedAgents = agents;
  const select = $('new-session-agent');
  const chosen = select.value;
  const options = agents.map((a) => h('option', { value: String(a.provider) }, String(a.displayName ?? a.provider)));
  select.replaceChildren(...options);
  if (agents.some((a) => String(a.provider) === chosen)) select.value = chosen;
  select.hidden = agents.length < 2;
}
