// InMemoryTransport.pair(): the client end in ConnectOptions.transport, a tiny server on the
// other end answering initialize/subscribe and echoing dispatched actions; a server-side close
// makes the client reconnect through the same pair.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AhpClient, InMemoryTransport } from 'ahp-wasm/v0.3';

const SESSION = 'ahp-session:/mem';
const sessionState = {
  summary: { resource: SESSION, provider: 'p', title: 'first', status: 1, createdAt: 0, modifiedAt: 0 },
  lifecycle: 'ready',
  turns: [],
};

/** A server on the pair's server end; returns what it received. */
function serve(server) {
  const received = [];
  let serverSeq = 0;
  const reply = (id, result) => server.send(JSON.stringify({ jsonrpc: '2.0', id, result }));
  server.onMessage((frame) => {
    const msg = JSON.parse(frame);
    received.push(msg);
    const snapshot = (c) => ({ resource: c, fromSeq: serverSeq, state: c === SESSION ? sessionState : { agents: [] } });
    if (msg.method === 'initialize') reply(msg.id, { protocolVersion: '0.3.0', serverSeq, snapshots: msg.params.initialSubscriptions.map(snapshot) });
    else if (msg.method === 'reconnect') reply(msg.id, { type: 'snapshot', snapshots: msg.params.subscriptions.map(snapshot) });
    else if (msg.method === 'subscribe') reply(msg.id, { snapshot: snapshot(msg.params.channel) });
    else if (msg.method === 'dispatchAction') {
      serverSeq += 1;
      const { channel, clientSeq, action } = msg.params;
      server.send(JSON.stringify({ jsonrpc: '2.0', method: 'action', params: { channel, serverSeq, action, origin: { clientId: 'me', clientSeq } } }));
    }
  });
  return received;
}

test('InMemoryTransport.pair(): connect, subscribe, dispatch and its echo, reconnect after a server close', async () => {
  const { client: transport, server } = InMemoryTransport.pair();
  const urls = [];
  server.onConnect((url) => urls.push(url));
  const received = serve(server);
  assert.equal(server.connected, false);
  const client = await AhpClient.connect('ws://in-memory.test/ahp', { transport, clientId: 'me', keepaliveMs: 0, reconnect: { initialDelayMs: 5 } });
  assert.equal(server.connected, true);
  assert.deepEqual(urls, ['ws://in-memory.test/ahp']);
  const sub = await client.subscribe(SESSION);
  assert.equal(sub.state.summary.title, 'first');
  const changes = [];
  sub.onChange((state, info) => changes.push([state.summary.title, info.pendingCount]));
  sub.dispatch({ type: 'session/titleChanged', title: 'renamed' });
  assert.equal(sub.state.summary.title, 'renamed');
  while (sub.pendingCount > 0) await new Promise((ok) => setTimeout(ok, 1));
  assert.deepEqual(changes.at(-1), ['renamed', 0]);
  assert.equal(received.filter((m) => m.method === 'dispatchAction').length, 1);

  server.close('server restart');
  while (client.connectionState !== 'connected' || received.filter((m) => m.method === 'reconnect').length === 0) {
    await new Promise((ok) => setTimeout(ok, 2));
  }
  assert.equal(urls.length, 2, 'the client reconnected through the pair');
  client.close();
  await new Promise((ok) => setTimeout(ok, 5));
  assert.equal(server.connected, false);
  assert.throws(() => new InMemoryTransport(), /pair\(\)/);
});
