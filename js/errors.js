// The SDK's error classes, for the Rust bindings (src/wasm/errors.rs, src/wasm/client/errors.rs).
// wasm-bindgen copies this file into the package as a snippet; the package entries re-export
// the classes through `__errorClasses()`, so `instanceof` works with the classes users import
// from 'ahp-wasm'. The classes are listed in src/client/error_classes.rs: the codegen writes
// the lists below and checks the classes here and in js/index.d.ts against it.

/** Base class of every error the SDK throws. */
export class AhpError extends Error {
  /**
   * @param {string} message
   * @param {{ kind?: string, code?: number, cause?: unknown }} [options]
   */
  constructor(message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AhpError';
    /** Stable machine-readable category, e.g. 'invalid-input'. */
    this.kind = options.kind ?? 'internal';
    /** JSON-RPC / AHP error code when one applies. */
    this.code = options.code;
  }
}

/** A value passed to the SDK does not have the shape the protocol requires. */
export class InvalidInputError extends AhpError {
  /**
   * @param {string} message
   * @param {string} argument which argument was wrong ('state', 'action', ...)
   * @param {string} path the offending field, e.g. 'activeTurn.responseParts[0].kind' ('' = the value itself)
   */
  constructor(message, argument, path) {
    super(message, { kind: 'invalid-input', code: -32602 });
    this.name = 'InvalidInputError';
    this.argument = argument;
    this.path = path;
  }
}

/** The server answered a request with a JSON-RPC error. */
export class RpcError extends AhpError {
  /**
   * @param {string} message
   * @param {{ code: number, data?: unknown, method?: string }} options
   */
  constructor(message, options) {
    super(message, { kind: 'rpc', code: options.code });
    this.name = 'RpcError';
    this.data = options.data;
    this.method = options.method ?? '';
  }
}

/** No response within the request timeout. */
export class RpcTimeoutError extends AhpError {
  /** @param {string} message @param {{ method: string, timeoutMs?: number }} options */
  constructor(message, options) {
    super(message, { kind: 'timeout' });
    this.name = 'RpcTimeoutError';
    this.method = options.method;
    /** The timeout the request exceeded (`requestTimeoutMs`), in milliseconds. */
    this.timeoutMs = options.timeoutMs;
  }
}

/**
 * The transport failed (`transportKind`: 'connect' | 'connectionLost' | 'send' | 'receive').
 * A failed connection of the WebSocket transport has a `reason` ('unauthorized',
 * 'forbidden-origin', 'not-found', 'unavailable', 'unreachable', 'handshake' or 'unknown') and,
 * when the host answered, its HTTP `status`.
 */
export class TransportError extends AhpError {
  /**
   * @param {string} message
   * @param {{ transportKind: string, reason?: string, status?: number, cause?: unknown }} options
   */
  constructor(message, options) {
    super(message, { kind: 'transport', cause: options.cause });
    this.name = 'TransportError';
    this.transportKind = options.transportKind;
    if (options.reason !== undefined) this.reason = options.reason;
    if (options.status !== undefined) this.status = options.status;
  }
}

/** The client was closed. */
export class ClientClosedError extends AhpError {
  /** @param {string} [message] */
  constructor(message = 'the client is closed') {
    super(message, { kind: 'closed' });
    this.name = 'ClientClosedError';
  }
}

/** The server speaks none of the offered protocol versions (-32005). */
export class UnsupportedProtocolVersionError extends AhpError {
  /** @param {string} message @param {{ offered: string[], supported?: string[] }} options */
  constructor(message, options) {
    super(message, { kind: 'unsupportedProtocolVersion', code: -32005 });
    this.name = 'UnsupportedProtocolVersionError';
    this.offered = options.offered;
    this.supported = options.supported;
  }
}

/** `dispatch` on a channel the client is not subscribed to. */
export class NotSubscribedError extends AhpError {
  /** @param {string} message @param {{ channel: string }} options */
  constructor(message, options) {
    super(message, { kind: 'notSubscribed' });
    this.name = 'NotSubscribedError';
    this.channel = options.channel;
  }
}

/** The server's response could not be understood. */
export class InvalidResponseError extends AhpError {
  /** @param {string} message @param {{ method: string }} options */
  constructor(message, options) {
    super(message, { kind: 'invalidResponse' });
    this.name = 'InvalidResponseError';
    this.method = options.method;
  }
}

/**
 * An action or a command of a protocol version the connection did not negotiate (a 0.3.0
 * action on a 1.0 connection, a 1.0-only command on a 0.3.0 one): refused, nothing was sent.
 */
export class WrongProtocolVersionError extends AhpError {
  /** @param {string} message @param {{ negotiated: string, version: string, attempted: string }} options */
  constructor(message, options) {
    super(message, { kind: 'wrongProtocolVersion' });
    this.name = 'WrongProtocolVersionError';
    /** The version the host chose in `initialize`. */
    this.negotiated = options.negotiated;
    /** The version of what was attempted. */
    this.version = options.version;
    /** What was attempted ("the action `session/turnStarted` on `ahp-chat:/1`"). */
    this.attempted = options.attempted;
  }
}

/** An MCP server customization has no `mcp://` channel now (not ready, or none is served). */
export class ChannelUnavailableError extends AhpError {
  /** @param {string} message @param {{ customizationId: string, serverState?: string }} options */
  constructor(message, options) {
    super(message, { kind: 'channelUnavailable' });
    this.name = 'ChannelUnavailableError';
    this.customizationId = options.customizationId;
    /** The server's runtime state kind (`starting`, `error`, ...), if the customization exists. */
    this.serverState = options.serverState;
  }
}

// <generated: error classes> from src/client/error_classes.rs: cargo run -p xtask -- codegen
const CLIENT_ERRORS = {
  rpc: RpcError,
  timeout: RpcTimeoutError,
  transport: TransportError,
  closed: ClientClosedError,
  unsupportedProtocolVersion: UnsupportedProtocolVersionError,
  notSubscribed: NotSubscribedError,
  invalidResponse: InvalidResponseError,
  wrongProtocolVersion: WrongProtocolVersionError,
};

export function errorClasses() {
  return {
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
  };
}
// </generated: error classes>

/** Builds the error class of `kind` (src/wasm/client/errors.rs). */
export function clientError(kind, message, options) {
  const Class = CLIENT_ERRORS[kind];
  return Class === undefined ? new AhpError(message, { kind }) : new Class(message, options);
}
