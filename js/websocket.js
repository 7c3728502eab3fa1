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
