// The AHP 1.0 reducers of the package (the 1.0 entry; the 0.3.0 one has js/reducers.js): each
// checks that the WebAssembly module is ready, then calls its export. Same contract as the
// official 1.0 TypeScript package: `(state, action) => newState`, the input never mutated, an
// action that does not apply returns the input itself.
//
// Hand-written; scripts/build-pkg.sh copies it into pkg/v1/ as reducers.js (so its imports are
// relative to that directory).
import * as wasm from './ahp_wasm.js';
import { isPlainDelta, requireReady } from './module-state.js';

export function rootReducer(state, action) {
  requireReady('rootReducer');
  return wasm.rootReducer(state, action);
}
export function sessionReducer(state, action) {
  requireReady('sessionReducer');
  return wasm.sessionReducer(state, action);
}
// Streamed text skips the JSON round trip (see isPlainDelta).
export function chatReducer(state, action) {
  requireReady('chatReducer');
  if (isPlainDelta(action, 'chat/delta')) return wasm.__chatReducerDelta(state, action.turnId, action.partId, action.content);
  return wasm.chatReducer(state, action);
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
export function annotationsReducer(state, action) {
  requireReady('annotationsReducer');
  return wasm.annotationsReducer(state, action);
}
export function canvasReducer(state, action) {
  requireReady('canvasReducer');
  return wasm.canvasReducer(state, action);
}
export function automationReducer(state, action) {
  requireReady('automationReducer');
  return wasm.automationReducer(state, action);
}
export function automationRunReducer(state, action) {
  requireReady('automationRunReducer');
  return wasm.automationRunReducer(state, action);
}
