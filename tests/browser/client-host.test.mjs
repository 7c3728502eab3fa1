// The wasm client in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core)
// against the real `ahp-host`: the host serves the test page (its own origin, so the Origin
// check passes) and the built package (pkg/ at /pkg/). Second test: a TCP proxy between page
// and host is cut mid-stream; after the reconnect the mirror equals a fresh snapshot.
// Run: node --experimental-websocket --test tests/browser/   (after scripts/build-pkg.sh and
// `cargo build -p ahp-host`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect } from 'node:net';
import { startHost } from '../node/host.mjs';
import { sdkPage } from './harness.mjs';

/** The page only loads the package (`window.sdk`); the tests drive it with page.evaluate. */
function setup(t, hostArgs = []) {
  return sdkPage(t, { hostArgs });
}

function withoutModifiedAt(state) {
  const copy = structuredClone(state);
  copy.summary.modifiedAt = 0;
  return copy;
}

test('Chromium: connect to the real host, stream a turn, match a fresh snapshot; typed errors', async (t) => {
  const { host, page, errors } = await setup(t, ['--chunk-delay-ms', '10']);
  const r = await page.evaluate(async ({ url, token }) => {
    const { AhpClient, TransportError, AhpError, InvalidInputError } = window.sdk;
    const client = await AhpClient.connect(url, { token });
    const channel = 'ahp-session:/browser-1';
    await client.createSession({ channel });
    const sub = await client.subscribe(channel);
    let changes = 0;
    const done = new Promise((resolve) =>
      sub.onChange((state) => {
        changes += 1;
        if (!state.activeTurn && state.turns.length === 1) resolve();
      }),
    );
    sub.dispatch({ type: 'session/turnStarted', turnId: 'b1',
      message: { text: 'Hello from Chromium\n/long 5', origin: { kind: 'user' } } });
    const optimistic = sub.state.activeTurn?.id;
    await done;
    const turns0 = sub.state.turns;
    const fresh = await AhpClient.connect(url, { token });
    const snapshot = (await fresh.subscribe(channel)).state;
    let wrongToken = null;
    try {
      await AhpClient.connect(url, { token: 'not-the-token-0123456789', reconnect: false });
    } catch (e) {
      wrongToken = { transport: e instanceof TransportError, ahp: e instanceof AhpError, kind: e.transportKind };
    }
    let invalid = null;
    try {
      sub.dispatch({ type: 'session/titleChanged', title: 1 });
    } catch (e) {
      invalid = { ok: e instanceof InvalidInputError, path: e.path };
    }
    const result = {
      optimistic, changes, state: sub.state, snapshot, wrongToken, invalid,
      frozen: Object.isFrozen(sub.state) && Object.isFrozen(sub.state.turns[0]),
      shared: sub.state.turns === turns0,
      connectionState: client.connectionState,
    };
    client.close();
    fresh.close();
    return result;
  }, { url: host.wsUrl, token: host.token });
  assert.deepEqual(errors, []);
  assert.equal(r.optimistic, 'b1');
  assert.ok(r.changes > 3, `streamed in several changes (${r.changes})`);
  assert.equal(r.connectionState, 'connected');
  assert.deepEqual(withoutModifiedAt(r.state), withoutModifiedAt(r.snapshot));
  assert.match(JSON.stringify(r.state.turns[0]), /Hello from Chromium/);
  assert.deepEqual(r.wrongToken, { transport: true, ahp: true, kind: 'connect' });
  assert.deepEqual(r.invalid, { ok: true, path: 'title' });
  assert.equal(r.frozen, true);
  assert.equal(r.shared, true);
});

/** A TCP proxy to `port` whose connections can all be cut at once. */
async function tcpProxy(t, port) {
  const sockets = new Set();
  let connections = 0;
  const server = createServer((client) => {
    connections += 1;
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return {
    port: server.address().port,
    get connections() {
      return connections;
    },
    cut() {
      for (const s of sockets) s.destroy();
    },
  };
}

test('Chromium: the connection is cut mid-stream; after the reconnect the mirror equals the server state', async (t) => {
  const { host, page, errors } = await setup(t, ['--chunk-delay-ms', '25']);
  const proxy = await tcpProxy(t, host.port);
  await page.evaluate(async ({ url, token }) => {
    const { AhpClient } = window.sdk;
    const client = await AhpClient.connect(url, { token, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    const channel = 'ahp-session:/browser-cut';
    await client.createSession({ channel });
    const sub = await client.subscribe(channel);
    window.t = { client, sub, channel, states: [], content: 0, done: false };
    client.onConnectionStateChange((s) => window.t.states.push(s));
    sub.onChange((state) => {
      const md = state.activeTurn?.responseParts.filter((p) => p.kind === 'markdown').at(-1);
      if (md) window.t.content = md.content.length;
      if (!state.activeTurn && state.turns.length === 1) window.t.done = true;
    });
    sub.dispatch({ type: 'session/turnStarted', turnId: 'c1',
      message: { text: 'Cut me off\n/long 40', origin: { kind: 'user' } } });
  }, { url: `ws://127.0.0.1:${proxy.port}/ahp`, token: host.token });

  // Mid-stream: some text arrived, the turn is not over.
  await page.waitForFunction(() => window.t.content > 20, null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.t.done), false, 'cut before the end of the turn');
  proxy.cut();
  await page.waitForFunction(() => window.t.states.includes('reconnecting'), null, { timeout: 10_000 });
  await page.waitForFunction(() => window.t.done && window.t.client.connectionState === 'connected', null, { timeout: 60_000 });
  assert.ok(proxy.connections >= 2, 'reconnected through the proxy');

  const r = await page.evaluate(async ({ url, token }) => {
    const { AhpClient } = window.sdk;
    const fresh = await AhpClient.connect(url, { token });
    const snapshot = (await fresh.subscribe(window.t.channel)).state;
    fresh.close();
    const result = { state: window.t.sub.state, confirmed: window.t.sub.confirmedState, snapshot,
      pending: window.t.sub.pendingCount, states: window.t.states };
    window.t.client.close();
    return result;
  }, { url: host.wsUrl, token: host.token });
  assert.deepEqual(errors, []);
  assert.equal(r.pending, 0);
  assert.deepEqual(r.states.slice(0, 2), ['reconnecting', 'connected']);
  assert.deepEqual(withoutModifiedAt(r.state), withoutModifiedAt(r.snapshot));
  assert.deepEqual(withoutModifiedAt(r.confirmed), withoutModifiedAt(r.snapshot));
});

test('Chromium: a failed connection says why (refused Origin, wrong token, nothing there)', async (t) => {
  const { host, page, errors } = await setup(t);
  // A second real host: the page's origin (the first host's) is not one it admits.
  const other = await startHost(t);
  const reasons = await page.evaluate(async ({ own, ownToken, foreign, foreignToken }) => {
    const attempt = async (url, token) => {
      try {
        const client = await window.sdk.AhpClient.connect(url, { token, reconnect: false });
        client.close();
        return { connected: true };
      } catch (e) {
        return {
          isTransportError: e instanceof window.sdk.TransportError,
          reason: e.reason,
          status: e.status,
          message: e.message,
        };
      }
    };
    return {
      foreignOrigin: await attempt(foreign, foreignToken),
      wrongToken: await attempt(own, 'not-the-token-0123456789abcdef'),
      nothingThere: await attempt('ws://127.0.0.1:9/ahp', ownToken),
      fine: await attempt(own, ownToken),
    };
  }, { own: host.wsUrl, ownToken: host.token, foreign: other.wsUrl, foreignToken: other.token });
  assert.deepEqual(reasons.fine, { connected: true });
  assert.equal(reasons.foreignOrigin.reason, 'forbidden-origin', JSON.stringify(reasons.foreignOrigin));
  assert.equal(reasons.foreignOrigin.status, 403);
  assert.match(reasons.foreignOrigin.message, /--allow-origin/);
  assert.equal(reasons.wrongToken.reason, 'unauthorized', JSON.stringify(reasons.wrongToken));
  assert.equal(reasons.wrongToken.status, 401);
  assert.equal(reasons.nothingThere.reason, 'unreachable', JSON.stringify(reasons.nothingThere));
  for (const r of [reasons.foreignOrigin, reasons.wrongToken, reasons.nothingThere]) {
    assert.equal(r.isTransportError, true);
    assert.ok(!r.message.includes(host.token) && !r.message.includes(other.token), r.message);
  }
  assert.deepEqual(errors, []);
});
