// Loads (generating once) the standard benchmark workload of gen-stream.mjs for Node benches.
//   AHP_GEN_STREAM=path/to/gen-stream.mjs   another generator (default bench/gen-stream.mjs)
//   AHP_BENCH_DIR=dir                       where the workload is written (default bench-workload/)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const workloadDir = resolve(process.env.AHP_BENCH_DIR ?? join(here, '..', 'bench-workload'));
const generator = resolve(process.env.AHP_GEN_STREAM ?? join(here, 'gen-stream.mjs'));

/** The workload for `turns` completed turns: the session URI, its initial state text, envelope lines. */
export function loadWorkload(turns) {
  const initialPath = join(workloadDir, `initial-${turns}.json`);
  const envelopesPath = join(workloadDir, `envelopes-${turns}.jsonl`);
  if (!existsSync(initialPath) || !existsSync(envelopesPath)) {
    if (!existsSync(generator)) throw new Error(`workload generator not found: ${generator}`);
    execFileSync(process.execPath, [generator, workloadDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const initialText = readFileSync(initialPath, 'utf8');
  const envelopeLines = readFileSync(envelopesPath, 'utf8').split('\n').filter((l) => l.length > 0);
  const uri = JSON.parse(initialText).summary.resource;
  const actionsPath = join(workloadDir, `actions-${turns}.json`);
  return { uri, initialText, envelopeLines, initialPath, envelopesPath, actionsPath };
}
