// Times the wasm client's mirror path in Node: the standard workload (bench/gen-stream.mjs: a
// session with 50 or 500 completed turns and an active turn, then 20,600 actions) delivered as
// JSON-RPC text frames through a custom transport into an AhpClient, reading `sub.state` (the
// frozen, structurally shared render state) after every action, as a UI would. Reports
// ns/action (median of the runs, min, max) and checks the final state (part p1 holds 99,000
// characters, 200 tool calls).
//
//   node bench/node-client.mjs                 (after scripts/build-pkg.sh)
//   AHP_GEN_STREAM=path/to/gen-stream.mjs       use another generator
//   AHP_BENCH_DIR=dir                           where the workload is written (default bench-workload/)
//   AHP_BENCH_RUNS=5  AHP_BENCH_SIZES=50,500  AHP_BENCH_ACTIONS=20600   (smaller values for a quick look)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AhpClient } from 'ahp-wasm';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const generator = resolve(process.env.AHP_GEN_STREAM ?? join(here, 'gen-stream.mjs'));
const workload = resolve(process.env.AHP_BENCH_DIR ?? join(root, 'bench-workload'));
const runs = Number(process.env.AHP_BENCH_RUNS ?? 5);
const sizes = (process.env.AHP_BENCH_SIZES ?? '50,500').split(',').map(Number);
const maxActions = Number(process.env.AHP_BENCH_ACTIONS ?? Infinity);

if (!sizes.every((n) => existsSync(join(workload, `initial-${n}.json`)) && existsSync(join(workload, `envelopes-${n}.jsonl`)))) {
  if (!existsSync(generator)) throw new Error(`workload generator not found: ${generator}`);
  execFileSync(process.execPath, [generator, workload], { stdio: ['ignore', 'ignore', 'inherit'] });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** A connected client whose server is this function: it answers `initialize` with `state`. */
async function connect(channel, state) {
  let callbacks;
  const transport = (url, cb) => {
    callbacks = cb;
    queueMicrotask(() => cb.open());
    return {
      send(frame) {
        const msg = JSON.parse(frame);
        if (msg.method === 'initialize') {
          const result = { protocolVersion: '0.3.0', serverSeq: 0, snapshots: [{ resource: channel, state, fromSeq: 0 }] };
          queueMicrotask(() => cb.message(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })));
        }
      },
      close() {},
    };
  };
  const client = await AhpClient.connect('ws://bench/ahp', {
    transport,
    clientId: 'bench',
    initialSubscriptions: [channel],
    keepaliveMs: 0,
    reconnect: false,
  });
  const sub = await client.subscribe(channel);
  return { client, sub, deliver: (frame) => callbacks.message(frame) };
}

const rows = [];
for (const n of sizes) {
  const initial = JSON.parse(readFileSync(join(workload, `initial-${n}.json`), 'utf8'));
  const channel = initial.summary.resource;
  const frames = readFileSync(join(workload, `envelopes-${n}.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .slice(0, maxActions)
    .map((envelope) => `{"jsonrpc":"2.0","method":"action","params":${envelope}}`);
  const times = [];
  let final;
  for (let run = 0; run < runs; run++) {
    const { client, sub, deliver } = await connect(channel, initial);
    let state = sub.state;
    let parts = 0;
    const start = process.hrtime.bigint();
    for (const frame of frames) {
      deliver(frame);
      state = sub.state; // what a UI reads to render
      parts += state.activeTurn.responseParts.length;
    }
    const elapsed = Number(process.hrtime.bigint() - start);
    if (parts === 0) throw new Error('no state');
    times.push(elapsed / frames.length);
    final = state;
    client.close();
  }
  const p1 = final.activeTurn?.responseParts?.find((p) => p.id === 'p1');
  const toolCalls = final.activeTurn?.responseParts?.filter((p) => p.kind === 'toolCall').length ?? 0;
  rows.push({ n, actions: frames.length, median: median(times), min: Math.min(...times), max: Math.max(...times), p1: p1?.content?.length ?? 0, toolCalls });
}

console.log(`wasm client mirror path in Node ${process.version} (text frame in, sub.state read per action; ahp-wasm pkg/), ${runs} runs each`);
console.log('| turns | actions | ns/action (median) | min | max | final p1 chars | final tool calls |');
console.log('|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.n} | ${fmt(r.actions)} | ${fmt(r.median)} | ${fmt(r.min)} | ${fmt(r.max)} | ${fmt(r.p1)} | ${r.toolCalls} |`);
}
if (rows.some((r) => r.actions === 20600 && (r.p1 !== 99000 || r.toolCalls !== 200))) {
  console.log('note: the final state is not the expected one (p1 should hold 99,000 chars and 200 tool calls)');
  process.exitCode = 1;
}
