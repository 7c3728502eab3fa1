// Shared by the end-to-end page tests: the real ahp-host binary serving www/ and pkg/, and
// Debian's headless Chromium driven by playwright-core. The host binary comes from
// `cargo build -p ahp-host` unless AHP_HOST_BIN names one; Chromium is /usr/bin/chromium unless
// CHROME names another.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { testHomeEnv } from '../node/host.mjs';

export const ROOT_DIR = fileURLToPath(new URL('../../', import.meta.url));
const CHROMIUM = process.env.CHROME ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync) ?? 'chromium';
export const WAIT = 20_000; // any single expected change
export const TOKEN = 'page-e2e-token-0123456789abcdef';

/** Runs a child to completion; rejects on a non-zero exit or after `timeoutMs`. */
export function run(cmd, args, { cwd, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')}: no exit within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${stderr.slice(-4000)}`));
    });
  });
}

/** The ahp-host binary: $AHP_HOST_BIN, else built now (a no-op when it is up to date). */
export async function hostBinary() {
  if (process.env.AHP_HOST_BIN) return process.env.AHP_HOST_BIN;
  const out = await run('cargo', ['build', '-p', 'ahp-host', '--bin', 'ahp-host', '--message-format=json'], {
    cwd: ROOT_DIR,
    timeoutMs: 15 * 60_000,
  });
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    const msg = JSON.parse(line);
    if (msg.reason === 'compiler-artifact' && msg.target?.name === 'ahp-host' && msg.executable) return msg.executable;
  }
  throw new Error('cargo build did not report the ahp-host executable');
}

/**
 * Starts ahp-host on a free port; resolves with { url, child, logs } once it printed its URL.
 * `env`: variables added to its environment.
 */
export function startHost(bin, dataDir, workDir, port = 0, extraArgs = [], env = {}) {
  const child = spawn(bin, [
    '--port', String(port), '--data-dir', dataDir, '--workdir', workDir, '--token', TOKEN,
    '--www', join(ROOT_DIR, 'www'), '--pkg', join(ROOT_DIR, 'pkg'), '--chunk-delay-ms', '15', ...extraArgs,
  ], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...testHomeEnv(), ...env } });
  const logs = { stdout: '', stderr: '' };
  child.stderr.on('data', (d) => (logs.stderr += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ahp-host printed no URL within ${WAIT} ms:\n${logs.stderr}`)), WAIT);
    child.stdout.on('data', (d) => {
      logs.stdout += d;
      const m = logs.stdout.match(/^open: (http:\/\/\S+)$/m);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`ahp-host exited (${code}):\n${logs.stderr}`)); });
    child.once('error', (e) => { clearTimeout(timer); reject(e); });
  });
  return { child, exited, logs, url };
}

/** Resolves `promise` or rejects after `ms` (for cleanup steps that must not hang). */
export function within(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms); }),
  ]);
}

/**
 * A page on `url`, with its console errors, page errors and CSP reports collected; `beforeLoad`
 * sees the page before it navigates (to listen to its WebSocket, say).
 */
export async function openPage(browser, url, name, pages, beforeLoad = () => {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  beforeLoad(page);
  page.setDefaultTimeout(WAIT);
  const problems = [];
  const entry = { name, context, page, problems };
  pages.push(entry);
  page.on('pageerror', (e) => problems.push(`${name} pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy|Trusted Type/i.test(m.text())) problems.push(`${name} console.${m.type()}: ${m.text()} (${m.location()?.url ?? ''}:${m.location()?.lineNumber ?? ''})`);
  });
  await page.goto(url);
  const state = page.locator('[data-testid=connection-state]');
  await page.waitForSelector('[data-testid=connection-state]:is([data-state=connected], [data-state=failed])');
  assert.equal(await state.getAttribute('data-state'), 'connected', `${name} connects`);
  return entry;
}

/** Opens a new session in `page` and waits until the page lends it its browser tools. */
export async function newSessionLendingTools(page) {
  await page.click('[data-testid=new-session]');
  await page.locator('[data-testid=tools-status][data-state=active]').waitFor();
  return page.evaluate(() => ({ clientId: window.__ahp.client.clientId, session: window.__ahp.subscription.uri }));
}

/** Whether `problem` (as harness.mjs records it) is the browser reporting that a connection to
 * the host's `/ahp` (of the page at `pageUrl`) could not be made: the WebSocket upgrade, or the
 * SDK's GET that asks why it failed. What a page logs while its host is down, and nothing else. */
export function isConnectionErrorToHost(problem, pageUrl) {
  const ahp = `//${new URL(pageUrl).host}/ahp?`;
  const websocket = problem.includes(` console.error: WebSocket connection to 'ws:${ahp}`) && problem.includes("' failed");
  const probe = / console\.error: Failed to load resource: net::ERR_(CONNECTION_(REFUSED|RESET|CLOSED)|EMPTY_RESPONSE) \(http:/.test(problem)
    && problem.includes(` (http:${ahp}`);
  return websocket || probe;
}

/** No page had errors or CSP reports (a closed page's failed WebSocket aside). */
export function assertNoProblems(pages) {
  for (const p of pages) {
    p.problems.splice(0, p.problems.length, ...p.problems.filter((m) => !/WebSocket connection to .* failed/.test(m)));
  }
  assert.deepEqual(pages.flatMap((p) => p.problems), [], 'no page errors or CSP reports');
}

/** Debian's Chromium, headless, with the flags this machine needs. */
export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 60_000,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * A host on a fresh data and working directory (`prepare(workDir)` fills the latter first) and a
 * browser, both stopped and removed when the test ends. `cleanup` runs first at the end; `env`
 * goes to the host's environment. Resolves with { url, host, browser, pages, workDir }.
 */
export async function hostAndBrowser(t, { prefix = 'ahp-browser-', extraArgs = [], env = {}, prepare = () => {}, cleanup = () => {} } = {}) {
  const bin = await hostBinary();
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  const workDir = join(tmp, 'work');
  mkdirSync(workDir);
  await prepare(workDir);
  const host = startHost(bin, join(tmp, 'data'), workDir, 0, extraArgs, env);
  const ctx = { url: null, host, browser: null, pages: [], workDir };
  t.after(async () => {
    await cleanup();
    if (ctx.browser) await within(ctx.browser.close(), 15_000, 'browser.close').catch(() => {});
    host.child.kill('SIGKILL');
    await within(host.exited, 10_000, 'ahp-host exit').catch(() => {});
    rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });
  ctx.url = await host.url;
  ctx.browser = await launchChromium();
  return ctx;
}

/** Adds the pages' problems and the host's log to a failure's message. */
export function explain(e, ctx) {
  e.message += `\n--- page problems:\n${ctx.pages.flatMap((p) => p.problems).join('\n') || '(none)'}`
    + `\n--- ahp-host stderr:\n${ctx.host.logs.stderr.slice(-3000)}`;
  return e;
}

/**
 * A page that only loads the package (`window.sdk`, initialized) and the given extra modules
 * (`modules`: name -> file, imported as `window.modules[name]`), served by a real host on fresh
 * directories, in headless Chromium. Everything is stopped and removed when the test ends.
 * `entry`: the package's browser entry under pkg/ (`v0.3/web.js`, AHP 0.3.0; `web.js`, AHP 1.0).
 * Resolves with { host, page, errors } (`host` from tests/node/host.mjs, `errors`: uncaught
 * page errors).
 */
export async function sdkPage(t, { modules = {}, hostArgs = [], entry = 'v0.3/web.js' } = {}) {
  const { startHost } = await import('../node/host.mjs');
  const pkg = join(ROOT_DIR, 'pkg');
  assert.ok(existsSync(join(pkg, entry)), 'pkg/ is not built; run scripts/build-pkg.sh');
  const www = mkdtempSync(join(tmpdir(), 'ahp-sdk-page-'));
  t.after(() => rmSync(www, { recursive: true, force: true }));
  const imports = Object.keys(modules)
    .map((name) => `window.modules[${JSON.stringify(name)}] = await import('/${name}.js');`)
    .join('\n  ');
  writeFileSync(join(www, 'index.html'), `<!doctype html><meta charset="utf-8"><title>ahp-wasm SDK page</title>
<script type="module">
  const sdk = await import(${JSON.stringify(`/pkg/${entry}`)});
  await sdk.init();
  window.sdk = sdk;
  window.modules = {};
  ${imports}
  window.ready = true;
</script>`);
  for (const [name, file] of Object.entries(modules)) copyFileSync(file, join(www, `${name}.js`));
  const host = await startHost(t, ['--www', www, '--pkg', pkg, ...hostArgs]);
  const browser = await launchChromium();
  t.after(() => browser.close());
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${host.httpUrl}/?tkn=${host.token}`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
  return { host, page, errors };
}
