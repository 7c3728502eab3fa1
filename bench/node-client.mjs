// The mirror benchmark in Node: the standard stream (gen-stream.mjs: a session with 50 or 500
// completed turns, then 20,600 actions) fed as text frames through a wasm `Subscription` of the
// built package, reading `subscription.state` after every action as a UI would (the frozen,
// structurally shared state). Reports ns/action (median of runs, min, max) and the memory a
// subscription retains at each size; checks the final state.
//
//   node bench/node-client.mjs                    (after scripts/build-pkg.sh)
//   AHP_BENCH_RUNS=5  AHP_BENCH_SIZES=50,500  AHP_BENCH_DIR=dir (workload; default bench-workload/)
//   AHP_BENCH_MEMORY_SUBS=4   subscriptions held at once for the memory figure (0: skip memory)
//
// The memory figure of each size is measured in a fresh child process
// (`node --expose-gc bench/node-client.mjs --memory-child N`, printing JSON): in the timing
// process the garbage of earlier runs would blur the delta.
import * as sdk from 'ahp-wasm/v0.3';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { framesOf, measureHeld, printResults, timedRow, timedRuns } from './client-core.mjs';
import { loadWorkload } from './workload.mjs';

const runs = Number(process.env.AHP_BENCH_RUNS ?? 5);
const sizes = (process.env.AHP_BENCH_SIZES ?? '50,500').split(',').map(Number).sort((a, b) => a - b);
const memorySubs = Number(process.env.AHP_BENCH_MEMORY_SUBS ?? 4);
const now = () => Number(process.hrtime.bigint());

/** The package's WebAssembly.Memory: the glue's `initSync()` returns the already initialized exports. */
async function wasmMemory() {
  // Not in the package's exports map, so reached by file next to the resolved entry (the same
  // module instance the entry initialized).
  const glue = await import(new URL('./ahp_wasm.js', import.meta.resolve('ahp-wasm/v0.3')).href);
  const memory = glue.initSync()?.memory;
  if (!(memory instanceof WebAssembly.Memory)) throw new Error('the package exposes no wasm memory');
  return memory;
}

/** Full GC, letting FinalizationRegistry callbacks (which free wasm objects) run in between. */
async function settle() {
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((ok) => setTimeout(ok, 10));
  }
}

/** Child mode: prints `{ jsHeap, wasm }`, bytes retained per subscription at `turns`. */
async function memoryChild(turns) {
  if (!globalThis.gc) throw new Error('the memory child needs node --expose-gc');
  const memory = await wasmMemory();
  const { uri, initialText, envelopeLines } = loadWorkload(turns);
  const frames = framesOf(envelopeLines);
  const measure = async () => {
    await settle();
    // heapUsed holds the frozen state objects; the wasm side is the linear memory's size, an
    // upper bound of what Rust holds (it grows in pages, never shrinks, and keeps free blocks).
    return { jsHeap: process.memoryUsage().heapUsed, wasm: memory.buffer.byteLength };
  };
  const result = await measureHeld(sdk, uri, initialText, frames, memorySubs, measure);
  process.stdout.write(JSON.stringify(result) + '\n');
}

function memoryOf(turns) {
  const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--memory-child', String(turns)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop());
}

if (process.argv[2] === '--memory-child') {
  await memoryChild(Number(process.argv[3]));
  process.exit(0);
}

const rows = [];
for (const n of sizes) {
  const { uri, initialText, envelopeLines } = loadWorkload(n);
  const frames = framesOf(envelopeLines);
  rows.push(timedRow(n, frames, await timedRuns(sdk, uri, initialText, frames, now, () => performance.now(), runs)));
}
for (const r of rows) {
  if (memorySubs <= 0) {
    r.memoryError = 'not measured (AHP_BENCH_MEMORY_SUBS=0)';
    continue;
  }
  try {
    r.memory = memoryOf(r.n);
  } catch (e) {
    r.memoryError = `failed (${e.message.split('\n')[0]})`;
  }
}
printResults(`wasm Subscription (text frames -> state) in Node ${process.version}, ${runs} runs each; memory: ${memorySubs} subscriptions held in a fresh process`, rows);
