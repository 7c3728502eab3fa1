// The changes panel: the open session's changeset (its catalogue's static entry, subscribed
// like any channel), one row per changed file with its line counts, its unified diff (the
// host's `_meta.unifiedDiff`, rendered line by line as text) and a revert button; "Revert all"
// asks first when the operation carries a confirmation. Operations go through
// `invokeChangesetOperation`; the changeset's own actions bring the result back.

import { app } from './state.js';
import { $, h, syncKeyed } from './dom.js';
import { showError } from './errors.js';

const STATUS_TEXT = { added: 'A', modified: 'M', deleted: 'D' };

/** The subscribable URI of a catalogue entry: only a template without variables is one. */
function staticUri(changesets) {
  const entry = (changesets ?? []).find((c) => typeof c?.uriTemplate === 'string' && !c.uriTemplate.includes('{'));
  return entry?.uriTemplate ?? null;
}

function diffView(text) {
  const lines = String(text).split('\n');
  if (lines.at(-1) === '') lines.pop();
  return h('pre', { class: 'diff', dataset: { testid: 'change-diff' } }, ...lines.map((line) => {
    const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
    return h('span', { class: `diff-${kind}` }, `${line}\n`);
  }));
}

async function invoke(changes, operationId, target) {
  try {
    await app.client.invokeChangesetOperation(target ? { channel: changes.uri, operationId, target } : { channel: changes.uri, operationId });
  } catch (e) {
    showError(`Changeset operation ${operationId}`, e);
  }
}

class FileView {
  constructor(id, changes) {
    this.id = id;
    this.changes = changes;
    this.value = null;
    this.el = h('li', { class: 'change-file', dataset: { testid: 'change-file' } });
  }

  update(file, busy) {
    if (file === this.value && busy === this.busy) return;
    this.value = file;
    this.busy = busy;
    const meta = file._meta ?? {};
    const path = String(meta.path ?? file.id);
    const status = String(meta.status ?? '');
    this.el.dataset.path = path;
    this.el.dataset.status = status;
    const diff = file.edit?.diff;
    const stats = diff ? h('span', { class: 'muted', dataset: { testid: 'change-stats' } }, `+${Number(diff.added ?? 0)} −${Number(diff.removed ?? 0)}`)
      : h('span', { class: 'muted' }, meta.binary ? 'binary' : 'not diffed');
    const revert = h('button', {
      type: 'button',
      dataset: { testid: 'change-revert' },
      disabled: busy,
      onclick: () => invoke(this.changes, 'revert', { kind: 'resource', resource: file.id }),
    }, 'Revert');
    const head = h('div', null, h('span', { class: 'badge', title: status }, STATUS_TEXT[status] ?? '?'), ' ', h('strong', null, path), ' ', stats, ' ', revert);
    const rows = [head];
    if (typeof meta.unifiedDiff === 'string' && meta.unifiedDiff) {
      rows.push(h('details', null, h('summary', null, 'Diff'), diffView(meta.unifiedDiff)));
    }
    this.el.replaceChildren(...rows);
  }
}

function render(cur) {
  const changes = cur.changes;
  const state = changes?.sub?.state;
  if (!state || state === changes.last) return;
  changes.last = state;
  const files = state.files ?? [];
  const ops = state.operations ?? [];
  const busy = ops.some((o) => o.status === 'running');
  let added = 0;
  let removed = 0;
  for (const f of files) {
    added += Number(f.edit?.diff?.added ?? 0);
    removed += Number(f.edit?.diff?.removed ?? 0);
  }
  $('changes-summary').textContent = state.status === 'ready'
    ? `${files.length} changed file${files.length === 1 ? '' : 's'} (+${added} −${removed})`
    : String(state.status ?? '');
  $('changes-panel').dataset.status = String(state.status ?? '');
  const failed = ops.find((o) => o.status === 'error');
  $('changes-error').textContent = state.error ? String(state.error.message) : failed ? `${String(failed.label)}: ${String(failed.error?.message ?? 'failed')}` : '';
  const all = ops.find((o) => o.id === 'revert-all');
  const button = $('changes-revert-all');
  button.hidden = !all || files.length === 0;
  button.disabled = busy;
  button.onclick = () => {
    const question = typeof all?.confirmation === 'string' ? all.confirmation : all?.confirmation?.markdown;
    if (question && !window.confirm(String(question))) return;
    invoke(changes, 'revert-all');
  };
  syncKeyed($('changes'), changes.views, files, (f) => f.id, (f, view = new FileView(f.id, changes)) => {
    view.update(f, busy);
    return view;
  });
}

/** Follows the session's catalogue: subscribes to its changeset (once per URI). */
export async function syncChanges(cur, state) {
  const uri = staticUri(state.changesets);
  if (cur.changes?.uri === uri) return;
  closeChanges(cur);
  if (!uri) return;
  const changes = { uri, sub: null, off: null, views: new Map(), last: null };
  cur.changes = changes;
  $('changes-panel').hidden = false;
  try {
    const sub = await app.client.subscribe(uri);
    if (cur.changes !== changes || app.current !== cur) {
      sub.unsubscribe();
      return;
    }
    changes.sub = sub;
    changes.off = sub.onChange(() => {
      try {
        render(cur);
      } catch (e) {
        showError('Render changes', e);
      }
    });
    render(cur);
  } catch (e) {
    showError('Open the changeset', e);
  }
}

export function closeChanges(cur) {
  const changes = cur?.changes;
  if (!changes) return;
  cur.changes = null;
  changes.off?.();
  try { changes.sub?.unsubscribe(); } catch { /* already gone */ }
  $('changes').replaceChildren();
  $('changes-summary').textContent = '';
  $('changes-error').textContent = '';
  $('changes-revert-all').hidden = true;
  $('changes-panel').hidden = true;
}
