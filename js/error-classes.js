// The SDK's error classes as the package exports them, set when this module loads: from the
// errors.js snippet the bindings throw with (through ./generated.js, written by
// scripts/build-pkg.sh), so they work before `init()` and `instanceof` holds with what the SDK
// throws. A leaf: the package's modules (api.js, active-client.js, terminal.js, changeset.js,
// mcp-channel.js) import the classes from here, not from the api.js barrel that imports them.
//
// Hand-written; scripts/build-pkg.sh copies it into pkg/. The list is written by the codegen
// (between the `generated` markers).
import { errorClasses } from './generated.js';

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
  WrongProtocolVersionError,
  ChannelUnavailableError,
} = errorClasses();
// </generated: error classes>
