// The annotations panel and the canvas view of the page in headless Chromium against the real
// ahp-host (its SQLite, its WebSocket): the agent's `/annotate README.md:1 look here` appears in
// the panel; page A adds an annotation and replies to one, and page B (another browser context:
// another client) on the same session sees both; a removal reaches B; a dispatch the host refuses
// (an entry over its 8 KiB bound) shows the host's reason and changes nothing; A, B and a fresh
// page C end with equal annotations. Then a canvas the agent opens (`/canvas`) is shown by
// canvases.js in an `allow-scripts` frame on the host's origin (listed by the host in the chat
// state's `canvases`, which the page follows); an off-origin URL is refused by the same check.
// Screenshots of the panels at 1280x800 go to target/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_DIR, WAIT, assertNoProblems, explain, hostAndBrowser, newSessionLendingTools, openPage } from './harness.mjs';
import { waitPainted } from './paint.mjs';

/** Sends `text` from the page's composer and waits until the chat has `turns` finished turns. */
async function send(page, text, turns) {
  const box = page.locator('[data-testid=message-input]');
  await box.fill(text);
  await box.press('Escape');
  await box.press('Enter');
  await page.waitForFunction((n) => {
    const chat = window.__ahp.chat;
    return chat && chat.state.turns.length === n && !chat.state.activeTurn && chat.pendingCount === 0;
  }, turns);
}

/** The page's annotations state as JSON with sorted keys (key order is not state). */
function annotationsJson(page) {
  return page.evaluate(() => JSON.stringify(window.__ahp.annotations.state, (_k, v) => (
    v === null || typeof v !== 'object' || Array.isArray(v) ? v : Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])))));
}

/** Opens session `uri` from the page's session list. */
async function openSessionIn(page, uri) {
  await page.locator(`[data-testid=session-list] button[data-uri="${uri}"]`).click();
  await page.waitForFunction((uri) => window.__ahp.annotations?.state && window.__ahp.subscription?.uri === uri, uri);
}

test('annotations panel: the agent, two pages, a removal, a refusal; a canvas in a sandboxed frame', { timeout: 5 * 60_000 }, async (t) => {
  const ctx = await hostAndBrowser(t, {
    prefix: 'ahp-browser-annotations-',
    prepare: (work) => writeFileSync(join(work, 'README.md'), '# Title\nsecond line\nthird line\n'),
  });
  const { url, browser, pages } = ctx;
  try {
    const { page: a } = await openPage(browser, url, 'A', pages);
    const { session } = await newSessionLendingTools(a);
    const panelA = a.locator('[data-testid=annotations-panel]');
    await panelA.waitFor();
    assert.equal(await panelA.locator('[data-testid=annotation]').count(), 0, 'no annotations yet');

    // The agent's annotation: its file (relative to the working directory), line and entry.
    await send(a, '/annotate README.md:1 look here', 1);
    const agentNote = panelA.locator('[data-testid=annotation]').first();
    await agentNote.waitFor();
    assert.equal(await agentNote.locator('[data-testid=annotation-file]').textContent(), 'README.md');
    assert.equal(await agentNote.locator('[data-testid=annotation-lines]').textContent(), 'line 1');
    assert.equal(await agentNote.locator('[data-testid=annotation-author]').textContent(), 'agent: ');
    assert.equal(await agentNote.locator('[data-testid=annotation-text]').textContent(), 'look here');
    assert.match(await agentNote.locator('[data-testid=annotation-file]').getAttribute('title'), /^file:\/\/.*\/README\.md$/);

    // Page B on the same session sees it too.
    const { page: b } = await openPage(browser, url, 'B', pages);
    await openSessionIn(b, session);
    const panelB = b.locator('[data-testid=annotations-panel]');
    await panelB.locator('[data-testid=annotation-text]', { hasText: 'look here' }).waitFor();

    // A adds one on line 3 (text that looks like HTML stays text); B sees it with its author.
    await a.fill('[data-testid=annotation-new-file]', 'README.md');
    await a.fill('[data-testid=annotation-new-line]', '3');
    await a.fill('[data-testid=annotation-new-text]', '<img src=x onerror=alert(1)> check *this*');
    await a.click('[data-testid=annotation-add]');
    const mineB = panelB.locator('[data-testid=annotation]', { hasText: 'check' });
    await mineB.waitFor();
    assert.equal(await mineB.locator('[data-testid=annotation-lines]').textContent(), 'line 3');
    assert.equal(await mineB.locator('[data-testid=annotation-author]').textContent(), 'user: ');
    assert.equal(await mineB.locator('[data-testid=annotation-text]').textContent(), '<img src=x onerror=alert(1)> check *this*');
    assert.equal(await b.locator('[data-testid=annotations-panel] img').count(), 0, 'no element from entry text');
    assert.equal(await b.locator('[data-testid=annotations-summary]').textContent(), '(2)');

    // A replies to the agent's annotation; B sees the second entry.
    await agentNote.locator('[data-testid=annotation-reply-text]').fill('on it');
    await agentNote.locator('[data-testid=annotation-reply-send]').click();
    const agentNoteB = panelB.locator('[data-testid=annotation]', { hasText: 'look here' });
    await agentNoteB.locator('[data-testid=annotation-entry]', { hasText: 'on it' }).waitFor();
    assert.equal(await agentNoteB.locator('[data-testid=annotation-entry]').count(), 2);

    // A refused dispatch: an entry over the host's 8 KiB bound. The reason is shown, the
    // optimistic entry is reverted, B never sees it.
    await agentNote.locator('[data-testid=annotation-reply-text]').fill('x'.repeat(9000));
    await agentNote.locator('[data-testid=annotation-reply-send]').click();
    const error = a.locator('[data-testid=annotations-error]');
    await error.filter({ hasText: /rejected annotations\/entrySet: an entry's text is \d+ bytes, more than 8192/ }).waitFor();
    await a.locator('[data-testid=error]', { hasText: 'more than 8192' }).waitFor();
    await a.waitForFunction(() => window.__ahp.annotations.pendingCount === 0
      && window.__ahp.annotations.state.annotations.every((n) => n.entries.every((e) => String(e.text).length < 9000)));
    assert.equal(await agentNote.locator('[data-testid=annotation-entry]').count(), 2, 'the refused entry is gone');
    // The page logs what it shows (errors.js): expected here, once.
    const refusals = pages[0].problems.filter((m) => m.includes('rejected annotations/entrySet'));
    assert.equal(refusals.length, 1, 'the refusal is reported once');
    pages[0].problems.splice(pages[0].problems.indexOf(refusals[0]), 1);

    // B removes A's reply entry, then A removes its own annotation: both reach the other page.
    await agentNoteB.locator('[data-testid=annotation-entry]', { hasText: 'on it' }).locator('[data-testid=annotation-entry-remove]').click();
    await agentNote.locator('[data-testid=annotation-entry]', { hasText: 'on it' }).waitFor({ state: 'detached' });
    await panelA.locator('[data-testid=annotation]', { hasText: 'check' }).locator('[data-testid=annotation-remove]').click();
    await mineB.waitFor({ state: 'detached' });
    assert.equal(await b.locator('[data-testid=annotations-summary]').textContent(), '(1)');

    // Resolve from B: A shows it resolved.
    await agentNoteB.locator('[data-testid=annotation-resolve]').click();
    await panelA.locator('[data-testid=annotation][data-resolved=true]').waitFor();

    // A, B and a fresh page C (a snapshot) hold the same annotations.
    const { page: c } = await openPage(browser, url, 'C', pages);
    await openSessionIn(c, session);
    await Promise.all([a, b].map((p) => p.waitForFunction(() => window.__ahp.annotations.pendingCount === 0)));
    const [ja, jb, jc] = await Promise.all([a, b, c].map(annotationsJson));
    assert.equal(ja, jc, 'A equals a fresh snapshot');
    assert.equal(jb, jc, 'B equals a fresh snapshot');
    assert.equal(JSON.parse(jc).annotations.length, 1);

    // Screenshot of the panel at 1280x800 (the other docked panels folded).
    const dir = join(ROOT_DIR, 'target', 'screenshots');
    mkdirSync(dir, { recursive: true });
    await a.fill('[data-testid=annotation-new-file]', 'README.md');
    await a.fill('[data-testid=annotation-new-line]', '2');
    await a.fill('[data-testid=annotation-new-text]', 'a **second** look');
    await a.click('[data-testid=annotation-add]');
    await panelA.locator('[data-testid=annotation]', { hasText: 'second' }).waitFor();
    await a.setViewportSize({ width: 1280, height: 800 });
    await a.evaluate(() => {
      for (const d of document.querySelectorAll('.dock > details')) d.open = d.id === 'annotations-panel';
      document.getElementById('annotations-panel').scrollIntoView({ block: 'nearest' });
    });
    await a.screenshot({ path: join(dir, 'annotations-panel.png') });

    // A canvas the agent opens, shown by canvases.js: title, status, a sandboxed frame on this origin.
    await send(a, '/canvas Sketch board', 2);
    const reply = await a.evaluate(() => JSON.stringify(window.__ahp.chat.state.turns.at(-1)));
    const canvasUri = reply.match(/ahp-canvas:\/[A-Za-z0-9_-]+/)?.[0];
    assert.ok(canvasUri, `the reply names the canvas channel: ${reply.slice(0, 400)}`);
    // The host lists it in the chat's `canvases`; the page shows what the chat lists.
    await a.waitForFunction((c) => (window.__ahp.chat.state.canvases ?? []).some((r) => r.resource === c), canvasUri);
    await a.evaluate(() => { document.getElementById('canvases-panel').open = true; });
    const canvas = a.locator(`[data-testid=canvas][data-uri="${canvasUri}"]`);
    await canvas.locator('[data-testid=canvas-title]', { hasText: 'Sketch board' }).waitFor();
    assert.equal(await canvas.locator('[data-testid=canvas-status]').textContent(), ' · open');
    const frame = canvas.locator('[data-testid=canvas-frame]');
    assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
    const src = await frame.getAttribute('src');
    assert.equal(new URL(src).origin, new URL(url).origin);
    assert.match(new URL(src).pathname, /^\/canvas\/[^/]+\/$/);
    const inner = a.frameLocator(`[data-testid=canvas][data-uri="${canvasUri}"] iframe`);
    await inner.locator('body', { hasText: 'Sketch board' }).waitFor();
    await waitPainted(frame); // loaded is not yet painted (paint.mjs)
    await a.locator('[data-testid=canvases-panel]').screenshot({ path: join(dir, 'annotations-canvas.png') });
    assert.deepEqual(await a.evaluate(async () => {
      const { canvasSource } = await import('/canvases.js');
      return ['https://evil.example/canvas/x/', 'javascript:alert(1)', '/canvas/abc/', '/pkg/web.js'].map((u) => canvasSource(u) !== null);
    }), [false, false, true, false]);

    assertNoProblems(pages);
  } catch (e) {
    throw explain(e, ctx);
  }
});
