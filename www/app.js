// The ahp-host page: a small AHP client built on the ahp-wasm SDK (served by the host under /pkg/).
//
// - Connects with the `tkn` query parameter of the page URL; shows the connection state.
// - Keeps the session list from `listSessions` plus the root channel's `root/session*`
//   notifications (and re-fetches it when the root state's `activeSessions` changes or after a
//   reconnect), so sessions created or deleted in another tab appear live.
// - Opens a session as an SDK Subscription and renders its optimistic `state`: own messages
//   appear at once, replies stream in (reasoning, markdown, tool calls), tool calls awaiting
//   confirmation get Approve / Deny, `/ask` questions get an answer box.
//
// Safety: everything from the host is untrusted. It is rendered with textContent and DOM nodes
// only, never parsed as HTML (the page's CSP enforces Trusted Types, so innerHTML with a string
// would throw). Markdown is rendered from a tiny subset into DOM nodes; links stay text.
//
// Efficiency: the SDK's state is structurally shared (what did not change keeps its identity),
// so each view remembers the object it last rendered and skips the work when it is `===`;
// completed turns are never rebuilt, a streaming markdown part re-renders only its last blocks.
//
// Test hook: `window.__ahp` = { client, root, subscription, sessions() } (the SDK objects of the
// page, for tests and the devtools console; tests/browser/page-e2e.test.mjs reads it).

const ROOT = 'ahp-root://';
const $ = (id) => document.getElementById(id);

/** Creates an element: h('div', { class: 'x', dataset: { testid: 'y' } }, 'text', child). */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  el.append(...children.filter((c) => c != null && c !== false));
  return el;
}

/** A random UUID; `crypto.randomUUID` exists only in secure contexts (a LAN address over http is not one). */
function uuid() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Makes `parent`'s children exactly `nodes`, in order, touching only what differs. */
function syncChildren(parent, nodes) {
  let i = 0;
  for (const node of nodes) {
    const at = parent.childNodes[i];
    if (at !== node) parent.insertBefore(node, at ?? null);
    i += 1;
  }
  while (parent.childNodes.length > nodes.length) parent.lastChild.remove();
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

function describeError(error) {
  if (error && typeof error === 'object') {
    const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
    const code = typeof error.code === 'number' ? ` (code ${error.code})` : '';
    return `${name}${error.message ?? String(error)}${code}`;
  }
  return String(error);
}

function showError(context, error) {
  const text = `${context}: ${describeError(error)}`;
  console.error(text, error);
  const list = $('errors');
  const item = h('li', { dataset: { testid: 'error' } },
    h('span', null, text),
    h('button', { type: 'button', 'aria-label': 'Dismiss error', onclick: () => item.remove() }, '×'));
  list.append(item);
  while (list.children.length > 20) list.firstElementChild.remove();
}

window.addEventListener('unhandledrejection', (ev) => showError('Unexpected error', ev.reason));

// ---------------------------------------------------------------------------------------------
// A tiny, safe Markdown subset -> DOM: paragraphs (single newlines are line breaks), fenced code
// blocks, block quotes, lists, headings; inline `code`, **bold**, *em* / _em_. Nothing else is
// interpreted; links and HTML stay literal text.
// ---------------------------------------------------------------------------------------------

/** Splits Markdown into blocks: [{ type, lines }]; an unclosed fence is a code block (streaming). */
function markdownBlocks(text) {
  const blocks = [];
  let current = null;
  const close = () => { if (current) blocks.push(current); current = null; };
  for (const line of text.split('\n')) {
    if (current?.type === 'code') {
      if (/^\s*```/.test(line)) close();
      else current.lines.push(line);
      continue;
    }
    if (/^\s*```/.test(line)) { close(); current = { type: 'code', lines: [], fence: line.trim().slice(3) }; continue; }
    if (line.trim() === '') { close(); continue; }
    const type = /^\s*>/.test(line) ? 'quote'
      : /^\s*([-*+]|\d+\.)\s+/.test(line) ? 'list'
      : /^#{1,6}\s/.test(line) ? 'heading'
      : 'para';
    if (type === 'heading') { close(); blocks.push({ type, lines: [line] }); continue; }
    if (current && current.type !== type) close();
    if (!current) current = { type, lines: [] };
    current.lines.push(line);
  }
  close();
  return blocks.map((b) => ({ ...b, key: `${b.type}\u0000${b.fence ?? ''}\u0000${b.lines.join('\n')}` }));
}

const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|(?<![\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])|(?<!\w)_(?=\S)([^_]*?\S)_(?!\w)/g;

/** Inline Markdown -> an array of nodes (text nodes, <code>, <strong>, <em>). */
function inline(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(document.createTextNode(text.slice(last, m.index)));
    if (m[2] !== undefined) out.push(h('code', null, m[2]));
    else if (m[3] !== undefined) out.push(h('strong', null, ...inline(m[3])));
    else out.push(h('em', null, ...inline(m[4] ?? m[5])));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(document.createTextNode(text.slice(last)));
  return out;
}

/** Lines -> nodes with <br> between them. */
function inlineLines(lines) {
  const out = [];
  lines.forEach((line, i) => {
    if (i > 0) out.push(h('br'));
    out.push(...inline(line));
  });
  return out;
}

function renderBlock(block) {
  switch (block.type) {
    case 'code': return h('pre', null, h('code', null, block.lines.join('\n')));
    case 'quote': return h('blockquote', null, h('p', null, ...inlineLines(block.lines.map((l) => l.replace(/^\s*>\s?/, '')))));
    case 'heading': {
      const level = Math.min(6, block.lines[0].match(/^#+/)[0].length + 2);
      return h(`h${level}`, null, ...inline(block.lines[0].replace(/^#+\s*/, '')));
    }
    case 'list': {
      const ordered = /^\s*\d+\./.test(block.lines[0]);
      return h(ordered ? 'ol' : 'ul', null,
        ...block.lines.map((l) => h('li', null, ...inline(l.replace(/^\s*([-*+]|\d+\.)\s+/, '')))));
    }
    default: return h('p', null, ...inlineLines(block.lines));
  }
}

/** A Markdown view that re-renders only the blocks whose source changed (streaming appends). */
class MarkdownView {
  constructor(testid) {
    this.el = h('div', { class: 'md', dataset: { testid } });
    this.text = null;
    this.blocks = []; // [{ key, el }]
  }

  update(text) {
    if (text === this.text) return;
    this.text = text;
    const next = markdownBlocks(text).map((b, i) => {
      const old = this.blocks[i];
      return old && old.key === b.key ? old : { key: b.key, el: renderBlock(b) };
    });
    this.blocks = next;
    syncChildren(this.el, next.map((b) => b.el));
  }
}

/** A StringOrMarkdown value: plain strings as text, `{ markdown }` through the safe subset. */
function stringOrMarkdown(value, testid) {
  if (value == null) return null;
  if (typeof value === 'string') return h('span', { dataset: { testid } }, value);
  const view = new MarkdownView(testid);
  view.update(String(value.markdown ?? ''));
  return view.el;
}

// ---------------------------------------------------------------------------------------------
// Views of a session's turns. Each remembers what it rendered; `update` is cheap when the state
// object is the same (`===`) as last time.
// ---------------------------------------------------------------------------------------------

class TextPartView {
  constructor(part) {
    this.kind = part.kind;
    if (part.kind === 'reasoning') {
      this.pre = h('pre', { dataset: { testid: 'reasoning-text' } });
      this.el = h('details', { class: 'reasoning', open: true, dataset: { testid: 'reasoning' } },
        h('summary', null, 'Reasoning'), this.pre);
      this.text = '';
    } else {
      this.md = new MarkdownView('markdown');
      this.el = this.md.el;
    }
    this.part = null;
  }

  update(part) {
    if (part === this.part) return;
    this.part = part;
    const text = String(part.content ?? '');
    if (this.md) {
      this.md.update(text);
    } else if (text.startsWith(this.text)) {
      // Streaming reasoning only appends: add the new text, keep the rest.
      if (text.length > this.text.length) this.pre.append(text.slice(this.text.length));
      this.text = text;
    } else {
      this.pre.textContent = text;
      this.text = text;
    }
  }
}

const TOOL_STATUS_TEXT = {
  streaming: 'preparing',
  'pending-confirmation': 'awaiting confirmation',
  running: 'running',
  'pending-result-confirmation': 'awaiting result confirmation',
  completed: 'completed',
  cancelled: 'cancelled',
};

class ToolCallView {
  constructor() {
    this.el = h('div', { class: 'tool', role: 'group', dataset: { testid: 'tool-call' } });
  }

  /** `live`: the turn is the active one (only then can the call be confirmed). */
  update(part, ctx, live) {
    if (this.part === part && this.live === live) return;
    this.part = part;
    this.live = live;
    const tc = part.toolCall ?? {};
    const status = tc.status ?? 'unknown';
    let statusText = TOOL_STATUS_TEXT[status] ?? status;
    if (status === 'cancelled' && tc.reason) statusText = `cancelled: ${tc.reason}`;
    if (status === 'completed' && tc.success === false) statusText = 'failed';
    this.el.dataset.status = status;
    this.el.dataset.toolCallId = tc.toolCallId ?? '';
    this.el.setAttribute('aria-label', `Tool call ${tc.displayName ?? tc.toolName ?? ''}`);
    const children = [
      h('div', { class: 'tool-head' },
        h('strong', { dataset: { testid: 'tool-name' } }, String(tc.displayName ?? tc.toolName ?? 'tool')), ' ',
        h('span', { class: 'tool-status', dataset: { testid: 'tool-status' } }, statusText)),
    ];
    if (tc.invocationMessage != null && status !== 'completed') {
      children.push(h('div', null, stringOrMarkdown(tc.invocationMessage, 'tool-invocation')));
    }
    if (tc.toolInput != null && status === 'pending-confirmation') {
      children.push(h('pre', { dataset: { testid: 'tool-input' } }, String(tc.toolInput)));
    }
    if (status === 'completed') {
      if (tc.pastTenseMessage != null) children.push(h('div', null, stringOrMarkdown(tc.pastTenseMessage, 'tool-summary')));
      for (const c of tc.content ?? []) {
        children.push(c?.type === 'text'
          ? h('pre', { dataset: { testid: 'tool-result' } }, String(c.text ?? ''))
          : h('div', { class: 'muted' }, `[${String(c?.type ?? 'unknown')} content]`));
      }
      if (tc.error?.message) children.push(h('div', { class: 'turn-end', 'data-state': 'error' }, String(tc.error.message)));
    }
    if (status === 'cancelled' && tc.reasonMessage != null) {
      children.push(h('div', null, stringOrMarkdown(tc.reasonMessage, 'tool-reason')));
    }
    if (status === 'pending-confirmation' && live) {
      const confirm = (approved) => ctx.confirmTool(ctx.turnId, tc.toolCallId, approved);
      children.push(h('div', { class: 'actions' },
        h('button', { type: 'button', dataset: { testid: 'tool-approve' }, onclick: () => confirm(true) }, 'Approve'),
        h('button', { type: 'button', dataset: { testid: 'tool-deny' }, onclick: () => confirm(false) }, 'Deny')));
    }
    this.el.replaceChildren(...children);
  }
}

class OtherPartView {
  constructor() { this.el = h('div', { class: 'muted', dataset: { testid: 'other-part' } }); }

  update(part) {
    if (part === this.part) return;
    this.part = part;
    if (part.kind === 'resource') this.el.textContent = `[resource ${String(part.uri ?? '')}]`;
    else if (part.kind === 'systemNotification') this.el.textContent = String(part.content ?? part.message ?? '');
    else this.el.textContent = `[${String(part.kind)}]`;
  }
}

function partKey(part, index) {
  if (part.kind === 'toolCall') return `tool:${part.toolCall?.toolCallId ?? index}`;
  return `${part.kind}:${part.id ?? index}`;
}

class TurnView {
  constructor(id) {
    this.id = id;
    this.userEl = h('div', { class: 'user', dataset: { testid: 'user-message' } });
    this.partsEl = h('div', { class: 'parts' });
    this.endEl = h('div', { class: 'turn-end', dataset: { testid: 'turn-end' }, hidden: true });
    this.el = h('article', { class: 'turn', dataset: { testid: 'turn', turnId: id } }, this.userEl, this.partsEl, this.endEl);
    this.parts = new Map(); // part key -> view
    this.turn = null;
  }

  update(turn, { live, pending, ctx }) {
    if (turn === this.turn && live === this.live && pending === this.pending) return;
    const messageChanged = !this.turn || turn.message !== this.turn.message;
    this.turn = turn;
    this.live = live;
    this.pending = pending;
    this.el.dataset.pending = String(pending);
    this.el.dataset.state = live ? 'active' : String(turn.state ?? '');
    if (messageChanged) this.userEl.textContent = String(turn.message?.text ?? '');

    const partCtx = { ...ctx, turnId: turn.id };
    const seen = new Set();
    const nodes = (turn.responseParts ?? []).map((part, i) => {
      const key = partKey(part, i);
      seen.add(key);
      let view = this.parts.get(key);
      if (!view) {
        view = part.kind === 'toolCall' ? new ToolCallView()
          : part.kind === 'markdown' || part.kind === 'reasoning' ? new TextPartView(part)
          : new OtherPartView();
        this.parts.set(key, view);
      }
      view.update(part, partCtx, live);
      return view.el;
    });
    for (const key of this.parts.keys()) if (!seen.has(key)) this.parts.delete(key);
    syncChildren(this.partsEl, nodes);

    if (live) {
      this.endEl.hidden = true;
    } else {
      this.endEl.hidden = false;
      this.endEl.dataset.state = String(turn.state ?? '');
      this.endEl.textContent = turn.state === 'error'
        ? `Turn failed: ${String(turn.error?.message ?? 'error')}`
        : turn.state === 'cancelled' ? 'Turn cancelled' : 'Turn complete';
    }
  }
}

/** The input-request forms (`/ask`): one per request, kept while the request object is the same. */
class InputRequestView {
  constructor(request, ctx) {
    this.request = request;
    const questions = request.questions ?? [];
    const fields = questions.map((q) => {
      const id = `input-${request.id}-${q.id}`;
      const supported = q.kind === 'text' || q.kind === 'number' || q.kind === undefined;
      const input = supported
        ? h('input', {
            id, name: q.id, type: q.kind === 'number' ? 'number' : 'text', required: q.required ? true : null,
            value: q.defaultValue != null ? String(q.defaultValue) : null, dataset: { testid: 'input-answer' },
          })
        : h('span', { class: 'muted' }, `(a ${String(q.kind)} question: not supported by this page)`);
      const labelText = String(q.title ?? q.message ?? q.id);
      // The label names the field for assistive technology; shown only when it adds something.
      const label = h('label', { for: id, class: labelText === request.message ? 'visually-hidden' : null }, labelText);
      return { q, input: supported ? input : null, el: h('div', { class: 'row' }, label, input) };
    });
    const complete = (response) => {
      const answers = {};
      if (response === 'accept') {
        for (const { q, input } of fields) {
          if (!input) continue;
          const value = q.kind === 'number' ? { kind: 'number', value: Number(input.value) } : { kind: 'text', value: input.value };
          answers[q.id] = { state: 'submitted', value };
        }
      }
      ctx.completeInput(request.id, response, response === 'accept' ? answers : undefined);
    };
    this.el = h('form', {
      dataset: { testid: 'input-request', requestId: request.id },
      'aria-label': 'Question from the agent',
      onsubmit: (ev) => { ev.preventDefault(); complete('accept'); },
    },
    request.message != null ? h('div', { dataset: { testid: 'input-message' } }, String(request.message)) : null,
    request.url != null ? h('div', { class: 'muted' }, `URL: ${String(request.url)}`) : null,
    ...fields.map((f) => f.el),
    h('div', { class: 'row' },
      h('button', { type: 'submit', dataset: { testid: 'input-submit' }, disabled: fields.some((f) => !f.input && f.q.required) }, 'Submit'),
      h('button', { type: 'button', dataset: { testid: 'input-decline' }, onclick: () => complete('decline') }, 'Decline')));
  }
}

// ---------------------------------------------------------------------------------------------
// The app
// ---------------------------------------------------------------------------------------------

const app = {
  sdk: null,
  client: null,
  root: null,
  sessions: new Map(), // resource -> SessionSummary
  listGeneration: 0,
  current: null, // { uri, sub, off, turnViews: Map, inputViews: Map, lastState }
};

window.__ahp = {
  get client() { return app.client; },
  get root() { return app.root; },
  get subscription() { return app.current?.sub ?? null; },
  sessions: () => [...app.sessions.values()],
};

function setConnection(state) {
  const out = $('connection');
  out.value = state;
  out.textContent = state;
  out.dataset.state = state;
  $('new-session').disabled = !app.client || state === 'closed';
  $('retry').hidden = state !== 'failed' && state !== 'closed';
}

// ---- session list ----

function renderSessions() {
  const items = [...app.sessions.values()].sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0));
  const list = $('sessions');
  list.replaceChildren(...items.map((s) => {
    // SessionStatus bits: 2 error, 8 in progress, 16 (with 8) input needed.
    const badge = (s.status & 16) !== 0 ? 'needs input' : (s.status & 8) !== 0 ? 'working' : (s.status & 2) !== 0 ? 'error' : null;
    const current = app.current?.uri === s.resource;
    return h('li', null, h('button', {
      type: 'button',
      'aria-current': current ? 'true' : null,
      dataset: { testid: 'session-item', uri: s.resource },
      onclick: () => openSession(s.resource).catch((e) => showError('Open session', e)),
    }, String(s.title || s.resource), badge ? h('span', { class: 'badge' }, ` · ${badge}`) : null));
  }));
}

async function refreshSessions() {
  const generation = ++app.listGeneration;
  try {
    const result = await app.client.listSessions({ channel: ROOT });
    if (generation !== app.listGeneration) return; // a newer fetch is under way
    app.sessions = new Map((result?.items ?? []).map((s) => [s.resource, s]));
    renderSessions();
  } catch (e) {
    showError('List sessions', e);
  }
}

function onRootNotification(method, params) {
  if (method === 'root/sessionAdded' && params?.summary?.resource) {
    app.sessions.set(params.summary.resource, params.summary);
  } else if (method === 'root/sessionRemoved' && params?.session) {
    app.sessions.delete(params.session);
    const deleted = 'This session was deleted.';
    if (app.current?.uri === params.session) closeSession(deleted);
    else if (!app.current && app.closedUri === params.session) $('session-title').textContent = deleted;
  } else if (method === 'root/sessionSummaryChanged' && app.sessions.has(params?.session)) {
    app.sessions.set(params.session, { ...app.sessions.get(params.session), ...params.changes });
  } else {
    return;
  }
  renderSessions();
}

function renderRoot(state) {
  const agents = (state?.agents ?? []).map((a) => a.displayName ?? a.provider).join(', ');
  const count = state?.activeSessions;
  $('root-info').textContent = `${agents ? `Agent: ${agents}` : ''}${count != null ? ` · ${count} session${count === 1 ? '' : 's'}` : ''}`;
}

// ---- one session ----

function closeSession(message) {
  const cur = app.current;
  if (!cur) return;
  app.current = null;
  app.closedUri = cur.uri;
  cur.off?.();
  try { cur.sub?.unsubscribe(); } catch { /* already gone */ }
  $('log').replaceChildren();
  $('inputs').replaceChildren();
  $('queued').replaceChildren();
  $('session-title').textContent = message ?? 'No session open';
  $('session-info').textContent = '';
  $('cancel-turn').hidden = true;
  $('dispose-session').hidden = true;
  $('message').disabled = true;
  $('send').disabled = true;
  if (history.replaceState) history.replaceState(null, '', location.pathname + location.search);
  renderSessions();
}

async function openSession(uri) {
  if (app.current?.uri === uri) return;
  closeSession();
  const cur = { uri, sub: null, off: null, turnViews: new Map(), inputViews: new Map(), last: {} };
  app.current = cur;
  $('session-title').textContent = 'Opening…';
  renderSessions();
  let sub;
  try {
    sub = await app.client.subscribe(uri);
  } catch (e) {
    if (app.current === cur) closeSession('Could not open the session');
    throw e;
  }
  if (app.current !== cur) return; // another session was opened meanwhile
  cur.sub = sub;
  cur.off = sub.onChange((state, info) => {
    if (app.current !== cur) return;
    for (const r of info?.rejections ?? []) showError(`The host rejected ${r.action?.type ?? 'an action'}`, r.reason);
    try {
      renderSession(cur);
    } catch (e) {
      showError('Render', e);
    }
  });
  history.replaceState?.(null, '', `${location.pathname}${location.search}#${encodeURIComponent(uri)}`);
  $('dispose-session').hidden = false;
  $('message').disabled = false;
  $('send').disabled = false;
  renderSession(cur);
  $('message').focus();
}

const sessionCtx = {
  confirmTool(turnId, toolCallId, approved) {
    dispatch(approved
      ? { type: 'session/toolCallConfirmed', turnId, toolCallId, approved: true, confirmed: 'user-action' }
      : { type: 'session/toolCallConfirmed', turnId, toolCallId, approved: false, reason: 'denied' });
  },
  completeInput(requestId, response, answers) {
    dispatch(answers ? { type: 'session/inputCompleted', requestId, response, answers }
      : { type: 'session/inputCompleted', requestId, response });
  },
};

function dispatch(action) {
  const cur = app.current;
  if (!cur?.sub) return;
  try {
    cur.sub.dispatch(action);
  } catch (e) {
    showError(`Dispatch ${action.type}`, e);
  }
}

function renderSession(cur) {
  const state = cur.sub.state;
  const last = cur.last;
  if (state === last.state) return;
  cur.last = { ...last, state };
  if (!state) return;

  if (state.summary !== last.state?.summary || state.lifecycle !== last.state?.lifecycle) {
    $('session-title').textContent = String(state.summary?.title || cur.uri);
    const info = [state.lifecycle, state.summary?.model?.id].filter(Boolean).join(' · ');
    $('session-info').textContent = state.creationError ? `${info} · ${String(state.creationError.message)}` : info;
  }

  // Turns: completed ones, then the active one; views keyed by turn id (the active turn's view
  // becomes the completed turn's view, re-rendering only the parts that changed).
  const confirmed = cur.sub.confirmedState;
  const active = state.activeTurn ?? null;
  const turns = state.turns ?? [];
  if (turns !== last.state?.turns || active !== last.state?.activeTurn || cur.sub.pendingCount !== last.pendingCount) {
    const nodes = [];
    const seen = new Set();
    const show = (turn, live) => {
      seen.add(turn.id);
      let view = cur.turnViews.get(turn.id);
      if (!view) cur.turnViews.set(turn.id, (view = new TurnView(turn.id)));
      const pending = live && confirmed?.activeTurn?.id !== turn.id;
      view.update(turn, { live, pending, ctx: sessionCtx });
      nodes.push(view.el);
    };
    for (const turn of turns) show(turn, false);
    if (active) show(active, true);
    for (const id of cur.turnViews.keys()) if (!seen.has(id)) cur.turnViews.delete(id);
    const log = $('log');
    const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    syncChildren(log, nodes);
    if (atBottom) log.scrollTop = log.scrollHeight;
    cur.last.pendingCount = cur.sub.pendingCount;
  }
  $('cancel-turn').hidden = !active;

  // Input requests.
  if (state.inputRequests !== last.state?.inputRequests) {
    const seen = new Set();
    const nodes = (state.inputRequests ?? []).map((request) => {
      seen.add(request.id);
      let view = cur.inputViews.get(request.id);
      if (!view || view.request !== request) cur.inputViews.set(request.id, (view = new InputRequestView(request, sessionCtx)));
      return view.el;
    });
    for (const id of cur.inputViews.keys()) if (!seen.has(id)) cur.inputViews.delete(id);
    syncChildren($('inputs'), nodes);
  }

  // Queued and steering messages.
  if (state.queuedMessages !== last.state?.queuedMessages || state.steeringMessage !== last.state?.steeringMessage) {
    const items = [];
    if (state.steeringMessage) items.push(h('li', null, `Steering: ${String(state.steeringMessage.message?.text ?? '')}`));
    for (const m of state.queuedMessages ?? []) items.push(h('li', { dataset: { testid: 'queued-message' } }, `Queued: ${String(m.message?.text ?? '')}`));
    $('queued').replaceChildren(...items);
  }
}

function send(text) {
  const cur = app.current;
  if (!cur?.sub) return false;
  const message = { text, origin: { kind: 'user' } };
  const state = cur.sub.state;
  try {
    if (state?.activeTurn) {
      // A turn is running: queue the message; the host starts it when the turn ends.
      cur.sub.dispatch({ type: 'session/pendingMessageSet', kind: 'queued', id: uuid(), message });
    } else {
      cur.sub.dispatch({ type: 'session/turnStarted', turnId: uuid(), message });
    }
    return true;
  } catch (e) {
    showError('Send', e);
    return false;
  }
}

// ---- wiring ----

async function connect() {
  if (app.client) {
    // Retry after the client closed for good: start over with a new one.
    closeSession();
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
    app.sdk ??= await import('/pkg/web.js');
    client = await app.sdk.AhpClient.connect(url, { token, initialSubscriptions: [ROOT] });
  } catch (e) {
    setConnection('failed');
    showError('Connect', e);
    return;
  }
  app.client = client;
  client.onConnectionStateChange((state) => setConnection(state));
  client.onEvent((event) => {
    switch (event.type) {
      case 'notification':
        onRootNotification(event.method, event.params);
        break;
      case 'connected':
        // Root notifications are not replayed after a reconnect: fetch the list again.
        refreshSessions();
        break;
      case 'rejected':
        // Also reported per subscription (onChange rejections); show the others here.
        if (event.channel !== app.current?.uri) showError(`The host rejected ${event.rejection?.action?.type ?? 'an action'}`, event.rejection?.reason);
        break;
      case 'pendingDropped':
        showError('Connection lost', `${event.actions?.length ?? 0} unsent action(s) on ${event.channel} were dropped (${event.reason})`);
        break;
      case 'reconnectFailed':
        setConnection('reconnecting');
        break;
      case 'subscriptionLost':
        if (event.channel === app.current?.uri) closeSession(`Subscription lost: ${event.reason}`);
        break;
      default:
        break;
    }
  });
  setConnection(client.connectionState ?? 'connected');

  try {
    app.root = client.subscription(ROOT) ?? (await client.subscribe(ROOT));
    renderRoot(app.root.state);
    let lastCount = app.root.state?.activeSessions;
    app.root.onChange((state) => {
      renderRoot(state);
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

  const wanted = decodeURIComponent(location.hash.slice(1));
  if (wanted.startsWith('ahp-session:')) openSession(wanted).catch((e) => showError('Open session', e));
}

$('retry').addEventListener('click', () => connect());

$('new-session').addEventListener('click', async () => {
  const uri = `ahp-session:/${uuid()}`;
  try {
    await app.client.createSession({ channel: uri });
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
  const turnId = app.current?.sub?.state?.activeTurn?.id;
  if (turnId) dispatch({ type: 'session/turnCancelled', turnId });
});

$('composer').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const box = $('message');
  const text = box.value;
  if (!text.trim()) return;
  if (send(text)) box.value = '';
});

$('message').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    $('composer').requestSubmit();
  }
});

connect();
