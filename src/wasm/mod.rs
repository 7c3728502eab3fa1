//! The JavaScript surface of the SDK (compiled for `wasm32` only): thin `#[wasm_bindgen]`
//! exports over the pure core in [`crate::protocol`] and [`crate::reduce`].
//!
//! - [`reducers`]: `rootReducer`, `sessionReducer`, ... (plain JS objects in, a new plain JS
//!   object out, the input untouched, like the official TypeScript package), of AHP 0.3.0, or
//!   of AHP 1.0 with cargo feature `v1` (one protocol version per build).
//! - [`client`]: the client classes `AhpClient`, `Subscription`, `MultiHostClient` over the
//!   sans-IO engine.
//! - [`render`]: the one render path, turning a `StatePatch` into a new frozen, structurally
//!   shared JS state; both the reducers and each subscription's state go through it.
//! - [`convert`]: JS <-> Rust conversion through JSON text both ways (in: `JSON.stringify`
//!   after the input limits, then `protocol::decode`; out: `protocol::encode`, then
//!   `JSON.parse`),
//!   error paths.
//! - [`errors`]: the JS error classes (`AhpError`, `InvalidInputError`) thrown to callers.
//! - [`version`]: the protocol version constants the package entry re-exports.
//!
//! TypeScript types come from the `tsify` derives on the wire types; the exports take and
//! return `tsify::Ts<T>`, so the generated `.d.ts` reads
//! `sessionReducer(state: SessionState, action: StateAction): SessionState`.

mod client;
mod convert;
mod errors;
mod reducers;
mod render;
mod version;
pub(crate) mod wire;

// What the package exports is what `#[wasm_bindgen]` marks; these re-exports are for the wasm
// tests, which call the exports from Rust.
pub use client::AhpClient;
pub use errors::error_classes_export;
#[cfg(feature = "v1")]
pub use reducers::{
    annotations_reducer, automation_reducer, automation_run_reducer, canvas_reducer, chat_reducer,
};
pub use reducers::{
    changeset_reducer, resource_watch_reducer, root_reducer, session_reducer, terminal_reducer,
};
