// A changeset channel as an object (AHP 0.3.0 guide/changesets.md): its files with their edits
// and line counts, its status, the operations the host offers, and invoking one on the whole
// changeset or on one file. Everything goes through the public client API (a subscription to
// the changeset, `invokeChangesetOperation`); results arrive as the changeset's own actions.
// Hand-written; scripts/build-pkg.sh copies it into pkg/.
import { AhpError, InvalidInputError, RpcTimeoutError } from './error-classes.js';

function invalid(message, argument) {
  return new InvalidInputError(message, argument, '');
}

/** The subscribable URI of a session's changeset catalogue: its first entry without variables. */
export function staticChangesetUri(changesets) {
  const entry = (changesets ?? []).find((c) => typeof c?.uriTemplate === 'string' && !c.uriTemplate.includes('{'));
  return entry?.uriTemplate;
}

/** One changeset, from `AhpClient.changeset(uri)` or `AhpClient.sessionChangeset(session)`. */
export class ChangesetHandle {
  /** @private */
  constructor(client, subscription, owned) {
    this.client = client;
    this.uri = subscription.uri;
    this.subscription = subscription;
    this._owned = owned; // we subscribed: `close()` unsubscribes
    this._listeners = new Set();
    this._closed = false;
    this._off = subscription.onChange(() => {
      for (const listener of [...this._listeners]) {
        try {
          listener(this);
        } catch (e) {
          queueMicrotask(() => { throw e; });
        }
      }
    });
  }

  /** The changeset's state (`ChangesetState`, frozen). */
  get state() {
    return this.subscription.state;
  }
  /** `'computing'`, `'ready'` or `'error'` (then see `state.error`). */
  get status() {
    return this.state?.status;
  }
  /** The changed files (`ChangesetFile`: `id` is the file's URI, `edit` its before/after and line counts). */
  get files() {
    return this.state?.files ?? [];
  }
  /** The operations the host offers (`ChangesetOperation`: `id`, `label`, `scopes`, `status`, ...). */
  get operations() {
    return this.state?.operations ?? [];
  }
  /** The changed file `resource` (its URI), if it is in the changeset. */
  file(resource) {
    return this.files.find((f) => f.id === resource);
  }

  /**
   * Resolves once the changeset is `ready` (at once if it is); rejects with an `AhpError`
   * (kind `'changesetError'`, the host's message) if it ends in `error`, or an `RpcTimeoutError`
   * after `timeoutMs` (default 30 000).
   */
  ready({ timeoutMs = 30_000 } = {}) {
    return new Promise((resolve, reject) => {
      let timer;
      const check = () => {
        if (this.status === 'ready') return done(resolve);
        if (this.status === 'error') {
          const message = this.state?.error?.message ?? 'the changeset could not be computed';
          return done(reject, new AhpError(message, { kind: 'changesetError' }));
        }
        return undefined;
      };
      const off = this.subscription.onChange(check);
      function done(f, value) {
        off();
        clearTimeout(timer);
        f(value);
      }
      timer = setTimeout(() => done(reject, new RpcTimeoutError(`the changeset was not ready within ${timeoutMs} ms`, { method: 'ready' })), timeoutMs);
      check();
    });
  }

  /**
   * Invokes operation `operationId` (`invokeChangesetOperation`): on the whole changeset, or on
   * the file `resource` (a `'resource'` target). Throws `InvalidInputError` before sending when
   * the operation is not offered, does not take that scope, or `resource` is not in the
   * changeset; the host's refusals reject as `RpcError`.
   */
  invoke(operationId, resource) {
    this._open();
    const operation = this.operations.find((o) => o.id === operationId);
    if (!operation) {
      const offered = this.operations.map((o) => `\`${o.id}\``).join(', ') || 'none';
      return Promise.reject(invalid(`the changeset offers no operation \`${operationId}\` (offered: ${offered})`, 'operationId'));
    }
    const scope = resource === undefined ? 'changeset' : 'resource';
    if (!(operation.scopes ?? []).includes(scope)) {
      return Promise.reject(invalid(`operation \`${operationId}\` does not apply to a ${scope === 'changeset' ? 'whole changeset' : 'single file'}`, resource === undefined ? 'operationId' : 'resource'));
    }
    if (resource !== undefined && !this.file(resource)) {
      return Promise.reject(invalid(`\`${resource}\` is not in the changeset`, 'resource'));
    }
    const params = { channel: this.uri, operationId };
    if (resource !== undefined) params.target = { kind: 'resource', resource };
    return this.client.invokeChangesetOperation(params);
  }

  /** Listens to changes of the changeset (the handle is passed). Returns the remover. */
  onChange(listener) {
    this._open();
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  /** Stops the listeners (and the subscription `changeset()` made). */
  close() {
    if (this._closed) return;
    this._closed = true;
    this._off();
    this._listeners.clear();
    if (this._owned) this.subscription.unsubscribe();
  }

  /** @private */
  _open() {
    if (this._closed) throw new AhpError('this ChangesetHandle is closed', { kind: 'usage' });
  }
}

/** `client.changeset(uri)`: the changeset at `uri`, subscribing to it when needed. */
export async function changeset(client, uri) {
  if (typeof uri !== 'string' || !uri.startsWith('ahp-changeset:')) throw invalid('`uri` must be a changeset URI (`ahp-changeset:`)', 'uri');
  const existing = client.subscription(uri);
  const subscription = existing ?? (await client.subscribe(uri));
  return new ChangesetHandle(client, subscription, !existing);
}

/**
 * `client.sessionChangeset(session)`: the changeset of a session's catalogue (its first entry
 * that is a URI rather than a template), or `undefined` when the session offers none.
 */
export async function sessionChangeset(client, session) {
  if (typeof session !== 'string' || !session) throw invalid('`session` must be a session URI', 'session');
  const sub = client.subscription(session) ?? (await client.subscribe(session));
  const uri = staticChangesetUri(sub.state?.changesets);
  return uri === undefined ? undefined : changeset(client, uri);
}
