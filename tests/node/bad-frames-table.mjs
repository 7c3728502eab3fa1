// Bad frames from the host, for both protocol versions: frames that are not JSON-RPC, action
// envelopes with wrong types, unknown action types and enum values, huge and deeply nested
// frames, responses to no request. Each must be reported as malformed (the `malformed` event)
// or be a no-op, and the connection and the channel's mirror must survive: a good envelope
// sent after each case still applies. Run by tests/node/bad-input.test.mjs (0.3.0, a session
// channel) and tests/node/bad-input-v1.test.mjs (1.0, a chat channel) against a scripted peer;
// a version describes itself with a profile (see `runBadFrames`).
import { isDeepStrictEqual } from 'node:util';

/** Nests `{ a: ... }` `depth` levels deep, without recursion. */
export function nestedObject(depth) {
  let value = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** The JSON text of `nestedObject(depth)` (too deep for `JSON.stringify`). */
export function nestedText(depth) {
  return `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`;
}

/** The frame of `envelope` with `_meta` nested `depth` levels deep in its action. */
function deepFrame(envelope, depth) {
  const text = JSON.stringify({ jsonrpc: '2.0', ...envelope, params: { ...envelope.params, action: { ...envelope.params.action, _meta: '@' } } });
  return text.replace('"@"', nestedText(depth));
}

/**
 * The cases: name -> { frames (objects get `jsonrpc: '2.0'`, strings are sent as they are),
 * expect: 'malformed' (each frame reported) | 'noop' (no report, the state unchanged) }.
 * @param {object} p the version's profile (see `runBadFrames`)
 * @param {import('./scripted-peer.mjs').ScriptedPeer} peer
 */
export function badFrameCases(p, peer) {
  const { channel } = p;
  const envelope = (action, extra = {}) => peer.envelope(channel, action, extra);
  const params = (fields) => ({ method: 'action', params: fields });
  const good = p.delta('x');
  return {
    'not JSON': { frames: ['this is not json', '{"jsonrpc":"2.0",', ''], expect: 'malformed' },
    'JSON that is not an object': { frames: ['[1,2,3]', '42', 'null', '"action"'], expect: 'malformed' },
    'an envelope without an action': { frames: [params({ channel, serverSeq: 99 })], expect: 'malformed' },
    'an envelope without a channel': { frames: [params({ action: good, serverSeq: 99 })], expect: 'malformed' },
    'an envelope whose channel is a number': { frames: [params({ channel: 42, action: good, serverSeq: 99 })], expect: 'malformed' },
    'an envelope whose serverSeq is a string': { frames: [params({ channel, action: good, serverSeq: 'ninety' })], expect: 'malformed' },
    'an envelope whose serverSeq is negative': { frames: [params({ channel, action: good, serverSeq: -1 })], expect: 'malformed' },
    'an envelope whose origin is a string': { frames: [envelope(good, { origin: 'me' })], expect: 'malformed' },
    'an envelope whose params are an array': { frames: [{ method: 'action', params: [channel, good] }], expect: 'malformed' },
    'an action that is a string': { frames: [envelope(p.delta('x').type)], expect: 'malformed' },
    'an action without a type': { frames: [envelope({ ...good, type: undefined })], expect: 'malformed' },
    'an action whose type is a number': { frames: [envelope({ ...good, type: 7 })], expect: 'malformed' },
    'a known action with a wrong field type': { frames: p.wrongTypes.map((a) => envelope(a)), expect: 'malformed' },
    'a known action missing a required field': { frames: [envelope({ type: good.type })], expect: 'malformed' },
    'an unknown action type': { frames: [envelope({ type: 'no/such-action', x: 1 }), envelope({ type: `${p.prefix}/fromTheFuture`, y: [1] })], expect: 'noop' },
    'an unknown enum value': { frames: p.unknownEnums.map((a) => envelope(a)), expect: 'noop' },
    'an envelope of a channel not subscribed': { frames: [peer.envelope(`${channel}-other`, good)], expect: 'noop' },
    'a response to no request': { frames: [{ id: 987654, result: {} }, { id: 'nope', error: { code: -1, message: 'x' } }], expect: 'malformed' },
    'a response with neither result nor error': { frames: [{ id: 987655 }], expect: 'malformed' },
    'an action nested 100,000 levels deep': { frames: [deepFrame(envelope(good), 100_000)], expect: 'malformed' },
    'an action nested 129 levels deep': { frames: [deepFrame(envelope(good), 129)], expect: 'malformed' },
    'a frame of 1,000,000 open brackets': { frames: ['['.repeat(1_000_000)], expect: 'malformed' },
    'an unknown member 5 MB long on an unknown action': { frames: [envelope({ type: 'no/such-action', blob: 'z'.repeat(5_000_000) })], expect: 'noop' },
  };
}

/**
 * Runs the cases on a subscribed channel. After each, a good envelope (`p.delta(marker)`)
 * must apply, and the state must be the one before the case with that delta applied (by the
 * package's reducer `p.reduce`).
 * @param {object} p profile: `channel`, `prefix` (its actions' type prefix), `delta(text)` (a
 *   good action appending `text` to the content), `content(state)` (the content),
 *   `reduce(state, action)` (the channel's reducer),
 *   `wrongTypes` (known actions with a wrong field type), `unknownEnums` (actions with an
 *   enum value the version does not know, that change nothing)
 * @returns {Promise<{ name: string, ok: boolean, got: string }[]>} one row per case
 */
export async function runBadFrames(p, { peer, client, sub, settle }) {
  const rows = [];
  const malformed = [];
  const stop = client.onEvent((e) => e.type === 'malformed' && malformed.push(e));
  let n = 0;
  for (const [name, { frames, expect }] of Object.entries(badFrameCases(p, peer))) {
    const before = sub.state;
    const reported = malformed.length;
    for (const frame of frames) peer.push(frame);
    await settle();
    const got = [];
    const newReports = malformed.length - reported;
    if (expect === 'malformed' && newReports !== frames.length) got.push(`${newReports} of ${frames.length} frames reported`);
    if (expect === 'noop' && newReports !== 0) got.push(`reported: ${malformed.at(-1).message}`);
    if (expect === 'noop' && sub.state !== before) got.push('the state changed');
    // The mirror goes on: a good envelope applies after it.
    const marker = `<${n++}>`;
    const content = p.content(sub.state);
    peer.act(p.channel, p.delta(marker));
    await settle();
    if (p.content(sub.state) !== content + marker) got.push(`the next delta did not apply: ${JSON.stringify(p.content(sub.state)?.slice(-40))}`);
    else if (!isDeepStrictEqual(sub.state, p.reduce(before, p.delta(marker)))) got.push('the state is not the one before plus the delta');
    if (client.connectionState !== 'connected') got.push(`connection ${client.connectionState}`);
    rows.push({ name, ok: got.length === 0, got: got.join('; ') || 'ok' });
  }
  stop();
  try {
    await client.ping();
    rows.push({ name: 'still answers ping', ok: client.connectionState === 'connected', got: client.connectionState });
  } catch (e) {
    rows.push({ name: 'still answers ping', ok: false, got: `${e?.name}: ${e?.message}` });
  }
  return rows;
}
