//! AHP 1.0.0's command markers: one [`Command`] type per request method of the 1.0 table
//! (`v1/command_table.rs`), with its 1.0 params and result types, [`REQUEST_METHODS`] and
//! [`COMMANDS`]. The JSON-RPC framing is version-free: `protocol::jsonrpc`'s.
//!
//! The markers have the 0.3.0 markers' names (`CreateSession` is in both modules) and
//! differ in their types; the native client sends them through `AhpClient::v1` (feature
//! `native`), which takes only these ([`CommandV1`]).

use super::*;
use crate::protocol::command_table::{command_call, command_infos};
use crate::protocol::jsonrpc::{command_markers, result_type};
pub use crate::protocol::jsonrpc::{Command, CommandCall, CommandInfo, EmptyResult};

/// `ping`'s params: the 1.0 definition names no type for them, and sends the root channel,
/// 0.3.0's [`PingParams`](crate::protocol::PingParams) (`{"channel": "ahp-root://"}`).
pub type PingParams = crate::protocol::PingParams;

pub(crate) use super::command_table::for_each_command_v1;

for_each_command_v1!(command_markers);
for_each_command_v1!(command_infos);

/// A 1.0 command marker (this module's): what the native client's 1.0 view sends, so a 0.3.0
/// marker (with 0.3.0 params) cannot go out on it by mistake.
pub trait CommandV1: Command {}

macro_rules! command_v1_impls {
    ($($call:ident $marker:ident = $method:literal => $rust_name:ident($params:ident) -> $result:ident, $doc:literal;)*) => {
        $(impl CommandV1 for $marker {})*
    };
}

for_each_command_v1!(command_v1_impls);

#[cfg(test)]
#[path = "jsonrpc_tests.rs"]
mod tests;
