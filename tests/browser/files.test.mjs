// File commands through the SDK in headless Chromium against the real host: a resource watch
// delivers a batch after a file write (the `resourceChanges` client event), and `resourceWrite`
// with `ifMatch` writes on the current etag and refuses a stale one (Conflict, file unchanged).
// Run: node --experimental-websocket --test tests/browser/   (after scripts/build-pkg.sh and
// `cargo build -p ahp-host`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sdkPage } from './harness.mjs';

test('Chromium: a watch batch after a file write; ifMatch writes on the current etag, not a stale one', async (t) => {
  const { host, page, errors } = await sdkPage(t);
  const dir = join(host.workdir, 'watched');
  mkdirSync(dir);
  writeFileSync(join(dir, 'a.txt'), 'one\n');
  const env = { url: host.wsUrl, token: host.token, dir: pathToFileURL(dir).href };
  const r = await page.evaluate(async (env) => {
    const { AhpClient, RpcError } = window.sdk;
    const client = await AhpClient.connect(env.url, { token: env.token });
    const { channel } = await client.createResourceWatch({ uri: env.dir, recursive: true });
    const watch = await client.subscribe(channel);
    const batches = [];
    const seen = new Promise((resolve) => {
      client.onEvent((e) => {
        if (e.type !== 'resourceChanges' || e.channel !== channel) return;
        batches.push(e.changes);
        if (batches.flat().some((c) => c.uri.endsWith('/b.txt'))) resolve();
      });
    });
    await client.resourceWrite({ uri: `${env.dir}/b.txt`, data: 'new file\n', encoding: 'utf-8' });
    await Promise.race([seen, new Promise((resolve) => setTimeout(resolve, 15_000))]);

    const { etag } = await client.resourceResolve({ uri: `${env.dir}/a.txt` });
    await client.resourceWrite({ uri: `${env.dir}/a.txt`, data: 'two\n', encoding: 'utf-8', ifMatch: etag });
    let conflict = null;
    try {
      await client.resourceWrite({ uri: `${env.dir}/a.txt`, data: 'three\n', encoding: 'utf-8', ifMatch: etag });
    } catch (e) {
      conflict = { rpc: e instanceof RpcError, code: e.code, message: e.message };
    }
    const result = { channel, root: watch.state.root, batches, conflict };
    client.close();
    return result;
  }, env);

  assert.match(r.channel, /^ahp-resource-watch:/);
  assert.equal(r.root, env.dir, 'the watch state names what it watches');
  const changes = r.batches.flat();
  assert.ok(r.batches.every((b) => b.length > 0), 'never an empty batch');
  assert.ok(changes.some((c) => c.uri === `${env.dir}/b.txt` && ['added', 'updated'].includes(c.type)), JSON.stringify(r.batches));
  assert.deepEqual(r.conflict && { rpc: r.conflict.rpc, code: r.conflict.code }, { rpc: true, code: -32011 }, JSON.stringify(r.conflict));
  assert.match(r.conflict.message, /ifMatch/);
  assert.equal(readFileSync(join(dir, 'a.txt'), 'utf8'), 'two\n', 'the write on the current etag landed; the stale one did not');
  assert.deepEqual(errors, []);
});
