// The directories of the bad-input tests (Node and Chromium): one inside the host's sandbox with
// a file, one outside it with a file the host must never touch; and a listing of a tree with
// its contents, to compare before and after.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Creates `<sandbox>/bad-input/a.txt` and a directory outside with `secret.txt`. */
export function badInputDirs(t, sandbox) {
  const inside = join(sandbox, 'bad-input');
  mkdirSync(inside);
  writeFileSync(join(inside, 'a.txt'), 'alpha\n');
  const outside = mkdtempSync(join(tmpdir(), 'ahp-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'secret\n');
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  return { inside, outside };
}

/** Every file and directory under `dir`, with file contents, sorted. */
export function treeOf(dir, prefix = '') {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(`${prefix}${name}/`, ...treeOf(path, `${prefix}${name}/`));
    else out.push(`${prefix}${name}: ${readFileSync(path, 'utf8')}`);
  }
  return out;
}
