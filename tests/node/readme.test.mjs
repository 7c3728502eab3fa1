// The client quick start in pkg/README.md is type-checked (tsc -p tests/ts) as
// tests/ts/readme.ts: the two must not drift apart.
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
