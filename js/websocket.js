// Connecting without the platform's global WebSocket: a transport over any WHATWG-style
// WebSocket constructor (the `ws` package's in Node 20, where the global one needs
// `--experimental-websocket`), and the checks `AhpClient.connect` runs on its options before the
// module sees them (unknown keys, a missing WebSocket), so that a mistake reads as what to do.
//
// Hand-written; scripts/build-pkg.sh copies it into pkg/.

/** Every key `ConnectOptions` has (js/index.d.ts): anything else is a misspelling. */
const OPTION_KEYS = [
  'clientId',
  'clientSecret',
  'token',
  'initialSubscriptions',
  'protocolVersions',
  'capabilities',
  'locale',
  'requestTimeoutMs',
  'keepaliveMs',
  'reconnect',
  'pendingPolicy',
  'transport',
  'WebSocket',
];

/**
 * A `TransportFactory` over a WebSocket constructor: `new WebSocketImpl(url)` with the
 * `onopen`/`onmessage`/`onerror`/`onclose` handlers of the WHATWG API (browsers, Node >= 22,
 * Deno, Bun, and the `ws` package).
 * @param {new (url: string) => any} WebSocketImpl
 * @param {{ InvalidInputError: any, TransportError: any }} errors the package's classes
 */
export function webSocketTransport(WebSocketImpl, errors) {
  if (typeof WebSocketImpl !== 'function') {
    throw new errors.InvalidInputError(
      'webSocketTransport: expected a WebSocket constructor (e.g. `WebSocket` from the `ws` package)',
      'WebSocket',
      '',
    );
  }
  return (url, callbacks) => {
    const socket = new WebSocketImpl(url);
    let done = false;
    const finish = (reason) => {
      if (done) return;
      done = true;
      callbacks.close(reason);
    };
    socket.onopen = () => {
      if (!done) callbacks.open();
    };
    socket.onmessage = (event) => {
      if (done) return;
      if (typeof event.data === 'string') callbacks.message(event.data);
      else {
        // AHP frames are text: a binary frame is a protocol error from this peer.
        finish('the server sent a binary frame (AHP frames are text)');
        socket.close(1003, 'binary frames are not supported');
      }
    };
    // `error` precedes `close` and says nothing more (browsers hide the cause): report on close.
    socket.onerror = () => {};
    socket.onclose = (event) => {
      const why = event.reason ? `: ${event.reason}` : '';
      finish(`WebSocket connection closed (code ${event.code}${why})`);
    };
    return {
      send(frame) {
        socket.send(frame);
      },
      close() {
        done = true;
        socket.close();
      },
    };
  };
}

/** The closest known option key to `key` (edit distance at most 2), for the error message. */
function closestKey(key) {
  const distance = (a, b) => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let diagonal = row[0];
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const above = row[j];
        const same = a[i - 1].toLowerCase() === b[j - 1].toLowerCase();
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length];
  };
  let best;
  let bestDistance = 3;
  for (const known of OPTION_KEYS) {
    const d = distance(key, known);
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Checks `options` for `AhpClient.connect` and turns a `WebSocket` option into a `transport`.
 * Returns the options for the module, or throws the error `connect` rejects with.
 */
export function connectOptions(options, errors) {
  if (options === undefined || options === null) return withDefaultWebSocket(options, errors);
  // Not an object: the module reports it (an `InvalidInputError` for `options`).
  if (typeof options !== 'object') return options;
  for (const key of Object.keys(options)) {
    if (OPTION_KEYS.includes(key)) continue;
    const guess = closestKey(key);
    throw new errors.InvalidInputError(
      `unknown connect option \`${key}\`${guess ? ` (did you mean \`${guess}\`?)` : ''}; the options are ${OPTION_KEYS.join(', ')}`,
      'options',
      key,
    );
  }
  if (options.WebSocket !== undefined) {
    if (options.transport !== undefined) {
      throw new errors.InvalidInputError(
        'give either `transport` or `WebSocket`, not both (`WebSocket` makes the transport)',
        'options',
        'WebSocket',
      );
    }
    const { WebSocket: WebSocketImpl, ...rest } = options;
    return { ...rest, transport: webSocketTransport(WebSocketImpl, errors) };
  }
  return withDefaultWebSocket(options, errors);
}

/** Without a transport the module uses the global WebSocket: say what to do if there is none. */
function withDefaultWebSocket(options, errors) {
  if (options?.transport !== undefined || typeof globalThis.WebSocket === 'function') return options;
  const node = typeof process === 'object' && process.versions?.node;
  const hint = node
    ? `Node ${process.versions.node} has no global WebSocket: pass one, e.g. \`import WebSocket from 'ws'\` and ` +
      "`AhpClient.connect(url, { WebSocket })`, or run Node >= 22 (or Node 20 with `--experimental-websocket`)"
    : 'pass a WebSocket constructor as the `WebSocket` option, or a custom `transport`';
  throw new errors.TransportError(`no WebSocket implementation in this environment: ${hint}`, {
    transportKind: 'connect',
  });
}

/** Why a WebSocket could not open, by the status of a plain GET of the same URL (see below). */
const REASON_OF_STATUS = {
  401: ['unauthorized', 'the host refused the access token (HTTP 401): check the `token` option'],
  403: ['forbidden-origin', "the host refused this page's Origin (HTTP 403): start ahp-host with --allow-origin for it"],
  404: ['not-found', 'nothing answers at this path (HTTP 404): the AHP endpoint of ahp-host is /ahp'],
  503: ['unavailable', 'the host is at its connection limit (HTTP 503): try again later'],
  426: ['handshake', 'the host accepts the token and Origin, but the WebSocket handshake failed'],
};

/** `url` without its `tkn` parameter (for messages: a token is never shown). */
function redacted(url) {
  try {
    const u = new URL(url);
    if (u.searchParams.has('tkn')) u.searchParams.set('tkn', '…');
    return u.href;
  } catch {
    return String(url).replace(/([?&]tkn=)[^&]*/g, '$1…');
  }
}

/**
 * After a failed WebSocket connection: asks `url` over plain HTTP why (browsers do not tell why
 * an upgrade failed; ahp-host answers a GET of its endpoint with the reason as JSON, readable
 * cross-origin). Returns `{ reason, status?, detail }`; never throws.
 */
export async function explainConnectFailure(url, token) {
  let probe;
  try {
    probe = new URL(url);
    probe.protocol = probe.protocol === 'wss:' ? 'https:' : 'http:';
    if (token !== undefined && !probe.searchParams.has('tkn')) probe.searchParams.set('tkn', token);
  } catch {
    return { reason: 'unknown', detail: 'the URL is not valid' };
  }
  if (typeof globalThis.fetch !== 'function') return { reason: 'unknown', detail: 'no fetch() here to ask why' };
  let response;
  try {
    response = await fetch(probe, { signal: AbortSignal.timeout(5000), cache: 'no-store' });
  } catch {
    // A page may not read a foreign server's answer (CORS): an opaque answer still proves the
    // server is there.
    try {
      await fetch(probe, { mode: 'no-cors', signal: AbortSignal.timeout(5000), cache: 'no-store' });
      return { reason: 'unknown', detail: 'a server answers at this address, but not as ahp-host does' };
    } catch {
      return { reason: 'unreachable', detail: 'nothing answers at this address (is the host running?)' };
    }
  }
  const known = REASON_OF_STATUS[response.status];
  if (known) return { reason: known[0], status: response.status, detail: known[1] };
  return { reason: 'unknown', status: response.status, detail: `the server answered HTTP ${response.status}` };
}

/**
 * The error `connect` rejects with: a connection failure of the WebSocket transport becomes a
 * `TransportError` with a `reason` (see `explainConnectFailure`); anything else is kept.
 */
export async function connectError(error, url, options, errors) {
  const usedWebSocket = options?.transport === undefined; // the default, or the `WebSocket` option
  if (!(error instanceof errors.TransportError) || error.transportKind !== 'connect' || !usedWebSocket) return error;
  const { reason, status, detail } = await explainConnectFailure(url, options?.token);
  return new errors.TransportError(`cannot connect to ${redacted(url)}: ${detail}`, {
    transportKind: 'connect',
    reason,
    status,
    cause: error,
  });
}

/** Failures no retry can fix: reconnecting stops on them. */
const PERMANENT = new Set(['unauthorized', 'forbidden-origin', 'not-found']);

/**
 * While a client of the WebSocket transport reconnects, asks (once per failed attempt, one
 * question at a time) why the attempt failed; when retrying cannot help (a revoked token, a
 * refused Origin, a wrong path), the client stops: `{ type: 'reconnectAborted', error }` with a
 * `TransportError` whose `reason` says why, then the client closes.
 */
export function watchReconnects(client, url, options, errors) {
  if (options?.transport !== undefined) return client; // a custom transport explains itself
  let asking = false;
  client.onEvent(async (event) => {
    if (event.type !== 'reconnectFailed' || asking) return;
    asking = true;
    try {
      const { reason, status, detail } = await explainConnectFailure(url, options?.token);
      if (PERMANENT.has(reason) && client.connectionState === 'reconnecting') {
        const error = new errors.TransportError(`stopped reconnecting to ${redacted(url)}: ${detail}`, {
          transportKind: 'connect',
          reason,
          status,
          cause: event.error,
        });
        client.__abortReconnect(error);
      }
    } finally {
      asking = false;
    }
  });
  return client;
}
