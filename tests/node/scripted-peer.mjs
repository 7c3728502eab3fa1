// An in-memory AHP server for client tests, plugged in through ConnectOptions.transport.
// It answers initialize/subscribe/ping itself (overridable per method), records every frame
// the client sent, and lets a test push frames (responses, envelopes, requests, garbage).
// Frames reach the client asynchronously (a microtask later), as over a network.

export const SESSION = 'ahp-session:/s1';

export function completedTurn(i) {
  return {
    id: `t${i}`,
    message: { text: `Question ${i}`, origin: { kind: 'user' } },
    responseParts: [{ kind: 'markdown', id: `md${i}`, content: `Answer ${i}` }],
    state: 'complete',
  };
}

export function sessionState(title = 'Start') {
  return {
    summary: { resource: SESSION, provider: 'test', title, status: 1, createdAt: 1, modifiedAt: 2 },
    lifecycle: 'ready',
    turns: [completedTurn(1), completedTurn(2)],
    activeTurn: {
      id: 't3',
      message: { text: 'Question 3', origin: { kind: 'user' } },
      responseParts: [
        { kind: 'markdown', id: 'p1', content: '' },
        { kind: 'markdown', id: 'p2', content: 'fixed' },
      ],
    },
  };
}

export const rootState = () => ({ agents: [] });

/** AHP 1.0: a chat (`resource`) in a turn that streams into one markdown part. */
export function chatStateV1(resource = 'ahp-chat:/c1') {
  return {
    resource,
    title: 'Chat',
    status: 1,
    modifiedAt: '1970-01-01T00:00:01.000Z',
    turns: [],
    activeTurn: {
      id: 'turn-1',
      startedAt: '1970-01-01T00:00:01.000Z',
      message: { text: 'Hello', origin: { kind: 'user' } },
      responseParts: [{ kind: 'markdown', id: 'md-1', content: '' }],
    },
  };
}

export class ScriptedPeer {
  constructor({ states = {}, handlers = {}, version = '0.3.0', sync = false } = {}) {
    this.states = { 'ahp-root://': rootState(), [SESSION]: sessionState(), ...states };
    this.handlers = handlers; // method -> (params, msg) => result | { error } | undefined (no answer)
    this.version = version;
    this.sync = sync; // deliver frames synchronously (inside the client's send call)
    this.serverSeq = 10;
    this.received = []; // every message the client sent, parsed
    this.connections = 0;
    this.urls = [];
    this.callbacks = null;
    this.closedByClient = 0;
    this.factory = (url, callbacks) => {
      this.urls.push(url);
      this.connections += 1;
      this.callbacks = callbacks;
      const mine = callbacks;
      queueMicrotask(() => mine.open());
      return {
        send: (frame) => {
          if (this.callbacks === mine) this.receive(frame);
        },
        close: () => {
          this.closedByClient += 1;
        },
      };
    };
  }

  /** Messages of `method` the client sent. */
  sent(method) {
    return this.received.filter((m) => m.method === method);
  }

  /** Resolves with the next message of `method` not yet taken by `next` (waits for it). */
  next(method) {
    this.cursor ??= {};
    const index = this.cursor[method] ?? 0;
    this.cursor[method] = index + 1;
    return new Promise((resolve) => {
      const check = () => {
        const all = this.sent(method);
        if (all.length > index) resolve(all[index]);
        else setTimeout(check, 1);
      };
      check();
    });
  }

  deliver(text) {
    const cb = this.callbacks;
    if (this.sync) cb.message(text);
    else queueMicrotask(() => cb.message(text));
  }

  push(message) {
    this.deliver(typeof message === 'string' ? message : JSON.stringify({ jsonrpc: '2.0', ...message }));
  }

  /** Several frames in one transport batch (`callbacks.messages`). */
  pushBatch(messages) {
    const cb = this.callbacks;
    const frames = messages.map((m) => (typeof m === 'string' ? m : JSON.stringify({ jsonrpc: '2.0', ...m })));
    queueMicrotask(() => cb.messages(frames));
  }

  envelope(channel, action, extra = {}) {
    this.serverSeq += 1;
    return { method: 'action', params: { channel, action, serverSeq: this.serverSeq, ...extra } };
  }

  /** Pushes an action envelope (server-originated unless `extra.origin`). */
  act(channel, action, extra = {}) {
    this.push(this.envelope(channel, action, extra));
  }

  /** Drops the connection from the server side. */
  drop(reason = 'dropped by the test') {
    const cb = this.callbacks;
    this.callbacks = null;
    queueMicrotask(() => cb.close(reason));
  }

  receive(frame) {
    const msg = JSON.parse(frame);
    this.received.push(msg);
    if (msg.method === undefined || msg.id === undefined) return; // a notification or a response
    const custom = this.handlers[msg.method];
    let outcome = custom ? custom(msg.params, msg) : this.defaultAnswer(msg);
    if (outcome === undefined) return; // no answer
    if (outcome.error) this.push({ id: msg.id, error: outcome.error });
    else this.push({ id: msg.id, result: outcome.result ?? outcome });
  }

  defaultAnswer(msg) {
    const p = msg.params ?? {};
    switch (msg.method) {
      case 'initialize':
        if (!p.protocolVersions.includes(this.version)) {
          return { error: { code: -32005, message: 'unsupported', data: { supportedVersions: [this.version] } } };
        }
        return {
          result: {
            protocolVersion: this.version,
            serverSeq: this.serverSeq,
            snapshots: (p.initialSubscriptions ?? []).map((c) => this.snapshot(c)),
          },
        };
      case 'reconnect':
        return { result: { type: 'snapshot', snapshots: p.subscriptions.map((c) => this.snapshot(c)) } };
      case 'subscribe':
        return { result: { snapshot: this.snapshot(p.channel) } };
      case 'ping':
        return { result: {} };
      default:
        return { error: { code: -32601, message: `no ${msg.method}` } };
    }
  }

  snapshot(channel) {
    return { resource: channel, state: this.states[channel], fromSeq: this.serverSeq };
  }
}

/** Resolves after pending microtasks and a macrotask turn. */
export const settle = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));
