// What `npm publish` would put in the tarball (`npm pack --dry-run --json` in pkg/): exactly the
// package's files, every one that package.json names exists, the license is there, every
// target of `exports` is in it, and no file names a path of the build machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PKG = fileURLToPath(new URL('../../pkg/', import.meta.url));
const manifest = JSON.parse(readFileSync(`${PKG}package.json`, 'utf8'));

// The tarball, but for the wasm-bindgen snippets (their directory is named after the crate) and
// the AHP 0.3.0 entry (v0.3/). The default entry is AHP 1.0: its reducers' and wire types'
// declarations and its generated declarations beside the shared ones.
const EXPECTED = [
  'LICENSE',
  'LICENSE.ext-apps',
  'README.md',
  'active-client.js',
  'ahp_wasm.d.ts',
  'ahp_wasm.js',
  'ahp_wasm_bg.wasm',
  'ahp_wasm_bg.wasm.d.ts',
  'api.js',
  'changeset.js',
  'common.d.ts',
  'error-classes.js',
  'generated.d.ts',
  'generated.js',
  'handles.d.ts',
  'in-memory-transport.js',
  'index.d.ts',
  'mcp-app-sandbox.html',
  'mcp-apps.d.ts',
  'mcp-apps.js',
  'mcp-channel.js',
  'module-state.js',
  'node.js',
  'package.json',
  'protocol.js',
  'reducers.d.ts',
  'reducers.js',
  'schema-check.js',
  'terminal.js',
  'types.d.ts',
  'web.js',
  'websocket.js',
];
const SNIPPETS = ['checks.js', 'errors.js', 'glue.js', 'render.js'];
// The AHP 0.3.0 entry (pkg/v0.3/): the same modules over its own module, with the 0.3.0 reducers,
// names and declarations (which import the shared ones from the root); no LICENSE, README,
// package.json or MCP Apps entry of its own.
const EXPECTED_V03 = [
  'active-client.js',
  'ahp_wasm.d.ts',
  'ahp_wasm.js',
  'ahp_wasm_bg.wasm',
  'ahp_wasm_bg.wasm.d.ts',
  'api.js',
  'changeset.js',
  'error-classes.js',
  'generated.js',
  'in-memory-transport.js',
  'index.d.ts',
  'mcp-channel.js',
  'module-state.js',
  'node.js',
  'protocol.js',
  'reducers.js',
  'schema-check.js',
  'terminal.js',
  'web.js',
  'websocket.js',
].map((f) => `v0.3/${f}`);

function packedFiles() {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: PKG,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
  const [pack] = JSON.parse(out);
  return pack.files.map((f) => f.path).sort();
}

test('npm pack: exactly the package files, LICENSE included', () => {
  const files = packedFiles();
  const snippets = files.filter((f) => f.startsWith('snippets/'));
  assert.deepEqual(files.filter((f) => !f.startsWith('snippets/') && !f.startsWith('v0.3/')), EXPECTED);
  const v03 = files.filter((f) => f.startsWith('v0.3/'));
  assert.deepEqual(v03.filter((f) => !f.startsWith('v0.3/snippets/')), EXPECTED_V03);
  const v03Snippets = v03.filter((f) => f.startsWith('v0.3/snippets/'));
  assert.deepEqual(v03Snippets.map((f) => f.split('/').pop()).sort(), SNIPPETS);
  const dirs = new Set(snippets.map((f) => f.split('/').slice(0, 3).join('/')));
  assert.equal(dirs.size, 1, `one snippet directory: ${[...dirs]}`);
  const [dir] = dirs;
  assert.match(dir, /^snippets\/ahp-wasm-[0-9a-f]+\/js$/);
  assert.deepEqual(snippets, SNIPPETS.map((f) => `${dir}/${f}`));
  // generated.js imports the snippet that is packed (the package's JS is minified: either quote).
  const generated = readFileSync(`${PKG}generated.js`, 'utf8');
  assert.ok([`"./${dir}/errors.js"`, `'./${dir}/errors.js'`].some((s) => generated.includes(`from${s}`) || generated.includes(`from ${s}`)), generated);
  const license = readFileSync(`${PKG}LICENSE`, 'utf8');
  assert.match(license, /^MIT License/);
  assert.equal(manifest.license, 'MIT');
});

test('no packed file names a path of the machine that built it', () => {
  // Panic locations in the wasm name their source files; dependencies' must be under `crates/`
  // (scripts/build-pkg.sh remaps the cargo home), never an absolute home or registry path.
  const machinePath = /(?:\/(?:root|home|Users)\/[^\0"'\s]*)|\.cargo\/registry/;
  const offenders = [];
  for (const file of packedFiles()) {
    const text = readFileSync(`${PKG}${file}`).toString('latin1');
    const found = machinePath.exec(text);
    if (found) offenders.push(`${file}: ${found[0].slice(0, 120)}`);
  }
  assert.deepEqual(offenders, []);
  const wasm = readFileSync(`${PKG}ahp_wasm_bg.wasm`).toString('latin1');
  assert.match(wasm, /crates\/index\.crates\.io-[0-9a-f]+\/[a-z0-9_-]+-[0-9][^/]*\/src\/[a-z_/]+\.rs/, 'dependency paths are remapped, not dropped');
});

test('package.json: every file it names exists and is packed', () => {
  const files = new Set(packedFiles());
  for (const entry of manifest.files) {
    const path = `${PKG}${entry}`;
    assert.ok(existsSync(path), `files: ${entry} missing`);
    if (statSync(path).isDirectory()) assert.ok(readdirSync(path).length > 0, `files: ${entry} is empty`);
    else assert.ok(files.has(entry), `files: ${entry} not packed`);
  }
  const targets = [];
  const walk = (v) => (typeof v === 'string' ? targets.push(v) : Object.values(v).forEach(walk));
  walk(manifest.exports);
  for (const t of [...targets, manifest.main, manifest.browser, manifest.types]) {
    assert.ok(files.has(t.replace(/^\.\//, '')), `${t} (exports/main/browser/types) is not packed`);
  }
  for (const f of manifest.sideEffects) assert.ok(files.has(f.replace(/^\.\//, '')), `sideEffects: ${f} not packed`);
});

test('package.json: export conditions (types first, node, browser, default)', () => {
  const main = manifest.exports['.'];
  assert.deepEqual(Object.keys(main), ['types', 'node', 'browser', 'default']);
  assert.deepEqual(main, { types: './index.d.ts', node: './node.js', browser: './web.js', default: './web.js' });
  for (const [key, value] of Object.entries(manifest.exports)) {
    if (typeof value === 'object') assert.equal(Object.keys(value)[0], 'types', `${key}: types first`);
  }
  // The modules that do something when evaluated (the entries' loading, the prototype methods,
  // the browser entry handing its init() to AhpClient.connect: a bundler that took web.js as
  // side-effect free would drop that when the app imports nothing of web.js's own).
  assert.deepEqual(manifest.sideEffects, ['./api.js', './node.js', './web.js', './v0.3/api.js', './v0.3/node.js', './v0.3/web.js']);
  assert.deepEqual(manifest.exports['./v0.3'], { types: './v0.3/index.d.ts', node: './v0.3/node.js', browser: './v0.3/web.js', default: './v0.3/web.js' });
  // `ahp-wasm/v1`, the preview's name of the 1.0 entry: the very files of '.' (one module instance).
  assert.deepEqual(manifest.exports['./v1'], main);
  assert.equal(manifest.exports['./v1/ahp_wasm_bg.wasm'], manifest.exports['./ahp_wasm_bg.wasm']);
  assert.equal(manifest.exports['./v0.3/ahp_wasm_bg.wasm'], './v0.3/ahp_wasm_bg.wasm');
});

test('ahp-wasm/v1 is the default entry itself, ahp-wasm/v0.3 a module of its own', async () => {
  const [main, v1, v03] = await Promise.all([import('ahp-wasm'), import('ahp-wasm/v1'), import('ahp-wasm/v0.3')]);
  assert.equal(v1, main, 'one module namespace: the same files');
  assert.equal(v1.AhpError, main.AhpError);
  assert.equal(main.PROTOCOL_VERSION, '1.0.0');
  assert.equal(v03.PROTOCOL_VERSION, '0.3.0');
  assert.notEqual(v03.AhpError, main.AhpError);
});

// The size budget: each entry's module and JS (what an app that imports it loads; mcp-apps.js is
// its own entry) at most 300,000 B gzipped, as scripts/build-pkg.sh counts them.
test('each entry is at most 300,000 B gzipped (wasm + JS)', async () => {
  // GNU gzip, as the script (zlib's deflate makes a few KB more of the module).
  const gzip = (buffer) => execFileSync('gzip', ['-9'], { input: buffer, maxBuffer: 1 << 26 }).length;
  const jsOf = (dir, skip) =>
    readdirSync(`${PKG}${dir}`, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.js') && !f.endsWith('mcp-apps.js') && !(skip && f.startsWith(skip)))
      .sort()
      .map((f) => readFileSync(`${PKG}${dir}${f}`));
  for (const [entry, dir, skip] of [['ahp-wasm', '', 'v0.3/'], ['ahp-wasm/v0.3', 'v0.3/', null]]) {
    const js = jsOf(dir, skip);
    assert.ok(js.length > 10, `${entry}: its JS files`);
    const total = gzip(readFileSync(`${PKG}${dir}ahp_wasm_bg.wasm`)) + gzip(Buffer.concat(js));
    assert.ok(total > 200_000 && total <= 300_000, `${entry}: ${total} B gzipped`);
  }
});

// CommonJS: Node >= 20.19 (and >= 22.12) `require`s an ES module without top-level await, and
// the package has none, so a CommonJS program gets the same module (pkg/README.md, "Loading").
/**
 * Runs `program` as CommonJS from the repository root: the JSON its last line prints is
 * checked to equal `expected` (the entry loaded, its reducer, named values and client work).
 */
function commonJs(program, expected) {
  const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', program], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.deepEqual(JSON.parse(out.trim().split('\n').pop()), { client: 'function', invalid: true, same: true, ...expected });
}

test('CommonJS: require("ahp-wasm") gives the Node entry (AHP 1.0), loaded and working', () => {
  commonJs(`
    const ahp = require('ahp-wasm');
    const chat = { resource: 'ahp-chat:/c', title: '', status: 1, modifiedAt: '1970-01-01T00:00:01.000Z', turns: [] };
    let invalid = null;
    try { ahp.chatReducer({}, { type: 'chat/truncated' }); } catch (e) { invalid = e instanceof ahp.InvalidInputError && e instanceof Error; }
    console.log(JSON.stringify({
      same: ahp.chatReducer(chat, { type: 'no/such-action' }) === chat,
      version: ahp.PROTOCOL_VERSION,
      delta: ahp.ActionType.ChatDelta,
      client: typeof ahp.AhpClient.connect,
      invalid,
    }));
  `, { version: '1.0.0', delta: 'chat/delta' });
});

test('CommonJS: require("ahp-wasm/v0.3") gives the AHP 0.3.0 Node entry, loaded and working', () => {
  commonJs(`
    const ahp = require('ahp-wasm/v0.3');
    const state = { root: 'file:///w', recursive: true };
    let invalid = null;
    try { ahp.sessionReducer({}, { type: 'session/ready' }); } catch (e) { invalid = e instanceof ahp.InvalidInputError && e instanceof Error; }
    console.log(JSON.stringify({
      same: ahp.resourceWatchReducer(state, { type: 'no/such-action' }) === state,
      version: ahp.PROTOCOL_VERSION,
      delta: ahp.ActionType.SessionDelta,
      client: typeof ahp.AhpClient.connect,
      invalid,
    }));
  `, { version: '0.3.0', delta: 'session/delta' });
});
