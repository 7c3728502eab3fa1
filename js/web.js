// Package entry for browsers and bundlers (ES module, no top-level await). `init()` compiles
// and instantiates the WebAssembly module (streaming, from `ahp_wasm_bg.wasm` next to this
// file unless told otherwise); the public API (js/api.js) needs it to have resolved. The
// `new URL('./ahp_wasm_bg.wasm', import.meta.url)` below is the pattern Vite and webpack 5
// find and emit the file by. Hand-written; scripts/build-pkg.sh copies it into pkg/.
import initWasm from './ahp_wasm.js';
import setWasmState, { AhpError, InvalidInputError } from './api.js';

let loading = null;

/**
 * Loads the WebAssembly module. `AhpClient.connect` calls it itself; the synchronous entry
 * points (the reducers, `new MultiHostClient()`) need it to have resolved first.
 * Idempotent: every call returns the same promise until one fails (the next call retries).
 * `options.wasm`: where the module is (URL, string, Request, Response, a promise of one,
 * the bytes, or a compiled `WebAssembly.Module`); default: `ahp_wasm_bg.wasm` beside this file.
 */
export function init(options) {
  if (options !== undefined && !isOptions(options)) {
    return Promise.reject(new InvalidInputError('init(options): options must be an object like { wasm: url }, not the source itself', 'options', ''));
  }
  if (loading === null) {
    setWasmState('loading');
    loading = load(options?.wasm).then(
      () => setWasmState('ready'),
      (e) => {
        loading = null;
        const error = e instanceof AhpError ? e : new AhpError(`ahp-wasm: loading the WebAssembly module failed: ${e?.message ?? e}`, { kind: 'wasmLoad', cause: e });
        setWasmState('failed', error);
        throw error;
      },
    );
  }
  return loading;
}
setWasmState.loadWith(() => init());

/** An options object, not a wasm source passed by mistake in its place (`init(url)`). */
function isOptions(o) {
  if (typeof o !== 'object' || o === null || typeof o.then === 'function') return false;
  const is = (name) => typeof globalThis[name] === 'function' && o instanceof globalThis[name];
  return !(is('URL') || is('Request') || is('Response') || is('ArrayBuffer') || ArrayBuffer.isView(o) || o instanceof WebAssembly.Module);
}

async function load(source) {
  if (source === undefined) {
    try {
      source = new URL('./ahp_wasm_bg.wasm', import.meta.url);
    } catch (e) {
      // A bundle without `import.meta.url` (an iife or CommonJS bundle, say).
      throw new AhpError(
        'ahp-wasm: cannot locate ahp_wasm_bg.wasm (import.meta.url is not available in this bundle); ' +
          "pass its URL: init({ wasm: '/path/to/ahp_wasm_bg.wasm' })",
        { kind: 'wasmLoad', cause: e },
      );
    }
  }
  await initWasm({ module_or_path: source });
}

export * from './api.js';
