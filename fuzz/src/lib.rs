//! The logic of the fuzz targets, as plain functions: `fuzz_targets/*.rs` call them under
//! libFuzzer (nightly), and the stable test `host/tests/fuzz_corpus.rs` includes this file to
//! replay the committed seeds and regression inputs through the same code.
//!
//! Every `run` takes the raw input bytes and panics when a property fails.

// Explicit paths: this file is also included with `#[path]` from the host's tests.
#[path = "frame.rs"]
pub mod frame;
#[path = "host.rs"]
pub mod host;
#[path = "mirror.rs"]
pub mod mirror;
#[path = "reducers.rs"]
pub mod reducers;
#[path = "seeds.rs"]
pub mod seeds;

/// A target's entry point: panics when a property fails.
pub type Target = fn(&[u8]);

/// The targets, by name (the names of `fuzz_targets/*.rs` and of the corpus directories).
pub const TARGETS: &[(&str, Target)] = &[
    ("frame", frame::run),
    ("reducers", reducers::run),
    ("mirror", mirror::run),
    ("host", host::run),
];
