// The canvases of the open chat (AHP 1.0): the chat state's `canvases` lists `ahp-canvas:`
// channels (CanvasReference); each is subscribed and its page (`state.url`) shown in a frame
// sandboxed to `allow-scripts` alone (never `allow-same-origin`: the page gets an opaque origin
// and cannot reach this page, its storage or its token), with its title and status above it.
// Only pages on the host's own origin under `/canvas/` are framed; any other URL is named, not
// loaded. A canvas without a URL (its source gone) says so.

import { app } from './state.js';
import { $, h, syncKeyed } from './dom.js';
import { showError } from './errors.js';

/** The URL to frame, or null when `url` is not one of this host's canvas pages. */
export function canvasSource(url) {
  let parsed;
  try {
    parsed = new URL(String(url), location.href);
  } catch {
    return null;
  }
  if (parsed.origin !== location.origin || !parsed.pathname.startsWith('/canvas/')) return null;
  return parsed.href;
}

class CanvasView {
  constructor(uri) {
    this.uri = uri;
    this.sub = null;
    this.off = null;
    this.state = undefined;
    this.frame = null;
    this.head = h('div', { class: 'canvas-head' });
    this.body = h('div', { class: 'canvas-body' }, h('span', { class: 'muted' }, 'Opening…'));
    this.el = h('li', { class: 'canvas', dataset: { testid: 'canvas', uri } }, this.head, this.body);
  }

  async open(isLive) {
    try {
      const sub = await app.client.subscribe(this.uri);
      if (!isLive()) {
        sub.unsubscribe();
        return;
      }
      this.sub = sub;
      this.off = sub.onChange((_state, info) => {
        for (const r of info?.rejections ?? []) showError(`The host rejected ${r.action?.type ?? 'an action'}`, r.reason);
        this.render();
      });
      this.render();
    } catch (e) {
      if (isLive()) this.body.replaceChildren(h('span', { class: 'mcp-error' }, `Could not open the canvas: ${String(e?.message ?? e)}`));
    }
  }

  render() {
    const state = this.sub?.state;
    if (!state || state === this.state) return;
    const urlChanged = state.url !== this.state?.url;
    this.state = state;
    this.head.replaceChildren(
      h('strong', { dataset: { testid: 'canvas-title' } }, String(state.title || state.canvasId || 'Canvas')),
      state.status ? h('span', { class: 'muted', dataset: { testid: 'canvas-status' } }, ` · ${String(state.status)}`) : null);
    if (!urlChanged) return;
    if (!state.url) {
      this.frame = null;
      this.body.replaceChildren(h('span', { class: 'muted', dataset: { testid: 'canvas-message' } }, 'This canvas has no page now.'));
      return;
    }
    const src = canvasSource(state.url);
    if (!src) {
      this.frame = null;
      this.body.replaceChildren(h('span', { class: 'mcp-error', dataset: { testid: 'canvas-message' } },
        `Not shown: the canvas page ${String(state.url).slice(0, 200)} is not on this host.`));
      return;
    }
    this.frame = h('iframe', { class: 'canvas-frame', sandbox: 'allow-scripts', referrerpolicy: 'no-referrer', title: String(state.title || 'Canvas'), src, dataset: { testid: 'canvas-frame' } });
    this.body.replaceChildren(this.frame);
  }

  close() {
    this.off?.();
    try { this.sub?.unsubscribe(); } catch { /* already gone */ }
  }
}

/**
 * Shows the canvases `refs` (the chat state's `canvases`) of `chat` (chat.js's open chat): new
 * ones subscribed, gone ones closed.
 */
export function syncCanvases(chat, refs) {
  chat.canvasViews ??= new Map();
  const list = (refs ?? []).filter((r) => typeof r?.resource === 'string');
  const before = new Map(chat.canvasViews);
  syncKeyed($('canvases'), chat.canvasViews, list, (r) => r.resource, (r, view) => {
    if (view) return view;
    const fresh = new CanvasView(r.resource);
    fresh.open(() => app.current?.chat === chat && chat.canvasViews.get(r.resource) === fresh);
    return fresh;
  });
  for (const [uri, view] of before) if (!chat.canvasViews.has(uri)) view.close();
  $('canvases-panel').hidden = list.length === 0;
  $('canvases-summary').textContent = list.length ? `(${list.length})` : '';
}

/** Closes every canvas of `chat` (it is no longer open). */
export function closeCanvases(chat) {
  for (const view of chat?.canvasViews?.values() ?? []) view.close();
  chat?.canvasViews?.clear();
  $('canvases').replaceChildren();
  $('canvases-panel').hidden = true;
}
