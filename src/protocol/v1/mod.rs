//! The AHP 1.0.0 wire model: every state, action, command, notification and error payload type
//! of 1.0.0, beside the 0.3.0 model (`crate::protocol`), which stays the crate's default for
//! now.
//!
//! The types are generated (`generated.rs`, see the `xtask` crate) from the protocol's
//! machine-readable definition, the official crate `ahp-types` 1.0.0, which the SDK does not
//! depend on. Like 0.3.0's: exact wire names; unions and string enums are open (an unknown
//! variant or value is kept and written back unchanged); every struct keeps the members it
//! does not know (`extra`), where the official crate drops them. The few irregular shapes are
//! in `manual.rs`. Decoding and encoding go through the SDK's own reader and writer
//! (`crate::protocol::{decode, encode}`).

mod command_table;
mod generated;
pub mod jsonrpc;
pub mod methods;

// The generated code reaches the shared machinery as `super::…`, as 0.3.0's does.
use super::{decode, encode, tagged, wire};

pub use generated::*;

/// The protocol version of this model.
pub const PROTOCOL_VERSION: &str = "1.0.0";
