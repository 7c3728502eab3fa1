// The mirror path over a real WebSocket in headless Chromium: a loopback server (the `ws`
// package) answers `initialize` with the standard workload's snapshot and then sends its 20,600
// action frames as fast as the socket takes them; the page's subscription reads `state` in its
// change listener. Reports the time per frame from the first change to the last, with the
// default transport (gloo-net's WebSocket, in wasm) and with the JS one
// (`webSocketTransport(WebSocket)`, which copies frames into a buffer wasm lends), runs
// alternating. This is the time a browser takes to deliver a frame plus the SDK's work; the
// SDK's part alone is what bench/browser-client.mjs times.
//
//   node bench/browser-socket.mjs                 (after scripts/build-pkg.sh)
//   CHROME=path/to/chromium  AHP_BENCH_RUNS=5  AHP_BENCH_SIZES=500
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { WebSocketServer } from 'ws';
import { framesOf, median } from './client-core.mjs';
import { loadWorkload } from './workload.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.env.AHP_BENCH_RUNS ?? 5);
const sizes = (process.env.AHP_BENCH_SIZES ?? '500').split(',').map(Number);
const chrome = process.env.CHROME ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
if (!existsSync(join(root, 'pkg', 'web.js'))) throw new Error('pkg/ is not built; run scripts/build-pkg.sh');

let workload; // the size being measured: { uri, initialText, frames }
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  if (path === '/') {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><title>bench</title>');
    return;
  }
  const file = normalize(join(root, path));
  if (!path.startsWith('/pkg/') || !file.startsWith(root + sep) || !existsSync(file)) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
});
const sockets = new WebSocketServer({ server });
sockets.on('connection', (socket) => {
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    if (message.method !== 'initialize') return;
    const { uri, initialText, frames } = workload;
    const snapshot = `{"resource":${JSON.stringify(uri)},"state":${initialText},"fromSeq":0}`;
    const result = `{"protocolVersion":"0.3.0","serverSeq":0,"snapshots":[${snapshot}]}`;
    socket.send(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${result}}`);
    for (const frame of frames) socket.send(frame);
  });
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const port = server.address().port;

const browser = await chromium.launch({ executablePath: chrome, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e));
  await page.goto(`http://127.0.0.1:${port}/`);
  console.log(`mirror path over a loopback WebSocket in headless Chromium ${browser.version()}, ${runs} runs per transport (after 2 untimed)`);
  console.log('| turns | frames | default transport (gloo-net), ns/frame | JS transport, ns/frame |');
  console.log('|---:|---:|---:|---:|');
  for (const n of sizes) {
    const { uri, initialText, envelopeLines } = loadWorkload(n);
    workload = { uri, initialText, frames: framesOf(envelopeLines) };
    const times = await page.evaluate(async ({ port, uri, count, runs }) => {
      const sdk = await import('/pkg/v0.3/web.js');
      await sdk.init();
      const once = async (transport) => {
        const options = { initialSubscriptions: [uri], reconnect: false, keepaliveMs: 0 };
        if (transport === 'js') options.transport = sdk.webSocketTransport(WebSocket);
        let seen = 0;
        let first = 0;
        let last;
        const done = new Promise((ok) => (last = ok));
        const client = await sdk.AhpClient.connect(`ws://127.0.0.1:${port}/ahp`, options);
        const subscription = client.subscription(uri) ?? (await client.subscribe(uri));
        subscription.onChange(() => {
          if (subscription.state.activeTurn === undefined) throw new Error('the active turn disappeared');
          if (seen++ === 0) first = performance.now();
          if (seen === count) last(performance.now());
        });
        const end = await done;
        client.close();
        return ((end - first) * 1e6) / (count - 1);
      };
      const out = { gloo: [], js: [] };
      for (let run = -2; run < runs; run++) {
        for (const transport of ['gloo', 'js']) {
          const ns = await once(transport);
          if (run >= 0) out[transport].push(ns);
        }
      }
      return out;
    }, { port, uri, count: workload.frames.length, runs });
    const fmt = (xs) => `${Math.round(median(xs)).toLocaleString('en-US')} (${Math.round(Math.min(...xs)).toLocaleString('en-US')}-${Math.round(Math.max(...xs)).toLocaleString('en-US')})`;
    console.log(`| ${n} | ${workload.frames.length.toLocaleString('en-US')} | ${fmt(times.gloo)} | ${fmt(times.js)} |`);
  }
} finally {
  await browser.close();
  sockets.close();
  server.close();
}
