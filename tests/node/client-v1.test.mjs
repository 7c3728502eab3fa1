// The 1.0 entry's (`ahp-wasm`) client surfaces that 0.3.0's tests cover in client.test.mjs,
// against scripted 1.0 hosts: version negotiation (what the host supports decides), reconnect
// (after a `replay` or a `snapshot` answer every mirror equals a fresh client's snapshot),
// MultiHostClient over 1.0 hosts, a resource watch's changes, McpChannel over a 1.0 `mcp://`
// channel, and 1.0's protocol notifications.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as v1 from 'ahp-wasm';
import { ScriptedPeer, settle, chatStateV1 } from './scripted-peer.mjs';

const { AhpClient, MultiHostClient, McpChannel, UnsupportedProtocolVersionError, InvalidResponseError, RpcError, ChannelUnavailableError } = v1;

const ROOT = 'ahp-root://';
const SESSION = 'ahp-session:/s1';
const CHAT = 'ahp-chat:/c1';
const WATCH = 'ahp-resource-watch:/w1';
const T0 = '1970-01-01T00:00:01.000Z';

const summary = (resource, title = 'S') => ({ resource, provider: 'test', title, status: 1, createdAt: T0, modifiedAt: T0 });

function sessionState(extra = {}) {
  return {
    provider: 'test',
    title: 'Session',
    status: 1,
    lifecycle: 'ready',
    activeClients: [],
    chats: [{ resource: CHAT, title: 'Chat', status: 1, modifiedAt: T0 }],
    ...extra,
  };
}

function peer1(options = {}) {
  const { states, ...rest } = options;
  return new ScriptedPeer({
    version: '1.0.0',
    states: { [ROOT]: { agents: [] }, [SESSION]: sessionState(), [CHAT]: chatStateV1(CHAT), ...states },
    ...rest,
  });
}

async function connect(peer, options = {}) {
  return AhpClient.connect('ws://peer.test/ahp', { transport: peer.factory, clientId: 'me', keepaliveMs: 0, ...options });
}

/** Drops every null member, recursively (null and absent are the same on the wire). */
function withoutNulls(value) {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value !== null && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNulls(v);
    return out;
  }
  return value;
}

/** An `initialize` handler for a host supporting `supported`: it picks the first it finds offered. */
function hostSupporting(peer, supported) {
  return (params, msg) => {
    const chosen = supported.find((v) => params.protocolVersions.includes(v));
    if (chosen === undefined) {
      return { error: { code: -32005, message: 'unsupported protocol version', data: { supportedVersions: supported } } };
    }
    const snapshots = (params.initialSubscriptions ?? []).map((c) => peer.snapshot(c));
    return { result: { protocolVersion: chosen, serverSeq: peer.serverSeq, snapshots } };
  };
}

// --- negotiation ------------------------------------------------------------------------------

test('negotiation: a host of 1.x only, or of both versions, speaks 1.0 with the 1.0 entry', async () => {
  for (const supported of [['1.0.0'], ['1.0.0', '0.9.0'], ['0.3.0', '1.0.0'], ['1.0.0', '0.3.0']]) {
    const peer = peer1();
    peer.handlers.initialize = hostSupporting(peer, supported);
    const client = await connect(peer);
    assert.deepEqual(peer.sent('initialize')[0].params.protocolVersions, ['1.0.0'], String(supported));
    assert.equal(client.serverInfo.protocolVersion, '1.0.0', String(supported));
    const chat = await client.subscribe(CHAT);
    assert.equal(chat.state.activeTurn.id, 'turn-1', 'a 1.0 chat mirror');
    client.close();
  }
});

test('negotiation: a host of 0.3.0 only, or of neither, is a typed error naming its versions', async () => {
  for (const supported of [['0.3.0'], ['2.0.0', '0.9.0']]) {
    const peer = peer1();
    peer.handlers.initialize = hostSupporting(peer, supported);
    await assert.rejects(connect(peer), (e) => {
      assert.ok(e instanceof UnsupportedProtocolVersionError, `${e?.name}: ${e?.message}`);
      for (const v of supported) assert.ok(e.message.includes(v), `${e.message} names ${v}`);
      return true;
    });
  }
});

test('negotiation: a host choosing a version the client did not offer is an InvalidResponseError', async () => {
  const peer = peer1();
  peer.handlers.initialize = () => ({ result: { protocolVersion: '0.3.0', serverSeq: 1, snapshots: [] } });
  await assert.rejects(connect(peer), (e) => {
    assert.ok(e instanceof InvalidResponseError, `${e?.name}: ${e?.message}`);
    assert.match(e.message, /"0\.3\.0", which was not offered/);
    return true;
  });
});

// --- reconnect --------------------------------------------------------------------------------

/** The peer applies `action` to its own state (the 1.0 reducers) and sends its envelope. */
function hostAction(peer, channel, action, reduce, extra = {}) {
  peer.states[channel] = reduce(peer.states[channel], action);
  const envelope = peer.envelope(channel, action, extra);
  return envelope;
}

/** What a fresh client subscribing to `channels` now gets from `peer`. */
async function freshStates(peer, channels) {
  const fresh = await connect(new ScriptedPeer({ version: '1.0.0', states: structuredClone(peer.states) }), { clientId: 'fresh' });
  const states = {};
  for (const c of channels) states[c] = withoutNulls((fresh.subscription(c) ?? (await fresh.subscribe(c))).state);
  fresh.close();
  return states;
}

test('reconnect with a `replay` answer: missed envelopes applied, the own action confirmed, mirrors equal a fresh snapshot', async () => {
  await v1.init();
  const peer = peer1();
  const client = await connect(peer, { reconnect: { initialDelayMs: 5 } });
  const chat = await client.subscribe(CHAT);
  const session = await client.subscribe(SESSION);
  const draft = { text: 'While away', origin: { kind: 'user' } };
  const seq = chat.dispatch({ type: 'chat/draftChanged', draft });
  assert.equal(chat.pendingCount, 1);
  peer.drop();
  await settle(1);
  assert.equal(client.connectionState, 'reconnecting');

  // While the client is away the host applies its own and the client's actions.
  const missed = [
    hostAction(peer, CHAT, { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'missed ' }, v1.chatReducer),
    hostAction(peer, CHAT, { type: 'chat/draftChanged', draft }, v1.chatReducer, { origin: { clientId: 'me', clientSeq: seq } }),
    hostAction(peer, SESSION, { type: 'session/titleChanged', title: 'Renamed' }, v1.sessionReducer),
    hostAction(peer, CHAT, { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'text' }, v1.chatReducer),
  ];
  peer.handlers.reconnect = () => ({ result: { type: 'replay', actions: missed.map((m) => m.params), missing: [] } });
  while (client.connectionState !== 'connected') await settle(5);
  await settle();
  const [reconnect] = peer.sent('reconnect');
  assert.equal(reconnect.params.lastSeenServerSeq, 10);
  assert.deepEqual(reconnect.params.subscriptions.sort(), [CHAT, ROOT, SESSION].sort());
  assert.equal(peer.sent('dispatchAction').length, 1, 'the confirmed action is not sent again');
  assert.equal(chat.pendingCount, 0);
  assert.equal(chat.state.activeTurn.responseParts[0].content, 'missed text');
  assert.equal(session.state.title, 'Renamed');
  const fresh = await freshStates(peer, [CHAT, SESSION, ROOT]);
  assert.deepEqual(withoutNulls(chat.state), fresh[CHAT]);
  assert.deepEqual(withoutNulls(session.state), fresh[SESSION]);
  assert.deepEqual(withoutNulls(client.subscription(ROOT).state), fresh[ROOT]);
  client.close();
});

test('reconnect with a `snapshot` answer: the unconfirmed action is reported dropped, mirrors equal a fresh snapshot', async () => {
  const peer = peer1();
  const client = await connect(peer, { reconnect: { initialDelayMs: 5 } });
  const chat = await client.subscribe(CHAT);
  const session = await client.subscribe(SESSION);
  const dropped = [];
  client.onEvent((e) => e.type === 'pendingDropped' && dropped.push(e));
  const seq = chat.dispatch({ type: 'chat/draftChanged', draft: { text: 'Mine', origin: { kind: 'user' } } });
  assert.equal(chat.state.draft.text, 'Mine');
  peer.drop();
  await settle(1);
  hostAction(peer, CHAT, { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'new' }, v1.chatReducer);
  hostAction(peer, SESSION, { type: 'session/titleChanged', title: 'Theirs' }, v1.sessionReducer);
  while (client.connectionState !== 'connected') await settle(5);
  await settle();
  assert.deepEqual(dropped.map((d) => [d.channel, d.reason, d.actions.map((a) => a.clientSeq)]), [[CHAT, 'reconnectSnapshot', [seq]]]);
  assert.equal(chat.pendingCount, 0);
  assert.ok(chat.state.draft == null, 'the dropped draft is reverted');
  const fresh = await freshStates(peer, [CHAT, SESSION]);
  assert.deepEqual(withoutNulls(chat.state), fresh[CHAT]);
  assert.deepEqual(withoutNulls(session.state), fresh[SESSION]);
  client.close();
});

// --- MultiHostClient ----------------------------------------------------------------------------

test('MultiHostClient over 1.0 hosts: events fanned in with the host name, agents and sessions of every host', async () => {
  await v1.init();
  const agent = { provider: 'copilot', displayName: 'Copilot', description: '', models: [] };
  const s = summary('ahp-session:/x', 'x');
  const a = peer1({ states: { [ROOT]: { agents: [agent] } }, handlers: { listSessions: () => ({ result: { items: [s] } }) } });
  const b = peer1({ handlers: { listSessions: () => ({ error: { code: -32603, message: 'broken' } }) } });
  const saved = new Map([['a', 'kept-id-a']]);
  const multi = new MultiHostClient({ clientIds: { get: (h) => saved.get(h), set: (h, id) => saved.set(h, id) } });
  const events = [];
  multi.onEvent((host, e) => events.push([host, e.type, e.method]));
  const ca = await multi.addHost('a', 'ws://a/ahp', { transport: a.factory, keepaliveMs: 0 });
  const cb = await multi.addHost('b', 'ws://b/ahp', { transport: b.factory, keepaliveMs: 0 });
  assert.equal(ca.serverInfo.protocolVersion, '1.0.0');
  assert.deepEqual(a.sent('initialize')[0].params.protocolVersions, ['1.0.0']);
  assert.equal(ca.clientId, 'kept-id-a');
  assert.equal(saved.get('b'), cb.clientId);
  assert.deepEqual(multi.hostNames(), ['a', 'b']);
  assert.deepEqual(multi.agents(), [{ host: 'a', agent }]);
  const { sessions, failed } = await multi.listSessions();
  assert.deepEqual(sessions, [{ host: 'a', session: s }]);
  assert.deepEqual(failed.map((f) => [f.host, f.error instanceof RpcError, f.error.code]), [['b', true, -32603]]);

  b.push({ method: 'root/sessionAdded', params: { channel: ROOT, summary: summary('ahp-session:/n', 'n') } });
  await settle();
  assert.ok(events.some(([h, t, m]) => h === 'b' && t === 'notification' && m === 'root/sessionAdded'), JSON.stringify(events));
  assert.ok(events.some(([h, t]) => h === 'a' && t === 'connected'));
  // A 1.0 chat mirrored through one host, the other untouched.
  const chat = await cb.subscribe(CHAT);
  b.act(CHAT, { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'on b' });
  await settle();
  assert.equal(chat.state.activeTurn.responseParts[0].content, 'on b');
  assert.equal(ca.subscription(CHAT), undefined);
  multi.removeHost('a');
  assert.equal(ca.connectionState, 'closed');
  assert.deepEqual(multi.hostNames(), ['b']);
  multi.close();
  assert.equal(cb.connectionState, 'closed');
});

// --- resource watches -----------------------------------------------------------------------------

test('a 1.0 resource watch: created, subscribed, its changes are resourceChanges events in order', async () => {
  const peer = peer1({
    states: { [WATCH]: { root: 'file:///project', recursive: true } },
    handlers: { createResourceWatch: () => ({ result: { channel: WATCH } }) },
  });
  const client = await connect(peer);
  const { channel } = await client.createResourceWatch({ uri: 'file:///project', recursive: true });
  assert.equal(channel, WATCH);
  const sent = peer.sent('createResourceWatch')[0].params;
  assert.deepEqual(sent, { channel: ROOT, uri: 'file:///project', recursive: true });
  const watch = await client.subscribe(channel);
  assert.deepEqual(withoutNulls(watch.state), { root: 'file:///project', recursive: true });
  const changes = [];
  const onChange = [];
  client.onEvent((e) => e.type === 'resourceChanges' && changes.push(e));
  watch.onChange((_s, info) => onChange.push(info));
  const change = (path, type) => ({ type: 'resourceWatch/changed', changes: [{ uri: `file:///project/${path}`, type }] });
  peer.pushBatch([peer.envelope(WATCH, change('a.txt', 'created')), peer.envelope(WATCH, change('b.txt', 'deleted'))]);
  await settle();
  peer.act(WATCH, change('c.txt', 'updated'));
  await settle();
  assert.deepEqual(
    changes.map((e) => [e.channel, e.changes]),
    [
      [WATCH, [[{ uri: 'file:///project/a.txt', type: 'created' }], [{ uri: 'file:///project/b.txt', type: 'deleted' }]]],
      [WATCH, [[{ uri: 'file:///project/c.txt', type: 'updated' }]]],
    ],
  );
  assert.deepEqual(onChange, [], 'the watch state does not change');
  await watch.unsubscribe();
  assert.deepEqual(peer.sent('unsubscribe').map((m) => m.params.channel), [WATCH]);
  peer.act(WATCH, change('d.txt', 'created'));
  await settle();
  assert.equal(changes.length, 2, 'no events after unsubscribing');
  client.close();
});

// --- McpChannel ---------------------------------------------------------------------------------

test('McpChannel over a 1.0 session: waits for the mcp:// channel, requests on it, its notifications only', async () => {
  const mcp = { type: 'mcpServer', id: 'mcp/basic', uri: 'file:///plugin.json', name: 'basic', state: { kind: 'starting' } };
  const peer = peer1({
    states: { [SESSION]: sessionState({ customizations: [mcp] }) },
    handlers: {
      'tools/call': (params) =>
        params.channel === 'mcp://basic/1'
          ? { result: { content: [{ type: 'text', text: `called ${params.name}` }] } }
          : { error: { code: -32601, message: 'not served' } },
    },
  });
  const client = await connect(peer);
  const channel = await McpChannel.open(client, SESSION, 'mcp/basic');
  assert.equal(channel.uri, undefined, 'no channel while starting');
  await assert.rejects(channel.request('tools/call', { name: 'x' }), (e) => e instanceof ChannelUnavailableError && e.serverState === 'starting');
  const ready = channel.ready({ timeoutMs: 2000 });
  peer.act(SESSION, { type: 'session/mcpServerStateChanged', id: 'mcp/basic', state: { kind: 'ready' }, channel: 'mcp://basic/1' });
  assert.equal(await ready, 'mcp://basic/1');
  const result = await channel.request('tools/call', { name: 'echo', arguments: {} });
  assert.deepEqual(result, { content: [{ type: 'text', text: 'called echo' }] });
  assert.deepEqual(peer.sent('tools/call')[0].params, { name: 'echo', arguments: {}, channel: 'mcp://basic/1' });

  const got = [];
  channel.onNotification((method, params) => got.push([method, params]));
  peer.push({ method: 'notifications/tools/list_changed', params: { channel: 'mcp://basic/1' } });
  peer.push({ method: 'notifications/message', params: { channel: 'mcp://other/1', level: 'info', data: 'not ours' } });
  peer.push({ method: 'notifications/message', params: { channel: 'mcp://basic/1', level: 'info', data: 'ours' } });
  await settle();
  assert.deepEqual(got, [
    ['notifications/tools/list_changed', {}],
    ['notifications/message', { level: 'info', data: 'ours' }],
  ]);

  // The server stops: the channel goes with it.
  peer.act(SESSION, { type: 'session/mcpServerStateChanged', id: 'mcp/basic', state: { kind: 'stopped' } });
  await settle();
  assert.equal(channel.uri, undefined);
  await assert.rejects(channel.request('tools/call', { name: 'x' }), (e) => e instanceof ChannelUnavailableError && e.serverState === 'stopped');
  channel.close();
  client.close();
});

// --- notifications ----------------------------------------------------------------------------

test("1.0 notifications: the protocol's are 'notification' events with their params, others 'otherNotification'", async () => {
  const peer = peer1();
  const client = await connect(peer);
  const events = [];
  client.onEvent((e) => (e.type === 'notification' || e.type === 'otherNotification') && events.push(e));
  const resource = { resource: 'https://api.test', authorization_servers: ['https://auth.test'] };
  peer.push({ method: 'auth/required', params: { channel: ROOT, resource, reason: 'expired' } });
  peer.push({ method: 'root/sessionSummaryChanged', params: { channel: ROOT, session: SESSION, changes: { title: 'New' } } });
  peer.push({ method: 'progress', params: { channel: ROOT, progressToken: 'p1', progress: 3, total: 10 } });
  peer.push({ method: 'notifications/message', params: { channel: 'mcp://s/1', level: 'info', data: 'x' } });
  // Params that do not fit 1.0's type (0.3.0's auth/required names the resource by its URL):
  // a 'malformed' event, and the connection goes on.
  const malformed = [];
  client.onEvent((e) => e.type === 'malformed' && malformed.push(e));
  peer.push({ method: 'auth/required', params: { channel: ROOT, resource: 'https://api.test' } });
  peer.push({ method: 'progress', params: { channel: ROOT, progressToken: 'p1', progress: 10, total: 10 } });
  await settle();
  assert.deepEqual(
    events.map((e) => [e.type, e.method]),
    [
      ['notification', 'auth/required'],
      ['notification', 'root/sessionSummaryChanged'],
      ['notification', 'progress'],
      ['otherNotification', 'notifications/message'],
      ['notification', 'progress'],
    ],
  );
  assert.deepEqual(events[0].params.resource, resource, "1.0's auth/required names the resource by its metadata");
  assert.equal(events[1].params.changes.title, 'New');
  assert.deepEqual(events[2].params, { channel: ROOT, progressToken: 'p1', progress: 3, total: 10 });
  assert.equal(malformed.length, 1);
  assert.match(malformed[0].message, /auth\/required/);
  client.close();
});
