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
