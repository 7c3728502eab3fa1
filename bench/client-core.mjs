// The mirror benchmark, shared by Node (bench/node-client.mjs) and headless Chromium
// (bench/browser-client.mjs): the standard stream (gen-stream.mjs) fed as text frames through a
// wasm `Subscription` of the built package, reading `subscription.state` after every action as a
// UI would. The frames reach the SDK through a custom transport (no socket: what is timed is the
// SDK's parse + reconcile + render path, not the network).
//
// `sdk` is the package module (`ahp-wasm` in Node, `pkg/web.js` in a page, already initialized).

/** Wraps each envelope line in the `action` notification the server sends. Not timed. */
export function framesOf(envelopeLines) {
  return envelopeLines.map((line) => `{"jsonrpc":"2.0","method":"action","params":${line}}`);
}

/**
 * A transport that answers `initialize` with `snapshot` and lets the bench push frames.
 * Returns `{ factory, push }`; `push(frame)` delivers one server frame to the client.
 */
export function scriptedHost(snapshot) {
  let callbacks;
  const factory = (_url, cb) => {
    callbacks = cb;
    setTimeout(() => cb.open(), 0);
    return {
      send(frame) {
        const msg = JSON.parse(frame);
        if (msg.method === 'initialize') {
          const result = { protocolVersion: '0.3.0', serverSeq: snapshot.fromSeq, snapshots: [snapshot] };
          setTimeout(() => cb.message(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })), 0);
        } else if (msg.id !== undefined && msg.method) {
          const error = { code: -32601, message: `bench host: ${msg.method} not scripted` };
          setTimeout(() => cb.message(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error })), 0);
        }
      },
      close() {},
    };
  };
  return { factory, push: (frame) => callbacks.message(frame) };
}

/** Connects a client to a scripted host holding `initialText` (SessionState JSON) at `uri`. */
export async function openMirror(sdk, uri, initialText) {
  const host = scriptedHost({ resource: uri, state: JSON.parse(initialText), fromSeq: 0 });
  const client = await sdk.AhpClient.connect('ws://bench.invalid/ahp', {
    transport: host.factory,
    initialSubscriptions: [uri],
    reconnect: false,
    keepaliveMs: 0,
  });
  const subscription = client.subscription(uri) ?? (await client.subscribe(uri));
  return { client, subscription, push: host.push };
}

/**
 * One run: a fresh mirror, then every frame pushed and `state` read after each.
 * Returns { nsPerAction, final }.
 */
export async function runOnce(sdk, uri, initialText, frames, now) {
  const { client, subscription, push } = await openMirror(sdk, uri, initialText);
  let state = subscription.state;
  let seen = 0;
  const start = now();
  for (let i = 0; i < frames.length; i++) {
    push(frames[i]);
    state = subscription.state;
    seen += state.activeTurn === undefined ? 0 : 1;
  }
  const elapsedNs = now() - start;
  if (seen !== frames.length) throw new Error('the active turn disappeared during the stream');
  const final = subscription.state;
  client.close();
  return { nsPerAction: elapsedNs / frames.length, final };
}

/** Checks the end state of the standard stream: p1 holds 99,000 chars, 200 tool calls. */
export function checkFinal(final) {
  const parts = final.activeTurn?.responseParts ?? [];
  const p1 = parts.find((p) => p.id === 'p1');
  const toolCalls = parts.filter((p) => p.kind === 'toolCall').length;
  if (p1?.content?.length !== 99000 || toolCalls !== 200) {
    throw new Error(`wrong final state: p1 ${p1?.content?.length} chars, ${toolCalls} tool calls`);
  }
  return { p1: p1.content.length, toolCalls };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
