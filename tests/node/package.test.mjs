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

// The tarball, but for the wasm-bindgen snippets (their directory is named after the crate).
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
  'reducers.js',
  'schema-check.js',
  'terminal.js',
  'web.js',
  'websocket.js',
];
const SNIPPETS = ['checks.js', 'errors.js', 'glue.js', 'render.js'];
// The AHP 1.0 entry (pkg/v1/): the same modules over its own module, with the 1.0 reducers and
// declarations; no LICENSE, README, package.json or MCP Apps entry of its own.
const EXPECTED_V1 = [
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
  'reducers.d.ts',
  'reducers.js',
  'schema-check.js',
  'terminal.js',
  'types.d.ts',
  'web.js',
  'websocket.js',
].map((f) => `v1/${f}`);

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
  assert.deepEqual(files.filter((f) => !f.startsWith('snippets/') && !f.startsWith('v1/')), EXPECTED);
  const v1 = files.filter((f) => f.startsWith('v1/'));
  assert.deepEqual(v1.filter((f) => !f.startsWith('v1/snippets/')), EXPECTED_V1);
  const v1Snippets = v1.filter((f) => f.startsWith('v1/snippets/'));
  assert.deepEqual(v1Snippets.map((f) => f.split('/').pop()).sort(), SNIPPETS);
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
  assert.deepEqual(manifest.sideEffects, ['./api.js', './node.js', './web.js', './v1/api.js', './v1/node.js', './v1/web.js']);
  assert.deepEqual(manifest.exports['./v1'], { types: './v1/index.d.ts', node: './v1/node.js', browser: './v1/web.js', default: './v1/web.js' });
});

// CommonJS: Node >= 20.19 (and >= 22.12) `require`s an ES module without top-level await, and
// the package has none, so a CommonJS program gets the same module (pkg/README.md, "Loading").
test('CommonJS: require("ahp-wasm") gives the Node entry, loaded and working', () => {
  const program = `
    const ahp = require('ahp-wasm');
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
  `;
  const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', program], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.deepEqual(JSON.parse(out.trim().split('\n').pop()), {
    same: true,
    version: '0.3.0',
    delta: 'session/delta',
    client: 'function',
    invalid: true,
  });
});
