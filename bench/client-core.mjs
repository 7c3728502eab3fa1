// The mirror benchmark, shared by Node (bench/node-client.mjs) and headless Chromium
// (bench/browser-client.mjs): the standard stream (gen-stream.mjs) fed as text frames through a
// wasm `Subscription` of the built package, reading `subscription.state` after every action as a
// UI would. The frames reach the SDK through a custom transport (no socket: what is timed is the
// SDK's parse + reconcile + render path, not the network).
//
// `sdk` is the package module (`ahp-wasm/v0.3` in Node, `pkg/v0.3/web.js` in a page, already initialized).

/** Wraps each envelope line in the `action` notification the server sends. Not timed. */
export function framesOf(envelopeLines) {
  return envelopeLines.map((line) => `{"jsonrpc":"2.0","method":"action","params":${line}}`);
}

/**
 * A transport that answers `initialize` (choosing `version`) with a snapshot of `uri` whose
 * state is the JSON text `stateText`, and lets the bench push frames. Returns `{ factory, push }`; `push(frame)`
 * delivers one server frame to the client. The host keeps the state as the text it was given
 * (shared by every mirror of a run), never as parsed objects: a parsed copy per mirror would
 * be counted in the memory a subscription retains, as the client keeps its transport factory.
 */
export function scriptedHost(uri, stateText, version = '0.3.0') {
  let callbacks;
  const factory = (_url, cb) => {
    callbacks = cb;
    setTimeout(() => cb.open(), 0);
    return {
      send(frame) {
        const msg = JSON.parse(frame);
        if (msg.method === 'initialize') {
          const snapshot = `{"resource":${JSON.stringify(uri)},"state":${stateText},"fromSeq":0}`;
          const result = `{"protocolVersion":"${version}","serverSeq":0,"snapshots":[${snapshot}]}`;
          const response = `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}`;
          setTimeout(() => cb.message(response), 0);
        } else if (msg.id !== undefined && msg.method) {
          const error = { code: -32601, message: `bench host: ${msg.method} not scripted` };
          setTimeout(() => cb.message(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error })), 0);
        }
      },
      close() {},
    };
  };
  return { factory, push: (frame) => callbacks.message(frame) };
}

/**
 * Connects a client to a scripted host holding `initialText` (a SessionState, or a 1.0
 * ChatState, as JSON) at `uri`, speaking the package entry's version.
 */
export async function openMirror(sdk, uri, initialText) {
  const host = scriptedHost(uri, initialText, sdk.PROTOCOL_VERSION);
  const client = await sdk.AhpClient.connect('ws://bench.invalid/ahp', {
    transport: host.factory,
    initialSubscriptions: [uri],
    reconnect: false,
    keepaliveMs: 0,
  });
  const subscription = client.subscription(uri) ?? (await client.subscribe(uri));
  return { client, subscription, push: host.push };
}

/**
 * One run: a fresh mirror, then every frame pushed and `state` read after each.
 * Returns { nsPerAction, final }.
 */
export async function runOnce(sdk, uri, initialText, frames, now) {
  const { client, subscription, push } = await openMirror(sdk, uri, initialText);
  let state = subscription.state;
  let seen = 0;
  const start = now();
  for (let i = 0; i < frames.length; i++) {
    push(frames[i]);
    state = subscription.state;
    seen += state.activeTurn === undefined ? 0 : 1;
  }
  const elapsedNs = now() - start;
  if (seen !== frames.length) throw new Error('the active turn disappeared during the stream');
  const final = subscription.state;
  client.close();
  return { nsPerAction: elapsedNs / frames.length, final };
}

/** Warm-up: untimed runs until this much time has passed (and at least two runs). */
export const WARM_UP_MS = 1000;

/**
 * Runs `runOnce` until the engines are warm, then `runs` timed runs. Warm means at least
 * WARM_UP_MS of runs: Chromium compiles a wasm module with its baseline compiler and moves hot
 * functions to the optimizing one in the background, and the first runs there were up to 1.7x
 * the steady time for about ten runs (Node's for about three). The first run is reported too.
 * `clock()` is milliseconds. Returns { times, first, warmUpRuns, final }.
 */
export async function timedRuns(sdk, uri, initialText, frames, now, clock, runs) {
  const started = clock();
  let first;
  let warmUpRuns = 0;
  while (warmUpRuns < 2 || clock() - started < WARM_UP_MS) {
    const r = await runOnce(sdk, uri, initialText, frames, now);
    first ??= r.nsPerAction;
    warmUpRuns++;
  }
  const times = [];
  let final;
  for (let run = 0; run < runs; run++) {
    const r = await runOnce(sdk, uri, initialText, frames, now);
    times.push(r.nsPerAction);
    final = r.final;
  }
  return { times, first, warmUpRuns, final };
}

/** The table row of `timedRuns`' result for `n` turns. */
export function timedRow(n, frames, { times, first, warmUpRuns, final }) {
  return { n, actions: frames.length, median: median(times), min: Math.min(...times), max: Math.max(...times), first, warmUpRuns, ...checkFinal(final) };
}

/**
 * Opens a mirror and feeds it the whole stream, reading `state` after every action as `runOnce`
 * does (so what it keeps is what a UI's subscription keeps). Returns the mirror and its final state.
 */
export async function feedMirror(sdk, uri, initialText, frames) {
  const mirror = await openMirror(sdk, uri, initialText);
  let state;
  for (const frame of frames) {
    mirror.push(frame);
    state = mirror.subscription.state;
  }
  return { mirror, state };
}

/**
 * The memory figure of one size, measured in a fresh process or page: a primer mirror fed the
 * whole stream is held throughout, so the baseline already contains lazy initialization, warm
 * code and the wasm allocator's high-water mark of processing one stream (linear memory only
 * grows; without the primer, the transient buffers of the first stream would count as retained).
 * Then `count` more mirrors are fed and held. `measure()` returns `{ jsHeap, wasm }` in bytes
 * after a full GC. Returns the per-subscription deltas.
 */
export async function measureHeld(sdk, uri, initialText, frames, count, measure) {
  const primer = await feedMirror(sdk, uri, initialText, frames);
  const before = await measure();
  const held = [];
  for (let i = 0; i < count; i++) held.push(await feedMirror(sdk, uri, initialText, frames));
  const after = await measure();
  checkFinal(held[count - 1].state);
  for (const { mirror } of [primer, ...held]) mirror.client.close();
  return { jsHeap: (after.jsHeap - before.jsHeap) / count, wasm: (after.wasm - before.wasm) / count };
}

/**
 * Formats the memory columns of `rows` (each `{ n, memory: { jsHeap, wasm } }`, sorted by n) as
 * MiB, or says why a figure is not trustworthy: it must be positive, and a larger history must
 * not retain less (500 turns hold ~10x the history of 50); the total only if both parts are
 * trustworthy. Adds `memoryText: { jsHeap, wasm, total }`.
 */
export function memoryColumns(rows) {
  for (const r of rows) r.memoryText = {};
  for (const part of ['jsHeap', 'wasm', 'total']) {
    const value = (r) => (part === 'total' ? r.memory.jsHeap + r.memory.wasm : r.memory[part]);
    const measured = rows.filter((r) => r.memory);
    const grows = measured.every((r, i) => i === 0 || value(r) > value(measured[i - 1]));
    for (const r of rows) {
      if (!r.memory) r.memoryText[part] = r.memoryError ?? 'not measured';
      else if (part === 'total' && !(r.memoryText.jsHeap.endsWith('MiB') && r.memoryText.wasm.endsWith('MiB'))) {
        r.memoryText[part] = 'unreliable (a part is)';
      } else if (!(value(r) > 0)) r.memoryText[part] = 'unreliable (not positive)';
      else if (!grows) r.memoryText[part] = 'unreliable (not larger with more turns)';
      else r.memoryText[part] = `${(value(r) / 1048576).toFixed(2)} MiB`;
    }
  }
  return rows;
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');

/**
 * Prints the results table (rows from `runOnce` + `checkFinal` + a memory figure) under
 * `title`, then the history sensitivity of the first two sizes.
 */
export function printResults(title, rows) {
  memoryColumns(rows);
  console.log(title);
  console.log('| turns | actions | ns/action (median) | min | max | first run (cold) | retained per subscription | JS heap | wasm memory | final p1 chars | tool calls |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const m = r.memoryText;
    console.log(`| ${r.n} | ${fmt(r.actions)} | ${fmt(r.median)} | ${fmt(r.min)} | ${fmt(r.max)} | ${fmt(r.first)} | ${m.total} | ${m.jsHeap} | ${m.wasm} | ${fmt(r.p1)} | ${r.toolCalls} |`);
  }
  if (rows.length === 2) {
    const ratio = rows[1].median / rows[0].median;
    console.log(`history sensitivity: ${rows[1].n} vs ${rows[0].n} turns = ${ratio.toFixed(2)}x (flat = within ±15%)`);
  }
  console.log(`median, min, max: of the timed runs after ${WARM_UP_MS} ms of untimed warm-up runs (${rows.map((r) => r.warmUpRuns).join(', ')}); first run: the first warm-up run, on cold engines.`);
  console.log('wasm memory = growth of the linear memory, an upper bound of what the Rust side holds (it never shrinks).');
}

/** Checks the end state of the standard stream: p1 holds 99,000 chars, 200 tool calls. */
export function checkFinal(final) {
  const parts = final.activeTurn?.responseParts ?? [];
  const p1 = parts.find((p) => p.id === 'p1');
  const toolCalls = parts.filter((p) => p.kind === 'toolCall').length;
  if (p1?.content?.length !== 99000 || toolCalls !== 200) {
    throw new Error(`wrong final state: p1 ${p1?.content?.length} chars, ${toolCalls} tool calls`);
  }
  return { p1: p1.content.length, toolCalls };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
