// Bad input for every command, through the SDK in headless Chromium, against the real host: the
// table of tests/node/bad-input-table.mjs run in a page (each case a clear typed error, the
// connections alive), with the files inside the sandbox and outside it and the host's sessions
// and terminals compared before and after.
// Run: node --experimental-websocket --test tests/browser/   (after scripts/build-pkg.sh and
// `cargo build -p ahp-host`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { badInputDirs, treeOf } from '../node/bad-input-dirs.mjs';
import { sdkPage } from './harness.mjs';

const TABLE = fileURLToPath(new URL('../node/bad-input-table.mjs', import.meta.url));

test('Chromium: bad input for every command, a clear typed error each, nothing changed', async (t) => {
  const { host, page, errors } = await sdkPage(t, { modules: { table: TABLE } });
  const dirs = badInputDirs(t, host.workdir);
  const env = { url: host.wsUrl, token: host.token, dir: pathToFileURL(dirs.inside).href, outside: pathToFileURL(dirs.outside).href };
  const prepared = await page.evaluate(async (env) => {
    const { AhpClient } = window.sdk;
    const { table } = window.modules;
    const client = await AhpClient.connect(env.url, { token: env.token });
    const other = await AhpClient.connect(env.url, { token: env.token });
    window.env = { ...env, client, other };
    Object.assign(window.env, await table.prepareBadInput(window.env));
    return { host: await table.hostFacts(client) };
  }, env);
  const before = { files: treeOf(dirs.inside), outside: treeOf(dirs.outside), host: prepared.host };

  const result = await page.evaluate(async () => {
    const { table } = window.modules;
    const rows = await table.runBadInputTable(window.sdk, window.env);
    return { rows, host: await table.hostFacts(window.env.client) };
  });

  const failed = result.rows.filter((r) => !r.ok).map((r) => `${r.name}: ${r.got}`);
  assert.deepEqual(failed, [], 'every case fails as it should');
  assert.ok(result.rows.length >= 30, `the table ran (${result.rows.length} rows)`);
  const after = { files: treeOf(dirs.inside), outside: treeOf(dirs.outside), host: result.host };
  assert.deepEqual(after, before, 'nothing changed');
  assert.deepEqual(errors, [], 'no uncaught errors in the page');
});
