// The built npm package (pkg/, resolved as 'ahp-wasm/v0.3' through its exports map with the `node`
// condition) in Node 20: the 163 official reducer conformance fixtures, then bad input.
// Run: node --test tests/node/   (after scripts/build-pkg.sh)
// Rules (as for the official clients): Date.now() returns 9999; states compare with nulls removed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as ahp from 'ahp-wasm/v0.3';

const {
  rootReducer,
  sessionReducer,
  terminalReducer,
  changesetReducer,
  resourceWatchReducer,
  AhpError,
  InvalidInputError,
  PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} = ahp;

const FIXTURE_DIR = new URL('../../protocol/ahp-0.3.0/conformance/reducers/', import.meta.url);
const FIXTURE_NOW = 9999;
const REDUCERS = {
  root: rootReducer,
  session: sessionReducer,
  terminal: terminalReducer,
  changeset: changesetReducer,
  resourceWatch: resourceWatchReducer,
};

/** Drops every null member, recursively (null and absent are the same on the wire). */
function withoutNulls(value) {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value !== null && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNulls(v);
    return out;
  }
  return value;
}

/** The path of the first property whose value is `undefined` (absent fields must be omitted). */
function findUndefined(value, path = '') {
  if (value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) return `${path}.${k}`;
    const found = findUndefined(v, `${path}.${k}`);
    if (found) return found;
  }
  return null;
}

/** Runs `fn` with Date.now() returning FIXTURE_NOW. */
function atFixtureTime(fn) {
  const realNow = Date.now;
  Date.now = () => FIXTURE_NOW;
  try {
    return fn();
  } finally {
    Date.now = realNow;
  }
}

function runFixture(fixture) {
  const reducer = REDUCERS[fixture.reducer];
  assert.ok(reducer, `unknown reducer ${fixture.reducer}`);
  return atFixtureTime(() => fixture.actions.reduce((state, action) => reducer(state, action), fixture.initial));
}

/**
 * Runs a fixture twice: chaining the returned states (the reducers' cached fast path, which
 * rebuilds only the top-level properties an action reports as changed) and passing a fresh
 * unfrozen copy each time (full conversion). Both must agree after every action.
 */
function assertCachedPathAgrees(fixture) {
  const reducer = REDUCERS[fixture.reducer];
  atFixtureTime(() => {
    let chained = fixture.initial;
    let fresh = fixture.initial;
    fixture.actions.forEach((action, i) => {
      chained = reducer(chained, action);
      fresh = reducer(structuredClone(fresh), action);
      assert.deepEqual(withoutNulls(chained), withoutNulls(fresh), `after action ${i} (${action.type})`);
    });
  });
}

const fixtureFiles = readdirSync(FIXTURE_DIR).filter((f) => f.endsWith('.json')).sort();
const loadFixture = (file) => JSON.parse(readFileSync(new URL(file, FIXTURE_DIR), 'utf8'));

// A small fixture that must keep working after every error below.
const SANITY = loadFixture('201-resourcewatch-unknown-action-is-no-op.json');
function assertStillWorks() {
  assert.deepEqual(withoutNulls(runFixture(SANITY)), withoutNulls(SANITY.expected));
  const initial = loadFixture('010-session-delta-appends-content.json').initial;
  assert.equal(sessionReducer(initial, { type: 'no/such-action' }), initial);
}

test('package entry exports the constants and error classes', () => {
  assert.equal(PROTOCOL_VERSION, '0.3.0');
  assert.ok(Array.isArray(SUPPORTED_PROTOCOL_VERSIONS));
  assert.ok(SUPPORTED_PROTOCOL_VERSIONS.includes('0.3.0'));
  assert.equal(typeof AhpError, 'function');
  assert.ok(InvalidInputError.prototype instanceof AhpError);
  assert.ok(AhpError.prototype instanceof Error);
  for (const internal of ['initSync', '__errorClasses', '__protocolVersion']) {
    assert.ok(!(internal in ahp), `${internal} must not be exported`);
  }
});

test('there are 163 conformance fixtures', () => {
  assert.equal(fixtureFiles.length, 163);
});

const results = { passed: 0, failed: 0 };
for (const file of fixtureFiles) {
  test(`conformance ${file}`, () => {
    try {
      const fixture = loadFixture(file);
      const before = JSON.stringify(fixture);
      const actual = runFixture(fixture);
      assert.deepEqual(withoutNulls(actual), withoutNulls(fixture.expected), fixture.description);
      assert.equal(findUndefined(actual), null, 'no property is set to undefined');
      assert.equal(JSON.stringify(fixture), before, 'the input state and actions must not be mutated');
      assertCachedPathAgrees(fixture);
      results.passed += 1;
    } catch (e) {
      results.failed += 1;
      throw e;
    }
  });
}

test('conformance summary: all 163 fixtures pass in the wasm package', () => {
  console.log(`wasm (node) conformance: ${results.passed}/${fixtureFiles.length} fixtures passed`);
  assert.equal(results.passed, 163);
});

function session() {
  return structuredClone(loadFixture('010-session-delta-appends-content.json').initial);
}

function assertInvalid(fn, { argument, path, message }) {
  let error;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  assert.ok(error !== undefined, 'expected a throw');
  assert.ok(error instanceof InvalidInputError, `expected InvalidInputError, got ${error?.constructor?.name}: ${error}`);
  assert.ok(error instanceof AhpError);
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'InvalidInputError');
  assert.equal(error.kind, 'invalid-input');
  assert.equal(error.code, -32602);
  assert.equal(typeof error.stack, 'string');
  if (argument !== undefined) assert.equal(error.argument, argument);
  if (path !== undefined) {
    assert.equal(error.path, path);
    if (path !== '') assert.ok(error.message.includes(path), `message names the path: ${error.message}`);
  }
  if (message !== undefined) assert.match(error.message, message);
  assertStillWorks();
  return error;
}

test('a wrong field type deep in the state names its path', () => {
  const state = session();
  state.activeTurn.responseParts = [{ kind: 42, id: 'md-1', content: '' }];
  assertInvalid(() => sessionReducer(state, { type: 'session/titleChanged', title: 'x' }), {
    argument: 'state',
    path: 'activeTurn.responseParts[0].kind',
  });
});

test('a wrong field type in the action names its path', () => {
  assertInvalid(
    () => sessionReducer(session(), { type: 'session/delta', turnId: 7, partId: 'md-1', content: 'x' }),
    { argument: 'action', path: 'turnId', message: /turnId/ },
  );
});

test('a missing required field is named', () => {
  const state = session();
  delete state.summary;
  assertInvalid(() => sessionReducer(state, { type: 'session/titleChanged', title: 'x' }), {
    argument: 'state',
    path: 'summary',
    message: /missing property `summary`/,
  });
  const nested = session();
  delete nested.summary.provider;
  assertInvalid(() => sessionReducer(nested, { type: 'session/titleChanged', title: 'x' }), {
    argument: 'state',
    path: 'summary.provider',
    message: /provider/,
  });
});

test('non-objects are rejected, never a crash', () => {
  for (const bad of [null, undefined, 42, 'state', true, [], () => 1, Symbol('s'), 10n]) {
    assertInvalid(() => sessionReducer(bad, { type: 'session/titleChanged', title: 'x' }), { argument: 'state' });
    assertInvalid(() => sessionReducer(session(), bad), { argument: 'action' });
  }
  assertInvalid(() => sessionReducer(session(), { turnId: 'turn-1' }), { argument: 'action', message: /type/ });
});

test('an unknown action type is a no-op returning the same state', () => {
  const state = session();
  const snapshot = structuredClone(state);
  const out = sessionReducer(state, { type: 'session/fromTheFuture', turnId: 'turn-1', extra: { a: [1] } });
  assert.equal(out, state);
  assert.deepEqual(out, snapshot);
  // Another channel's action is a no-op too.
  assert.equal(sessionReducer(state, { type: 'terminal/data', data: 'x' }), state);
  assertStillWorks();
});

function nested(depth) {
  let v = { leaf: true };
  for (let i = 0; i < depth; i++) v = { child: v };
  return v;
}

test('deeply nested input is an error, not a stack overflow', () => {
  for (const depth of [200, 10_000, 1_000_000]) {
    const state = session();
    state._meta = nested(depth);
    const e = assertInvalid(() => sessionReducer(state, { type: 'session/titleChanged', title: 'x' }), {
      argument: 'state',
      message: /nested deeper than 128 levels/,
    });
    assert.ok(e.path.startsWith('_meta.child.child'), e.path);
    const action = { type: 'session/metaChanged', _meta: nested(depth) };
    assertInvalid(() => sessionReducer(session(), action), { argument: 'action', message: /nested deeper/ });
  }
  const deepArray = [];
  let cursor = deepArray;
  for (let i = 0; i < 100_000; i++) cursor = cursor[0] = [];
  const state = session();
  state._meta = { list: deepArray };
  assertInvalid(() => sessionReducer(state, { type: 'session/titleChanged', title: 'x' }), { message: /nested deeper/ });
});

test('nesting within the limit is kept as is', () => {
  const state = session();
  state._meta = nested(100);
  const out = sessionReducer(state, { type: 'no/such-action' });
  assert.deepEqual(out._meta, nested(100));
});

test('cyclic input is an error, not a crash', () => {
  const state = session();
  state._meta = { self: null };
  state._meta.self = state._meta;
  assertInvalid(() => sessionReducer(state, { type: 'session/titleChanged', title: 'x' }), { argument: 'state' });
});

test('huge input is an error, not a crash', () => {
  const wide = session();
  wide._meta = { items: new Array(3_000_000).fill(0) };
  assertInvalid(() => sessionReducer(wide, { type: 'session/titleChanged', title: 'x' }), {
    argument: 'state',
    message: /more than 2000000 values/,
  });
  const long = session();
  long.summary.title = 'x'.repeat(70 * 1024 * 1024);
  assertInvalid(() => sessionReducer(long, { type: 'session/titleChanged', title: 'x' }), {
    argument: 'state',
    path: 'summary.title',
    message: /characters/,
  });
  const sparse = [];
  sparse.length = 4_000_000_000;
  assertInvalid(() => sessionReducer(session(), { type: 'session/metaChanged', _meta: { sparse } }), {
    argument: 'action',
  });
});

test('non-JSON objects (Map, typed arrays) are rejected with their path', () => {
  const state = session();
  state._meta = { m: new Map([['a', 1]]) };
  assertInvalid(() => sessionReducer(state, { type: 'session/titleChanged', title: 'x' }), { path: '_meta.m' });
  const bytes = session();
  bytes._meta = { b: new Uint8Array(10) };
  assertInvalid(() => sessionReducer(bytes, { type: 'session/titleChanged', title: 'x' }), { path: '_meta.b' });
});

test('values JSON cannot carry are rejected with their path; undefined members are left out', () => {
  const title = (t) => ({ type: 'session/titleChanged', title: t });
  const withMeta = (meta) => Object.assign(session(), { _meta: meta });
  assertInvalid(() => sessionReducer(withMeta({ n: 10n }), title('x')), { argument: 'state', path: '_meta.n', message: /bigint/ });
  assertInvalid(() => sessionReducer(withMeta({ list: [1, NaN] }), title('x')), { path: '_meta.list[1]', message: /finite number/ });
  assertInvalid(() => sessionReducer(session(), { type: 'session/metaChanged', _meta: { 'a b': Infinity } }), {
    argument: 'action',
    path: '_meta["a b"]',
    message: /finite number, got Infinity/,
  });
  assertInvalid(() => sessionReducer(withMeta({ f() {} }), title('x')), { path: '_meta.f', message: /function/ });
  assertInvalid(() => sessionReducer(session(), { type: 'session/titleChanged', title: Symbol('t') }), { path: 'title', message: /symbol/ });
  // `undefined` members are absent, as in JSON (the optional `_meta` too).
  const out = sessionReducer(withMeta({ kept: 1, dropped: undefined }), title('x'));
  assert.deepEqual(out._meta, { kept: 1 });
  assert.equal('dropped' in out._meta, false);
  assert.equal(sessionReducer(withMeta(undefined), title('y'))._meta, undefined);
});

test('a lone surrogate in a string becomes U+FFFD; pairs are kept', () => {
  const out = sessionReducer(session(), { type: 'session/titleChanged', title: 'a\uD800b\uDC00\\uD800 \u{1F642}' });
  assert.equal(out.summary.title, 'a\uFFFDb\uFFFD\\uD800 \u{1F642}');
  // In a state given for the first time too, in a member the action does not change (the
  // new state is then not re-read from the caller's JSON text, which keeps the surrogate).
  const state = session();
  state.summary.title = 'x\uDC00y';
  const [part] = loadFixture('010-session-delta-appends-content.json').actions;
  const withPart = sessionReducer(state, part);
  assert.equal(withPart.activeTurn.responseParts.length, 1);
  assert.equal(withPart.summary.title, 'x\uFFFDy');
});

test('the path of a wrong value in a deep array, and of a wrong kind of value', () => {
  const state = session();
  state.activeTurn.responseParts = [{ kind: 'markdown', id: 'md-1', content: '' }, { kind: 'markdown', id: 'md-2', content: { no: 1 } }];
  assertInvalid(() => sessionReducer(state, { type: 'session/titleChanged', title: 'x' }), {
    argument: 'state',
    path: 'activeTurn.responseParts[1].content',
    message: /expected a string, got an object/,
  });
  // The tag after other members (the buffered path): the member is still named.
  assertInvalid(() => sessionReducer(session(), { turnId: 'turn-1', partId: 7, type: 'session/delta', content: 'x' }), {
    argument: 'action',
    path: 'partId',
    message: /expected a string, got the number 7/,
  });
});

test('a throwing getter is an error, not a crash', () => {
  const state = session();
  Object.defineProperty(state.summary, 'title', {
    enumerable: true,
    get() {
      throw new Error('boom');
    },
  });
  assertInvalid(() => sessionReducer(state, { type: 'session/titleChanged', title: 'x' }), { argument: 'state', message: /boom/ });
});

test('returned states are deeply frozen and share unchanged parts; inputs stay untouched', () => {
  const fixture = loadFixture('010-session-delta-appends-content.json');
  const input = structuredClone(fixture.initial);
  input.turns = [{ id: 'turn-0', message: { text: 'Hi', origin: { kind: 'user' } }, responseParts: [], state: 'complete' }];
  input.futureField = { keep: ['me'] };
  const snapshot = structuredClone(input);

  const [part, delta1, delta2] = fixture.actions;
  const s1 = sessionReducer(input, part);
  assert.deepEqual(input, snapshot, 'the input is not mutated');
  assert.ok(!Object.isFrozen(input) && !Object.isFrozen(input.summary), 'the input is not frozen');
  assert.ok(Object.isFrozen(s1) && Object.isFrozen(s1.activeTurn.responseParts[0]) && Object.isFrozen(s1.turns[0].message));
  assert.deepEqual(s1.futureField, { keep: ['me'] }, 'unknown top-level properties are carried over');

  const s2 = sessionReducer(s1, delta1);
  const s3 = sessionReducer(s2, delta2);
  assert.equal(s3.activeTurn.responseParts[0].content, 'Hello world');
  assert.notEqual(s3, s2);
  assert.notEqual(s3.activeTurn, s2.activeTurn, 'the changed property is rebuilt');
  assert.equal(s3.turns, s1.turns, 'unchanged properties keep their identity');
  assert.equal(s3.summary, s1.summary);
  assert.equal(s3.futureField, s1.futureField);
  assert.throws(() => {
    'use strict';
    s3.activeTurn.responseParts[0].content = 'mutated';
  }, TypeError);

  // Branching from an older state (no longer the cached one) gives the same results.
  const again = sessionReducer(s2, delta2);
  assert.deepEqual(again, s3);
  assert.equal(sessionReducer(s1, delta1).activeTurn.responseParts[0].content, 'Hello ');
  // A state passed to another channel's reducer is a wrong shape there, not a cache mix-up.
  assertInvalid(() => terminalReducer(s3, { type: 'terminal/data', data: 'x' }), { argument: 'state' });
});

test('session/delta: the direct path (plain deltas) and the general one agree, extra members and bad input included', () => {
  const fixture = loadFixture('010-session-delta-appends-content.json');
  const [part, delta1, delta2] = fixture.actions;
  assert.deepEqual(Object.keys(delta1).sort(), ['content', 'partId', 'turnId', 'type'], 'a plain delta');
  const base = sessionReducer(structuredClone(fixture.initial), part);
  // Plain deltas (direct) and the same deltas with an unknown member (general path).
  const direct = sessionReducer(sessionReducer(base, delta1), delta2);
  const extra = (a) => ({ ...a, futureMember: { x: 1 } });
  const general = sessionReducer(sessionReducer(base, extra(delta1)), extra(delta2));
  assert.deepEqual(direct, general);
  assert.equal(direct.activeTurn.responseParts[0].content, 'Hello world');
  // A delta on a caller's own (not cached) state converts it, as the general path does.
  const fromPlain = sessionReducer(structuredClone(base), delta1);
  assert.deepEqual(fromPlain, sessionReducer(base, delta1));
  // Bad input is still an InvalidInputError naming the argument and path.
  assertInvalid(() => sessionReducer({ summary: 1 }, delta1), { argument: 'state' });
  assertInvalid(() => sessionReducer(base, { ...delta1, content: 5 }), { argument: 'action', path: 'content' });
  // A getter that throws takes the general path and is reported there.
  const getter = { type: 'session/delta', turnId: delta1.turnId, partId: delta1.partId, get content() { throw new Error('no'); } };
  assert.throws(() => sessionReducer(base, getter), InvalidInputError);
  // Unknown part: no-op, the same state back.
  assert.equal(sessionReducer(base, { ...delta1, partId: 'no-such-part' }), base);
});

test('a streamed delta keeps every member of the objects it copies, in their order', () => {
  // The state, the active turn and the part are copied by generated code when their members
  // are some of the schema's, in schema order; anything else is spread. Either way the copy
  // has the same members in the same order.
  const fixture = loadFixture('010-session-delta-appends-content.json');
  const [part, delta1, delta2] = fixture.actions;
  const base = sessionReducer(structuredClone(fixture.initial), part);
  const plain = structuredClone(base);
  const reversed = (o) => Object.fromEntries(Object.entries(o).reverse());
  const { summary, lifecycle, turns, activeTurn } = plain;
  const [{ kind, id, content }] = activeTurn.responseParts;
  const variants = {
    'schema order with optional members': {
      summary,
      lifecycle,
      turns,
      activeTurn: {
        id: activeTurn.id,
        message: activeTurn.message,
        responseParts: [{ kind, id, content }],
        usage: { inputTokens: 3, outputTokens: 4 },
      },
      queuedMessages: [],
      _meta: { trace: 'x' },
    },
    'unknown members': {
      ...plain,
      activeTurn: {
        ...plain.activeTurn,
        responseParts: [{ ...plain.activeTurn.responseParts[0], futurePart: 1 }],
        futureTurn: [2],
      },
      futureState: { keep: true },
    },
    'another order': {
      ...reversed(plain),
      activeTurn: reversed({ ...plain.activeTurn, responseParts: [reversed(plain.activeTurn.responseParts[0])] }),
    },
  };
  const shapeOf = (s) => [Object.keys(s), Object.keys(s.activeTurn), Object.keys(s.activeTurn.responseParts[0])];
  for (const [name, input] of Object.entries(variants)) {
    const s1 = sessionReducer(input, delta1);
    const s2 = sessionReducer(s1, delta2); // copies the copy made for s1
    const s3 = sessionReducer(s2, delta1);
    const expected = structuredClone(input);
    expected.activeTurn.responseParts[0].content += delta1.content + delta2.content + delta1.content;
    assert.deepEqual(s3, expected, name);
    for (const s of [s1, s2, s3]) assert.deepEqual(shapeOf(s), shapeOf(input), `${name}: members and order`);
    assert.ok(Object.isFrozen(s3) && Object.isFrozen(s3.activeTurn) && Object.isFrozen(s3.activeTurn.responseParts[0]));
    assert.equal(s3.summary, s1.summary, `${name}: unchanged members are shared`);
  }
});

test('the same call twice in a row (React StrictMode) returns the first result, without converting the input again', () => {
  const fixture = loadFixture('010-session-delta-appends-content.json');
  const [part, delta1, delta2] = fixture.actions;
  const s1 = sessionReducer(structuredClone(fixture.initial), part);
  // A plain delta (the direct path), twice on the same state.
  const a = sessionReducer(s1, delta1);
  assert.equal(sessionReducer(s1, delta1), a, 'the first result itself');
  // Chained on from it: the cached path (a full conversion would rebuild `turns`).
  const c = sessionReducer(a, delta2);
  assert.equal(c.turns, s1.turns, 'unchanged properties keep their identity');
  // The general path, with an equal action that is another object.
  const general = { ...delta2, futureMember: { x: 1 } };
  const d = sessionReducer(c, general);
  assert.equal(sessionReducer(c, structuredClone(general)), d);
  assert.equal(d.activeTurn.responseParts[0].content, 'Hello worldworld');
  // Another action on the same state is computed afresh, right.
  const e = sessionReducer(c, { ...delta2, content: '!' });
  assert.equal(e.activeTurn.responseParts[0].content, 'Hello world!');
  assert.equal(c.activeTurn.responseParts[0].content, 'Hello world', 'inputs are never changed');
  // The same state and action through another reducer is that reducer's call (a wrong shape).
  assertInvalid(() => terminalReducer(c, general), { argument: 'state' });
});

test('a large state (megabytes of text with multi-byte characters) converts exactly', () => {
  const fixture = loadFixture('010-session-delta-appends-content.json');
  const [part, delta1] = fixture.actions;
  const big = structuredClone(fixture.initial);
  // 1-, 3-, 4- (a surrogate pair) and 2-byte characters.
  const long = 'a€😀é'.repeat(40_000);
  const chars = [...long];
  big.summary = { ...big.summary, title: long };
  big.turns = Array.from({ length: 20 }, (_, i) => ({
    id: `t${i}`,
    message: { text: `${i} ${chars.slice(i, i + 5000).join('')}`, origin: { kind: 'user' } },
    responseParts: [],
    state: 'complete',
  }));
  const expected = structuredClone(big);
  const out = sessionReducer(sessionReducer(big, part), delta1);
  assert.equal(out.summary.title, long);
  assert.deepEqual(out.turns, expected.turns);
  assert.equal(out.activeTurn.responseParts[0].content, 'Hello ');
});

test('numbers come back as JSON.parse reads them: fractions, exponents, the extremes', () => {
  const numbers = [0.1, 1.5e-7, 123456789.123456789, 1e21, 1.7976931348623157e308, 5e-324, -2.5, 9007199254740993, 0.000001];
  const state = session();
  state.summary.createdAt = 1e21 + 0.5e6;
  state._meta = { numbers };
  // From text too: JSON with exponents and long fractions, read in wasm.
  const parsed = JSON.parse('{"n":[1E2,-1.0e-5,0.30000000000000004,17000000010700000001000,2.2250738585072014e-308]}');
  state._meta.parsed = parsed.n;
  const titled = sessionReducer(state, { type: 'session/titleChanged', title: 'numbers' });
  assert.equal(titled.summary.createdAt, 1e21 + 0.5e6);
  // The new `_meta` is decoded from the action's JSON and written back to JS by the module.
  const next = sessionReducer(titled, { type: 'session/metaChanged', _meta: { numbers, parsed: parsed.n } });
  assert.notEqual(next._meta, titled._meta);
  assert.deepEqual(next._meta.numbers, numbers);
  assert.deepEqual(next._meta.parsed, parsed.n);
});
