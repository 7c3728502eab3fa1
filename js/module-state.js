// The WebAssembly module's state, as the package entry reports it (js/node.js, js/web.js), for
// the modules whose exports need the module: the client (js/api.js) and the reducers
// (js/reducers.js; js/v1/reducers.js in the 1.0 entry). Imports only the error classes.
// Also the reducers' check for a plain streamed-text delta, which both entries share.
//
// Hand-written; scripts/build-pkg.sh copies it into pkg/.
import { AhpError } from './error-classes.js';


/** 'idle' (no `init()` yet), 'loading', 'ready' or 'failed' (the last `init()` rejected). */
let wasmState = 'idle';
let wasmError;

/** The entry's `init()`, for async entry points; null where the entry loads on import (Node). */
let loadModule = null;

/** For the entries only (not exported by `export *`): the module is loading, ready or failed. */
export default function setWasmState(state, error) {
  wasmState = state;
  wasmError = error;
}

/** For the browser entry: how async entry points load the module when the app has not yet. */
setWasmState.loadWith = (load) => {
  loadModule = load;
};

/**
 * For async entry points: resolves once the module is ready, loading it through the entry's
 * `init()` if nobody has (the same promise as the app's own `init()` call, if one is running).
 */
export function whenLoaded(what) {
  if (wasmState === 'ready') return Promise.resolve();
  if (loadModule === null) return Promise.reject(notInitialized(what));
  return loadModule();
}

/** The `AhpError` (kind 'notInitialized') of a call that needs the module before it is ready. */
export function notInitialized(what) {
  let message;
  if (wasmState === 'loading') {
    message = `${what} called while the WebAssembly module is loading: wait for \`await init()\` first`;
  } else if (wasmState === 'failed') {
    const reason = wasmError?.cause?.message ?? wasmError?.message ?? String(wasmError);
    message = `${what} called, but loading the WebAssembly module failed (${reason}): call \`await init()\` again`;
  } else {
    message = `${what} called before init(): call \`await init()\` (import { init } from 'ahp-wasm') first; it loads the WebAssembly module`;
  }
  return new AhpError(`ahp-wasm: ${message}`, {
    kind: 'notInitialized',
    cause: wasmState === 'failed' ? wasmError : undefined,
  });
}


/** Throws the `notInitialized` error unless the module is ready (the synchronous entry points). */
export function requireReady(what) {
  if (wasmState !== 'ready') throw notInitialized(what);
}

// Streamed text (0.3.0's `session/delta`, 1.0's `chat/delta`: most actions of a turn) skips the
// reducers' JSON round trip: its three strings go to the module as they are. Anything else, or
// a delta with more members, takes the general path (which checks and converts the whole action).
const MAX_DELTA_CHARS = 64 * 1024 * 1024; // src/wasm/convert.rs MAX_STRING_UNITS

/** For the reducers: whether `action` is exactly `{type, turnId, partId, content}` of `type`. */
export function isPlainDelta(action, type) {
  try {
    return plainDeltaShape(action, type);
  } catch {
    return false; // a throwing getter: the general path reports it as an InvalidInputError
  }
}
function plainDeltaShape(action, type) {
  if (typeof action !== 'object' || action === null || action.type !== type) return false;
  if (Object.getPrototypeOf(action) !== Object.prototype) return false;
  const { turnId, partId, content } = action;
  if (typeof turnId !== 'string' || typeof partId !== 'string' || typeof content !== 'string') return false;
  if (turnId.length + partId.length + content.length > MAX_DELTA_CHARS) return false;
  let keys = 0;
  for (const key in action) if (Object.hasOwn(action, key)) keys++;
  return keys === 4;
}
