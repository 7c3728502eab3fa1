// MCP Apps end to end on AHP 1.0: a page served by the real ahp-host imports the package's
// default entry (`/pkg/web.js`, AHP 1.0) and `/pkg/mcp-apps.js`, connects with
// `capabilities.mcpApps`, creates a session whose MCP server is the real npm
// `@modelcontextprotocol/server-basic-vanillajs` (the operator's `--mcp-config`, started with the
// session; or the working directory's `.mcp.json`, which waits until the 1.0 client approves it
// with `session/customizationToggled`), starts a turn on the session's default chat with `/mcp basic get-time {}`, approves
// the tool call with `chat/toolCallConfirmed`, and `mountMcpApp` renders the App from the chat:
// the App shows the tool result's time, its button calls the server over the `mcp://` channel
// and it shows a new time, its `ui/message` is queued on the chat, the iframe is
// `sandbox="allow-scripts"` with an opaque origin, and `close()` removes it. Also: an unknown
// `toolCallId` rejects with `McpAppError` kind `no-tool-call`.
//
// Run: node --experimental-websocket --test tests/browser/mcp-app-v1.test.mjs (after
// scripts/build-pkg.sh and npm ci).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_DIR, WAIT, hostBinary, launchChromium, within } from './harness.mjs';

const SERVER = join(ROOT_DIR, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
const PKG = join(ROOT_DIR, 'pkg');
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;

/** The page: the 1.0 entry and the mcp-apps entry, loaded; the App goes into `#app`. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>ahp-wasm MCP App (AHP 1.0)</title><link rel="icon" href="data:,">
<div id="app"></div>
<script type="module">
  const sdk = await import('/pkg/web.js');
  await sdk.init();
  window.sdk = sdk;
  window.apps = await import('/pkg/mcp-apps.js');
  // Resolves with pred(state) once it is truthy (checked now and on every change).
  window.until = (sub, pred, what, ms = ${WAIT}) => new Promise((resolve, reject) => {
    let off = () => {};
    const timer = setTimeout(() => { off(); reject(new Error(what + ': not within ' + ms + ' ms: ' + JSON.stringify(sub.state).slice(0, 3000))); }, ms);
    const check = () => {
      const value = pred(sub.state);
      if (value) { off(); clearTimeout(timer); resolve(value); }
      return value;
    };
    off = sub.onChange(check);
    check();
  });
  window.ready = true;
</script>`;

/** The App's frame: the inner frame of the sandbox proxy. */
function appFrames(page) {
  const proxy = page.frames().find((f) => f.url().endsWith('/pkg/mcp-app-sandbox.html'));
  assert.ok(proxy, 'the sandbox proxy frame is in the page');
  const inner = proxy.childFrames()[0];
  assert.ok(inner, 'the App frame is inside the sandbox proxy');
  return { proxy, inner };
}

/**
 * The whole flow. `declared`: `'operator'` (the server comes from `--mcp-config`: it starts with
 * the session) or `'workdir'` (from the working directory's `.mcp.json`: it waits until the 1.0
 * client approves it with `session/customizationToggled`).
 */
async function appOnV1(t, declared) {
  assert.ok(existsSync(SERVER), `${SERVER} is missing: run npm ci`);
  assert.ok(existsSync(join(PKG, 'web.js')) && existsSync(join(PKG, 'mcp-apps.js')), 'pkg/ is not built; run scripts/build-pkg.sh');
  process.env.AHP_HOST_BIN ??= await hostBinary();
  const { startHost } = await import('../node/host.mjs');

  const tmp = mkdtempSync(join(tmpdir(), 'ahp-mcp-app-v1-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  writeFileSync(join(tmp, 'index.html'), PAGE);
  const servers = JSON.stringify({ mcpServers: { basic: { command: process.execPath, args: [SERVER, '--stdio'] } } });
  const config = join(tmp, 'mcp.json');
  if (declared === 'operator') writeFileSync(config, servers);
  const host = await startHost(t, ['--www', tmp, '--pkg', PKG, ...(declared === 'operator' ? ['--mcp-config', config] : [])]);
  // The host's working directory (where sessions start) declares it.
  if (declared === 'workdir') writeFileSync(join(host.workdir, '.mcp.json'), servers);

  const browser = await launchChromium();
  t.after(() => within(browser.close(), 15_000, 'browser.close').catch(() => {}));
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT);
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console.${m.type()}: ${m.text()} (${m.location()?.url ?? ""})`);
  });
  const frames = [];
  page.on('websocket', (ws) => ws.on('framesent', (f) => frames.push(String(f.payload))));
  await page.goto(`${host.httpUrl}/?tkn=${host.token}`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });

  // Connect (1.0, capabilities.mcpApps), create a session, wait for its MCP server.
  const { session, chat, channel, waited } = await page.evaluate(async ({ token, declared }) => {
    const client = await window.sdk.AhpClient.connect(`ws://${location.host}/ahp`, { token, capabilities: { mcpApps: {} } });
    window.client = client;
    const session = `ahp-session:/${crypto.randomUUID()}`;
    await client.createSession({ channel: session });
    const sub = await client.subscribe(session);
    let waited;
    if (declared === 'workdir') {
      // Listed, not started: waiting for approval, its tools not lent; the toggle approves it.
      waited = await window.until(sub, (s) => (s.customizations ?? []).find((c) => c.id === 'mcp/basic'), 'the server is listed');
      if ((sub.state.serverTools ?? []).some((t) => t.name.startsWith('mcp__basic__'))) throw new Error('its tools are lent before approval');
      client.dispatch(session, { type: 'session/customizationToggled', id: 'mcp/basic', enablement: [{ kind: 'session', enabled: true }] });
    }
    const basic = await window.until(sub, (s) => {
      const c = (s.customizations ?? []).find((c) => c.id === 'mcp/basic');
      const tool = (s.serverTools ?? []).some((t) => t.name === 'mcp__basic__get-time');
      return c?.state?.kind === 'ready' && tool ? c : undefined;
    }, 'the MCP server is ready', 60_000);
    return { session, chat: sub.state.defaultChat, channel: basic.channel, waited: waited && { state: waited.state, enabled: waited.enabled } };
  }, { token: host.token, declared });
  if (declared === 'workdir') {
    assert.equal(waited.state.kind, 'error', `a working-directory server waits: ${JSON.stringify(waited)}`);
    assert.match(JSON.stringify(waited.state.error), /McpServerNeedsApproval/);
  }
  assert.match(chat, /^ahp-chat:/, 'the session names its default chat');
  assert.match(channel, /^mcp:\/\//, 'a client with capabilities.mcpApps sees the channel');

  // A turn on the default chat makes the built-in agent call the App tool; approve it.
  const toolCallId = await page.evaluate(async (chat) => {
    const client = window.client;
    const sub = await client.subscribe(chat);
    const turnId = crypto.randomUUID();
    client.dispatch(chat, {
      type: 'chat/turnStarted', turnId, startedAt: new Date().toISOString(),
      message: { text: '/mcp basic get-time {}', origin: { kind: 'user' } },
    });
    const call = await window.until(sub, (s) => {
      const part = (s.activeTurn?.responseParts ?? []).find((p) => p.kind === 'toolCall');
      return part?.toolCall.status === 'pending-confirmation' ? part.toolCall : undefined;
    }, 'the tool call waits for confirmation');
    client.dispatch(chat, { type: 'chat/toolCallConfirmed', turnId, toolCallId: call.toolCallId, approved: true, confirmed: 'user-action' });
    await window.until(sub, (s) => window.apps.findToolCall(s, call.toolCallId)?.status === 'completed', 'the tool call completes');
    return call.toolCallId;
  }, chat);

  // Mount the App from the chat (the session's default chat: no `chat` option).
  const mounted = await page.evaluate(async ({ session, toolCallId }) => {
    const started = performance.now();
    window.handle = await window.apps.mountMcpApp(document.getElementById('app'), { client: window.client, session, toolCallId });
    return { ms: Math.round(performance.now() - started), resourceUri: window.handle.resourceUri };
  }, { session, toolCallId });
  assert.equal(mounted.resourceUri, 'ui://get-time/mcp-app.html');
  console.log(`# mountMcpApp (AHP 1.0, ${declared} server) resolved in ${mounted.ms} ms`);

  // The sandbox: `allow-scripts` only, an opaque origin that cannot reach the page.
  assert.equal(await page.locator('#app iframe').getAttribute('sandbox'), 'allow-scripts');
  const { inner } = appFrames(page);
  assert.equal(await inner.evaluate(() => window.origin), 'null', 'the App runs in an opaque origin');
  assert.equal(await inner.evaluate(() => {
    try {
      return top.document.title;
    } catch (e) {
      return e.name;
    }
  }), 'SecurityError');

  // The tool result's time reached the App; its button calls the server over mcp://.
  await inner.waitForFunction((re) => new RegExp(re).test(document.getElementById('server-time')?.textContent ?? ''), TIME.source);
  const first = await inner.locator('#server-time').textContent();
  const sentBefore = frames.length;
  await inner.locator('#get-time-btn').click();
  await inner.waitForFunction(({ first, re }) => {
    const text = document.getElementById('server-time')?.textContent ?? '';
    return text !== first && new RegExp(re).test(text);
  }, { first, re: TIME.source });
  const viaChannel = frames.slice(sentBefore).map((f) => JSON.parse(f))
    .filter((m) => m.method === 'tools/call' && m.params?.channel === channel);
  assert.equal(viaChannel.length, 1, 'the App\'s tools/call went over the mcp:// channel');
  assert.equal(viaChannel[0].params.name, 'get-time');

  // ui/message: the App's "Send Message" is queued on the chat (chat/pendingMessageSet), or
  // already started as a turn.
  const text = await inner.locator('#message-text').inputValue();
  await inner.locator('#send-message-btn').click();
  await page.evaluate(async ({ chat, text }) => {
    const sub = window.client.subscription(chat);
    await window.until(sub, (s) => (s.queuedMessages ?? []).some((m) => m.message?.text === text)
      || s.activeTurn?.message?.text === text || s.turns.some((t) => t.message?.text === text), 'the App\'s message is in the chat');
  }, { chat, text });
  assert.ok(frames.some((f) => {
    const m = JSON.parse(f);
    return m.method === 'dispatchAction' && m.params?.channel === chat && m.params.action?.type === 'chat/pendingMessageSet'
      && m.params.action.message?.text === text;
  }), 'ui/message was dispatched as chat/pendingMessageSet on the chat');

  // close() removes the iframe.
  await page.evaluate(() => window.handle.close());
  assert.equal(await page.locator('#app iframe').count(), 0, 'close() removes the App');

  // An unknown tool call: McpAppError kind no-tool-call.
  const refused = await page.evaluate(async (session) => {
    try {
      await window.apps.mountMcpApp(document.getElementById('app'), { client: window.client, session, toolCallId: 'no-such-call' });
      return 'mounted';
    } catch (e) {
      return { name: e.name, kind: e.kind, isMcpAppError: e instanceof window.apps.McpAppError, isAhpError: e instanceof window.sdk.AhpError };
    }
  }, session);
  assert.deepEqual(refused, { name: 'McpAppError', kind: 'no-tool-call', isMcpAppError: true, isAhpError: true });
  assert.equal(await page.locator('#app iframe').count(), 0, 'a refused mount leaves no iframe');

  assert.deepEqual(problems, [], 'no page errors or CSP reports');
}

test('MCP Apps on AHP 1.0: the App of a default-chat tool call (the operator\'s server), rendered and calling its server over mcp://', { timeout: 5 * 60_000 }, (t) => appOnV1(t, 'operator'));

test('MCP Apps on AHP 1.0: a working directory\'s server, approved by the 1.0 client, then its App', { timeout: 5 * 60_000 }, (t) => appOnV1(t, 'workdir'));
