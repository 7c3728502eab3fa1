//! The requests of AHP 1.0 clients the hub answers (see `hub/v1.rs`), decoded on the
//! connection with the 1.0 types. The other 1.0 commands are answered `-32601` by the
//! connection, naming the command ([`NOT_YET`]); the `resource*` commands and `ping` are the
//! connection's, as for 0.3.0 clients.

use ahp_wasm::protocol::jsonrpc::{decode_params, ErrorObject};
use ahp_wasm::protocol::v1;
use ahp_wasm::protocol::v1::jsonrpc::{self as rpc, Command};
use ahp_wasm::protocol::RawJson;

/// A 1.0 request the hub answers, with its decoded params.
#[derive(Debug)]
// It travels boxed (`HubMsg::RequestV1`), as 0.3.0's `Request`.
#[allow(clippy::large_enum_variant)]
pub enum RequestV1 {
    /// `subscribe`.
    Subscribe(v1::SubscribeParams),
    /// `createSession`.
    CreateSession(v1::CreateSessionParams),
    /// `disposeSession`.
    DisposeSession(v1::DisposeSessionParams),
    /// `listSessions`.
    ListSessions(v1::ListSessionsParams),
    /// `fetchTurns`.
    FetchTurns(v1::FetchTurnsParams),
}

/// The message of the error a 1.0 client gets for a command not served to it yet.
pub fn not_yet(method: &str) -> String {
    format!(
        "`{method}` is not served to AHP 1.0.0 clients by this host yet (it is to 0.3.0 clients)"
    )
}

impl RequestV1 {
    /// The request for `method`, decoded; `None` when the hub answers no such 1.0 command.
    pub fn parse(
        method: &str,
        params: Option<RawJson<'_>>,
    ) -> Option<Result<RequestV1, ErrorObject>> {
        Some(match method {
            m if m == rpc::Subscribe::METHOD => decode_params(params).map(RequestV1::Subscribe),
            m if m == rpc::CreateSession::METHOD => {
                decode_params(params).map(RequestV1::CreateSession)
            }
            m if m == rpc::DisposeSession::METHOD => {
                decode_params(params).map(RequestV1::DisposeSession)
            }
            // Its params are optional in 1.0.
            m if m == rpc::ListSessions::METHOD => match params {
                Some(_) => decode_params(params).map(RequestV1::ListSessions),
                None => Ok(RequestV1::ListSessions(v1::ListSessionsParams {
                    channel: ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL.into(),
                    ..Default::default()
                })),
            },
            m if m == rpc::FetchTurns::METHOD => decode_params(params).map(RequestV1::FetchTurns),
            _ => return None,
        })
    }
}
