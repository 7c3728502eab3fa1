// Forks, side chats and background work in the page, in headless Chromium against the real
// ahp-host: a completed turn's Fork makes a new chat of the session with the turns through it
// (the host's fork, `createChat` with a `source`) and opens it; the fork is a conversation of its
// own. Side chat does the same with the text selected in the turn kept in its origin. The
// built-in agent's `/run --background` shows above the transcript while the command runs and
// goes when it ends.
// A screenshot at 1280x800 goes to target/screenshots/chat-fork.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_DIR, WAIT, assertNoProblems, explain, hostAndBrowser, newSessionLendingTools, openPage } from './harness.mjs';

/** Sends `text` from the composer and waits for the chat to have `turns` completed turns. */
async function send(page, text, turns) {
  const box = page.locator('[data-testid=message-input]');
  await box.fill(text);
  await box.press('Enter');
  await page.waitForFunction((n) => window.__ahp.chat?.state?.turns?.length === n && !window.__ahp.chat.state.activeTurn,
    turns, { timeout: WAIT });
}

test('chats: fork a turn and open a side chat from the page; background work shown while it runs', { timeout: 5 * 60_000 }, async (t) => {
  const ctx = await hostAndBrowser(t, { prefix: 'ahp-browser-chat-sources-' });
  const { url, browser, pages } = ctx;
  try {
    const { page } = await openPage(browser, url, 'A', pages);
    await newSessionLendingTools(page);
    await send(page, 'first', 1);
    await send(page, 'second', 2);
    const source = await page.evaluate(() => window.__ahp.chat.uri);
    const turns = await page.evaluate(() => window.__ahp.chat.state.turns.map((t) => t.id));

    // Fork at the first turn: a new chat, opened, with that turn only.
    const fork = page.locator(`[data-testid=turn][data-turn-id="${turns[0]}"] [data-testid=turn-fork]`);
    await fork.waitFor({ timeout: WAIT });
    await fork.click();
    await page.waitForFunction((from) => window.__ahp.chat?.uri !== from && window.__ahp.chat?.state, source, { timeout: WAIT });
    const forked = await page.evaluate(() => ({ uri: window.__ahp.chat.uri, state: window.__ahp.chat.state }));
    assert.deepEqual(forked.state.turns.map((t) => t.message.text), ['first']);
    assert.deepEqual(forked.state.origin, { kind: 'fork', chat: source, turnId: turns[0] });
    await page.locator(`[data-testid=chat-item][data-uri="${forked.uri}"][aria-current=true]`).waitFor({ timeout: WAIT });
    // Its own conversation: a turn there, the source unchanged.
    await send(page, 'only in the fork', 2);
    const sourceTurns = await page.evaluate(async (uri) => {
      const sub = await window.__ahp.client.subscribe(uri);
      const texts = sub.state.turns.map((t) => t.message.text);
      sub.unsubscribe();
      return texts;
    }, source);
    assert.deepEqual(sourceTurns, ['first', 'second']);

    // Side chat on the fork's second turn, with text selected in it: a new chat with the turns
    // through that one, the selection kept in its origin.
    const second = await page.evaluate(() => window.__ahp.chat.state.turns[1].id);
    const turnEl = `[data-testid=turn][data-turn-id="${second}"]`;
    await page.evaluate((sel) => {
      const text = document.querySelector(`${sel} [data-testid=user-message]`).firstChild;
      const range = document.createRange();
      range.setStart(text, 0);
      range.setEnd(text, 'only in the fork'.length);
      window.getSelection().removeAllRanges();
      window.getSelection().addRange(range);
    }, turnEl);
    await page.click(`${turnEl} [data-testid=turn-side-chat]`);
    await page.waitForFunction((from) => window.__ahp.chat?.uri !== from && window.__ahp.chat?.state, forked.uri, { timeout: WAIT });
    const side = await page.evaluate(() => window.__ahp.chat.state);
    assert.deepEqual(side.turns.map((t) => t.message.text), ['first', 'only in the fork']);
    assert.deepEqual(side.origin, { kind: 'sideChat', chat: forked.uri, turnId: second, selection: { text: 'only in the fork' } });

    // Background work: the turn ends while `sleep` runs on, listed above the transcript; the
    // entry goes when the process exits.
    await send(page, '/run --background sleep 8', 3);
    const entry = page.locator('[data-testid=background-work-entry]');
    await entry.waitFor({ timeout: WAIT });
    assert.equal(await entry.textContent(), 'In the background: sleep 8');
    assert.match(await entry.getAttribute('title'), /^ahp-terminal:\//);
    const shots = join(ROOT_DIR, 'target', 'screenshots');
    mkdirSync(shots, { recursive: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(shots, 'chat-fork.png') });
    await page.locator('[data-testid=background-work]').waitFor({ state: 'hidden', timeout: WAIT });
    assert.equal(await entry.count(), 0);
    assertNoProblems(pages);
  } catch (e) {
    throw explain(e, ctx);
  }
});
