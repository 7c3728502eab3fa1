// TypeScript contract of the package's AHP 1.0 entry, `ahp-wasm/v1` (the wasm module built with
// cargo feature `v1` alone). Hand-written; scripts/build-pkg.sh copies it into pkg/v1/ beside
// the 1.0 reducers' declarations and the 1.0 wire types (reducers.d.ts, types.d.ts).
//
// Preview: the reducers, the wire types and the constants are 1.0's; the client classes are the
// same classes as the 0.3.0 entry's (one implementation, speaking 1.0 here: `dispatch` takes a
// 1.0 action, `state` is a 1.0 state, the command methods send the 1.0 table's commands), and
// their declarations are shared with it until the 1.0 entry becomes the package's default.

export * from './reducers.js';

/** The protocol version this entry speaks: `'1.0.0'`. */
export declare const PROTOCOL_VERSION: string;

/** Every protocol version this entry speaks: `['1.0.0']`. */
export declare const SUPPORTED_PROTOCOL_VERSIONS: string[];

export {
  init,
  InitOptions,
  WasmSource,
  AhpClient,
  Subscription,
  MultiHostClient,
  InMemoryTransport,
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
} from '../index.js';
