// Input checks run before Rust converts a JS value (src/wasm/convert.rs): JSON-like data
// within the depth, size and length limits, walked without recursion, then written as JSON text
// for Rust to decode. wasm-bindgen copies this file into the package as a snippet.

const NOT_JSON = 'expected JSON data (plain objects, arrays, strings, numbers, booleans, null)';

function pathOf(frames, key) {
  let path = '';
  const keys = frames.slice(1).map((f) => f.key);
  if (frames.length > 0) keys.push(key);
  for (const k of keys) {
    if (typeof k === 'number') path += `[${k}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(k)) path += path === '' ? k : `.${k}`;
    else path += `[${JSON.stringify(k)}]`;
  }
  return path;
}

/**
 * Walks a JS value iteratively (no recursion, so no stack overflow) and checks it is JSON-like
 * data within the limits, before Rust converts it recursively.
 * @returns {null | [string, string]} null when fine, else [path, reason].
 */
export function inspectInput(root, maxDepth, maxNodes, maxChars) {
  let nodes = 0;
  let chars = 0;
  const frames = [];
  let value = root;
  let key;
  for (;;) {
    nodes += 1;
    if (nodes > maxNodes) {
      return [pathOf(frames, key), `more than ${maxNodes} values in total`];
    }
    const type = typeof value;
    if (type === 'string') {
      chars += value.length;
      if (chars > maxChars) {
        return [pathOf(frames, key), `more than ${maxChars} characters of strings in total`];
      }
    } else if (type === 'number') {
      if (!Number.isFinite(value)) {
        return [pathOf(frames, key), `expected a finite number, got ${value}`];
      }
    } else if (type === 'bigint' || type === 'function' || type === 'symbol') {
      // JSON has none of these (a bigint makes JSON.stringify throw, the others are dropped).
      return [pathOf(frames, key), `${NOT_JSON}, got a ${type}`];
    } else if (typeof value === 'object' && value !== null) {
      if (frames.length >= maxDepth) {
        return [pathOf(frames, key), `nested deeper than ${maxDepth} levels`];
      }
      if (Array.isArray(value)) {
        frames.push({ value, keys: null, i: 0, key });
      } else if (
        Symbol.iterator in value ||
        ArrayBuffer.isView(value) ||
        value instanceof ArrayBuffer
      ) {
        const what = value.constructor?.name ?? 'iterable';
        return [pathOf(frames, key), `${NOT_JSON}, got a ${what}`];
      } else {
        frames.push({ value, keys: Object.keys(value), i: 0, key });
      }
    }
    // Move to the next value: the next child of the innermost unfinished container.
    for (;;) {
      const top = frames[frames.length - 1];
      if (top === undefined) return null;
      if (top.keys === null) {
        if (top.i < top.value.length) {
          key = top.i;
          value = top.value[top.i++];
          break;
        }
      } else if (top.i < top.keys.length) {
        key = top.keys[top.i++];
        value = top.value[key];
        break;
      }
      frames.pop();
    }
  }
}

/**
 * `root` as JSON text, once `inspectInput` found nothing wrong with it; members whose value is
 * `undefined` are left out (and `undefined` array elements are `null`), as JSON.stringify does.
 * @returns {string | [string, string]} the text, else [path, reason].
 */
export function jsonText(root, maxDepth, maxNodes, maxChars) {
  const found = inspectInput(root, maxDepth, maxNodes, maxChars);
  if (found !== null) return found;
  const text = JSON.stringify(root);
  return text === undefined ? ['', `${NOT_JSON}, got undefined`] : text;
}

const utf8 = new TextEncoder();

/**
 * Writes `text` as UTF-8 into `into` (a view of wasm memory, src/wasm/convert.rs `text_from_js`)
 * with the engine's encoder, much faster than a copy character by character for long texts.
 * @returns {number} the bytes written, or -1 when `into` is too small for the whole text.
 */
export function encodeText(text, into) {
  const { read, written } = utf8.encodeInto(text, into);
  return read === text.length ? written : -1;
}

/** The length of `text` in UTF-8 bytes (a lone surrogate counts as U+FFFD, 3 bytes). */
export function utf8Length(text) {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a pair: 2 units, 4 bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
}
