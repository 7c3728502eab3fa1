// The package's AHP 1.0 entry (`ahp-wasm`) against the real `ahp-host` (started as a child
// process, over a real WebSocket): two clients on one session's default chat (an optimistic
// turn, the built-in agent's answer, equal mirrors and a fresh subscription), automations run
// by an interval schedule and by `runAutomation` (the live mirrors equal fresh snapshots),
// more chats by `createChat` (named and opaque, with an `initialMessage`; an optimistic turn in
// one, the agent answering in that chat only, `disposeChat`, `moveChat`), and bad input on the chat and
// automation commands (typed errors, nothing changed, connections alive).
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh and
// `cargo build -p ahp-host`; AHP_HOST_BIN overrides the host binary's path)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AhpClient, RpcError } from 'ahp-wasm';
import { startHost } from './host.mjs';
import { settle } from './scripted-peer.mjs';

// The automation commands are not among the SDK's root commands (whose `channel` it fills in):
// they name the root channel themselves, as ahp-host's own tests do.
const ROOT = 'ahp-root://';
const CATALOGUE = 'ahp-automations://';

// Node 20 has a global WebSocket only with --experimental-websocket; `ws` otherwise.
const WebSocketImpl = globalThis.WebSocket ?? (await import('ws')).default;

/** A 1.0 client of `host`, closed when the test ends. */
async function connect(t, host, options = {}) {
  const client = await AhpClient.connect(host.wsUrl, { token: host.token, WebSocket: WebSocketImpl, ...options });
  t.after(() => client.close());
  assert.equal(client.serverInfo.protocolVersion, '1.0.0');
  return client;
}

/** Waits until `pred()` gives a truthy value (polling); that value. */
async function until(what, pred, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = pred();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await settle(20);
  }
}

/** A subscription's state as plain JSON (the frozen mirror, compared by value). */
const plain = (sub) => JSON.parse(JSON.stringify(sub.state));

const markdown = (turn) =>
  turn.responseParts
    .filter((p) => p.kind === 'markdown')
    .map((p) => p.content)
    .join('');

// --- chats --------------------------------------------------------------------------------

test('two 1.0 clients on a default chat: an optimistic turn, the agent answers, mirrors equal a fresh subscription', async (t) => {
  const host = await startHost(t);
  const a = await connect(t, host);
  const b = await connect(t, host);
  const id = `v1-chat-${Date.now()}`;
  const session = `ahp-session:/${id}`;
  await a.createSession({ channel: session });
  const aSession = await a.subscribe(session);
  const chatUri = aSession.state.defaultChat;
  assert.equal(chatUri, `ahp-chat:/${id}/default`, 'ahp-host names the default chat after the session');
  const aChat = await a.subscribe(chatUri);
  const bSession = await b.subscribe(session);
  const bChat = await b.subscribe(chatUri);
  assert.deepEqual(aChat.state.turns, []);
  assert.deepEqual(plain(bChat), plain(aChat));

  // B sees the turn arrive from the host; A sees it at once, before any echo.
  const bSawTurn = new Promise((resolve) => bChat.onChange((s) => s.activeTurn?.id === 'turn-1' && resolve()));
  const echoed = [];
  aChat.onChange((_s, info) => echoed.push(info.pendingCount));
  const seq = aChat.dispatch({
    type: 'chat/turnStarted',
    turnId: 'turn-1',
    startedAt: new Date().toISOString(),
    message: { text: 'Hello from a 1.0 client\n/long 3', origin: { kind: 'user' } },
  });
  assert.ok(seq > 0);
  assert.equal(aChat.state.activeTurn?.id, 'turn-1', 'the turn is in the state at once');
  assert.equal(aChat.pendingCount, 1, 'and awaits its echo');
  assert.equal(aChat.confirmedState.activeTurn, undefined, 'the host has not confirmed it yet');
  await bSawTurn;

  // The built-in agent answers in the chat; the turn completes for both clients.
  const done = (sub) => sub.state.turns.length === 1 && !sub.state.activeTurn && sub.pendingCount === 0;
  await until('both clients to see the turn complete', () => done(aChat) && done(bChat));
  const [turn] = aChat.state.turns;
  assert.equal(turn.id, 'turn-1');
  assert.equal(turn.state, 'complete', JSON.stringify(turn));
  assert.equal(turn.message.text, 'Hello from a 1.0 client\n/long 3');
  assert.match(markdown(turn), /Line 3 of 3/, 'the agent streamed its answer');
  assert.ok(echoed.includes(0), 'the echo confirmed the own turn');

  // Let what follows a turn (chat summary, session status) arrive, then compare with a
  // third client's fresh subscription.
  await settle(300);
  const c = await connect(t, host);
  const cSession = await c.subscribe(session);
  const cChat = await c.subscribe(chatUri);
  assert.deepEqual(plain(aChat), plain(cChat), "A's chat mirror equals a fresh subscription");
  assert.deepEqual(plain(bChat), plain(cChat), "B's chat mirror equals a fresh subscription");
  assert.deepEqual(plain(aSession), plain(cSession), "A's session mirror equals a fresh subscription");
  assert.deepEqual(plain(bSession), plain(cSession), "B's session mirror equals a fresh subscription");
  assert.deepEqual(JSON.parse(JSON.stringify(aChat.confirmedState)), plain(cChat));
});

/** Whether `sub`'s chat has `n` turns, none running, nothing of its own awaiting an echo. */
const idle = (sub, n) => sub.state.turns.length === n && !sub.state.activeTurn && sub.pendingCount === 0;

/** The chat URIs a session mirror lists, in order. */
const chatsOf = (sub) => sub.state.chats.map((c) => c.resource);

/** Asserts `promise` rejects with an `RpcError` of `code` whose message matches `re`. */
async function rejectsWith(promise, code, re) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof RpcError, `${e?.name}: ${e?.message}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, re);
    return true;
  });
}

test('two 1.0 clients, a second chat by createChat: an optimistic turn there, the agent answers in it only, fresh subscriptions equal; disposeChat, moveChat; bad chat commands are typed errors', async (t) => {
  const host = await startHost(t);
  const a = await connect(t, host);
  const b = await connect(t, host);
  const id = `v1-chats-${Date.now()}`;
  const session = `ahp-session:/${id}`;
  await a.createSession({ channel: session });
  const aSession = await a.subscribe(session);
  const bSession = await b.subscribe(session);
  const defaultChat = aSession.state.defaultChat;
  const aDefault = await a.subscribe(defaultChat);
  const defaultBefore = plain(aDefault);

  // The named form: ahp-chat:/<session id>/<name>. Both session mirrors list it after the default.
  const second = `ahp-chat:/${id}/second`;
  assert.equal(await a.createChat({ channel: session, chat: second }), undefined);
  await until('both session mirrors to list the second chat', () =>
    chatsOf(aSession).includes(second) && chatsOf(bSession).includes(second));
  assert.deepEqual(chatsOf(aSession), [defaultChat, second]);
  assert.equal(aSession.state.defaultChat, defaultChat, 'the default chat stays the default');
  const aChat = await a.subscribe(second);
  const bChat = await b.subscribe(second);
  assert.deepEqual(aChat.state.turns, []);
  assert.deepEqual(plain(bChat), plain(aChat));

  // An optimistic turn in the second chat: in A's state at once, B sees it from the host.
  const bSawTurn = new Promise((resolve) => bChat.onChange((s) => s.activeTurn?.id === 'chat2-turn-1' && resolve()));
  const seq = aChat.dispatch({
    type: 'chat/turnStarted',
    turnId: 'chat2-turn-1',
    startedAt: new Date().toISOString(),
    message: { text: 'Hello, second chat\n/long 2', origin: { kind: 'user' } },
  });
  assert.ok(seq > 0);
  assert.equal(aChat.state.activeTurn?.id, 'chat2-turn-1', 'the turn is in the state at once');
  assert.equal(aChat.pendingCount, 1, 'and awaits its echo');
  assert.equal(aChat.confirmedState.activeTurn, undefined, 'the host has not confirmed it yet');
  await bSawTurn;
  await until('both clients to see the second chat\'s turn complete', () => idle(aChat, 1) && idle(bChat, 1));
  const [turn] = aChat.state.turns;
  assert.equal(turn.id, 'chat2-turn-1');
  assert.equal(turn.state, 'complete', JSON.stringify(turn));
  assert.equal(turn.message.text, 'Hello, second chat\n/long 2');
  assert.match(markdown(turn), /Line 2 of 2/, 'the agent answered in the second chat');
  assert.deepEqual(plain(aDefault), defaultBefore, 'the default chat is unchanged');

  // An opaque chat URI with an initialMessage: the host starts its first turn itself.
  const third = `ahp-chat:/${crypto.randomUUID()}`;
  await a.createChat({
    channel: session,
    chat: third,
    initialMessage: { text: 'First words of a third chat\n/long 1', origin: { kind: 'user' } },
  });
  await until('both session mirrors to list the third chat', () =>
    chatsOf(aSession).includes(third) && chatsOf(bSession).includes(third));
  const aThird = await a.subscribe(third);
  const bThird = await b.subscribe(third);
  await until('the initial message\'s turn to complete', () => idle(aThird, 1) && idle(bThird, 1));
  assert.equal(aThird.state.turns[0].message.text, 'First words of a third chat\n/long 1');
  assert.equal(aThird.state.turns[0].state, 'complete', JSON.stringify(aThird.state.turns[0]));
  assert.match(markdown(aThird.state.turns[0]), /Line 1 of 1/);
  assert.equal(aChat.state.turns.length, 1, 'the second chat did not get the third\'s turn');
  assert.deepEqual(plain(aDefault), defaultBefore, 'the default chat is still unchanged');

  // A third client's fresh subscriptions equal A's and B's mirrors.
  await settle(300);
  const c = await connect(t, host);
  const fresh = {
    session: plain(await c.subscribe(session)),
    default: plain(await c.subscribe(defaultChat)),
    second: plain(await c.subscribe(second)),
    third: plain(await c.subscribe(third)),
  };
  assert.deepEqual([...chatsOf(aSession)].sort(), [defaultChat, second, third].sort(), 'the session lists all three chats');
  const bDefault = await b.subscribe(defaultChat);
  for (const [who, mirrors] of [['A', { session: aSession, default: aDefault, second: aChat, third: aThird }],
    ['B', { session: bSession, default: bDefault, second: bChat, third: bThird }]]) {
    for (const [what, sub] of Object.entries(mirrors)) {
      assert.deepEqual(plain(sub), fresh[what], `${who}'s ${what} mirror equals a fresh subscription`);
    }
  }

  // disposeChat (by B): the second chat leaves both session mirrors; the others stay.
  assert.equal(await b.disposeChat({ channel: second }), undefined);
  await until('the second chat gone from both session mirrors', () =>
    !chatsOf(aSession).includes(second) && !chatsOf(bSession).includes(second));
  assert.deepEqual(chatsOf(aSession), chatsOf(bSession));
  assert.ok(chatsOf(aSession).includes(defaultChat) && chatsOf(aSession).includes(third));
  await settle(200);
  const before = { session: plain(aSession), default: plain(aDefault), third: plain(aThird) };

  // Bad chat commands: typed errors, nothing changed.
  await rejectsWith(a.disposeChat({ channel: defaultChat }), -32602, /default chat/);
  await rejectsWith(b.disposeChat({ channel: second }), -32008, /no such chat/);
  const missing = `ahp-session:/missing-${id}`;
  await rejectsWith(a.createChat({ channel: missing, chat: `ahp-chat:/missing-${id}/x` }), -32001, /no session/);
  await rejectsWith(
    b.moveChat({ channel: third, destination: { kind: 'session', session: missing } }),
    -32001,
    /no session/,
  );
  await rejectsWith(a.createChat({ channel: session, chat: third }), -32010, /exists/);
  await rejectsWith(a.createChat({ channel: session, chat: `ahp-chat:/${id}/default` }), -32602, /chat/);
  await settle(200);
  assert.deepEqual(plain(aSession), before.session, 'A\'s session is as before');
  assert.deepEqual(plain(bSession), before.session, 'B\'s session is as before');
  assert.deepEqual(plain(aDefault), before.default);
  assert.deepEqual(plain(aThird), before.third);
  const d = await connect(t, host);
  assert.deepEqual(plain(await d.subscribe(session)), before.session, 'a fresh subscription shows nothing changed');
  assert.deepEqual(plain(await d.subscribe(third)), before.third);

  // The clients let go of the disposed chat (session/chatRemoved tells them to, the spec says;
  // the SDK keeps a subscription until it is unsubscribed); it is not subscribable any more.
  aChat.unsubscribe();
  bChat.unsubscribe();
  for (const client of [a, b, d]) {
    await rejectsWith(client.subscribe(second), -32001, /ahp-chat:/);
  }

  // moveChat of the third chat to another session: it leaves this one's chats on both clients,
  // joins the other's, keeps its turns, and takes a further turn there.
  const otherId = `${id}-other`;
  const other = `ahp-session:/${otherId}`;
  await b.createSession({ channel: other });
  const aOther = await a.subscribe(other);
  const bOther = await b.subscribe(other);
  assert.deepEqual(await a.moveChat({ channel: third, destination: { kind: 'session', session: other } }), { session: other });
  await until('the third chat to move on both clients', () =>
    !chatsOf(aSession).includes(third) && !chatsOf(bSession).includes(third)
    && chatsOf(aOther).includes(third) && chatsOf(bOther).includes(third));
  assert.deepEqual(chatsOf(aSession), [defaultChat]);
  assert.deepEqual(chatsOf(bOther), chatsOf(aOther));
  assert.equal(chatsOf(aOther)[0], third, 'placed first (no `after`)');
  assert.deepEqual(plain(aThird), before.third, 'the moved chat keeps its state');
  aThird.dispatch({
    type: 'chat/turnStarted',
    turnId: 'moved-turn-1',
    startedAt: new Date().toISOString(),
    message: { text: 'After the move\n/long 1', origin: { kind: 'user' } },
  });
  await until('a turn in the moved chat', () => idle(aThird, 2) && idle(bThird, 2));
  assert.equal(aThird.state.turns[1].state, 'complete', JSON.stringify(aThird.state.turns[1]));
  await settle(300);
  const e = await connect(t, host);
  assert.deepEqual(plain(await e.subscribe(other)), plain(aOther), 'a fresh subscription of the destination equals A\'s mirror');
  assert.deepEqual(plain(await e.subscribe(other)), plain(bOther));
  assert.deepEqual(plain(await e.subscribe(session)), plain(bSession));
  assert.deepEqual(plain(await e.subscribe(third)), plain(bThird));

  // Both connections stay usable: B starts a turn in the default chat, both see it answered.
  await a.ping();
  await b.ping();
  bDefault.dispatch({
    type: 'chat/turnStarted',
    turnId: 'default-turn-1',
    startedAt: new Date().toISOString(),
    message: { text: 'Still there?\n/long 1', origin: { kind: 'user' } },
  });
  await until('the default chat\'s turn to complete for both', () => idle(aDefault, 1) && idle(bDefault, 1));
  assert.equal(aDefault.state.turns[0].state, 'complete', JSON.stringify(aDefault.state.turns[0]));
  assert.equal(aThird.state.turns.length, 2, 'the moved chat did not get the default chat\'s turn');
});

// --- automations --------------------------------------------------------------------------

const interval = (id, seconds) => ({
  kind: 'event',
  id,
  type: 'ahp-host.interval',
  title: 'Interval',
  events: [{ id: 'elapsed', title: 'Interval elapsed' }],
  config: { seconds },
});

const definition = (title, text, triggers, extra = {}) => ({
  title,
  message: { text, origin: { kind: 'automation' } },
  session: {},
  enabled: true,
  triggers,
  ...extra,
});

const entryOf = (catalogue, uri) => catalogue.state.entries.find((e) => e.resource === uri);
const statuses = (entry) => (entry?.runs ?? []).map((r) => r.lifecycle.status);

/** The turns of a session's default chat, from a fresh subscription (unsubscribed after). */
async function turnsOf(client, session) {
  const uri = session.replace('ahp-session:/', 'ahp-chat:/') + '/default';
  const chat = await client.subscribe(uri);
  const turns = chat.state.turns;
  chat.unsubscribe();
  return turns;
}

test('automations on a 1 s interval: runs create sessions whose turns complete; runAutomation, fetchAutomationRuns; mirrors equal fresh snapshots', async (t) => {
  const host = await startHost(t);
  const client = await connect(t, host);
  const watcher = await connect(t, host);
  for (const method of ['runAutomation', 'fetchAutomationRuns', 'listAutomationTriggerDefinitions']) {
    assert.equal(typeof client[method], 'function', `the 1.0 client has ${method}`);
  }
  const { items: triggers } = await client.listAutomationTriggerDefinitions({ channel: ROOT });
  assert.ok(triggers.some((d) => d.type === 'ahp-host.interval'), JSON.stringify(triggers));

  const catalogue = await client.subscribe(CATALOGUE);
  const watched = await watcher.subscribe(CATALOGUE);
  assert.deepEqual(catalogue.state.entries, []);
  const uri = 'ahp-automation:/every-second';
  const rejected = [];
  client.onEvent((e) => e.type === 'rejected' && rejected.push(e));
  catalogue.dispatch({
    type: 'automation/createRequested',
    resource: uri,
    definition: definition('Every second', 'hello from a schedule', [interval('tick', 1)], {
      disableConditions: [{ kind: 'afterRuns', max: 2 }],
    }),
  });
  // Two scheduled runs, then the automation disables itself; both runs complete.
  const entry = await until('two completed scheduled runs', () => {
    const e = entryOf(catalogue, uri);
    return e && e.definition.enabled === false && statuses(e).join() === 'completed,completed' && e;
  });
  assert.deepEqual(rejected, []);
  assert.equal(entry.runCount, 2);
  for (const run of entry.runs) {
    assert.equal(run.origin.kind, 'trigger', JSON.stringify(run));
    assert.equal(run.origin.triggerId, 'tick');
    const turns = await turnsOf(client, run.primarySession);
    assert.equal(turns.length, 1, JSON.stringify(turns));
    assert.equal(turns[0].message.text, 'hello from a schedule');
    assert.equal(turns[0].state, 'complete', JSON.stringify(turns[0]));
  }

  // A manual run through the typed command; the same requestId gives the same run.
  const { resource: run } = await client.runAutomation({ channel: ROOT, automation: uri, requestId: 'manual-1' });
  assert.match(run, /^ahp-automation-run:\//);
  assert.equal((await client.runAutomation({ channel: ROOT, automation: uri, requestId: 'manual-1' })).resource, run);
  const runSub = await client.subscribe(run);
  await until('the manual run to complete', () => runSub.state.lifecycle.status === 'completed');
  assert.equal(runSub.state.origin.kind, 'manual');
  const [session] = runSub.state.sessions;
  assert.equal(runSub.state.primarySession, session);
  const turns = await turnsOf(client, session);
  assert.equal(turns[0].state, 'complete', JSON.stringify(turns));
  await until('the entry to list the manual run', () => statuses(entryOf(catalogue, uri)).join() === 'completed,completed,completed');

  // fetchAutomationRuns: every run is shown already (no cursor), the entry is republished.
  assert.equal(entryOf(catalogue, uri).runsNextCursor, undefined);
  assert.deepEqual(await client.fetchAutomationRuns({ channel: ROOT, automation: uri }), {});

  // Fresh subscriptions equal the live mirrors.
  await settle(200);
  const fresh = await connect(t, host);
  const freshCatalogue = await fresh.subscribe(CATALOGUE);
  const freshRun = await fresh.subscribe(run);
  assert.equal(entryOf(freshCatalogue, uri).runs.length, 3);
  assert.deepEqual(plain(catalogue), plain(freshCatalogue));
  assert.deepEqual(plain(watched), plain(freshCatalogue), "the bystander's mirror too");
  assert.deepEqual(plain(runSub), plain(freshRun));
});

// --- bad input ----------------------------------------------------------------------------

test('bad automation input through the SDK: a malformed schedule is rejected and changes nothing; an unknown runAutomation is a typed error; connections stay usable', async (t) => {
  const host = await startHost(t);
  const client = await connect(t, host);
  const watcher = await connect(t, host);
  const catalogue = await client.subscribe(CATALOGUE);
  const watched = await watcher.subscribe(CATALOGUE);
  const good = 'ahp-automation:/good';
  catalogue.dispatch({ type: 'automation/createRequested', resource: good, definition: definition('Good', 'hi', []) });
  await until('the good automation', () => entryOf(catalogue, good) && entryOf(watched, good));
  const before = plain(catalogue);

  const rejected = [];
  client.onEvent((e) => e.type === 'rejected' && rejected.push(e));
  const bad = 'ahp-automation:/bad';
  const schedule = { kind: 'schedule', id: 's', schedule: { expression: '61 * * * *', timeZone: 'UTC' } };
  const seq = catalogue.dispatch({ type: 'automation/createRequested', resource: bad, definition: definition('Bad', 'hi', [schedule]) });
  assert.equal(catalogue.pendingCount, 1);
  await until('the rejection', () => rejected.length === 1);
  const [{ channel, rejection }] = rejected;
  assert.equal(channel, CATALOGUE);
  assert.equal(rejection.clientSeq, seq);
  assert.equal(rejection.action.type, 'automation/createRequested');
  assert.match(rejection.reason, /schedule of trigger `s`/);
  // A malformed update is refused the same way, and the entry stays as it was.
  catalogue.dispatch({ type: 'automation/updateRequested', resource: good, changes: { triggers: [{ ...schedule, schedule: { expression: '* * *', timeZone: 'UTC' } }] } });
  await until('the second rejection', () => rejected.length === 2);
  assert.match(rejected[1].rejection.reason, /exactly five/);
  assert.equal(catalogue.pendingCount, 0, 'nothing left pending');
  assert.deepEqual(plain(catalogue), before, 'the mirror is as before');
  assert.equal(entryOf(catalogue, bad), undefined);

  // runAutomation of an unknown automation: a typed RpcError (NotFound), nothing created.
  await assert.rejects(client.runAutomation({ channel: ROOT, automation: 'ahp-automation:/nope', requestId: 'r1' }), (e) => {
    assert.ok(e instanceof RpcError, `${e?.name}: ${e?.message}`);
    assert.equal(e.code, -32008, e.message);
    assert.match(e.message, /ahp-automation:\/nope/);
    return true;
  });
  await assert.rejects(client.fetchAutomationRuns({ channel: ROOT, automation: 'ahp-automation:/nope' }), (e) => e instanceof RpcError && e.code === -32008);
  // An empty requestId is invalid params.
  await assert.rejects(client.runAutomation({ channel: ROOT, automation: good, requestId: '' }), (e) => e instanceof RpcError && e.code === -32602);

  // Both connections are alive and usable; nothing changed for anyone.
  await client.ping();
  await watcher.ping();
  const fresh = await connect(t, host);
  const freshCatalogue = await fresh.subscribe(CATALOGUE);
  assert.deepEqual(plain(freshCatalogue), before);
  assert.deepEqual(plain(watched), before);
  const next = 'ahp-automation:/after';
  catalogue.dispatch({ type: 'automation/createRequested', resource: next, definition: definition('After', 'hi', []) });
  await until('an automation created after the bad input', () => entryOf(catalogue, next) && entryOf(watched, next));
  assert.equal(rejected.length, 2);
});
