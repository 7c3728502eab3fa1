//! The requests of AHP 1.0 clients the hub answers (see `hub/v1.rs`), decoded on the
//! connection with the 1.0 types. The commands whose params the two versions share
//! ([`SHARED`]) are then decoded as 0.3.0's and answered by the 0.3.0 handlers
//! ([`RequestV1::Shared`]). The other 1.0 commands are answered `-32601` by the connection,
//! naming the command ([`not_yet`]); the `resource*` commands and `ping` are the connection's,
//! as for 0.3.0 clients.

use super::requests::Request;
use crate::compat;
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{decode_params, ErrorObject};
use ahp_wasm::protocol::v1;
use ahp_wasm::protocol::v1::jsonrpc::{self as rpc, Command};
use ahp_wasm::protocol::{RawJson, RawJsonBuf};
use serde_json::Value;

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
    /// `listAutomationTriggerDefinitions`.
    ListAutomationTriggerDefinitions(v1::ListAutomationTriggerDefinitionsParams),
    /// `runAutomation`.
    RunAutomation(v1::RunAutomationParams),
    /// `fetchAutomationRuns`.
    FetchAutomationRuns(v1::FetchAutomationRunsParams),
    /// A command of [`SHARED`], as 0.3.0's: its 0.3.0 handler answers it.
    Shared(Request),
}

/// The commands whose params and results 1.0 and 0.3.0 share on the wire, but for what
/// [`shared`] translates (1.0's added members, such as `_meta`, are kept as unknown ones):
/// terminals, resource watches, changeset operations, authentication, session config and
/// completions.
pub const SHARED: &[&str] = &[
    rpc::CreateTerminal::METHOD,
    rpc::DisposeTerminal::METHOD,
    rpc::CreateResourceWatch::METHOD,
    rpc::InvokeChangesetOperation::METHOD,
    rpc::Authenticate::METHOD,
    rpc::ResolveSessionConfig::METHOD,
    rpc::SessionConfigCompletions::METHOD,
    rpc::Completions::METHOD,
];

/// Checks `params` against the 1.0 params of `method`.
fn check_v1(method: &str, params: Option<RawJson<'_>>) -> Result<(), ErrorObject> {
    fn check<T: ahp_wasm::protocol::decode::Decode>(
        params: Option<RawJson<'_>>,
    ) -> Result<(), ErrorObject> {
        decode_params::<T>(params).map(drop)
    }
    match method {
        m if m == rpc::CreateTerminal::METHOD => check::<v1::CreateTerminalParams>(params),
        m if m == rpc::DisposeTerminal::METHOD => check::<v1::DisposeTerminalParams>(params),
        m if m == rpc::CreateResourceWatch::METHOD => {
            check::<v1::CreateResourceWatchParams>(params)
        }
        m if m == rpc::InvokeChangesetOperation::METHOD => {
            check::<v1::InvokeChangesetOperationParams>(params)
        }
        m if m == rpc::Authenticate::METHOD => check::<v1::AuthenticateParams>(params),
        m if m == rpc::ResolveSessionConfig::METHOD => {
            check::<v1::ResolveSessionConfigParams>(params)
        }
        m if m == rpc::SessionConfigCompletions::METHOD => {
            check::<v1::SessionConfigCompletionsParams>(params)
        }
        _ => check::<v1::CompletionsParams>(params),
    }
}

/// A command of [`SHARED`]: its params checked as 1.0's, translated (a terminal's session
/// claim names the default chat, which 0.3.0 leaves implicit; `completions` targets the
/// default chat, 0.3.0's its session), then decoded as 0.3.0's.
fn shared(method: &str, params: Option<RawJson<'_>>) -> Result<RequestV1, ErrorObject> {
    check_v1(method, params)?;
    let invalid = |message: String| ErrorObject::new(errors::INVALID_PARAMS, message);
    let text = params.map_or("{}", RawJson::get);
    let mut json: Value =
        serde_json::from_str(text).map_err(|e| invalid(format!("params: {e}")))?;
    if method == rpc::CreateTerminal::METHOD {
        compat::create_terminal_v03(&mut json).map_err(|e| invalid(format!("claim: {e}")))?;
    }
    if method == rpc::Completions::METHOD {
        let chat = json.get("channel").and_then(Value::as_str).unwrap_or("");
        match compat::session_of_chat(chat) {
            Some(session) => json["channel"] = session.into(),
            None => {
                return Err(invalid(
                    "`channel` must be a session's default chat (ahp-chat:/<session id>/default)"
                        .into(),
                ))
            }
        }
    }
    let raw =
        RawJsonBuf::from_string(json.to_string()).map_err(|e| invalid(format!("params: {e}")))?;
    match Request::parse(method, Some(raw.as_raw())) {
        Some(request) => request.map(RequestV1::Shared),
        None => Err(ErrorObject::new(errors::METHOD_NOT_FOUND, not_yet(method))),
    }
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
            m if m == rpc::ListAutomationTriggerDefinitions::METHOD => {
                decode_params(params).map(RequestV1::ListAutomationTriggerDefinitions)
            }
            m if m == rpc::RunAutomation::METHOD => {
                decode_params(params).map(RequestV1::RunAutomation)
            }
            m if m == rpc::FetchAutomationRuns::METHOD => {
                decode_params(params).map(RequestV1::FetchAutomationRuns)
            }
            m if SHARED.contains(&m) => shared(m, params),
            _ => return None,
        })
    }
}
