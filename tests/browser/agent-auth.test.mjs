// The page's sign-in for a protected agent, in headless Chromium against the real ahp-host
// started with `--agent-auth-token-file`: the box shows, creating a session before signing in
// fails with AuthRequired, a wrong token is refused, the right one lets the user create a
// session and talk to the agent, and when the sign-in expires (`auth/required`) the box asks
// again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WAIT, assertNoProblems, explain, hostAndBrowser, openPage } from './harness.mjs';

const TOKEN = 'page-agent-token-0123456789';

test('sign-in for the protected built-in agent', { timeout: 5 * 60_000 }, async (t) => {
  const secrets = mkdtempSync(join(tmpdir(), 'ahp-browser-agent-auth-'));
  t.after(() => rmSync(secrets, { recursive: true, force: true }));
  const file = join(secrets, 'token');
  writeFileSync(file, `${TOKEN}\n`);
  chmodSync(file, 0o600);
  const ctx = await hostAndBrowser(t, {
    prefix: 'ahp-browser-agent-auth-',
    extraArgs: ['--agent-auth-token-file', file, '--agent-auth-ttl', '4'],
  });
  const { url, browser, pages } = ctx;
  try {
    const { page, problems } = await openPage(browser, url, 'A', pages);
    const state = page.locator('[data-testid=agent-auth-state]');
    await state.waitFor({ timeout: WAIT });
    assert.equal(await state.getAttribute('data-state'), 'signed-out');

    // Before signing in, a new session is refused (AuthRequired).
    await page.click('[data-testid=new-session]');
    await page.locator('[data-testid=error]', { hasText: '-32007' }).waitFor({ timeout: WAIT });

    // A wrong token is refused.
    await page.fill('[data-testid=agent-token]', `${TOKEN}-wrong`);
    await page.click('[data-testid=agent-sign-in]');
    await page.locator('[data-testid=agent-auth-state][data-state=refused]').waitFor({ timeout: WAIT });

    // The right one: the session opens and the agent answers.
    await page.fill('[data-testid=agent-token]', TOKEN);
    await page.click('[data-testid=agent-sign-in]');
    await page.locator('[data-testid=agent-auth-state][data-state=signed-in]').waitFor({ timeout: WAIT });
    assert.equal(await page.locator('[data-testid=agent-token]').count(), 0, 'no token box once signed in');
    await page.click('[data-testid=new-session]');
    await page.waitForFunction(() => window.__ahp.subscription?.state?.lifecycle === 'ready', null, { timeout: WAIT });
    await page.fill('[data-testid=message-input]', 'hello agent');
    await page.click('[data-testid=send]');
    await page.waitForFunction(() => window.__ahp.chat.state.turns.length === 1, null, { timeout: WAIT });

    // The sign-in expires: the box asks again.
    await page.locator('[data-testid=agent-auth-state][data-state=expired]').waitFor({ timeout: WAIT });
    await page.locator('[data-testid=agent-token]').waitFor({ timeout: WAIT });

    // The errors shown were the expected AuthRequired ones; nothing else went wrong.
    problems.splice(0, problems.length, ...problems.filter((m) => !/-32007|Authentication required|token was refused/.test(m)));
    assertNoProblems(pages);
  } catch (e) {
    throw explain(e, ctx);
  }
});
