// AHP 1.0 against 0.3.0 in headless Chromium, interleaved in one page: the mirror path (the
// standard stream as text frames through a wasm `Subscription`, `state` read after every
// action; bench/client-core.mjs, as bench/browser-client.mjs) of the package's 1.0 build
// (pkg/web.js) on a chat channel (bench/gen-stream-v1.mjs) against its 0.3.0 build
// (pkg/v0.3/web.js) on a session channel (bench/gen-stream.mjs). Both modules are loaded in the same
// page; each round runs one pass of each, in turn, so a loaded machine slows them alike.
// Reports ns/action (median of the rounds, min, max) and the ratio 1.0 / 0.3.0 of the medians;
// checks both final states (p1 holds 99,000 chars, 200 tool calls). The Node form of the same
// comparison: bench/node-client-v1.mjs.
//
//   node bench/browser-client-v1.mjs              (after scripts/build-pkg.sh)
//   CHROME=path/to/chromium  AHP_BENCH_RUNS=9  AHP_BENCH_SIZES=50,500  AHP_BENCH_DIR=dir
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { loadWorkload, loadWorkloadV1 } from './workload.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.env.AHP_BENCH_RUNS ?? 9);
const sizes = (process.env.AHP_BENCH_SIZES ?? '50,500').split(',').map(Number).sort((a, b) => a - b);
const chrome = process.env.CHROME ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.json': 'application/json', '.jsonl': 'text/plain' };
const fmt = (n) => Math.round(n).toLocaleString('en-US');

for (const entry of ['pkg/v0.3/web.js', 'pkg/web.js']) {
  if (!existsSync(join(root, entry))) throw new Error(`${entry} is not built; run scripts/build-pkg.sh`);
}
// version -> turns -> workload
const workloads = { v03: new Map(sizes.map((n) => [n, loadWorkload(n)])), v1: new Map(sizes.map((n) => [n, loadWorkloadV1(n)])) };

// Serves the repository (pkg/, bench/) and /workload/{v03,v1}/N/{initial.json,envelopes.jsonl}.
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  const m = /^\/workload\/(v03|v1)\/(\d+)\/(initial\.json|envelopes\.jsonl)$/.exec(path);
  let file;
  if (m && workloads[m[1]].has(Number(m[2]))) {
    const w = workloads[m[1]].get(Number(m[2]));
    file = m[3] === 'initial.json' ? w.initialPath : w.envelopesPath;
  } else if (path === '/') {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><title>bench</title>');
    return;
  } else {
    file = normalize(join(root, path));
    if (!file.startsWith(root + sep) || !existsSync(file)) return res.writeHead(404).end();
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({ executablePath: chrome, args: ['--no-sandbox'] });
const rows = [];
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e));
  await page.goto(`${origin}/`);
  for (const n of sizes) {
    rows.push(
      await page.evaluate(
        async ({ n, runs }) => {
          const core = await import('/bench/client-core.mjs');
          const sdks = { '0.3.0': await import('/pkg/v0.3/web.js'), '1.0': await import('/pkg/web.js') };
          await sdks['0.3.0'].init();
          await sdks['1.0'].init();
          if (sdks['1.0'].PROTOCOL_VERSION !== '1.0.0' || sdks['0.3.0'].PROTOCOL_VERSION !== '0.3.0') throw new Error('the entries speak other versions');
          const load = async (dir) => {
            const initialText = await (await fetch(`/workload/${dir}/${n}/initial.json`)).text();
            const lines = (await (await fetch(`/workload/${dir}/${n}/envelopes.jsonl`)).text()).split('\n').filter((l) => l);
            const initial = JSON.parse(initialText);
            return { uri: initial.summary?.resource ?? initial.resource, initialText, frames: core.framesOf(lines) };
          };
          const w = { '0.3.0': await load('v03'), '1.0': await load('v1') };
          if (w['0.3.0'].frames.length !== w['1.0'].frames.length) throw new Error('the two workloads differ in length');
          const now = () => performance.now() * 1e6;
          const pass = (v) => core.runOnce(sdks[v], w[v].uri, w[v].initialText, w[v].frames, now);
          // Untimed warm-up: rounds of both for WARM_UP_MS (at least two).
          const started = performance.now();
          let warmUp = 0;
          while (warmUp < 2 || performance.now() - started < core.WARM_UP_MS) {
            for (const v of ['0.3.0', '1.0']) core.checkFinal((await pass(v)).final);
            warmUp++;
          }
          const times = { '0.3.0': [], '1.0': [] };
          for (let round = 0; round < runs; round++) {
            for (const v of ['0.3.0', '1.0']) {
              const r = await pass(v);
              core.checkFinal(r.final);
              times[v].push(r.nsPerAction);
            }
          }
          return { n, actions: w['1.0'].frames.length, warmUp, times, median: { '0.3.0': core.median(times['0.3.0']), '1.0': core.median(times['1.0']) } };
        },
        { n, runs },
      ),
    );
  }
  await page.close();
  console.log(`AHP 1.0 (pkg/web.js) against 0.3.0 (pkg/v0.3/web.js), mirror path, in headless Chromium ${browser.version()}, one page, interleaved, ${runs} rounds each`);
  console.log('| turns | path | ns/action (median) | min | max | 1.0 / 0.3.0 |');
  console.log('|---:|---|---:|---:|---:|---:|');
  for (const { n, times, median } of rows) {
    for (const v of ['0.3.0', '1.0']) {
      const ts = times[v];
      const ratio = v === '1.0' ? `${(median['1.0'] / median['0.3.0']).toFixed(2)}x` : '';
      console.log(`| ${n} | mirror ${v} | ${fmt(median[v])} | ${fmt(Math.min(...ts))} | ${fmt(Math.max(...ts))} | ${ratio} |`);
    }
  }
  console.log(`${fmt(rows[0]?.actions ?? 0)} actions per pass; timed after ${1000} ms of untimed warm-up rounds (${rows.map((r) => r.warmUp).join(', ')}).`);
} finally {
  await browser.close();
  server.close();
}
