// Authentication of the built-in agent through the SDK against the real ahp-host started with
// `--agent-auth-token-file` (spec/authentication.md): the resource declared in root state,
// `createSession` refused with AuthRequired (-32007) and the resources in `data`, a wrong token
// refused, `client.authenticate` unlocking, a turn running, then the unlock expiring: the
// `auth/required` notification (a `notification` ClientEvent) and a turn start rejected.
// Run: node --experimental-websocket --test tests/node/agent-auth.test.mjs   (after
// scripts/build-pkg.sh and `cargo build -p ahp-host`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AhpClient, RpcError } from 'ahp-wasm/v0.3';
import { startHost } from './host.mjs';

const RESOURCE = 'https://ahp-host.localhost/agents/builtin';
const TOKEN = 'node-agent-token-0123456789';

/** Resolves with the first event `pick` accepts (its value), or rejects after `ms`. */
function nextEvent(client, pick, ms = 20_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { off(); reject(new Error(`no matching event within ${ms} ms`)); }, ms);
    const off = client.onEvent((event) => {
      const value = pick(event);
      if (value !== undefined) { clearTimeout(timer); off(); resolve(value); }
    });
  });
}

const authRequired = (e) => e instanceof RpcError && e.code === -32007
  && Array.isArray(e.data?.resources) && e.data.resources[0]?.resource === RESOURCE
  && !e.message.includes(TOKEN);

test('the protected built-in agent: declared, refused, unlocked by authenticate, locked again on expiry', { timeout: 60_000 }, async (t) => {
  const secrets = mkdtempSync(join(tmpdir(), 'ahp-agent-auth-'));
  t.after(() => rmSync(secrets, { recursive: true, force: true }));
  const file = join(secrets, 'token');
  writeFileSync(file, `${TOKEN}\n`);
  chmodSync(file, 0o600);
  const host = await startHost(t, ['--agent-auth-token-file', file, '--agent-auth-ttl', '2', '--chunk-delay-ms', '1']);
  const client = await AhpClient.connect(host.wsUrl, { token: host.token });
  t.after(() => client.close());

  const root = await client.subscribe('ahp-root://');
  const [declared] = root.state.agents[0].protectedResources;
  assert.equal(declared.resource, RESOURCE);
  assert.equal(declared.required, true);

  const session = `ahp-session:/auth-${Date.now()}`;
  await assert.rejects(client.createSession({ channel: session, provider: 'builtin' }), authRequired, 'before authenticate');
  await assert.rejects(client.authenticate({ resource: RESOURCE, token: `${TOKEN}-wrong` }), authRequired, 'a wrong token');
  await assert.rejects(client.createSession({ channel: session, provider: 'builtin' }), authRequired, 'still locked');

  assert.deepEqual(await client.authenticate({ resource: RESOURCE, token: TOKEN }), {});
  const expired = nextEvent(client, (e) => (e.type === 'notification' && e.method === 'auth/required' ? e.params : undefined));
  await client.createSession({ channel: session, provider: 'builtin' });
  const sub = await client.subscribe(session);
  const done = new Promise((resolve) => {
    const off = sub.onChange((state) => { if (state.turns.length === 1 && !state.activeTurn) { off(); resolve(state.turns[0]); } });
  });
  sub.dispatch({ type: 'session/turnStarted', turnId: 't1', message: { text: 'hello', origin: { kind: 'user' } } });
  assert.equal((await done).state, 'complete');

  assert.deepEqual(await expired, { channel: 'ahp-root://', resource: RESOURCE, reason: 'expired' });
  const rejected = nextEvent(client, (e) => (e.type === 'rejected' && e.channel === session ? e.rejection : undefined));
  sub.dispatch({ type: 'session/turnStarted', turnId: 't2', message: { text: 'again', origin: { kind: 'user' } } });
  assert.match((await rejected).reason, /AuthRequired \(-32007\)/);
  await assert.rejects(client.createSession({ channel: `${session}-2`, provider: 'builtin' }), authRequired, 'locked again');

  // Authenticating again unlocks again.
  await client.authenticate({ resource: RESOURCE, token: TOKEN });
  await client.createSession({ channel: `${session}-2`, provider: 'builtin' });
});
