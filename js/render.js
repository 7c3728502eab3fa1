// Hand-written JavaScript for src/wasm/render.rs, the one render path of the SDK (subscriptions
// and the exported reducers): fine-grained updates of a frozen, structurally shared state. Each
// function returns a new frozen root that shares every object off the changed path with the old
// one (`===`), so UIs re-render only what changed. wasm-bindgen copies this file into the
// package as a snippet.

// Values this file freezes are plain JSON-like data built by the SDK (or unknown properties
// carried over from a caller's object): own enumerable keys only.
function freezeDeep(root) {
  if (typeof root !== 'object' || root === null || Object.isFrozen(root)) return root;
  const stack = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    Object.freeze(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const child = value[i];
        if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) stack.push(child);
      }
    } else {
      for (const key of Object.keys(value)) {
        const child = value[key];
        if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) stack.push(child);
      }
    }
  }
  return root;
}

/** `text` (JSON the SDK checked), parsed and deeply frozen. */
export function renderParseFrozen(text) {
  return freezeDeep(JSON.parse(text));
}

// Every render step also hands its result to `sink`: the `Subscription` object whose state it
// is, or `undefined` (the reducers). Its `state` getter (js/api.js) reads it there without a
// call into wasm. Rust clears it (`renderRetract`) when it drops the rendering.

/** The property of a `Subscription` object holding its current state (js/api.js reads it). */
const SINK_STATE = '__ahpState';

function publish(sink, state) {
  if (sink !== undefined) sink[SINK_STATE] = state;
  return state;
}

/** Makes `object` a sink: its state property is not enumerable (not in `JSON.stringify`). */
export function renderSinkInit(object) {
  Object.defineProperty(object, SINK_STATE, { value: undefined, writable: true, enumerable: false, configurable: true });
}

/** The sink's state is no longer current: its getter asks wasm again. */
export function renderRetract(sink) {
  sink[SINK_STATE] = undefined;
}

/**
 * Deep-freezes the properties `names` of a state object the SDK just built, then the object
 * itself. Properties not named are shared with an earlier (already frozen) state, or are
 * unknown properties carried over from the caller's object.
 */
export function renderFreezeFields(state, names, sink) {
  for (const name of names) freezeDeep(state[name]);
  return publish(sink, Object.freeze(state));
}

// Copies on the hot path: a streamed delta copies the state, the active turn and one part.
// Spreading a frozen object takes V8's slow path (about 55 ns in Node 20 for four members,
// against about 10 for an object literal: its fast clone refuses read-only properties). So
// the objects of the shapes generated below are copied by code that names their members, in
// schema order, when their own keys are exactly some of those members in that order (as the
// SDK renders them from Rust) with the required ones present: the copy then has the same keys
// in the same order as a spread would. Anything else (unknown members, another order) is
// spread. The last copy made of each shape is remembered with its members, so copying it in
// turn skips the key check (a stream copies the copy of the previous delta); this keeps that
// one object per shape reachable until the next copy, as the reducers' cache keeps their last
// result. Chromium 156's V8 spreads frozen objects as fast as it builds literals: there the
// copiers gain nothing measurable (README, "Benchmarks").

/** A shape: its members in schema order and the bits of the required ones. */
function shape(keys, required) {
  return { keys, required, made: null, madeMask: 0, mask: 0 };
}

/** The bits of `o`'s own keys among `shape.keys` (in order, required ones present), or -1. */
function membersOf(shape, o) {
  if (o === shape.made) return shape.madeMask;
  const own = Object.keys(o);
  const keys = shape.keys;
  let mask = 0;
  let at = 0;
  for (let i = 0; i < own.length; i++) {
    while (at < keys.length && keys[at] !== own[i]) at++;
    if (at === keys.length) return -1;
    mask |= 1 << at++;
  }
  return (mask & shape.required) === shape.required ? mask : -1;
}

// Each `copyX(o)` below returns an unfrozen copy of `o` (its members in `X.mask`), or null:
// then spread `o`. Finish a copy with `made(X, copy)`. One function per shape, so each call
// site calls one known function.

/** Freezes the copy `copyX` just returned and remembers it. */
function made(shape, copy) {
  shape.made = Object.freeze(copy);
  shape.madeMask = shape.mask;
  return copy;
}

// <generated: copiers> from the schema: cargo run -p xtask -- codegen
const SessionState = shape(['summary', 'lifecycle', 'creationError', 'serverTools', 'activeClient', 'turns', 'activeTurn', 'steeringMessage', 'queuedMessages', 'inputRequests', 'config', 'customizations', 'changesets', '_meta'], 0x23);
function copySessionState(o) {
  const m = membersOf(SessionState, o);
  if (m < 0) return null;
  const c = { summary: o.summary, lifecycle: o.lifecycle };
  if (m & 0x4) c.creationError = o.creationError;
  if (m & 0x8) c.serverTools = o.serverTools;
  if (m & 0x10) c.activeClient = o.activeClient;
  c.turns = o.turns;
  if (m & 0x40) c.activeTurn = o.activeTurn;
  if (m & 0x80) c.steeringMessage = o.steeringMessage;
  if (m & 0x100) c.queuedMessages = o.queuedMessages;
  if (m & 0x200) c.inputRequests = o.inputRequests;
  if (m & 0x400) c.config = o.config;
  if (m & 0x800) c.customizations = o.customizations;
  if (m & 0x1000) c.changesets = o.changesets;
  if (m & 0x2000) c._meta = o._meta;
  SessionState.mask = m;
  return c;
}
const ActiveTurn = shape(['id', 'message', 'responseParts', 'usage'], 0x7);
function copyActiveTurn(o) {
  const m = membersOf(ActiveTurn, o);
  if (m < 0) return null;
  const c = { id: o.id, message: o.message, responseParts: o.responseParts };
  if (m & 0x8) c.usage = o.usage;
  ActiveTurn.mask = m;
  return c;
}
const MarkdownResponsePart = shape(['kind', 'id', 'content'], 0x7);
function copyMarkdownResponsePart(o) {
  const m = membersOf(MarkdownResponsePart, o);
  if (m < 0) return null;
  const c = { kind: o.kind, id: o.id, content: o.content };
  MarkdownResponsePart.mask = m;
  return c;
}
const ReasoningResponsePart = MarkdownResponsePart;
const copyReasoningResponsePart = copyMarkdownResponsePart;
const ToolCallResponsePart = shape(['kind', 'toolCall'], 0x3);
function copyToolCallResponsePart(o) {
  const m = membersOf(ToolCallResponsePart, o);
  if (m < 0) return null;
  const c = { kind: o.kind, toolCall: o.toolCall };
  ToolCallResponsePart.mask = m;
  return c;
}
const ChatState = shape(['resource', 'title', 'status', 'activity', 'modifiedAt', 'changes', 'origin', 'movable', 'interactivity', 'workingDirectories', 'changesets', 'backgroundWork', 'canvases', 'turns', 'turnsNextCursor', 'activeTurn', 'steeringMessage', 'queuedMessages', 'draft', '_meta'], 0x2017);
function copyChatState(o) {
  const m = membersOf(ChatState, o);
  if (m < 0) return null;
  const c = { resource: o.resource, title: o.title, status: o.status };
  if (m & 0x8) c.activity = o.activity;
  c.modifiedAt = o.modifiedAt;
  if (m & 0x20) c.changes = o.changes;
  if (m & 0x40) c.origin = o.origin;
  if (m & 0x80) c.movable = o.movable;
  if (m & 0x100) c.interactivity = o.interactivity;
  if (m & 0x200) c.workingDirectories = o.workingDirectories;
  if (m & 0x400) c.changesets = o.changesets;
  if (m & 0x800) c.backgroundWork = o.backgroundWork;
  if (m & 0x1000) c.canvases = o.canvases;
  c.turns = o.turns;
  if (m & 0x4000) c.turnsNextCursor = o.turnsNextCursor;
  if (m & 0x8000) c.activeTurn = o.activeTurn;
  if (m & 0x10000) c.steeringMessage = o.steeringMessage;
  if (m & 0x20000) c.queuedMessages = o.queuedMessages;
  if (m & 0x40000) c.draft = o.draft;
  if (m & 0x80000) c._meta = o._meta;
  ChatState.mask = m;
  return c;
}
const ChatActiveTurn = shape(['id', 'startedAt', 'message', 'responseParts', 'usage'], 0xf);
function copyChatActiveTurn(o) {
  const m = membersOf(ChatActiveTurn, o);
  if (m < 0) return null;
  const c = { id: o.id, startedAt: o.startedAt, message: o.message, responseParts: o.responseParts };
  if (m & 0x10) c.usage = o.usage;
  ChatActiveTurn.mask = m;
  return c;
}
// </generated: copiers>

// Copies of frozen arrays use spread: V8's Array.prototype.slice has no fast path for frozen
// elements (about 50x slower on a 200-element array in Node 20); spread is the fastest copy.
function withActiveTurn(state, turn, parts) {
  Object.freeze(parts);
  let nextTurn = copyTurn(turn);
  if (nextTurn === null) nextTurn = Object.freeze({ ...turn, responseParts: parts });
  else {
    nextTurn.responseParts = parts;
    made(copied, nextTurn);
  }
  const next = copyState(state);
  if (next === null) return Object.freeze({ ...state, activeTurn: nextTurn });
  next.activeTurn = nextTurn;
  return made(copied, next);
}

// The state and the active turn are 0.3.0's (a session) or 1.0's (a chat; this module serves
// both entries): each is copied by the copier of the version whose copy it is, else by the
// other one's. `copied` is the shape of the copy just returned (for `made`).
let copied = null;
function copyState(state) {
  if (state === ChatState.made) return (copied = ChatState, copyChatState(state));
  const c = copySessionState(state);
  if (c !== null) return (copied = SessionState, c);
  copied = ChatState;
  return copyChatState(state);
}
function copyTurn(turn) {
  if (turn === ChatActiveTurn.made) return (copied = ChatActiveTurn, copyChatActiveTurn(turn));
  const c = copyActiveTurn(turn);
  if (c !== null) return (copied = ActiveTurn, c);
  copied = ChatActiveTurn;
  return copyChatActiveTurn(turn);
}

// Streamed text arrives as UTF-8 in wasm memory (pointer, length): short ASCII deltas, the
// usual case, are read without TextDecoder's call overhead.
let memory = null;
let memoryBytes = null;
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The wasm module's memory (set once, before the first `renderAppendPartText`). */
export function renderUseMemory(wasmMemory) {
  memory = wasmMemory;
  memoryBytes = null;
}

function textAt(ptr, len) {
  // Memory growth detaches the buffer, leaving its views without bytes: then view it again.
  if (memoryBytes === null || memoryBytes.byteLength === 0) memoryBytes = new Uint8Array(memory.buffer);
  const bytes = memoryBytes;
  if (len <= 8) {
    // Up to eight ASCII bytes: one flat string from eight char codes, cut to length (a byte
    // past the end of memory reads as `undefined`, a NUL, and is cut off). Building it a
    // character at a time made a rope of one-character strings: slower from two bytes on, and
    // slower than TextDecoder from about ten.
    let any = 0;
    for (let i = ptr; i < ptr + len; i++) any |= bytes[i];
    if (any < 0x80) {
      const text = String.fromCharCode(
        bytes[ptr], bytes[ptr + 1], bytes[ptr + 2], bytes[ptr + 3],
        bytes[ptr + 4], bytes[ptr + 5], bytes[ptr + 6], bytes[ptr + 7],
      );
      return len === 8 ? text : text.substring(0, len);
    }
  }
  return decoder.decode(bytes.subarray(ptr, ptr + len));
}

// Streamed text is appended with `+`, which V8 keeps as a rope: one node per delta, about
// 56 bytes each over the text itself (a 100,000-character part streamed in 5-byte deltas holds
// 1.1 MiB instead of 0.1). The rope is flattened in place whenever the length passes one of
// the lengths 2^e * (1 + m/8): every 6-12% of growth, so the copying adds up to about nine
// times the final length, a few bytes per delta, and the nodes never outgrow an eighth of it.
function lengthStep(length) {
  const exponent = 31 - Math.clz32(length);
  return exponent < 8 ? 0 : exponent * 8 + ((length >>> (exponent - 3)) & 7);
}

function appended(content, text) {
  const next = content + text;
  // charCodeAt flattens a rope in place (V8), keeping the same string value.
  if (lengthStep(next.length) !== lengthStep(content.length)) next.charCodeAt(0);
  return next;
}

/** `activeTurn.responseParts[index].content += text`, the text being UTF-8 at `ptr`, `len` bytes. */
export function renderAppendPartText(state, index, ptr, len, sink) {
  const text = textAt(ptr, len);
  const turn = state.activeTurn;
  const parts = [...turn.responseParts];
  const part = parts[index];
  const content = appended(part.content, text);
  const reasoning = part.kind === 'reasoning';
  const next = reasoning ? copyReasoningResponsePart(part) : copyMarkdownResponsePart(part);
  if (next === null) parts[index] = Object.freeze({ ...part, content });
  else {
    next.content = content;
    parts[index] = made(reasoning ? ReasoningResponsePart : MarkdownResponsePart, next);
  }
  return publish(sink, withActiveTurn(state, turn, parts));
}

/** `activeTurn.responseParts[index].toolCall.partialInput += text` (absent counts as empty). */
export function renderAppendToolInput(state, index, ptr, len, sink) {
  const text = textAt(ptr, len);
  const turn = state.activeTurn;
  const parts = [...turn.responseParts];
  const part = parts[index];
  const toolCall = part.toolCall;
  const partialInput = appended(toolCall.partialInput ?? '', text);
  const nextToolCall = Object.freeze({ ...toolCall, partialInput });
  const next = copyToolCallResponsePart(part);
  if (next === null) parts[index] = Object.freeze({ ...part, toolCall: nextToolCall });
  else {
    next.toolCall = nextToolCall;
    parts[index] = made(ToolCallResponsePart, next);
  }
  return publish(sink, withActiveTurn(state, turn, parts));
}

/** A terminal's `content[index][key] += text` (its output), the text as in renderAppendPartText. */
export function renderAppendTerminalText(state, index, key, ptr, len, sink) {
  const text = textAt(ptr, len);
  const content = [...state.content];
  const part = content[index];
  content[index] = Object.freeze({ ...part, [key]: appended(part[key], text) });
  return publish(sink, Object.freeze({ ...state, content: Object.freeze(content) }));
}

/** `activeTurn.responseParts[index] = part` (a fresh value from Rust). */
export function renderReplacePart(state, index, part, sink) {
  const turn = state.activeTurn;
  const parts = [...turn.responseParts];
  parts[index] = freezeDeep(part);
  return publish(sink, withActiveTurn(state, turn, parts));
}

/** `activeTurn.responseParts` keeps its first `from` parts, then `added` (fresh values). */
export function renderPushParts(state, from, added, sink) {
  const turn = state.activeTurn;
  const parts = [...turn.responseParts];
  parts.length = from;
  for (const part of added) parts.push(freezeDeep(part));
  return publish(sink, withActiveTurn(state, turn, parts));
}

/** `turns` keeps its first `from` turns, then `added` (fresh values). */
export function renderPushTurns(state, from, added, sink) {
  const turns = [...state.turns];
  turns.length = from;
  for (const turn of added) turns.push(freezeDeep(turn));
  Object.freeze(turns);
  const next = copyState(state);
  if (next === null) return publish(sink, Object.freeze({ ...state, turns }));
  next.turns = turns;
  return publish(sink, made(copied, next));
}
