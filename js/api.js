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

import setWasmState, { requireReady, whenLoaded } from './module-state.js';

/** For the entries only (not exported by `export *`): the module is loading, ready or failed. */
export default setWasmState;

export * from './reducers.js';

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
    requireReady('new MultiHostClient()');
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
