//! Which connections may use the protected built-in agent (`crate::agent_auth`).
//!
//! Authentication status is per connection (spec/authentication.md, "Why not store auth status
//! in root state?"): `authenticate` with the agent's resource and the right token unlocks the
//! agent for the connection that sent it, for the lock's TTL. A new connection of the same
//! client (a reconnect) authenticates again, as the spec asks clients to re-check after
//! reconnecting. When the TTL runs out the hub sends that connection `auth/required` (reason
//! `expired`) and refuses it again. A refused token leaves an earlier unlock as it was.
//!
//! Refusals: `createSession` with the agent is `-32007` AuthRequired with
//! `data.resources` (errors.schema.json's `AuthRequiredErrorData`); a `session/turnStarted` or
//! `session/pendingMessageSet` (which start turns) is rejected with a `rejectionReason` naming
//! AuthRequired, as dispatched actions get no error response.

use super::base::Core;
use super::features::Feature;
use super::{ConnId, Hub, HubMsg};
use crate::agent_auth::AgentLock;
use ahp_wasm::protocol::jsonrpc::{
    methods, notification_text, ErrorObject, RequestId, ROOT_CHANNEL,
};
use ahp_wasm::protocol::{
    errors, AuthRequiredErrorData, AuthRequiredParams, AuthRequiredReason, AuthenticateResult,
};
use std::collections::HashMap;

/// The lock and the connections it is open for.
#[derive(Default)]
pub(super) struct AgentAuth {
    lock: Option<AgentLock>,
    /// Unlocked connections: the timer of their expiry (its id and its task).
    unlocked: HashMap<ConnId, (u64, tokio::task::JoinHandle<()>)>,
    next_timer: u64,
}

impl Feature for AgentAuth {
    /// Forgets a closed connection.
    fn conn_closed(&mut self, _core: &mut Core, conn: ConnId, _subs: &[String]) {
        if let Some((_, task)) = self.unlocked.remove(&conn) {
            task.abort();
        }
    }
}

impl Hub {
    /// Protects the built-in agent: root state declares the resource from now on.
    pub fn protect_agent(&mut self, lock: AgentLock) {
        for agent in &mut self.core.root.agents {
            if agent.provider == crate::agent::PROVIDER {
                agent.protected_resources = Some(vec![lock.metadata.clone()]);
            }
        }
        self.agent_auth.lock = Some(lock);
    }

    /// Whether `authenticate` for `resource` is the agent's (else it is an MCP server's).
    pub(super) fn is_agent_resource(&self, resource: &str) -> bool {
        self.agent_auth
            .lock
            .as_ref()
            .is_some_and(|l| l.resource() == resource)
    }

    /// `authenticate` for the agent's resource.
    pub(super) fn agent_authenticate(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        a: super::Authenticate,
    ) -> Result<(), ErrorObject> {
        let lock = self
            .agent_auth
            .lock
            .as_ref()
            .expect("checked by the caller");
        if !lock.matches(a.token.expose()) {
            return Err(self.auth_required("the token for the built-in agent was refused"));
        }
        let ttl = lock.ttl;
        self.agent_auth.next_timer += 1;
        let timer = self.agent_auth.next_timer;
        let tx = self.core.tx.clone();
        let task = self.core.rt.spawn(async move {
            tokio::time::sleep(ttl).await;
            let _ = tx.send(HubMsg::AgentAuthExpired { conn, timer }).await;
        });
        if let Some((_, old)) = self.agent_auth.unlocked.insert(conn, (timer, task)) {
            old.abort();
        }
        self.core.respond(
            conn,
            id,
            &AuthenticateResult {
                extra: Default::default(),
            },
        );
        Ok(())
    }

    /// An unlock ran out: the connection is told and refused from now on.
    pub(super) fn on_agent_auth_expired(&mut self, conn: ConnId, timer: u64) {
        if !matches!(self.agent_auth.unlocked.get(&conn), Some((t, _)) if *t == timer) {
            return; // renewed meanwhile, or gone
        }
        self.agent_auth.unlocked.remove(&conn);
        let Some(lock) = &self.agent_auth.lock else {
            return;
        };
        let frame = if self.core.is_v1(conn) {
            // 1.0 names the resource by its metadata; 0.3.0 by its URI.
            let params = serde_json::json!({
                "channel": ROOT_CHANNEL, "resource": lock.metadata, "reason": "expired",
            });
            notification_text(methods::AUTH_REQUIRED, &params)
        } else {
            let params = AuthRequiredParams {
                channel: ROOT_CHANNEL.into(),
                resource: lock.resource().to_owned(),
                reason: Some(AuthRequiredReason::Expired),
                extra: Default::default(),
            };
            notification_text(methods::AUTH_REQUIRED, &params)
        };
        self.core.outbox.push((conn, std::sync::Arc::from(frame)));
    }

    /// `Ok` when `conn` may use the built-in agent: it is not protected, or `conn` unlocked it.
    pub(super) fn agent_usable(&self, conn: ConnId) -> Result<(), ErrorObject> {
        if self.agent_auth.lock.is_none() || self.agent_auth.unlocked.contains_key(&conn) {
            return Ok(());
        }
        Err(self.auth_required("authentication required for the built-in agent"))
    }

    /// `-32007` with the agent's resource in `data.resources`.
    fn auth_required(&self, message: &str) -> ErrorObject {
        let mut e = ErrorObject::new(errors::AUTH_REQUIRED, message);
        if let Some(lock) = &self.agent_auth.lock {
            e.data = serde_json::to_value(AuthRequiredErrorData {
                resources: vec![lock.metadata.clone()],
                extra: Default::default(),
            })
            .ok();
        }
        e
    }
}
