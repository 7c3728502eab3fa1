// The frame copy of custom transports (js/glue.js, `transportCallbacks`): frames written into
// wasm memory by the JS loop browsers use, including the bytes a frame shares with the one
// before (left in the buffer, not copied again), must read back as TextEncoder's UTF-8 of
// each frame. The sink here stands in for the Rust `FrameSink` (a buffer lent in a real
// WebAssembly.Memory, read back at `take`); the package's path through the real sink is
// covered end to end by tests/node/client.test.mjs and tests/browser/web-entry.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { transportCallbacks } from '../../js/glue.js';

/** A sink lending `memory` bytes at a moving offset (each reserve a new place, as Rust's). */
function recordingSink(memory) {
  const taken = [];
  let next = 64;
  let current = 0;
  let reserves = 0;
  return {
    taken,
    get reserves() {
      return reserves;
    },
    reserve(bytes) {
      reserves++;
      // A new buffer, zero-filled like Rust's: bytes of an earlier frame are not in it.
      if (next + bytes > memory.buffer.byteLength) memory.grow(Math.ceil(bytes / 65536) + 1);
      current = next;
      next += bytes + 8;
      new Uint8Array(memory.buffer, current, bytes).fill(0);
      return current;
    },
    take(len) {
      taken.push(new TextDecoder().decode(new Uint8Array(memory.buffer, current, len)));
    },
  };
}

function connect(loopMax) {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 64 });
  const sink = recordingSink(memory);
  const asStrings = [];
  const callbacks = transportCallbacks(() => {}, (frame) => asStrings.push(frame), sink, memory, loopMax);
  return { callbacks, sink, memory, asStrings };
}

/** A deterministic pseudo-random generator (xorshift32). */
function random(seed) {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

const PIECES = ['{"jsonrpc":"2.0","method":"action","params":{"channel":"s:/a","action":{"type":"session/delta"',
  ',"turnId":"t1","partId":"p1","content":"', 'word ', 'caf\u00e9', '\u{1F642}', '\u2028', 'x'.repeat(40), '"},"serverSeq":', '7', '12', '}}', ''];

test('frames copied by the loop read back exactly, whatever they share with the frame before', () => {
  for (const loopMax of [0, 64, 512]) {
    const { callbacks, sink, asStrings } = connect(loopMax);
    const next = random(loopMax + 1);
    const sent = [];
    let previous = '';
    for (let i = 0; i < 3000; i++) {
      let frame;
      switch (next(5)) {
        case 0: // the previous frame with its end changed (a stream: most of the text shared)
          frame = previous.slice(0, next(previous.length + 1)) + PIECES[next(PIECES.length)];
          break;
        case 1: // the previous frame cut short
          frame = previous.slice(0, next(previous.length + 1));
          break;
        case 2: // a long frame (beyond the loop, and growing the buffer)
          frame = PIECES[0] + 'y'.repeat(next(3000)) + PIECES[next(PIECES.length)];
          break;
        default: // pieces joined at random
          frame = Array.from({ length: next(8) }, () => PIECES[next(PIECES.length)]).join('');
      }
      sent.push(frame);
      callbacks.message(frame);
      previous = frame;
    }
    assert.deepEqual(asStrings, [], 'every frame fits a lent buffer');
    assert.equal(sink.taken.length, sent.length);
    // A cut may split a surrogate pair: a lone surrogate is sent as U+FFFD, as TextEncoder does.
    const utf8 = (text) => new TextDecoder().decode(new TextEncoder().encode(text));
    for (let i = 0; i < sent.length; i++) assert.equal(sink.taken[i], utf8(sent[i]), `loopMax ${loopMax}, frame ${i}`);
    assert.ok(sink.reserves > 1, 'the buffer was replaced along the way');
  }
});

test('a stream of frames differing at the end is copied, not re-sent as strings', () => {
  const { callbacks, sink } = connect(512);
  const head = '{"jsonrpc":"2.0","method":"action","params":{"channel":"s:/a","action":{"type":"session/delta","turnId":"t1","partId":"p1","content":"word "},"serverSeq":';
  for (let seq = 1; seq <= 200; seq++) callbacks.message(`${head}${seq}}}`);
  // Memory growth detaches the views of the buffer; the next frame must still land whole.
  callbacks.message(`${head}201}}`);
  assert.equal(sink.taken.length, 201);
  sink.taken.forEach((frame, i) => assert.equal(frame, `${head}${i + 1}}}`));
});
