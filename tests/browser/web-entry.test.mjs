// The package's AHP 0.3.0 browser entry (pkg/v0.3/web.js, `ahp-wasm/v0.3`; the default entry is
// the same js/web.js over the 1.0 module, loaded in pages by tests/browser/bundlers.test.mjs):
// ES module without top-level await; `init()` fetches
// and compiles the .wasm next to it), loaded by a page in headless Chromium, with no bundler: the
// import loads no wasm, reducers before init() throw the typed error, `AhpClient.connect` loads the
// module itself (sharing the load with init()), init() is idempotent. The
// page reports back to this test's loopback server, which records the order of requests. Text
// frames of every kind (short ASCII, non-ASCII, long) reach a mirror through a custom transport. Run: node --test tests/browser/   (after scripts/build-pkg.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const PKG = fileURLToPath(new URL('../../pkg/', import.meta.url));
const CHROMIUM = process.env.CHROME ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync) ?? 'chromium';
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.json': 'application/json' };

const PAGE = `<!doctype html><meta charset="utf-8"><title>ahp-wasm web entry</title>
<script type="module">
  const report = (result) => fetch('/result', { method: 'POST', body: JSON.stringify(result) });
  try {
    const ahp = await import('/pkg/v0.3/web.js');
    await fetch('/imported'); // the server sees whether the wasm was requested before this
    const before = {
      version: ahp.PROTOCOL_VERSION,
      errorClass: typeof ahp.AhpError === 'function' && new ahp.InvalidInputError('m', 'a', 'p') instanceof ahp.AhpError,
    };
    try {
      ahp.sessionReducer({}, { type: 'session/titleChanged', title: 'x' });
      before.threw = false;
    } catch (e) {
      before.threw = { ahp: e instanceof ahp.AhpError, kind: e.kind, message: e.message };
    }
    const state = {
      summary: { resource: 'copilot:/s', provider: 'copilot', title: 'Old', status: 1, createdAt: 1, modifiedAt: 2 },
      lifecycle: 'ready',
      turns: [],
    };
    // Frames through a custom transport: the page copies short ASCII frames into wasm memory
    // itself (js/glue.js) and hands the rest to TextEncoder; both must give the same text.
    let deliver;
    const uri = 'copilot:/frames';
    const session = { ...state, summary: { ...state.summary, resource: uri },
      activeTurn: { id: 't1', message: { text: 'q', origin: { kind: 'user' } }, responseParts: [{ kind: 'markdown', id: 'p1', content: '' }] } };
    const transport = (_url, callbacks) => {
      deliver = callbacks;
      setTimeout(() => callbacks.open(), 0);
      return {
        send(frame) {
          const msg = JSON.parse(frame);
          if (msg.method !== 'initialize') return;
          const result = { protocolVersion: '0.3.0', serverSeq: 0, snapshots: [{ resource: uri, state: session, fromSeq: 0 }] };
          setTimeout(() => callbacks.message(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })), 0);
        },
        close() {},
      };
    };
    // connect before any init(): it starts loading the module itself ...
    const connecting = ahp.AhpClient.connect('ws://frames.invalid/ahp', { transport, initialSubscriptions: [uri], reconnect: false, keepaliveMs: 0 });
    try {
      ahp.rootReducer({}, { type: 'x' });
    } catch (e) {
      before.whileLoading = e.message;
    }
    // ... and the app's own init() calls share that load.
    const first = ahp.init();
    before.samePromise = first === ahp.init() && first === ahp.init({ wasm: '/nowhere.wasm' });
    const client = await connecting;
    await first;
    before.connected = client.connectionState;
    const next = ahp.sessionReducer(state, { type: 'session/titleChanged', title: 'New' });
    let error = null;
    try {
      ahp.sessionReducer(state, { type: 'session/titleChanged', title: 42 });
    } catch (e) {
      error = { invalid: e instanceof ahp.InvalidInputError, ahp: e instanceof ahp.AhpError, path: e.path, message: e.message };
    }
    const subscription = client.subscription(uri) ?? (await client.subscribe(uri));
    const pieces = ['plain ', 'caf\u00e9 ', 'x'.repeat(40) + '\u{1f600}', '\u2028', 'a'.repeat(700), '\u00fc'.repeat(400), 'end'];
    pieces.forEach((content, i) => deliver.message(JSON.stringify({ jsonrpc: '2.0', method: 'action',
      params: { channel: uri, action: { type: 'session/delta', turnId: 't1', partId: 'p1', content }, serverSeq: i + 1 } })));
    const streamed = { content: subscription.state.activeTurn.responseParts[0].content, expected: pieces.join('') };
    client.close();
    await report({
      streamed,
      before,
      version: ahp.PROTOCOL_VERSION,
      supported: ahp.SUPPORTED_PROTOCOL_VERSIONS,
      title: next.summary.title,
      inputTitle: state.summary.title,
      frozen: Object.isFrozen(next) && Object.isFrozen(next.summary),
      unknown: ahp.sessionReducer(next, { type: 'x/unknown' }) === next,
      error,
    });
  } catch (e) {
    await report({ failed: String(e && e.stack || e) });
  }
</script>`;

test('the browser entry loads and works in headless Chromium without a bundler', async (t) => {
  assert.ok(existsSync(join(PKG, 'web.js')), 'pkg/ is not built; run scripts/build-pkg.sh');
  let resolveResult;
  const result = new Promise((resolve) => (resolveResult = resolve));
  const requests = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    requests.push(url.pathname);
    if (url.pathname === '/imported') {
      res.end('ok');
      return;
    }
    if (req.method === 'POST' && url.pathname === '/result') {
      let body = '';
      req.on('data', (d) => (body += d)).on('end', () => {
        res.end('ok');
        resolveResult(JSON.parse(body));
      });
      return;
    }
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      return;
    }
    const file = normalize(join(PKG, decodeURIComponent(url.pathname.replace(/^\/pkg\//, ''))));
    if (!url.pathname.startsWith('/pkg/') || !file.startsWith(PKG) || file.includes(`${sep}..`) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const profile = mkdtempSync(join(tmpdir(), 'ahp-wasm-chromium-'));
  const browser = spawn(CHROMIUM, [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
    `--user-data-dir=${profile}`,
    `http://127.0.0.1:${server.address().port}/`,
  ], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const exited = new Promise((resolve) => browser.once('exit', resolve));
  let stderr = '';
  browser.stderr.on('data', (d) => (stderr += d));
  t.after(async () => {
    // Chromium runs helper processes in its process group (it was started detached): end them all.
    try {
      process.kill(-browser.pid, 'SIGKILL');
    } catch {
      browser.kill('SIGKILL');
    }
    await exited;
    server.close();
    rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });
  const timeout = new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`no result from the page within 60 s; chromium stderr:\n${stderr.slice(-2000)}`)), 60_000).unref(),
  );
  const r = await Promise.race([result, timeout]);
  assert.equal(r.failed, undefined, r.failed);
  // No top-level await: the import resolved before the wasm was even requested.
  const wasmAt = requests.indexOf('/pkg/v0.3/ahp_wasm_bg.wasm');
  assert.ok(wasmAt > requests.indexOf('/imported') && requests.indexOf('/imported') >= 0, `requests: ${requests.join(' ')}`);
  assert.equal(requests.filter((p) => p.endsWith('.wasm')).length, 1, `one wasm request: ${requests.join(' ')}`);
  assert.equal(r.before.version, '0.3.0');
  assert.equal(r.before.errorClass, true);
  assert.equal(r.before.threw.ahp, true);
  assert.equal(r.before.threw.kind, 'notInitialized');
  assert.match(r.before.threw.message, /sessionReducer called before init\(\).*await init\(\)/);
  assert.equal(r.before.connected, 'connected', 'connect before init() loaded the module itself');
  assert.equal(r.before.samePromise, true);
  assert.match(r.before.whileLoading, /rootReducer called while the WebAssembly module is loading/);
  assert.equal(r.streamed.content.length, r.streamed.expected.length);
  assert.equal(r.streamed.content, r.streamed.expected, 'text frames (short ASCII, non-ASCII, long) arrive intact');
  assert.equal(r.version, '0.3.0');
  assert.ok(r.supported.includes('0.3.0'));
  assert.equal(r.title, 'New');
  assert.equal(r.inputTitle, 'Old');
  assert.equal(r.frozen, true);
  assert.equal(r.unknown, true);
  assert.deepEqual({ ...r.error, message: undefined }, { invalid: true, ahp: true, path: 'title', message: undefined });
  assert.match(r.error.message, /title/);
});
