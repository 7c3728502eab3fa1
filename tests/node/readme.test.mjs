// The examples of pkg/README.md are type-checked (tsc -p tests/ts) as tests/ts/readme.ts (the
// client quick start, AHP 1.0), tests/ts/readme-intro.ts (the first example, 1.0),
// tests/ts/readme-porting-v1.ts (porting from the official 1.0 client), tests/ts/readme-v03.ts
// (the AHP 0.3.0 entry) and tests/ts/readme-porting.ts (porting from the official 0.3.0 client),
// and the repository README's by tests/ts/readme-root.ts and two of those: they must not drift
// apart. The quick start also runs, twice, against the real host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';

test('the README quick start is the type-checked tests/ts/readme.ts', () => {
  const readme = readFileSync(new URL('../../pkg/README.md', import.meta.url), 'utf8');
  const block = /## Quick start: the client\n\n```ts\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the quick start block is in pkg/README.md');
  const checked = readFileSync(new URL('../ts/readme.ts', import.meta.url), 'utf8');
  const body = checked.split('\n').filter((line, i) => !(i < 2 && line.startsWith('//'))).join('\n');
  assert.equal(body, block[1]);
});

test('the README first example is the type-checked tests/ts/readme-intro.ts', () => {
  const readme = readFileSync(new URL('../../pkg/README.md', import.meta.url), 'utf8');
  const block = /the Rust wire types\.\n\n```ts\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the first example is in pkg/README.md');
  const checked = readFileSync(new URL('../ts/readme-intro.ts', import.meta.url), 'utf8');
  // Its first three lines: two comment lines and the declaration of what the example assumes.
  const body = checked.split('\n').slice(3).join('\n');
  assert.equal(body, block[1]);
});

test('the README porting example is the type-checked tests/ts/readme-porting.ts', () => {
  const readme = readFileSync(new URL('../../pkg/README.md', import.meta.url), 'utf8');
  const block = /they work before `init\(\)`\.\n\n```ts\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the porting example is in pkg/README.md');
  const checked = readFileSync(new URL('../ts/readme-porting.ts', import.meta.url), 'utf8');
  const body = checked.split('\n').slice(3).join('\n');
  assert.equal(body, block[1]);
});

test('the README AHP 0.3.0 example is the type-checked tests/ts/readme-v03.ts', () => {
  const readme = readFileSync(new URL('../../pkg/README.md', import.meta.url), 'utf8');
  const block = /## AHP 0\.3\.0: `ahp-wasm\/v0\.3`\n\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the 0.3.0 example is in pkg/README.md');
  const checked = readFileSync(new URL('../ts/readme-v03.ts', import.meta.url), 'utf8');
  const body = checked.split('\n').slice(3).join('\n');
  assert.equal(body, block[1]);
});

test('the README 1.0 porting example is the type-checked tests/ts/readme-porting-v1.ts', () => {
  const readme = readFileSync(new URL('../../pkg/README.md', import.meta.url), 'utf8');
  const block = /## Porting from the official 1\.0 TypeScript client\n\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the 1.0 porting example is in pkg/README.md');
  const checked = readFileSync(new URL('../ts/readme-porting-v1.ts', import.meta.url), 'utf8');
  const body = checked.split('\n').slice(3).join('\n');
  assert.equal(body, block[1]);
});

// The repository README's JavaScript section: each of its TypeScript samples is the body of a
// type-checked file (the first example and the 0.3.0 one are pkg/README.md's too).
test("the repository README's TypeScript samples are type-checked files", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = /## Using it from JavaScript \/ TypeScript\n([\s\S]*?)\n## /.exec(readme);
  assert.ok(section, 'the JavaScript section is in README.md');
  const blocks = [...section[1].matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  const body = (file) => readFileSync(new URL(`../ts/${file}`, import.meta.url), 'utf8').split('\n').slice(3).join('\n');
  assert.deepEqual(blocks, [body('readme-intro.ts'), body('readme-root.ts'), body('readme-v03.ts')]);
});

// The quick start, run: its TypeScript stripped by esbuild, the host's URL and token put in place
// of the sample's, `render` defined; twice against the same host (a new session URI each run).
test('the README quick start runs against the real host, twice', async (t) => {
  const { execFileSync } = await import('node:child_process');
  const { writeFileSync, rmSync } = await import('node:fs');
  const { startHost } = await import('./host.mjs');
  const host = await startHost(t);
  const root = new URL('../../', import.meta.url);
  const esbuild = new URL('node_modules/.bin/esbuild', root).pathname;
  const js = execFileSync(esbuild, [new URL('tests/ts/readme.ts', root).pathname, '--format=esm'], { encoding: 'utf8' });
  assert.ok(js.includes('"ws://127.0.0.1:8787/ahp"') && js.includes('"the host token"'), 'the sample names its URL and token');
  const program =
    'let renders = 0;\nfunction render(state) { renders += 1; if (!Object.isFrozen(state)) throw new Error("not frozen"); }\n' +
    js.replace('"ws://127.0.0.1:8787/ahp"', JSON.stringify(host.wsUrl)).replace('"the host token"', JSON.stringify(host.token)) +
    '\nawait new Promise((ok) => setTimeout(ok, 50));\nconsole.log(JSON.stringify({ renders }));\n';
  const file = new URL('tests/node/.readme-quick-start.run.mjs', root);
  writeFileSync(file, program);
  t.after(() => rmSync(file, { force: true }));
  for (let run = 1; run <= 2; run++) {
    const { stdout, stderr } = await new Promise((resolve, reject) => {
      execFile(process.execPath, ['--experimental-websocket', file.pathname], { timeout: 60_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`run ${run} failed: ${error.message}\n${stderr}`)) : resolve({ stdout, stderr }));
    });
    const result = JSON.parse(stdout.trim().split('\n').pop());
    assert.ok(result.renders >= 1, `run ${run}: onChange rendered`);
    assert.match(stderr, /-32001/, `run ${run}: the RpcError of the unknown session is printed`);
  }
});
