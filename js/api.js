// The package's public API, listed once for both entries (js/node.js, js/web.js). Each entry
// loads the WebAssembly module its own way, calls this module's default export (`loaded`), then
// re-exports everything here with `export *` (which leaves the default export out).
//
// The values read from the module (the version constants, the error classes of js/errors.js,
// exported through `__errorClasses()` so `instanceof` works with the classes users import) are
// live bindings set by `loaded()`: an entry calls it before its own evaluation ends, so no
// importer ever sees them unset. Hand-written; scripts/build-pkg.sh copies it into pkg/. Keep in
// sync with js/index.d.ts; the error classes are listed by the codegen (between the `generated`
// markers).
import * as wasm from './ahp_wasm.js';
import { AhpClient } from './ahp_wasm.js';
import { onSystemMessageTransform, releaseActiveClient, setActiveClient } from './active-client.js';

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
export { McpChannel } from './mcp-channel.js';
export { ActiveClientHandle, buildClientPlugin } from './active-client.js';

// The active-client role is written in JS over the client's public API (js/active-client.js);
// these methods make it part of AhpClient.
AhpClient.prototype.setActiveClient = function (session, options) {
  return setActiveClient(this, session, options);
};
AhpClient.prototype.releaseActiveClient = function (session) {
  return releaseActiveClient(this, session);
};
AhpClient.prototype.onSystemMessageTransform = function (handler) {
  onSystemMessageTransform(this, handler);
};

export let PROTOCOL_VERSION;
export let SUPPORTED_PROTOCOL_VERSIONS;
// <generated: error class exports> from src/client/error_classes.rs: cargo run -p xtask -- codegen
export let AhpError;
export let InvalidInputError;
export let RpcError;
export let RpcTimeoutError;
export let TransportError;
export let ClientClosedError;
export let UnsupportedProtocolVersionError;
export let NotSubscribedError;
export let InvalidResponseError;
export let ChannelUnavailableError;
// </generated: error class exports>

/** Reads the values above from the module, once it is instantiated (the entries call it). */
export default function loaded() {
  PROTOCOL_VERSION = wasm.__protocolVersion();
  SUPPORTED_PROTOCOL_VERSIONS = wasm.__supportedProtocolVersions();
  // <generated: error classes> from src/client/error_classes.rs: cargo run -p xtask -- codegen
  ({
    AhpError,
    InvalidInputError,
    RpcError,
    RpcTimeoutError,
    TransportError,
    ClientClosedError,
    UnsupportedProtocolVersionError,
    NotSubscribedError,
    InvalidResponseError,
    ChannelUnavailableError,
  } = wasm.__errorClasses());
  // </generated: error classes>
}
