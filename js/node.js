// Package entry for Node (ES module, no bundler needed). Reads the WebAssembly module next to
// this file synchronously, then exports the public API. Hand-written; the build script
// (scripts/build-pkg.sh) copies it into pkg/. Keep in sync with js/web.js and js/index.d.ts.
import { readFileSync } from 'node:fs';
import * as wasm from './ahp_wasm.js';

wasm.initSync({ module: readFileSync(new URL('./ahp_wasm_bg.wasm', import.meta.url)) });

export {
  rootReducer,
  sessionReducer,
  terminalReducer,
  changesetReducer,
  resourceWatchReducer,
} from './ahp_wasm.js';

export const PROTOCOL_VERSION = wasm.__protocolVersion();
export const SUPPORTED_PROTOCOL_VERSIONS = wasm.__supportedProtocolVersions();
export const { AhpError, InvalidInputError } = wasm.__errorClasses();
