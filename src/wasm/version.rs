//! The protocol version constants. wasm-bindgen cannot export constants, so
//! `scripts/build-pkg.sh` reads these once from the built module into `pkg/generated.js`, and the
//! package exports `PROTOCOL_VERSION` and `SUPPORTED_PROTOCOL_VERSIONS` as real constants that
//! work before `init()` (see `js/api.js`).

use crate::wasm::wire::{PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS};
use wasm_bindgen::prelude::*;

/// The protocol version this build speaks (`"1.0.0"`, or `"0.3.0"` in the 0.3.0 entry).
/// Internal: use `PROTOCOL_VERSION`.
#[wasm_bindgen(js_name = "__protocolVersion", skip_typescript)]
pub fn protocol_version() -> String {
    PROTOCOL_VERSION.to_owned()
}

/// Every protocol version this SDK speaks, most preferred first. Internal: use
/// `SUPPORTED_PROTOCOL_VERSIONS`.
#[wasm_bindgen(js_name = "__supportedProtocolVersions", skip_typescript)]
pub fn supported_protocol_versions() -> Vec<String> {
    SUPPORTED_PROTOCOL_VERSIONS
        .iter()
        .map(|v| (*v).to_owned())
        .collect()
}
