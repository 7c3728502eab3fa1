// The examples of pkg/README.md are type-checked (tsc -p tests/ts) as tests/ts/readme.ts (the
// client quick start), tests/ts/readme-intro.ts (the first example) and tests/ts/readme-porting.ts
// (the porting example): they must not drift apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

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
