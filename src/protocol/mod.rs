//! The AHP 0.3.0 wire model: every state, action, command, notification and error type.
//!
//! Almost all types are generated from the protocol's JSON Schema (`generated.rs`, see the
//! `xtask` crate); the few irregular shapes are in `manual.rs`. Field names follow Rust
//! conventions and serialize to the exact wire names.

mod accessors;
mod command_table;
pub mod decode;
pub mod encode;
pub mod errors;
mod float;
mod generated;
pub mod json_path;
pub mod jsonrpc;
mod raw;
pub mod tagged;
pub mod v1;
mod value;
pub mod wire;

pub use generated::*;
/// The map of `Record<string, T>` members (sorted by name), re-exported so users need no
/// dependency of their own.
pub use litemap::LiteMap;
pub use raw::{RawJson, RawJsonBuf};
pub use value::{Extra, JsonObject, JsonValue};

/// The protocol version this crate implements.
pub const PROTOCOL_VERSION: &str = "0.3.0";

/// Every protocol version this crate can speak, most preferred first.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &[PROTOCOL_VERSION];
