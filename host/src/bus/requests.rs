//! The requests of clients the hub answers, decoded and checked by their connection.

pub use super::session_filter::SessionFilter;
use crate::mcp::auth::BearerToken;
use ahp_wasm::protocol::jsonrpc::{ErrorObject, ROOT_CHANNEL};
use ahp_wasm::protocol::{
    errors, AuthenticateParams, CompletionsParams, CreateResourceWatchParams, CreateSessionParams,
    CreateTerminalParams, DisposeSessionParams, DisposeTerminalParams, FetchTurnsParams,
    InitializeParams, InvokeChangesetOperationParams, ReconnectParams, ResolveSessionConfigParams,
    SessionConfigCompletionsParams, SubscribeParams,
};

/// A request the hub answers.
#[derive(Debug)]
pub enum Request {
    /// `initialize`, with the `clientSecret` it presented (see `identity.rs`).
    Initialize(InitializeParams, Option<String>),
    /// `reconnect`, with the `clientSecret` it presented.
    Reconnect(ReconnectParams, Option<String>),
    /// `subscribe`.
    Subscribe(SubscribeParams),
    /// `createSession`.
    CreateSession(Box<CreateSessionParams>),
    /// `disposeSession`.
    DisposeSession(DisposeSessionParams),
    /// `listSessions`, with its checked filter.
    ListSessions(SessionFilter),
    /// `fetchTurns`.
    FetchTurns(FetchTurnsParams),
    /// `authenticate` (a token for an MCP server's resource).
    Authenticate(Authenticate),
    /// `resolveSessionConfig`.
    ResolveSessionConfig(ResolveSessionConfigParams),
    /// `sessionConfigCompletions`.
    SessionConfigCompletions(SessionConfigCompletionsParams),
    /// `completions`.
    Completions(CompletionsParams),
    /// `createResourceWatch`.
    CreateResourceWatch(Box<CreateResourceWatchParams>),
    /// `createTerminal`.
    CreateTerminal(Box<CreateTerminalParams>),
    /// `disposeTerminal`.
    DisposeTerminal(DisposeTerminalParams),
    /// `invokeChangesetOperation`.
    InvokeChangesetOperation(InvokeChangesetOperationParams),
}

/// Longest `resource` accepted.
const MAX_RESOURCE_BYTES: usize = 2048;

/// A checked `authenticate` request (its `Debug` shows no token).
#[derive(Debug)]
pub struct Authenticate {
    /// The protected resource.
    pub resource: String,
    /// Its token.
    pub token: BearerToken,
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
