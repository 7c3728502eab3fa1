// Package entry for Node (ES module, no bundler needed). Reads the WebAssembly module next to
// this file synchronously, then exports the public API. Hand-written; the build script
// (scripts/build-pkg.sh) copies it into pkg/. Keep in sync with js/web.js and js/index.d.ts; the
// error classes are listed by the codegen (between the `generated` markers).
import { readFileSync } from 'node:fs';
import * as wasm from './ahp_wasm.js';

wasm.initSync({ module: readFileSync(new URL('./ahp_wasm_bg.wasm', import.meta.url)) });

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

export {
  rootReducer,
  sessionReducer,
  terminalReducer,
  changesetReducer,
  resourceWatchReducer,
  AhpClient,
  Subscription,
  MultiHostClient,
} from './ahp_wasm.js';

export const PROTOCOL_VERSION = wasm.__protocolVersion();
export const SUPPORTED_PROTOCOL_VERSIONS = wasm.__supportedProtocolVersions();
// <generated: error classes> from src/client/error_classes.rs: cargo run -p xtask -- codegen
export const {
  AhpError,
  InvalidInputError,
  RpcError,
  RpcTimeoutError,
  TransportError,
  ClientClosedError,
  UnsupportedProtocolVersionError,
  NotSubscribedError,
  InvalidResponseError,
} = wasm.__errorClasses();
// </generated: error classes>
