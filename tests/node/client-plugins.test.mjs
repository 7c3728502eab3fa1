// Client plugins against the real ahp-host: a plugin built from in-memory files and published
// with `setActiveClient({ plugins })` is read back by the host through this client's
// `resourceList`/`resourceRead` handlers and shown in the session with `clientId` and its
// children; a new `nonce` (changed files) is read again; releasing the role removes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AhpClient, buildClientPlugin } from 'ahp-wasm/v0.3';
import { startHost } from './host.mjs';

/** Resolves with the session's customization `id` once `pred` holds for it (or its absence). */
function until(sub, id, pred) {
  return new Promise((resolve, reject) => {
    let off = () => {};
    const timer = setTimeout(() => {
      off();
      reject(new Error(`\`${id}\` never got there: ${JSON.stringify(sub.state.customizations)}`));
    }, 20_000);
    const check = (state) => {
      const c = state?.customizations?.find((x) => x.id === id);
      if (pred(c)) {
        clearTimeout(timer);
        off();
        resolve(c);
        return true;
      }
      return false;
    };
    if (!check(sub.state)) off = sub.onChange(check);
  });
}

test('client plugins: read back from this client, re-read on a new nonce, removed on release', { timeout: 60_000 }, async (t) => {
  const host = await startHost(t);
  const client = await AhpClient.connect(host.wsUrl, { token: host.token });
  t.after(() => client.close());
  const session = `ahp-session:/client-plugins-${Date.now()}`;
  await client.createSession({ channel: session });

  const plugin = (version) =>
    buildClientPlugin(client, {
      id: 'notes',
      name: 'Notes',
      files: {
        'skills/greet/SKILL.md': `---\ndescription: Greets (${version}).\n---\nSay hello.\n`,
        'rules/polite.md': '---\nalwaysApply: true\nglobs: ["*.md"]\n---\nBe polite.\n',
        'agents/helper.md': '---\nname: helper\ndescription: Helps.\n---\nYou help.\n',
      },
    });
  const handle = await client.setActiveClient(session, { displayName: 'node test', plugins: [plugin('v1')] });
  const sub = client.subscription(session);

  let shown = await until(sub, 'notes', (c) => c?.load?.kind === 'loaded');
  assert.equal(shown.type, 'plugin');
  assert.equal(shown.clientId, client.clientId);
  assert.equal(shown.name, 'Notes');
  assert.equal(shown.enabled, true);
  assert.deepEqual(
    shown.children.map((c) => [c.type, c.name]),
    [['skill', 'greet'], ['agent', 'helper'], ['rule', 'polite']],
  );
  const greet = shown.children[0];
  assert.equal(greet.description, 'Greets (v1).');
  assert.equal(greet.uri, `virtual://${encodeURIComponent(client.clientId)}/notes/skills/greet/SKILL.md`);
  const polite = shown.children[2];
  assert.equal(polite.alwaysApply, true);
  assert.deepEqual(polite.globs, ['*.md']);

  // Changed files: a new nonce, read again.
  handle.updatePlugins([plugin('v2')]);
  shown = await until(sub, 'notes', (c) => c?.children?.[0]?.description === 'Greets (v2).');
  assert.equal(shown.load.kind, 'loaded');

  // Any client may toggle it; the flag is the session's.
  sub.dispatch({ type: 'session/customizationToggled', id: 'notes', enabled: false });
  await until(sub, 'notes', (c) => c?.enabled === false);

  handle.release();
  await until(sub, 'notes', (c) => c === undefined);
});
