// The AHP 0.3.0 reducers of the package (the 0.3.0 entry; the 1.0 entry has js/v1/reducers.js):
// each checks that the WebAssembly module is ready, then calls its export. Same contract as the
// official TypeScript package: `(state, action) => newState`, the input never mutated.
//
// Hand-written; scripts/build-pkg.sh copies it into pkg/.
import * as wasm from './ahp_wasm.js';
import { isPlainDelta, requireReady } from './module-state.js';

export function rootReducer(state, action) {
  requireReady('rootReducer');
  return wasm.rootReducer(state, action);
}
// Streamed text skips the JSON round trip (see isPlainDelta).
export function sessionReducer(state, action) {
  requireReady('sessionReducer');
  if (isPlainDelta(action, 'session/delta')) return wasm.__sessionReducerDelta(state, action.turnId, action.partId, action.content);
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
