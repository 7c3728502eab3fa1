// Bad input on the AHP 1.0 entry (`ahp-wasm`), against a scripted 1.0 peer: bad frames from
// the host (the table shared with 0.3.0, tests/node/bad-frames-table.mjs) on a chat channel and
// bad envelopes for the root, session and terminal channels; bad answers to 1.0 commands; wrong
// types from JS into the client's methods. Each is a typed error (an Error subclass with `kind`
// and `code`) or a no-op, the connection survives, and the chat mirror keeps working: a later
// good envelope still applies. Also the 0.3.0 things a 1.0 connection refuses
// (WrongProtocolVersionError), and the other way round on the 0.3.0 entry.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as v1 from 'ahp-wasm';
import * as v03 from 'ahp-wasm/v0.3';
import { ScriptedPeer, SESSION, settle, chatStateV1 } from './scripted-peer.mjs';
import { nestedObject, runBadFrames } from './bad-frames-table.mjs';

const CHAT = 'ahp-chat:/c1';
const SESSION1 = 'ahp-session:/s1';
const TERMINAL = 'ahp-terminal:/t1';
const ROOT = 'ahp-root://';

const chatState = () => chatStateV1(CHAT);

const states = () => ({
  [ROOT]: { agents: [] },
  [CHAT]: chatState(),
  [SESSION1]: { provider: 'copilot', title: 'S', status: 1, lifecycle: 'ready', activeClients: [], chats: [] },
  [TERMINAL]: { title: 'bash', content: [{ type: 'unclassified', value: '$ ' }], claim: { kind: 'client', clientId: 'c1' }, lifecycle: { status: 'running' } },
});

const delta = (content) => ({ type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content });
const content = (state) => state.activeTurn.responseParts[0].content;
const draft = (text) => ({ type: 'chat/draftChanged', draft: { text, origin: { kind: 'user' } } });

async function connected(peerOptions = {}) {
  const peer = new ScriptedPeer({ version: '1.0.0', states: states(), ...peerOptions });
  const client = await v1.AhpClient.connect('ws://peer.test/ahp', { transport: peer.factory, clientId: 'me', keepaliveMs: 0 });
  const sub = await client.subscribe(CHAT);
  return { peer, client, sub };
}

/** A typed SDK error: an AhpError (so an Error) with a string `kind`, of `Class` if given. */
function typed(e, Class = v1.AhpError) {
  return e instanceof Error && e instanceof v1.AhpError && e instanceof Class && typeof e.kind === 'string' && 'code' in e;
}

/** The 1.0 chat channel's profile for the shared frames table. */
const chatProfile = {
  channel: CHAT,
  prefix: 'chat',
  delta,
  content,
  reduce: (state, action) => v1.chatReducer(state, action),
  wrongTypes: [
    { ...delta('x'), content: 42 },
    { ...delta('x'), turnId: ['turn-1'] },
    { type: 'chat/activityChanged', activity: 7 },
    { type: 'chat/isReadChanged', isRead: 'yes' },
    { type: 'chat/draftChanged', draft: 'not a message' },
    { type: 'chat/responsePart', turnId: 'turn-1', part: 'markdown' },
  ],
  unknownEnums: [
    { type: 'chat/pendingMessageSet', kind: 'hologram', id: 'pm-1', message: { text: 'x', origin: { kind: 'user' } } },
    { type: 'chat/delta', turnId: 'no-such-turn', partId: 'md-1', content: 'lost' },
  ],
};

test('1.0: bad frames on a chat channel are reported or no-ops; the mirror keeps working', async () => {
  const { peer, client, sub } = await connected();
  const rows = await runBadFrames(chatProfile, { peer, client, sub, settle });
  const failed = rows.filter((r) => !r.ok).map((r) => `${r.name}: ${r.got}`);
  assert.deepEqual(failed, []);
  assert.ok(rows.length >= 20, `the table ran (${rows.length} rows)`);
  client.close();
});

test('1.0: bad envelopes for the root, session and terminal channels change nothing; the chat goes on', async () => {
  const { peer, client, sub } = await connected();
  const subs = Object.fromEntries(await Promise.all([ROOT, SESSION1, TERMINAL].map(async (c) => [c, await client.subscribe(c)])));
  const malformed = [];
  client.onEvent((e) => e.type === 'malformed' && malformed.push(e));
  const before = Object.fromEntries(Object.entries(subs).map(([c, s]) => [c, s.state]));
  const bad = {
    [ROOT]: [{ type: 'root/agentsChanged', agents: 'none' }, { type: 'root/agentsChanged', agents: [{ provider: 3 }] }],
    [SESSION1]: [{ type: 'session/titleChanged', title: null }, { type: 'session/chatAdded', chat: 42 }, { type: 'session/defaultChatChanged', defaultChat: {} }],
    [TERMINAL]: [{ type: 'terminal/data', data: 12 }, { type: 'terminal/resized', cols: 'wide', rows: 24 }, { type: 'terminal/claimed', claim: { kind: 7 } }],
  };
  const noops = {
    [ROOT]: [{ type: 'root/fromTheFuture', x: 1 }],
    [SESSION1]: [{ type: 'session/fromTheFuture', x: 1 }, { type: 'session/turnStarted', turnId: 't', message: { text: 'a 0.3.0 action', origin: { kind: 'user' } } }],
    [TERMINAL]: [{ type: 'terminal/fromTheFuture' }, { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'not a terminal action' }],
  };
  let expected = 0;
  for (const [channel, actions] of Object.entries(bad)) {
    for (const action of actions) peer.act(channel, action);
    expected += actions.length;
  }
  for (const [channel, actions] of Object.entries(noops)) for (const action of actions) peer.act(channel, action);
  peer.act(CHAT, delta('after'));
  await settle();
  assert.equal(malformed.length, expected, malformed.map((m) => m.message).join('\n'));
  for (const m of malformed) assert.equal(typeof m.message, 'string');
  for (const [channel, s] of Object.entries(subs)) assert.equal(s.state, before[channel], `${channel} unchanged`);
  assert.equal(content(sub.state), 'after');
  // Good envelopes still apply on every channel.
  peer.act(TERMINAL, { type: 'terminal/data', data: 'ok' });
  peer.act(SESSION1, { type: 'session/titleChanged', title: 'T2' });
  await settle();
  assert.equal(subs[SESSION1].state.title, 'T2');
  assert.notEqual(subs[TERMINAL].state, before[TERMINAL]);
  assert.equal(client.connectionState, 'connected');
  client.close();
});

test('1.0: bad answers to 1.0 commands are typed errors; the client goes on', async () => {
  const answers = {
    createChat: { error: { code: -32602, message: 'chat exists', data: { chat: CHAT } } },
    disposeChat: { error: { code: 'not a number', message: 'x' } },
    moveChat: { error: 'just a string' },
    runAutomation: { result: 'garbage' },
    listSessions: { result: 42 },
    fetchAutomationRuns: { error: { code: -32001, message: 7 } },
  };
  const handlers = Object.fromEntries(Object.entries(answers).map(([method, answer]) => [method, () => answer]));
  // The answers are pushed raw (the peer wraps `result`/`error` as given).
  const { peer, client, sub } = await connected({ handlers, timeoutMs: 500 });
  const calls = {
    createChat: () => client.createChat({ channel: SESSION1, chat: 'ahp-chat:/c2' }),
    disposeChat: () => client.disposeChat({ channel: CHAT }),
    moveChat: () => client.moveChat({ channel: CHAT, destination: { kind: 'session', session: 'ahp-session:/s2' } }),
    runAutomation: () => client.runAutomation({ channel: 'ahp-automations:/a', automation: 'a1', requestId: 'r1' }),
    listSessions: () => client.listSessions(),
    fetchAutomationRuns: () => client.fetchAutomationRuns({ channel: 'ahp-automations:/a', automation: 'a1' }),
  };
  const outcome = {};
  for (const [method, call] of Object.entries(calls)) {
    try {
      outcome[method] = { value: await Promise.race([call(), settle(2000).then(() => 'no answer within 2 s')]) };
    } catch (e) {
      outcome[method] = { error: e };
    }
  }
  const rpc = outcome.createChat.error;
  assert.ok(typed(rpc, v1.RpcError), `${rpc}`);
  assert.equal(rpc.code, -32602);
  assert.equal(rpc.method, 'createChat');
  assert.deepEqual(rpc.data, { chat: CHAT });
  // An error object that is not one (a string code, a string, a number message): the request
  // fails with a typed error rather than hanging or resolving.
  for (const method of ['disposeChat', 'moveChat', 'fetchAutomationRuns']) {
    const e = outcome[method].error;
    assert.ok(typed(e), `${method}: ${JSON.stringify(outcome[method].value)} ${e}`);
    assert.ok(e instanceof v1.InvalidResponseError || e instanceof v1.RpcError, `${method}: ${e?.name}`);
  }
  // Results are handed over as sent (not validated); a void command resolves undefined.
  assert.equal(outcome.runAutomation.value, 'garbage');
  assert.equal(outcome.listSessions.value, 42);
  peer.act(CHAT, delta('still'));
  await settle();
  assert.equal(content(sub.state), 'still');
  await client.ping();
  client.close();
});

test('1.0: wrong types from JS into the client are InvalidInputErrors; nothing changes or is sent', async () => {
  const { peer, client, sub } = await connected();
  const invalid = (argument, path, message) => (e) => {
    assert.ok(typed(e, v1.InvalidInputError), `${e?.name}: ${e?.message}`);
    assert.equal(e.code, -32602);
    assert.equal(e.kind, 'invalid-input');
    assert.equal(e.argument, argument, e.message);
    if (path !== undefined) assert.equal(e.path, path, e.message);
    if (message !== undefined) assert.match(e.message, message);
    return true;
  };
  const cyclic = { ...delta('x') };
  cyclic.self = cyclic;
  const before = sub.state;
  const sentBefore = peer.sent('dispatchAction').length;
  assert.throws(() => client.dispatch(42, delta('x')), invalid('uri'));
  assert.throws(() => client.dispatch(CHAT, 'garbage'), invalid('action'));
  for (const garbage of ['garbage', null, undefined, 17, [], {}, { type: 5 }, () => 1]) {
    assert.throws(() => sub.dispatch(garbage), invalid('action'), `dispatch(${String(garbage)})`);
  }
  assert.throws(() => sub.dispatch({ ...delta('x'), content: 5 }), invalid('action', 'content'));
  assert.throws(() => sub.dispatch({ type: 'chat/isReadChanged', isRead: { no: 1 } }), invalid('action', 'isRead'));
  assert.throws(() => sub.dispatch({ ...delta('x'), _meta: nestedObject(1000) }), invalid('action', undefined, /nested deeper/));
  assert.throws(() => sub.dispatch(cyclic), invalid('action'));
  assert.throws(() => sub.dispatch({ ...delta('x'), content: new Map() }), invalid('action', 'content'));
  assert.equal(sub.state, before, 'nothing applied');
  assert.equal(sub.pendingCount, 0);
  assert.equal(peer.sent('dispatchAction').length, sentBefore, 'nothing sent');

  await assert.rejects(client.createChat(42), invalid('params'));
  await assert.rejects(client.createChat('ahp-chat:/x'), invalid('params'));
  await assert.rejects(client.createChat([SESSION1]), invalid('params'));
  await assert.rejects(client.createChat({ channel: 3, chat: 'ahp-chat:/x' }), invalid('params', 'channel'));
  await assert.rejects(client.createChat({ channel: SESSION1 }), invalid('params', undefined, /chat/));
  await assert.rejects(client.createChat({ channel: SESSION1, chat: 'ahp-chat:/x', _meta: nestedObject(1000) }), invalid('params', undefined, /nested deeper/));
  await assert.rejects(client.moveChat(null), invalid('params'));
  await assert.rejects(client.disposeChat({ channel: false }), invalid('params', 'channel'));
  await assert.rejects(client.runAutomation({ channel: 'ahp-automations:/a', automation: 9, requestId: 'r' }), invalid('params', 'automation'));
  await assert.rejects(client.moveChat({ channel: CHAT, destination: 'elsewhere' }), invalid('params', 'destination'));
  await assert.rejects(client.subscribe(5), invalid('uri'));
  for (const method of ['createChat', 'disposeChat', 'moveChat', 'runAutomation']) {
    assert.equal(peer.sent(method).length, 0, `${method} not sent`);
  }
  // Still usable: a good dispatch applies and is sent; a good envelope applies.
  const seq = sub.dispatch(draft('fine'));
  assert.equal(typeof seq, 'number');
  assert.equal(sub.state.draft.text, 'fine');
  peer.act(CHAT, delta('ok'));
  await settle();
  assert.equal(content(sub.state), 'ok');
  client.close();
});

test('1.0: an own action of an unknown type is a no-op here and goes out as it is', async () => {
  const { peer, client, sub } = await connected();
  const before = sub.state;
  const action = { type: 'chat/fromTheFuture', nested: { list: [1, 'two', null], flag: true }, n: 1.5 };
  const seq = sub.dispatch(action);
  assert.equal(sub.state, before, 'nothing changed');
  const [sent] = peer.sent('dispatchAction');
  assert.deepEqual(sent.params.action, action, 'sent verbatim');
  peer.act(CHAT, sent.params.action, { origin: { clientId: 'me', clientSeq: seq } });
  await settle();
  assert.equal(sub.pendingCount, 0, 'the echo confirms it');
  assert.deepEqual(sub.state, before);
  client.close();
});

test('1.0: an own action over the host frame limit is a TransportError; nothing applied', async () => {
  const initialize = (p) => ({ result: { protocolVersion: '1.0.0', serverSeq: 10, maxFrameBytes: 4096, snapshots: [] } });
  const { peer, client, sub } = await connected({ handlers: { initialize } });
  assert.equal(client.serverInfo.maxFrameBytes, 4096);
  const before = sub.state;
  assert.throws(
    () => sub.dispatch(draft('x'.repeat(5000))),
    (e) => typed(e, v1.TransportError) && e.transportKind === 'send' && /maxFrameBytes/.test(e.message),
  );
  await assert.rejects(client.createChat({ channel: SESSION1, chat: `ahp-chat:/${'y'.repeat(5000)}` }), (e) => typed(e, v1.TransportError));
  assert.equal(sub.state, before);
  assert.equal(peer.sent('dispatchAction').length + peer.sent('createChat').length, 0);
  peer.act(CHAT, delta('ok'));
  await settle();
  assert.equal(content(sub.state), 'ok');
  client.close();
});

test('a 0.3.0 action on a 1.0 connection is a WrongProtocolVersionError; nothing sent or applied', async () => {
  const { peer, client, sub } = await connected();
  const before = sub.state;
  const turn = { type: 'session/turnStarted', turnId: 't9', message: { text: 'hi', origin: { kind: 'user' } } };
  assert.throws(
    () => sub.dispatch(turn),
    (e) => {
      assert.ok(typed(e, v1.WrongProtocolVersionError), `${e?.name}: ${e?.message}`);
      assert.equal(e.kind, 'wrongProtocolVersion');
      assert.equal(e.negotiated, '1.0.0');
      assert.equal(e.version, '0.3.0');
      assert.equal(e.attempted, `the action \`session/turnStarted\` on \`${CHAT}\``);
      assert.match(e.message, /is AHP 0\.3\.0, but this connection negotiated AHP 1\.0\.0: nothing was sent/);
      return true;
    },
  );
  assert.throws(() => client.dispatch(CHAT, { type: 'session/delta', turnId: 't', partId: 'p', content: 'x' }), v1.WrongProtocolVersionError);
  assert.equal(sub.state, before);
  assert.equal(peer.sent('dispatchAction').length, 0);
  // The 1.0 action of the same meaning goes through.
  sub.dispatch(draft('fine'));
  assert.equal(peer.sent('dispatchAction').length, 1);
  client.close();
});

test('a 1.0 command or action on a 0.3.0 connection (the 0.3.0 entry) is a WrongProtocolVersionError', async () => {
  const peer = new ScriptedPeer();
  const client = await v03.AhpClient.connect('ws://peer.test/ahp', { transport: peer.factory, clientId: 'me', keepaliveMs: 0 });
  const sub = await client.subscribe(SESSION);
  const wrong = (version, attempted) => (e) => {
    assert.ok(e instanceof v03.WrongProtocolVersionError && e instanceof v03.AhpError, `${e?.name}: ${e?.message}`);
    assert.equal(e.kind, 'wrongProtocolVersion');
    assert.equal(e.negotiated, '0.3.0');
    assert.equal(e.version, version);
    assert.equal(e.attempted, attempted);
    return true;
  };
  await assert.rejects(client.request('createChat', { channel: SESSION, chat: 'ahp-chat:/c' }), wrong('1.0.0', 'the command `createChat`'));
  const before = sub.state;
  assert.throws(
    () => sub.dispatch({ type: 'chat/turnStarted', turnId: 't', message: { text: 'x', origin: { kind: 'user' } } }),
    wrong('1.0.0', `the action \`chat/turnStarted\` on \`${SESSION}\``),
  );
  assert.equal(sub.state, before);
  assert.equal(peer.sent('createChat').length + peer.sent('dispatchAction').length, 0);
  // A method neither version has still goes to the host (which answers -32601).
  await assert.rejects(client.request('noSuchMethod', {}), (e) => e instanceof v03.RpcError && e.code === -32601);
  client.close();
});
