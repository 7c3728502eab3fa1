//! One typed async method per AHP 0.3.0 command, from the command table
//! (`protocol/command_table.rs`); [`native_methods`] expands the 1.0 table too
//! (`commands_v1.rs`).

use super::client::AhpClient;
use crate::client::Error;
use crate::protocol::jsonrpc::{self as rpc, EmptyResult, ROOT_CHANNEL};
use crate::protocol::*;

/// A command's result as its method returns it: nothing for an empty (`void`) result.
pub(super) trait Output<T> {
    fn output(self) -> T;
}

impl<T> Output<T> for T {
    fn output(self) -> T {
        self
    }
}

impl Output<()> for EmptyResult {
    fn output(self) {}
}

/// What a row's method returns: `()` for `void`.
macro_rules! output_type {
    (void) => {
        ()
    };
    ($result:ident) => {
        $result
    };
}

/// `impl $client { one method per row }`, each sending `$rpc::Marker` with `self.request`.
/// The rows' types resolve where it expands.
macro_rules! native_methods {
    ([$client:ty, $rpc:ident] $($call:ident $marker:ident = $method:literal => $rust_name:ident($params:ident) -> $result:ident, $doc:literal;)*) => {
        impl $client {
            $(native_method!($rpc $call $marker $method $rust_name $params $result $doc);)*
        }
    };
}

macro_rules! native_method {
    ($rpc:ident handshake $($row:tt)*) => {};
    ($rpc:ident no_params $marker:ident $method:literal $rust_name:ident $params:ident $result:ident $doc:literal) => {
        #[doc = concat!("`", $method, "`: ", $doc)]
        pub async fn $rust_name(&self) -> Result<output_type!($result), Error> {
            let params = $params {
                channel: ROOT_CHANNEL.to_string(),
                extra: Default::default(),
            };
            self.request::<$rpc::$marker>(params)
                .await
                .map(Output::output)
        }
    };
    ($rpc:ident $call:ident $marker:ident $method:literal $rust_name:ident $params:ident $result:ident $doc:literal) => {
        #[doc = concat!("`", $method, "`: ", $doc)]
        pub async fn $rust_name(&self, params: $params) -> Result<output_type!($result), Error> {
            self.request::<$rpc::$marker>(params)
                .await
                .map(Output::output)
        }
    };
}

pub(super) use {native_method, native_methods, output_type};

rpc::for_each_command!(native_methods [AhpClient, rpc]);
