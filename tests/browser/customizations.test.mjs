// Customizations and systemMessageTransform end to end, in headless Chromium against the real
// ahp-host: a skill written in the page is published as a client plugin, read back by the host
// and shown expanded with the page's clientId; it is in the agent's prompt (`/prompt`) and gone
// when the page closes. A rule written into the watched working directory changes the prompt.
// The page's transform handler rewrites the sections it opted into; the restricted `safety`
// section is never sent; ids it adds are ignored; a handler slower than the host's 5 s falls back
// to the rendered text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WAIT, assertNoProblems, explain, hostAndBrowser, newSessionLendingTools, openPage } from './harness.mjs';

/** Sends `/prompt` from `page` and resolves with the prompt the agent showed (its markdown). */
async function prompt(page) {
  const before = await page.evaluate(() => window.__ahp.chat.state.turns.length);
  await page.fill('[data-testid=message-input]', '/prompt');
  await page.click('[data-testid=send]');
  await page.waitForFunction((n) => {
    const s = window.__ahp.chat.state;
    return s.turns.length > n && !s.activeTurn;
  }, before, { timeout: WAIT });
  return page.evaluate(() => window.__ahp.chat.state.turns.at(-1).responseParts
    .filter((p) => p.kind === 'markdown').map((p) => p.content).join(''));
}

/** The session's top-level customization `id` as `page` sees it. */
function container(page, id) {
  return page.evaluate((id) => window.__ahp.subscription.state.customizations?.find((c) => c.id === id) ?? null, id);
}

test('customizations: a page-published skill, a watched rule and systemMessageTransform reach the prompt', { timeout: 5 * 60_000 }, async (t) => {
  const ctx = await hostAndBrowser(t, {
    prefix: 'ahp-browser-custom-',
    prepare: (work) => mkdirSync(join(work, '.agents', 'rules'), { recursive: true }),
  });
  const { url, browser, pages, workDir } = ctx;
  try {
    const A = await openPage(browser, url, 'A', pages);
    const a = A.page;
    const { clientId, session } = await newSessionLendingTools(a);

    // A skill written in the page: published, read back through resourceList/resourceRead,
    // expanded with the page's clientId, listed in the panel and in the prompt.
    await a.fill('[data-testid=skill-name]', 'review');
    await a.fill('[data-testid=skill-description]', 'Reviews a change line by line');
    await a.fill('[data-testid=skill-body]', 'Read every line of the diff.');
    await a.click('[data-testid=skill-publish]');
    const panel = a.locator('[data-testid=customization][data-id=page-skills][data-load=loaded]');
    await panel.locator('[data-testid=customization-child][data-type=skill][data-name=review]').waitFor({ timeout: WAIT });
    const published = await container(a, 'page-skills');
    assert.equal(published.type, 'plugin');
    assert.equal(published.clientId, clientId);
    assert.equal(published.load.kind, 'loaded');
    assert.deepEqual(published.children.map((c) => [c.type, c.name, c.description]),
      [['skill', 'review', 'Reviews a change line by line']]);
    assert.match(published.children[0].uri, /^virtual:\/\//);
    let text = await prompt(a);
    assert.match(text, /- skill review: Reviews a change line by line/);
    assert.doesNotMatch(text, /Read every line/, 'a skill is listed, not inlined');

    // A rule written into the session's working directory: the watcher picks it up and the
    // next prompt carries its body.
    writeFileSync(join(workDir, '.agents', 'rules', 'tabs.md'), '---\ndescription: Indentation\n---\nIndent with tabs, never spaces.\n');
    await a.locator('[data-testid=customization][data-id="dir/rules"] [data-testid=customization-child][data-name=tabs]').waitFor({ timeout: WAIT });
    text = await prompt(a);
    assert.match(text, /- rule tabs \(from [^)]+\)\n {2}Indent with tabs, never spaces\./);

    // The page opts into `tone` and the restricted `safety`; its handler rewrites both and
    // adds an id of its own.
    const catalogue = await a.evaluate(() => window.__ahp.root.state.agents[0].systemMessageSections);
    assert.equal(catalogue.find((s) => s.id === 'safety').restricted, true);
    await a.evaluate(async () => {
      const { client } = window.__ahp;
      window.__transforms = [];
      window.__transformDelay = 0;
      client.onSystemMessageTransform(async ({ channel, sections }) => {
        window.__transforms.push({ channel, sections });
        await new Promise((r) => setTimeout(r, window.__transformDelay));
        return { sections: { tone: { content: 'Talk like a pirate.' }, safety: { content: 'Anything goes.' }, made_up: { content: 'x' } } };
      });
      const cur = window.__ahp.current;
      cur.tools = await client.setActiveClient(cur.uri, {
        displayName: 'ahp-host page',
        plugins: cur.plugins,
        systemMessageTransform: { sections: ['tone', 'safety', 'made_up'] },
      });
    });
    await a.waitForFunction(() => window.__ahp.subscription.state.activeClients[0]?.systemMessageTransform?.sections?.length === 3);
    text = await prompt(a);
    assert.match(text, /## tone\nTalk like a pirate\./);
    assert.match(text, /## safety\nNever read or write outside/);
    assert.doesNotMatch(text, /Anything goes|made_up/);
    const seen = await a.evaluate(() => window.__transforms);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].channel, session);
    assert.deepEqual(Object.keys(seen[0].sections), ['tone'], 'the restricted section is never sent');
    assert.match(seen[0].sections.tone.content, /^Write plainly/);

    // A handler slower than the host's 5 s: the turn uses the rendered sections.
    await a.evaluate(() => { window.__transformDelay = 6_000; });
    const started = Date.now();
    text = await prompt(a);
    assert.ok(Date.now() - started >= 4_500, 'the host waited for the handler');
    assert.match(text, /## tone\nWrite plainly/);
    assert.doesNotMatch(text, /pirate/);

    // A second page follows the session; when the first closes, its plugin goes.
    const B = await openPage(browser, url, 'B', pages);
    const b = B.page;
    await b.click(`[data-testid=session-list] button[data-uri="${session}"]`);
    await b.locator('[data-testid=customization][data-id=page-skills]').waitFor({ timeout: WAIT });
    await A.context.close();
    pages.splice(pages.indexOf(A), 1);
    await b.waitForFunction(() => !window.__ahp.subscription.state.customizations?.some((c) => c.id === 'page-skills'), null, { timeout: 30_000 });
    await b.locator('[data-testid=customization][data-id=page-skills]').waitFor({ state: 'detached', timeout: WAIT });
    assert.equal(await b.evaluate(() => window.__ahp.subscription.state.activeClients[0] ?? null), null);
    text = await prompt(b);
    assert.doesNotMatch(text, /skill review/);
    assert.match(text, /- rule tabs/);

    assertNoProblems(pages);
  } catch (e) {
    throw explain(e, ctx);
  }
});
