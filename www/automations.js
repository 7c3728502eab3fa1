// The automations panel: the host's automations (the `ahp-automations://` channel, subscribed
// like any other), each with its trigger, an on/off switch (`automation/updateRequested`), Run
// now (`runAutomation`), Remove (`automation/removed`) and its newest runs (their status and a
// link to the session each made; older ones paged in with `fetchAutomationRuns`). A form creates
// one (`automation/createRequested`): manual, on an AHP cron schedule, or on one of the host's
// event triggers (`listAutomationTriggerDefinitions`, with fields from its config schema). The
// host answers a create or update with `automation/set`, a refusal rejects the action: its reason
// is shown and nothing changes.

import { AUTOMATIONS, ROOT, app } from './state.js';
import { $, h, syncKeyed, uuid } from './dom.js';
import { showError } from './errors.js';
import { openSession } from './session.js';

let definitions = []; // the host's event trigger definitions

function triggerText(trigger) {
  if (trigger?.kind === 'schedule') return `cron ${String(trigger.schedule?.expression ?? '?')} (${String(trigger.schedule?.timeZone ?? '?')})`;
  if (trigger?.kind === 'event') {
    const config = Object.entries(trigger.config ?? {}).map(([k, v]) => `${k} ${String(v)}`).join(', ');
    return `${String(trigger.title ?? trigger.type)}${config ? ` (${config})` : ''}`;
  }
  return String(trigger?.kind ?? '?');
}

function when(iso) {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? '' : new Date(t).toLocaleTimeString();
}

function runItem(run) {
  const lifecycle = run.lifecycle ?? {};
  const status = String(lifecycle.status ?? '?');
  const bits = [
    h('span', { class: 'badge', dataset: { testid: 'run-status' } }, status), ' ',
    h('span', { class: 'muted' }, `${run.origin?.kind === 'manual' ? 'manual' : 'triggered'} · ${when(lifecycle.startedAt ?? lifecycle.createdAt)}`),
  ];
  if (run.primarySession) {
    bits.push(' ', h('button', {
      type: 'button',
      dataset: { testid: 'run-session', uri: run.primarySession },
      onclick: () => openSession(run.primarySession).catch((e) => showError('Open session', e)),
    }, 'Open session'));
  }
  if (lifecycle.error?.message) bits.push(h('div', { class: 'mcp-error' }, String(lifecycle.error.message)));
  return h('li', { dataset: { testid: 'automation-run', uri: String(run.resource ?? ''), status } }, ...bits);
}

class AutomationView {
  constructor(uri) {
    this.uri = uri;
    this.entry = null;
    this.el = h('li', { class: 'automation', dataset: { testid: 'automation', uri } });
  }

  update(entry) {
    if (entry === this.entry) return;
    this.entry = entry;
    const def = entry.definition ?? {};
    const ops = entry.operations ?? [];
    this.el.dataset.enabled = String(Boolean(def.enabled));
    const triggers = def.triggers ?? [];
    const enabled = h('input', {
      type: 'checkbox',
      checked: Boolean(def.enabled),
      disabled: !ops.includes('update'),
      'aria-label': `Triggers of ${String(def.title ?? '')} on`,
      dataset: { testid: 'automation-enabled' },
      onchange: (ev) => dispatch({ type: 'automation/updateRequested', resource: this.uri, changes: { enabled: ev.target.checked } }),
    });
    const rows = [
      h('div', null, h('label', null, enabled, ' ', h('strong', { dataset: { testid: 'automation-name' } }, String(def.title ?? this.uri)))),
      h('div', { class: 'muted', dataset: { testid: 'automation-trigger-text' } },
        triggers.length ? triggers.map(triggerText).join('; ') : 'manual only',
        entry.nextRunAt && def.enabled ? ` · next ${when(entry.nextRunAt)}` : ''),
      h('div', { class: 'row' },
        h('button', { type: 'button', disabled: !ops.includes('run'), dataset: { testid: 'automation-run-now' }, onclick: () => this.run() }, 'Run now'),
        h('button', {
          type: 'button',
          disabled: !ops.includes('remove'),
          dataset: { testid: 'automation-remove' },
          onclick: () => dispatch({ type: 'automation/removed', resource: this.uri }),
        }, 'Remove')),
    ];
    const runs = entry.runs ?? [];
    if (runs.length) rows.push(h('ul', { class: 'automation-runs', dataset: { testid: 'automation-runs' } }, ...runs.map(runItem)));
    if (entry.runsNextCursor) {
      rows.push(h('button', { type: 'button', dataset: { testid: 'automation-more-runs' }, onclick: () => this.more(entry.runsNextCursor) }, 'Older runs'));
    }
    this.el.replaceChildren(...rows);
  }

  async run() {
    try {
      await app.client.runAutomation({ channel: ROOT, automation: this.uri, requestId: uuid() });
    } catch (e) {
      showError('Run automation', e);
    }
  }

  async more(cursor) {
    try {
      await app.client.fetchAutomationRuns({ channel: ROOT, automation: this.uri, cursor });
    } catch (e) {
      showError('Older runs', e);
    }
  }
}

function dispatch(action) {
  const sub = app.automations?.sub;
  if (!sub) return;
  try {
    sub.dispatch(action);
  } catch (e) {
    showError(`Dispatch ${action.type}`, e);
  }
}

function render() {
  const auto = app.automations;
  const state = auto?.sub?.state;
  if (!state || state === auto.last) return;
  auto.last = state;
  const entries = state.entries ?? [];
  syncKeyed($('automations'), auto.views, entries, (e) => e.resource, (entry, view = new AutomationView(entry.resource)) => {
    view.update(entry);
    return view;
  });
  $('automations-summary').textContent = entries.length ? `(${entries.length})` : '';
}

/** Subscribes to the host's automations (after connecting) and loads its trigger definitions. */
export async function openAutomations() {
  const live = app.client.subscription(AUTOMATIONS);
  const sub = live?.active ? live : await app.client.subscribe(AUTOMATIONS);
  closeAutomations();
  const auto = { uri: AUTOMATIONS, sub, off: null, views: new Map(), last: null };
  app.automations = auto;
  auto.off = sub.onChange((_state, info) => {
    for (const r of info?.rejections ?? []) showError(`The host rejected ${r.action?.type ?? 'an action'}`, r.reason);
    try {
      render();
    } catch (e) {
      showError('Render automations', e);
    }
  });
  render();
  try {
    const { items } = await app.client.listAutomationTriggerDefinitions({ channel: ROOT });
    definitions = items ?? [];
  } catch (e) {
    definitions = [];
    showError('Automation triggers', e);
  }
  renderTriggerChoices();
}

/** Forgets the subscription (the client is closing). */
export function closeAutomations() {
  const auto = app.automations;
  if (!auto) return;
  app.automations = null;
  auto.off?.();
  $('automations').replaceChildren();
}

function renderTriggerChoices() {
  const select = $('automation-trigger');
  const chosen = select.value;
  select.replaceChildren(
    h('option', { value: 'manual' }, 'Manual only'),
    h('option', { value: 'schedule' }, 'Cron schedule'),
    ...definitions.map((d) => h('option', { value: `event:${d.type}` }, String(d.title ?? d.type))),
  );
  if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
  renderTriggerFields();
}

/** The fields of the chosen trigger: a cron expression and zone, or the event's config. */
function renderTriggerFields() {
  const value = $('automation-trigger').value;
  const fields = [];
  if (value === 'schedule') {
    fields.push(
      h('label', null, 'Cron', h('input', { name: 'expression', value: '*/5 * * * *', title: 'Five fields: minute hour day month weekday', dataset: { testid: 'automation-cron' }, required: true })),
      h('label', null, 'Zone', h('input', { name: 'timeZone', value: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC', dataset: { testid: 'automation-tz' }, required: true })),
    );
  } else if (value.startsWith('event:')) {
    const def = definitions.find((d) => `event:${d.type}` === value);
    const required = new Set(def?.configSchema?.required ?? []);
    for (const [key, p] of Object.entries(def?.configSchema?.properties ?? {})) {
      const numeric = p?.type === 'number' || p?.type === 'integer';
      fields.push(h('label', { title: String(p?.description ?? '') }, String(p?.title ?? key), h('input', {
        name: key,
        type: numeric ? 'number' : 'text',
        min: numeric ? '0' : null,
        step: numeric ? 'any' : null,
        value: p?.default != null ? String(p.default) : null,
        required: required.has(key),
        dataset: { testid: `automation-config-${key}`, numeric: String(numeric) },
      })));
    }
  }
  $('automation-trigger-fields').replaceChildren(...fields);
}

/** The trigger list of the form's choice. */
function formTriggers() {
  const value = $('automation-trigger').value;
  const inputs = [...$('automation-trigger-fields').querySelectorAll('input')];
  const field = (name) => inputs.find((i) => i.name === name)?.value.trim() ?? '';
  if (value === 'schedule') {
    return [{ kind: 'schedule', id: 'schedule', schedule: { expression: field('expression'), timeZone: field('timeZone') } }];
  }
  if (value.startsWith('event:')) {
    const def = definitions.find((d) => `event:${d.type}` === value);
    if (!def) return [];
    const config = {};
    for (const i of inputs) if (i.value !== '') config[i.name] = i.dataset.numeric === 'true' ? Number(i.value) : i.value;
    return [{ kind: 'event', id: 'event', type: def.type, title: def.title, events: def.events ?? [], config }];
  }
  return [];
}

/** Wires the form (once). */
export function initAutomations() {
  $('automation-trigger').addEventListener('change', renderTriggerFields);
  renderTriggerChoices();
  $('automation-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!app.automations) {
      showError('New automation', 'not connected');
      return;
    }
    const definition = {
      title: $('automation-title').value.trim(),
      message: { text: $('automation-message').value, origin: { kind: 'automation' } },
      session: {},
      enabled: true,
      triggers: formTriggers(),
    };
    dispatch({ type: 'automation/createRequested', resource: `ahp-automation:/${uuid()}`, definition });
    $('automation-title').value = '';
    $('automation-message').value = '';
  });
}
