// The SDK's `ChangesetHandle` (js/changeset.js) against the real `ahp-host`: a session's
// changeset found from its catalogue, a file written through the SDK listed with its line
// counts, a per-file revert and a revert-all restoring the disk, and bad operations refused
// before anything is sent.
// Run: node --experimental-websocket --test tests/node/changeset.test.mjs   (after
// scripts/build-pkg.sh and `cargo build -p ahp-host`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AhpClient, AhpError, ChangesetHandle, InvalidInputError } from 'ahp-wasm/v0.3';
import { startHost } from './host.mjs';

/** Resolves once `check(changes)` holds, checking on every change. */
function until(changes, what, check, ms = 15_000) {
  return new Promise((resolve, reject) => {
    if (check(changes)) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${what}; files: ${JSON.stringify(changes.files.map((f) => f.id))}`));
    }, ms);
    const off = changes.onChange(() => {
      if (check(changes)) {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  });
}

test('a session changeset: files with line counts, revert one, revert all, bad operations refused', async (t) => {
  const host = await startHost(t);
  const dir = join(host.workdir, 'project');
  mkdirSync(dir);
  writeFileSync(join(dir, 'keep.txt'), 'one\ntwo\n');
  const client = await AhpClient.connect(host.wsUrl, { token: host.token });
  t.after(() => client.close());
  const session = `ahp-session:/changes-${Date.now()}`;
  await client.createSession({ channel: session, workingDirectory: pathToFileURL(dir).href });

  const changes = await client.sessionChangeset(session);
  assert.ok(changes instanceof ChangesetHandle);
  assert.match(changes.uri, /^ahp-changeset:/);
  await changes.ready();
  assert.deepEqual(changes.files, [], 'nothing changed yet');
  assert.deepEqual(changes.operations.map((o) => [o.id, [...o.scopes]]), [['revert', ['resource']], ['revert-all', ['changeset']]]);

  const keep = pathToFileURL(join(dir, 'keep.txt')).href;
  const added = pathToFileURL(join(dir, 'new.txt')).href;
  await client.resourceWrite({ uri: keep, data: 'one\nTWO\nthree\n', encoding: 'utf-8' });
  await client.resourceWrite({ uri: added, data: 'fresh\n', encoding: 'utf-8' });
  await until(changes, 'both files listed', (c) => c.file(keep) && c.file(added));
  assert.deepEqual({ ...changes.file(keep).edit.diff }, { added: 2, removed: 1 });
  assert.deepEqual({ ...changes.file(added).edit.diff }, { added: 1, removed: 0 });

  // Refused before sending: an operation not offered, a scope it does not take, a file not in it.
  await assert.rejects(changes.invoke('squash'), (e) => e instanceof InvalidInputError && /offers no operation `squash`/.test(e.message));
  await assert.rejects(changes.invoke('revert'), (e) => e instanceof InvalidInputError && /whole changeset/.test(e.message));
  await assert.rejects(changes.invoke('revert-all', keep), (e) => e instanceof InvalidInputError && /single file/.test(e.message));
  await assert.rejects(changes.invoke('revert', `${keep}.nope`), (e) => e instanceof InvalidInputError && e.path === '' && e.argument === 'resource');
  assert.equal(readFileSync(join(dir, 'keep.txt'), 'utf8'), 'one\nTWO\nthree\n', 'nothing was reverted');

  // One file, then the rest.
  await changes.invoke('revert', keep);
  await until(changes, 'keep.txt reverted', (c) => !c.file(keep));
  assert.equal(readFileSync(join(dir, 'keep.txt'), 'utf8'), 'one\ntwo\n');
  assert.ok(changes.file(added), 'the other change stays');
  await changes.invoke('revert-all');
  await until(changes, 'everything reverted', (c) => c.files.length === 0);
  assert.equal(existsSync(join(dir, 'new.txt')), false, 'an added file is removed by revert-all');

  changes.close();
  assert.throws(() => changes.onChange(() => {}), (e) => e instanceof AhpError && e.kind === 'usage');
  await assert.rejects(client.changeset('ahp-session:/not-a-changeset'), (e) => e instanceof InvalidInputError && e.argument === 'uri');
});
