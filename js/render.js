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

/**
 * Deep-freezes the properties `names` of a state object the SDK just built, then the object
 * itself. Properties not named are shared with an earlier (already frozen) state, or are
 * unknown properties carried over from the caller's object.
 */
export function renderFreezeFields(state, names) {
  for (const name of names) freezeDeep(state[name]);
  return Object.freeze(state);
}

// Copies of frozen arrays use spread: V8's Array.prototype.slice has no fast path for frozen
// elements (about 50x slower on a 200-element array in Node 20); spread is the fastest copy.
function withActiveTurn(state, turn, parts) {
  const nextTurn = Object.freeze({ ...turn, responseParts: Object.freeze(parts) });
  return Object.freeze({ ...state, activeTurn: nextTurn });
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
  if (memoryBytes === null || memoryBytes.buffer !== memory.buffer) memoryBytes = new Uint8Array(memory.buffer);
  if (len <= 32) {
    let text = '';
    for (let i = ptr; i < ptr + len; i++) {
      const byte = memoryBytes[i];
      if (byte > 0x7f) return decoder.decode(memoryBytes.subarray(ptr, ptr + len));
      text += String.fromCharCode(byte);
    }
    return text;
  }
  return decoder.decode(memoryBytes.subarray(ptr, ptr + len));
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
export function renderAppendPartText(state, index, ptr, len) {
  const text = textAt(ptr, len);
  const turn = state.activeTurn;
  const parts = [...turn.responseParts];
  const part = parts[index];
  parts[index] = Object.freeze({ ...part, content: appended(part.content, text) });
  return withActiveTurn(state, turn, parts);
}

/** `activeTurn.responseParts[index].toolCall.partialInput += text` (absent counts as empty). */
export function renderAppendToolInput(state, index, ptr, len) {
  const text = textAt(ptr, len);
  const turn = state.activeTurn;
  const parts = [...turn.responseParts];
  const part = parts[index];
  const toolCall = part.toolCall;
  const partialInput = appended(toolCall.partialInput ?? '', text);
  parts[index] = Object.freeze({ ...part, toolCall: Object.freeze({ ...toolCall, partialInput }) });
  return withActiveTurn(state, turn, parts);
}

/** A terminal's `content[index][key] += text` (its output), the text as in renderAppendPartText. */
export function renderAppendTerminalText(state, index, key, ptr, len) {
  const text = textAt(ptr, len);
  const content = [...state.content];
  const part = content[index];
  content[index] = Object.freeze({ ...part, [key]: appended(part[key], text) });
  return Object.freeze({ ...state, content: Object.freeze(content) });
}

/** `activeTurn.responseParts[index] = part` (a fresh value from Rust). */
export function renderReplacePart(state, index, part) {
  const turn = state.activeTurn;
  const parts = [...turn.responseParts];
  parts[index] = freezeDeep(part);
  return withActiveTurn(state, turn, parts);
}

/** `activeTurn.responseParts` keeps its first `from` parts, then `added` (fresh values). */
export function renderPushParts(state, from, added) {
  const turn = state.activeTurn;
  const parts = [...turn.responseParts];
  parts.length = from;
  for (const part of added) parts.push(freezeDeep(part));
  return withActiveTurn(state, turn, parts);
}

/** `turns` keeps its first `from` turns, then `added` (fresh values). */
export function renderPushTurns(state, from, added) {
  const turns = [...state.turns];
  turns.length = from;
  for (const turn of added) turns.push(freezeDeep(turn));
  return Object.freeze({ ...state, turns: Object.freeze(turns) });
}
