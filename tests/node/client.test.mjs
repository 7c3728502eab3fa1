// The wasm client classes (AhpClient, Subscription, MultiHostClient) of the built package in
// Node 20: against an in-memory scripted peer (ConnectOptions.transport), then against the real
// `ahp-host` started as a child process over Node's WebSocket.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh and
// `cargo build -p ahp-host`; AHP_HOST_BIN overrides the host binary's path)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ahp from 'ahp-wasm/v0.3';
import { ScriptedPeer, SESSION, settle, sessionState } from './scripted-peer.mjs';
import { startHost } from './host.mjs';

const {
  AhpClient,
  MultiHostClient,
  AhpError,
  InvalidInputError,
  RpcError,
  RpcTimeoutError,
  TransportError,
  ClientClosedError,
  UnsupportedProtocolVersionError,
  NotSubscribedError,
} = ahp;

async function connected(options = {}, peerOptions = {}) {
  const peer = new ScriptedPeer(peerOptions);
  const client = await AhpClient.connect('ws://peer.test/ahp', {
    transport: peer.factory,
    clientId: 'me',
    keepaliveMs: 0,
    ...options,
  });
  return { peer, client };
}

async function subscribed(options, peerOptions) {
  const { peer, client } = await connected(options, peerOptions);
  const sub = await client.subscribe(SESSION);
  return { peer, client, sub };
}

const delta = (content, partId = 'p1') => ({ type: 'session/delta', turnId: 't3', partId, content });
const title = (t) => ({ type: 'session/titleChanged', title: t });

test('handshake: initialize with token, client id, versions; connected state and server info', async () => {
  const peer = new ScriptedPeer();
  const states = [];
  const client = await AhpClient.connect('ws://peer.test/ahp', {
    transport: peer.factory,
    token: 'secret token',
    clientId: 'client-1',
    keepaliveMs: 0,
  });
  client.onConnectionStateChange((s) => states.push(s));
  assert.equal(peer.urls[0], 'ws://peer.test/ahp?tkn=secret%20token');
  assert.equal(client.url, 'ws://peer.test/ahp');
  const [init] = peer.sent('initialize');
  assert.equal(init.params.clientId, 'client-1');
  assert.deepEqual(init.params.protocolVersions, ahp.SUPPORTED_PROTOCOL_VERSIONS);
  assert.deepEqual(init.params.initialSubscriptions, ['ahp-root://']);
  assert.equal(client.clientId, 'client-1');
  assert.equal(client.connectionState, 'connected');
  assert.equal(client.serverInfo.protocolVersion, '0.3.0');
  assert.equal(client.serverInfo.serverSeq, 10);
  // The root channel from initialize is live without another subscribe round trip.
  const root = await client.subscribe('ahp-root://');
  assert.equal(peer.sent('subscribe').length, 0);
  assert.deepEqual(root.state, { agents: [] });
  assert.equal(client.subscription('ahp-root://'), root);
  assert.equal(await client.subscribe('ahp-root://'), root, 'the same Subscription object');
  await client.ping();
  client.close();
  assert.equal(client.connectionState, 'closed');
  assert.deepEqual(states, ['closed']);
  assert.equal(peer.closedByClient, 1);
});

test('a generated client id is random and stable', async () => {
  const a = await connected({ clientId: undefined });
  const b = await connected({ clientId: undefined });
  assert.match(a.client.clientId, /^ahp-[0-9a-f]{32}$/);
  assert.notEqual(a.client.clientId, b.client.clientId);
  assert.equal(a.peer.sent('initialize')[0].params.clientId, a.client.clientId);
  a.client.close();
  b.client.close();
});

test('version mismatch rejects connect with UnsupportedProtocolVersionError', async () => {
  const peer = new ScriptedPeer({ version: '9.9.9' });
  await assert.rejects(
    AhpClient.connect('ws://peer.test/ahp', { transport: peer.factory, keepaliveMs: 0 }),
    (e) => {
      assert.ok(e instanceof UnsupportedProtocolVersionError);
      assert.ok(e instanceof AhpError && e instanceof Error);
      assert.equal(e.kind, 'unsupportedProtocolVersion');
      assert.equal(e.code, -32005);
      assert.deepEqual(e.offered, ahp.SUPPORTED_PROTOCOL_VERSIONS);
      assert.deepEqual(e.supported, ['9.9.9']);
      return true;
    },
  );
  assert.equal(peer.closedByClient, 1, 'the connection is closed');
});

test('a transport factory that throws, or a connection that closes first: TransportError', async () => {
  await assert.rejects(
    AhpClient.connect('ws://x/ahp', { transport: () => { throw new Error('boom'); } }),
    (e) => e instanceof TransportError && e.transportKind === 'connect' && /boom/.test(e.message),
  );
  await assert.rejects(
    AhpClient.connect('ws://x/ahp', {
      transport: (url, cb) => {
        queueMicrotask(() => cb.close('refused'));
        return { send() {}, close() {} };
      },
    }),
    (e) => e instanceof TransportError && e.transportKind === 'connect' && /refused/.test(e.message),
  );
});

test('a connection that never opens fails after the request timeout', async () => {
  let closed = 0;
  await assert.rejects(
    AhpClient.connect('ws://x/ahp', {
      requestTimeoutMs: 40,
      transport: () => ({ send() {}, close() { closed += 1; } }),
    }),
    (e) => e instanceof TransportError && e.transportKind === 'connect' && /timed out/.test(e.message),
  );
  assert.equal(closed, 1);
});

test('request timeout: RpcTimeoutError with the method', async () => {
  const { client } = await connected({ requestTimeoutMs: 40 }, { handlers: { listSessions: () => undefined } });
  const started = Date.now();
  await assert.rejects(client.listSessions(), (e) => {
    assert.ok(e instanceof RpcTimeoutError);
    assert.equal(e.kind, 'timeout');
    assert.equal(e.method, 'listSessions');
    assert.equal(e.timeoutMs, 40);
    assert.match(e.message, /`listSessions` got no response within 40 ms \(requestTimeoutMs\)/);
    return true;
  });
  assert.ok(Date.now() - started >= 35);
  await client.ping(); // the connection is fine
  client.close();
});

test('serverInfo carries the handshake facts, telemetry channels included', async () => {
  const telemetry = { logs: 'ahp-otlp:/logs{?level}', traces: 'ahp-otlp:/traces' };
  const { client } = await connected({}, {
    handlers: {
      initialize: () => ({
        result: { protocolVersion: '0.3.0', serverSeq: 3, snapshots: [], defaultDirectory: 'file:///w', completionTriggerCharacters: ['@'], telemetry },
      }),
    },
  });
  assert.deepEqual(client.serverInfo, {
    protocolVersion: '0.3.0', serverSeq: 3, defaultDirectory: 'file:///w', completionTriggerCharacters: ['@'], telemetry,
  });
  client.close();
});

test('notify(): sent at once when connected; refused for the SDK-managed ones, offline and after close', async () => {
  const { peer, client } = await connected();
  client.notify('x/custom', { n: 1 });
  client.notify('x/empty');
  assert.deepEqual(peer.sent('x/custom').map((m) => [m.params, m.id]), [[{ n: 1 }, undefined]]);
  assert.deepEqual(peer.sent('x/empty').map((m) => m.params), [{}]);
  for (const method of ['dispatchAction', 'unsubscribe']) {
    assert.throws(() => client.notify(method, {}), (e) => e instanceof TransportError && /dispatch\(\) or unsubscribe\(\)/.test(e.message));
  }
  assert.throws(() => client.notify(42, {}), (e) => e instanceof InvalidInputError);
  assert.throws(() => client.notify('x/big', { n: 10n }), (e) => e instanceof InvalidInputError);
  client.close();
  assert.throws(() => client.notify('x/custom', {}), (e) => e instanceof ClientClosedError);
});

test("notifications: the protocol's are 'notification' events, others 'otherNotification'", async () => {
  const { peer, client } = await connected();
  const events = [];
  client.onEvent((e) => {
    if (e.type === 'notification' || e.type === 'otherNotification') events.push(e);
  });
  peer.push({ method: 'auth/required', params: { channel: 'ahp-root://', resource: 'https://api.test', reason: 'expired' } });
  peer.push({ method: 'otlp/exportLogs', params: { channel: 'ahp-otlp:/logs', resourceLogs: [] } });
  peer.push({ method: 'notifications/message', params: { channel: 'mcp://s/1', level: 'info', data: 'x' } });
  await settle();
  assert.deepEqual(
    events.map((e) => [e.type, e.method, e.params.channel]),
    [
      ['notification', 'auth/required', 'ahp-root://'],
      ['notification', 'otlp/exportLogs', 'ahp-otlp:/logs'],
      ['otherNotification', 'notifications/message', 'mcp://s/1'],
    ],
  );
  assert.equal(events[0].params.reason, 'expired');
  client.close();
});

test("McpChannel.onNotification: the host's forwarded MCP notifications of its channel only", async () => {
  const mcp = { id: 'mcp/basic', uri: 'file:///plugin.json', name: 'basic', type: 'mcpServer', enabled: true, state: { kind: 'ready' }, channel: 'mcp://basic/1' };
  const { peer, client } = await connected({}, { states: { [SESSION]: { ...sessionState(), customizations: [mcp] } } });
  const channel = await ahp.McpChannel.open(client, SESSION, 'mcp/basic');
  assert.equal(channel.uri, 'mcp://basic/1');
  const got = [];
  const stop = channel.onNotification((method, params) => got.push([method, params]));
  peer.push({ method: 'notifications/tools/list_changed', params: { channel: 'mcp://basic/1' } });
  peer.push({ method: 'notifications/message', params: { channel: 'mcp://other/1', level: 'info', data: 'not ours' } });
  peer.push({ method: 'notifications/message', params: { channel: 'mcp://basic/1', level: 'info', data: 'ours' } });
  await settle();
  assert.deepEqual(got, [
    ['notifications/tools/list_changed', {}],
    ['notifications/message', { level: 'info', data: 'ours' }],
  ]);
  stop();
  peer.push({ method: 'notifications/message', params: { channel: 'mcp://basic/1', data: 'after stop' } });
  await settle();
  assert.equal(got.length, 2);
  client.close();
});

test('RpcError carries code, message, data and method; typed results resolve', async () => {
  const { client } = await connected({}, {
    handlers: {
      listSessions: () => ({ result: { items: [] } }),
      fetchTurns: () => ({ error: { code: -32001, message: 'no such session', data: { id: 's9' } } }),
      createSession: () => ({ result: {} }),
    },
  });
  assert.deepEqual(await client.listSessions(), { items: [] });
  assert.equal(await client.createSession({ channel: 'ahp-session:/new' }), undefined);
  await assert.rejects(client.fetchTurns({ channel: 'ahp-session:/s9' }), (e) => {
    assert.ok(e instanceof RpcError && e instanceof AhpError);
    assert.equal(e.kind, 'rpc');
    assert.equal(e.code, -32001);
    assert.deepEqual(e.data, { id: 's9' });
    assert.equal(e.method, 'fetchTurns');
    assert.match(e.message, /no such session/);
    return true;
  });
  client.close();
});

test('an unusable subscribe answer is an InvalidResponseError', async () => {
  const { client } = await connected({}, { handlers: { subscribe: () => ({ result: { snapshot: { resource: SESSION, state: { nope: 1 }, fromSeq: 1 } } }) } });
  await assert.rejects(client.subscribe(SESSION), (e) => e instanceof ahp.InvalidResponseError && e.method === 'subscribe');
  assert.equal(client.connectionState, 'connected');
  client.close();
});

test('server requests: a registered handler answers, unknown methods get -32601', async () => {
  const { peer, client } = await connected();
  client.setRequestHandler('resourceRequest', async (params) => {
    await settle(1);
    return { granted: params.uris?.length ?? 0 };
  });
  client.setRequestHandler('failing', () => {
    throw Object.assign(new Error('not allowed'), { code: -32004 });
  });
  peer.push({ id: 'r1', method: 'resourceRequest', params: { uris: ['file:///a'] } });
  peer.push({ id: 'r2', method: 'noSuchMethod', params: {} });
  peer.push({ id: 'r3', method: 'failing', params: {} });
  await settle(20);
  const answer = (id) => peer.received.find((m) => m.id === id && m.method === undefined);
  assert.deepEqual(answer('r1').result, { granted: 1 });
  assert.equal(answer('r2').error.code, -32601);
  assert.equal(answer('r3').error.code, -32004);
  assert.match(answer('r3').error.message, /not allowed/);
  client.close();
});

test('malformed frames are reported and skipped; the connection stays up', async () => {
  const { peer, client, sub } = await subscribed();
  const malformed = [];
  client.onEvent((e) => e.type === 'malformed' && malformed.push(e));
  peer.push('this is not json');
  peer.push({ method: 'action', params: { channel: SESSION } });
  peer.push({ id: 999, result: {} });
  peer.act(SESSION, delta('ok'));
  await settle();
  assert.equal(malformed.length, 3);
  assert.equal(malformed[0].frame, 'this is not json');
  assert.equal(sub.state.activeTurn.responseParts[0].content, 'ok');
  assert.equal(client.connectionState, 'connected');
  await client.ping();
  client.close();
});

test('frames of any script and size reach the mirror intact (buffer path, string fallback, re-entrant frames)', async () => {
  const { peer, client, sub } = await subscribed({}, { sync: true });
  const malformed = [];
  client.onEvent((e) => e.type === 'malformed' && malformed.push(e));
  let expected = '';
  const send = (text) => {
    expected += text; // first: the peer is synchronous, a listener may send more from inside act
    peer.act(SESSION, delta(text));
  };
  send('ascii ');
  // Every short length, all ASCII or with a non-ASCII character at either end (the render
  // reads up to eight ASCII bytes itself, the rest with TextDecoder), and an empty delta.
  send('');
  for (let n = 1; n <= 10; n++) {
    send('abcdefghij'.slice(0, n));
    send(`${'k'.repeat(n - 1)}\u00e9`);
    send(`\u65e5${'m'.repeat(n - 1)}`);
  }
  send('h\u00e9llo, \u65e5\u672c\u8a9e, \u{1F642} ');
  send('\u65e5'.repeat(50_000)); // 150 KB of UTF-8 from 50,000 UTF-16 units: the buffer grows
  send('x'.repeat(300_000)); // beyond the reusable buffer: passed as a string
  send('\u{1F642}'.repeat(100_000)); // 400 KB of UTF-8: the string path again
  send('after ');
  // A lone surrogate in the frame text (not JSON-escaped) becomes U+FFFD, as TextEncoder does.
  const frame = JSON.stringify({ jsonrpc: '2.0', ...peer.envelope(SESSION, delta('@')) }).replace('@', 'a\ud800b');
  peer.push(frame);
  expected += 'a\ufffdb';
  // Frames pushed from inside a listener arrive while the SDK is busy: queued, then applied in order.
  let nested = 0;
  const remove = sub.onChange(() => {
    if (nested++ === 0) {
      send('nested-1 ');
      send('nested-2 ');
    }
  });
  send('outer ');
  remove();
  await settle();
  assert.deepEqual(malformed, []);
  const content = sub.state.activeTurn.responseParts[0].content;
  assert.equal(content.length, expected.length);
  let diverge = 0;
  while (diverge < content.length && content[diverge] === expected[diverge]) diverge++;
  assert.equal(diverge, content.length, `content diverges at ${diverge}: ${JSON.stringify(content.slice(diverge - 20, diverge + 20))} vs ${JSON.stringify(expected.slice(diverge - 20, diverge + 20))}`);
  assert.ok(content.endsWith('outer nested-1 nested-2 '));
  client.close();
});

test('optimistic dispatch: applied at once; own echo confirms; rejection reverts; foreign actions replay pending', async () => {
  const { peer, client, sub } = await subscribed();
  const changes = [];
  const events = [];
  sub.onChange((state, info) => changes.push({ state, info }));
  client.onEvent((e) => events.push(e));

  const seq1 = sub.dispatch(title('Mine'));
  assert.equal(sub.state.summary.title, 'Mine', 'applied locally at once');
  assert.equal(sub.confirmedState.summary.title, 'Start');
  assert.equal(sub.pendingCount, 1);
  assert.equal(changes.length, 1);
  const sent = await peer.next('dispatchAction');
  assert.deepEqual(sent.params, { channel: SESSION, clientSeq: seq1, action: title('Mine') });

  peer.act(SESSION, title('Mine'), { origin: { clientId: 'me', clientSeq: seq1 } });
  await settle();
  assert.equal(sub.pendingCount, 0);
  assert.equal(sub.confirmedState.summary.title, 'Mine');

  const seq2 = client.dispatch(SESSION, title('Bad'));
  assert.equal(sub.state.summary.title, 'Bad');
  peer.act(SESSION, title('Bad'), { origin: { clientId: 'me', clientSeq: seq2 }, rejectionReason: 'titles are frozen' });
  await settle();
  assert.equal(sub.state.summary.title, 'Mine', 'the rejected action is reverted');
  assert.equal(sub.pendingCount, 0);
  const last = changes.at(-1).info;
  assert.deepEqual(last.rejections.map((r) => [r.clientSeq, r.reason, r.action.title]), [[seq2, 'titles are frozen', 'Bad']]);
  const rejected = events.find((e) => e.type === 'rejected');
  assert.equal(rejected.channel, SESSION);
  assert.equal(rejected.rejection.reason, 'titles are frozen');

  const seq3 = sub.dispatch(title('Pending'));
  const beforeForeign = sub.state;
  peer.act(SESSION, delta('foreign '));
  await settle();
  assert.equal(sub.state.summary.title, 'Pending', 'pending replayed over the foreign action');
  assert.equal(sub.state.activeTurn.responseParts[0].content, 'foreign ');
  // The pending rename does not touch the active turn: the delta is still a fine update.
  assert.equal(sub.state.turns, beforeForeign.turns);
  assert.equal(sub.state.activeTurn.message, beforeForeign.activeTurn.message);
  assert.equal(sub.state.activeTurn.responseParts[1], beforeForeign.activeTurn.responseParts[1]);
  assert.equal(sub.confirmedState.summary.title, 'Mine');
  assert.equal(sub.confirmedState.activeTurn.responseParts[0].content, 'foreign ');
  assert.equal(sub.pendingCount, 1);
  peer.act(SESSION, title('Pending'), { origin: { clientId: 'me', clientSeq: seq3 } });
  await settle();
  assert.equal(sub.pendingCount, 0);
  assert.deepEqual(sub.state, sub.confirmedState);
  client.close();
});

test('one onChange per incoming batch, after reconciliation', async () => {
  const { peer, client, sub } = await subscribed();
  const calls = [];
  sub.onChange((state, info) => calls.push({ content: state.activeTurn.responseParts[0].content, info }));
  peer.pushBatch([peer.envelope(SESSION, delta('a')), peer.envelope(SESSION, delta('b')), peer.envelope(SESSION, title('T2'))]);
  await settle();
  assert.equal(calls.length, 1);
  assert.equal(calls[0].content, 'ab');
  assert.deepEqual([...calls[0].info.changed].sort(), ['activeTurn', 'summary']);
  assert.equal(calls[0].info.pendingCount, 0);
  peer.act(SESSION, delta('c'));
  await settle();
  assert.equal(calls.length, 2);
  client.close();
});

test('listeners may call back into the SDK (dispatch, read state, subscribe, unsubscribe a listener)', async () => {
  const { peer, client, sub } = await subscribed({}, { sync: true });
  const seen = [];
  let removeSelf;
  let nested;
  removeSelf = sub.onChange((state) => {
    seen.push(state.summary.title);
    if (seen.length === 1) {
      const seq = sub.dispatch(title('from listener'));
      assert.ok(seq > 0);
      assert.equal(sub.state.summary.title, 'from listener', 'state is current inside the listener');
      nested = client.subscribe('ahp-root://');
    }
  });
  const other = [];
  sub.onChange((state) => other.push(state.summary.title));
  peer.act(SESSION, title('server'));
  await settle();
  assert.deepEqual(seen, ['server', 'from listener']);
  assert.deepEqual(other, ['server', 'from listener'], 'every listener sees every change, in order');
  assert.ok((await nested).uri === 'ahp-root://');
  removeSelf();
  removeSelf();
  peer.act(SESSION, delta('x'));
  await settle();
  assert.equal(seen.length, 2);
  assert.equal(other.length, 3);
  // A listener that throws does not break delivery.
  const orig = console.error;
  console.error = () => {};
  sub.onChange(() => {
    throw new Error('listener bug');
  });
  peer.act(SESSION, delta('y'));
  await settle();
  console.error = orig;
  assert.equal(other.length, 4);
  client.close();
});

test('structural sharing: unchanged parts keep their identity; everything is frozen', async () => {
  const { peer, client, sub } = await subscribed();
  const s0 = sub.state;
  assert.ok(Object.isFrozen(s0) && Object.isFrozen(s0.turns[0]) && Object.isFrozen(s0.activeTurn.responseParts[1]));
  assert.equal(sub.state, s0, 'reading twice gives the same object');
  peer.act(SESSION, delta('Hello'));
  await settle();
  const s1 = sub.state;
  assert.notEqual(s1, s0);
  assert.equal(s1.activeTurn.responseParts[0].content, 'Hello');
  assert.equal(s0.activeTurn.responseParts[0].content, '', 'the old state is untouched');
  assert.equal(s1.turns, s0.turns);
  assert.equal(s1.turns[1], s0.turns[1]);
  assert.equal(s1.summary, s0.summary);
  assert.equal(s1.activeTurn.responseParts[1], s0.activeTurn.responseParts[1]);
  assert.equal(s1.activeTurn.message, s0.activeTurn.message);
  assert.ok(Object.isFrozen(s1) && Object.isFrozen(s1.activeTurn) && Object.isFrozen(s1.activeTurn.responseParts[0]));
  peer.act(SESSION, title('New'));
  await settle();
  const s2 = sub.state;
  assert.equal(s2.activeTurn, s1.activeTurn);
  assert.equal(s2.turns, s1.turns);
  assert.notEqual(s2.summary, s1.summary);
  // The turn completes: earlier turns keep their identity in the grown list.
  peer.act(SESSION, { type: 'session/turnComplete', turnId: 't3' });
  await settle();
  const s3 = sub.state;
  assert.equal(s3.activeTurn, undefined);
  assert.equal(s3.turns.length, 3);
  assert.equal(s3.turns[0], s0.turns[0]);
  assert.equal(s3.turns[2].responseParts[0].content, 'Hello');
  assert.ok(Object.isFrozen(s3.turns[2].responseParts[0]));
  assert.throws(() => {
    'use strict';
    s3.summary.title = 'x';
  }, TypeError);
  client.close();
});

test('wrong argument types throw InvalidInputError (never a string, never a trap)', async () => {
  const { client, sub } = await subscribed();
  const invalid = (argument, path) => (e) => {
    assert.ok(e instanceof InvalidInputError, `${e}`);
    assert.equal(e.argument, argument);
    if (path !== undefined) assert.equal(e.path, path);
    return true;
  };
  assert.throws(() => client.dispatch(42, title('x')), invalid('uri'));
  assert.throws(() => sub.dispatch({ type: 'session/titleChanged', title: 7 }), invalid('action', 'title'));
  assert.throws(() => sub.dispatch('nope'), invalid('action'));
  assert.throws(() => sub.onChange('not a function'), invalid('listener'));
  assert.throws(() => client.onEvent(null), invalid('listener'));
  await assert.rejects(client.subscribe(5), invalid('uri'));
  await assert.rejects(client.fetchTurns({ channel: 3 }), (e) => invalid('params', 'channel')(e) && /channel.*3/.test(e.message));
  await assert.rejects(client.fetchTurns({}), (e) => invalid('params')(e) && /missing property `channel`/.test(e.message));
  await assert.rejects(client.createSession('x'), invalid('params'));
  await assert.rejects(AhpClient.connect(1), invalid('url'));
  await assert.rejects(AhpClient.connect('ws://x', { requestTimeoutMs: 'soon' }), invalid('options', 'requestTimeoutMs'));
  await assert.rejects(AhpClient.connect('ws://x', { reconnect: 3 }), invalid('options', 'reconnect'));
  await assert.rejects(AhpClient.connect('ws://x', { transport: {} }), invalid('options', 'transport'));
  assert.throws(() => client.dispatch('ahp-session:/unknown', title('x')), (e) => e instanceof NotSubscribedError && e.channel === 'ahp-session:/unknown');
  // Still usable.
  assert.equal(typeof sub.dispatch(title('fine')), 'number');
  client.close();
});

test('close: outstanding requests reject with ClientClosedError; later calls too', async () => {
  const { client, sub } = await subscribed({}, { handlers: { listSessions: () => undefined } });
  const pending = client.listSessions();
  const before = sub.state;
  client.close();
  assert.equal(sub.state, before, 'the last state stays readable');
  await assert.rejects(pending, (e) => e instanceof ClientClosedError && e.kind === 'closed');
  await assert.rejects(client.ping(), ClientClosedError);
  assert.throws(() => sub.dispatch(title('x')), ClientClosedError);
  assert.equal(sub.active, false);
  assert.equal(client.connectionState, 'closed');
});

test('reconnect after a drop: state events, re-handshake with reconnect, mirror refreshed', async () => {
  const { peer, client, sub } = await subscribed({ reconnect: { initialDelayMs: 5, maxDelayMs: 20 } });
  const states = [];
  client.onConnectionStateChange((s) => states.push(s));
  peer.drop();
  await settle(1);
  assert.equal(client.connectionState, 'reconnecting');
  peer.states[SESSION] = { ...peer.states[SESSION], summary: { ...peer.states[SESSION].summary, title: 'While away' } };
  while (client.connectionState !== 'connected') await settle(5);
  assert.equal(peer.connections, 2);
  assert.equal(peer.sent('reconnect').length, 1);
  assert.deepEqual(peer.sent('reconnect')[0].params.subscriptions.sort(), ['ahp-root://', SESSION].sort());
  assert.equal(sub.state.summary.title, 'While away');
  assert.deepEqual(states, ['reconnecting', 'connected']);
  client.close();
});

test('unsubscribe: the subscription ends, its pending actions are reported dropped', async () => {
  const { peer, client, sub } = await subscribed();
  const dropped = [];
  client.onEvent((e) => e.type === 'pendingDropped' && dropped.push(e));
  const before = sub.state.summary.title;
  const seq = sub.dispatch(title('never echoed'));
  assert.equal(sub.state.summary.title, 'never echoed');
  sub.unsubscribe();
  assert.equal(sub.active, false);
  // An ended subscription keeps its last state, without the dropped pending action.
  assert.equal(sub.state.summary.title, before);
  assert.equal(sub.confirmedState.summary.title, before);
  assert.ok(Object.isFrozen(sub.state));
  assert.equal(sub.pendingCount, 0);
  assert.equal(client.subscription(SESSION), undefined);
  assert.throws(() => sub.dispatch(title('x')), NotSubscribedError);
  await settle();
  assert.deepEqual(peer.sent('unsubscribe').map((m) => m.params.channel), [SESSION]);
  assert.deepEqual(dropped.map((e) => [e.channel, e.reason, e.actions.map((a) => a.clientSeq)]), [[SESSION, 'unsubscribed', [seq]]]);
  const again = await client.subscribe(SESSION);
  assert.notEqual(again, sub, 'a new subscription object');
  assert.equal(again.active, true);
  assert.equal(sub.active, false);
  again.dispatch(title('on the new one'));
  assert.equal(again.state.summary.title, 'on the new one');
  assert.equal(sub.state.summary.title, before, 'the ended one keeps its own last state');
  client.close();
});

test('AhpClient and Subscription: no public constructors; console.log shows what they are', async () => {
  for (const [Class, hint] of [[AhpClient, /AhpClient\.connect/], [ahp.Subscription, /client\.subscribe/]]) {
    assert.throws(() => new Class(), (e) => e instanceof AhpError && e.kind === 'usage' && hint.test(e.message));
  }
  const { client, sub } = await subscribed();
  const { inspect } = await import('node:util');
  assert.equal(inspect(client, { breakLength: Infinity }), `AhpClient { url: 'ws://peer.test/ahp', clientId: 'me', connectionState: 'connected' }`);
  assert.equal(inspect(sub, { breakLength: Infinity }), `Subscription { uri: '${SESSION}', active: true, pendingCount: 0 }`);
  client.close();
});

test('keep-alive: an unanswered ping drops the connection and the client reconnects', async () => {
  let answerPings = false;
  const { peer, client } = await connected(
    { keepaliveMs: 30, requestTimeoutMs: 40, reconnect: { initialDelayMs: 5 } },
    { handlers: { ping: () => (answerPings ? { result: {} } : undefined) } },
  );
  const states = [];
  client.onConnectionStateChange((s) => states.push(s));
  while (!states.includes('reconnecting')) await settle(5);
  answerPings = true;
  while (client.connectionState !== 'connected') await settle(5);
  assert.ok(peer.sent('ping').length >= 1);
  assert.equal(peer.connections, 2);
  client.close();
});

test('reconnect backoff gives up after maxAttempts: reconnectFailed events, then closed', async () => {
  const peer = new ScriptedPeer({ handlers: { listSessions: () => undefined } });
  let refuse = false;
  const transport = (url, callbacks) => {
    if (refuse) throw new Error('host unreachable');
    return peer.factory(url, callbacks);
  };
  const client = await AhpClient.connect('ws://peer.test/ahp', {
    transport,
    keepaliveMs: 0,
    reconnect: { initialDelayMs: 5, multiplier: 2, maxAttempts: 3 },
  });
  const pending = client.listSessions().catch((e) => e);
  const failures = [];
  const states = [];
  client.onEvent((e) => e.type === 'reconnectFailed' && failures.push([e.attempt, e.error instanceof TransportError]));
  client.onConnectionStateChange((s) => states.push(s));
  refuse = true;
  const started = Date.now();
  peer.drop();
  while (client.connectionState !== 'closed') await settle(5);
  assert.ok(Date.now() - started >= 5 + 10 + 20 - 5, 'backoff delays grow');
  assert.deepEqual(failures, [[1, true], [2, true], [3, true]]);
  assert.deepEqual(states, ['reconnecting', 'closed']);
  const lost = await pending;
  assert.ok(lost instanceof TransportError || lost instanceof ClientClosedError, String(lost));
});

test('MultiHostClient: several hosts, events fanned in with the host name', async () => {
  const multi = new MultiHostClient();
  const a = new ScriptedPeer();
  const b = new ScriptedPeer();
  const events = [];
  multi.onEvent((host, e) => events.push([host, e.type]));
  const ca = await multi.addHost('a', 'ws://a/ahp', { transport: a.factory, keepaliveMs: 0 });
  const cb = await multi.addHost('b', 'ws://b/ahp', { transport: b.factory, keepaliveMs: 0 });
  assert.equal(await multi.addHost('a', 'ws://ignored', {}), ca);
  assert.deepEqual(multi.hostNames(), ['a', 'b']);
  assert.equal(multi.host('b'), cb);
  assert.ok(events.some(([h, t]) => h === 'a' && t === 'connected'));
  assert.ok(events.some(([h, t]) => h === 'b' && t === 'connected'));
  b.push({ method: 'root/sessionAdded', params: { channel: 'ahp-root://', summary: { resource: 'ahp-session:/n', provider: 'p', title: 'n', status: 1, createdAt: 1, modifiedAt: 1 } } });
  await settle();
  assert.ok(events.some(([h, t]) => h === 'b' && t === 'notification'));
  multi.removeHost('a');
  assert.equal(ca.connectionState, 'closed');
  assert.deepEqual(multi.hostNames(), ['b']);
  multi.close();
  assert.equal(cb.connectionState, 'closed');
});

test('MultiHostClient: client ids kept in a store, agents and sessions of every host', async () => {
  const agent = { provider: 'copilot', displayName: 'Copilot', description: '', models: [] };
  const summary = { resource: 'ahp-session:/x', provider: 'copilot', title: 'x', status: 1, createdAt: 1, modifiedAt: 1 };
  const a = new ScriptedPeer({ states: { 'ahp-root://': { agents: [agent] } }, handlers: { listSessions: () => ({ result: { items: [summary] } }) } });
  const b = new ScriptedPeer({ handlers: { listSessions: () => ({ error: { code: -32603, message: 'broken' } }) } });
  const saved = new Map([['a', 'kept-id-a']]);
  const store = { get: (host) => saved.get(host), set: (host, id) => saved.set(host, id) };
  const multi = new MultiHostClient({ clientIds: store });
  const ca = await multi.addHost('a', 'ws://a/ahp', { transport: a.factory, keepaliveMs: 0 });
  const cb = await multi.addHost('b', 'ws://b/ahp', { transport: b.factory, keepaliveMs: 0 });
  assert.equal(ca.clientId, 'kept-id-a', 'the stored id is used');
  assert.equal(a.sent('initialize')[0].params.clientId, 'kept-id-a');
  assert.equal(saved.get('b'), cb.clientId, 'a new id is stored');
  assert.ok(cb.clientId.length > 0);
  assert.deepEqual(multi.agents(), [{ host: 'a', agent }]);
  const { sessions, failed } = await multi.listSessions();
  assert.deepEqual(sessions, [{ host: 'a', session: summary }]);
  assert.deepEqual(failed.map((f) => [f.host, f.error instanceof RpcError, f.error.code]), [['b', true, -32603]]);
  multi.close();
  assert.throws(() => new MultiHostClient({ clientIds: {} }), (e) => e instanceof InvalidInputError && e.path === 'clientIds');
});

/** A session state with `summary.modifiedAt` zeroed (a plain copy). */
function withoutModifiedAt(state) {
  const copy = structuredClone(state);
  copy.summary.modifiedAt = 0;
  return copy;
}

// --- against the real ahp-host --------------------------------------------------------------

test('real ahp-host: connect with token, create a session, stream a reply, match a fresh snapshot', async (t) => {
  const host = await startHost(t, ['--chunk-delay-ms', '15']);
  const client = await AhpClient.connect(host.wsUrl, { token: host.token });
  t.after(() => client.close());
  assert.equal(client.serverInfo.protocolVersion, '0.3.0');
  const channel = `ahp-session:/wasm-${Date.now()}`;
  await client.createSession({ channel });
  const sub = await client.subscribe(channel);
  assert.equal(sub.state.lifecycle, 'ready');

  let changes = 0;
  let maxContent = 0;
  const done = new Promise((resolve) => {
    sub.onChange((state) => {
      changes += 1;
      const md = state.activeTurn?.responseParts.find((p) => p.kind === 'markdown');
      if (md) maxContent = Math.max(maxContent, md.content.length);
      if (!state.activeTurn && state.turns.length === 1) resolve(state);
    });
  });
  const seq = sub.dispatch({
    type: 'session/turnStarted',
    turnId: 'turn-1',
    message: { text: 'Hello from the wasm client\n/title Wasm test\n/long 8', origin: { kind: 'user' } },
  });
  assert.ok(seq > 0);
  assert.equal(sub.state.activeTurn.id, 'turn-1', 'the turn starts optimistically');
  const final = await done;
  assert.ok(changes > 5, `streamed in several changes (${changes})`);
  assert.ok(maxContent > 0);
  assert.equal(final.summary.title, 'Wasm test');
  assert.equal(sub.pendingCount, 0);
  assert.match(JSON.stringify(final.turns[0].responseParts), /Hello from the wasm client/);

  const fresh = await AhpClient.connect(host.wsUrl, { token: host.token });
  t.after(() => fresh.close());
  const snapshot = (await fresh.subscribe(channel)).state;
  // Reducers stamp `summary.modifiedAt` with the local clock (as the official reducers do), so
  // the client's value is its own; everything else must be identical.
  assert.ok(Math.abs(sub.state.summary.modifiedAt - snapshot.summary.modifiedAt) < 5_000);
  assert.deepEqual(withoutModifiedAt(sub.state), withoutModifiedAt(snapshot));
  assert.deepEqual(withoutModifiedAt(sub.confirmedState), withoutModifiedAt(snapshot));
});

test('real ahp-host: a wrong token is a TransportError', async (t) => {
  const host = await startHost(t);
  await assert.rejects(
    AhpClient.connect(host.wsUrl, { token: 'wrong-token-0123456789', reconnect: false }),
    (e) => e instanceof TransportError && e.transportKind === 'connect' && !e.message.includes('wrong-token'),
  );
});

test('real ahp-host: closing clients leaves no stray callbacks behind (no uncaught errors)', async (t) => {
  const host = await startHost(t);
  const uncaught = [];
  const onUncaught = (e) => uncaught.push(e);
  process.on('uncaughtException', onUncaught);
  t.after(() => process.off('uncaughtException', onUncaught));
  for (let i = 0; i < 3; i++) {
    const client = await AhpClient.connect(host.wsUrl, { token: host.token });
    await client.subscribe('ahp-root://');
    client.close();
  }
  await settle(300);
  assert.deepEqual(uncaught.map(String), []);
});

test('state reads follow every change and end with the subscription; the object serializes without it', async () => {
  const { peer, client, sub } = await subscribed();
  peer.act(SESSION, delta('one '));
  await settle();
  const first = sub.state;
  assert.equal(first.activeTurn.responseParts[0].content, 'one ');
  assert.equal(sub.state, first, 'the same object until the next change');
  peer.act(SESSION, delta('two'));
  await settle();
  assert.notEqual(sub.state, first);
  assert.equal(sub.state.activeTurn.responseParts[0].content, 'one two');
  assert.ok(!Object.keys(sub).some((k) => k.includes('State')), 'the held state is not an own enumerable member');
  assert.ok(!JSON.stringify(sub).includes('one two'));
  // Unsubscribed: the last state stays, and later frames for the channel do not change it.
  const last = sub.state;
  sub.unsubscribe();
  assert.equal(sub.active, false);
  assert.deepEqual(sub.state, last);
  peer.act(SESSION, delta(' three'));
  await settle();
  assert.equal(sub.state.activeTurn.responseParts[0].content, 'one two');
  // A new subscription of the channel is a new object with the channel's current state.
  const again = await client.subscribe(SESSION);
  assert.notEqual(again, sub);
  assert.equal(sub.state.activeTurn.responseParts[0].content, 'one two', 'the ended one keeps its last state');
  peer.act(SESSION, delta('!'));
  await settle();
  assert.ok(again.state.activeTurn.responseParts[0].content.endsWith('!'));
  assert.equal(sub.state.activeTurn.responseParts[0].content, 'one two');
  client.close();
  assert.ok(again.state.activeTurn.responseParts[0].content.endsWith('!'), 'a closed client keeps the last state');
});
