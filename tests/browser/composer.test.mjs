// The composer in headless Chromium against the real ahp-host: the session's config as pickers
// (mode changed with session/configChanged, reaching the host's state; the model, which AHP 1.0
// picks per message, going with the next message), and `@` completions from the working
// directory: typed, chosen with the keyboard, sent as the message's resource attachment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WAIT, assertNoProblems, explain, hostAndBrowser, newSessionLendingTools, openPage } from './harness.mjs';

test('composer: config pickers and @ completions', { timeout: 5 * 60_000 }, async (t) => {
  const ctx = await hostAndBrowser(t, {
    prefix: 'ahp-browser-composer-',
    prepare: (work) => {
      mkdirSync(join(work, 'docs'));
      writeFileSync(join(work, 'docs', 'notes-alpha.md'), '# alpha\n');
      writeFileSync(join(work, 'readme-beta.txt'), 'beta\n');
    },
  });
  const { url, browser, pages, workDir } = ctx;
  try {
    const { page } = await openPage(browser, url, 'A', pages);
    await newSessionLendingTools(page);
    const confirmed = (path) => page.evaluate((path) => path.reduce((v, k) => v?.[k], window.__ahp.subscription.confirmedState), path);

    // The config pickers show the session's config: model and mode with their values.
    const mode = page.locator('[data-testid=config-mode]');
    const model = page.locator('[data-testid=config-model]');
    await mode.waitFor({ timeout: WAIT });
    assert.equal(await mode.inputValue(), await confirmed(['config', 'values', 'mode']));
    assert.equal(await model.inputValue(), await confirmed(['config', 'values', 'model']));
    const modes = await mode.locator('option').evaluateAll((os) => os.map((o) => o.value));
    assert.ok(modes.includes('ask'), `modes offered: ${modes}`);

    // The mode goes to the host and comes back confirmed; the model goes with the next message.
    await mode.selectOption('ask');
    await page.waitForFunction(() => window.__ahp.subscription.confirmedState.config?.values?.mode === 'ask', null, { timeout: WAIT });
    const models = await model.locator('option').evaluateAll((os) => os.map((o) => o.value));
    const currentModel = await model.inputValue();
    const other = models.find((m) => m !== currentModel);
    assert.ok(other, `another model to pick: ${models}`);
    await model.selectOption(other);
    assert.equal(await model.inputValue(), other);

    // `@` completions: the files of the working directory matching what was typed.
    const box = page.locator('[data-testid=message-input]');
    await box.click();
    await box.pressSequentially('look at @notes-al');
    const items = page.locator('[data-testid=completion]');
    await items.first().waitFor({ timeout: WAIT });
    const offered = await items.allTextContents();
    assert.ok(offered.some((s) => s.includes('notes-alpha.md')), `offered: ${offered}`);
    assert.ok(!offered.some((s) => s.includes('readme-beta')), 'only what matches');
    await box.press('Enter'); // takes the selected completion, does not send
    const text = await box.inputValue();
    assert.match(text, /^look at @\S*notes-alpha\.md/);
    await page.locator('[data-testid=completions]').waitFor({ state: 'hidden', timeout: WAIT });

    // Sent: the turn's message carries the file as a resource attachment.
    const before = await page.evaluate(() => window.__ahp.chat.state.turns.length);
    await box.press('Enter');
    await page.waitForFunction((n) => window.__ahp.chat.confirmedState.turns.length > n, before, { timeout: WAIT });
    const message = await page.evaluate(() => window.__ahp.chat.confirmedState.turns.at(-1).message);
    assert.equal(message.text, text);
    assert.deepEqual(message.model, { id: other }, 'the picked model goes with the message');
    assert.equal(message.attachments?.length, 1, JSON.stringify(message));
    assert.equal(message.attachments[0].type, 'resource');
    assert.equal(message.attachments[0].uri, pathToFileURL(join(workDir, 'docs', 'notes-alpha.md')).href);

    // `/` offers the agent's directives.
    await box.pressSequentially('/ti');
    await items.first().waitFor({ timeout: WAIT });
    assert.ok((await items.allTextContents()).some((s) => s.startsWith('/title')));
    await box.press('Escape');
    await page.locator('[data-testid=completions]').waitFor({ state: 'hidden', timeout: WAIT });
    assertNoProblems(pages);
  } catch (e) {
    throw explain(e, ctx);
  }
});
