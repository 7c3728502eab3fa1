// Hand-written JavaScript the Rust bindings import (src/wasm/errors.rs, src/wasm/convert.rs).
// wasm-bindgen copies this file into the package as a snippet; the package entries re-export
// the error classes through `__errorClasses()`, so `instanceof` works with the classes users
// import from 'ahp-wasm'. The error classes are listed in src/client/error_classes.rs: the
// codegen writes the lists below and checks the classes here and in js/index.d.ts against it.

/** Base class of every error the SDK throws. */
export class AhpError extends Error {
  /**
   * @param {string} message
   * @param {{ kind?: string, code?: number, cause?: unknown }} [options]
   */
  constructor(message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AhpError';
    /** Stable machine-readable category, e.g. 'invalid-input'. */
    this.kind = options.kind ?? 'internal';
    /** JSON-RPC / AHP error code when one applies. */
    this.code = options.code;
  }
}

/** A value passed to the SDK does not have the shape the protocol requires. */
export class InvalidInputError extends AhpError {
  /**
   * @param {string} message
   * @param {string} argument which argument was wrong ('state', 'action', ...)
   * @param {string} path the offending field, e.g. 'activeTurn.responseParts[0].kind' ('' = the value itself)
   */
  constructor(message, argument, path) {
    super(message, { kind: 'invalid-input', code: -32602 });
    this.name = 'InvalidInputError';
    this.argument = argument;
    this.path = path;
  }
}

/** The server answered a request with a JSON-RPC error. */
export class RpcError extends AhpError {
  /**
   * @param {string} message
   * @param {{ code: number, data?: unknown, method?: string }} options
   */
  constructor(message, options) {
    super(message, { kind: 'rpc', code: options.code });
    this.name = 'RpcError';
    this.data = options.data;
    this.method = options.method ?? '';
  }
}

/** No response within the request timeout. */
export class RpcTimeoutError extends AhpError {
  /** @param {string} message @param {{ method: string }} options */
  constructor(message, options) {
    super(message, { kind: 'timeout' });
    this.name = 'RpcTimeoutError';
    this.method = options.method;
  }
}

/** The transport failed (`transportKind`: 'connect' | 'connectionLost' | 'send' | 'receive'). */
export class TransportError extends AhpError {
  /** @param {string} message @param {{ transportKind: string }} options */
  constructor(message, options) {
    super(message, { kind: 'transport' });
    this.name = 'TransportError';
    this.transportKind = options.transportKind;
  }
}

/** The client was closed. */
export class ClientClosedError extends AhpError {
  /** @param {string} [message] */
  constructor(message = 'the client is closed') {
    super(message, { kind: 'closed' });
    this.name = 'ClientClosedError';
  }
}

/** The server speaks none of the offered protocol versions (-32005). */
export class UnsupportedProtocolVersionError extends AhpError {
  /** @param {string} message @param {{ offered: string[], supported?: string[] }} options */
  constructor(message, options) {
    super(message, { kind: 'unsupportedProtocolVersion', code: -32005 });
    this.name = 'UnsupportedProtocolVersionError';
    this.offered = options.offered;
    this.supported = options.supported;
  }
}

/** `dispatch` on a channel the client is not subscribed to. */
export class NotSubscribedError extends AhpError {
  /** @param {string} message @param {{ channel: string }} options */
  constructor(message, options) {
    super(message, { kind: 'notSubscribed' });
    this.name = 'NotSubscribedError';
    this.channel = options.channel;
  }
}

/** The server's response could not be understood. */
export class InvalidResponseError extends AhpError {
  /** @param {string} message @param {{ method: string }} options */
  constructor(message, options) {
    super(message, { kind: 'invalidResponse' });
    this.name = 'InvalidResponseError';
    this.method = options.method;
  }
}

// <generated: error classes> from src/client/error_classes.rs: cargo run -p xtask -- codegen
const CLIENT_ERRORS = {
  rpc: RpcError,
  timeout: RpcTimeoutError,
  transport: TransportError,
  closed: ClientClosedError,
  unsupportedProtocolVersion: UnsupportedProtocolVersionError,
  notSubscribed: NotSubscribedError,
  invalidResponse: InvalidResponseError,
};

export function errorClasses() {
  return {
    AhpError,
    InvalidInputError,
    RpcError,
    RpcTimeoutError,
    TransportError,
    ClientClosedError,
    UnsupportedProtocolVersionError,
    NotSubscribedError,
    InvalidResponseError,
  };
}
// </generated: error classes>

/** Builds the error class of `kind` (src/wasm/client/errors.rs). */
export function clientError(kind, message, options) {
  const Class = CLIENT_ERRORS[kind];
  return Class === undefined ? new AhpError(message, { kind }) : new Class(message, options);
}

/**
 * The callbacks object handed to a custom transport (src/wasm/client/transport.rs): Rust
 * closures behind four methods. `message` is the hot path: the frame is encoded straight into
 * a buffer in wasm memory that `reserve(bytes) => ptr` lends (0: no buffer), then
 * `take(len)` reads it; frames that do not fit go to `onFrame` as strings.
 */
export function transportCallbacks(fn, onFrame, [reserve, take], memory) {
  const encoder = new TextEncoder();
  let ptr = 0;
  let capacity = 0;
  let view = null;
  // Writes `frame` as UTF-8 into the buffer lent by wasm; its byte length, or -1 (too large,
  // or the buffer is busy): the frame then goes as a string.
  function encode(frame) {
    let need = frame.length; // enough when the frame is ASCII, the common case
    for (;;) {
      if (need > capacity) {
        ptr = reserve(need);
        capacity = ptr === 0 ? 0 : need;
        if (ptr === 0) return -1;
        view = null;
      }
      // wasm memory growth replaces the buffer: re-view it.
      if (view === null || view.buffer !== memory.buffer) view = new Uint8Array(memory.buffer, ptr, capacity);
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
      if (len >= 0) take(len);
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

function pathOf(frames, key) {
  let path = '';
  const keys = frames.slice(1).map((f) => f.key);
  if (frames.length > 0) keys.push(key);
  for (const k of keys) {
    if (typeof k === 'number') path += `[${k}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(k)) path += path === '' ? k : `.${k}`;
    else path += `[${JSON.stringify(k)}]`;
  }
  return path;
}

/**
 * Walks a JS value iteratively (no recursion, so no stack overflow) and checks it is JSON-like
 * data within the limits, before Rust converts it recursively.
 * @returns {null | [string, string]} null when fine, else [path, reason].
 */
export function inspectInput(root, maxDepth, maxNodes, maxChars) {
  let nodes = 0;
  let chars = 0;
  const frames = [];
  let value = root;
  let key;
  for (;;) {
    nodes += 1;
    if (nodes > maxNodes) {
      return [pathOf(frames, key), `more than ${maxNodes} values in total`];
    }
    if (typeof value === 'string') {
      chars += value.length;
      if (chars > maxChars) {
        return [pathOf(frames, key), `more than ${maxChars} characters of strings in total`];
      }
    } else if (typeof value === 'object' && value !== null) {
      if (frames.length >= maxDepth) {
        return [pathOf(frames, key), `nested deeper than ${maxDepth} levels`];
      }
      if (Array.isArray(value)) {
        frames.push({ value, keys: null, i: 0, key });
      } else if (
        Symbol.iterator in value ||
        ArrayBuffer.isView(value) ||
        value instanceof ArrayBuffer
      ) {
        const what = value.constructor?.name ?? 'iterable';
        return [pathOf(frames, key), `expected JSON data (plain objects, arrays, strings, numbers, booleans, null), got a ${what}`];
      } else {
        frames.push({ value, keys: Object.keys(value), i: 0, key });
      }
    }
    // Move to the next value: the next child of the innermost unfinished container.
    for (;;) {
      const top = frames[frames.length - 1];
      if (top === undefined) return null;
      if (top.keys === null) {
        if (top.i < top.value.length) {
          key = top.i;
          value = top.value[top.i++];
          break;
        }
      } else if (top.i < top.keys.length) {
        key = top.keys[top.i++];
        value = top.value[key];
        break;
      }
      frames.pop();
    }
  }
}

/** `promise.then(onOk, onErr)` with plain functions (src/wasm/client/). */
export function thenBoth(promise, onOk, onErr) {
  return promise.then(onOk, onErr);
}
