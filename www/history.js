// The turn history of the open session: which completed turns the page renders, and the older
// ones it loads with `fetchTurns` when the user scrolls to the top of the conversation.
//
// A long session's DOM would grow with every turn ever made, so a session opens with its last
// WINDOW turns rendered (from the subscription's state). The window is pinned to the turn it
// started with: new turns join it at the bottom, and scrolling to the top asks the host for the
// PAGE turns before the oldest one shown (`fetchTurns({ before, limit })`, the spec's lazy
// loading of history), which are prepended: no turn twice (a fetched turn also in the window is
// left out), the scroll position kept (the content the user looked at stays where it was). The
// marker at the top says whether older turns are loading, can be loaded, or the session starts
// here. The same code works with a host whose snapshot carries only recent turns: fetchTurns is
// asked whenever the window does not start at the first turn the host knows of.

import { h } from './dom.js';

export const WINDOW = 20;
export const PAGE = 20;
/** How close (px) to the top of the log counts as "scrolled to the top". */
const NEAR_TOP = 80;

export class TurnHistory {
  /** `client`: the SDK client; `uri`: the session; `onChange()`: re-render the turns. */
  constructor(client, uri, onChange) {
    this.client = client;
    this.uri = uri;
    this.onChange = onChange;
    this.firstId = undefined; // the window's first turn id; null: from the session's first turn
    this.fetched = []; // older turns from fetchTurns, oldest first
    this.hasMore = false;
    this.loading = false;
    this.failed = false;
    this.markerEl = h('div', { class: 'turns-marker muted', dataset: { testid: 'turns-marker' } });
    this.marker = { el: this.markerEl };
  }

  /** The completed turns to render, oldest first: fetched ones, then the window of `turns`. */
  turns(turns) {
    let start = this.firstId == null ? 0 : turns.findIndex((t) => t.id === this.firstId);
    if (this.firstId === undefined || start < 0) {
      // First render, or the window's first turn is gone (the session was truncated): start over.
      start = Math.max(0, turns.length - WINDOW);
      this.firstId = turns.length ? turns[start].id : null;
      this.fetched = [];
      this.hasMore = start > 0;
    }
    const window = turns.slice(start);
    const inWindow = new Set(window.map((t) => t.id));
    const older = this.fetched.filter((t) => !inWindow.has(t.id));
    this.renderMarker(older.length + window.length);
    return [...older, ...window];
  }

  renderMarker(shown) {
    const state = this.loading ? 'loading' : this.failed ? 'failed' : this.hasMore ? 'more' : 'start';
    this.markerEl.dataset.state = state;
    this.markerEl.textContent = {
      loading: 'Loading older turns…',
      failed: 'Could not load older turns (scroll up to retry)',
      more: 'Scroll up for older turns',
      start: shown ? 'Beginning of session' : '',
    }[state];
  }

  /**
   * Called on the log's scroll events (`fromScroll`) and after renders: loads older turns near the
   * top. After a failure only the user's scrolling retries (no loop of failing requests).
   */
  maybeLoad(log, fromScroll) {
    if (this.failed && !fromScroll) return;
    const scrollable = log.scrollHeight > log.clientHeight;
    if ((log.scrollTop < NEAR_TOP || !scrollable) && this.hasMore && !this.loading) this.load(log);
  }

  async load(log) {
    const turns = this.fetched.length ? this.fetched : null;
    const before = turns?.[0]?.id ?? this.firstId;
    if (!before) return;
    this.loading = true;
    this.failed = false;
    this.onChange();
    let result;
    try {
      result = await this.client.fetchTurns({ channel: this.uri, before, limit: PAGE });
    } catch {
      this.failed = true;
    }
    if (result) {
      const known = new Set(this.fetched.map((t) => t.id));
      this.fetched = [...result.turns.filter((t) => !known.has(t.id)), ...this.fetched];
      this.hasMore = Boolean(result.hasMore) && result.turns.length > 0;
    }
    // Keep what the user looks at in place: the distance from the bottom does not change. Still
    // `loading` while the turns go in, so the render does not ask again before the scroll
    // position is restored; the second render updates the marker (and loads on if the log still
    // cannot be scrolled).
    const fromBottom = log.scrollHeight - log.scrollTop;
    this.onChange();
    log.scrollTop = log.scrollHeight - fromBottom;
    this.loading = false;
    this.onChange();
  }
}
