// Loads (generating once) the standard benchmark workload of gen-stream.mjs for Node benches
// (and its 1.0 form, gen-stream-v1.mjs, written beside it in `<dir>-v1`).
//   AHP_GEN_STREAM=path/to/gen-stream.mjs   another generator (default bench/gen-stream.mjs)
//   AHP_BENCH_DIR=dir                       where the workload is written (default bench-workload/)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const workloadDir = resolve(process.env.AHP_BENCH_DIR ?? join(here, '..', 'bench-workload'));
const defaultGenerator = resolve(process.env.AHP_GEN_STREAM ?? join(here, 'gen-stream.mjs'));

/**
 * The workload for `turns` completed turns: the channel URI (a session's; a chat's in the 1.0
 * workload), its initial state text, envelope lines. `options`: another `generator` and `dir`
 * (the 1.0 workload: bench/gen-stream-v1.mjs, see `loadWorkloadV1`).
 */
export function loadWorkload(turns, { generator = defaultGenerator, dir = workloadDir } = {}) {
  const initialPath = join(dir, `initial-${turns}.json`);
  const envelopesPath = join(dir, `envelopes-${turns}.jsonl`);
  if (!existsSync(initialPath) || !existsSync(envelopesPath)) {
    if (!existsSync(generator)) throw new Error(`workload generator not found: ${generator}`);
    execFileSync(process.execPath, [generator, dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const initialText = readFileSync(initialPath, 'utf8');
  const envelopeLines = readFileSync(envelopesPath, 'utf8').split('\n').filter((l) => l.length > 0);
  const initial = JSON.parse(initialText);
  const uri = initial.summary?.resource ?? initial.resource;
  const actionsPath = join(dir, `actions-${turns}.json`);
  return { uri, initialText, envelopeLines, initialPath, envelopesPath, actionsPath };
}

/** The 1.0 workload (bench/gen-stream-v1.mjs: the same stream on a chat channel), beside the 0.3.0 one. */
export function loadWorkloadV1(turns) {
  return loadWorkload(turns, { generator: join(here, 'gen-stream-v1.mjs'), dir: `${workloadDir}-v1` });
}
