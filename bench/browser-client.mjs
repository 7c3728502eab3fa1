// The mirror benchmark in headless Chromium: the same measurement as bench/node-client.mjs
// (bench/client-core.mjs), run in a page that loads the package's AHP 0.3.0 browser entry (pkg/v0.3/web.js).
// A loopback server serves the repository and the workload; playwright-core drives Debian's
// Chromium and collects the figures.
//
//   node bench/browser-client.mjs                 (after scripts/build-pkg.sh)
//   CHROME=path/to/chromium  AHP_BENCH_RUNS=5  AHP_BENCH_SIZES=50,500  AHP_BENCH_DIR=dir
//   AHP_BENCH_MEMORY_SUBS=4   subscriptions held at once for the memory figure
//
// The memory figure of each size is measured in a fresh browser context and page (no garbage of
// the timed runs): GC and the JS heap's used size come from the DevTools protocol
// (HeapProfiler.collectGarbage, Runtime.getHeapUsage), the wasm side is the growth of the
// package's linear memory. Chromium's V8 compresses pointers (Node's does not), so its JS heap
// figure is about half of Node's for the same objects.
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { printResults } from './client-core.mjs';
import { loadWorkload } from './workload.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.env.AHP_BENCH_RUNS ?? 5);
const sizes = (process.env.AHP_BENCH_SIZES ?? '50,500').split(',').map(Number).sort((a, b) => a - b);
const memorySubs = Number(process.env.AHP_BENCH_MEMORY_SUBS ?? 4);
const chrome = process.env.CHROME ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.json': 'application/json', '.jsonl': 'text/plain' };

if (!existsSync(join(root, 'pkg', 'web.js'))) throw new Error('pkg/ is not built; run scripts/build-pkg.sh');
const workloads = new Map(sizes.map((n) => [n, loadWorkload(n)]));

// Serves the repository (pkg/, bench/) and /workload/N/{initial.json,envelopes.jsonl}.
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  const m = /^\/workload\/(\d+)\/(initial\.json|envelopes\.jsonl)$/.exec(path);
  let file;
  if (m && workloads.has(Number(m[1]))) {
    const w = workloads.get(Number(m[1]));
    file = m[2] === 'initial.json' ? w.initialPath : w.envelopesPath;
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

/** Bytes retained per subscription at `n` turns, `{ jsHeap, wasm }`, measured in a fresh context. */
async function memoryOf(browser, n) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e));
    const cdp = await context.newCDPSession(page);
    // Called by the page: a full GC, then the isolate's used JS heap.
    await page.exposeFunction('benchCollect', async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      return (await cdp.send('Runtime.getHeapUsage')).usedSize;
    });
    await page.goto(`${origin}/`);
    return await page.evaluate(async ({ n, count }) => {
      const sdk = await import('/pkg/v0.3/web.js');
      await sdk.init();
      const core = await import('/bench/client-core.mjs');
      // The glue's init returns the exports sdk.init() already loaded; they hold the memory.
      const memory = (await (await import('/pkg/v0.3/ahp_wasm.js')).default()).memory;
      if (!(memory instanceof WebAssembly.Memory)) throw new Error('the package exposes no wasm memory');
      const initialText = await (await fetch(`/workload/${n}/initial.json`)).text();
      const lines = (await (await fetch(`/workload/${n}/envelopes.jsonl`)).text()).split('\n').filter((l) => l);
      const uri = JSON.parse(initialText).summary.resource;
      const frames = core.framesOf(lines);
      const measure = async () => {
        // Timers in between let FinalizationRegistry callbacks (which free wasm objects) run.
        let jsHeap;
        for (let i = 0; i < 4; i++) {
          jsHeap = await globalThis.benchCollect();
          await new Promise((ok) => setTimeout(ok, 10));
        }
        // Linear memory only grows and keeps free blocks: an upper bound of what Rust holds.
        return { jsHeap, wasm: memory.buffer.byteLength };
      };
      return core.measureHeld(sdk, uri, initialText, frames, count, measure);
    }, { n, count: memorySubs });
  } finally {
    await context.close();
  }
}

const browser = await chromium.launch({ executablePath: chrome, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e));
  await page.goto(`${origin}/`);
  const rows = [];
  for (const n of sizes) {
    const row = await page.evaluate(async ({ n, runs }) => {
      const sdk = await import('/pkg/v0.3/web.js');
      await sdk.init();
      const core = await import('/bench/client-core.mjs');
      const initialText = await (await fetch(`/workload/${n}/initial.json`)).text();
      const lines = (await (await fetch(`/workload/${n}/envelopes.jsonl`)).text()).split('\n').filter((l) => l);
      const uri = JSON.parse(initialText).summary.resource;
      const frames = core.framesOf(lines);
      const now = () => performance.now() * 1e6;
      return core.timedRow(n, frames, await core.timedRuns(sdk, uri, initialText, frames, now, () => performance.now(), runs));
    }, { n, runs });
    rows.push(row);
  }
  await page.close();
  for (const r of rows) {
    if (memorySubs <= 0) {
      r.memoryError = 'not measured (AHP_BENCH_MEMORY_SUBS=0)';
      continue;
    }
    try {
      r.memory = await memoryOf(browser, r.n);
    } catch (e) {
      r.memoryError = `failed (${e.message.split('\n')[0]})`;
    }
  }
  printResults(`wasm Subscription (text frames -> state) in headless Chromium ${browser.version()}, ${runs} runs each; memory: ${memorySubs} subscriptions held in a fresh page`, rows);
} finally {
  await browser.close();
  server.close();
}
