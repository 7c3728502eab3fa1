// MCP in the open session: the MCP servers panel (state, on/off toggle, a token prompt for
// servers in `authRequired`, an Allow button for servers of the working directory that wait for
// approval) and MCP App tool calls rendered inline through the SDK's
// `ahp-wasm/mcp-apps` entry (loaded the first time an App call is shown).

import { app } from './state.js';
import { $, h, syncKeyed } from './dom.js';
import { showError } from './errors.js';
import { customizationToggle, isEnabled, toggled } from './customizations.js';

const STATE_TEXT = {
  starting: 'starting…',
  ready: 'ready',
  authRequired: 'needs a token',
  error: 'error',
  stopped: 'stopped',
};

/** `ErrorInfo.errorType` of a server the host runs only once a client approves it. */
const NEEDS_APPROVAL = 'McpServerNeedsApproval';

/** The file path of a `file://` URI (the URI itself when it is not one). */
function filePath(uri) {
  try {
    const u = new URL(uri);
    return u.protocol === 'file:' ? decodeURIComponent(u.pathname) : uri;
  } catch {
    return uri;
  }
}

/** The MCP server customizations of a session state (top level and containers' children). */
function mcpServers(state) {
  const out = [];
  for (const c of state?.customizations ?? []) {
    if (c?.type === 'mcpServer') out.push(c);
    for (const child of c?.children ?? []) if (child?.type === 'mcpServer') out.push(child);
  }
  return out;
}

class ServerView {
  constructor(id, dispatch) {
    this.id = id;
    this.dispatch = dispatch;
    this.el = h('li', { class: 'mcp-server', dataset: { testid: 'mcp-server', id } });
    this.server = null;
  }

  update(server) {
    if (server === this.server) return;
    this.server = server;
    const kind = server.state?.kind ?? 'unknown';
    this.el.dataset.state = kind;
    const waiting = kind === 'error' && server.state?.error?.errorType === NEEDS_APPROVAL;
    if (waiting) {
      this.el.dataset.approval = 'needed';
      this.el.replaceChildren(...this.approval(server));
      return;
    }
    delete this.el.dataset.approval;
    const toggle = customizationToggle(this.id, isEnabled(server), `Run ${String(server.name ?? this.id)}`, 'mcp-toggle', this.dispatch);
    const children = [
      h('label', null, toggle, ' ', h('strong', null, String(server.name ?? this.id))),
      ' ',
      h('span', { class: 'muted', dataset: { testid: 'mcp-state' } }, STATE_TEXT[kind] ?? kind),
    ];
    if (server.mcpApp) children.push(' ', h('span', { class: 'badge', title: 'Can show MCP Apps' }, 'Apps'));
    if (kind === 'error' && server.state?.error?.message) {
      children.push(h('pre', { class: 'mcp-error', dataset: { testid: 'mcp-error' } }, String(server.state.error.message)));
    }
    if (kind === 'authRequired') children.push(this.authForm(server.state));
    this.el.replaceChildren(...children);
  }

  /**
   * A server the working directory declares, waiting for approval: who declares it, what it would
   * run or contact (the host's message), and Allow, which enables it (the host remembers that
   * approval for this directory and this exact declaration).
   */
  approval(server) {
    const name = String(server.name ?? this.id);
    const allow = () => this.dispatch(toggled(this.id, true));
    return [
      h('strong', null, name), ' ',
      h('span', { class: 'muted', dataset: { testid: 'mcp-state' } }, 'needs approval'),
      h('div', { class: 'muted', dataset: { testid: 'mcp-declared-by' } },
        `declared by the working directory in ${filePath(String(server.uri ?? ''))}`),
      h('pre', { class: 'mcp-error', dataset: { testid: 'mcp-approval' } }, String(server.state.error.message ?? '')),
      h('button', { type: 'button', 'aria-label': `Allow ${name} to run`, dataset: { testid: 'mcp-allow' }, onclick: allow }, 'Allow'),
    ];
  }

  /** A token field for the protected resource the server named (RFC 9728 metadata). */
  authForm(state) {
    const resource = String(state?.resource?.resource ?? '');
    const input = h('input', {
      type: 'password',
      autocomplete: 'off',
      placeholder: 'Bearer token',
      'aria-label': `Token for ${resource}`,
      dataset: { testid: 'mcp-token' },
    });
    const submit = async (e) => {
      e.preventDefault();
      const token = input.value;
      input.value = '';
      if (!token) return;
      try {
        await app.client.authenticate({ resource, token });
      } catch (err) {
        showError(`Authenticate ${resource}`, err);
      }
    };
    return h('form', { class: 'mcp-auth', dataset: { testid: 'mcp-auth' }, onsubmit: submit },
      h('div', { class: 'muted' }, String(state?.description ?? `${resource} needs a token`)),
      input, ' ',
      h('button', { type: 'submit', dataset: { testid: 'mcp-authenticate' } }, 'Authenticate'));
  }
}

/** Renders the MCP servers panel of `state` (views kept per server id in `views`). */
export function renderMcpServers(state, views, dispatch) {
  const servers = mcpServers(state);
  syncKeyed($('mcp-servers'), views, servers, (s) => s.id, (server, view = new ServerView(server.id, dispatch)) => {
    view.update(server);
    return view;
  });
  $('mcp-servers').dataset.count = String(servers.length);
}

/**
 * Mounts the App of tool call `toolCallId` of chat `chat` of `session` into `element` (once). Errors are shown in the
 * element and the page's error list.
 */
export async function mountApp(element, session, chat, toolCallId) {
  const started = performance.now();
  element.dataset.state = 'loading';
  try {
    const { mountMcpApp } = await import('/pkg/mcp-apps.js');
    const handle = await mountMcpApp(element, {
      client: app.client,
      session,
      chat,
      toolCallId,
      onOpenLink: (url) => {
        // Only web links, in a new tab without an opener.
        const u = new URL(url);
        if (u.protocol === 'https:' || u.protocol === 'http:') window.open(u.href, '_blank', 'noopener,noreferrer');
      },
    });
    element.dataset.state = 'mounted';
    element.dataset.mountMs = String(Math.round(performance.now() - started));
    return handle;
  } catch (e) {
    element.dataset.state = 'error';
    element.append(h('div', { class: 'turn-end', 'data-state': 'error', dataset: { testid: 'mcp-app-error' } }, String(e?.message ?? e)));
    showError('MCP App', e);
    return null;
  }
}
