//! ahp-wasm: an Agent Host Protocol (AHP 0.3.0) SDK in Rust, for native programs and, compiled to
//! WebAssembly, for browsers and Node.

pub mod protocol;
pub mod reduce;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
