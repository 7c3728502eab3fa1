//! Model agents: each configured model provider (`crate::providers`) is an agent next to the
//! built-in one. A session whose `provider` names one runs its turns through the model
//! ([`run`]): the conversation is the session's completed turns ([`history`]), the system
//! message the rendered prompt sections, the tools the host's, the session's MCP servers' and
//! the active client's ([`tools`]), with the built-in agent's confirmation rules.
//!
//! A provider without a configured key declares a protected resource (`required: false`: a
//! local server needs none; `true` with `--api-key-from-client`); a key a client sends with `authenticate` for it lives in that
//! connection's memory only (`hub/model_agents.rs`) and is used by the turns it starts.

pub mod history;
mod run;
pub mod tools;

use crate::providers::{ModelInfo, Provider, Secret};
use ahp_wasm::protocol::{AgentInfo, ProtectedResourceMetadata, SessionModelInfo};
use std::time::Duration;

/// The protected resource of provider `name`: a `.localhost` name (RFC 6761), like the
/// built-in agent's.
pub fn resource_of(name: &str) -> String {
    format!("https://ahp-host.localhost/providers/{name}")
}

/// Most models one agent lists (an endpoint may list thousands).
pub const MAX_MODELS: usize = 500;

/// A configured provider as an agent: its models, and its protected resource when its key is
/// to come from `authenticate`.
#[derive(Debug, Clone)]
pub struct ModelAgent {
    pub provider: Provider,
    /// The configured models first (the first is the default), then the endpoint's.
    pub models: Vec<ModelInfo>,
    pub resource: Option<ProtectedResourceMetadata>,
}

impl ModelAgent {
    /// The agent of `provider` offering `models` (see [`load`] for where they come from).
    pub fn new(provider: Provider, models: Vec<ModelInfo>) -> ModelAgent {
        let name = provider.config().name.clone();
        let resource = (!provider.has_key()).then(|| ProtectedResourceMetadata {
            resource: resource_of(&name),
            resource_name: Some(format!("API key of model provider {name}")),
            // Required when the key is to come from the client; else the endpoint may take
            // none (Ollama, llama.cpp) and clients may skip it.
            required: Some(provider.key_from_client()),
            ..Default::default()
        });
        ModelAgent {
            provider,
            models,
            resource,
        }
    }

    /// The agent's provider id: the configured name.
    pub fn name(&self) -> &str {
        &self.provider.config().name
    }

    /// The agent as root state lists it.
    pub fn info(&self) -> AgentInfo {
        let config = self.provider.config();
        AgentInfo {
            provider: config.name.clone(),
            display_name: format!("{} ({})", config.name, config.kind.as_str()),
            description: format!(
                "A model behind the {} endpoint at {}",
                config.kind.as_str(),
                config.base_url
            ),
            models: self.model_infos(),
            system_message_sections: Some(super::prompt::catalogue()),
            protected_resources: self.resource.clone().map(|r| vec![r]),
            ..Default::default()
        }
    }

    /// The models as root state lists them; `maxContextWindow` is the configured context
    /// window, else the endpoint's figure for that model.
    pub fn model_infos(&self) -> Vec<SessionModelInfo> {
        self.models
            .iter()
            .map(|m| SessionModelInfo {
                id: m.id.clone(),
                provider: self.name().to_owned(),
                name: m.display_name.clone().unwrap_or_else(|| m.id.clone()),
                max_context_window: self.context_window(&m.id).map(|n| n as f64),
                ..Default::default()
            })
            .collect()
    }

    /// The context window of model `id` in tokens, when known (see [`Self::model_infos`]).
    pub fn context_window(&self, id: &str) -> Option<u64> {
        let configured = self.provider.config().context_window.map(u64::from);
        configured.or_else(|| self.models.iter().find(|m| m.id == id)?.context_window)
    }

    /// Whether a session may use model `id`: one listed, or any when none is known.
    pub fn has_model(&self, id: &str) -> bool {
        self.models.is_empty() || self.models.iter().any(|m| m.id == id)
    }
}

/// The agents of `providers`: each one's configured models first, then those its endpoint
/// lists (`GET /models`, `GET /v1/models`), asked for concurrently and waited for at most
/// `timeout` (an endpoint that is down, slow or wants a key from a client offers its
/// configured models only; the start says why, never with a key).
pub async fn load(providers: &[Provider], timeout: Duration) -> Vec<ModelAgent> {
    let fetches = providers.iter().map(|p| async move {
        // Without a key the list would be refused.
        let fetch = async {
            match p.key_from_client() {
                true => Ok(Vec::new()),
                false => p.fetch_models(None).await,
            }
        };
        let listed = match tokio::time::timeout(timeout, fetch).await {
            Ok(Ok(models)) => models,
            Ok(Err(e)) => {
                eprintln!(
                    "ahp-host: model provider {}: cannot list its models ({e}); offering the \
                     configured ones",
                    p.config().name
                );
                Vec::new()
            }
            Err(_) => {
                eprintln!(
                    "ahp-host: model provider {}: its model list took over {} ms; offering the \
                     configured ones",
                    p.config().name,
                    timeout.as_millis()
                );
                Vec::new()
            }
        };
        let mut models: Vec<ModelInfo> = p
            .config()
            .models
            .iter()
            .map(|id| ModelInfo {
                id: id.clone(),
                display_name: None,
                context_window: None,
            })
            .collect();
        for model in listed {
            if models.len() >= MAX_MODELS {
                break;
            }
            match models.iter_mut().find(|m| m.id == model.id) {
                Some(known) => {
                    known.display_name = known.display_name.take().or(model.display_name);
                    known.context_window = known.context_window.or(model.context_window);
                }
                None => models.push(model),
            }
        }
        ModelAgent::new(p.clone(), models)
    });
    futures_util::future::join_all(fetches).await
}

/// What a turn of a model agent needs besides the [`super::TurnJob`].
#[derive(Debug, Clone)]
pub struct ModelRun {
    pub provider: Provider,
    /// A key from the starting connection's `authenticate` (else the configured one).
    pub key: Option<Secret>,
    /// The conversation before this turn, trimmed ([`history::build`]).
    pub history: Vec<crate::providers::Message>,
    /// The agent's protected resource (a refused key says to `authenticate` with it).
    pub resource: Option<String>,
}
