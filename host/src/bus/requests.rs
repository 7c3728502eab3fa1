//! The requests of clients the hub answers: the host's command table
//! (`for_each_host_command!`), the [`Request`] it defines, and the checked params the
//! connection decodes for the hub.
//!
//! A command is one row of the table: its kind (`handshake`: allowed before `initialize`;
//! `session`: after), the [`Request`] variant, the SDK's command marker
//! (`ahp_wasm::protocol::jsonrpc`, which names its method), the decoded params and the hub's
//! handler. The table expands here into [`Request`] and [`Request::parse`] (method name ->
//! decoded params, on the connection), and in `hub/commands.rs` into the dispatch to the
//! handlers (`Hub::handler(&mut self, ConnId, &RequestId, Params) -> Result<(), ErrorObject>`).
//! Adding a command is a row here plus its handler.

pub use super::session_filter::SessionFilter;
use crate::mcp::auth::BearerToken;
use ahp_wasm::protocol::decode::Decode;
use ahp_wasm::protocol::jsonrpc::{decode_params, Command, ErrorObject, ROOT_CHANNEL};
use ahp_wasm::protocol::RawJson;
use ahp_wasm::protocol::{
    errors, AuthenticateParams, CompletionsParams, CreateResourceWatchParams, CreateSessionParams,
    CreateTerminalParams, DisposeSessionParams, DisposeTerminalParams, FetchTurnsParams,
    InitializeParams, InvokeChangesetOperationParams, ListSessionsParams, ReconnectParams,
    ResolveSessionConfigParams, SessionConfigCompletionsParams, SubscribeParams,
};

/// Calls `$callback! { rows }` with the host's command table, one row per command the hub
/// answers:
///
/// ```text
/// kind Variant(Marker) = Params => handler;
/// ```
///
/// `ping`, `dispatchAction` and the sandboxed `resource*` commands are answered by the
/// connection itself (`connection.rs`), never by the hub.
macro_rules! for_each_host_command {
    ($callback:ident) => {
        $callback! {
            handshake Initialize(Initialize) = Handshake<InitializeParams> => initialize;
            handshake Reconnect(Reconnect) = Handshake<ReconnectParams> => reconnect;
            session Subscribe(Subscribe) = SubscribeParams => on_subscribe;
            session CreateSession(CreateSession) = CreateSessionParams => create_session;
            session DisposeSession(DisposeSession) = DisposeSessionParams => dispose_session;
            session ListSessions(ListSessions) = SessionFilter => list_sessions;
            session FetchTurns(FetchTurns) = FetchTurnsParams => fetch_turns;
            session Authenticate(Authenticate) = Authenticate => authenticate;
            session ResolveSessionConfig(ResolveSessionConfig) = ResolveSessionConfigParams => resolve_session_config;
            session SessionConfigCompletions(SessionConfigCompletions) = SessionConfigCompletionsParams => session_config_completions;
            session Completions(Completions) = CompletionsParams => completions;
            session CreateResourceWatch(CreateResourceWatch) = CreateResourceWatchParams => create_watch;
            session CreateTerminal(CreateTerminal) = CreateTerminalParams => create_terminal;
            session DisposeTerminal(DisposeTerminal) = DisposeTerminalParams => on_dispose_terminal;
            session InvokeChangesetOperation(InvokeChangesetOperation) = InvokeChangesetOperationParams => invoke_changeset_operation;
        }
    };
}
pub(crate) use for_each_host_command;

/// Whether a row of the table may come before `initialize`.
macro_rules! before_initialize {
    (handshake) => {
        true
    };
    (session) => {
        false
    };
}

/// [`Request`] and its parsing, from the table.
macro_rules! define_requests {
    ($($kind:ident $variant:ident($marker:ident) = $params:ty => $handler:ident;)*) => {
        /// A request the hub answers, with its decoded and checked params.
        #[derive(Debug)]
        // It travels boxed (`HubMsg::Request`): its size is one allocation's, not the queue's.
        #[allow(clippy::large_enum_variant)]
        pub enum Request {
            $(
                #[doc = concat!("`", stringify!($marker), "`.")]
                $variant($params),
            )*
        }

        impl Request {
            /// The request for `method` with its params decoded and checked (the JSON-RPC
            /// error when they are not); `None` when the hub answers no such command.
            pub fn parse(
                method: &str,
                params: Option<RawJson<'_>>,
            ) -> Option<Result<Request, ErrorObject>> {
                $(
                    if method == <ahp_wasm::protocol::jsonrpc::$marker as Command>::METHOD {
                        return Some(<$params as Params>::parse(params).map(Request::$variant));
                    }
                )*
                None
            }

            /// Whether `method` is a command a connection may send before `initialize`.
            pub fn before_initialize(method: &str) -> bool {
                $(
                    if method == <ahp_wasm::protocol::jsonrpc::$marker as Command>::METHOD {
                        return before_initialize!($kind);
                    }
                )*
                false
            }
        }
    };
}

for_each_host_command!(define_requests);

/// Params as a connection decodes and checks them for the hub.
pub trait Params: Sized {
    /// Decodes and checks `params`; the error is the JSON-RPC error to answer.
    fn parse(params: Option<RawJson<'_>>) -> Result<Self, ErrorObject>;
}

impl<T: Decode> Params for T {
    fn parse(params: Option<RawJson<'_>>) -> Result<T, ErrorObject> {
        decode_params(params)
    }
}

/// A handshake's params, with the `clientSecret` it presented beside them (an `ahp-host`
/// extension; see `hub/identity.rs`).
#[derive(Debug)]
pub struct Handshake<P> {
    /// The protocol's params.
    pub params: P,
    /// The secret, if any.
    pub client_secret: Option<String>,
}

impl<P: Decode> Params for Handshake<P> {
    fn parse(params: Option<RawJson<'_>>) -> Result<Self, ErrorObject> {
        Ok(Handshake {
            params: decode_params(params)?,
            client_secret: client_secret(params),
        })
    }
}

/// The `clientSecret` beside a handshake's params.
fn client_secret(params: Option<RawJson<'_>>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Presented {
        #[serde(rename = "clientSecret")]
        client_secret: Option<String>,
    }
    let params = params?;
    serde_json::from_str::<Presented>(params.get())
        .ok()?
        .client_secret
}

impl Params for SessionFilter {
    fn parse(params: Option<RawJson<'_>>) -> Result<Self, ErrorObject> {
        SessionFilter::from_params(decode_params::<ListSessionsParams>(params)?)
    }
}

/// Longest `resource` accepted.
const MAX_RESOURCE_BYTES: usize = 2048;

/// A checked `authenticate` request (its `Debug` shows no token). The token is checked and
/// wrapped on the connection, before anything could print it.
#[derive(Debug)]
pub struct Authenticate {
    /// The protected resource.
    pub resource: String,
    /// Its token.
    pub token: BearerToken,
}

impl Params for Authenticate {
    fn parse(params: Option<RawJson<'_>>) -> Result<Self, ErrorObject> {
        Authenticate::from_params(decode_params::<AuthenticateParams>(params)?)
    }
}

impl Authenticate {
    /// Checks the params; errors never contain the token.
    pub fn from_params(p: AuthenticateParams) -> Result<Authenticate, ErrorObject> {
        let invalid = |m: String| ErrorObject::new(errors::INVALID_PARAMS, m);
        if p.channel != ROOT_CHANNEL {
            return Err(invalid(format!(
                "`authenticate` is sent on the root channel (`{ROOT_CHANNEL}`)"
            )));
        }
        if p.resource.is_empty() || p.resource.len() > MAX_RESOURCE_BYTES {
            return Err(invalid(format!(
                "`resource` must be 1 to {MAX_RESOURCE_BYTES} bytes"
            )));
        }
        let token = BearerToken::parse(p.token).map_err(invalid)?;
        Ok(Authenticate {
            resource: p.resource,
            token,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ahp_wasm::protocol::jsonrpc::REQUEST_METHODS;

    /// The methods of the table's rows, in order.
    macro_rules! row_methods {
        ($($kind:ident $variant:ident($marker:ident) = $params:ty => $handler:ident;)*) => {
            [$(<ahp_wasm::protocol::jsonrpc::$marker as Command>::METHOD),*]
        };
    }

    fn parse(method: &str, params: &str) -> Option<Result<Request, ErrorObject>> {
        Request::parse(method, Some(RawJson::from_text(params).unwrap()))
    }

    #[test]
    fn every_row_is_a_protocol_command_once_and_only_handshakes_come_first() {
        let methods = for_each_host_command!(row_methods);
        for (i, method) in methods.iter().enumerate() {
            assert!(REQUEST_METHODS.contains(method), "`{method}` is not AHP's");
            assert!(!methods[..i].contains(method), "`{method}` twice");
            assert!(
                Request::parse(method, None).is_some(),
                "`{method}` not parsed"
            );
        }
        let early: Vec<&str> = methods
            .into_iter()
            .filter(|m| Request::before_initialize(m))
            .collect();
        assert_eq!(early, ["initialize", "reconnect"]);
        // Answered by the connection, or by nobody.
        for method in ["ping", "dispatchAction", "resourceRead", "nope"] {
            assert!(Request::parse(method, None).is_none(), "{method}");
            assert!(!Request::before_initialize(method), "{method}");
        }
    }

    #[test]
    fn params_are_decoded_and_checked_by_their_row() {
        let Some(Ok(Request::Initialize(h))) = parse(
            "initialize",
            r#"{"channel":"ahp-root://","protocolVersions":["0.3.0"],"clientId":"c1","clientSecret":"s"}"#,
        ) else {
            panic!("initialize with a secret");
        };
        assert_eq!(h.params.client_id, "c1");
        assert_eq!(h.client_secret.as_deref(), Some("s"));
        let Some(Ok(Request::DisposeSession(p))) =
            parse("disposeSession", r#"{"channel":"ahp-session:/a"}"#)
        else {
            panic!("disposeSession");
        };
        assert_eq!(p.channel, "ahp-session:/a");
        let Some(Err(e)) = parse("disposeSession", r#"{"channel":7}"#) else {
            panic!("a bad channel is an error");
        };
        assert_eq!(e.code, errors::INVALID_PARAMS);
        assert!(e.message.contains("`channel`"), "{}", e.message);
        let Some(Err(e)) = parse(
            "listSessions",
            r#"{"channel":"ahp-root://","filter":{"colour":"red"}}"#,
        ) else {
            panic!("an unknown filter member is an error");
        };
        assert_eq!(e.code, errors::INVALID_PARAMS);
        let Some(Err(e)) = parse(
            "authenticate",
            r#"{"channel":"ahp-root://","resource":"","token":"secret-token"}"#,
        ) else {
            panic!("an empty resource is an error");
        };
        assert_eq!(e.code, errors::INVALID_PARAMS);
        assert!(!e.message.contains("secret-token"));
    }
}
