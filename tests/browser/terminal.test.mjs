// The page's terminal panel in headless Chromium against the real ahp-host (a real bash on a
// real pty): a new terminal rendered with xterm.js, typed into with the keyboard, the echo
// shown; then `/run` in a session: the tool call links to its terminal, and the link opens it
// in the panel with the command's output. No CSP reports (xterm.js writes <style> elements).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WAIT, assertNoProblems, explain, hostAndBrowser, newSessionLendingTools, openPage } from './harness.mjs';

test('terminal panel: type and see the echo; /run links its terminal', { timeout: 5 * 60_000 }, async (t) => {
  // The host's shells get a home of the tests' own (harness.mjs: the developer's ~/.bashrc may be
  // slow or noisy).
  const ctx = await hostAndBrowser(t, { prefix: 'ahp-browser-terminal-' });
  const { url, browser, pages } = ctx;
  try {
    const { page } = await openPage(browser, url, 'A', pages);
    await page.setViewportSize({ width: 1280, height: 1000 }); // room for the log and the panel
    await newSessionLendingTools(page);
    await page.click('[data-testid=tools-panel] summary'); // folded: room for the log and the terminal
    const rows = page.locator('[data-testid=terminal-view] .xterm-rows');

    // A new terminal: shown in the panel, claimed by the page, typed into with the keyboard.
    await page.click('[data-testid=new-terminal]');
    await page.waitForFunction(() => window.__ahp.terminal?.commandDetection, null, { timeout: WAIT });
    assert.equal(await page.evaluate(() => window.__ahp.terminal.isClaimant), true);
    await page.locator('[data-testid=terminal-view] .xterm').click();
    await page.keyboard.type('echo hi-$((40+2))');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.__ahp.terminal.text.includes('hi-42'), null, { timeout: WAIT });
    await page.waitForFunction(() => document.querySelector('[data-testid=terminal-view] .xterm-rows')?.textContent.includes('hi-42'), null, { timeout: WAIT });
    // Once: the panel wrote each piece of output once.
    assert.equal((await rows.textContent()).split('hi-42').length, 2, await rows.textContent());
    // Shell integration saw the command (its end, with the exit code, may come after the output).
    await page.waitForFunction(() => window.__ahp.terminal.commands.length > 0 && window.__ahp.terminal.commands.every((c) => c.exitCode !== undefined), null, { timeout: WAIT });
    const commands = await page.evaluate(() => window.__ahp.terminal.commands.map((c) => [c.commandLine, c.exitCode]));
    assert.deepEqual(commands, [['echo hi-$((40+2))', 0]]);
    const first = await page.evaluate(() => window.__ahp.terminal.uri);

    // `/run` in the session: its tool call links to the terminal it ran in.
    const box = page.locator('[data-testid=message-input]');
    await box.fill('/run echo run-$((6*7))');
    await box.press('Enter');
    const link = page.locator('[data-testid=log] [data-testid=tool-terminal]');
    await link.first().waitFor({ timeout: WAIT });
    await page.locator('[data-testid=tool-result]', { hasText: 'run-42' }).waitFor({ timeout: WAIT });
    const linked = await link.first().getAttribute('data-uri');
    assert.match(linked, /^ahp-terminal:\//);
    assert.notEqual(linked, first);
    await link.first().click();
    await page.waitForFunction((uri) => window.__ahp.terminal?.uri === uri, linked, { timeout: WAIT });
    await page.waitForFunction(() => document.querySelector('[data-testid=terminal-view] .xterm-rows')?.textContent.includes('run-42'), null, { timeout: WAIT });
    assert.match(await page.locator('[data-testid=terminal-info]').textContent(), /held by session/);
    assert.ok((await rows.textContent()).includes('echo run-$((6*7))'));
    assertNoProblems(pages);
  } catch (e) {
    throw explain(e, ctx);
  }
});
