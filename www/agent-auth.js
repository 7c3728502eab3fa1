// Sign-in for protected agents (spec/authentication.md): when an agent of the root state lists
// `protectedResources`, the sidebar shows a token box per required resource. The token goes
// to the host with `authenticate` and nowhere else: it is not stored (no localStorage), and the
// box is emptied once the host took it. Authentication belongs to the connection, so after a
// reconnect, or when the host says it expired (`auth/required`), the box asks again.

import { app } from './state.js';
import { $, h } from './dom.js';
import { showError } from './errors.js';

const signedIn = new Set(); // resources this connection authenticated for
const status = new Map(); // resource -> 'signed-out' | 'signed-in' | 'expired' | 'refused'
let container = null;
let resources = [];

/** The required protected resources of the root state's agents (by resource, first wins). */
function required(root) {
  const out = new Map();
  for (const agent of root?.agents ?? []) {
    for (const r of agent.protectedResources ?? []) {
      if (r?.required !== false && typeof r?.resource === 'string' && !out.has(r.resource)) {
        out.set(r.resource, { meta: r, agent: String(agent.displayName ?? agent.provider) });
      }
    }
  }
  return [...out.values()];
}

function render() {
  if (!container) {
    container = h('div', { class: 'agent-auth', dataset: { testid: 'agent-auth' } });
    $('root-info').after(container);
  }
  container.replaceChildren(...resources.map(({ meta, agent }) => {
    const state = signedIn.has(meta.resource) ? 'signed-in' : (status.get(meta.resource) ?? 'signed-out');
    const text = {
      'signed-in': `Signed in to ${agent}.`,
      'signed-out': `${agent} needs a token (${String(meta.resource_name ?? meta.resource)}).`,
      expired: `Your sign-in to ${agent} expired: enter the token again.`,
      refused: `The token was refused for ${agent}.`,
    }[state];
    const out = h('p', { class: 'muted', dataset: { testid: 'agent-auth-state', state } }, text);
    if (state === 'signed-in') return h('div', null, out);
    const input = h('input', { type: 'password', autocomplete: 'off', 'aria-label': `Token for ${agent}`, dataset: { testid: 'agent-token' }, required: true });
    return h('form', {
      class: 'row',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const token = input.value;
        try {
          await app.client.authenticate({ resource: meta.resource, token });
          signedIn.add(meta.resource);
          status.set(meta.resource, 'signed-in');
        } catch (e) {
          status.set(meta.resource, 'refused');
          showError('Sign in', e);
        }
        render();
      },
    }, out, input, h('button', { type: 'submit', dataset: { testid: 'agent-sign-in' } }, 'Sign in'));
  }));
}

/** The root state changed: show a box for each required resource. */
export function renderAgentAuth(root) {
  const next = required(root);
  if (next.length === resources.length && next.every((r, i) => r.meta === resources[i].meta)) return;
  resources = next;
  render();
}

/** `auth/required` from the host: that resource needs a token again (AHP 1.0 names it by its metadata). */
export function agentAuthNotification(method, params) {
  const resource = typeof params?.resource === 'string' ? params.resource : params?.resource?.resource;
  if (method !== 'auth/required' || typeof resource !== 'string') return;
  signedIn.delete(resource);
  status.set(resource, params.reason === 'expired' ? 'expired' : 'signed-out');
  if (resources.length) render();
}

/** A new connection (reconnect): nothing is authenticated on it yet. */
export function agentAuthReconnected() {
  if (!signedIn.size) return;
  for (const r of signedIn) status.set(r, 'signed-out');
  signedIn.clear();
  if (resources.length) render();
}
