// Types of the package entry (js/node.js, js/web.js). Hand-written; the build script copies it
// into pkg/. The wire types (SessionState, StateAction, ...) and the reducer signatures are
// generated from the Rust types (tsify + wasm-bindgen) into ahp_wasm.d.ts.

export {
  rootReducer,
  sessionReducer,
  terminalReducer,
  changesetReducer,
  resourceWatchReducer,
} from './ahp_wasm.js';

// Every wire type: RootState, SessionState, TerminalState, ChangesetState, ResourceWatchState,
// StateAction and everything they reference.
export type * from './ahp_wasm.js';

/** The protocol version this SDK implements: `'0.3.0'`. */
export declare const PROTOCOL_VERSION: string;

/** Every protocol version this SDK speaks, most preferred first. */
export declare const SUPPORTED_PROTOCOL_VERSIONS: string[];

/** Base class of every error the SDK throws. */
export declare class AhpError extends Error {
  constructor(message: string, options?: { kind?: string; code?: number; cause?: unknown });
  /** Stable machine-readable category, e.g. `'invalid-input'`, `'internal'`. */
  readonly kind: string;
  /** JSON-RPC / AHP error code when one applies. */
  readonly code: number | undefined;
}

/**
 * A value passed to the SDK does not have the shape the protocol requires (wrong type,
 * missing field, unknown enum value, nested too deep, too large). The message names the
 * argument and the field path.
 */
export declare class InvalidInputError extends AhpError {
  constructor(message: string, argument: string, path: string);
  readonly kind: 'invalid-input';
  /** JSON-RPC `InvalidParams`. */
  readonly code: -32602;
  /** Which argument was wrong: `'state'` or `'action'`. */
  readonly argument: string;
  /** The offending field, e.g. `'activeTurn.responseParts[0].kind'`; `''` for the value itself. */
  readonly path: string;
}
