// End to end: a model provider's session in the page. The real ahp-host (built with cargo) runs
// an OpenAI-compatible provider pointed at a fake endpoint of our own on loopback
// (fake-openai.mjs: Chat Completions streaming as OpenAI documents it); the page (AHP 1.0) in
// Debian's headless Chromium picks the provider's agent, creates a session with it, sees a
// streamed reply, approves the model's tool call, and the fake checks that the next request it
// receives carries the tool's result. A screenshot of the session at 1280x800 goes to
// target/screenshots/provider-session.png.
//
// Run: node --test tests/browser/provider-session.test.mjs   (after scripts/build-pkg.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_DIR, assertNoProblems, explain, hostAndBrowser, openPage } from './harness.mjs';
import { OTHER_MODEL, startFakeOpenAI, textReply, toolCallReply } from './fake-openai.mjs';

const KEY = 'sk-fake-provider-session-0123456789';
const CALL_ID = 'call_fake_list_1';
const REPLY_PIECES = ['Hello', ' from', ' the fake', ' model.', ' It streams', ' in pieces.'];
const REPLY = REPLY_PIECES.join('');

/** Waits until the page's open chat has `n` finished turns and nothing in flight. */
function waitIdle(page, n) {
  return page.waitForFunction((n) => {
    const chat = window.__ahp.chat;
    return chat && chat.state.turns.length === n && !chat.state.activeTurn && chat.pendingCount === 0
      && document.querySelectorAll('[data-testid=turn]').length === n;
  }, n);
}

const lastTurn = (page) => page.locator('[data-testid=turn]').last();

async function send(page, text) {
  await page.fill('[data-testid=message-input]', text);
  await page.click('[data-testid=send]');
}

/** The request after the tool call: it must send back the model's call and the tool's result. */
function expectToolResult(body) {
  const messages = body?.messages;
  assert.ok(Array.isArray(messages), 'the request has messages');
  const call = messages.find((m) => m.role === 'assistant' && Array.isArray(m.tool_calls));
  assert.ok(call, `the model's tool call is sent back: ${JSON.stringify(messages)}`);
  assert.equal(call.tool_calls[0].id, CALL_ID);
  assert.equal(call.tool_calls[0].function.name, 'list_files');
  assert.deepEqual(JSON.parse(call.tool_calls[0].function.arguments), { path: '.' });
  const result = messages.find((m) => m.role === 'tool');
  assert.ok(result, `a tool message is sent: ${JSON.stringify(messages)}`);
  assert.equal(result.tool_call_id, CALL_ID, 'the result names the call');
  assert.ok(String(result.content).includes('alpha.txt') && String(result.content).includes('beta.txt'),
    `the result is the listing: ${result.content}`);
  assert.ok(messages.indexOf(call) < messages.indexOf(result), 'the call comes before its result');
  assert.equal(messages.at(-1), result, 'the result is the last message');
}

test('the page: a provider session streams a reply and a confirmed tool call feeds the model', { timeout: 10 * 60_000 }, async (t) => {
  assert.ok(existsSync(join(ROOT_DIR, 'pkg', 'web.js')), 'pkg/ is not built; run scripts/build-pkg.sh');
  const fake = await startFakeOpenAI([
    { ...textReply(REPLY_PIECES, { reasoning: 'The user says hello.' }), delayMs: 120 },
    toolCallReply(CALL_ID, 'list_files', ['{"pa', 'th": ', '"."}']),
    { ...textReply(['There are ', 'alpha.txt and beta.txt.']), expect: expectToolResult },
  ]);
  const ctx = await hostAndBrowser(t, {
    prefix: 'ahp-provider-page-',
    extraArgs: ['--provider', 'openai', '--base-url', fake.baseUrl, '--model', 'fake-model', '--api-key-env', 'FAKE_OPENAI_KEY'],
    env: { FAKE_OPENAI_KEY: KEY },
    prepare: (workDir) => {
      writeFileSync(join(workDir, 'alpha.txt'), 'the first file\n');
      writeFileSync(join(workDir, 'beta.txt'), 'the second file\n');
    },
    cleanup: () => fake.close(),
  });
  try {
    const { page } = await openPage(ctx.browser, ctx.url, 'A', ctx.pages);

    // --- The provider's agent is offered next to the built-in one; a session is created with it.
    const picker = page.locator('[data-testid=agent-picker]');
    await picker.waitFor();
    const agents = await picker.locator('option').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(agents, ['builtin', 'openai'], 'the built-in agent first, then the provider');
    assert.equal(await picker.inputValue(), 'builtin', 'the built-in agent stays the default');
    await picker.selectOption('openai');
    await page.click('[data-testid=new-session]');
    await page.waitForFunction(() => window.__ahp.subscription?.state?.lifecycle === 'ready' && window.__ahp.chat?.state);
    const session = await page.evaluate(() => ({ provider: window.__ahp.subscription.state.provider, uri: window.__ahp.subscription.uri }));
    assert.equal(session.provider, 'openai');
    // The models: the configured one first (the default), then the one the endpoint listed.
    const models = await page.locator('[data-testid=config-model] option').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(models, ['fake-model', OTHER_MODEL]);
    assert.equal(await page.locator('[data-testid=config-model]').inputValue(), 'fake-model');

    // --- A message: the reply streams in, piece by piece.
    await page.evaluate(() => {
      const seen = (window.__seen = []);
      const log = document.querySelector('[data-testid=log]');
      new MutationObserver(() => {
        const turns = log.querySelectorAll('[data-testid=turn]');
        const text = turns[turns.length - 1]?.querySelector('[data-testid=markdown]')?.textContent ?? '';
        if (seen.at(-1) !== text) seen.push(text);
      }).observe(log, { subtree: true, childList: true, characterData: true });
    });
    await send(page, 'Hello, fake model!');
    await waitIdle(page, 1);
    const first = lastTurn(page);
    assert.equal(await first.getAttribute('data-state'), 'complete');
    assert.equal(await first.locator('[data-testid=markdown]').first().textContent(), REPLY);
    assert.equal(await first.locator('[data-testid=reasoning-text]').textContent(), 'The user says hello.');
    const seen = await page.evaluate(() => window.__seen);
    const partial = seen.filter((s) => s !== '' && s !== REPLY && REPLY.startsWith(s));
    assert.ok(partial.length >= 2, `the reply was seen streaming (${JSON.stringify(seen)})`);
    const [firstRequest] = fake.chatRequests();
    assert.equal(fake.requests.find((r) => r.path === '/v1/chat/completions').headers.authorization, `Bearer ${KEY}`);
    assert.equal(firstRequest.model, 'fake-model');
    assert.equal(firstRequest.stream, true);
    assert.deepEqual(firstRequest.messages.at(-1), { role: 'user', content: 'Hello, fake model!' });
    assert.ok(firstRequest.tools.some((tool) => tool.function.name === 'list_files'), 'the host offers its tools');

    // --- The model calls a host tool: the page asks for confirmation, the test approves it,
    // the host runs it and the result goes back to the model (the fake checks that request).
    await send(page, 'Which files are there?');
    const tool = lastTurn(page).locator('[data-testid=tool-call]');
    await tool.locator('[data-testid=tool-approve]').waitFor();
    assert.equal(await tool.getAttribute('data-status'), 'pending-confirmation');
    assert.equal(fake.chatRequests().length, 2, 'nothing is sent to the model before the confirmation');
    await tool.locator('[data-testid=tool-approve]').click();
    await waitIdle(page, 2);
    assert.deepEqual(fake.failures.map(String), [], 'the fake accepted every request');
    const requests = fake.chatRequests();
    assert.equal(requests.length, 3, 'one request after the tool ran');
    expectToolResult(requests[2]);
    assert.equal(await tool.getAttribute('data-status'), 'completed');
    assert.equal(await tool.locator('[data-testid=tool-result]').textContent(), 'alpha.txt\nbeta.txt');
    assert.equal(await tool.locator('[data-testid=tool-approve]').count(), 0, 'no buttons once confirmed');
    const second = lastTurn(page);
    assert.equal(await second.getAttribute('data-state'), 'complete');
    assert.equal(await second.locator('[data-testid=markdown]').last().textContent(), 'There are alpha.txt and beta.txt.');
    assert.equal(await page.locator('[data-testid=error]').count(), 0, 'no errors shown');
    // The key went to the endpoint only: not in the states the page holds, nor on the page.
    const seenByPage = await page.evaluate(() => JSON.stringify([window.__ahp.root.state, window.__ahp.subscription.state,
      window.__ahp.chat.state]) + document.body.innerText);
    assert.ok(!seenByPage.includes(KEY), 'the API key never reaches the page');

    // --- The provider session, as it looks.
    const dir = join(ROOT_DIR, 'target', 'screenshots');
    mkdirSync(dir, { recursive: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(dir, 'provider-session.png') });

    assertNoProblems(ctx.pages);
  } catch (e) {
    throw explain(e, ctx);
  }
});
