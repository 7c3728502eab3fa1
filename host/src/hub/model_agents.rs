//! The model agents (`crate::agent::model`): which providers are agents, and the API keys
//! clients gave them with `authenticate`.
//!
//! A key is kept per connection, in memory only (the spec keeps authentication out of shared
//! state: "each client authenticates independently"): never in state, the database or a log,
//! and forgotten when the connection closes. A turn uses the key of the connection whose client
//! started it (for a queued message, the active client's), else the provider's configured one.

use super::base::Core;
use super::features::Feature;
use super::sessions::Session;
use super::{ConnId, Hub};
use crate::agent::model::{history, ModelAgent, ModelRun};
use crate::providers::Secret;
use ahp_wasm::protocol::jsonrpc::{ErrorObject, RequestId};
use ahp_wasm::protocol::{errors, AuthenticateResult, Turn};
use std::collections::HashMap;

/// The agents and the keys connections gave them.
#[derive(Default)]
pub(super) struct ModelAgents {
    agents: Vec<ModelAgent>,
    /// Per connection: provider name → key.
    keys: HashMap<ConnId, HashMap<String, Secret>>,
}

impl Feature for ModelAgents {
    /// Forgets a closed connection's keys.
    fn conn_closed(&mut self, _core: &mut Core, conn: ConnId, _subs: &[String]) {
        self.keys.remove(&conn);
    }
}

impl Hub {
    /// Adds the model agents to root state, after the built-in agent (which stays the default).
    pub fn add_model_agents(&mut self, agents: Vec<ModelAgent>) {
        for agent in &agents {
            self.core.root.agents.push(agent.info());
        }
        self.model_agents.agents = agents;
    }

    /// The model agent whose provider id is `name`.
    pub(super) fn model_agent(&self, name: &str) -> Option<&ModelAgent> {
        self.model_agents.agents.iter().find(|a| a.name() == name)
    }

    /// The model agent that declared protected resource `resource`.
    pub(super) fn is_model_resource(&self, resource: &str) -> bool {
        self.model_agents
            .agents
            .iter()
            .any(|a| a.resource.as_ref().is_some_and(|r| r.resource == resource))
    }

    /// `authenticate` for a model agent's resource: the token is the provider's API key, kept
    /// for this connection (a new one replaces it).
    pub(super) fn model_authenticate(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        a: super::Authenticate,
    ) -> Result<(), ErrorObject> {
        let name = self
            .model_agents
            .agents
            .iter()
            .find(|ag| {
                ag.resource
                    .as_ref()
                    .is_some_and(|r| r.resource == a.resource)
            })
            .map(|ag| ag.name().to_owned())
            .expect("checked by the caller");
        let key = Secret::new(a.token.expose())
            .ok_or_else(|| ErrorObject::new(errors::INVALID_PARAMS, "the API key is empty"))?;
        self.model_agents
            .keys
            .entry(conn)
            .or_default()
            .insert(name, key);
        self.core.respond(
            conn,
            id,
            &AuthenticateResult {
                extra: Default::default(),
            },
        );
        Ok(())
    }

    /// What a turn of `session` needs when a model agent runs it: the provider, the key of the
    /// starting client's connection (`from_client`, else the active client), the trimmed
    /// conversation (`reserved`: characters of the system message and the new message).
    pub(super) fn model_run(
        &self,
        session: &Session,
        from_client: Option<&str>,
        reserved: usize,
    ) -> Option<ModelRun> {
        let state = &session.members;
        let agent = self.model_agent(&state.summary.provider)?;
        let client = from_client.or(state.active_client.as_ref().map(|c| c.client_id.as_str()));
        let key = client.and_then(|client| {
            self.core
                .conns
                .iter()
                .filter(|(_, c)| c.client_id.as_deref() == Some(client))
                .find_map(|(conn, _)| self.model_agents.keys.get(conn)?.get(agent.name()))
                .cloned()
        });
        // A session that names no model runs the default one (the first).
        let model = state
            .summary
            .model
            .as_ref()
            .map(|m| m.id.as_str())
            .or_else(|| agent.models.first().map(|m| m.id.as_str()));
        let context = model.and_then(|m| agent.context_window(m));
        let budget = history::budget(context);
        Some(ModelRun {
            provider: agent.provider.clone(),
            key,
            history: history::build_newest_first(newest_first(session), budget, reserved),
            resource: agent.resource.as_ref().map(|r| r.resource.clone()),
        })
    }
}

/// The completed turns of `session`'s conversation newest first, each converted to 0.3.0 as
/// it is read (the history takes only as many as fit). A turn without a 0.3.0 view (a bug of
/// the view, which the debug check panics on) ends the history there.
fn newest_first(session: &Session) -> impl Iterator<Item = (usize, Box<Turn>)> + '_ {
    let mirror = &session.v1;
    (0..mirror.chat.turns.len()).rev().map_while(move |i| {
        let turn = mirror.v03_turns(i..i + 1).ok()?.pop()?;
        Some((i, Box::new(turn)))
    })
}
