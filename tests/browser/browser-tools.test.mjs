// Browser tools end to end: the page (headless Chromium) claims the session's active-client role
// through the SDK and the real ahp-host's agent calls its tools with `/client-tool`: the result
// lands in the turn, a question is answered in the page with streamed progress, input that
// does not match a tool's schema fails, a tool that throws fails with its message, an unknown
// tool is denied at once, and a call owned by a page that went away fails after the host's
// grace period (seen from a second page).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertNoProblems, explain, hostAndBrowser, newSessionLendingTools, openPage } from './harness.mjs';

/** Sends `text` from the page and resolves with the last tool call of the finished turn. */
async function callTool(page, text) {
  const before = await page.evaluate(() => window.__ahp.chat.state.turns.length);
  await page.fill('[data-testid=message-input]', text);
  await page.click('[data-testid=send]');
  await page.waitForFunction((n) => {
    const s = window.__ahp.chat.state;
    return s.turns.length > n && !s.activeTurn;
  }, before);
  return page.evaluate(() => {
    const turn = window.__ahp.chat.state.turns.at(-1);
    return turn.responseParts.filter((p) => p.kind === 'toolCall').map((p) => p.toolCall).at(-1) ?? null;
  });
}

test('browser tools: the page lends tools the agent calls, answers in the page, denials, a vanished page', { timeout: 5 * 60_000 }, async (t) => {
  const ctx = await hostAndBrowser(t, { prefix: 'ahp-browser-tools-', extraArgs: ['--client-tool-grace-ms', '1500'] });
  const { url, browser, pages } = ctx;
  try {
    const A = await openPage(browser, url, 'A', pages);
    const a = A.page;
    const { clientId } = await newSessionLendingTools(a);
    const claimed = await a.evaluate(() => window.__ahp.subscription.state.activeClients[0]);
    assert.equal(claimed.clientId, clientId);
    assert.deepEqual(claimed.tools.map((x) => x.name), ['page_selection', 'ask_user', 'clock']);

    // A tool that reads the browser: its result is in the turn.
    let call = await callTool(a, '/client-tool clock');
    assert.equal(call.success, true, JSON.stringify(call));
    assert.match(call.content[0].text, /^\d{4}-\d\d-\d\dT.*\(.+\)$/);
    assert.equal(typeof call.structuredContent.timeZone, 'string');

    // The selection of the page.
    await a.evaluate(() => {
      const el = document.querySelector('[data-testid=user-message]');
      const range = document.createRange();
      range.selectNodeContents(el);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
    });
    call = await callTool(a, '/client-tool page_selection');
    assert.equal(call.structuredContent.text, '/client-tool clock');

    // A question answered in the page, with progress streamed while it waits.
    await a.fill('[data-testid=message-input]', '/client-tool ask_user {"question": "Deploy now?"}');
    await a.click('[data-testid=send]');
    await a.locator('[data-testid=tool-dialog]').waitFor();
    assert.match(await a.locator('[data-testid=tool-dialog]').textContent(), /Deploy now\?/);
    const progress = await a.evaluate(() => window.__ahp.chat.state.activeTurn?.responseParts
      .find((p) => p.kind === 'toolCall')?.toolCall.content?.[0]?.text);
    assert.equal(progress, 'Waiting for the user…');
    await a.click('[data-testid=tool-dialog-yes]');
    await a.waitForFunction(() => !window.__ahp.chat.state.activeTurn);
    call = await a.evaluate(() => window.__ahp.chat.state.turns.at(-1).responseParts.find((p) => p.kind === 'toolCall').toolCall);
    assert.deepEqual(call.structuredContent, { answer: true });

    // Input that does not match the schema never runs the tool.
    call = await callTool(a, '/client-tool ask_user {}');
    assert.equal(call.success, false);
    assert.match(call.error.message, /missing required property `question`/);

    // A tool that throws (an unknown time zone): the error's message is the failed result.
    call = await callTool(a, '/client-tool clock {"timeZone": "Mars/Olympus_Mons"}');
    assert.equal(call.success, false, JSON.stringify(call));
    assert.match(call.error.message, /time zone.*Mars\/Olympus_Mons/i);
    call = await callTool(a, '/client-tool clock {"timeZone": "Asia/Tokyo"}');
    assert.equal(call.structuredContent.timeZone, 'Asia/Tokyo');

    // A tool the page does not have: denied at once.
    const started = Date.now();
    call = await callTool(a, '/client-tool rm_rf {}');
    assert.equal(call.error?.code, 'ClientDenied', JSON.stringify(call));
    assert.ok(Date.now() - started < 10_000);

    // A second page follows the session; the first page goes away mid-call.
    const B = await openPage(browser, url, 'B', pages);
    const b = B.page;
    const session = await a.evaluate(() => window.__ahp.subscription.uri);
    await b.click(`[data-testid=session-list] button[data-uri="${session}"]`);
    await b.waitForFunction(() => window.__ahp.subscription?.state);
    assert.equal(await b.locator('[data-testid=tools-status]').getAttribute('data-state'), 'other', 'B sees A holds the role');
    await a.fill('[data-testid=message-input]', '/client-tool ask_user {"question": "Still there?"}');
    await a.click('[data-testid=send]');
    await a.locator('[data-testid=tool-dialog]').waitFor();
    await A.context.close();
    pages.splice(pages.indexOf(A), 1);
    await b.waitForFunction(() => {
      const turn = window.__ahp.chat.state.turns.at(-1);
      const c = turn?.responseParts.find((p) => p.kind === 'toolCall')?.toolCall;
      return c?.status === 'completed' && c.error?.code === 'ClientDisconnected';
    }, null, { timeout: 30_000 });
    // The role is free again: B can take it.
    await b.locator('[data-testid=tools-status][data-state=none]').waitFor();
    await b.click('[data-testid=tools-toggle]');
    await b.locator('[data-testid=tools-status][data-state=active]').waitFor();

    assertNoProblems(pages);
  } catch (e) {
    throw explain(e, ctx);
  }
});
