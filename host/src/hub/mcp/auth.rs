//! MCP servers that need a bearer token (guide/mcp.md "Authentication"; `crate::mcp::auth`).
//!
//! A refused server is `authRequired` with the resource it names. `authenticate({resource,
//! token})` on the root channel stores the token for that resource and restarts every server
//! waiting on it; the answer waits until none of them is `starting`: `{}` when one is `ready`,
//! `-32007` when they refused the token (they stay `authRequired`). The protocol ties
//! `authenticate` to `AgentInfo.protectedResources`; this host widens it to the resources its
//! MCP servers name (the guide's suggested way around that gap).
//!
//! Tokens live in this process's memory only, keyed by resource, and reach nothing but the
//! server's `Authorization` header: not the state (so not the database or other clients), not
//! a log line. A server that later asks for the same resource (another session, a restart of
//! the server) is retried with the stored token before it is shown as `authRequired`.

use super::{state_changed, McpRuns};
use crate::bus::{Authenticate, ConnId};
use crate::hub::base::Core;
use crate::hub::Hub;
use crate::mcp::auth::BearerToken;
use crate::mcp::clip;
use ahp_wasm::protocol::jsonrpc::{ErrorObject, RequestId};
use ahp_wasm::protocol::{
    errors, AuthRequiredErrorData, AuthenticateResult, McpAuthRequiredReason,
    McpServerAuthRequiredState, McpServerStartingState, McpServerState,
};
use std::collections::HashMap;

/// A token pushed for one resource.
pub(in crate::hub) struct Stored {
    pub(in crate::hub) token: BearerToken,
    /// Tells attempts apart: which token an attempt presented.
    pub(in crate::hub) serial: u64,
    /// A server became ready with it (so a later refusal means it expired).
    accepted: bool,
}

/// An `authenticate` waiting for its servers to leave `starting`.
struct Pending {
    conn: ConnId,
    id: RequestId,
    resource: String,
    /// (session URI, customization id).
    servers: Vec<(String, String)>,
}

/// The tokens of this process and the `authenticate` requests in progress.
#[derive(Default)]
pub(in crate::hub) struct AuthState {
    tokens: HashMap<String, Stored>,
    next_serial: u64,
    pending: Vec<Pending>,
}

impl AuthState {
    /// The token pushed for `resource`.
    pub(in crate::hub) fn token_for(&self, resource: &str) -> Option<&Stored> {
        self.tokens.get(resource)
    }

    /// A server became ready presenting token `serial` for `resource`.
    pub(in crate::hub) fn accepted(&mut self, resource: &str, serial: u64) {
        if let Some(t) = self.tokens.get_mut(resource).filter(|t| t.serial == serial) {
            t.accepted = true;
        }
    }

    /// Whether an `authenticate` waits.
    pub(in crate::hub) fn waiting(&self) -> bool {
        !self.pending.is_empty()
    }
}

impl Hub {
    /// `authenticate`: see the module docs.
    pub(in crate::hub) fn mcp_authenticate(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        a: Authenticate,
    ) -> Result<(), ErrorObject> {
        let asking = self.mcp.asking_for(&a.resource);
        if asking.is_empty() {
            return Err(ErrorObject::new(
                errors::INVALID_PARAMS,
                format!(
                    "no MCP server of this host asked for a token for `{}` (servers name their \
                     resource in their `authRequired` state)",
                    clip(&a.resource, 200)
                ),
            ));
        }
        let auth = &mut self.mcp.auth;
        auth.next_serial += 1;
        let serial = auth.next_serial;
        auth.tokens.insert(
            a.resource.clone(),
            Stored {
                token: a.token,
                serial,
                accepted: false,
            },
        );
        let mut servers = Vec::new();
        for (session, sid) in asking {
            match super::server_state(&self.core, &session, &sid) {
                Some(McpServerState::AuthRequired(_)) => {
                    let starting = McpServerState::Starting(McpServerStartingState {
                        extra: Default::default(),
                    });
                    self.apply_server(&session, state_changed(&sid, starting));
                    self.mcp.start(&mut self.core, &session, &sid);
                }
                // Retried with this token if its attempt is refused.
                Some(McpServerState::Starting(_)) => {}
                // Ready, stopped or failed: they use it when they next start.
                _ => continue,
            }
            servers.push((session, sid));
        }
        if servers.is_empty() {
            self.core.respond(
                conn,
                id,
                &AuthenticateResult {
                    extra: Default::default(),
                },
            );
        } else {
            self.mcp.auth.pending.push(Pending {
                conn,
                id: id.clone(),
                resource: a.resource,
                servers,
            });
        }
        Ok(())
    }

    /// A server refused for authorization (`during_call`: a request of the ready server).
    /// With a token for its resource that this attempt did not present, it is retried at once;
    /// otherwise it is `authRequired` (`expired` when its refused token had worked before).
    pub(in crate::hub) fn mcp_auth_required(
        &mut self,
        channel: &str,
        id: &str,
        generation: u64,
        mut state: Box<McpServerAuthRequiredState>,
        during_call: bool,
    ) {
        let Some(run) = self.mcp_run(channel, id, generation) else {
            return;
        };
        let resource = state.resource.resource.clone();
        run.resource = Some(resource.clone());
        let attempt = run.attempt_token;
        run.halt();
        let stored = self
            .mcp
            .auth
            .token_for(&resource)
            .map(|t| (t.serial, t.accepted));
        self.mcp_refresh_tools(channel);
        if let Some((serial, accepted)) = stored {
            if attempt != Some(serial) {
                if during_call {
                    let starting = McpServerState::Starting(McpServerStartingState {
                        extra: Default::default(),
                    });
                    self.apply_server(channel, state_changed(id, starting));
                }
                self.mcp.start(&mut self.core, channel, id);
                return;
            }
            if accepted && state.reason == McpAuthRequiredReason::Required {
                state.reason = McpAuthRequiredReason::Expired;
            }
        }
        self.apply_server(
            channel,
            state_changed(id, McpServerState::AuthRequired(*state)),
        );
    }
}

/// The answer of an `authenticate` once its servers settled: `{}` when one is ready.
fn verdict(resource: &str, states: &[(String, Option<McpServerState>)]) -> Result<(), ErrorObject> {
    if states
        .iter()
        .any(|(_, s)| matches!(s, Some(McpServerState::Ready(_))))
    {
        return Ok(());
    }
    let resource = clip(resource, 200);
    let refused: Vec<(&String, &McpServerAuthRequiredState)> = states
        .iter()
        .filter_map(|(name, s)| match s {
            Some(McpServerState::AuthRequired(a)) => Some((name, a)),
            _ => None,
        })
        .collect();
    if let Some((_, first)) = refused.first() {
        let names: Vec<String> = refused.iter().map(|(n, _)| format!("`{n}`")).collect();
        let mut e = ErrorObject::new(
            errors::AUTH_REQUIRED,
            format!(
                "the token for `{resource}` was refused by MCP server {}; it stays authRequired",
                names.join(", ")
            ),
        );
        e.data = serde_json::to_value(AuthRequiredErrorData {
            resources: vec![first.resource.clone()],
            extra: Default::default(),
        })
        .ok();
        return Err(e);
    }
    let failed: Vec<String> = states
        .iter()
        .filter_map(|(n, s)| match s {
            Some(McpServerState::Error(e)) => Some(format!("`{n}`: {}", e.error.message)),
            _ => None,
        })
        .collect();
    let message = if failed.is_empty() {
        format!("the MCP servers asking for `{resource}` were stopped before the token was tried")
    } else {
        format!(
            "the token for `{resource}` was sent, but the MCP server failed: {}",
            clip(&failed.join("; "), 1000)
        )
    };
    Err(ErrorObject::new(errors::INTERNAL_ERROR, message))
}

impl McpRuns {
    /// Answers the `authenticate` requests none of whose servers is `starting` any more.
    pub(in crate::hub) fn settle_auth(&mut self, core: &mut Core) {
        for p in std::mem::take(&mut self.auth.pending) {
            let states: Vec<(String, Option<McpServerState>)> = p
                .servers
                .iter()
                .map(|(session, id)| {
                    let name = self
                        .run(session, id)
                        .map_or_else(|| id.clone(), |r| r.name().to_owned());
                    (name, super::server_state(core, session, id))
                })
                .collect();
            if states
                .iter()
                .any(|(_, s)| matches!(s, Some(McpServerState::Starting(_))))
            {
                self.auth.pending.push(p);
                continue;
            }
            match verdict(&p.resource, &states) {
                Ok(()) => core.respond(
                    p.conn,
                    &p.id,
                    &AuthenticateResult {
                        extra: Default::default(),
                    },
                ),
                Err(e) => core.respond_error(p.conn, &p.id, e),
            }
        }
    }
}
