// MCP Apps end to end: the real ahp-host runs the real npm MCP server
// `@modelcontextprotocol/server-basic-vanillajs` (from the session's `.mcp.json`), the page
// (connected with `capabilities.mcpApps`) shows the server in its MCP panel waiting for approval
// (who declares it, what it runs) until Allow is clicked, `/mcp basic get-time`
// makes the agent call the App tool, and the page renders the App through the SDK's
// `ahp-wasm/mcp-apps` entry (the official ext-apps AppBridge) in a sandboxed iframe. Clicking the
// App's button calls the server tool over the `mcp://` channel and the App shows the new time.
// Also: the App cannot reach the page, a method outside the capability set gets -32601, and a
// client without `capabilities.mcpApps` sees no `mcpApp`/`channel` and gets
// ChannelUnavailableError. A screenshot goes to target/artifacts/mcp-app.png; the time from the
// tool call's start to the App being visible is printed.
//
// Run: node --experimental-websocket --test tests/browser/mcp-app.test.mjs (after
// scripts/build-pkg.sh and npm ci).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT_DIR, TOKEN, explain, hostAndBrowser, openPage } from './harness.mjs';

const SERVER = join(ROOT_DIR, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
// An HTTP MCP server that wants `Authorization: Bearer s3cret` (answers 401 with RFC 9728 metadata).
const AUTH_SERVER = join(ROOT_DIR, 'host/tests/fixtures/mcp/auth_http.mjs');

/** A free TCP port on loopback. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.once('error', reject);
  });
}
const ARTIFACTS = join(ROOT_DIR, 'target', 'artifacts');

/** `fn` run in the App's own frame (the inner frame of the sandbox proxy). */
function appFrame(page) {
  const proxy = page.frames().find((f) => f.url().endsWith('/pkg/mcp-app-sandbox.html'));
  assert.ok(proxy, 'the sandbox proxy frame is in the page');
  const inner = proxy.childFrames()[0];
  assert.ok(inner, 'the App frame is inside the sandbox proxy');
  return { proxy, inner };
}

test('MCP Apps: a real MCP server\'s App rendered in the page, sandboxed, calling its server over mcp://', { timeout: 10 * 60_000 }, async (t) => {
  assert.ok(existsSync(SERVER), `${SERVER} is missing: run npm ci`);
  assert.ok(existsSync(join(ROOT_DIR, 'pkg', 'mcp-apps.js')), 'pkg/mcp-apps.js is not built; run scripts/build-pkg.sh');
  const authPort = await freePort();
  const authServer = spawn(process.execPath, [AUTH_SERVER], { env: { ...process.env, PORT: String(authPort) }, stdio: 'ignore' });
  t.after(() => authServer.kill('SIGKILL'));
  let plain = null;
  const ctx = await hostAndBrowser(t, {
    prefix: 'ahp-mcp-app-',
    prepare: (workDir) => writeFileSync(join(workDir, '.mcp.json'), JSON.stringify({
      mcpServers: {
        basic: { command: process.execPath, args: [SERVER, '--stdio'] },
        secure: { url: `http://127.0.0.1:${authPort}/mcp` },
      },
    })),
    cleanup: () => plain?.close(),
  });
  const { url, browser, pages } = ctx;
  try {
    const frames = [];
    const A = await openPage(browser, url, 'A', pages, (p) =>
      p.on('websocket', (ws) => ws.on('framesent', (f) => frames.push(String(f.payload)))));
    const page = A.page;

    // A session in the work directory: its MCP server shows in the panel, waiting for approval
    // (the working directory declares it): the declaring file and the command are shown, nothing
    // runs until Allow.
    await page.click('[data-testid=new-session]');
    await page.waitForFunction(() => window.__ahp.subscription?.state);
    const waiting = page.locator('[data-testid=mcp-server][data-id="mcp/basic"][data-approval=needed]');
    await waiting.waitFor();
    assert.equal(await waiting.locator('[data-testid=mcp-state]').textContent(), 'needs approval');
    assert.match(await waiting.locator('[data-testid=mcp-declared-by]').textContent(), /working directory in .*\/\.mcp\.json$/);
    const approval = await waiting.locator('[data-testid=mcp-approval]').textContent();
    assert.ok(approval.includes(JSON.stringify(process.execPath)) && approval.includes(JSON.stringify(SERVER)),
      `the command and its arguments are shown: ${approval}`);
    assert.equal(await page.evaluate(() => window.__ahp.subscription.state.serverTools.some((t) => t.name.startsWith('mcp__'))), false);
    await waiting.locator('[data-testid=mcp-allow]').click();
    const server = page.locator('[data-testid=mcp-server][data-id="mcp/basic"][data-state=ready]');
    await server.waitFor({ timeout: 60_000 });
    assert.equal(await server.locator('[data-testid=mcp-state]').textContent(), 'ready');
    const session = await page.evaluate(() => window.__ahp.subscription.uri);
    const customization = await page.evaluate(() =>
      window.__ahp.subscription.state.customizations.find((c) => c.id === 'mcp/basic'));
    assert.match(customization.channel, /^mcp:\/\//, 'a client with capabilities.mcpApps sees the channel');
    assert.ok(customization.mcpApp?.capabilities?.serverResources, 'and the App capabilities');

    // The agent calls the App tool; the page mounts the App as soon as the call starts.
    await page.evaluate(() => {
      window.__mcpTimes = {};
      new MutationObserver(() => {
        const times = window.__mcpTimes;
        if (times.start === undefined && document.querySelector('[data-testid=tool-call]')) times.start = performance.now();
        if (times.visible === undefined && document.querySelector('[data-testid=mcp-app][data-state=mounted]')) times.visible = performance.now();
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await page.fill('[data-testid=message-input]', '/mcp basic get-time {}');
    await page.click('[data-testid=send]');
    const call = page.locator('[data-testid=tool-call]').last();
    await call.locator('[data-testid=tool-approve]').click();
    await page.locator('[data-testid=tool-call][data-status=completed]').waitFor();
    const mounted = page.locator('[data-testid=mcp-app][data-state=mounted], [data-testid=mcp-app][data-state=error]');
    await mounted.waitFor();
    assert.equal(await mounted.getAttribute('data-state'), 'mounted',
      `the App mounted: ${await page.locator('[data-testid=mcp-app]').textContent()}`);
    const times = await page.evaluate(() => window.__mcpTimes);
    const visibleMs = Math.round(times.visible - times.start);
    console.log(`# MCP App visible ${visibleMs} ms after the tool call started (mountMcpApp: ${await mounted.getAttribute('data-mount-ms')} ms)`);

    // The sandbox: outer iframe `allow-scripts` only (and the proxy page is served with a CSP
    // `sandbox` of its own); neither frame can reach the page.
    const proxyPage = await fetch(new URL('/pkg/mcp-app-sandbox.html', url));
    assert.equal(proxyPage.status, 200);
    assert.match(proxyPage.headers.get('content-security-policy') ?? '', /^sandbox allow-scripts allow-forms; default-src 'none'/);
    assert.equal(await page.locator('[data-testid=mcp-app] iframe').getAttribute('sandbox'), 'allow-scripts');
    const { proxy, inner } = appFrame(page);
    const reach = () => ['parent', 'top'].map((w) => {
      try {
        return `${w}: ${window[w].document.title}`;
      } catch (e) {
        return `${w}: ${e.name}`;
      }
    });
    assert.deepEqual(await inner.evaluate(reach), ['parent: SecurityError', 'top: SecurityError']);
    assert.deepEqual(await proxy.evaluate(reach), ['parent: SecurityError', 'top: SecurityError']);
    assert.equal(await inner.evaluate(() => window.origin), 'null', 'the App runs in an opaque origin');

    // The tool result reached the App (structuredContent.time), then its button calls the server.
    const shown = inner.locator('#server-time');
    await inner.waitForFunction(() => /\d{4}-\d\d-\d\dT/.test(document.getElementById('server-time')?.textContent ?? ''));
    const first = await shown.textContent();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'mcp-app.png'), fullPage: true });
    console.log(`# screenshot: target/artifacts/mcp-app.png`);
    const sentBefore = frames.length;
    await new Promise((r) => setTimeout(r, 1100)); // the next time differs in its seconds at least
    await inner.locator('#get-time-btn').click();
    await inner.waitForFunction((first) => {
      const text = document.getElementById('server-time')?.textContent ?? '';
      return text !== first && /\d{4}-\d\d-\d\dT/.test(text);
    }, first);
    const viaChannel = frames.slice(sentBefore).map((f) => JSON.parse(f))
      .filter((m) => m.method === 'tools/call' && m.params?.channel === customization.channel);
    assert.equal(viaChannel.length, 1, 'the App\'s tools/call went over the mcp:// channel');
    assert.equal(viaChannel[0].params.name, 'get-time');

    // ui/message: the App's "Send Message" becomes a user message of the session.
    const text = await inner.locator('#message-text').inputValue();
    await inner.locator('#send-message-btn').click();
    await page.waitForFunction((text) => window.__ahp.chat.state.turns.some((t) => t.message?.text === text)
      || (window.__ahp.chat.state.queuedMessages ?? []).some((m) => m.message?.text === text), text);

    // A method outside the advertised capability set: -32601, through the SDK's McpChannel.
    const refused = await page.evaluate(async ({ session }) => {
      const { McpChannel } = window.__ahp.sdk;
      const channel = await McpChannel.open(window.__ahp.client, session, 'mcp/basic');
      try {
        await channel.request('prompts/list', {});
        return 'answered';
      } catch (e) {
        return { name: e.name, code: e.code, isRpc: e instanceof window.__ahp.sdk.RpcError };
      } finally {
        channel.close();
      }
    }, { session });
    assert.deepEqual(refused, { name: 'RpcError', code: -32601, isRpc: true });

    // A client without capabilities.mcpApps: no mcpApp, no channel, ChannelUnavailableError.
    const sdk = await import(new URL('../../pkg/v0.3/node.js', import.meta.url).href);
    plain = await sdk.AhpClient.connect(`ws://${new URL(url).host}/ahp`, { token: TOKEN });
    const sub = await plain.subscribe(session);
    const seen = sub.state.customizations.find((c) => c.id === 'mcp/basic');
    assert.equal(seen.state.kind, 'ready');
    assert.equal(seen.channel, undefined);
    assert.equal(seen.mcpApp, undefined);
    const channel = await sdk.McpChannel.open(plain, session, 'mcp/basic');
    await assert.rejects(channel.request('tools/list'), (e) =>
      e instanceof sdk.ChannelUnavailableError && e.kind === 'channelUnavailable' && e.customizationId === 'mcp/basic');

    // The panel's token prompt: a server behind a bearer token waits in authRequired; a wrong
    // token is refused (shown as an error, still waiting), the right one makes it ready.
    const secure = (state) => page.locator(`[data-testid=mcp-server][data-id="mcp/secure"][data-state=${state}]`);
    const secureWaiting = page.locator('[data-testid=mcp-server][data-id="mcp/secure"][data-approval=needed]');
    assert.match(await secureWaiting.locator('[data-testid=mcp-approval]').textContent(), new RegExp(`connects to "http://127\\.0\\.0\\.1:${authPort}/mcp"`));
    await secureWaiting.locator('[data-testid=mcp-allow]').click();
    await secure('authRequired').waitFor();
    const errorsBefore = await page.locator('[data-testid=error]').count();
    await secure('authRequired').locator('[data-testid=mcp-token]').fill('wrong-token');
    await secure('authRequired').locator('[data-testid=mcp-authenticate]').click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=error]').length > n, errorsBefore);
    assert.match(await page.locator('[data-testid=error]').last().textContent(), /Authenticate/);
    assert.equal(await secure('authRequired').count(), 1, 'a refused token leaves the server waiting');
    await secure('authRequired').locator('[data-testid=mcp-token]').fill('s3cret');
    await secure('authRequired').locator('[data-testid=mcp-authenticate]').click();
    await secure('ready').waitFor();
    assert.equal(await page.locator('[data-testid=mcp-token]').count(), 0);
    const tokenSeen = await page.evaluate(() => JSON.stringify(window.__ahp.subscription.state).includes('s3cret'));
    assert.equal(tokenSeen, false, 'the token is not in the session state');

    // The toggle stops a server and starts it again (its tools leave and come back).
    const hasTool = () => page.evaluate(() => window.__ahp.subscription.state.serverTools.some((t) => t.name === 'mcp__basic__get-time'));
    await page.locator('[data-testid=mcp-server][data-id="mcp/basic"] [data-testid=mcp-toggle]').uncheck();
    await page.locator('[data-testid=mcp-server][data-id="mcp/basic"][data-state=stopped]').waitFor();
    assert.equal(await hasTool(), false);
    await page.locator('[data-testid=mcp-server][data-id="mcp/basic"] [data-testid=mcp-toggle]').check();
    await page.locator('[data-testid=mcp-server][data-id="mcp/basic"][data-state=ready]').waitFor({ timeout: 60_000 });
    assert.equal(await hasTool(), true);

    // The refused token was reported as an error: that one is expected, nothing else.
    const problems = A.problems.filter((p) => !/Authenticate/.test(p));
    assert.deepEqual(problems, [], 'no page errors or CSP reports');
  } catch (e) {
    throw explain(e, ctx);
  }
});
