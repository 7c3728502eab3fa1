// Connecting from Node without a global WebSocket (Node 20 without `--experimental-websocket`):
// the `WebSocket` option with the `ws` package against the real `ahp-host`, the error that says
// what to do when there is no WebSocket at all, and misspelled or conflicting options.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh and
// `cargo build -p ahp-host`). The no-global cases run in a child `node` started without the flag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import * as ahp from 'ahp-wasm/v0.3';
import { startHost } from './host.mjs';

const { AhpClient, MultiHostClient, InvalidInputError, webSocketTransport } = ahp;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs `script` (an ES module body) in a child `node` without `--experimental-websocket`. */
function runWithoutGlobalWebSocket(script, env = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`child failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split('\n').pop()));
      },
    );
  });
}

test('Node without a global WebSocket: connect rejects with a TransportError that says what to do', async () => {
  const out = await runWithoutGlobalWebSocket(`
    import { init, AhpClient, TransportError } from 'ahp-wasm/v0.3';
    await init();
    const global = typeof globalThis.WebSocket;
    try {
      await AhpClient.connect('ws://127.0.0.1:9/ahp', { reconnect: false });
      console.log(JSON.stringify({ global, connected: true }));
    } catch (e) {
      console.log(JSON.stringify({ global, isTransportError: e instanceof TransportError, kind: e.kind, transportKind: e.transportKind, message: e.message }));
    }
  `);
  if (out.global === 'function') {
    // A Node with a global WebSocket (>= 22): the case cannot arise there.
    assert.equal(out.connected, undefined, 'nothing listens on port 9');
    return;
  }
  assert.equal(out.global, 'undefined');
  assert.equal(out.isTransportError, true, JSON.stringify(out));
  assert.equal(out.kind, 'transport');
  assert.equal(out.transportKind, 'connect');
  assert.match(out.message, /no WebSocket implementation/);
  assert.match(out.message, /from 'ws'/);
  assert.match(out.message, /--experimental-websocket/);
});

test('Node without a global WebSocket: the WebSocket option (the ws package) connects to the real host', async (t) => {
  const host = await startHost(t);
  const out = await runWithoutGlobalWebSocket(
    `
    import WebSocket from 'ws';
    import { init, AhpClient } from 'ahp-wasm/v0.3';
    await init();
    const client = await AhpClient.connect(process.env.URL, { token: process.env.TOKEN, WebSocket, reconnect: false });
    const root = client.subscription('ahp-root://');
    const agents = (root?.state?.agents ?? []).map((a) => a.provider);
    const session = 'ahp-session:/ws-package-' + Date.now();
    await client.createSession({ channel: session });
    const sub = await client.subscribe(session);
    const lifecycle = sub.state.lifecycle;
    client.close();
    console.log(JSON.stringify({ global: typeof globalThis.WebSocket, agents, session, lifecycle }));
  `,
    { URL: host.wsUrl, TOKEN: host.token },
  );
  assert.equal(out.global, process.versions.node.split('.')[0] >= 22 ? 'function' : 'undefined');
  assert.ok(out.agents.length > 0, 'the root state lists the host agents');
  assert.ok(['creating', 'ready'].includes(out.lifecycle), `lifecycle ${out.lifecycle}`);
});

test('webSocketTransport works in-process too, and a wrong token closes with the reason', async (t) => {
  const host = await startHost(t);
  const client = await AhpClient.connect(host.wsUrl, { token: host.token, transport: webSocketTransport(WebSocket), reconnect: false });
  assert.ok(client.subscription('ahp-root://').state.agents.length > 0);
  client.close();
  await assert.rejects(
    AhpClient.connect(host.wsUrl, { token: 'wrong-token-0123456789abcdef', WebSocket, reconnect: false }),
    (e) => e instanceof ahp.TransportError && e.transportKind === 'connect',
  );
});

test('a misspelled option is an InvalidInputError naming it, with the closest option', async () => {
  await assert.rejects(
    AhpClient.connect('ws://127.0.0.1:9/ahp', { trasnport: () => {} }),
    (e) => {
      assert.ok(e instanceof InvalidInputError, String(e));
      assert.equal(e.argument, 'options');
      assert.equal(e.path, 'trasnport');
      assert.match(e.message, /unknown connect option `trasnport` \(did you mean `transport`\?\)/);
      return true;
    },
  );
  await assert.rejects(AhpClient.connect('ws://127.0.0.1:9/ahp', { websocket: WebSocket }), /did you mean `WebSocket`/);
  await assert.rejects(AhpClient.connect('ws://127.0.0.1:9/ahp', { zzzzzzzz: 1 }), (e) => {
    assert.ok(e instanceof InvalidInputError);
    assert.doesNotMatch(e.message, /did you mean/);
    return true;
  });
  const multi = new MultiHostClient();
  await assert.rejects(multi.addHost('a', 'ws://127.0.0.1:9/ahp', { reconect: false }), /did you mean `reconnect`/);
  multi.close();
});

test('WebSocket and transport together, or a WebSocket that is not a constructor, are refused', async () => {
  await assert.rejects(
    AhpClient.connect('ws://127.0.0.1:9/ahp', { WebSocket, transport: webSocketTransport(WebSocket) }),
    (e) => e instanceof InvalidInputError && e.path === 'WebSocket' && /not both/.test(e.message),
  );
  await assert.rejects(
    AhpClient.connect('ws://127.0.0.1:9/ahp', { WebSocket: 'ws' }),
    (e) => e instanceof InvalidInputError && e.argument === 'WebSocket' && /WebSocket constructor/.test(e.message),
  );
});

test('a failed connection says why: wrong token, wrong path, host down (never showing the token)', async (t) => {
  const host = await startHost(t);
  const secret = 'not-the-token-0123456789abcdef';
  const cases = [
    [host.wsUrl, { token: secret }, 'unauthorized', 401, /access token/],
    [host.wsUrl.replace('/ahp', '/nope'), { token: host.token }, 'not-found', 404, /\/ahp/],
    ['ws://127.0.0.1:9/ahp', { token: host.token }, 'unreachable', undefined, /is the host running/],
    // The same through the WebSocket option (the ws package).
    [host.wsUrl, { token: secret, WebSocket }, 'unauthorized', 401, /access token/],
  ];
  for (const [url, options, reason, status, detail] of cases) {
    await assert.rejects(AhpClient.connect(url, { ...options, reconnect: false }), (e) => {
      assert.ok(e instanceof ahp.TransportError, String(e));
      assert.equal(e.transportKind, 'connect');
      assert.equal(e.reason, reason, e.message);
      assert.equal(e.status, status);
      assert.match(e.message, detail);
      assert.ok(!e.message.includes(options.token), 'the token is not in the message');
      assert.ok(e.cause instanceof ahp.TransportError, 'the original error is the cause');
      return true;
    });
  }
  // A token in the URL itself is not shown either.
  await assert.rejects(AhpClient.connect(`${host.wsUrl}?tkn=${secret}`, { reconnect: false }), (e) => {
    assert.equal(e.reason, 'unauthorized');
    assert.ok(!e.message.includes(secret), e.message);
    return true;
  });
  // MultiHostClient.addHost explains the same way.
  const multi = new MultiHostClient();
  await assert.rejects(multi.addHost('h', host.wsUrl, { token: secret, reconnect: false }), (e) => e.reason === 'unauthorized');
  multi.close();
});

test('reconnecting stops when the host refuses the token (a permanent failure), not while it is down', async (t) => {
  const first = await startHost(t);
  const client = await AhpClient.connect(first.wsUrl, {
    token: first.token,
    WebSocket,
    reconnect: { initialDelayMs: 20, maxDelayMs: 40 },
  });
  const events = [];
  client.onEvent((e) => events.push(e));
  await first.stop();
  // Down: attempts fail as unreachable, and reconnecting goes on.
  while (events.filter((e) => e.type === 'reconnectFailed').length < 3) await new Promise((ok) => setTimeout(ok, 20));
  assert.equal(client.connectionState, 'reconnecting');
  // Back on the same port with another token: the next failure is explained and ends it.
  await startHost(t, [], { port: first.port, token: `${first.token}-rotated` });
  const deadline = Date.now() + 20_000;
  while (client.connectionState !== 'closed' && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 20));
  assert.equal(client.connectionState, 'closed');
  const aborted = events.filter((e) => e.type === 'reconnectAborted');
  assert.equal(aborted.length, 1);
  const { error } = aborted[0];
  assert.ok(error instanceof ahp.TransportError);
  assert.equal(error.reason, 'unauthorized');
  assert.equal(error.status, 401);
  assert.match(error.message, /stopped reconnecting to .*HTTP 401/);
  assert.ok(!error.message.includes(first.token), 'the token is never shown');
  const closedAt = events.findIndex((e) => e.type === 'connectionState' && e.state === 'closed');
  assert.ok(closedAt > events.indexOf(aborted[0]), 'the event comes before the client closes');
});

test('a URL the WebSocket transport cannot use is an InvalidInputError, before anything connects', async () => {
  for (const [url, message] of [
    ['not a url', /not a valid URL: "not a url"/],
    ['', /not a valid URL/],
    ['ftp://127.0.0.1/ahp', /starts with ws:\/\/ or wss:\/\/.*not ftp:/],
  ]) {
    await assert.rejects(AhpClient.connect(url, { reconnect: false }), (e) => e instanceof InvalidInputError && e.argument === 'url' && message.test(e.message));
    const multi = new MultiHostClient();
    await assert.rejects(multi.addHost('h', url, { reconnect: false }), (e) => e instanceof InvalidInputError && e.argument === 'url');
    multi.close();
  }
});

test('a custom transport that fails is not second-guessed (no reason, no probe)', async () => {
  const failing = (_url, callbacks) => {
    setTimeout(() => callbacks.close('the custom transport could not connect'), 0);
    return { send() {}, close() {} };
  };
  await assert.rejects(AhpClient.connect('ws://127.0.0.1:9/ahp', { transport: failing, reconnect: false }), (e) => {
    assert.ok(e instanceof ahp.TransportError);
    assert.equal(e.reason, undefined);
    assert.match(e.message, /the custom transport could not connect/);
    return true;
  });
});
