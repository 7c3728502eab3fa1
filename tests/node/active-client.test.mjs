// The active-client role against the real ahp-host: tools the agent calls with
// `/client-tool NAME {json}` run in this process through `setActiveClient`, with streamed
// updates, schema checks, thrown errors, the app's own confirmation, unknown tools denied, and
// the role released. The agent's `/client-tool` directive dispatches `toolCallStart` with this
// client as contributor and `toolCallReady` with `confirmed: 'not-needed'` (running).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AhpClient, InvalidInputError, buildClientPlugin } from 'ahp-wasm/v0.3';
import { startHost } from './host.mjs';

/** Starts a turn with `text` and resolves with the finished turn. */
function runTurn(sub, text) {
  const turnId = `turn-${Math.random().toString(16).slice(2)}`;
  return new Promise((resolve) => {
    const off = sub.onChange((state) => {
      const done = state.turns.find((t) => t.id === turnId);
      if (done && !state.activeTurn) {
        off();
        resolve(done);
      }
    });
    sub.dispatch({ type: 'session/turnStarted', turnId, message: { text, origin: { kind: 'user' } } });
  });
}

const toolCalls = (turn) => turn.responseParts.filter((p) => p.kind === 'toolCall').map((p) => p.toolCall);

test('client tools: executed here with streamed updates, typed failures, confirmation, unknown tools denied', { timeout: 60_000 }, async (t) => {
  const host = await startHost(t, ['--chunk-delay-ms', '1']);
  const client = await AhpClient.connect(host.wsUrl, { token: host.token });
  t.after(() => client.close());
  const session = `ahp-session:/client-tools-${Date.now()}`;
  await client.createSession({ channel: session });

  const updates = [];
  let aborted = 0;
  const handle = await client.setActiveClient(session, {
    displayName: 'node test',
    tools: [
      {
        name: 'echo',
        description: 'echoes its text, reporting progress',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
        async execute(input, { update, signal, toolCallId }) {
          assert.equal(typeof toolCallId, 'string');
          assert.equal(signal.aborted, false);
          update('working…');
          await new Promise((r) => setTimeout(r, 50));
          return { content: `echo: ${input.text}`, structuredContent: { length: input.text.length } };
        },
      },
      {
        name: 'explode',
        execute() {
          throw Object.assign(new Error('kaboom'), { code: 'Boom' });
        },
      },
      {
        name: 'guarded',
        confirm: async ({ input }) => input.allow === true,
        execute: () => 'allowed',
      },
      {
        name: 'wait',
        execute: (_input, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => { aborted += 1; resolve('stopped'); })),
      },
    ],
  });
  const sub = client.subscription(session);
  sub.onChange((state) => {
    for (const part of state.activeTurn?.responseParts ?? []) {
      const c = part.toolCall;
      if (c?.status === 'running' && c.content?.length) updates.push(c.content[0].text);
    }
  });
  assert.equal(handle.isActive, true, 'claimed optimistically');
  assert.deepEqual(sub.state.activeClient.tools.map((x) => x.name), ['echo', 'explode', 'guarded', 'wait']);
  assert.deepEqual(sub.state.activeClient.tools[0].inputSchema.required, ['text'], 'the schema is published whole');

  // A call that runs here: progress streamed, then the result with structured content.
  let turn = await runTurn(sub, '/client-tool echo {"text": "hi"}');
  let [call] = toolCalls(turn);
  assert.equal(call.status, 'completed');
  assert.equal(call.success, true, JSON.stringify(call));
  assert.deepEqual(call.content, [{ type: 'text', text: 'echo: hi' }]);
  assert.deepEqual(call.structuredContent, { length: 2 });
  assert.ok(updates.includes('working…'), 'the update reached the session state while running');

  // Input that does not match the schema never reaches execute.
  turn = await runTurn(sub, '/client-tool echo {"text": 5}');
  [call] = toolCalls(turn);
  assert.equal(call.success, false);
  assert.match(call.error.message, /does not match the tool's schema: text: expected string, got integer/);

  // A thrown error: success false with its message and code.
  turn = await runTurn(sub, '/client-tool explode {}');
  [call] = toolCalls(turn);
  assert.equal(call.success, false);
  assert.equal(call.error.message, 'kaboom');
  assert.equal(call.error.code, 'Boom');

  // The app's own confirmation: refused -> denied, allowed -> runs.
  turn = await runTurn(sub, '/client-tool guarded {"allow": false}');
  [call] = toolCalls(turn);
  assert.equal(call.success, false, JSON.stringify(call));
  assert.equal(call.error.code, 'ClientDenied', 'the app refused it: denied');
  turn = await runTurn(sub, '/client-tool guarded {"allow": true}');
  [call] = toolCalls(turn);
  assert.equal(call.success, true);

  // A tool this client does not have: denied at once (not after the host's timeout).
  const started = Date.now();
  turn = await runTurn(sub, '/client-tool nosuch {}');
  [call] = toolCalls(turn);
  assert.equal(call.success, false, JSON.stringify(call));
  assert.equal(call.error.code, 'ClientDenied');
  assert.ok(Date.now() - started < 5_000, `denied within 5 s (took ${Date.now() - started} ms)`);

  // Cancelling the turn aborts a running call's signal.
  const turnId = 'turn-cancelled';
  sub.dispatch({ type: 'session/turnStarted', turnId, message: { text: '/client-tool wait {}', origin: { kind: 'user' } } });
  await new Promise((resolve) => {
    const off = sub.onChange((state) => {
      if (toolCalls(state.activeTurn ?? { responseParts: [] }).some((c) => c.status === 'running')) { off(); resolve(); }
    });
  });
  sub.dispatch({ type: 'session/turnCancelled', turnId });
  await new Promise((resolve) => { const check = () => (aborted > 0 ? resolve() : setTimeout(check, 10)); check(); });
  assert.equal(aborted, 1);

  // Bad options are InvalidInputErrors, before anything is sent.
  await assert.rejects(client.setActiveClient(session, { tools: [{ name: 'no spaces allowed', execute() {} }] }), InvalidInputError);
  await assert.rejects(client.setActiveClient(session, { tools: [{ name: 'x' }] }), InvalidInputError);

  // Releasing gives the role back, once.
  const settled = () => new Promise((resolve) => { const check = () => (sub.pendingCount === 0 ? resolve() : setTimeout(check, 10)); check(); });
  assert.equal(client.releaseActiveClient(session), true);
  assert.equal(handle.isActive, false);
  await settled();
  assert.equal(sub.state.activeClient ?? null, null);
  assert.equal(client.releaseActiveClient(session), false);
  assert.throws(() => client.releaseActiveClient(''), InvalidInputError);
  // A role claimed by a raw dispatch (no handle) is released too.
  sub.dispatch({ type: 'session/activeClientChanged', activeClient: { clientId: client.clientId, tools: [] } });
  await settled();
  assert.equal(sub.state.activeClient?.clientId, client.clientId);
  assert.equal(client.releaseActiveClient(session), true);
  await settled();
  assert.equal(sub.state.activeClient ?? null, null);
});

test('the role is claimed again after the connection drops (the host released it)', { timeout: 60_000 }, async (t) => {
  const host = await startHost(t, ['--chunk-delay-ms', '1']);
  let socket = null;
  // The browser/Node WebSocket, with a handle to cut the connection from the outside.
  const transport = (url, cb) => {
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => cb.open();
    ws.onmessage = (m) => cb.message(String(m.data));
    ws.onclose = (e) => cb.close(e.reason || 'closed');
    return { send: (frame) => ws.send(frame), close: () => ws.close() };
  };
  const client = await AhpClient.connect(host.wsUrl, { token: host.token, transport, reconnect: { initialDelayMs: 50 } });
  t.after(() => client.close());
  const session = `ahp-session:/reclaim-${Date.now()}`;
  await client.createSession({ channel: session });
  await client.setActiveClient(session, { tools: [{ name: 'ping', execute: () => 'pong' }] });
  const sub = client.subscription(session);
  const until = (pred) => new Promise((resolve) => {
    if (pred(sub.state)) return resolve();
    const off = sub.onChange((state) => { if (pred(state)) { off(); resolve(); } });
  });
  await until((s) => s.activeClient?.clientId === client.clientId && sub.pendingCount === 0);
  const cleared = [];
  sub.onChange((state) => { if (!state.activeClient) cleared.push(true); });
  socket.close();
  await until((s) => cleared.length > 0 && s.activeClient?.clientId === client.clientId && sub.pendingCount === 0);
  const turn = await runTurn(sub, '/client-tool ping');
  assert.equal(toolCalls(turn)[0].content[0].text, 'pong', 'the reclaimed role runs calls');
});

test('buildClientPlugin: virtual:// files with a content-hash nonce; bad paths refused', () => {
  const client = { clientId: 'client-1' };
  const a = buildClientPlugin(client, { id: 'skills', name: 'Skills', files: { 'skills/review/SKILL.md': '---\nname: review\n---\nReview.' } });
  assert.equal(a.customization.uri, 'virtual://client-1/skills');
  assert.deepEqual([...a.files.keys()], ['virtual://client-1/skills/skills/review/SKILL.md']);
  const same = buildClientPlugin(client, { id: 'skills', files: { 'skills/review/SKILL.md': '---\nname: review\n---\nReview.' } });
  const changed = buildClientPlugin(client, { id: 'skills', files: { 'skills/review/SKILL.md': '---\nname: review\n---\nReview!' } });
  assert.equal(a.customization.nonce, same.customization.nonce);
  assert.notEqual(a.customization.nonce, changed.customization.nonce);
  for (const bad of ['../x.md', '/abs.md', 'a//b.md', 'a/./b.md']) {
    assert.throws(() => buildClientPlugin(client, { id: 'p', files: { [bad]: 'x' } }), InvalidInputError, bad);
  }
});
