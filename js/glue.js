// Callback glue the Rust bindings hand to JavaScript (src/wasm/client/): the callbacks object
// of a custom transport, listener removers, and promise continuations. wasm-bindgen copies
// this file into the package as a snippet.

// Blink's `TextEncoder.encodeInto` costs about 230-300 ns a call whatever the length (Chromium
// 156, measured with the mirror benchmark's frames), Node's about 40: outside Node, frames of up
// to this many characters are copied by a loop (about 1 ns a character; ASCII only, anything
// else goes to `encodeInto`).
const COPY_LOOP_MAX = typeof process === 'object' && process?.versions?.node ? 0 : 512;
// See `held` in transportCallbacks.
const HELD_MARGIN = 8;
const HELD_RECHECK = 32;

/**
 * The callbacks object handed to a custom transport (src/wasm/client/transport.rs): Rust
 * closures behind four methods. `message` is the hot path: the frame is encoded straight into
 * a buffer in wasm memory that `sink.reserve(bytes) => ptr` lends (0: no buffer), then
 * `sink.take(len, now)` reads it (the time is read here: a call out of wasm for it costs more);
 * frames that do not fit go to `onFrame` as strings. `loopMax`: the longest frame copied by
 * the JS loop (tests set it; by default 0 in Node, 512 elsewhere).
 */
export function transportCallbacks(fn, onFrame, sink, memory, loopMax = COPY_LOOP_MAX) {
  const encoder = new TextEncoder();
  let ptr = 0;
  let capacity = 0;
  let view = null;
  // The last frame the loop copied (its bytes are at the start of the buffer; '' when
  // unknown), and `held`, a prefix of it: consecutive frames of a stream share most of their
  // text (the envelope, channel, turn and part, up to the streamed text), so a frame that
  // starts with `held` (one native comparison) has only the rest copied. `held` is the text a
  // frame shared with the one before, less its last `HELD_MARGIN` characters (a sequence
  // number's changing digits then stay out of it), found again on a frame that does not start
  // with it and every `HELD_RECHECK` frames that do (so it can grow).
  let last = '';
  let held = '';
  let hits = 0;
  // Copies `frame` (at most `loopMax` characters) into the buffer if it is all ASCII: its
  // length, or -1 (then the buffer holds garbage; the caller forgets `last` and `held`).
  function copyAscii(frame) {
    const length = frame.length;
    const h = held.length;
    const starts = h > 0 && length >= h && frame.substring(0, h) === held;
    let from = h;
    if (!starts || ++hits % HELD_RECHECK === 0) {
      // How far the frame equals the last one: those bytes are in the buffer already.
      from = starts ? h : 0;
      const shared = Math.min(length, last.length);
      while (from < shared && frame.charCodeAt(from) === last.charCodeAt(from)) from++;
      const keep = from > HELD_MARGIN ? from - HELD_MARGIN : 0;
      if (keep !== h) held = frame.substring(0, keep);
    }
    // Each character is tested as it is copied: one OR tested at the end measured about 40 ns
    // a frame slower in Chromium 156.
    for (let i = from; i < length; i++) {
      const unit = frame.charCodeAt(i);
      if (unit > 0x7f) return -1;
      view[i] = unit;
    }
    last = frame;
    return length;
  }
  // Writes `frame` as UTF-8 into the buffer lent by wasm; its byte length, or -1 (too large,
  // or the buffer is busy): the frame then goes as a string.
  function encode(frame) {
    let need = frame.length; // enough when the frame is ASCII, the common case
    for (;;) {
      if (need > capacity) {
        ptr = sink.reserve(need);
        capacity = ptr === 0 ? 0 : need;
        view = null;
        last = held = ''; // another buffer: its bytes are unknown
        if (ptr === 0) return -1;
      }
      // wasm memory growth detaches the buffer (its views then have no bytes): re-view it.
      // (Reading `memory.buffer` per frame costs more than this check.)
      if (view === null || view.byteLength === 0) view = new Uint8Array(memory.buffer, ptr, capacity);
      if (frame.length <= loopMax) {
        const copied = copyAscii(frame);
        if (copied >= 0) return copied;
      }
      last = held = '';
      const { read, written } = encoder.encodeInto(frame, view);
      if (read === frame.length) return written;
      if (need >= frame.length * 3) return -1;
      need = frame.length * 3;
    }
  }
  return Object.freeze({
    open() {
      fn(0, undefined);
    },
    message(frame) {
      if (typeof frame !== 'string') return fn(1, frame);
      const len = encode(frame);
      if (len >= 0) sink.take(len, Date.now());
      else onFrame(frame);
    },
    messages(frames) {
      fn(2, frames);
    },
    close(reason) {
      fn(3, reason === undefined ? 'closed' : String(reason));
    },
  });
}

/** A function that calls `fn(id)` once (the remover returned by `onChange`/`onEvent`). */
export function remover(fn, id) {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn(id);
    }
  };
}

/** `promise.then(onOk, onErr)` with plain functions (src/wasm/client/). */
export function thenBoth(promise, onOk, onErr) {
  return promise.then(onOk, onErr);
}
