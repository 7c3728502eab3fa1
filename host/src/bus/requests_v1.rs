//! The requests of AHP 1.0 clients the hub answers: the 1.0 command table
//! (`for_each_host_command_v1!`), the [`RequestV1`] it defines and its parsing, decoded on the
//! connection with the 1.0 types.
//!
//! A command is one row: its kind (`own`: answered by a 1.0 handler of the hub, `hub/v1.rs`
//! and the modules beside it; `shared`: params and results the two versions share on the wire,
//! checked as 1.0's, translated ([`Shared`]), then answered by the 0.3.0 handler), the
//! [`RequestV1`] variant, the SDK's 1.0 command marker (`ahp_wasm::protocol::v1::jsonrpc`), the
//! params and the hub's handler. The table expands here into [`RequestV1`] and
//! [`RequestV1::parse`], and in `hub/v1.rs` into the dispatch to the handlers
//! (`Hub::handler(&mut self, ConnId, &RequestId, Params) -> Result<(), ErrorObject>`).
//! Adding a 1.0 command is a row here plus its handler. The other 1.0 commands are answered
//! `-32601` by the connection, naming the command ([`not_yet`]); `initialize`, `reconnect`,
//! `ping`, `dispatchAction` and the `resource*` commands are the connection's, as for 0.3.0
//! clients.

use super::requests::Request;
use crate::compat;
use ahp_wasm::protocol::decode::Decode;
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{decode_params, ErrorObject, ROOT_CHANNEL};
use ahp_wasm::protocol::v1;
use ahp_wasm::protocol::v1::jsonrpc::{self as rpc, Command};
use ahp_wasm::protocol::{RawJson, RawJsonBuf};
use serde_json::Value;
use std::marker::PhantomData;

/// Calls `$callback! { rows }` with the host's 1.0 command table, one row per 1.0 command the
/// hub answers:
///
/// ```text
/// kind Variant(Marker) = Params => handler;
/// ```
macro_rules! for_each_host_command_v1 {
    ($callback:ident) => {
        $callback! {
            own Subscribe(Subscribe) = v1::SubscribeParams => on_subscribe_v1;
            own CreateSession(CreateSession) = v1::CreateSessionParams => create_session_v1;
            own DisposeSession(DisposeSession) = v1::DisposeSessionParams => dispose_session_v1;
            own ListSessions(ListSessions) = Optional<v1::ListSessionsParams> => list_sessions_v1;
            own CreateChat(CreateChat) = v1::CreateChatParams => create_chat_v1;
            own DisposeChat(DisposeChat) = v1::DisposeChatParams => dispose_chat_v1;
            own MoveChat(MoveChat) = v1::MoveChatParams => move_chat_v1;
            own FetchTurns(FetchTurns) = v1::FetchTurnsParams => fetch_turns_v1;
            own ListAutomationTriggerDefinitions(ListAutomationTriggerDefinitions) = v1::ListAutomationTriggerDefinitionsParams => list_triggers_v1;
            own RunAutomation(RunAutomation) = v1::RunAutomationParams => run_automation_v1;
            own FetchAutomationRuns(FetchAutomationRuns) = v1::FetchAutomationRunsParams => fetch_automation_runs_v1;
            shared CreateTerminal(CreateTerminal) = Shared<v1::CreateTerminalParams> => shared_v1;
            shared DisposeTerminal(DisposeTerminal) = Shared<v1::DisposeTerminalParams> => shared_v1;
            shared CreateResourceWatch(CreateResourceWatch) = Shared<v1::CreateResourceWatchParams> => shared_v1;
            shared InvokeChangesetOperation(InvokeChangesetOperation) = Shared<v1::InvokeChangesetOperationParams> => shared_v1;
            shared Authenticate(Authenticate) = Shared<v1::AuthenticateParams> => shared_v1;
            shared ResolveSessionConfig(ResolveSessionConfig) = Shared<v1::ResolveSessionConfigParams> => shared_v1;
            shared SessionConfigCompletions(SessionConfigCompletions) = Shared<v1::SessionConfigCompletionsParams> => shared_v1;
            shared Completions(Completions) = Shared<v1::CompletionsParams> => shared_v1;
        }
    };
}
pub(crate) use for_each_host_command_v1;

/// [`RequestV1`] and its parsing, from the table.
macro_rules! define_requests_v1 {
    ($($kind:ident $variant:ident($marker:ident) = $params:ty => $handler:ident;)*) => {
        /// A 1.0 request the hub answers, with its decoded params.
        #[derive(Debug)]
        // It travels boxed (`HubMsg::RequestV1`), as 0.3.0's `Request`.
        #[allow(clippy::large_enum_variant)]
        pub enum RequestV1 {
            $(
                #[doc = concat!("`", stringify!($marker), "`.")]
                $variant($params),
            )*
        }
        impl RequestV1 {
            /// The request for `method`, decoded; `None` when the hub answers no such 1.0
            /// command.
            pub fn parse(
                method: &str,
                params: Option<RawJson<'_>>,
            ) -> Option<Result<RequestV1, ErrorObject>> {
                $(
                    if method == <rpc::$marker as Command>::METHOD {
                        return Some(
                            <$params as ParamsV1>::parse(method, params).map(RequestV1::$variant),
                        );
                    }
                )*
                None
            }
        }
    };
}

for_each_host_command_v1!(define_requests_v1);

/// 1.0 params as a connection decodes and checks them for the hub.
pub trait ParamsV1: Sized {
    /// Decodes and checks the params of `method`; the error is the JSON-RPC error to answer.
    fn parse(method: &str, params: Option<RawJson<'_>>) -> Result<Self, ErrorObject>;
}

impl<T: Decode> ParamsV1 for T {
    fn parse(_: &str, params: Option<RawJson<'_>>) -> Result<T, ErrorObject> {
        decode_params(params)
    }
}

/// Params 1.0 makes optional: absent, they are the default ones on the root channel.
#[derive(Debug)]
pub struct Optional<P>(pub P);

impl ParamsV1 for Optional<v1::ListSessionsParams> {
    fn parse(_: &str, params: Option<RawJson<'_>>) -> Result<Self, ErrorObject> {
        match params {
            Some(_) => decode_params(params).map(Optional),
            None => Ok(Optional(v1::ListSessionsParams {
                channel: ROOT_CHANNEL.into(),
                ..Default::default()
            })),
        }
    }
}

/// A command 1.0 shares with 0.3.0: its params checked as 1.0's `P`, then decoded as the
/// 0.3.0 request its 0.3.0 handler answers.
#[derive(Debug)]
pub struct Shared<P> {
    /// The 0.3.0 request.
    pub request: Request,
    checked: PhantomData<fn() -> P>,
}

impl<P: Decode> ParamsV1 for Shared<P> {
    fn parse(method: &str, params: Option<RawJson<'_>>) -> Result<Self, ErrorObject> {
        decode_params::<P>(params)?;
        Ok(Shared {
            request: shared(method, params)?,
            checked: PhantomData,
        })
    }
}

/// A shared command's params translated (a terminal's session claim names the default chat,
/// which 0.3.0 leaves implicit; `completions` on a default chat targets 0.3.0's session, on
/// another chat its view),
/// then decoded as 0.3.0's.
fn shared(method: &str, params: Option<RawJson<'_>>) -> Result<Request, ErrorObject> {
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
            // Another chat is its view's key already (`hub/chat_views.rs`); the hub checks
            // that it exists.
            None if chat.starts_with("ahp-chat:/") => {}
            None => return Err(invalid("`channel` must be a chat (ahp-chat:/...)".into())),
        }
    }
    let raw =
        RawJsonBuf::from_string(json.to_string()).map_err(|e| invalid(format!("params: {e}")))?;
    match Request::parse(method, Some(raw.as_raw())) {
        Some(request) => request,
        None => Err(ErrorObject::new(errors::METHOD_NOT_FOUND, not_yet(method))),
    }
}

/// The message of the error a 1.0 client gets for a command not served to it yet.
pub fn not_yet(method: &str) -> String {
    format!(
        "`{method}` is not served to AHP 1.0.0 clients by this host yet (it is to 0.3.0 clients)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The methods of the table's rows, in order.
    macro_rules! row_methods {
        ($($kind:ident $variant:ident($marker:ident) = $params:ty => $handler:ident;)*) => {
            [$(<rpc::$marker as Command>::METHOD),*]
        };
    }

    fn parse(method: &str, params: &str) -> Option<Result<RequestV1, ErrorObject>> {
        RequestV1::parse(method, Some(RawJson::from_text(params).unwrap()))
    }

    #[test]
    fn every_row_is_a_v1_command_once() {
        let methods = for_each_host_command_v1!(row_methods);
        for (i, method) in methods.iter().enumerate() {
            assert!(
                rpc::REQUEST_METHODS.contains(method),
                "`{method}` is not AHP 1.0's"
            );
            assert!(!methods[..i].contains(method), "`{method}` twice");
            assert!(
                RequestV1::parse(method, None).is_some(),
                "`{method}` not parsed"
            );
        }
        // Answered by the connection, or by nobody.
        for method in ["initialize", "reconnect", "ping", "dispatchAction", "nope"] {
            assert!(RequestV1::parse(method, None).is_none(), "{method}");
        }
    }

    #[test]
    fn params_are_decoded_and_translated_by_their_row() {
        let Some(Ok(RequestV1::ListSessions(Optional(p)))) = RequestV1::parse("listSessions", None)
        else {
            panic!("listSessions without params");
        };
        assert_eq!(p.channel, ROOT_CHANNEL);
        let Some(Ok(RequestV1::Completions(shared))) = parse(
            "completions",
            r#"{"channel":"ahp-chat:/s1/default","kind":"userMessage","text":"@","offset":1}"#,
        ) else {
            panic!("completions on a default chat");
        };
        let Request::Completions(old) = shared.request else {
            panic!("not 0.3.0's completions: {:?}", shared.request);
        };
        assert_eq!(old.channel, "ahp-session:/s1");
        let Some(Ok(RequestV1::Completions(shared))) = parse(
            "completions",
            r#"{"channel":"ahp-chat:/s1/second","kind":"userMessage","text":"@","offset":1}"#,
        ) else {
            panic!("completions on another chat");
        };
        let Request::Completions(old) = shared.request else {
            panic!("not 0.3.0's completions: {:?}", shared.request);
        };
        assert_eq!(old.channel, "ahp-chat:/s1/second");
        let Some(Err(e)) = parse(
            "completions",
            r#"{"channel":"ahp-session:/s1","kind":"userMessage","text":"@","offset":1}"#,
        ) else {
            panic!("completions off a chat is an error");
        };
        assert_eq!(e.code, errors::INVALID_PARAMS);
        let Some(Err(e)) = parse("disposeTerminal", r#"{"channel":7}"#) else {
            panic!("a bad channel is an error");
        };
        assert_eq!(e.code, errors::INVALID_PARAMS);
    }
}
