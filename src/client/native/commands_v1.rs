//! AHP 1.0's commands on the native client: [`AhpClient::v1`], a view with one typed async
//! method per command of the 1.0 table (`protocol/v1/command_table.rs`), expanded by the
//! 0.3.0 methods' consumer (`commands.rs`).

use super::client::AhpClient;
use super::commands::{native_method, native_methods, output_type, Output};
use crate::client::Error;
use crate::protocol::jsonrpc::ROOT_CHANNEL;
use crate::protocol::v1::jsonrpc::{self as rpc_v1, CommandV1, PingParams};
use crate::protocol::v1::*;

/// AHP 1.0's commands on a client whose host chose `"1.0.0"` (see
/// [`ConnectOptions::protocol_versions`](super::ConnectOptions::protocol_versions)): one typed
/// async method per 1.0 command, named as the protocol names it (`create_chat`, `move_chat`,
/// `run_automation`, and the commands 0.3.0 has too, such as `create_session`, in their 1.0
/// shape), with `protocol::v1` params and results.
///
/// A view rather than `_v1` methods on [`AhpClient`]: 1.0 keeps most of 0.3.0's method names
/// with other params and results, so its methods need a namespace of their own. The view keeps
/// the protocol's names, is expanded from the 1.0 table by the same consumer as the 0.3.0
/// methods, and checks the version in one place.
///
/// When the host chose another version (0.3.0), every method fails at once with
/// [`Error::WrongProtocolVersion`], naming the method and both versions, and sends nothing:
/// the engine's refusal of a 1.0 action ([`AhpClient::dispatch_v1`]).
///
/// ```no_run
/// use ahp_wasm::client::native::{AhpClient, ConnectOptions};
/// use ahp_wasm::protocol::v1::{CreateChatParams, ListSessionsParams};
///
/// # async fn run() -> Result<(), ahp_wasm::client::Error> {
/// let options = ConnectOptions { protocol_versions: vec!["1.0.0".into()], ..Default::default() };
/// let client = AhpClient::connect("ws://127.0.0.1:8080/ahp", options).await?;
/// let sessions = client.v1().list_sessions(ListSessionsParams {
///     channel: "ahp-root://".into(),
///     ..Default::default()
/// }).await?;
/// client.v1().create_chat(CreateChatParams {
///     channel: "ahp-session:/1".into(),
///     chat: "ahp-chat:/2".into(),
///     ..Default::default()
/// }).await?;
/// # let _ = sessions; Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct AhpClientV1<'a> {
    client: &'a AhpClient,
}

impl AhpClient {
    /// AHP 1.0's commands (see [`AhpClientV1`]).
    pub fn v1(&self) -> AhpClientV1<'_> {
        AhpClientV1 { client: self }
    }
}

impl AhpClientV1<'_> {
    /// Sends a typed 1.0 request and awaits its typed result; refused, with nothing sent,
    /// unless the host chose 1.0.
    pub async fn request<C: CommandV1>(&self, params: C::Params) -> Result<C::Result, Error> {
        let version = self.client.protocol_version();
        if version != PROTOCOL_VERSION {
            return Err(Error::WrongProtocolVersion {
                negotiated: version.to_string(),
                version: PROTOCOL_VERSION.to_string(),
                attempted: format!("the command `{}`", C::METHOD),
            });
        }
        self.client.request::<C>(params).await
    }
}

rpc_v1::for_each_command_v1!(native_methods [AhpClientV1<'_>, rpc_v1]);
