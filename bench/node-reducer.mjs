// Times the wasm `sessionReducer` of the built package (pkg/, as 'ahp-wasm/v0.3') in Node on the
// standard workload (bench/gen-stream.mjs): a session with 50 or 500 completed turns and an active
// turn, then 20,600 actions. Reports ns/action over the whole stream, median of 5 runs after a
// second of untimed warm-up runs (min and max beside it, and the first, cold run), the first
// call alone (the caller's own state object: a full JS -> Rust -> JS conversion; later calls
// take the cached path), and checks the final state (part p1 holds 99,000 characters).
//
//   node bench/node-reducer.mjs                 (after scripts/build-pkg.sh)
//   AHP_GEN_STREAM=path/to/gen-stream.mjs       use another generator
//   AHP_BENCH_DIR=dir                           where the workload is written (default bench-workload/)
//   AHP_BENCH_RUNS=5  AHP_BENCH_SIZES=50,500  AHP_BENCH_ACTIONS=20600   (smaller values for a quick look)
import { readFileSync } from 'node:fs';
import { sessionReducer } from 'ahp-wasm/v0.3';
import { loadWorkload } from './workload.mjs';

const runs = Number(process.env.AHP_BENCH_RUNS ?? 5);
const sizes = (process.env.AHP_BENCH_SIZES ?? '50,500').split(',').map(Number);
const maxActions = Number(process.env.AHP_BENCH_ACTIONS ?? Infinity);

const WARM_UP_MS = 1000;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const rows = [];
for (const n of sizes) {
  const { initialText, actionsPath } = loadWorkload(n);
  const actions = JSON.parse(readFileSync(actionsPath, 'utf8')).slice(0, maxActions);
  // One pass over the stream: ns/action over the whole stream and the first call alone (ms).
  const pass = () => {
    let state = JSON.parse(initialText);
    const start = process.hrtime.bigint();
    state = sessionReducer(state, actions[0]);
    const first = Number(process.hrtime.bigint() - start);
    for (let i = 1; i < actions.length; i++) state = sessionReducer(state, actions[i]);
    const elapsed = Number(process.hrtime.bigint() - start);
    return { nsPerAction: elapsed / actions.length, firstMs: first / 1e6, state };
  };
  // Untimed warm-up passes for WARM_UP_MS (at least two): V8 optimizes the JS and tiers the
  // wasm up while the first passes run. The first pass is reported as the cold figure.
  const warmUpStart = performance.now();
  let cold;
  let warmUpRuns = 0;
  while (warmUpRuns < 2 || performance.now() - warmUpStart < WARM_UP_MS) {
    const r = pass();
    cold ??= r.nsPerAction;
    warmUpRuns++;
  }
  const times = [];
  const firsts = [];
  let final;
  for (let run = 0; run < runs; run++) {
    const r = pass();
    times.push(r.nsPerAction);
    firsts.push(r.firstMs);
    final = r.state;
  }
  const p1 = final.activeTurn?.responseParts?.find((p) => p.id === 'p1');
  const toolCalls = final.activeTurn?.responseParts?.filter((p) => p.kind === 'toolCall').length ?? 0;
  rows.push({ n, actions: actions.length, cold, warmUpRuns, first: median(firsts), median: median(times), min: Math.min(...times), max: Math.max(...times), p1: p1?.content?.length ?? 0, toolCalls });
}

console.log(`wasm sessionReducer in Node ${process.version} (ahp-wasm/v0.3, pkg/v0.3/), ${runs} runs each`);
console.log('| turns | actions | ns/action (median) | min | max | first run (cold) | first call, ms (full conversion) | final p1 chars | final tool calls |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.n} | ${fmt(r.actions)} | ${fmt(r.median)} | ${fmt(r.min)} | ${fmt(r.max)} | ${fmt(r.cold)} | ${r.first.toFixed(1)} | ${fmt(r.p1)} | ${r.toolCalls} |`);
}
console.log(`median, min, max: of the timed runs after ${WARM_UP_MS} ms of untimed warm-up runs (${rows.map((r) => r.warmUpRuns).join(', ')}); first run: the first warm-up run, on cold engines.`);
if (rows.some((r) => r.actions === 20600 && r.p1 !== 99000)) {
  console.log('note: the final state is not the expected one (p1 should hold 99,000 chars): the reducers are stubs or wrong');
}
