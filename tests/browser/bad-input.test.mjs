// Bad input for every command, through the SDK in headless Chromium, against the real host: the
// table of tests/node/bad-input-table.mjs run in a page (each case a clear typed error, the
// connections alive), with the files inside the sandbox and outside it and the host's sessions
// and terminals compared before and after.
// Run: node --experimental-websocket --test tests/browser/   (after scripts/build-pkg.sh and
// `cargo build -p ahp-host`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startHost } from '../node/host.mjs';
import { badInputDirs, treeOf } from '../node/bad-input-dirs.mjs';
import { launchChromium } from './harness.mjs';

const PKG = fileURLToPath(new URL('../../pkg/', import.meta.url));
const TABLE = fileURLToPath(new URL('../node/bad-input-table.mjs', import.meta.url));

const PAGE = `<!doctype html><meta charset="utf-8"><title>ahp-wasm bad input</title>
<script type="module">
  const sdk = await import('/pkg/web.js');
  await sdk.init();
  window.sdk = sdk;
  window.table = await import('/bad-input-table.js');
  window.ready = true;
</script>`;

test('Chromium: bad input for every command, a clear typed error each, nothing changed', async (t) => {
  assert.ok(existsSync(join(PKG, 'web.js')), 'pkg/ is not built; run scripts/build-pkg.sh');
  const www = mkdtempSync(join(tmpdir(), 'ahp-bad-input-www-'));
  t.after(() => rmSync(www, { recursive: true, force: true }));
  writeFileSync(join(www, 'index.html'), PAGE);
  copyFileSync(TABLE, join(www, 'bad-input-table.js'));
  const host = await startHost(t, ['--www', www, '--pkg', PKG]);
  const dirs = badInputDirs(t, host.workdir);
  const browser = await launchChromium();
  t.after(() => browser.close());
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${host.httpUrl}/?tkn=${host.token}`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });

  const env = { url: host.wsUrl, token: host.token, dir: pathToFileURL(dirs.inside).href, outside: pathToFileURL(dirs.outside).href };
  const prepared = await page.evaluate(async (env) => {
    const { AhpClient } = window.sdk;
    const client = await AhpClient.connect(env.url, { token: env.token });
    const other = await AhpClient.connect(env.url, { token: env.token });
    window.env = { ...env, client, other };
    Object.assign(window.env, await window.table.prepareBadInput(window.env));
    return { host: await window.table.hostFacts(client) };
  }, env);
  const before = { files: treeOf(dirs.inside), outside: treeOf(dirs.outside), host: prepared.host };

  const result = await page.evaluate(async () => {
    const rows = await window.table.runBadInputTable(window.sdk, window.env);
    return { rows, host: await window.table.hostFacts(window.env.client) };
  });

  const failed = result.rows.filter((r) => !r.ok).map((r) => `${r.name}: ${r.got}`);
  assert.deepEqual(failed, [], 'every case fails as it should');
  assert.ok(result.rows.length >= 30, `the table ran (${result.rows.length} rows)`);
  const after = { files: treeOf(dirs.inside), outside: treeOf(dirs.outside), host: result.host };
  assert.deepEqual(after, before, 'nothing changed');
  assert.deepEqual(errors, [], 'no uncaught errors in the page');
});
