// `TerminalHandle` and `ChangesetHandle` on an AHP 1.0 connection (`ahp-wasm`) against a
// scripted 1.0 host: the terminal's output stream, a session claim naming its chat, and the exit
// as 1.0 reports it (`lifecycle: { status: 'exited', exitCode }`); a session's changeset found in
// its catalogue, waited for through 1.0's `recomputing`, and an operation invoked.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AhpClient } from 'ahp-wasm';
import { ScriptedPeer, settle } from './scripted-peer.mjs';

const TERMINAL = 'ahp-terminal:/t1';
const SESSION = 'ahp-session:/s1';
const CHANGESET = 'ahp-changeset:/s1/all';

function peer1(states, handlers = {}) {
  return new ScriptedPeer({ version: '1.0.0', handlers, states: { 'ahp-root://': { agents: [] }, ...states } });
}

const connect = (peer) => AhpClient.connect('ws://peer.test/ahp', { transport: peer.factory, clientId: 'me', keepaliveMs: 0 });

/** Echoes the client's last dispatch to `channel` as the host accepting it. */
function echoLast(peer, channel) {
  const sent = peer.sent('dispatchAction').filter((m) => m.params.channel === channel).at(-1);
  peer.act(channel, sent.params.action, { origin: { clientId: 'me', clientSeq: sent.params.clientSeq } });
  return sent.params.action;
}

test('1.0 terminal: output stream, a session claim with its chat, the exit from lifecycle', async (t) => {
  const peer = peer1({
    [TERMINAL]: {
      title: 'bash',
      content: [{ type: 'unclassified', value: '$ ' }],
      claim: { kind: 'client', clientId: 'me' },
      lifecycle: { status: 'running' },
    },
  });
  const client = await connect(peer);
  t.after(() => client.close());
  const term = await client.terminal(TERMINAL);
  assert.equal(term.text, '$ ');
  assert.equal(term.isClaimant, true);
  assert.equal(term.exitCode, undefined);
  const data = [];
  term.onData((text, { reset }) => data.push([text, reset]));

  term.write('ls\r');
  const [input] = peer.sent('dispatchAction').map((m) => m.params.action);
  assert.deepEqual(input, { type: 'terminal/input', data: 'ls\r' });
  peer.act(TERMINAL, { type: 'terminal/data', data: 'ls\r\nfile\r\n' });
  await settle();
  assert.deepEqual(data, [['ls\r\nfile\r\n', false]]);

  // A 1.0 session claim names the chat: the claim settles only when the confirmed one matches.
  const claim = { kind: 'session', session: SESSION, chat: 'ahp-chat:/c1', turnId: 'turn-1', toolCallId: 'tc-1' };
  let claimed = false;
  const claiming = term.claim(claim).then(() => (claimed = true));
  echoLast(peer, TERMINAL);
  await claiming;
  assert.equal(claimed, true);
  assert.deepEqual(term.holder, claim);

  // The exit: 1.0 reports it in `lifecycle`.
  peer.act(TERMINAL, { type: 'terminal/exited', exitCode: 3 });
  assert.equal(await term.exited, 3);
  assert.equal(term.exitCode, 3);
  term.close();
  assert.deepEqual(peer.sent('unsubscribe').map((m) => m.params.channel), [TERMINAL]);
  client.close();
});

test('1.0 terminal: an exit without a code still resolves `exited`', async (t) => {
  const peer = peer1({ [TERMINAL]: { title: 'bash', content: [], claim: { kind: 'client', clientId: 'me' }, lifecycle: { status: 'running' } } });
  const client = await connect(peer);
  t.after(() => client.close());
  const term = await client.terminal(TERMINAL);
  let exited = false;
  term.exited.then(() => (exited = true));
  peer.act(TERMINAL, { type: 'terminal/exited' });
  await settle(5);
  assert.equal(exited, true);
  assert.equal(term.exitCode, undefined);
  client.close();
});

test('1.0 changeset: found in the session catalogue, ready after recomputing, an operation invoked', async (t) => {
  const file = 'file:///w/a.txt';
  const peer = peer1(
    {
      [SESSION]: {
        provider: 'test',
        title: 'Session',
        status: 1,
        lifecycle: 'ready',
        activeClients: [],
        chats: [],
        changesets: [{ label: 'All', uriTemplate: 'ahp-changeset:/s1/{turn}', changeKind: 'turn' }, { label: 'All', uriTemplate: CHANGESET, changeKind: 'session' }],
      },
      [CHANGESET]: {
        status: 'recomputing',
        files: [{ id: file, edit: { diff: { added: 2, removed: 1 } } }],
        operations: [{ id: 'revert', label: 'Revert', scopes: ['changeset', 'resource'], status: 'idle' }],
      },
    },
    { invokeChangesetOperation: () => ({}) },
  );
  const client = await connect(peer);
  t.after(() => client.close());
  const changes = await client.sessionChangeset(SESSION);
  assert.equal(changes.uri, CHANGESET);
  assert.equal(changes.status, 'recomputing');
  let ready = false;
  const waiting = changes.ready().then(() => (ready = true));
  await settle(5);
  assert.equal(ready, false, 'recomputing is not ready');
  peer.act(CHANGESET, { type: 'changeset/statusChanged', status: 'ready' });
  await waiting;
  assert.equal(changes.file(file).edit.diff.added, 2);
  await changes.invoke('revert', file);
  const [invoke] = peer.sent('invokeChangesetOperation');
  assert.deepEqual(invoke.params, { channel: CHANGESET, operationId: 'revert', target: { kind: 'resource', resource: file } });
  await assert.rejects(changes.invoke('nosuch'), /offers no operation/);
  changes.close();
  client.close();
});
