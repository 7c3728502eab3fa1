// The default entry of the built package (`ahp-wasm`, AHP 1.0: the module built with feature `v1`
// alone) in Node 20: negotiation, a chat channel's optimistic mirror, the 1.0 reducers, and the
// official 1.0.0 reducer fixtures through the package's JS functions.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as v1 from 'ahp-wasm';
import * as v03 from 'ahp-wasm/v0.3';
import { ScriptedPeer, settle, chatStateV1 } from './scripted-peer.mjs';

const CHAT = 'ahp-chat:/c1';
const fixtures = new URL('../../protocol/ahp-1.0.0/conformance/reducers/', import.meta.url);

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

const chatState = () => chatStateV1(CHAT);

function peer1(options = {}) {
  return new ScriptedPeer({ version: '1.0.0', states: { 'ahp-root://': { agents: [] }, [CHAT]: chatState() }, ...options });
}

async function connect(module, peer, options = {}) {
  return module.AhpClient.connect('ws://peer.test/ahp', {
    transport: peer.factory,
    clientId: 'me',
    keepaliveMs: 0,
    ...options,
  });
}

test('the 1.0 entry says its version and offers only 1.0.0', async () => {
  assert.equal(v1.PROTOCOL_VERSION, '1.0.0');
  assert.deepEqual(v1.SUPPORTED_PROTOCOL_VERSIONS, ['1.0.0']);
  assert.equal(v03.PROTOCOL_VERSION, '0.3.0');
  const peer = peer1();
  const client = await connect(v1, peer);
  const [init] = peer.sent('initialize');
  assert.deepEqual(init.params.protocolVersions, ['1.0.0']);
  assert.equal(client.serverInfo.protocolVersion, '1.0.0');
  client.close();
});

test('a host speaking only 0.3.0 refuses the 1.0 entry with a typed error naming its versions', async () => {
  const peer = new ScriptedPeer({ version: '0.3.0' });
  await assert.rejects(connect(v1, peer), (e) => {
    assert.ok(e instanceof v1.UnsupportedProtocolVersionError, `${e?.name}: ${e?.message}`);
    assert.match(e.message, /0\.3\.0/);
    return true;
  });
});

test('a chat channel mirrors 1.0 envelopes and dispatches optimistically', async () => {
  const peer = peer1();
  const client = await connect(v1, peer);
  const sub = await client.subscribe(CHAT);
  assert.equal(sub.state.activeTurn.responseParts[0].content, '');
  const changes = [];
  sub.onChange((_state, info) => changes.push(info));

  // A server-originated delta streams into the part.
  peer.act(CHAT, { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'Hello ' });
  peer.act(CHAT, { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'world' });
  await settle();
  assert.equal(sub.state.activeTurn.responseParts[0].content, 'Hello world');
  assert.ok(Object.isFrozen(sub.state));

  // An own action applies at once, pending until its echo.
  const draft = { text: 'Next question', origin: { kind: 'user' } };
  const seq = sub.dispatch({ type: 'chat/draftChanged', draft });
  assert.deepEqual(sub.state.draft, draft);
  assert.equal(sub.pendingCount, 1);
  const [sent] = peer.sent('dispatchAction');
  assert.equal(sent.params.channel, CHAT);
  assert.equal(sent.params.clientSeq, seq);
  assert.deepEqual(sent.params.action, { type: 'chat/draftChanged', draft });
  peer.act(CHAT, sent.params.action, { origin: { clientId: 'me', clientSeq: seq } });
  await settle();
  assert.equal(sub.pendingCount, 0);
  assert.deepEqual(sub.confirmedState.draft, draft);
  assert.ok(changes.some((c) => c.changed.includes('draft')));

  // A 0.3.0 action is not a 1.0 action: a typed error, nothing changed, the mirror goes on.
  assert.throws(() => sub.dispatch({ type: 'chat/draftChanged', draft: 'not a message' }), (e) => e instanceof v1.InvalidInputError);
  assert.deepEqual(sub.state.draft, draft);
  peer.act(CHAT, { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: '!' });
  await settle();
  assert.equal(sub.state.activeTurn.responseParts[0].content, 'Hello world!');
  client.close();
});

test('the 1.0 reducers: the official 1.0.0 fixtures through the package', () => {
  const reducers = {
    root: v1.rootReducer,
    session: v1.sessionReducer,
    chat: v1.chatReducer,
    terminal: v1.terminalReducer,
    changeset: v1.changesetReducer,
    resourceWatch: v1.resourceWatchReducer,
    annotations: v1.annotationsReducer,
    canvas: v1.canvasReducer,
    automation: v1.automationReducer,
    automationRun: v1.automationRunReducer,
  };
  const files = readdirSync(fixtures).filter((f) => f.endsWith('.json'));
  assert.equal(files.length, 299);
  let passed = 0;
  for (const file of files) {
    const fixture = JSON.parse(readFileSync(new URL(file, fixtures), 'utf8'));
    const reduce = reducers[fixture.reducer];
    assert.equal(typeof reduce, 'function', `${file}: no reducer for '${fixture.reducer}'`);
    let state = fixture.initial;
    for (const action of fixture.actions) state = reduce(state, action);
    assert.deepEqual(withoutNulls(state), withoutNulls(fixture.expected), file);
    passed += 1;
  }
  assert.equal(passed, 299);
});

test('the 1.0 reducers: a no-op returns the input, bad input is an InvalidInputError', () => {
  const state = chatState();
  assert.equal(v1.chatReducer(state, { type: 'no/such-action' }), state);
  assert.throws(() => v1.chatReducer({ turns: 3 }, { type: 'chat/titleChanged', title: 't' }), (e) => e instanceof v1.InvalidInputError);
});

test('the 1.0 chatReducer: a plain chat/delta (its shortcut) reduces as the general path does', () => {
  const delta = { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'Hi' };
  const plain = v1.chatReducer(chatState(), delta);
  assert.equal(plain.activeTurn.responseParts[0].content, 'Hi');
  assert.ok(Object.isFrozen(plain.activeTurn.responseParts[0]));
  // The same delta in forms the shortcut declines: another prototype, an extra member.
  const general = v1.chatReducer(chatState(), Object.assign(Object.create(null), delta));
  assert.deepEqual(plain, general);
  assert.deepEqual(v1.chatReducer(chatState(), { ...delta, _meta: { k: 1 } }), general);
  // A chain of deltas on returned states; the same call twice returns the same object.
  let state = plain;
  for (const content of [' there', '!']) state = v1.chatReducer(state, { ...delta, content });
  assert.equal(state.activeTurn.responseParts[0].content, 'Hi there!');
  const again = { ...delta, content: '?' };
  assert.equal(v1.chatReducer(state, again), v1.chatReducer(state, again));
  // A delta to another turn does not apply: the input comes back.
  assert.equal(v1.chatReducer(state, { ...delta, turnId: 'turn-9' }), state);
  // Wrong types are not plain deltas: the general path reports them.
  assert.throws(() => v1.chatReducer(state, { ...delta, content: 3 }), (e) => e instanceof v1.InvalidInputError);
});

test('the 1.0 chatReducer: streamed text copies the chat state and the active turn whole (every member, in order)', () => {
  const delta = { type: 'chat/delta', turnId: 'turn-1', partId: 'md-1', content: 'a' };
  // Optional members of the state (in schema order, as the SDK renders them) and of the turn.
  const { turns, activeTurn, ...head } = chatState();
  const first = v1.chatReducer({ ...head, movable: true, turns, activeTurn, _meta: { k: 1 } }, delta);
  assert.deepEqual(Object.keys(first), ['resource', 'title', 'status', 'modifiedAt', 'movable', 'turns', 'activeTurn', '_meta']);
  let state = first;
  for (const content of ['b', 'c']) {
    const next = v1.chatReducer(state, { ...delta, content });
    assert.notEqual(next, state);
    assert.deepEqual(Object.keys(next), Object.keys(first));
    assert.deepEqual(Object.keys(next.activeTurn), ['id', 'startedAt', 'message', 'responseParts']);
    assert.ok(Object.isFrozen(next) && Object.isFrozen(next.activeTurn) && Object.isFrozen(next.activeTurn.responseParts));
    assert.equal(next._meta, first._meta);
    assert.equal(next.activeTurn.message, first.activeTurn.message);
    state = next;
  }
  assert.equal(state.activeTurn.responseParts[0].content, 'abc');
  assert.equal(state.movable, true);
  assert.deepEqual(state._meta, { k: 1 });
  const withUsage = { ...chatState(), activeTurn: { ...chatState().activeTurn, usage: { inputTokens: 1, outputTokens: 2 } } };
  const used = v1.chatReducer(v1.chatReducer(withUsage, delta), delta);
  assert.deepEqual(used.activeTurn.usage, { inputTokens: 1, outputTokens: 2 });
  assert.equal(used.activeTurn.responseParts[0].content, 'aa');
});
