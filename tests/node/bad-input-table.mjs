// Bad input for every command the host serves, through the SDK: each call must fail with a
// typed error that says what is wrong (class, code, message), and the connection must survive.
// Shared by tests/node/bad-input.test.mjs (Node) and tests/browser/bad-input.test.mjs (headless
// Chromium): it needs only the package's exports and connected clients, no Node APIs. Whether
// anything changed on disk or in the host's state is checked by the callers, before and after.

/**
 * Creates what the table works on: a session in `dir` and a terminal `client` holds the claim
 * of, which `other` subscribes to. Returns them (to pass to `runBadInputTable` with the rest).
 * @returns {Promise<{ session: string, terminal: string }>}
 */
export async function prepareBadInput({ client, other, dir }) {
  const id = Math.random().toString(16).slice(2);
  const session = `ahp-session:/bad-input-${id}`;
  const terminal = `ahp-terminal:/bad-input-${id}`;
  await client.createSession({ channel: session, workingDirectory: dir });
  await client.createTerminal({ channel: terminal, claim: { kind: 'client', clientId: client.clientId } });
  await other.subscribe(terminal);
  return { session, terminal };
}

/** What must not change: the sessions and terminals the host lists, as `client` sees them. */
export async function hostFacts(client) {
  const sessions = (await client.listSessions()).items.map((s) => s.resource).sort();
  const root = client.subscription('ahp-root://') ?? (await client.subscribe('ahp-root://'));
  const terminals = (root.state.terminals ?? []).map((t) => t.resource).sort();
  return { sessions, terminals };
}

/**
 * Runs the table.
 * @param {object} sdk the package's exports
 * @param {object} env `client` (connected), `other` (a second client), `dir` (a file: URL of a
 *   directory inside the host's sandbox, holding `a.txt`), `outside` (a file: URL of a
 *   directory outside it, that must stay untouched), `session` (an existing session URI),
 *   `terminal` (a terminal URI `client` holds the claim of, `other` is subscribed to)
 * @returns {Promise<{ name: string, ok: boolean, got: string }[]>} one row per case
 */
export async function runBadInputTable(sdk, env) {
  const { RpcError, TransportError, InvalidInputError } = sdk;
  const { client, other, dir, outside, session, terminal } = env;
  const inside = (name) => `${dir}/${name}`;
  const out = (name) => `${outside}/${name}`;
  // The session's changeset (host/README.md, Changesets).
  const changeset = `${session.replace('ahp-session:/', 'ahp-changeset:/')}/changeset/session`;
  const rpc = (code, message) => (e) => e instanceof RpcError && e.code === code && message.test(e.message);
  const invalid = (path, message) => (e) => e instanceof InvalidInputError && e.path === path && message.test(e.message);
  const sandbox = rpc(-32009, /outside the working directory/);
  const { etag } = await client.resourceResolve({ uri: inside('a.txt') });
  const frameLimit = client.serverInfo?.maxFrameBytes ?? 0;

  /** name -> [call, check of the error] */
  const cases = {
    'resourceRead outside the sandbox': [() => client.resourceRead({ uri: out('secret.txt') }), sandbox],
    'resourceWrite outside the sandbox': [() => client.resourceWrite({ uri: out('evil.txt'), data: 'x', encoding: 'utf-8' }), sandbox],
    'resourceWrite through ../': [() => client.resourceWrite({ uri: inside('../../../../../evil.txt'), data: 'x', encoding: 'utf-8' }), sandbox],
    'resourceWrite at a negative position': [() => client.resourceWrite({ uri: inside('a.txt'), data: 'x', encoding: 'utf-8', position: -1 }), rpc(-32602, /position must be a whole number from 0/)],
    'resourceWrite over the host frame limit': [
      () => client.resourceWrite({ uri: inside('huge.txt'), data: 'x'.repeat(frameLimit + 1), encoding: 'utf-8' }),
      (e) => e instanceof TransportError && e.transportKind === 'send' && /maxFrameBytes/.test(e.message) && frameLimit > 0,
    ],
    'resourceWrite with a stale ifMatch (etag conflict)': [
      () => client.resourceWrite({ uri: inside('a.txt'), data: 'changed', encoding: 'utf-8', ifMatch: `${etag}-stale` }),
      rpc(-32011, /ifMatch/),
    ],
    'resourceCopy to outside the sandbox': [() => client.resourceCopy({ source: inside('a.txt'), destination: out('copy.txt') }), sandbox],
    'resourceMove from outside the sandbox': [() => client.resourceMove({ source: out('secret.txt'), destination: inside('moved.txt') }), sandbox],
    'resourceDelete outside the sandbox': [() => client.resourceDelete({ uri: out('secret.txt') }), sandbox],
    'resourceMkdir outside the sandbox': [() => client.resourceMkdir({ uri: out('made') }), sandbox],
    'resourceResolve outside the sandbox': [() => client.resourceResolve({ uri: out('secret.txt') }), sandbox],
    'resourceList outside the sandbox': [() => client.resourceList({ uri: outside }), sandbox],
    'resourceRequest outside the sandbox': [() => client.resourceRequest({ uri: out('secret.txt'), read: true }), sandbox],
    'createResourceWatch outside the sandbox': [() => client.createResourceWatch({ uri: outside }), sandbox],
    'fetchTurns with a negative limit': [() => client.fetchTurns({ channel: session, limit: -1 }), rpc(-32602, /limit must be a whole number from 1/)],
    'fetchTurns of an unknown session': [() => client.fetchTurns({ channel: 'ahp-session:/no-such-session' }), rpc(-32001, /no session/)],
    'completions at a negative offset': [() => client.completions({ channel: session, kind: 'userMessage', text: '@a', offset: -5 }), rpc(-32602, /offset/)],
    'createSession with a malformed URI': [() => client.createSession({ channel: 'not-a-session' }), rpc(-32602, /session URI/)],
    'createSession of an existing session': [() => client.createSession({ channel: session }), rpc(-32003, /exists/)],
    'createSession with an unknown provider': [() => client.createSession({ channel: 'ahp-session:/bad-provider', provider: 'no-such-agent' }), rpc(-32002, /unknown provider/)],
    'createSession in a directory outside the sandbox': [() => client.createSession({ channel: 'ahp-session:/bad-dir', workingDirectory: outside }), sandbox],
    'disposeSession of an unknown session': [() => client.disposeSession({ channel: 'ahp-session:/no-such-session' }), rpc(-32001, /no session/)],
    'resolveSessionConfig of an unknown provider': [() => client.resolveSessionConfig({ provider: 'no-such-agent' }), rpc(-32002, /unknown provider/)],
    'sessionConfigCompletions of an unknown provider': [() => client.sessionConfigCompletions({ provider: 'no-such-agent', property: 'model' }), rpc(-32002, /unknown provider/)],
    'createTerminal with 0 columns': [() => client.createTerminal({ channel: 'ahp-terminal:/zero', claim: { kind: 'client', clientId: client.clientId }, cols: 0, rows: 24 }), rpc(-32602, /cols must be a whole number from 1 to 1000/)],
    'createTerminal with 10^9 rows': [() => client.createTerminal({ channel: 'ahp-terminal:/huge', claim: { kind: 'client', clientId: client.clientId }, cols: 80, rows: 1e9 }), rpc(-32602, /rows must be a whole number from 1 to 1000/)],
    'createTerminal with negative columns': [() => client.createTerminal({ channel: 'ahp-terminal:/neg', claim: { kind: 'client', clientId: client.clientId }, cols: -1, rows: 24 }), rpc(-32602, /cols must be a whole number from 1 to 1000/)],
    'createTerminal outside the sandbox': [() => client.createTerminal({ channel: 'ahp-terminal:/out', claim: { kind: 'client', clientId: client.clientId }, cwd: outside }), sandbox],
    'createTerminal of an existing terminal': [() => client.createTerminal({ channel: terminal, claim: { kind: 'client', clientId: client.clientId } }), (e) => e instanceof RpcError && /exists/.test(e.message)],
    'disposeTerminal of an unknown terminal': [() => client.disposeTerminal({ channel: 'ahp-terminal:/no-such-terminal' }), rpc(-32008, /no terminal/)],
    'invokeChangesetOperation on an unknown changeset': [() => client.invokeChangesetOperation({ channel: 'ahp-changeset:/no-such/changeset/session', operationId: 'revert-all' }), rpc(-32008, /no such changeset/)],
    'invokeChangesetOperation of an unknown operation': [() => client.invokeChangesetOperation({ channel: changeset, operationId: 'stage' }), rpc(-32602, /unknown operation/)],
    'revert of a file outside the working directory': [() => client.invokeChangesetOperation({ channel: changeset, operationId: 'revert', target: { kind: 'resource', resource: `${outside}/x.txt` } }), rpc(-32602, /not a file of this changeset/)],
    'authenticate an unknown resource': [() => client.authenticate({ resource: 'https://unknown.example/', token: 'x' }), rpc(-32602, /asked for a token/)],
    'a wrong type from JS (checked before sending)': [() => client.resourceRead({ uri: 42 }), invalid('uri', /expected a string, got the number 42/)],
    'a missing field (checked before sending)': [() => client.resourceWrite({ uri: inside('a.txt'), encoding: 'utf-8' }), invalid('data', /missing/)],
    'a method the protocol does not have': [() => client.request('noSuchMethod', {}), rpc(-32601, /noSuchMethod/)],
  };

  const rows = [];
  for (const [name, [call, check]] of Object.entries(cases)) {
    try {
      const result = await call();
      rows.push({ name, ok: false, got: `succeeded: ${JSON.stringify(result)?.slice(0, 200)}` });
    } catch (e) {
      const got = `${e?.name} ${e?.code ?? ''} ${e?.transportKind ?? ''} path=${e?.path ?? ''}: ${e?.message}`;
      rows.push({ name, ok: e instanceof Error && check(e), got });
    }
  }

  // Input, a resize and a claim from a client that does not hold the terminal: each rejected
  // and reverted.
  const sub = other.subscription(terminal);
  const attempts = [
    ['terminal input by a non-claimant', { type: 'terminal/input', data: 'echo not-the-claimant\r' }],
    ['terminal resize by a non-claimant', { type: 'terminal/resized', cols: 100, rows: 40 }],
    ['terminal claim by a non-claimant', { type: 'terminal/claimed', claim: { kind: 'client', clientId: other.clientId } }],
  ];
  for (const [name, action] of attempts) {
    let timer;
    const rejected = new Promise((resolve) => {
      const stop = sub.onChange((_, info) => {
        if (info.rejections.length > 0) {
          stop();
          resolve(info.rejections[0].reason);
        }
      });
      timer = setTimeout(() => resolve('no rejection within 10 s'), 10_000);
    });
    other.dispatch(terminal, action);
    const reason = await rejected;
    clearTimeout(timer);
    rows.push({ name, ok: /claim/.test(reason) && sub.pendingCount === 0, got: reason });
  }

  // The connections survived all of it.
  for (const [who, c] of [['client', client], ['other', other]]) {
    try {
      await c.ping();
      rows.push({ name: `${who} still answers ping`, ok: c.connectionState === 'connected', got: c.connectionState });
    } catch (e) {
      rows.push({ name: `${who} still answers ping`, ok: false, got: `${e?.name}: ${e?.message}` });
    }
  }
  return rows;
}
