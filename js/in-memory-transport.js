// An in-memory connection for tests and for hosts in the same page or process: a client end
// (a `TransportFactory` for `ConnectOptions.transport`) and a server end that sends and
// receives text frames. Frames cross asynchronously (a microtask), as over a socket, and in
// order. Hand-written; scripts/build-pkg.sh copies it into pkg/.

/** The server end of an in-memory pair. */
class InMemoryServerEnd {
  #connection = null; // { callbacks, open } of the client's current connection attempt
  #messageListeners = new Set();
  #connectListeners = new Set();
  #closeListeners = new Set();

  /** Whether a client connection is open. */
  get connected() {
    return this.#connection?.open === true;
  }

  /** Sends one text frame to the client (ignored when no connection is open). */
  send(frame) {
    if (typeof frame !== 'string') throw new TypeError('InMemoryTransport: a frame is a string');
    const connection = this.#connection;
    if (connection?.open) queueMicrotask(() => connection.open && connection.callbacks.message(frame));
  }

  /** Closes the client's connection (it reconnects per its policy, through the factory again). */
  close(reason = 'closed by the server end') {
    const connection = this.#connection;
    if (!connection?.open) return;
    connection.open = false;
    this.#connection = null;
    queueMicrotask(() => connection.callbacks.close(reason));
  }

  /** Listens to the client's frames; returns the remover. */
  onMessage(listener) {
    this.#messageListeners.add(listener);
    return () => this.#messageListeners.delete(listener);
  }

  /** Listens to new connections (`url`: what the client connected to); returns the remover. */
  onConnect(listener) {
    this.#connectListeners.add(listener);
    return () => this.#connectListeners.delete(listener);
  }

  /** Listens to the client closing its connection; returns the remover. */
  onClose(listener) {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** The client end's `TransportFactory`. */
  connectFactory() {
    return (url, callbacks) => {
      const previous = this.#connection;
      if (previous) previous.open = false; // one connection at a time: the newest wins
      const connection = { callbacks, open: true };
      this.#connection = connection;
      queueMicrotask(() => {
        if (!connection.open) return;
        for (const listener of [...this.#connectListeners]) listener(url);
        callbacks.open();
      });
      return {
        send: (frame) => {
          if (!connection.open) throw new Error('InMemoryTransport: the connection is closed');
          queueMicrotask(() => {
            for (const listener of [...this.#messageListeners]) listener(frame);
          });
        },
        close: () => {
          if (!connection.open) return;
          connection.open = false;
          if (this.#connection === connection) this.#connection = null;
          queueMicrotask(() => {
            for (const listener of [...this.#closeListeners]) listener();
          });
        },
      };
    };
  }
}

/** In-memory connections: `InMemoryTransport.pair()`. */
export class InMemoryTransport {
  constructor() {
    throw new TypeError('InMemoryTransport: use InMemoryTransport.pair()');
  }

  /**
   * A connected pair: `client` goes into `ConnectOptions.transport`, `server` is the other end
   * (`send`, `onMessage`, `onConnect`, `onClose`, `close`).
   */
  static pair() {
    const server = new InMemoryServerEnd();
    return { client: server.connectFactory(), server };
  }
}
