// Package entry for Node (ES module, no bundler needed, no top-level await). Reads and
// instantiates the WebAssembly module next to this file synchronously when imported; `init()`
// exists as in the browser entry (js/web.js) and resolves at once, so code written for both runs
// unchanged. Hand-written; the build script (scripts/build-pkg.sh) copies it into pkg/.
import { readFileSync } from 'node:fs';
import { initSync } from './ahp_wasm.js';
import setWasmState from './api.js';

initSync({ module: readFileSync(new URL('./ahp_wasm_bg.wasm', import.meta.url)) });
setWasmState('ready');

const ready = Promise.resolve();

/** The module is loaded when this entry is imported: resolves at once (`options` are ignored). */
export function init() {
  return ready;
}

// Node 20/21 have a WebSocket (with --experimental-websocket) but no CloseEvent. The default
// transport (gloo-net) dispatches a CloseEvent when it lets go of a socket, so that its 'close'
// listener is removed before the socket's real close event; without the class that listener
// stays registered and the real event then calls a freed closure. A minimal stand-in, only
// when the platform lacks one:
if (typeof globalThis.CloseEvent === 'undefined' && typeof globalThis.Event === 'function') {
  globalThis.CloseEvent = class CloseEvent extends Event {
    constructor(type, init = {}) {
      super(type, init);
      this.code = init.code ?? 0;
      this.reason = init.reason ?? '';
      this.wasClean = init.wasClean ?? false;
    }
  };
}

export * from './api.js';
