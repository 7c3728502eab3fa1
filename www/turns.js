// Views of a session's turns (the user message, response parts: markdown, reasoning, tool calls)
// and of its input requests. Each remembers what it rendered; `update` is cheap when the state
// object is the same (`===`) as last time.
//
// Nothing here knows the client: actions go through `ctx` (confirmTool, completeInput, mountApp), given by
// the session view (session.js).

import { h, syncChildren } from './dom.js';
import { MarkdownView, stringOrMarkdown } from './markdown.js';
import { terminalLink } from './terminal-panel.js';

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

/** The `ui://` View of an MCP App tool call (`_meta.ui.resourceUri`), if it is one. */
function appResource(tc) {
  const uri = tc?._meta?.ui?.resourceUri ?? tc?._meta?.['ui/resourceUri'];
  return tc?.contributor?.kind === 'mcp' && typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

class ToolCallView {
  constructor() {
    this.body = h('div');
    this.el = h('div', { class: 'tool', role: 'group', dataset: { testid: 'tool-call' } }, this.body);
    this.appEl = null; // the App's container: created once, never re-rendered (the iframe lives there)
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
    // A terminal the call uses (`/run`) is linked while it runs, and after.
    if (status !== 'completed') for (const c of tc.content ?? []) if (c?.type === 'terminal') children.push(terminalLink(c));
    if (status === 'completed') {
      if (tc.pastTenseMessage != null) children.push(h('div', null, stringOrMarkdown(tc.pastTenseMessage, 'tool-summary')));
      for (const c of tc.content ?? []) {
        children.push(c?.type === 'text'
          ? h('pre', { dataset: { testid: 'tool-result' } }, String(c.text ?? ''))
          : c?.type === 'terminal' ? terminalLink(c)
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
    this.body.replaceChildren(...children);
    if (!this.appEl && appResource(tc) && ctx.mountApp) {
      this.appEl = h('div', { class: 'mcp-app', dataset: { testid: 'mcp-app', resource: appResource(tc) } });
      this.el.append(this.appEl);
      ctx.mountApp(this.appEl, tc.toolCallId);
    }
  }
}

class OtherPartView {
  constructor() { this.el = h('div', { class: 'muted', dataset: { testid: 'other-part' } }); }

  update(part) {
    if (part === this.part) return;
    this.part = part;
    if (part.kind === 'resource' || part.kind === 'contentRef') this.el.textContent = `[resource ${String(part.uri ?? '')}]`;
    else if (part.kind === 'systemNotification') this.el.textContent = String(part.content?.markdown ?? part.content ?? part.message ?? '');
    else if (part.kind === 'inputRequest') {
      // The question itself is answered in the form under the transcript (chat.js).
      const answered = part.response ? ` (${String(part.response)})` : ' (waiting for an answer)';
      this.el.textContent = `Asked: ${String(part.request?.message ?? part.request?.questions?.[0]?.message ?? '')}${answered}`;
    }
    else this.el.textContent = `[${String(part.kind)}]`;
  }
}

function partKey(part, index) {
  if (part.kind === 'toolCall') return `tool:${part.toolCall?.toolCallId ?? index}`;
  return `${part.kind}:${part.id ?? index}`;
}

export class TurnView {
  constructor(id) {
    this.id = id;
    this.userEl = h('div', { class: 'user', dataset: { testid: 'user-message' } });
    this.partsEl = h('div', { class: 'parts' });
    this.endEl = h('div', { class: 'turn-end', dataset: { testid: 'turn-end' }, hidden: true });
    // Fork: a new chat of the session with the turns through this one (chats.js handles it).
    this.forkEl = h('button', { type: 'button', dataset: { testid: 'turn-fork', turnId: id }, hidden: true,
      title: 'A new chat with the conversation up to here' }, 'Fork');
    // Side chat: the same, and the text selected in this turn (if any) goes with it.
    this.sideEl = h('button', { type: 'button', dataset: { testid: 'turn-side-chat', turnId: id }, hidden: true,
      title: 'Ask aside, in a new chat that knows the conversation up to here (and the selected text)' }, 'Side chat');
    this.el = h('article', { class: 'turn', dataset: { testid: 'turn', turnId: id } }, this.userEl, this.partsEl,
      h('div', { class: 'turn-foot' }, this.endEl, this.forkEl, this.sideEl));
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
    // An error part (AHP 1.0) is said by the turn's end line.
    const parts = (turn.responseParts ?? []).filter((p) => p?.kind !== 'error');
    const nodes = parts.map((part, i) => {
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

    // Forks take completed turns, on agents that offer them.
    this.forkEl.hidden = live || turn.state !== 'complete' || !ctx.canFork?.();
    // Side chats may also start from the running turn, as far as it went.
    this.sideEl.hidden = !ctx.canSideChat?.();
    if (live) {
      this.endEl.hidden = true;
    } else {
      this.endEl.hidden = false;
      this.endEl.dataset.state = String(turn.state ?? '');
      const error = turn.error ?? turn.responseParts?.findLast((p) => p?.kind === 'error')?.error;
      this.endEl.textContent = turn.state === 'error'
        ? `Turn failed: ${String(error?.message ?? 'error')}`
        : turn.state === 'cancelled' ? 'Turn cancelled' : 'Turn complete';
    }
  }
}

/** The input-request forms (`/ask`): one per request, kept while the request object is the same. */
export class InputRequestView {
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
