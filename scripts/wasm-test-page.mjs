// Runs one wasm-bindgen test page in Debian's headless Chromium through playwright-core (the
// driver the page tests use). scripts/wasm-test-runner.sh starts wasm-bindgen-test-runner in its
// serving mode (NO_HEADLESS) and calls this with that server's URL and the address the page must
// have. The page is served through a small proxy here that sends every request to the runner's
// server on a connection of its own: the browser's spare, idle connections (preconnects) never
// reach that server, which otherwise sometimes never answered the page's navigation.
//
//   node scripts/wasm-test-page.mjs SERVER_URL PAGE_ADDRESS TIMEOUT_SECONDS
//
// Prints the harness's output as it appears (and the page's console output when tests fail);
// exits 0 when the harness reports `test result: ok`, 1 when it reports a failure, and 3 when it
// never reported a result (the page did not load or the harness never ran).
import http from 'node:http';
import { launchChromium } from '../tests/browser/harness.mjs';

const [serverUrl, pageAddress, timeoutSeconds = '150'] = process.argv.slice(2);
if (!serverUrl || !pageAddress) {
  console.error('usage: node scripts/wasm-test-page.mjs SERVER_URL PAGE_ADDRESS [TIMEOUT_SECONDS]');
  process.exit(2);
}
const deadline = Date.now() + Number(timeoutSeconds) * 1000;

// The proxy: one fresh connection to the runner's server per request, closed after it.
const upstream = new URL(serverUrl);
const proxy = http.createServer((req, res) => {
  const headers = { ...req.headers, host: upstream.host, connection: 'close' };
  const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent: false }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  out.setTimeout(30_000, () => out.destroy(new Error('the test server did not answer in 30 s')));
  out.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(String(e.message));
  });
  req.pipe(out);
});
const [pageHost, pagePort] = pageAddress.split(':');
await new Promise((resolve, reject) => proxy.once('error', reject).listen(Number(pagePort), pageHost, resolve));
const url = `http://${pageAddress}/`;

const browser = await launchChromium();
let status = 3;
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  let printed = 0;
  let output = '';
  while (Date.now() < deadline) {
    output = (await page.locator('#output').textContent({ timeout: 5_000 }).catch(() => null)) ?? output;
    if (output.length > printed) {
      process.stdout.write(output.slice(printed));
      printed = output.length;
    }
    if (output.includes('test result: ')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (output.includes('test result: ok')) status = 0;
  else {
    status = output.includes('test result: ') ? 1 : 3;
    if (status === 3) console.log('\nwasm-test-page: the harness reported no result in time');
    const console_ = await page.locator('#console_output').textContent({ timeout: 5_000 }).catch(() => '');
    if (console_) console.log(`console output:\n${console_.replace(/^/gm, '    ')}`);
    for (const p of problems) console.log(p);
  }
} catch (e) {
  console.log(`wasm-test-page: ${e.message}`);
} finally {
  await browser.close().catch(() => {});
  proxy.close();
}
process.exit(status);
