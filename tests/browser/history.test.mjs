// Older turns on scroll, in headless Chromium against the real ahp-host: a chat with 45 turns
// (made through the built-in agent) opens in a fresh page with only its last 20 turns rendered;
// scrolling to the top shows the older ones and prepends them: in order, none twice, the turn
// the user looked at staying in place; at the first turn the marker says the chat begins there.
// The host's 1.0 snapshot holds every turn (no `turnsNextCursor`), so no `fetchTurns` is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WAIT, assertNoProblems, explain, hostAndBrowser, openPage } from './harness.mjs';

const TURNS = 45;

/** The user messages of the rendered turns, top to bottom, and the marker's state. */
function rendered(page) {
  return page.evaluate(() => ({
    messages: [...document.querySelectorAll('[data-testid=turn] [data-testid=user-message]')].map((e) => e.textContent),
    ids: [...document.querySelectorAll('[data-testid=turn]')].map((e) => e.dataset.turnId),
    marker: document.querySelector('[data-testid=turns-marker]')?.dataset.state,
    markerText: document.querySelector('[data-testid=turns-marker]')?.textContent,
  }));
}

/** Scrolls the log to the top; resolves with where `text`'s turn was (px from the log's top). */
function scrollToTop(page, text) {
  return page.evaluate((text) => {
    const log = document.querySelector('[data-testid=log]');
    log.scrollTop = 0;
    const turn = [...log.querySelectorAll('[data-testid=turn]')].find((t) => t.querySelector('[data-testid=user-message]').textContent === text);
    return turn.getBoundingClientRect().top - log.getBoundingClientRect().top;
  }, text);
}

function offsetOf(page, text) {
  return page.evaluate((text) => {
    const log = document.querySelector('[data-testid=log]');
    const turn = [...log.querySelectorAll('[data-testid=turn]')].find((t) => t.querySelector('[data-testid=user-message]').textContent === text);
    return turn.getBoundingClientRect().top - log.getBoundingClientRect().top;
  }, text);
}

const expected = (from, to) => Array.from({ length: to - from }, (_, i) => `message ${from + i}`);

test('older turns are loaded with fetchTurns when the user scrolls to the top', { timeout: 5 * 60_000 }, async (t) => {
  const ctx = await hostAndBrowser(t, { prefix: 'ahp-browser-history-' });
  const { url, browser, pages } = ctx;
  try {
    // Page A makes the session: TURNS turns, one after the other, through the SDK in the page.
    const { page: a } = await openPage(browser, url, 'A', pages);
    const uri = await a.evaluate(async (n) => {
      const client = window.__ahp.client;
      const uri = `ahp-session:/history-${Date.now()}`;
      await client.createSession({ channel: uri });
      const session = await client.subscribe(uri);
      const sub = await client.subscribe(session.state.defaultChat);
      for (let i = 0; i < n; i += 1) {
        await new Promise((resolve) => {
          const off = sub.onChange((state) => { if (state.turns.length === i + 1 && !state.activeTurn) { off(); resolve(); } });
          sub.dispatch({ type: 'chat/turnStarted', turnId: `t-${i}`, startedAt: new Date().toISOString(), message: { text: `message ${i}`, origin: { kind: 'user' } } });
        });
      }
      return uri;
    }, TURNS);

    // Page B opens it: the last 20 turns.
    const fetches = [];
    const { page: b } = await openPage(browser, `${url}#${encodeURIComponent(uri)}`, 'B', pages, (page) => {
      page.on('websocket', (ws) => ws.on('framesent', (f) => {
        if (String(f.payload).includes('"fetchTurns"')) fetches.push(JSON.parse(String(f.payload)).params);
      }));
    });
    await b.waitForFunction(() => document.querySelectorAll('[data-testid=turn]').length === 20, null, { timeout: WAIT });
    let r = await rendered(b);
    assert.deepEqual(r.messages, expected(TURNS - 20, TURNS), 'the window: the last 20 turns');
    assert.equal(r.marker, 'more');
    assert.equal(fetches.length, 0, 'nothing fetched before the user scrolls up');

    // Scroll to the top: 20 older turns come, the turn that was on top stays where it was.
    const before = await scrollToTop(b, `message ${TURNS - 20}`);
    await b.waitForFunction(() => document.querySelectorAll('[data-testid=turn]').length === 40, null, { timeout: WAIT });
    await b.waitForFunction(() => document.querySelector('[data-testid=turns-marker]').dataset.state !== 'loading', null, { timeout: WAIT });
    r = await rendered(b);
    assert.deepEqual(r.messages, expected(TURNS - 40, TURNS), 'older turns prepended, in order, none twice');
    assert.equal(new Set(r.ids).size, r.ids.length, 'no turn twice');
    assert.equal(r.marker, 'more');
    const after = await offsetOf(b, `message ${TURNS - 20}`);
    assert.ok(Math.abs(after - before) < 30, `the scroll position is kept (${before} px, then ${after} px)`);
    assert.ok(await b.evaluate(() => document.querySelector('[data-testid=log]').scrollTop > 0));

    // Again: the rest, and the beginning of the session.
    await scrollToTop(b, `message ${TURNS - 40}`);
    await b.waitForFunction((n) => document.querySelectorAll('[data-testid=turn]').length === n, TURNS, { timeout: WAIT });
    await b.waitForFunction(() => document.querySelector('[data-testid=turns-marker]').dataset.state === 'start', null, { timeout: WAIT });
    r = await rendered(b);
    assert.deepEqual(r.messages, expected(0, TURNS));
    assert.equal(r.markerText, 'Beginning of chat');

    // Scrolling up again asks for nothing more; a new turn still joins at the bottom.
    await scrollToTop(b, 'message 0');
    await b.evaluate(() => window.__ahp.chat.dispatch({ type: 'chat/turnStarted', turnId: 'last', startedAt: new Date().toISOString(), message: { text: 'the newest', origin: { kind: 'user' } } }));
    await b.waitForFunction((n) => document.querySelectorAll('[data-testid=turn]').length === n, TURNS + 1, { timeout: WAIT });
    r = await rendered(b);
    assert.equal(r.messages.at(-1), 'the newest');
    assert.equal(fetches.length, 0, 'the snapshot holds every turn: nothing to fetch');
    assertNoProblems(pages);
  } catch (e) {
    throw explain(e, ctx);
  }
});
