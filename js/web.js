// Package entry for browsers and bundlers (ES module). Loads the WebAssembly module next to
// this file with top-level await, then exports the public API (js/api.js). Hand-written; the
// build script (scripts/build-pkg.sh) copies it into pkg/.
import init from './ahp_wasm.js';
import loaded from './api.js';

await init({ module_or_path: new URL('./ahp_wasm_bg.wasm', import.meta.url) });
loaded();

export * from './api.js';
