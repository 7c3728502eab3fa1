// Profiles the mirror hot path in Node (the loop of bench/node-client.mjs only, not setup):
// self time per function, JS and wasm (build the package without wasm-opt to keep wasm names).
//   node bench/profile-client.mjs [turns=500] [runs=5] [top=40]
import * as sdk from 'ahp-wasm/v0.3';
import { Session } from 'node:inspector/promises';
import { framesOf, openMirror } from './client-core.mjs';
import { loadWorkload } from './workload.mjs';

const [turns = 500, runs = 5, top = 40] = process.argv.slice(2).map(Number);
const { uri, initialText, envelopeLines } = loadWorkload(turns);
const frames = framesOf(envelopeLines);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 50 });
const mirrors = [];
for (let r = 0; r <= runs; r++) mirrors.push(await openMirror(sdk, uri, initialText));
// The first read converts the state whole: done for every mirror before profiling starts.
for (const { subscription } of mirrors) if (subscription.state === undefined) throw new Error('no state');
let loopNs = 0;
let profile;
for (let r = 0; r <= runs; r++) {
  const { subscription, push } = mirrors[r];
  if (r === 1) await session.post('Profiler.start');
  const start = process.hrtime.bigint();
  let seen = 0;
  for (const frame of frames) {
    push(frame);
    seen += subscription.state.activeTurn === undefined ? 0 : 1;
  }
  if (r >= 1) loopNs += Number(process.hrtime.bigint() - start);
  if (seen !== frames.length) throw new Error('lost the active turn');
}
({ profile } = await session.post('Profiler.stop'));
const perAction = loopNs / (runs * frames.length);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
let total = 0;
for (const id of profile.samples) {
  const n = byId.get(id);
  const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}`;
  self.set(key, (self.get(key) ?? 0) + 1);
  total++;
}
const groups = new Map();
for (const [key, count] of self) {
  const group = key.includes('.wasm') ? 'wasm' : key.startsWith('(garbage') ? 'gc' : 'js';
  groups.set(group, (groups.get(group) ?? 0) + count);
}
const split = [...groups].map(([g, c]) => `${g} ${((c / total) * perAction).toFixed(0)} ns`).join(', ');
console.log(`${turns} turns: ${perAction.toFixed(0)} ns/action over ${runs} runs (${split}); self time:`);
for (const [key, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  const share = count / total;
  console.log(`${(100 * share).toFixed(1).padStart(5)}% ${(share * perAction).toFixed(0).padStart(5)} ns  ${key.slice(0, 140)}`);
}
