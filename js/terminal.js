// A terminal channel as an object (AHP 0.3.0 and 1.0 spec/terminal-channel.md,
// guide/terminals.md): typing (`terminal/input`), resizing, claiming, the output as a stream of
// new data, the commands shell integration reports, and the exit. The versions differ in two
// places only: the exit (0.3.0 `exitCode`, 1.0 `lifecycle: { status: 'exited', exitCode? }`) and
// a session's claim (1.0 names the chat too).
//
// Everything goes through the public client API (a subscription to the terminal and its
// dispatch): the output is read from the subscription's state, which the SDK's terminal
// reducer keeps (the host trims the scrollback), so `onData` hands out what was appended since
// the last change, or the whole text again (`reset: true`) after a clear or when trimming lost
// the place. Hand-written; scripts/build-pkg.sh copies it into pkg/.
import { AhpError, InvalidInputError } from './error-classes.js';

/** What one `terminal/input` may carry (the host refuses more than 64 KiB of UTF-8). */
const CHUNK = 16 * 1024; // UTF-16 units: at most 48 KiB of UTF-8
/** The most one `write()` takes (split into several inputs). */
export const MAX_WRITE = 1024 * 1024;
const MAX_DIMENSION = 1000;

/** Whether the shell exited, and its code (in 1.0 absent when the host does not know it). */
const hasExited = (s) => s?.lifecycle?.status === 'exited' || s?.exitCode !== undefined;
const exitCodeOf = (s) => s?.lifecycle?.exitCode ?? s?.exitCode;

const partText = (p) => (p?.type === 'command' ? p.output : p?.value) ?? '';
const fullText = (content) => (content ?? []).map(partText).join('');

function invalid(message, argument) {
  return new InvalidInputError(message, argument, '');
}

function dimension(value, name) {
  if (!Number.isInteger(value) || value < 1 || value > MAX_DIMENSION) {
    throw invalid(`\`${name}\` must be a whole number from 1 to ${MAX_DIMENSION}`, name);
  }
  return value;
}

/** Splits `data` into inputs the host takes, never inside a surrogate pair. */
function chunks(data) {
  const out = [];
  let i = 0;
  while (i < data.length) {
    let end = Math.min(i + CHUNK, data.length);
    const last = data.charCodeAt(end - 1);
    if (end < data.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    out.push(data.slice(i, end));
    i = end;
  }
  return out;
}

const sameClaim = (a, b) =>
  a?.kind === b?.kind && a?.clientId === b?.clientId && a?.session === b?.session && a?.chat === b?.chat && a?.turnId === b?.turnId && a?.toolCallId === b?.toolCallId;

/** One terminal, from `AhpClient.terminal(uri)` or `AhpClient.openTerminal(params)`. */
export class TerminalHandle {
  /** @private */
  constructor(client, subscription, owned) {
    this.client = client;
    this.uri = subscription.uri;
    this.subscription = subscription;
    this._owned = owned; // we subscribed: `close()` unsubscribes
    this._data = new Set();
    this._commands = new Set();
    this._exit = new Set();
    this._closed = false;
    this._seen(subscription.state);
    this._exited = new Promise((resolve) => {
      if (hasExited(subscription.state)) resolve(this.exitCode);
      else this._exit.add(resolve);
    });
    this._off = subscription.onChange((state) => this._changed(state));
  }

  /** The terminal's state (`TerminalState`, frozen). */
  get state() {
    return this.subscription.state;
  }
  get title() {
    return this.state?.title ?? '';
  }
  /** Who holds the terminal (`state.claim`; `claim()` changes it). */
  get holder() {
    return this.state?.claim;
  }
  get cols() {
    return this.state?.cols;
  }
  get rows() {
    return this.state?.rows;
  }
  get cwd() {
    return this.state?.cwd;
  }
  /** The shell's exit code once it exited (-1: killed by a signal). */
  get exitCode() {
    return exitCodeOf(this.state);
  }
  /** Whether shell integration reports commands (`supportsCommandDetection`). */
  get commandDetection() {
    return this.state?.supportsCommandDetection === true;
  }
  /** The command parts shell integration reported (oldest first; trimmed with the scrollback). */
  get commands() {
    return (this.state?.content ?? []).filter((p) => p.type === 'command');
  }
  /** The whole output the state keeps, escape sequences included. */
  get text() {
    return fullText(this.state?.content);
  }
  /** Resolves with the exit code once the shell exited. */
  get exited() {
    return this._exited;
  }
  /** Whether this client may type, resize and hand the terminal on (its claim). */
  get isClaimant() {
    const claim = this.holder;
    return claim?.kind === 'client' && claim.clientId === this.client.clientId;
  }

  /**
   * Types `data` into the terminal (`terminal/input`; `\r` is Enter). Long input is split
   * (at most 1 MiB in all). Only the claimant's input is taken: others get a `rejected` event.
   * Returns the client sequence numbers of the dispatched inputs.
   */
  write(data) {
    this._open();
    if (typeof data !== 'string') throw invalid('`data` must be a string', 'data');
    if (data.length > MAX_WRITE) throw invalid(`\`data\` is over ${MAX_WRITE} characters`, 'data');
    return chunks(data).map((part) => this.subscription.dispatch({ type: 'terminal/input', data: part }));
  }

  /** Resizes the terminal (`terminal/resized`), each 1..=1000: resolves once applied, rejects like `claim()`. */
  resize(cols, rows) {
    this._open();
    dimension(cols, 'cols');
    dimension(rows, 'rows');
    return this._settle({ type: 'terminal/resized', cols, rows }, (s) => s?.cols === cols && s?.rows === rows);
  }

  /**
   * Claims the terminal (`terminal/claimed`), for this client by default. Resolves once the
   * host took it; rejects with an `AhpError` (kind `'rejected'`, the host's reason) when only
   * another holder may hand it on.
   */
  claim(claim = { kind: 'client', clientId: this.client.clientId }) {
    this._open();
    if (!claim || typeof claim !== 'object') throw invalid('`claim` must be a TerminalClaim', 'claim');
    return this._settle({ type: 'terminal/claimed', claim }, (s) => sameClaim(s?.claim, claim));
  }

  /**
   * New output as it arrives: `listener(data, { reset })`; with `reset` the listener gets the
   * whole text again (a clear, or trimming lost the place: start over). Returns the remover.
   */
  onData(listener) {
    this._data.add(listener);
    return () => this._data.delete(listener);
  }

  /**
   * Commands as shell integration reports them: `{ type: 'executed' | 'finished', command }`
   * (a `TerminalCommandPart`; finished ones have `exitCode` and `durationMs`). Returns the remover.
   */
  onCommand(listener) {
    this._commands.add(listener);
    return () => this._commands.delete(listener);
  }

  /** Stops the listeners (and the subscription when `terminal()` made it). The terminal runs on. */
  close() {
    if (this._closed) return;
    this._closed = true;
    this._off();
    this._data.clear();
    this._commands.clear();
    if (this._owned && this.subscription.active) this.subscription.unsubscribe();
  }

  /** Kills the shell and removes the terminal (`disposeTerminal`), then `close()`. */
  async dispose() {
    await this.client.disposeTerminal({ channel: this.uri });
    this.close();
  }

  _open() {
    if (this._closed) throw new AhpError('this terminal handle was closed', { kind: 'closed' });
  }

  /** Dispatches `action`; resolves when `done(confirmedState)` holds, rejects on rejection. */
  _settle(action, done) {
    const seq = this.subscription.dispatch(action);
    return new Promise((resolve, reject) => {
      const off = this.subscription.onChange((_, info) => {
        const rejection = info.rejections.find((r) => r.clientSeq === seq);
        if (rejection) {
          off();
          reject(new AhpError(rejection.reason, { kind: 'rejected' }));
        } else if (info.pendingCount === 0 && done(this.subscription.confirmedState)) {
          off();
          resolve();
        }
      });
    });
  }

  /** Remembers what has been handed out. */
  _seen(state) {
    this._parts = state?.content ?? [];
    this._lastLen = partText(this._parts.at(-1)).length;
    this._commandState = new Map(this.commands.map((c) => [c.commandId, c.isComplete]));
  }

  _changed(state) {
    const prev = this._parts;
    const next = state?.content ?? [];
    if (next !== prev && this._data.size > 0) {
      const delta = appended(prev, this._lastLen, next);
      if (delta === undefined) this._emitData(fullText(next), true);
      else if (delta !== '') this._emitData(delta, false);
    }
    if (this._commands.size > 0) {
      for (const command of next) {
        if (command.type !== 'command') continue;
        const known = this._commandState.get(command.commandId);
        if (known === undefined) this._emitCommand({ type: 'executed', command });
        if (command.isComplete && known !== true) this._emitCommand({ type: 'finished', command });
      }
    }
    this._seen(state);
    if (hasExited(state) && this._exit.size > 0) {
      for (const resolve of this._exit) resolve(exitCodeOf(state));
      this._exit.clear();
    }
  }

  _emitData(data, reset) {
    for (const listener of [...this._data]) listener(data, { reset });
  }

  _emitCommand(event) {
    for (const listener of [...this._commands]) listener(event);
  }
}

/**
 * What was appended from `prev` to `next` (content parts): data only ever goes to the last part
 * or to new parts after it. Parts are compared by kind, command id and length, not identity (a
 * state rebuilt under pending own actions has new objects). `undefined` when that does not hold
 * (cleared, or trimmed from the front).
 */
function appended(prev, prevLastLen, next) {
  if (prev.length === 0) return fullText(next);
  if (next.length < prev.length) return undefined;
  const same = (a, b) => a?.type === b?.type && a?.commandId === b?.commandId;
  for (let i = 0; i < prev.length - 1; i++) {
    const [a, b] = [prev[i], next[i]];
    if (a !== b && !(same(a, b) && partText(a).length === partText(b).length)) return undefined;
  }
  const last = next[prev.length - 1];
  if (!same(last, prev[prev.length - 1])) return undefined;
  const lastText = partText(last);
  if (lastText.length < prevLastLen) return undefined;
  return lastText.slice(prevLastLen) + next.slice(prev.length).map(partText).join('');
}

/** `client.terminal(uri)`: the terminal at `uri`, subscribing to it when needed. */
export async function terminal(client, uri) {
  if (typeof uri !== 'string' || !uri) throw invalid('`uri` must be a terminal URI', 'uri');
  const existing = client.subscription(uri);
  const subscription = existing ?? (await client.subscribe(uri));
  return new TerminalHandle(client, subscription, !existing);
}

let counter = 0;

/**
 * `client.openTerminal(params)`: `createTerminal` with defaults (a fresh `ahp-terminal:/` URI,
 * claimed by this client), then `terminal(uri)`.
 */
export async function openTerminal(client, params = {}) {
  if (params === null || typeof params !== 'object') throw invalid('`params` must be an object', 'params');
  const random = globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${(counter += 1)}`;
  const full = { channel: `ahp-terminal:/${random}`, claim: { kind: 'client', clientId: client.clientId }, ...params };
  if (full.cols !== undefined) dimension(full.cols, 'cols');
  if (full.rows !== undefined) dimension(full.rows, 'rows');
  await client.createTerminal(full);
  return terminal(client, full.channel);
}
