// McpChannel: MCP JSON-RPC over the `mcp://` channel of a session's MCP server customization
// (AHP 0.3.0 spec/mcp-channel.md). The channel URI lives in the session state
// (`McpServerCustomization.channel`, present only while the server is ready) and may change, so
// every request reads it again from the client's live mirror of the session. Requests ride on
// `AhpClient.request` (the AHP connection's ids, timeouts and typed errors); the host's
// forwarded notifications arrive as client `otherNotification` events tagged with the channel.
// Hand-written; scripts/build-pkg.sh copies it into pkg/.
import {
  AhpError,
  ChannelUnavailableError,
  ClientClosedError,
  InvalidInputError,
  RpcTimeoutError,
} from './error-classes.js';

/**
 * Finds the customization `id` in a session state: top level or a container's `children`.
 * @param {any} state @param {string} id
 */
export function findCustomization(state, id) {
  for (const c of state?.customizations ?? []) {
    if (c?.id === id) return c;
    for (const child of c?.children ?? []) if (child?.id === id) return child;
  }
  return undefined;
}

/** The error for a caller's `AbortSignal` firing (`kind` 'aborted', the signal's reason as `cause`). */
function aborted(signal, method) {
  const e = new AhpError(`\`${method}\` was aborted`, { kind: 'aborted', cause: signal.reason });
  e.name = 'AbortError';
  return e;
}

export class McpChannel {
  /**
   * Opens the `mcp://` channel of the MCP server customization `customizationId` of `session`,
   * subscribing to the session when the client is not subscribed yet.
   * @param {import('./index.d.ts').AhpClient} client
   * @param {string} session the session URI
   * @param {string} customizationId e.g. `mcp/basic`
   * @param {{ timeoutMs?: number }} [options]
   */
  static async open(client, session, customizationId, options = {}) {
    if (typeof session !== 'string' || session === '') {
      throw new InvalidInputError('`session` must be a session URI', 'session', '');
    }
    if (typeof customizationId !== 'string' || customizationId === '') {
      throw new InvalidInputError('`customizationId` must be a customization id', 'customizationId', '');
    }
    const subscription = client.subscription(session) ?? (await client.subscribe(session));
    return new McpChannel(client, subscription, customizationId, options);
  }

  /** @private Use `McpChannel.open`. */
  constructor(client, subscription, customizationId, options) {
    this.client = client;
    this.session = subscription.uri;
    this.customizationId = customizationId;
    this.timeoutMs = options.timeoutMs;
    this._subscription = subscription;
    this._listeners = new Set();
    this._closed = false;
    this._removeEvent = client.onEvent((event) => {
      if (event.type !== 'otherNotification' || this._listeners.size === 0) return;
      const channel = event.params?.channel;
      if (typeof channel !== 'string' || channel !== this.uri) return;
      const { channel: _, ...params } = event.params;
      for (const listener of [...this._listeners]) {
        try {
          listener(event.method, params);
        } catch (e) {
          queueMicrotask(() => { throw e; });
        }
      }
    });
  }

  /** The customization as the session state has it now (`undefined` if it is gone). */
  get customization() {
    return findCustomization(this._subscription.state, this.customizationId);
  }

  /** The channel URI now, or `undefined` while the server is not ready (or not an App host). */
  get uri() {
    const c = this.customization;
    return typeof c?.channel === 'string' ? c.channel : undefined;
  }

  /** What the host serves on the channel (`mcpApp.capabilities`), if it advertises any. */
  get capabilities() {
    return this.customization?.mcpApp?.capabilities;
  }

  /**
   * Resolves with the channel URI once the server is ready and the channel present; rejects
   * with `ChannelUnavailableError` if it ends in `error`/`stopped`/`authRequired` first, or with
   * `RpcTimeoutError` after `timeoutMs` (default: the channel's, else 30 000).
   * @param {{ timeoutMs?: number, signal?: AbortSignal }} [options]
   */
  ready(options = {}) {
    if (this.uri !== undefined) return Promise.resolve(this.uri);
    return new Promise((resolve, reject) => {
      let timer;
      const done = (f, v) => {
        remove();
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        f(v);
      };
      const check = () => {
        if (this._closed) return done(reject, new ClientClosedError('the MCP channel is closed'));
        if (this.uri !== undefined) return done(resolve, this.uri);
        const kind = this.customization?.state?.kind;
        if (kind === 'error' || kind === 'stopped' || kind === 'authRequired') {
          done(reject, this._unavailable('ready'));
        }
      };
      const onAbort = () => done(reject, aborted(options.signal, 'ready'));
      const remove = this._subscription.onChange(check);
      const ms = options.timeoutMs ?? this.timeoutMs ?? 30000;
      timer = setTimeout(
        () => done(reject, new RpcTimeoutError(`the MCP channel of \`${this.customizationId}\` was not ready within ${ms} ms`, { method: 'ready' })),
        ms,
      );
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Sends an MCP request on the channel and resolves with its result. Rejects with
   * `ChannelUnavailableError` while the server has no channel, `RpcError` for the host's or the
   * server's JSON-RPC error (`-32601`: not served on this channel), `RpcTimeoutError`.
   * @param {string} method e.g. `tools/call`
   * @param {object} [params]
   * @param {{ timeoutMs?: number, signal?: AbortSignal }} [options]
   */
  async request(method, params = {}, options = {}) {
    if (typeof method !== 'string' || method === '') {
      throw new InvalidInputError('`method` must be an MCP method name', 'method', '');
    }
    if (params === null || typeof params !== 'object' || Array.isArray(params)) {
      throw new InvalidInputError('`params` must be an object', 'params', '');
    }
    if (this._closed) throw new ClientClosedError('the MCP channel is closed');
    const channel = this.uri;
    if (channel === undefined) throw this._unavailable(method);
    const sent = this.client.request(method, { ...params, channel });
    const ms = options.timeoutMs ?? this.timeoutMs;
    if (ms === undefined && !options.signal) return sent;
    if (options.signal?.aborted) throw aborted(options.signal, method);
    let timer;
    let onAbort;
    const stop = new Promise((_, reject) => {
      if (ms !== undefined) {
        timer = setTimeout(() => reject(new RpcTimeoutError(`no answer to \`${method}\` within ${ms} ms`, { method })), ms);
      }
      onAbort = () => reject(aborted(options.signal, method));
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([sent, stop]);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Listens to the MCP notifications the host forwards on this channel (e.g.
   * `notifications/tools/list_changed`), with `params` minus `channel`. Returns the remover.
   * @param {(method: string, params: object) => void} listener
   */
  onNotification(listener) {
    if (typeof listener !== 'function') {
      throw new InvalidInputError('the listener must be a function', 'listener', '');
    }
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  /** Stops listening; later requests reject with `ClientClosedError`. The client stays open. */
  close() {
    if (this._closed) return;
    this._closed = true;
    this._listeners.clear();
    this._removeEvent();
  }

  _unavailable(method) {
    const c = this.customization;
    const state = c?.state?.kind;
    const why =
      c === undefined
        ? `the session has no customization \`${this.customizationId}\``
        : c.mcpApp === undefined && state === 'ready'
          ? `\`${this.customizationId}\` has no channel (the host serves none for it, or the client did not declare capabilities.mcpApps)`
          : `\`${this.customizationId}\` has no channel while its state is \`${state ?? 'unknown'}\``;
    return new ChannelUnavailableError(`cannot send \`${method}\`: ${why}`, {
      customizationId: this.customizationId,
      serverState: state,
    });
  }
}

