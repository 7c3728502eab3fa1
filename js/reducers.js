// The AHP 0.3.0 reducers of the package (the 0.3.0 entry; the 1.0 entry has js/v1/reducers.js):
// each checks that the WebAssembly module is ready, then calls its export. Same contract as the
// official TypeScript package: `(state, action) => newState`, the input never mutated.
//
// Hand-written; scripts/build-pkg.sh copies it into pkg/.
import * as wasm from './ahp_wasm.js';
import { requireReady } from './module-state.js';

export function rootReducer(state, action) {
  requireReady('rootReducer');
  return wasm.rootReducer(state, action);
}
// Streamed text (`session/delta`, most actions of a turn) skips the JSON round trip: its three
// strings go to the module as they are. Anything else, or a delta with more members, takes the
// general path (which checks and converts the whole action).
const MAX_DELTA_CHARS = 64 * 1024 * 1024; // src/wasm/convert.rs MAX_STRING_UNITS
function isPlainDelta(action) {
  try {
    return plainDeltaShape(action);
  } catch {
    return false; // a throwing getter: the general path reports it as an InvalidInputError
  }
}
function plainDeltaShape(action) {
  if (typeof action !== 'object' || action === null || action.type !== 'session/delta') return false;
  if (Object.getPrototypeOf(action) !== Object.prototype) return false;
  const { turnId, partId, content } = action;
  if (typeof turnId !== 'string' || typeof partId !== 'string' || typeof content !== 'string') return false;
  if (turnId.length + partId.length + content.length > MAX_DELTA_CHARS) return false;
  let keys = 0;
  for (const key in action) if (Object.hasOwn(action, key)) keys++;
  return keys === 4;
}

export function sessionReducer(state, action) {
  requireReady('sessionReducer');
  if (isPlainDelta(action)) return wasm.__sessionReducerDelta(state, action.turnId, action.partId, action.content);
  return wasm.sessionReducer(state, action);
}
export function terminalReducer(state, action) {
  requireReady('terminalReducer');
  return wasm.terminalReducer(state, action);
}
export function changesetReducer(state, action) {
  requireReady('changesetReducer');
  return wasm.changesetReducer(state, action);
}
export function resourceWatchReducer(state, action) {
  requireReady('resourceWatchReducer');
  return wasm.resourceWatchReducer(state, action);
}
