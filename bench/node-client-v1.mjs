// AHP 1.0 against 0.3.0 in Node, interleaved in one process: the mirror path (the standard
// stream as text frames through a wasm `Subscription`, `state` read after every action, as
// bench/node-client.mjs) of `ahp-wasm` (AHP 1.0) on a chat channel (bench/gen-stream-v1.mjs) against
// `ahp-wasm/v0.3` on a session channel (bench/gen-stream.mjs), and the reducers called from JS on the
// same streams: 1.0's `chatReducer` against 0.3.0's `sessionReducer` (as bench/node-reducer.mjs).
// Each round runs one pass of each of the four, in turn, so a loaded machine slows them alike.
// Reports ns/action (median of the rounds, min, max) and the ratio 1.0 / 0.3.0 of the medians;
// checks both final states (p1 holds 99,000 chars, 200 tool calls).
//
//   node bench/node-client-v1.mjs                 (after scripts/build-pkg.sh)
//   AHP_BENCH_RUNS=5  AHP_BENCH_SIZES=50,500  AHP_BENCH_DIR=dir (workloads: dir/ and dir-v1/)
import * as v03 from 'ahp-wasm/v0.3';
import * as v1 from 'ahp-wasm';
import { readFileSync } from 'node:fs';
import { checkFinal, framesOf, median, runOnce, WARM_UP_MS } from './client-core.mjs';
import { loadWorkload, loadWorkloadV1 } from './workload.mjs';

const runs = Number(process.env.AHP_BENCH_RUNS ?? 5);
const sizes = (process.env.AHP_BENCH_SIZES ?? '50,500').split(',').map(Number).sort((a, b) => a - b);
const now = () => Number(process.hrtime.bigint());
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** One reducer pass over the stream from the initial state text: { nsPerAction, final }. */
function reducerPass(reduce, initialText, actions) {
  let state = JSON.parse(initialText);
  const start = now();
  for (let i = 0; i < actions.length; i++) state = reduce(state, actions[i]);
  return { nsPerAction: (now() - start) / actions.length, final: state };
}

/** The four paths of one size: name -> async () => { nsPerAction, final }. */
function paths(n) {
  const w03 = loadWorkload(n);
  const w1 = loadWorkloadV1(n);
  const frames03 = framesOf(w03.envelopeLines);
  const frames1 = framesOf(w1.envelopeLines);
  const actions03 = JSON.parse(readFileSync(w03.actionsPath, 'utf8'));
  const actions1 = JSON.parse(readFileSync(w1.actionsPath, 'utf8'));
  if (frames03.length !== frames1.length || actions03.length !== actions1.length) throw new Error('the two workloads differ in length');
  return {
    actions: frames1.length,
    run: {
      'mirror 0.3.0': () => runOnce(v03, w03.uri, w03.initialText, frames03, now),
      'mirror 1.0': () => runOnce(v1, w1.uri, w1.initialText, frames1, now),
      'reducer 0.3.0 (sessionReducer)': async () => reducerPass(v03.sessionReducer, w03.initialText, actions03),
      'reducer 1.0 (chatReducer)': async () => reducerPass(v1.chatReducer, w1.initialText, actions1),
    },
  };
}

const rows = [];
for (const n of sizes) {
  const { actions, run } = paths(n);
  const times = Object.fromEntries(Object.keys(run).map((k) => [k, []]));
  // Untimed warm-up: rounds of all four for WARM_UP_MS (at least two).
  const started = performance.now();
  let warmUp = 0;
  while (warmUp < 2 || performance.now() - started < WARM_UP_MS) {
    for (const f of Object.values(run)) checkFinal((await f()).final);
    warmUp++;
  }
  for (let round = 0; round < runs; round++) {
    for (const [name, f] of Object.entries(run)) {
      const r = await f();
      checkFinal(r.final);
      times[name].push(r.nsPerAction);
    }
  }
  rows.push({ n, actions, warmUp, times });
}

console.log(`AHP 1.0 (ahp-wasm) against 0.3.0 (ahp-wasm/v0.3) in Node ${process.version}, interleaved, ${runs} rounds each`);
console.log('| turns | path | ns/action (median) | min | max | 1.0 / 0.3.0 |');
console.log('|---:|---|---:|---:|---:|---:|');
for (const { n, times } of rows) {
  const names = Object.keys(times);
  for (const [i, name] of names.entries()) {
    const ts = times[name];
    const ratio = name.includes('1.0') ? `${(median(ts) / median(times[names[i - 1]])).toFixed(2)}x` : '';
    console.log(`| ${n} | ${name} | ${fmt(median(ts))} | ${fmt(Math.min(...ts))} | ${fmt(Math.max(...ts))} | ${ratio} |`);
  }
}
console.log(`${fmt(rows[0]?.actions ?? 0)} actions per pass; timed after ${WARM_UP_MS} ms of untimed warm-up rounds (${rows.map((r) => r.warmUp).join(', ')}).`);
