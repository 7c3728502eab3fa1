// The package's AHP 1.0 entry (`/pkg/web.js`) in headless Chromium against the real `ahp-host`
// (which serves the page, so the Origin check passes): two clients in one page on one session,
// an optimistic turn in the default chat, a second chat made by `createChat` with a turn of its
// own, and a third client's fresh subscriptions equal to both mirrors; an automation on a 1 s
// interval whose run's session turn completes, followed in the page's mirrors; the host's
// refusals cross into the page as `RpcError`s (Error subclasses) with their `code`.
// Run: node --experimental-websocket --test tests/browser/client-host-v1.test.mjs (after
// scripts/build-pkg.sh and `cargo build -p ahp-host`; AHP_HOST_BIN overrides the host binary)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WAIT, sdkPage } from './harness.mjs';

/** The page loads the 1.0 entry; `window.until` waits on a subscription's state. */
async function setup(t) {
  const { host, page, errors } = await sdkPage(t, { entry: 'web.js', hostArgs: ['--chunk-delay-ms', '5'] });
  await page.evaluate((wait) => {
    // Resolves with pred(state) once it is truthy (checked now and on every change).
    window.until = (sub, pred, what, ms = wait) => new Promise((resolve, reject) => {
      let off = () => {};
      const timer = setTimeout(() => {
        off();
        reject(new Error(`${what}: not within ${ms} ms: ${JSON.stringify(sub.state).slice(0, 3000)}`));
      }, ms);
      const check = () => {
        const value = pred(sub.state);
        if (value) {
          off();
          clearTimeout(timer);
          resolve(value);
        }
        return value;
      };
      off = sub.onChange(check);
      check();
    });
    window.settle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    window.plain = (sub) => JSON.parse(JSON.stringify(sub.state));
  }, WAIT);
  return { host, page, errors };
}

test('Chromium, AHP 1.0: two clients, an optimistic turn, a second chat with a turn, fresh subscriptions equal both mirrors; typed errors', async (t) => {
  const { host, page, errors } = await setup(t);
  const r = await page.evaluate(async ({ url, token }) => {
    const { AhpClient, RpcError, AhpError } = window.sdk;
    const a = await AhpClient.connect(url, { token });
    const b = await AhpClient.connect(url, { token });
    const versions = [a.serverInfo.protocolVersion, b.serverInfo.protocolVersion];
    const id = `browser-v1-${crypto.randomUUID()}`;
    const session = `ahp-session:/${id}`;
    await a.createSession({ channel: session });
    const aSession = await a.subscribe(session);
    const bSession = await b.subscribe(session);
    const defaultChat = aSession.state.defaultChat;
    const aDefault = await a.subscribe(defaultChat);
    const bDefault = await b.subscribe(defaultChat);
    const done = (sub, n) => sub.state.turns.length === n && !sub.state.activeTurn && sub.pendingCount === 0;

    // An optimistic turn in the default chat.
    aDefault.dispatch({
      type: 'chat/turnStarted', turnId: 'b1', startedAt: new Date().toISOString(),
      message: { text: 'Hello from Chromium\n/long 3', origin: { kind: 'user' } },
    });
    const optimistic = { id: aDefault.state.activeTurn?.id, pending: aDefault.pendingCount, confirmed: aDefault.confirmedState.activeTurn ?? null };
    await window.until(bDefault, (s) => s.activeTurn?.id === 'b1' || s.turns.some((x) => x.id === 'b1'), 'B sees the turn');
    await Promise.all([window.until(aDefault, () => done(aDefault, 1), 'A: turn done'), window.until(bDefault, () => done(bDefault, 1), 'B: turn done')]);

    // A second chat (createChat), a turn there from B.
    const second = `ahp-chat:/${id}/second`;
    await a.createChat({ channel: session, chat: second });
    const listed = (sub) => sub.state.chats.some((c) => c.resource === second);
    await Promise.all([window.until(aSession, () => listed(aSession), 'A lists the chat'), window.until(bSession, () => listed(bSession), 'B lists the chat')]);
    const aChat = await a.subscribe(second);
    const bChat = await b.subscribe(second);
    bChat.dispatch({
      type: 'chat/turnStarted', turnId: 'b2', startedAt: new Date().toISOString(),
      message: { text: 'Hello, second chat\n/long 2', origin: { kind: 'user' } },
    });
    const optimisticSecond = bChat.state.activeTurn?.id;
    await Promise.all([window.until(aChat, () => done(aChat, 1), 'A: second chat done'), window.until(bChat, () => done(bChat, 1), 'B: second chat done')]);

    // A third client's fresh subscriptions.
    await window.settle(300);
    const c = await AhpClient.connect(url, { token });
    const fresh = {
      session: window.plain(await c.subscribe(session)),
      default: window.plain(await c.subscribe(defaultChat)),
      second: window.plain(await c.subscribe(second)),
    };
    const mirrors = {
      a: { session: window.plain(aSession), default: window.plain(aDefault), second: window.plain(aChat) },
      b: { session: window.plain(bSession), default: window.plain(bDefault), second: window.plain(bChat) },
    };

    // The host's refusals: RpcErrors with the code; the connections stay usable.
    const refusal = async (promise) => {
      try {
        await promise;
        return 'resolved';
      } catch (e) {
        return { name: e.name, code: e.code, message: e.message, rpc: e instanceof RpcError, ahp: e instanceof AhpError, error: e instanceof Error };
      }
    };
    const refusals = {
      missingSession: await refusal(a.createChat({ channel: `ahp-session:/missing-${id}`, chat: `ahp-chat:/missing-${id}/x` })),
      disposeDefault: await refusal(b.disposeChat({ channel: defaultChat })),
      moveToMissing: await refusal(a.moveChat({ channel: second, destination: { kind: 'session', session: `ahp-session:/missing-${id}` } })),
    };
    await a.ping();
    await b.ping();
    const after = window.plain(await c.subscribe(session));
    for (const client of [a, b, c]) client.close();
    return { versions, defaultChat, second, optimistic, optimisticSecond, fresh, mirrors, refusals, after,
      turns: { default: mirrors.a.default.turns, second: mirrors.a.second.turns } };
  }, { url: host.wsUrl, token: host.token });

  assert.deepEqual(errors, []);
  assert.deepEqual(r.versions, ['1.0.0', '1.0.0']);
  assert.deepEqual(r.optimistic, { id: 'b1', pending: 1, confirmed: null }, 'the turn is in A\'s state before the echo');
  assert.equal(r.optimisticSecond, 'b2');
  assert.equal(r.turns.default.length, 1);
  assert.equal(r.turns.default[0].state, 'complete', JSON.stringify(r.turns.default[0]));
  assert.match(JSON.stringify(r.turns.default[0]), /Line 3 of 3/);
  assert.equal(r.turns.second.length, 1, 'the second chat has its own turn only');
  assert.equal(r.turns.second[0].id, 'b2');
  assert.match(JSON.stringify(r.turns.second[0]), /Line 2 of 2/);
  assert.deepEqual(r.fresh.session.chats.map((c) => c.resource).sort(), [r.defaultChat, r.second].sort(), 'the session lists both chats');
  for (const who of ['a', 'b']) {
    for (const what of ['session', 'default', 'second']) {
      assert.deepEqual(r.mirrors[who][what], r.fresh[what], `${who}'s ${what} mirror equals a fresh subscription`);
    }
  }
  const typed = (code) => ({ rpc: true, ahp: true, error: true, code });
  const shape = (e) => ({ rpc: e.rpc, ahp: e.ahp, error: e.error, code: e.code });
  assert.deepEqual(shape(r.refusals.missingSession), typed(-32001), JSON.stringify(r.refusals.missingSession));
  assert.deepEqual(shape(r.refusals.disposeDefault), typed(-32602), JSON.stringify(r.refusals.disposeDefault));
  assert.deepEqual(shape(r.refusals.moveToMissing), typed(-32001), JSON.stringify(r.refusals.moveToMissing));
  assert.equal(r.refusals.missingSession.name, 'RpcError');
  assert.deepEqual(r.after, r.fresh.session, 'the refused commands changed nothing');
});

test('Chromium, AHP 1.0: an automation on a 1 s interval runs; its session turn completes in the page\'s mirrors', async (t) => {
  const { host, page, errors } = await setup(t);
  const r = await page.evaluate(async ({ url, token }) => {
    const { AhpClient } = window.sdk;
    const client = await AhpClient.connect(url, { token });
    const catalogue = await client.subscribe('ahp-automations://');
    const uri = 'ahp-automation:/browser-every-second';
    const rejected = [];
    client.onEvent((e) => e.type === 'rejected' && rejected.push(e.rejection.reason));
    catalogue.dispatch({
      type: 'automation/createRequested',
      resource: uri,
      definition: {
        title: 'Every second (browser)',
        message: { text: 'hello from a browser schedule', origin: { kind: 'automation' } },
        session: {},
        enabled: true,
        triggers: [{ kind: 'event', id: 'tick', type: 'ahp-host.interval', title: 'Interval', events: [{ id: 'elapsed', title: 'Interval elapsed' }], config: { seconds: 1 } }],
        disableConditions: [{ kind: 'afterRuns', max: 1 }],
      },
    });
    const entryOf = (s) => s.entries.find((e) => e.resource === uri);
    const entry = await window.until(catalogue, (s) => {
      const e = entryOf(s);
      return e && e.definition.enabled === false && e.runs?.length === 1 && e.runs[0].lifecycle.status === 'completed' && e;
    }, 'one completed scheduled run', 30_000);
    const [run] = entry.runs;
    const runSub = await client.subscribe(run.resource);
    const session = await client.subscribe(run.primarySession);
    const chat = await client.subscribe(session.state.defaultChat);
    await window.until(chat, (s) => s.turns.length === 1 && !s.activeTurn, 'the run\'s session turn');
    const fresh = await AhpClient.connect(url, { token });
    const freshCatalogue = window.plain(await fresh.subscribe('ahp-automations://'));
    const result = { rejected, run: window.plain(runSub), turns: window.plain(chat).turns, catalogue: window.plain(catalogue), freshCatalogue };
    client.close();
    fresh.close();
    return result;
  }, { url: host.wsUrl, token: host.token });
  assert.deepEqual(errors, []);
  assert.deepEqual(r.rejected, []);
  assert.equal(r.run.origin.kind, 'trigger', JSON.stringify(r.run));
  assert.equal(r.run.origin.triggerId, 'tick');
  assert.equal(r.run.lifecycle.status, 'completed');
  assert.equal(r.turns.length, 1);
  assert.equal(r.turns[0].message.text, 'hello from a browser schedule');
  assert.equal(r.turns[0].state, 'complete', JSON.stringify(r.turns[0]));
  assert.deepEqual(r.catalogue, r.freshCatalogue, 'the page\'s catalogue mirror equals a fresh subscription');
});
