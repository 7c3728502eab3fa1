// The package as an app's dependency, through bundlers with no configuration for it: a tiny app
// is built with Vite (production build), esbuild (`--bundle --format=esm`, plus the one loader
// flag of pkg/README.md, "Loading") and webpack 5, served from a loopback HTTP server, loaded in
// headless Chromium, and run against the real ahp-host: before the module is loaded a reducer
// refuses with the typed error; then the app connects (Vite and webpack: with no init() at all,
// `connect` loads the module), creates a session, subscribes to it and its default chat, sends a
// message and sees the agent's reply in the mirrored chat. The app imports the default entry
// (AHP 1.0): the one .wasm a build emits is the 1.0 module, no 0.3.0 code comes along. The package is installed into the app from the tarball
// `npm pack` makes of pkg/, as a user gets it. Run: node --test tests/browser/ (after
// scripts/build-pkg.sh); host and browser as in harness.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { ROOT_DIR, TOKEN, WAIT, explain, hostAndBrowser, run } from './harness.mjs';

const PKG = join(ROOT_DIR, 'pkg');
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.css': 'text/css' };

// The app. `WASM_IMPORT` / `INIT` are where a bundler needs the app to say something: Vite and
// webpack need nothing (`AhpClient.connect` loads the module the bundler emitted), esbuild
// needs the loaded file's URL handed to init().
const APP = `import { init, AhpClient, AhpError, PROTOCOL_VERSION, rootReducer } from 'ahp-wasm';
WASM_IMPORT
const params = new URLSearchParams(location.search);
const url = params.get('ws');
const token = params.get('tkn');

async function main() {
  // Before the module is loaded, a reducer (synchronous) refuses with the typed error, not a
  // crash inside the bindings.
  let before = 'ran';
  try {
    rootReducer({ agents: [] }, { type: 'x' });
  } catch (e) {
    before = e instanceof AhpError ? e.kind : String(e);
  }
  INIT
  const client = await AhpClient.connect(url, { token, reconnect: false });
  const id = 'bundled-' + params.get('name');
  const channel = 'ahp-session:/' + id;
  await client.createSession({ channel });
  const session = await client.subscribe(channel);
  const chat = await client.subscribe(session.state.defaultChat ?? 'ahp-chat:/' + id + '/default');
  const text = 'Hello from a bundle: ' + params.get('nonce');
  const replied = new Promise((resolve) =>
    chat.onChange((state) => {
      if (!state.activeTurn && state.turns.length === 1) resolve(state);
    }),
  );
  chat.dispatch({ type: 'chat/turnStarted', turnId: 't1', startedAt: new Date().toISOString(), message: { text, origin: { kind: 'user' } } });
  const state = await replied;
  client.close();
  return { before, version: PROTOCOL_VERSION, text, turn: state.turns[0] };
}
main().then(
  (r) => (window.__result = r),
  (e) => (window.__result = { failed: String((e && e.stack) || e) }),
);
`;

const HTML = (script, module) => `<!doctype html><meta charset="utf-8"><title>bundled ahp-wasm</title><link rel="icon" href="data:,">
<script ${module ? 'type="module" ' : ''}src="${script}"></script>`;

/** The app's directory with the package installed from `npm pack` of pkg/ (built once). */
let tarball;
async function appDir(t, name) {
  if (!tarball) {
    const packDir = mkdtempSync(join(tmpdir(), 'ahp-wasm-pack-'));
    process.on('exit', () => rmSync(packDir, { recursive: true, force: true }));
    const out = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], { cwd: PKG, timeoutMs: 120_000 });
    tarball = join(packDir, JSON.parse(out)[0].filename);
  }
  const dir = mkdtempSync(join(tmpdir(), `ahp-wasm-${name}-`));
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }));
  mkdirSync(join(dir, 'node_modules'));
  await run('tar', ['-xzf', tarball, '-C', join(dir, 'node_modules')], { timeoutMs: 60_000 });
  renameSync(join(dir, 'node_modules', 'package'), join(dir, 'node_modules', 'ahp-wasm'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `app-${name}`, private: true, type: 'module' }));
  return dir;
}

/** Serves `dir` on 127.0.0.1 (with the real MIME types); records the paths asked for. */
async function serve(t, dir) {
  const requests = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    requests.push(path);
    const file = normalize(join(dir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(dir + sep) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return { origin: `http://127.0.0.1:${server.address().port}`, requests };
}

/** Serves `dist`, runs the app in Chromium against a real host, checks the round trip. */
async function runApp(t, name, dist) {
  const { origin, requests } = await serve(t, dist);
  const ctx = await hostAndBrowser(t, { prefix: `ahp-${name}-`, extraArgs: ['--allow-origin', origin] });
  try {
    const ws = ctx.url.replace(/^http/, 'ws').replace(/\/(\?.*)?$/, '/ahp');
    const context = await ctx.browser.newContext();
    const page = await context.newPage();
    const problems = [];
    ctx.pages.push({ name, context, page, problems });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
    });
    const nonce = Math.random().toString(36).slice(2);
    const query = new URLSearchParams({ ws, tkn: TOKEN, name, nonce });
    await page.goto(`${origin}/?${query}`);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 3 * WAIT });
    const r = await page.evaluate(() => window.__result);
    assert.equal(r.failed, undefined, r.failed);
    assert.equal(r.before, 'notInitialized', 'a reducer before the module is loaded throws kind notInitialized');
    assert.equal(r.version, '1.0.0');
    assert.equal(r.turn.message.text, r.text);
    const reply = JSON.stringify(r.turn.responseParts);
    assert.match(reply, /You said/, 'the agent replied');
    assert.ok(reply.includes(nonce), `the reply quotes the message: ${reply.slice(0, 500)}`);
    // The module came from the app's own output, once, compiled while streaming (a wrong MIME
    // type makes the bindings warn and fall back).
    const wasm = requests.filter((p) => p.endsWith('.wasm'));
    assert.equal(wasm.length, 1, `one .wasm request: ${requests.join(' ')}`);
    assert.ok(existsSync(join(dist, wasm[0])), `${wasm[0]} is in the build output`);
    assert.deepEqual(problems, []);
  } catch (e) {
    throw explain(e, ctx);
  }
}

/** The one .wasm file a build emitted (relative to `dist`), checked to be the package's. */
function emittedWasm(dist) {
  const found = readdirSync(dist, { recursive: true }).filter((f) => String(f).endsWith('.wasm'));
  assert.equal(found.length, 1, `one .wasm in the build output: ${found.join(', ')}`);
  assert.ok(readFileSync(join(dist, found[0])).equals(readFileSync(join(PKG, 'ahp_wasm_bg.wasm'))), 'it is the package module');
  return found[0];
}

test('Vite production build, no configuration', { timeout: 10 * 60_000 }, async (t) => {
  const dir = await appDir(t, 'vite');
  writeFileSync(join(dir, 'main.js'), APP.replace('WASM_IMPORT', '').replace('INIT', ''));
  writeFileSync(join(dir, 'index.html'), HTML('/main.js', true));
  const { build } = await import('vite');
  await build({ root: dir, configFile: false, logLevel: 'warn', build: { outDir: join(dir, 'dist') } });
  emittedWasm(join(dir, 'dist'));
  await runApp(t, 'vite', join(dir, 'dist'));
});

test('esbuild --bundle --format=esm with --loader:.wasm=file', { timeout: 10 * 60_000 }, async (t) => {
  const dir = await appDir(t, 'esbuild');
  const app = APP.replace('WASM_IMPORT', "import wasm from 'ahp-wasm/ahp_wasm_bg.wasm';")
    .replace('INIT', 'await init({ wasm: new URL(wasm, import.meta.url) });');
  writeFileSync(join(dir, 'main.js'), app);
  const dist = join(dir, 'dist');
  mkdirSync(dist);
  writeFileSync(join(dist, 'index.html'), HTML('/main.js', true));
  await run(join(ROOT_DIR, 'node_modules', '.bin', 'esbuild'),
    ['main.js', '--bundle', '--format=esm', '--loader:.wasm=file', '--outdir=dist', '--log-level=warning'],
    { cwd: dir, timeoutMs: 120_000 });
  emittedWasm(dist);
  await runApp(t, 'esbuild', dist);
});

test('webpack 5 production build, no configuration for the package', { timeout: 10 * 60_000 }, async (t) => {
  const dir = await appDir(t, 'webpack');
  writeFileSync(join(dir, 'main.js'), APP.replace('WASM_IMPORT', '').replace('INIT', ''));
  const dist = join(dir, 'dist');
  const { default: webpack } = await import('webpack');
  const stats = await new Promise((resolve, reject) =>
    webpack({ mode: 'production', context: dir, entry: './main.js', output: { path: dist, filename: 'main.js' } },
      (err, s) => (err ? reject(err) : resolve(s))));
  assert.ok(!stats.hasErrors(), stats.toString({ all: false, errors: true }));
  writeFileSync(join(dist, 'index.html'), HTML('/main.js', false));
  emittedWasm(dist);
  await runApp(t, 'webpack', dist);
});
