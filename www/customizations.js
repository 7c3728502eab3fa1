// The customizations panel: every container (plugins, directories) of the open session with its
// load state, an on/off toggle, and its children (agents, skills, prompts, rules, hooks, MCP
// servers). Top-level MCP servers are in the MCP panel (mcp.js).

import { $, h, syncKeyed } from './dom.js';

const LOAD_TEXT = { loading: 'loading…', loaded: 'loaded', degraded: 'degraded', error: 'error' };

function childLine(child) {
  const bits = [h('span', { class: 'badge' }, String(child.type ?? '?')), ' ', h('strong', null, String(child.name ?? child.id))];
  if (child.description) bits.push(' — ', h('span', { class: 'muted' }, String(child.description)));
  if (child.type === 'mcpServer') bits.push(' ', h('span', { class: 'muted' }, `(${String(child.state?.kind ?? '?')})`));
  return h('li', { dataset: { testid: 'customization-child', type: String(child.type ?? ''), name: String(child.name ?? '') } }, ...bits);
}

/**
 * `session/customizationToggled` for customization `id`: AHP 1.0 says where the decision holds
 * (`enablement`); the page decides for this session.
 */
export function toggled(id, enabled) {
  return { type: 'session/customizationToggled', id, enablement: [{ kind: 'session', enabled }] };
}

/** Whether customization `c` is on: AHP 1.0 derives it from the first enablement decision. */
export function isEnabled(c) {
  return c?.enablement?.[0]?.enabled ?? c?.enabled ?? true;
}

/** The on/off checkbox of customization `id`: dispatches `session/customizationToggled`. */
export function customizationToggle(id, enabled, label, testid, dispatch) {
  return h('input', {
    type: 'checkbox',
    checked: enabled !== false,
    'aria-label': label,
    dataset: { testid },
    onchange: (e) => dispatch(toggled(id, e.target.checked)),
  });
}

class ContainerView {
  constructor(id, dispatch) {
    this.id = id;
    this.dispatch = dispatch;
    this.el = h('li', { class: 'container', dataset: { testid: 'customization', id } });
    this.value = null;
  }

  update(c) {
    if (c === this.value) return;
    this.value = c;
    const load = c.load?.kind ?? 'unknown';
    this.el.dataset.load = load;
    this.el.dataset.type = String(c.type);
    const toggle = customizationToggle(this.id, isEnabled(c), `Use ${String(c.name ?? this.id)}`, 'customization-toggle', this.dispatch);
    const head = [
      h('label', null, toggle, ' ', h('strong', null, String(c.name ?? this.id))), ' ',
      h('span', { class: 'badge' }, String(c.type)), ' ',
      h('span', { class: 'muted', dataset: { testid: 'customization-load' } }, LOAD_TEXT[load] ?? load),
    ];
    if (c.clientId) head.push(' ', h('span', { class: 'muted' }, `from client ${String(c.clientId)}`));
    const rows = [h('div', null, ...head)];
    if (c.load?.message) rows.push(h('div', { class: 'mcp-error', dataset: { testid: 'customization-message' } }, String(c.load.message)));
    if (Array.isArray(c.children)) {
      rows.push(c.children.length
        ? h('ul', { class: 'children' }, ...c.children.map(childLine))
        : h('div', { class: 'muted' }, '(empty)'));
    }
    this.el.replaceChildren(...rows);
  }
}

/** Renders the containers of `state` (views kept per id in `views`). */
export function renderCustomizations(state, views, dispatch) {
  const containers = (state?.customizations ?? []).filter((c) => c?.type === 'plugin' || c?.type === 'directory');
  syncKeyed($('customizations'), views, containers, (c) => c.id, (c, view = new ContainerView(c.id, dispatch)) => {
    view.update(c);
    return view;
  });
  $('customizations-empty').hidden = containers.length > 0;
}
