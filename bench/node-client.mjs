// The mirror benchmark in Node: the standard stream (gen-stream.mjs: a session with 50 or 500
// completed turns, then 20,600 actions) fed as text frames through a wasm `Subscription` of the
// built package, reading `subscription.state` after every action as a UI would (the frozen,
// structurally shared state). Reports ns/action (median of runs, min, max) and the memory a
// subscription retains at each size; checks the final state.
//
//   node --expose-gc bench/node-client.mjs        (after scripts/build-pkg.sh)
//   AHP_BENCH_RUNS=5  AHP_BENCH_SIZES=50,500  AHP_BENCH_DIR=dir (workload; default bench-workload/)
//   AHP_BENCH_MEMORY_SUBS=4   subscriptions held at once for the memory figure
import * as sdk from 'ahp-wasm';
import { checkFinal, framesOf, median, openMirror, runOnce } from './client-core.mjs';
import { loadWorkload } from './workload.mjs';

const runs = Number(process.env.AHP_BENCH_RUNS ?? 5);
const sizes = (process.env.AHP_BENCH_SIZES ?? '50,500').split(',').map(Number);
const memorySubs = Number(process.env.AHP_BENCH_MEMORY_SUBS ?? 4);
const now = () => Number(process.hrtime.bigint());
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** JS heap + external (wasm linear memory, array buffers) after a full GC. */
function retained() {
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** Bytes retained per live subscription holding the final state of the stream. */
async function memoryPerSubscription(uri, initialText, frames) {
  if (!globalThis.gc) return undefined;
  const before = retained();
  const held = [];
  for (let i = 0; i < memorySubs; i++) {
    const mirror = await openMirror(sdk, uri, initialText);
    for (const frame of frames) mirror.push(frame);
    held.push({ mirror, state: mirror.subscription.state });
  }
  const after = retained();
  for (const { mirror } of held) mirror.client.close();
  return (after - before) / memorySubs;
}

const rows = [];
for (const n of sizes) {
  const { uri, initialText, envelopeLines } = loadWorkload(n);
  const frames = framesOf(envelopeLines);
  const times = [];
  let final;
  // Run -1 warms the JIT up and is not counted.
  for (let run = -1; run < runs; run++) {
    const result = await runOnce(sdk, uri, initialText, frames, now);
    if (run >= 0) times.push(result.nsPerAction);
    final = result.final;
  }
  const check = checkFinal(final);
  const memory = await memoryPerSubscription(uri, initialText, frames);
  rows.push({ n, actions: frames.length, median: median(times), min: Math.min(...times), max: Math.max(...times), memory, ...check });
}

console.log(`wasm Subscription (text frames -> state) in Node ${process.version}, ${runs} runs each`);
console.log('| turns | actions | ns/action (median) | min | max | retained per subscription | final p1 chars | tool calls |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  // A negative delta means collectable garbage from earlier runs was freed in between: the figure
  // then says nothing (known issue: wasm linear memory never shrinks and earlier runs' garbage blurs it).
  const mem = r.memory === undefined ? 'run with --expose-gc' : r.memory < 0 ? 'unreliable (negative delta)' : `${(r.memory / 1048576).toFixed(2)} MiB`;
  console.log(`| ${r.n} | ${fmt(r.actions)} | ${fmt(r.median)} | ${fmt(r.min)} | ${fmt(r.max)} | ${mem} | ${fmt(r.p1)} | ${r.toolCalls} |`);
}
if (rows.length === 2) {
  const ratio = rows[1].median / rows[0].median;
  console.log(`history sensitivity: ${rows[1].n} vs ${rows[0].n} turns = ${ratio.toFixed(2)}x (flat = within ±15%)`);
}
