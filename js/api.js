// The package's public API, listed once for both entries (js/node.js, js/web.js). Each entry
// defines `init()` (its own way of instantiating the WebAssembly module), reports the module's
// state through this module's default export (`setWasmState`), and re-exports everything here
// with `export *` (which leaves the default export out).
//
// Loading contract: nothing here needs the WebAssembly module to be imported. The error classes
// (js/errors.js, a wasm-bindgen snippet: plain JavaScript, exported by ./error-classes.js) and
// the version constants come from ./generated.js, written by scripts/build-pkg.sh, so they work
// before `init()`. The async entry
// point, `AhpClient.connect`, loads the module itself (through the entry's `init()`, so
// concurrent calls share one load and a failed load rejects with kind 'wasmLoad' and is retried
// by the next call). The synchronous ones (the reducers, `new MultiHostClient()`) cannot wait:
// they throw an `AhpError` of kind 'notInitialized' until `init()` has resolved. Every other
// wasm object (a client, a subscription) can only come from those, so they need no check.
//
// The modules this one re-exports import nothing from it (they take the error classes from
// ./error-classes.js): no import circle (`cargo run -p xtask -- imports` checks).
//
// Hand-written; scripts/build-pkg.sh copies it into pkg/. Keep in sync with js/index.d.ts.
import * as wasm from './ahp_wasm.js';
import { AhpClient } from './ahp_wasm.js';
import { AhpError, InvalidInputError, TransportError } from './error-classes.js';
import { onSystemMessageTransform, releaseActiveClient, setActiveClient } from './active-client.js';
import { openTerminal, terminal } from './terminal.js';
import { changeset, sessionChangeset } from './changeset.js';
import { connectError, connectOptions, watchReconnects, webSocketTransport as makeWebSocketTransport } from './websocket.js';

export { AhpClient, Subscription } from './ahp_wasm.js';
export { PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './generated.js';
export * from './error-classes.js';
export * from './protocol.js';
export { InMemoryTransport } from './in-memory-transport.js';
export { McpChannel } from './mcp-channel.js';
export { ActiveClientHandle, buildClientPlugin } from './active-client.js';
export { TerminalHandle } from './terminal.js';
export { ChangesetHandle } from './changeset.js';

// ---------------------------------------------------------------------------------------------
// The WebAssembly module's state, as the entry reports it.
// ---------------------------------------------------------------------------------------------

/** 'idle' (no `init()` yet), 'loading', 'ready' or 'failed' (the last `init()` rejected). */
let wasmState = 'idle';
let wasmError;

/** The entry's `init()`, for async entry points; null where the entry loads on import (Node). */
let loadModule = null;

/** For the entries only (not exported by `export *`): the module is loading, ready or failed. */
export default function setWasmState(state, error) {
  wasmState = state;
  wasmError = error;
}

/** For the browser entry: how async entry points load the module when the app has not yet. */
setWasmState.loadWith = (load) => {
  loadModule = load;
};

/**
 * For async entry points: resolves once the module is ready, loading it through the entry's
 * `init()` if nobody has (the same promise as the app's own `init()` call, if one is running).
 */
function whenLoaded(what) {
  if (wasmState === 'ready') return Promise.resolve();
  if (loadModule === null) return Promise.reject(notInitialized(what));
  return loadModule();
}

/** The `AhpError` (kind 'notInitialized') of a call that needs the module before it is ready. */
function notInitialized(what) {
  let message;
  if (wasmState === 'loading') {
    message = `${what} called while the WebAssembly module is loading: wait for \`await init()\` first`;
  } else if (wasmState === 'failed') {
    const reason = wasmError?.cause?.message ?? wasmError?.message ?? String(wasmError);
    message = `${what} called, but loading the WebAssembly module failed (${reason}): call \`await init()\` again`;
  } else {
    message = `${what} called before init(): call \`await init()\` (import { init } from 'ahp-wasm') first; it loads the WebAssembly module`;
  }
  return new AhpError(`ahp-wasm: ${message}`, {
    kind: 'notInitialized',
    cause: wasmState === 'failed' ? wasmError : undefined,
  });
}

// The entry points into the module. Reducers: one comparison more per call.

export function rootReducer(state, action) {
  if (wasmState !== 'ready') throw notInitialized('rootReducer');
  return wasm.rootReducer(state, action);
}
// Streamed text (`session/delta`, most actions of a turn) skips the JSON round trip: its three
// strings go to the module as they are. Anything else, or a delta with more members, takes the
// general path (which checks and converts the whole action).
const MAX_DELTA_CHARS = 64 * 1024 * 1024; // src/wasm/convert.rs MAX_STRING_UNITS
function isPlainDelta(action) {
  try {
    return plainDeltaShape(action);
  } catch {
    return false; // a throwing getter: the general path reports it as an InvalidInputError
  }
}
function plainDeltaShape(action) {
  if (typeof action !== 'object' || action === null || action.type !== 'session/delta') return false;
  if (Object.getPrototypeOf(action) !== Object.prototype) return false;
  const { turnId, partId, content } = action;
  if (typeof turnId !== 'string' || typeof partId !== 'string' || typeof content !== 'string') return false;
  if (turnId.length + partId.length + content.length > MAX_DELTA_CHARS) return false;
  let keys = 0;
  for (const key in action) if (Object.hasOwn(action, key)) keys++;
  return keys === 4;
}

export function sessionReducer(state, action) {
  if (wasmState !== 'ready') throw notInitialized('sessionReducer');
  if (isPlainDelta(action)) return wasm.__sessionReducerDelta(state, action.turnId, action.partId, action.content);
  return wasm.sessionReducer(state, action);
}
export function terminalReducer(state, action) {
  if (wasmState !== 'ready') throw notInitialized('terminalReducer');
  return wasm.terminalReducer(state, action);
}
export function changesetReducer(state, action) {
  if (wasmState !== 'ready') throw notInitialized('changesetReducer');
  return wasm.changesetReducer(state, action);
}
export function resourceWatchReducer(state, action) {
  if (wasmState !== 'ready') throw notInitialized('resourceWatchReducer');
  return wasm.resourceWatchReducer(state, action);
}

const errors = { InvalidInputError, TransportError };

/** A `TransportFactory` over a WebSocket constructor (e.g. the `ws` package's, in Node 20). */
export function webSocketTransport(WebSocketImpl) {
  return makeWebSocketTransport(WebSocketImpl, errors);
}

/**
 * Runs a connection (`connect(options)`, the module's) with checked options; a failure of the
 * WebSocket transport (not of a custom one) is explained (`TransportError.reason`), and so are
 * failed reconnection attempts later (reconnecting stops on a permanent failure).
 */
async function connecting(url, options, connect) {
  const checked = connectOptions(options, errors);
  if (options?.transport === undefined) checkWebSocketUrl(url);
  let client;
  try {
    client = await connect(checked);
  } catch (error) {
    throw await connectError(error, url, options, errors);
  }
  return watchReconnects(client, url, options, errors);
}

/** The WebSocket transport takes ws:, wss: (and http:, https:, which WebSockets map to them). */
function checkWebSocketUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidInputError(`not a valid URL: ${JSON.stringify(String(url))} (expected e.g. ws://127.0.0.1:8787/ahp)`, 'url', '');
  }
  if (!['ws:', 'wss:', 'http:', 'https:'].includes(parsed.protocol)) {
    throw new InvalidInputError(
      `a WebSocket URL starts with ws:// or wss:// (http:// and https:// are taken as those), not ${parsed.protocol}//`,
      'url',
      '',
    );
  }
}

const wasmConnect = AhpClient.connect;
AhpClient.connect = function connect(url, options) {
  return whenLoaded('AhpClient.connect').then(() => connecting(url, options, (checked) => wasmConnect.call(this, url, checked)));
};

/** The bindings' class, with the check in its constructor. */
export class MultiHostClient extends wasm.MultiHostClient {
  #clientIds;

  /** `options.clientIds`: where each host's client id is kept across runs (`get`/`set` by host name). */
  constructor(options) {
    if (wasmState !== 'ready') throw notInitialized('new MultiHostClient()');
    const store = options?.clientIds;
    if (store !== undefined && (typeof store?.get !== 'function' || typeof store?.set !== 'function')) {
      throw new InvalidInputError('MultiHostClient: clientIds needs get(host) and set(host, id)', 'options', 'clientIds');
    }
    super();
    this.#clientIds = store;
  }

  async addHost(name, url, options) {
    const store = this.#clientIds;
    const stored = options?.clientId === undefined ? store?.get(name) : undefined;
    const withId = typeof stored === 'string' && stored !== '' ? { ...options, clientId: stored } : options;
    const client = await connecting(url, withId, (checked) => super.addHost(name, url, checked));
    store?.set(name, client.clientId);
    return client;
  }

  /** Every host's agents (from its root state), each with its host's name. */
  agents() {
    return this.hostNames().flatMap((host) => {
      const agents = this.host(host)?.subscription('ahp-root://')?.state?.agents ?? [];
      return agents.map((agent) => ({ host, agent }));
    });
  }

  /**
   * Every host's sessions (`listSessions` on each, at once), each with its host's name. A host
   * that fails is left out, and named in `failed` with its error.
   */
  async listSessions(params) {
    const hosts = this.hostNames();
    const results = await Promise.allSettled(hosts.map((host) => this.host(host).listSessions(params)));
    const sessions = [];
    const failed = [];
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') for (const session of result.value.items) sessions.push({ host: hosts[i], session });
      else failed.push({ host: hosts[i], error: result.reason });
    });
    return { sessions, failed };
  }
}

/** A `clientIds` store over `localStorage` (browsers): one JSON object under `key`. */
export function localStorageClientIds(key = 'ahp-wasm.clientIds') {
  const read = () => {
    try {
      return JSON.parse(globalThis.localStorage?.getItem(key) ?? '{}') ?? {};
    } catch {
      return {};
    }
  };
  return {
    get: (host) => read()[host],
    set: (host, id) => {
      try {
        globalThis.localStorage?.setItem(key, JSON.stringify({ ...read(), [host]: id }));
      } catch {
        // storage full or refused: the id is just not kept
      }
    },
  };
}

// `console.log(client)` in Node: what the object is, not its wasm pointer.
const nodeInspect = Symbol.for('nodejs.util.inspect.custom');
function describe(name, fields) {
  return function (depth, options, inspect) {
    const shown = fields(this);
    return inspect ? `${name} ${inspect(shown, options)}` : `${name} ${JSON.stringify(shown)}`;
  };
}
AhpClient.prototype[nodeInspect] = describe('AhpClient', (c) => ({
  url: c.url,
  clientId: c.clientId,
  connectionState: c.connectionState,
}));
wasm.Subscription.prototype[nodeInspect] = describe('Subscription', (s) => ({
  uri: s.uri,
  active: s.active,
  pendingCount: s.pendingCount,
}));

// `subscription.state` is read after every change: the render steps (js/render.js) store the
// current state on the object itself ('__ahpState', cleared when the rendering is dropped), so
// the getter calls into wasm only when there is none (the first read, an ended subscription).
const wasmStateGetter = Object.getOwnPropertyDescriptor(wasm.Subscription.prototype, 'state').get;
Object.defineProperty(wasm.Subscription.prototype, 'state', {
  configurable: true,
  get() {
    const current = this.__ahpState;
    return current !== undefined ? current : wasmStateGetter.call(this);
  },
});

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

// Terminals as objects (js/terminal.js), over the same public API.
AhpClient.prototype.terminal = function (uri) {
  return terminal(this, uri);
};
AhpClient.prototype.openTerminal = function (params) {
  return openTerminal(this, params);
};

// Changesets as objects (js/changeset.js), over the same public API.
AhpClient.prototype.changeset = function (uri) {
  return changeset(this, uri);
};
AhpClient.prototype.sessionChangeset = function (session) {
  return sessionChangeset(this, session);
};
