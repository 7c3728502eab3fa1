// The active-client role on an AHP 1.0 connection (`ahp-wasm`) against a scripted 1.0 host:
// the claim is `session/activeClientSet`, the calls this client owns are found on the session's
// chat channels (subscribed to as the session state lists them) and answered with the
// `chat/toolCall*` actions; calls of other clients are left alone; plugin files and the
// systemMessageTransform request are answered; release is `session/activeClientRemoved`.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AhpClient, InvalidInputError, buildClientPlugin } from 'ahp-wasm';
import { ScriptedPeer, settle } from './scripted-peer.mjs';

const SESSION = 'ahp-session:/s1';
const CHAT = 'ahp-chat:/c1';
const CHAT2 = 'ahp-chat:/c2';
const T0 = '1970-01-01T00:00:01.000Z';

const chatSummary = (resource, title = 'Chat') => ({ resource, title, status: 1, modifiedAt: T0 });

function sessionState() {
  return { provider: 'test', title: 'Session', status: 1, lifecycle: 'ready', activeClients: [], chats: [chatSummary(CHAT)] };
}

function chatState(resource) {
  return {
    resource,
    title: 'Chat',
    status: 1,
    modifiedAt: T0,
    turns: [],
    activeTurn: { id: 'turn-1', startedAt: T0, message: { text: 'Hello', origin: { kind: 'user' } }, responseParts: [] },
  };
}

function peer1(handlers = {}) {
  return new ScriptedPeer({
    version: '1.0.0',
    handlers,
    states: { 'ahp-root://': { agents: [] }, [SESSION]: sessionState(), [CHAT]: chatState(CHAT), [CHAT2]: chatState(CHAT2) },
  });
}

const connect = (peer, clientId = 'me') =>
  AhpClient.connect('ws://peer.test/ahp', { transport: peer.factory, clientId, keepaliveMs: 0 });

/** The actions the client dispatched to `channel`. */
const dispatched = (peer, channel) => peer.sent('dispatchAction').filter((m) => m.params.channel === channel).map((m) => m.params.action);

/** Waits until `pred()` holds (polling); throws after `ms`. */
async function until(pred, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pred}`);
    await settle(2);
  }
}

/** The host starts a call of `toolName` owned by `owner` and makes it run (`confirmed: 'not-needed'`). */
function startCall(peer, chat, toolCallId, toolName, toolInput, owner = 'me') {
  const contributor = { kind: 'client', clientId: owner };
  peer.act(chat, { type: 'chat/toolCallStart', turnId: 'turn-1', toolCallId, toolName, displayName: toolName, contributor });
  peer.act(chat, { type: 'chat/toolCallReady', turnId: 'turn-1', toolCallId, invocationMessage: `Running ${toolName}`, toolInput, confirmed: 'not-needed' });
}

/** The first action of `type` for `toolCallId` the client dispatched to `chat` (waits for it). */
async function answer(peer, chat, type, toolCallId) {
  let found;
  await until(() => (found = dispatched(peer, chat).find((a) => a.type === type && a.toolCallId === toolCallId)));
  return found;
}

const tools = (log) => [
  {
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    async execute(input, { update, chat, session, turnId }) {
      log.push({ chat, session, turnId });
      update('working');
      return { content: `echo: ${input.text}`, structuredContent: { length: input.text.length } };
    },
  },
  { name: 'explode', execute: () => Promise.reject(Object.assign(new Error('kaboom'), { code: 'Boom' })) },
  { name: 'guarded', confirm: ({ input }) => input.allow === true, execute: () => 'allowed' },
  {
    name: 'wait',
    execute: (_input, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => { log.push('aborted'); resolve('stopped'); })),
  },
];

test('1.0: claimed with session/activeClientSet; owned calls on the chats run, answered with chat/toolCall* actions', async (t) => {
  const peer = peer1({
    // A 1.0 host may hand the input over as a reference: the client reads it.
    resourceRead: (p) => (p.uri === 'file:///inputs/tc-ref.json' ? { data: '{"text":"by reference"}', encoding: 'utf-8' } : { error: { code: -32008, message: 'no' } }),
  });
  const client = await connect(peer);
  t.after(() => client.close());
  assert.equal(client.serverInfo.protocolVersion, '1.0.0');
  const log = [];
  const plugin = buildClientPlugin(client, { id: 'kit', files: { 'skills/a/SKILL.md': 'A' } });
  const handle = await client.setActiveClient(SESSION, {
    displayName: 'node test',
    tools: tools(log),
    plugins: [plugin],
    systemMessageTransform: { sections: ['tone'] },
  });

  // The claim: one 1.0 upsert with the whole entry (1.0's plugin shape has no `enabled`).
  const [claim] = dispatched(peer, SESSION);
  assert.equal(claim.type, 'session/activeClientSet');
  assert.equal(claim.activeClient.clientId, 'me');
  assert.equal(claim.activeClient.displayName, 'node test');
  assert.deepEqual(claim.activeClient.tools.map((t) => t.name), ['echo', 'explode', 'guarded', 'wait']);
  assert.deepEqual(claim.activeClient.customizations, [
    { type: 'plugin', id: 'kit', uri: 'virtual://me/kit', name: 'kit', nonce: plugin.customization.nonce },
  ]);
  assert.deepEqual(claim.activeClient.systemMessageTransform, { sections: ['tone'] });
  assert.equal(handle.isActive, true, 'the optimistic session state lists this client');
  assert.deepEqual(client.subscription(SESSION).state.activeClients.map((c) => c.clientId), ['me']);

  // The chat the session lists is subscribed to.
  await until(() => peer.sent('subscribe').some((m) => m.params.channel === CHAT) && client.subscription(CHAT)?.state);

  // An owned call runs: progress, then the result, on the chat channel.
  startCall(peer, CHAT, 'tc-1', 'echo', '{"text":"hi"}');
  // A call another client owns (same tool name) is left alone.
  startCall(peer, CHAT, 'tc-other', 'echo', '{"text":"not mine"}', 'someone-else');
  const done = await answer(peer, CHAT, 'chat/toolCallComplete', 'tc-1');
  assert.deepEqual(done, {
    type: 'chat/toolCallComplete',
    turnId: 'turn-1',
    toolCallId: 'tc-1',
    result: { success: true, pastTenseMessage: 'Ran `echo`', content: [{ type: 'text', text: 'echo: hi' }], structuredContent: { length: 2 } },
  });
  const progress = await answer(peer, CHAT, 'chat/toolCallContentChanged', 'tc-1');
  assert.deepEqual(progress.content, [{ type: 'text', text: 'working' }]);
  assert.deepEqual(log[0], { chat: CHAT, session: SESSION, turnId: 'turn-1' });
  const part = client.subscription(CHAT).state.activeTurn.responseParts.find((p) => p.toolCall.toolCallId === 'tc-1');
  assert.equal(part.toolCall.status, 'completed', 'the own result applied to the chat mirror');

  // Referenced input is read with resourceRead first.
  startCall(peer, CHAT, 'tc-ref', 'echo', { uri: 'file:///inputs/tc-ref.json' });
  const byRef = await answer(peer, CHAT, 'chat/toolCallComplete', 'tc-ref');
  assert.deepEqual(byRef.result.content, [{ type: 'text', text: 'echo: by reference' }]);
  assert.deepEqual(peer.sent('resourceRead').map((m) => m.params.uri), ['file:///inputs/tc-ref.json']);

  // A failing tool: a failed result with its message and code.
  startCall(peer, CHAT, 'tc-2', 'explode', '{}');
  const failed = await answer(peer, CHAT, 'chat/toolCallComplete', 'tc-2');
  assert.equal(failed.result.success, false);
  assert.deepEqual(failed.result.error, { message: 'kaboom', code: 'Boom' });

  // Input that does not match the schema never reaches execute.
  startCall(peer, CHAT, 'tc-3', 'echo', '{"text":5}');
  const invalid = await answer(peer, CHAT, 'chat/toolCallComplete', 'tc-3');
  assert.equal(invalid.result.success, false);
  assert.equal(invalid.result.error.code, 'InvalidInput');

  // The app's confirmation refuses, a tool this client lacks: chat/toolCallConfirmed denied.
  startCall(peer, CHAT, 'tc-4', 'guarded', '{"allow":false}');
  startCall(peer, CHAT, 'tc-5', 'nosuch', '{}');
  for (const id of ['tc-4', 'tc-5']) {
    const denied = await answer(peer, CHAT, 'chat/toolCallConfirmed', id);
    assert.deepEqual(denied, { type: 'chat/toolCallConfirmed', turnId: 'turn-1', toolCallId: id, approved: false, reason: 'denied' });
  }
  startCall(peer, CHAT, 'tc-6', 'guarded', '{"allow":true}');
  assert.equal((await answer(peer, CHAT, 'chat/toolCallComplete', 'tc-6')).result.success, true);

  // A chat added to the session later is followed too.
  peer.act(SESSION, { type: 'session/chatAdded', summary: chatSummary(CHAT2, 'Second') });
  await until(() => client.subscription(CHAT2)?.state);
  startCall(peer, CHAT2, 'tc-7', 'echo', '{"text":"two"}');
  const second = await answer(peer, CHAT2, 'chat/toolCallComplete', 'tc-7');
  assert.deepEqual(second.result.content, [{ type: 'text', text: 'echo: two' }]);

  // Nothing was ever dispatched for the other client's call.
  await settle(10);
  assert.deepEqual(dispatched(peer, CHAT).filter((a) => a.toolCallId === 'tc-other'), []);
  const other = client.subscription(CHAT).state.activeTurn.responseParts.find((p) => p.toolCall.toolCallId === 'tc-other');
  assert.equal(other.toolCall.status, 'running');

  // Cancelling the turn aborts a running call.
  startCall(peer, CHAT2, 'tc-8', 'wait', '{}');
  await until(() => client.subscription(CHAT2).state.activeTurn?.responseParts.some((p) => p.toolCall?.toolCallId === 'tc-8'));
  await settle(5);
  peer.act(CHAT2, { type: 'chat/turnCancelled', turnId: 'turn-1', duration: 10 });
  await until(() => log.includes('aborted'));

  // Tool updates publish the whole entry again (1.0 has no tools-only action).
  handle.updateTools([{ name: 'only', execute: () => 'x' }]);
  const update = dispatched(peer, SESSION).at(-1);
  assert.equal(update.type, 'session/activeClientSet');
  assert.deepEqual(update.activeClient.tools.map((t) => t.name), ['only']);
  assert.equal(update.activeClient.customizations.length, 1, 'the plugins stay published');

  // Release: session/activeClientRemoved, and the chat subscriptions made for the role end.
  assert.equal(client.releaseActiveClient(SESSION), true);
  assert.deepEqual(dispatched(peer, SESSION).at(-1), { type: 'session/activeClientRemoved', clientId: 'me' });
  assert.equal(handle.isActive, false);
  assert.deepEqual(peer.sent('unsubscribe').map((m) => m.params.channel).sort(), [CHAT, CHAT2]);
  assert.equal(client.releaseActiveClient(SESSION), false, 'nothing left to release');
  assert.throws(() => handle.updateTools([]), (e) => e.kind === 'closed');

  // A role set by a raw dispatch (no handle) is released the 1.0 way too.
  client.subscription(SESSION).dispatch({ type: 'session/activeClientSet', activeClient: { clientId: 'me', tools: [] } });
  assert.equal(client.releaseActiveClient(SESSION), true);
  assert.deepEqual(dispatched(peer, SESSION).at(-1), { type: 'session/activeClientRemoved', clientId: 'me' });
  client.close();
});

test('1.0: a running call is aborted when the role is released, and its late result is not sent', async (t) => {
  const peer = peer1();
  const client = await connect(peer);
  t.after(() => client.close());
  let signal;
  const handle = await client.setActiveClient(SESSION, {
    tools: [{ name: 'wait', execute: (_i, ctx) => new Promise((resolve) => { signal = ctx.signal; signal.addEventListener('abort', () => resolve('late')); }) }],
  });
  await until(() => client.subscription(CHAT)?.state);
  startCall(peer, CHAT, 'tc-1', 'wait', '');
  await until(() => signal);
  handle.release();
  assert.equal(signal.aborted, true);
  await settle(10);
  assert.deepEqual(dispatched(peer, CHAT), [], 'no result after the release');
  assert.deepEqual(dispatched(peer, SESSION).at(-1), { type: 'session/activeClientRemoved', clientId: 'me' });
  client.close();
});

test('1.0: a chat removed from the session is left: its running call aborted, the subscription made for it ended', async (t) => {
  const peer = peer1();
  const client = await connect(peer);
  t.after(() => client.close());
  let signal;
  await client.setActiveClient(SESSION, {
    tools: [{ name: 'wait', execute: (_i, ctx) => new Promise((resolve) => { signal = ctx.signal; signal.addEventListener('abort', () => resolve('late')); }) }],
  });
  await until(() => client.subscription(CHAT)?.state);
  startCall(peer, CHAT, 'tc-1', 'wait', '{}');
  await until(() => signal);
  peer.act(SESSION, { type: 'session/chatRemoved', chat: CHAT });
  await until(() => signal.aborted);
  assert.deepEqual(peer.sent('unsubscribe').map((m) => m.params.channel), [CHAT]);
  await settle(10);
  assert.deepEqual(dispatched(peer, CHAT), [], 'no result for a call of a removed chat');
});

test('1.0: a handle replacing this client\'s earlier one takes its chats over without running a started call twice', async (t) => {
  const peer = peer1();
  const client = await connect(peer);
  t.after(() => client.close());
  let runs = 0;
  let finish;
  const slow = { name: 'slow', execute: () => { runs += 1; return new Promise((resolve) => (finish = resolve)); } };
  const first = await client.setActiveClient(SESSION, { tools: [slow] });
  await until(() => client.subscription(CHAT)?.state);
  startCall(peer, CHAT, 'tc-1', 'slow', '{}');
  await until(() => runs === 1);
  const second = await client.setActiveClient(SESSION, { displayName: 'again', tools: [slow] });
  assert.notEqual(second, first);
  await settle(10);
  assert.equal(runs, 1, 'the running call is not started again');
  finish('done');
  const done = await answer(peer, CHAT, 'chat/toolCallComplete', 'tc-1');
  assert.deepEqual(done.result.content, [{ type: 'text', text: 'done' }]);
  startCall(peer, CHAT, 'tc-2', 'slow', '{}');
  await until(() => runs === 2);
  assert.equal(peer.sent('subscribe').filter((m) => m.params.channel === CHAT).length, 1, 'the chat subscription is reused');
  second.release();
  assert.deepEqual(peer.sent('unsubscribe').map((m) => m.params.channel), [CHAT], 'and ended by the handle that has it');
});

test('1.0: the host reads published plugin files and asks for the systemMessageTransform', async (t) => {
  const peer = peer1();
  const client = await connect(peer);
  t.after(() => client.close());
  const plugin = buildClientPlugin(client, { id: 'kit', name: 'Kit', files: { 'skills/review/SKILL.md': '---\nname: review\n---\nReview.', 'rules/style.md': 'Be brief.' } });
  await client.setActiveClient(SESSION, { plugins: [plugin], systemMessageTransform: { sections: ['tone'] } });
  client.onSystemMessageTransform(({ channel, sections }) => ({ tone: `${sections.tone.content} (from ${channel})`, invented: 'dropped' }));

  const response = async (id) => {
    let found;
    await until(() => (found = peer.received.find((m) => m.id === id && m.method === undefined)));
    return found;
  };
  const file = 'virtual://me/kit/skills/review/SKILL.md';
  peer.push({ id: 'r1', method: 'resourceRead', params: { channel: 'ahp-root://', uri: file } });
  assert.deepEqual((await response('r1')).result, { data: '---\nname: review\n---\nReview.', encoding: 'utf-8', contentType: 'text/markdown' });
  peer.push({ id: 'r2', method: 'resourceList', params: { channel: 'ahp-root://', uri: 'virtual://me/kit' } });
  assert.deepEqual((await response('r2')).result.entries, [{ name: 'rules', type: 'directory' }, { name: 'skills', type: 'directory' }]);
  peer.push({ id: 'r3', method: 'resourceRead', params: { channel: 'ahp-root://', uri: 'virtual://me/kit/nothing.md' } });
  assert.equal((await response('r3')).error.code, -32008);
  peer.push({ id: 'r4', method: 'systemMessageTransform', params: { channel: SESSION, sections: { tone: { content: 'Be formal.' } } } });
  assert.deepEqual((await response('r4')).result, { sections: { tone: { content: `Be formal. (from ${SESSION})` } } });
  client.close();
});

test('1.0: the role is set again after a reconnect whose snapshot no longer lists this client', async (t) => {
  const peer = peer1();
  const client = await AhpClient.connect('ws://peer.test/ahp', { transport: peer.factory, clientId: 'me', keepaliveMs: 0, reconnect: { initialDelayMs: 5 } });
  t.after(() => client.close());
  await client.setActiveClient(SESSION, { tools: [{ name: 'ping', execute: () => 'pong' }] });
  const claims = () => dispatched(peer, SESSION).filter((a) => a.type === 'session/activeClientSet').length;
  assert.equal(claims(), 1);
  peer.drop(); // the reconnect's snapshot has activeClients: [] (the host removed this client)
  await until(() => claims() === 2);
  // Bad options are still InvalidInputErrors on 1.0, before anything is sent.
  await assert.rejects(client.setActiveClient(SESSION, { tools: [{ name: 'bad name' }] }), InvalidInputError);
  assert.equal(claims(), 2);
  client.close();
});
