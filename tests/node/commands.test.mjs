// Every client-to-server command of AHP 0.3.0 through the SDK's typed methods against the real
// `ahp-host`: each result is checked against its type in the protocol's JSON Schema
// (protocol/ahp-0.3.0/schema, `$ref`s resolved here; the package's own JSON Schema checker).
// The commands the host does not serve yet are listed as such: each must answer -32601, so the
// table fails, and must be updated, the day one of them is served.
// Run: node --experimental-websocket --test tests/node/   (after scripts/build-pkg.sh and
// `cargo build -p ahp-host`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AhpClient, RpcError } from 'ahp-wasm/v0.3';
import { schemaErrors } from '../../pkg/schema-check.js';
import { startHost } from './host.mjs';

// Every command method, from the SDK's command table (src/protocol/command_table.rs).
const COMMAND_METHODS = [
  ...readFileSync(new URL('../../src/protocol/command_table.rs', import.meta.url), 'utf8').matchAll(/^\s+\w+ \w+ = "(\w+)" =>/gm),
].map((m) => m[1]);

const SCHEMA_DIR = new URL('../../protocol/ahp-0.3.0/schema/', import.meta.url);
const DEFS = Object.assign(
  {},
  ...['state', 'actions', 'commands', 'notifications', 'errors'].map(
    (file) => JSON.parse(readFileSync(new URL(`${file}.schema.json`, SCHEMA_DIR), 'utf8')).$defs,
  ),
);

// The enums and constants the schema names without defining (protocol/ahp-0.3.0-overlay.json).
const OVERLAY = JSON.parse(readFileSync(new URL('../../protocol/ahp-0.3.0-overlay.json', import.meta.url), 'utf8'));
function overlaySchema(ref) {
  if (ref in OVERLAY.constants) return { const: OVERLAY.constants[ref] };
  if (ref in OVERLAY.enums) return { enum: OVERLAY.enums[ref] };
  if (ref in OVERLAY.aliases) return { type: OVERLAY.aliases[ref] };
  return undefined;
}

/** `name`'s schema with every `$ref` inlined (a recursive one accepts anything below its first level). */
function schemaOf(name, seen = new Set()) {
  const resolve = (node) => {
    if (Array.isArray(node)) return node.map(resolve);
    if (node === null || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string') {
      const ref = node.$ref.replace('#/$defs/', '');
      const named = overlaySchema(ref);
      if (named !== undefined) return named;
      assert.ok(ref in DEFS || ref === 'ChangesetOperationTarget', `unresolved $ref ${ref}`);
      if (!(ref in DEFS) || seen.has(ref)) return true;
      return schemaOf(ref, new Set([...seen, ref]));
    }
    // The export from TypeScript leaves an empty `{}` in some unions (it would match anything,
    // so `oneOf` could never hold): dropped.
    const entries = Object.entries(node).map(([k, v]) => [
      k,
      k === 'oneOf' || k === 'anyOf' ? resolve(v.filter((s) => !(s && typeof s === 'object' && Object.keys(s).length === 0))) : resolve(v),
    ]);
    return Object.fromEntries(entries);
  };
  assert.ok(name in DEFS, `${name} is in the schema`);
  const schema = resolve(DEFS[name]);
  // The overlay's corrected property types (`FileEdit.before.content` is a ContentRef).
  for (const [path, corrected] of Object.entries(OVERLAY.propertyTypes ?? {})) {
    const [owner, ...props] = path.split('.');
    if (owner !== name) continue;
    let node = schema;
    for (const prop of props.slice(0, -1)) node = node?.properties?.[prop];
    if (node?.properties?.[props.at(-1)]) node.properties[props.at(-1)] = resolve(corrected);
  }
  return schema;
}

/** Resolves once `sub`'s state satisfies `check` (answers what `check` returned). */
function until(sub, check) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { off(); reject(new Error(`timed out on ${sub.uri}`)); }, 20_000);
    const look = (state) => {
      const found = state && check(state);
      if (found) { clearTimeout(timer); off(); resolve(found); }
      return found;
    };
    const off = sub.onChange(look);
    look(sub.state);
  });
}

function assertShape(typeName, value) {
  assert.deepEqual(schemaErrors(schemaOf(typeName), value), [], `${typeName}: ${JSON.stringify(value).slice(0, 300)}`);
}

test('every command through the SDK against the real host, results checked against the schema', async (t) => {
  const host = await startHost(t);
  const dir = join(host.workdir, 'table');
  mkdirSync(dir);
  writeFileSync(join(dir, 'a.txt'), 'alpha\n');
  const file = (name) => pathToFileURL(join(dir, name)).href;
  const client = await AhpClient.connect(host.wsUrl, { token: host.token });
  t.after(() => client.close());
  const provider = client.subscription('ahp-root://').state.agents[0].provider;
  const session = `ahp-session:/table-${Date.now()}`;

  // method -> [call, result type (null: void)]. Order matters: later rows use earlier effects.
  const served = {
    ping: [() => client.ping(), null],
    createSession: [() => client.createSession({ channel: session, provider, workingDirectory: pathToFileURL(dir).href }), null],
    listSessions: [() => client.listSessions(), 'ListSessionsResult'],
    fetchTurns: [() => client.fetchTurns({ channel: session }), 'FetchTurnsResult'],
    resourceRead: [() => client.resourceRead({ uri: file('a.txt') }), 'ResourceReadResult'],
    resourceWrite: [() => client.resourceWrite({ uri: file('b.txt'), data: 'beta\n', encoding: 'utf-8' }), 'ResourceWriteResult'],
    resourceList: [() => client.resourceList({ uri: pathToFileURL(dir).href }), 'ResourceListResult'],
    resourceCopy: [() => client.resourceCopy({ source: file('a.txt'), destination: file('c.txt') }), 'ResourceCopyResult'],
    resourceMove: [() => client.resourceMove({ source: file('c.txt'), destination: file('d.txt') }), 'ResourceMoveResult'],
    resourceResolve: [() => client.resourceResolve({ uri: file('d.txt') }), 'ResourceResolveResult'],
    resourceMkdir: [() => client.resourceMkdir({ uri: file('sub/deeper') }), 'ResourceMkdirResult'],
    resourceDelete: [() => client.resourceDelete({ uri: file('d.txt') }), 'ResourceDeleteResult'],
    resourceRequest: [() => client.resourceRequest({ uri: file('a.txt'), read: true }), 'ResourceRequestResult'],
    completions: [() => client.completions({ channel: session, kind: 'userMessage', text: '@a', offset: 2 }), 'CompletionsResult'],
    resolveSessionConfig: [() => client.resolveSessionConfig({ provider }), 'ResolveSessionConfigResult'],
    sessionConfigCompletions: [() => client.sessionConfigCompletions({ provider, property: 'model' }), 'SessionConfigCompletionsResult'],
    createResourceWatch: [() => client.createResourceWatch({ uri: pathToFileURL(dir).href }), 'CreateResourceWatchResult'],
    // The session's changeset (from its catalogue): a file written with a file command is
    // listed, its state matches the schema, and `revert` deletes it again.
    invokeChangesetOperation: [async () => {
      const s = await client.subscribe(session);
      const channel = await until(s, (st) => st.changesets?.[0]?.uriTemplate);
      const cs = await client.subscribe(channel);
      await client.resourceWrite({ uri: file('e.txt'), data: 'e\n', encoding: 'utf-8' });
      const entry = await until(cs, (st) => st.status === 'ready' && st.files.find((f) => f._meta?.path === 'e.txt'));
      assertShape('ChangesetState', cs.state);
      assert.deepEqual(entry.edit.diff, { added: 1, removed: 0 });
      const result = await client.invokeChangesetOperation({ channel, operationId: 'revert', target: { kind: 'resource', resource: entry.id } });
      assert.ok(!existsSync(join(dir, 'e.txt')), 'revert deleted the new file');
      await assert.rejects(client.invokeChangesetOperation({ channel, operationId: 'nope' }), (e) => e instanceof RpcError && e.code === -32602);
      cs.unsubscribe();
      s.unsubscribe();
      return result;
    }, 'InvokeChangesetOperationResult'],
    disposeSession: [() => client.disposeSession({ channel: session }), null],
    createTerminal: [() => client.createTerminal({ channel: 'ahp-terminal:/t1', claim: { kind: 'client', clientId: client.clientId } }), null],
    disposeTerminal: [() => client.disposeTerminal({ channel: 'ahp-terminal:/t1' }), null],
  };
  // Not served by ahp-host yet: each must be refused as an unknown method.
  const notServed = {};
  // Served, and refused here: this host has no protected resource unless an MCP server asks
  // for a token (host/tests/mcp covers the accepted case).
  const refused = {
    authenticate: [() => client.authenticate({ resource: 'https://example.test/', token: 't' }), -32602, /no MCP server of this host asked for a token/],
  };
  // The handshake commands run inside connect() and subscribe().
  const handshake = ['initialize', 'reconnect', 'subscribe'];
  assert.deepEqual(
    [...Object.keys(served), ...Object.keys(refused), ...Object.keys(notServed), ...handshake].sort(),
    [...COMMAND_METHODS].sort(),
    'the table covers every command of the protocol',
  );

  for (const [method, [call, resultType]] of Object.entries(served)) {
    const result = await call().catch((e) => assert.fail(`${method}: ${e.name}: ${e.message}`));
    if (resultType === null) assert.equal(result, undefined, `${method} resolves undefined`);
    else assertShape(resultType, result);
  }
  assert.equal(readFileSync(join(dir, 'b.txt'), 'utf8'), 'beta\n', 'resourceWrite wrote');
  for (const [method, [call, code, message]] of Object.entries(refused)) {
    await assert.rejects(call(), (e) => e instanceof RpcError && e.code === code && message.test(e.message), method);
  }
  for (const [method, call] of Object.entries(notServed)) {
    await assert.rejects(call(), (e) => e instanceof RpcError && e.code === -32601, `${method}: -32601 until it is served`);
  }

  // The handshake's results, as the SDK exposes them.
  assertShape('InitializeResult', { ...client.serverInfo, snapshots: [] });
  const root = await client.subscribe('ahp-root://');
  assertShape('RootState', root.state);
});
