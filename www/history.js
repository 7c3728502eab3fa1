// The turn history of the open chat: which completed turns the page renders, and older ones
// shown when the user scrolls to the top of the conversation.
//
// A long chat's DOM would grow with every turn ever made, so a chat opens with its last WINDOW
// turns rendered. The window is pinned to the turn it starts with: new turns join it at the
// bottom, and scrolling to the top widens it by PAGE older turns (the content the user looked
// at stays where it was). Turns the state does not hold yet come with AHP 1.0's `fetchTurns`:
// a chat whose snapshot is a tail window carries `turnsNextCursor`, and the host puts the
// loaded turns into the chat's state (`chat/turnsLoaded`) before it answers. The marker at the
// top says whether older turns are loading, can be shown, or the chat starts here.

import { h } from './dom.js';

export const WINDOW = 20;
export const PAGE = 20;
/** How close (px) to the top of the log counts as "scrolled to the top". */
const NEAR_TOP = 80;

export class TurnHistory {
  /** `client`: the SDK client; `sub`: the chat's subscription; `onChange()`: re-render the turns. */
  constructor(client, sub, onChange) {
    this.client = client;
    this.sub = sub;
    this.onChange = onChange;
    this.firstId = undefined; // the window's first turn id; null: from the chat's first turn
    this.hasMore = false;
    this.loading = false;
    this.failed = false;
    this.markerEl = h('div', { class: 'turns-marker muted', dataset: { testid: 'turns-marker' } });
    this.marker = { el: this.markerEl };
  }

  /** The completed turns to render, oldest first: the window of `turns`. */
  turns(turns) {
    let start = this.firstId == null ? 0 : turns.findIndex((t) => t.id === this.firstId);
    if (this.firstId === undefined || start < 0) {
      // First render, or the window's first turn is gone (the chat was truncated): start over.
      start = Math.max(0, turns.length - WINDOW);
      this.firstId = turns.length ? turns[start].id : null;
    }
    this.start = start;
    this.hasMore = start > 0 || Boolean(this.sub.state?.turnsNextCursor);
    const shown = turns.slice(start);
    this.renderMarker(shown.length);
    return shown;
  }

  renderMarker(shown) {
    const state = this.loading ? 'loading' : this.failed ? 'failed' : this.hasMore ? 'more' : 'start';
    this.markerEl.dataset.state = state;
    this.markerEl.textContent = {
      loading: 'Loading older turns…',
      failed: 'Could not load older turns (scroll up to retry)',
      more: 'Scroll up for older turns',
      start: shown ? 'Beginning of chat' : '',
    }[state];
  }

  /**
   * Called on the log's scroll events (`fromScroll`) and after renders: shows older turns near
   * the top. After a failure only the user's scrolling retries (no loop of failing requests).
   */
  maybeLoad(log, fromScroll) {
    if (this.failed && !fromScroll) return;
    const scrollable = log.scrollHeight > log.clientHeight;
    if ((log.scrollTop < NEAR_TOP || !scrollable) && this.hasMore && !this.loading) this.load(log);
  }

  async load(log) {
    this.loading = true;
    this.failed = false;
    const cursor = this.sub.state?.turnsNextCursor;
    if (!this.start && cursor) {
      this.onChange();
      try {
        await this.client.fetchTurns({ channel: this.sub.uri, cursor });
      } catch {
        this.failed = true;
      }
    }
    const turns = this.sub.state?.turns ?? [];
    const at = Math.max(0, turns.findIndex((t) => t.id === this.firstId));
    this.firstId = turns.length ? turns[Math.max(0, at - PAGE)].id : null;
    // Keep what the user looks at in place: the distance from the bottom does not change. Still
    // `loading` while the turns go in, so the render does not ask again before the scroll
    // position is restored; the second render updates the marker.
    const fromBottom = log.scrollHeight - log.scrollTop;
    this.onChange();
    log.scrollTop = log.scrollHeight - fromBottom;
    this.loading = false;
    this.onChange();
  }
}
