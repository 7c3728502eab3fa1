// The annotations panel of the open session (AHP 1.0): its `ahp-session:/<id>/annotations`
// channel, subscribed like any other while the session is open. Lists each annotation (its file
// and lines, its entries with their author and text), adds one (file, line, text:
// `annotations/set`), replies to one (`annotations/entrySet`), removes an entry
// (`annotations/entryRemoved`, offered while more than one remains: the protocol forbids empty
// annotations) or the annotation (`annotations/removed`), resolves or reopens it
// (`annotations/updated`). The host refuses what breaks its rules (unknown ids, sizes): the
// SDK reverts the optimistic change and the reason is shown in the panel and the error list.
// Entry text is untrusted: plain text, or the safe Markdown subset (markdown.js).

import { app } from './state.js';
import { $, h, syncKeyed, uuid } from './dom.js';
import { showError } from './errors.js';
import { stringOrMarkdown } from './markdown.js';

/** Who wrote an entry: the page marks its own in `_meta.author`; the agent's annotations carry a turn. */
function author(annotation, entry) {
  const named = entry?._meta?.author;
  if (typeof named === 'string' && named) return named;
  return annotation.origin?.turnId ? 'agent' : 'client';
}

/** The session's first working directory (a `file:` URI), to resolve and shorten file paths. */
function workdir(cur) {
  const dir = cur?.sub?.state?.workingDirectories?.[0];
  return typeof dir === 'string' ? dir.replace(/\/+$/, '') : null;
}

/** `resource` relative to the working directory when it lies inside it. */
function shownPath(cur, resource) {
  const dir = workdir(cur);
  const text = String(resource ?? '');
  return dir && text.startsWith(`${dir}/`) ? decodeURIComponent(text.slice(dir.length + 1)) : text;
}

/** "line 3" or "lines 3-5" (1-based) for a 0-based range whose end line is exclusive at column 0. */
function linesText(range) {
  if (!range?.start) return 'whole file';
  const first = Number(range.start.line) + 1;
  const endLine = Number(range.end?.line ?? range.start.line);
  const last = range.end && range.end.character === 0 && endLine > first - 1 ? endLine : endLine + 1;
  return last > first ? `lines ${first}-${last}` : `line ${first}`;
}

class AnnotationView {
  constructor(cur, id) {
    this.cur = cur;
    this.id = id;
    this.annotation = null;
    this.el = h('li', { class: 'annotation', dataset: { testid: 'annotation', id } });
  }

  update(annotation) {
    if (annotation === this.annotation) return;
    this.annotation = annotation;
    const entries = annotation.entries ?? [];
    this.el.dataset.resolved = String(Boolean(annotation.resolved));
    const head = h('div', { class: 'annotation-head' },
      h('strong', { dataset: { testid: 'annotation-file' }, title: String(annotation.resource ?? '') }, shownPath(this.cur, annotation.resource)),
      ' ', h('span', { class: 'muted', dataset: { testid: 'annotation-lines' } }, linesText(annotation.range)),
      annotation.resolved ? h('span', { class: 'badge' }, ' · resolved') : null);
    const list = h('ul', { class: 'annotation-entries' }, ...entries.map((entry) => h('li', { dataset: { testid: 'annotation-entry', id: String(entry.id) } },
      h('span', { class: 'muted', dataset: { testid: 'annotation-author' } }, `${author(annotation, entry)}: `),
      stringOrMarkdown(entry.text ?? '', 'annotation-text'),
      entries.length > 1 ? h('button', {
        type: 'button',
        class: 'link',
        'aria-label': 'Remove this entry',
        dataset: { testid: 'annotation-entry-remove' },
        onclick: () => dispatch(this.cur, { type: 'annotations/entryRemoved', annotationId: this.id, entryId: entry.id }),
      }, '×') : null)));
    const reply = h('input', { placeholder: 'reply', 'aria-label': 'Reply', dataset: { testid: 'annotation-reply-text' }, required: true });
    const form = h('form', {
      class: 'row annotation-reply',
      dataset: { testid: 'annotation-reply' },
      onsubmit: (ev) => {
        ev.preventDefault();
        if (!reply.value.trim()) return;
        dispatch(this.cur, { type: 'annotations/entrySet', annotationId: this.id, entry: { id: uuid(), text: reply.value, _meta: { author: 'user' } } });
        reply.value = '';
      },
    }, reply,
    h('button', { type: 'submit', dataset: { testid: 'annotation-reply-send' } }, 'Reply'),
    h('button', {
      type: 'button',
      dataset: { testid: 'annotation-resolve' },
      onclick: () => dispatch(this.cur, { type: 'annotations/updated', annotationId: this.id, resolved: !annotation.resolved }),
    }, annotation.resolved ? 'Reopen' : 'Resolve'),
    h('button', {
      type: 'button',
      dataset: { testid: 'annotation-remove' },
      onclick: () => dispatch(this.cur, { type: 'annotations/removed', annotationId: this.id }),
    }, 'Remove'));
    this.el.replaceChildren(head, list, form);
  }
}

/** Shows a refusal (or a dispatch that threw) in the panel and in the page's error list. */
function refused(what, reason) {
  $('annotations-error').textContent = `${what}: ${String(reason ?? 'refused')}`;
  showError(what, reason);
}

function dispatch(cur, action) {
  const sub = cur?.annotations?.sub;
  if (!sub || app.current !== cur) return;
  $('annotations-error').textContent = '';
  try {
    sub.dispatch(action);
  } catch (e) {
    refused(`Dispatch ${action.type}`, e?.message ?? e);
  }
}

function render(cur) {
  const ann = cur.annotations;
  const state = ann?.sub?.state;
  if (!state || state === ann.last) return;
  ann.last = state;
  const list = state.annotations ?? [];
  syncKeyed($('annotations'), ann.views, list, (a) => a.id, (a, view = new AnnotationView(cur, a.id)) => {
    view.update(a);
    return view;
  });
  $('annotations-summary').textContent = list.length ? `(${list.length})` : '';
  $('annotations-empty').hidden = list.length > 0;
}

/** Subscribes to the annotations channel of the open session `cur` and shows the panel. */
export async function openAnnotations(cur) {
  const uri = cur.sub?.state?.annotations?.resource ?? `${cur.uri}/annotations`;
  const ann = { uri, sub: null, off: null, views: new Map(), last: null };
  cur.annotations = ann;
  let sub;
  try {
    sub = await app.client.subscribe(uri);
  } catch (e) {
    if (cur.annotations === ann) cur.annotations = null;
    showError('Open annotations', e);
    return;
  }
  if (app.current !== cur || cur.annotations !== ann) {
    sub.unsubscribe();
    return;
  }
  ann.sub = sub;
  ann.off = sub.onChange((_state, info) => {
    if (app.current !== cur) return;
    for (const r of info?.rejections ?? []) refused(`The host rejected ${r.action?.type ?? 'an action'}`, r.reason);
    try {
      render(cur);
    } catch (e) {
      showError('Render annotations', e);
    }
  });
  $('annotations-panel').hidden = false;
  render(cur);
}

/** Leaves the annotations of session `cur` and hides the panel. */
export function closeAnnotations(cur) {
  const ann = cur?.annotations;
  $('annotations').replaceChildren();
  $('annotations-summary').textContent = '';
  $('annotations-error').textContent = '';
  $('annotations-panel').hidden = true;
  if (!ann) return;
  cur.annotations = null;
  ann.off?.();
  try { ann.sub?.unsubscribe(); } catch { /* already gone */ }
}

/** Wires the panel's form (once): a new annotation on one line of a file of the working directory. */
export function initAnnotations() {
  $('annotation-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const cur = app.current;
    if (!cur?.annotations?.sub) {
      showError('New annotation', 'no session open');
      return;
    }
    const path = $('annotation-file').value.trim().replace(/^\/+/, '');
    const line = Math.max(1, Math.floor(Number($('annotation-line').value) || 1));
    const dir = workdir(cur);
    const resource = dir ? `${dir}/${path.split('/').map(encodeURIComponent).join('/')}` : path;
    const origin = { session: cur.uri };
    if (cur.chat?.uri) origin.chat = cur.chat.uri;
    dispatch(cur, {
      type: 'annotations/set',
      annotation: {
        id: uuid(),
        origin,
        resource,
        range: { start: { line: line - 1, character: 0 }, end: { line, character: 0 } },
        resolved: false,
        entries: [{ id: uuid(), text: $('annotation-text').value, _meta: { author: 'user' } }],
      },
    });
    $('annotation-text').value = '';
  });
}
