// The changes panel in headless Chromium against the real ahp-host: `/write` sent from the
// composer changes files of the working directory, the panel lists them with their line counts
// and diff, and its revert buttons restore the files on disk (a new file is deleted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WAIT, assertNoProblems, explain, hostAndBrowser, newSessionLendingTools, openPage } from './harness.mjs';

async function until(what, check) {
  const deadline = Date.now() + WAIT;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('changes panel: /write shows the files, revert restores them on disk', { timeout: 5 * 60_000 }, async (t) => {
  const ctx = await hostAndBrowser(t, {
    prefix: 'ahp-browser-changes-',
    prepare: (work) => writeFileSync(join(work, 'keep.txt'), 'original\n'),
  });
  const { url, browser, pages, workDir } = ctx;
  try {
    const { page } = await openPage(browser, url, 'A', pages);
    await newSessionLendingTools(page);
    const panel = page.locator('[data-testid=changes-panel]');
    // The panel is closed by default (the conversation keeps the room); its summary counts.
    await page.locator('#changes-panel > summary').click();
    await page.locator('[data-testid=changes-panel][data-status=ready]').waitFor({ timeout: WAIT });
    assert.equal(await page.locator('[data-testid=change-file]').count(), 0, 'nothing changed yet');

    const box = page.locator('[data-testid=message-input]');
    await box.fill('/write keep.txt changed\n/write fresh.txt a\\nb');
    await box.press('Escape');
    await box.press('Enter');
    const file = (path) => page.locator(`[data-testid=change-file][data-path="${path}"]`);
    await file('fresh.txt').waitFor({ timeout: WAIT });
    await file('keep.txt').waitFor({ timeout: WAIT });
    assert.equal(readFileSync(join(workDir, 'keep.txt'), 'utf8'), 'changed');
    assert.equal(await file('keep.txt').getAttribute('data-status'), 'modified');
    assert.equal(await file('fresh.txt').getAttribute('data-status'), 'added');
    // (Waited for: a comparison may run while a file is being written; the next one settles it.)
    const stats = (path, text) => file(path).locator('[data-testid=change-stats]').filter({ hasText: text }).waitFor({ timeout: WAIT });
    await stats('keep.txt', /^\+1 −1$/);
    await stats('fresh.txt', /^\+2 −0$/);
    await panel.locator('[data-testid=changes-summary]').filter({ hasText: /^2 changed files \(\+3 −1\)/ }).waitFor({ timeout: WAIT });
    // The diff is text (lines as text nodes), opened on demand.
    await file('keep.txt').locator('summary').click();
    const diff = await file('keep.txt').locator('[data-testid=change-diff]').textContent();
    assert.match(diff, /-original\n\+changed\n/);

    // Revert the edit: the bytes are back on disk, the row goes.
    await file('keep.txt').locator('[data-testid=change-revert]').click();
    await until('keep.txt restored', () => readFileSync(join(workDir, 'keep.txt'), 'utf8') === 'original\n');
    await file('keep.txt').waitFor({ state: 'detached', timeout: WAIT });
    // Revert the new file: deleted.
    await file('fresh.txt').locator('[data-testid=change-revert]').click();
    await until('fresh.txt deleted', () => !existsSync(join(workDir, 'fresh.txt')));
    await file('fresh.txt').waitFor({ state: 'detached', timeout: WAIT });
    assert.match(await panel.locator('[data-testid=changes-summary]').textContent(), /^0 changed files/);
    assertNoProblems(pages);
  } catch (e) {
    throw explain(e, ctx);
  }
});
