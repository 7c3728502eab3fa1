// The loading contract of both entries (pkg/README.md, "Loading"), each in a fresh Node process
// (the entries share one module instance within a process): no top-level await; before init()
// the error classes and version constants work and the synchronous entry points throw an
// AhpError of kind 'notInitialized'; AhpClient.connect loads the module itself (one load for
// concurrent calls, kind 'wasmLoad' when it fails, retried by the next call); init() is
// idempotent, reports a failed load as kind 'wasmLoad' and can be retried. The browser entry gets
// its module as bytes here, or from a stand-in `fetch` (Node's fetch has no file: URLs). The
// AHP 0.3.0 entry (pkg/v0.3/) in full; the default entry (AHP 1.0, the same entry modules over
// its own module) before and after init().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PKG = new URL('../../pkg/', import.meta.url);
const PKG03 = new URL('v0.3/', PKG);

/** Runs `body` as an ES module in a fresh node in `dir` (default: the 0.3.0 entry's); its last line of output, parsed. */
function runModule(body, dir = PKG03) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', body], {
    cwd: fileURLToPath(dir),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out.trim().split('\n').pop());
}

test('the browser entry: nothing before init(), then init() loads the module once', () => {
  const r = runModule(`
    import { readFileSync } from 'node:fs';
    const ahp = await import(new URL('./web.js', 'file://' + process.cwd() + '/').href);
    const r = { version: ahp.PROTOCOL_VERSION, supported: ahp.SUPPORTED_PROTOCOL_VERSIONS };
    r.names = {
      delta: ahp.ActionType.SessionDelta,
      inputNeeded: ahp.SessionStatus.InputNeeded,
      markdown: ahp.ResponsePartKind.Markdown,
      sessionNotFound: ahp.AhpErrorCodes.SessionNotFound,
      invalidParams: ahp.JsonRpcErrorCodes.InvalidParams,
      frozen: Object.isFrozen(ahp.ActionType),
      dispatchable: [ahp.isClientDispatchable({ type: 'session/titleChanged', title: 't' }),
        ahp.isClientDispatchable('terminal/input'), ahp.isClientDispatchable('session/delta'),
        ahp.isClientDispatchable({}), ahp.isClientDispatchable(null)],
    };
    const error = (f) => { try { f(); return null; } catch (e) { return { ahp: e instanceof ahp.AhpError, kind: e.kind, message: e.message }; } };
    r.reducers = ['rootReducer', 'sessionReducer', 'terminalReducer', 'changesetReducer', 'resourceWatchReducer']
      .map((name) => error(() => ahp[name]({}, { type: 'x' })));
    r.multi = error(() => new ahp.MultiHostClient());
    // connect loads the module itself: here from the default file: URL, which Node cannot fetch.
    r.connect = await ahp.AhpClient.connect('ws://127.0.0.1:9/ahp').then(() => null, (e) => ({ ahp: e instanceof ahp.AhpError, kind: e.kind }));
    r.badOptions = [];
    for (const bad of ['/x.wasm', new URL('file:///x.wasm'), new Uint8Array([0]), null, Promise.resolve()]) {
      r.badOptions.push(await ahp.init(bad).then(() => null, (e) => ({ invalid: e instanceof ahp.InvalidInputError })));
    }
    r.bad = await ahp.init({ wasm: new Uint8Array([0, 1, 2]) }).then(() => null, (e) => ({ ahp: e instanceof ahp.AhpError, kind: e.kind, message: e.message }));
    r.afterBad = error(() => ahp.rootReducer({}, { type: 'x' }));
    const first = ahp.init({ wasm: readFileSync('ahp_wasm_bg.wasm') });
    r.loading = error(() => ahp.rootReducer({}, { type: 'x' }));
    r.same = first === ahp.init() && first === ahp.init({ wasm: new Uint8Array([0]) });
    r.resolved = await first;
    r.sameAfter = ahp.init() === first;
    const state = { root: 'file:///w', recursive: true };
    r.works = ahp.resourceWatchReducer(state, { type: 'no/such-action' }) === state;
    const multi = new ahp.MultiHostClient();
    r.multiOk = multi instanceof ahp.MultiHostClient && multi.hostNames().length === 0;
    multi.close();
    r.invalid = error(() => ahp.sessionReducer({}, { type: 'session/ready' }));
    console.log(JSON.stringify(r));
  `);
  assert.equal(r.version, '0.3.0');
  assert.deepEqual(r.supported, ['0.3.0']);
  // The protocol's named values work before init(), under the official names.
  assert.deepEqual(r.names, {
    delta: 'session/delta',
    inputNeeded: 24,
    markdown: 'markdown',
    sessionNotFound: -32001,
    invalidParams: -32602,
    frozen: true,
    dispatchable: [true, true, false, false, false],
  });
  for (const e of [...r.reducers, r.multi]) {
    assert.equal(e?.ahp, true);
    assert.equal(e.kind, 'notInitialized');
    assert.match(e.message, /called before init\(\).*await init\(\)/);
  }
  assert.deepEqual(r.connect, { ahp: true, kind: 'wasmLoad' });
  assert.deepEqual(r.badOptions, Array(5).fill({ invalid: true }));
  assert.equal(r.bad?.kind, 'wasmLoad');
  assert.equal(r.bad.ahp, true);
  assert.equal(r.afterBad.kind, 'notInitialized');
  assert.match(r.afterBad.message, /loading the WebAssembly module failed .*again/);
  assert.match(r.loading.message, /while the WebAssembly module is loading/);
  assert.equal(r.same, true);
  assert.equal(r.resolved, undefined);
  assert.equal(r.sameAfter, true);
  assert.equal(r.works, true);
  assert.equal(r.multiOk, true);
  assert.equal(r.invalid.kind, 'invalid-input');
});

test('the browser entry: AhpClient.connect loads the module itself, once for concurrent calls, retried after a failure', () => {
  const r = runModule(`
    import { readFileSync } from 'node:fs';
    const bytes = readFileSync('ahp_wasm_bg.wasm');
    const fetched = [];
    let failNext = true;
    globalThis.fetch = async (url) => {
      fetched.push(String(url));
      if (failNext) { failNext = false; throw new TypeError('network down'); }
      await new Promise((ok) => setTimeout(ok, 20)); // a download that takes a while
      return new Response(bytes, { headers: { 'content-type': 'application/wasm' } });
    };
    const ahp = await import(new URL('./web.js', 'file://' + process.cwd() + '/').href);
    /** A host on an in-memory pair that answers initialize. */
    const host = () => {
      const { client, server } = ahp.InMemoryTransport.pair();
      server.onMessage((frame) => {
        const msg = JSON.parse(frame);
        if (msg.method === 'initialize') server.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '0.3.0', serverSeq: 0, snapshots: [] } }));
      });
      return client;
    };
    const options = (transport) => ({ transport, initialSubscriptions: [], keepaliveMs: 0, reconnect: { maxAttempts: 0 } });
    const r = {};
    r.failed = await ahp.AhpClient.connect('ws://h/ahp', options(host())).then(() => null, (e) => ({ ahp: e instanceof ahp.AhpError, kind: e.kind, message: e.message }));
    r.reducerAfterFailure = (() => { try { ahp.rootReducer({ agents: [] }, { type: 'x' }); return null; } catch (e) { return e.kind; } })();
    const both = [ahp.AhpClient.connect('ws://a/ahp', options(host())), ahp.AhpClient.connect('ws://b/ahp', options(host()))];
    const clients = await Promise.all(both);
    r.connected = clients.map((c) => c instanceof ahp.AhpClient && c.connectionState);
    r.fetches = fetched.length;
    const state = { agents: [] };
    r.reducerAfter = ahp.rootReducer(state, { type: 'no/such-action' }) === state;
    r.initAfter = await ahp.init();
    r.fetchesAfterInit = fetched.length;
    for (const c of clients) c.close();
    console.log(JSON.stringify(r));
  `);
  // The first call's load failed: a typed error saying so, and nothing loaded.
  assert.equal(r.failed?.ahp, true);
  assert.equal(r.failed.kind, 'wasmLoad');
  assert.match(r.failed.message, /loading the WebAssembly module failed.*network down/);
  assert.equal(r.reducerAfterFailure, 'notInitialized');
  // Two connects at once: one more download, both connected.
  assert.deepEqual(r.connected, ['connected', 'connected']);
  assert.equal(r.fetches, 2, 'one failed download, then one shared by both connects');
  assert.equal(r.reducerAfter, true);
  assert.equal(r.initAfter, undefined);
  assert.equal(r.fetchesAfterInit, 2, 'init() after connect loads nothing again');
});

test('the Node entry: loaded on import; init() exists and resolves at once', () => {
  const r = runModule(`
    const ahp = await import(new URL('./node.js', 'file://' + process.cwd() + '/').href);
    const state = { root: 'file:///w', recursive: true };
    const r = { before: ahp.resourceWatchReducer(state, { type: 'x' }) === state };
    const p = ahp.init();
    r.same = p === ahp.init({ wasm: 'ignored' });
    r.resolved = await p;
    console.log(JSON.stringify(r));
  `);
  assert.deepEqual(r, { before: true, same: true });
});

test('the default entry (AHP 1.0): 1.0 names before init(), reducers after it', () => {
  const r = runModule(`
    import { readFileSync } from 'node:fs';
    const ahp = await import(new URL('./web.js', 'file://' + process.cwd() + '/').href);
    const r = { version: ahp.PROTOCOL_VERSION, supported: ahp.SUPPORTED_PROTOCOL_VERSIONS };
    r.names = {
      delta: ahp.ActionType.ChatDelta,
      conflict: ahp.AhpErrorCodes.Conflict,
      dispatchable: [ahp.isClientDispatchable({ type: 'chat/turnStarted' }), ahp.isClientDispatchable('annotations/set'),
        ahp.isClientDispatchable('chat/delta'), ahp.isClientDispatchable('session/turnStarted'), ahp.isClientDispatchable(undefined)],
    };
    const kind = (f) => { try { f(); return null; } catch (e) { return e instanceof ahp.AhpError ? e.kind : String(e); } };
    r.before = ['rootReducer', 'sessionReducer', 'chatReducer', 'annotationsReducer', 'canvasReducer']
      .map((name) => kind(() => ahp[name]({}, { type: 'x' })));
    await ahp.init({ wasm: readFileSync('ahp_wasm_bg.wasm') });
    const chat = { resource: 'ahp-chat:/c', title: '', status: 1, modifiedAt: '1970-01-01T00:00:01.000Z', turns: [] };
    r.after = ahp.chatReducer(chat, { type: 'no/such-action' }) === chat;
    console.log(JSON.stringify(r));
  `, PKG);
  assert.deepEqual(r, {
    version: '1.0.0',
    supported: ['1.0.0'],
    names: { delta: 'chat/delta', conflict: -32011, dispatchable: [true, true, false, false, false] },
    before: Array(5).fill('notInitialized'),
    after: true,
  });
});

test('no module of the package uses top-level await', async () => {
  // esbuild refuses top-level await when it converts a module to CommonJS.
  const { transformSync } = await import('esbuild');
  const { readFileSync, readdirSync } = await import('node:fs');
  const files = readdirSync(PKG, { recursive: true }).filter((f) => f.endsWith('.js'));
  assert.ok(files.includes('web.js') && files.includes('node.js') && files.includes('mcp-apps.js'));
  assert.ok(files.includes('v0.3/web.js') && files.includes('v0.3/node.js'));
  for (const file of files) {
    const text = readFileSync(new URL(file, PKG), 'utf8');
    assert.doesNotThrow(() => transformSync(text, { format: 'cjs', logLevel: 'silent' }), `${file}: top-level await`);
  }
  // The check can fail.
  assert.throws(() => transformSync('await 1; export {};', { format: 'cjs', logLevel: 'silent' }), /[Tt]op-level await/);
});
