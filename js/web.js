// Package entry for browsers and bundlers (ES module). Loads the WebAssembly module next to
// this file with top-level await, then exports the public API. Hand-written; the build script
// (scripts/build-pkg.sh) copies it into pkg/. Keep in sync with js/node.js and js/index.d.ts; the
// error classes are listed by the codegen (between the `generated` markers).
import init, * as wasm from './ahp_wasm.js';

await init({ module_or_path: new URL('./ahp_wasm_bg.wasm', import.meta.url) });

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
