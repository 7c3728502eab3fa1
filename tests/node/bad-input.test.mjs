// Bad input for every command, through the SDK in Node, against the real host: each gets a
// clear, typed error, the connections survive, and nothing changed (the files inside the
// sandbox and in a directory outside it, the host's sessions and terminals). The table is
// tests/node/bad-input-table.mjs; tests/browser/bad-input.test.mjs runs it in headless Chromium.
// Bad frames from a host (tests/node/bad-frames-table.mjs, shared with the 1.0 entry's
// tests/node/bad-input-v1.test.mjs) run against a scripted peer.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh and
// `cargo build -p ahp-host`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import * as ahp from 'ahp-wasm/v0.3';
import { startHost } from './host.mjs';
import { hostFacts, prepareBadInput, runBadInputTable } from './bad-input-table.mjs';
import { badInputDirs, treeOf } from './bad-input-dirs.mjs';
import { runBadFrames } from './bad-frames-table.mjs';
import { ScriptedPeer, SESSION, settle } from './scripted-peer.mjs';

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

/** The 0.3.0 session channel's profile for the shared frames table. */
const delta = (content) => ({ type: 'session/delta', turnId: 't3', partId: 'p1', content });
const sessionProfile = {
  channel: SESSION,
  prefix: 'session',
  delta,
  content: (state) => state.activeTurn.responseParts[0].content,
  reduce: (state, action) => ahp.sessionReducer(state, action),
  wrongTypes: [
    { ...delta('x'), content: 42 },
    { ...delta('x'), turnId: ['t3'] },
    { type: 'session/titleChanged', title: 7 },
    { type: 'session/responsePart', turnId: 't3', part: 'markdown' },
  ],
  unknownEnums: [
    { type: 'session/pendingMessageSet', kind: 'hologram', id: 'pm-1', message: { text: 'x', origin: { kind: 'user' } } },
    { type: 'session/delta', turnId: 'no-such-turn', partId: 'p1', content: 'lost' },
  ],
};

test('bad frames from the host are reported or no-ops; the session mirror keeps working', async () => {
  const peer = new ScriptedPeer();
  const client = await ahp.AhpClient.connect('ws://peer.test/ahp', { transport: peer.factory, clientId: 'me', keepaliveMs: 0 });
  const sub = await client.subscribe(SESSION);
  const rows = await runBadFrames(sessionProfile, { peer, client, sub, settle });
  const failed = rows.filter((r) => !r.ok).map((r) => `${r.name}: ${r.got}`);
  assert.deepEqual(failed, []);
  assert.ok(rows.length >= 20, `the table ran (${rows.length} rows)`);
  client.close();
});
