// Bad input for every command, through the SDK in Node, against the real host: each gets a
// clear, typed error, the connections survive, and nothing changed (the files inside the
// sandbox and in a directory outside it, the host's sessions and terminals). The table is
// tests/node/bad-input-table.mjs; tests/browser/bad-input.test.mjs runs it in headless Chromium.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh and
// `cargo build -p ahp-host`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import * as ahp from 'ahp-wasm';
import { startHost } from './host.mjs';
import { hostFacts, prepareBadInput, runBadInputTable } from './bad-input-table.mjs';
import { badInputDirs, treeOf } from './bad-input-dirs.mjs';

test('bad input for every command: a clear typed error each, nothing changed, connections alive', async (t) => {
  const host = await startHost(t);
  const dirs = badInputDirs(t, host.workdir);
  const client = await ahp.AhpClient.connect(host.wsUrl, { token: host.token });
  const other = await ahp.AhpClient.connect(host.wsUrl, { token: host.token });
  t.after(() => {
    client.close();
    other.close();
  });
  const env = { client, other, dir: pathToFileURL(dirs.inside).href, outside: pathToFileURL(dirs.outside).href };
  Object.assign(env, await prepareBadInput(env));
  const before = { files: treeOf(dirs.inside), outside: treeOf(dirs.outside), host: await hostFacts(client) };

  const rows = await runBadInputTable(ahp, env);

  const failed = rows.filter((r) => !r.ok).map((r) => `${r.name}: ${r.got}`);
  assert.deepEqual(failed, [], 'every case fails as it should');
  assert.ok(rows.length >= 30, `the table ran (${rows.length} rows)`);
  const after = { files: treeOf(dirs.inside), outside: treeOf(dirs.outside), host: await hostFacts(client) };
  assert.deepEqual(after, before, 'nothing changed');
});
