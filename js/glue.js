// Callback glue the Rust bindings hand to JavaScript (src/wasm/client/): the callbacks object
// of a custom transport, listener removers, and promise continuations. wasm-bindgen copies
// this file into the package as a snippet.

// Blink's `TextEncoder.encodeInto` costs about 300 ns a call whatever the length (Chromium 156,
// measured with the mirror benchmark's frames), Node's about 40: outside Node, frames of up to
// this many characters are copied by a loop (about 1 ns a character; ASCII only, anything else
// goes to `encodeInto`).
const COPY_LOOP_MAX = typeof process === 'object' && process?.versions?.node ? 0 : 512;

/**
 * Copies `text` into `view` if it is all ASCII: its length, or -1 (then `view` holds garbage).
 * Each character is tested as it is copied: one OR tested at the end measured about 40 ns a
 * frame slower in Chromium 156 (faster in Node 20, which does not use this loop).
 */
function copyAscii(text, view) {
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i);
    if (unit > 0x7f) return -1;
    view[i] = unit;
  }
  return length;
}

/**
 * The callbacks object handed to a custom transport (src/wasm/client/transport.rs): Rust
 * closures behind four methods. `message` is the hot path: the frame is encoded straight into
 * a buffer in wasm memory that `sink.reserve(bytes) => ptr` lends (0: no buffer), then
 * `sink.take(len, now)` reads it (the time is read here: a call out of wasm for it costs more);
 * frames that do not fit go to `onFrame` as strings.
 */
export function transportCallbacks(fn, onFrame, sink, memory) {
  const encoder = new TextEncoder();
  const loopMax = COPY_LOOP_MAX;
  let ptr = 0;
  let capacity = 0;
  let view = null;
  // Writes `frame` as UTF-8 into the buffer lent by wasm; its byte length, or -1 (too large,
  // or the buffer is busy): the frame then goes as a string.
  function encode(frame) {
    let need = frame.length; // enough when the frame is ASCII, the common case
    for (;;) {
      if (need > capacity) {
        ptr = sink.reserve(need);
        capacity = ptr === 0 ? 0 : need;
        if (ptr === 0) return -1;
        view = null;
      }
      // wasm memory growth detaches the buffer (its views then have no bytes): re-view it.
      // (Reading `memory.buffer` per frame costs more than this check.)
      if (view === null || view.byteLength === 0) view = new Uint8Array(memory.buffer, ptr, capacity);
      if (frame.length <= loopMax) {
        const copied = copyAscii(frame, view);
        if (copied >= 0) return copied;
      }
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
