// Starts the real `ahp-host` as a child process for a test: a free port, a fresh data
// directory, a known token. The binary: $AHP_HOST_BIN, else target/debug/ahp-host (built by
// scripts/test-wasm.sh with `cargo build -p ahp-host`).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function hostBinary() {
  const bin = process.env.AHP_HOST_BIN ?? join(ROOT, 'target', 'debug', 'ahp-host');
  if (!existsSync(bin)) throw new Error(`ahp-host not found at ${bin}: run \`cargo build -p ahp-host\` or set AHP_HOST_BIN`);
  return bin;
}

let home;
/**
 * A home directory for test hosts, made once per process and removed at exit: their terminals'
 * bash reads `~/.bashrc`, and a developer's may be slow (a `pyenv` rehash waits up to 60 s on a
 * lock a killed shell left behind) or print things. This one sets a prompt and marks itself
 * sourced. Returns the environment to add (`HOME`, and `SHELL` bash: shell integration is bash's).
 */
export function testHomeEnv() {
  if (!home) {
    home = mkdtempSync(join(tmpdir(), 'ahp-test-home-'));
    writeFileSync(join(home, '.bashrc'), "export AHP_TEST_BASHRC=sourced\nPS1='$ '\n");
    process.on('exit', () => rmSync(home, { recursive: true, force: true }));
  }
  return { HOME: home, SHELL: '/bin/bash' };
}

/**
 * Starts a host; stops it (and removes its data) when the test ends. `at`: a fixed `port` and
 * `token` instead of fresh ones (a host restarted in place), `env`: variables added to the
 * host's environment (e.g. a `HOME` with a known `.bashrc` for its terminals).
 * @returns {Promise<{ port: number, wsUrl: string, httpUrl: string, token: string, workdir: string, stop(): Promise<void> }>}
 */
export async function startHost(t, extraArgs = [], at = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'ahp-host-test-'));
  const token = at.token ?? `test-token-${Math.random().toString(16).slice(2)}-0123456789`;
  const child = spawn(
    hostBinary(),
    ['--port', String(at.port ?? 0), '--data-dir', dataDir, '--token', token, '--workdir', dataDir, ...(extraArgs.includes('--chunk-delay-ms') ? [] : ['--chunk-delay-ms', '2']), ...extraArgs],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...testHomeEnv(), ...at.env } },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`ahp-host did not start within 30 s:\n${stderr}`)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /open: http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ahp-host exited with ${code}:\n${stderr}`));
    });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  t?.after(stop);
  return {
    port,
    token,
    /** The host's working directory (its file sandbox). */
    workdir: dataDir,
    httpUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/ahp`,
    stop,
  };
}
