// The package's AHP 1.0 entry (`ahp-wasm`) against the real `ahp-host` (started as a child
// process, over a real WebSocket): two clients on one session's default chat (an optimistic
// turn, the built-in agent's answer, equal mirrors and a fresh subscription), automations run
// by an interval schedule and by `runAutomation` (the live mirrors equal fresh snapshots), and
// bad input on the automation commands (typed errors, nothing changed, connections alive).
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
