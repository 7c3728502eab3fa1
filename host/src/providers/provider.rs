//! [`Provider`]: one configured endpoint, ready to stream turns and list models.

use super::anthropic::{self, AnthropicWire};
use super::config::{ProviderConfig, ProviderKind};
use super::error::ProviderError;
use super::openai::{self, OpenAiWire};
use super::secret::{KeyError, Secret};
use super::transport::{self, EventStream, Prepared};
use super::types::{ChatRequest, ModelInfo};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A model endpoint: its config, its key (if configured) and its HTTP client. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Provider {
    config: Arc<ProviderConfig>,
    key: Option<Secret>,
    client: reqwest::Client,
}

/// Why a provider cannot be set up.
#[derive(Debug)]
pub enum SetupError {
    /// Its key cannot be read.
    Key { provider: String, error: KeyError },
    /// Its HTTP client cannot be built.
    Client {
        provider: String,
        error: ProviderError,
    },
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::Key { provider, error } => write!(f, "model provider {provider}: {error}"),
            SetupError::Client { provider, error } => {
                write!(f, "model provider {provider}: {error}")
            }
        }
    }
}

impl std::error::Error for SetupError {}

impl Provider {
    /// Reads the configured key (once) and builds the client.
    pub fn new(config: ProviderConfig) -> Result<Provider, SetupError> {
        let key = config.key.resolve().map_err(|error| SetupError::Key {
            provider: config.name.clone(),
            error,
        })?;
        Provider::with_key(config, key)
    }

    /// A provider whose key is `key` whatever its config says (tests, or a key from elsewhere).
    pub fn with_key(config: ProviderConfig, key: Option<Secret>) -> Result<Provider, SetupError> {
        let client = transport::client(&config).map_err(|error| SetupError::Client {
            provider: config.name.clone(),
            error,
        })?;
        Ok(Provider {
            config: Arc::new(config),
            key,
            client,
        })
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// Whether a key was configured (else requests go without one, unless given at runtime).
    pub fn has_key(&self) -> bool {
        self.key.is_some()
    }

    /// Whether the key is to come from each client (`KeySource::Client`).
    pub fn key_from_client(&self) -> bool {
        self.config.key == super::secret::KeySource::Client
    }

    /// Streams one model response. `key` (e.g. from a connection's `authenticate`) takes the
    /// place of the configured one. Cancelling `cancel`, or dropping the stream, closes the
    /// HTTP connection at once.
    pub fn stream(
        &self,
        request: &ChatRequest,
        key: Option<&Secret>,
        cancel: CancellationToken,
    ) -> EventStream {
        let key = key.or(self.key.as_ref()).cloned();
        let config = &self.config;
        let built = match config.kind {
            ProviderKind::OpenAi => openai::headers(config, key.as_ref()).map(|h| {
                let url = config.endpoint(&["chat", "completions"]);
                (url, h, openai::request_body(request))
            }),
            ProviderKind::Anthropic => anthropic::headers(config, key.as_ref()).map(|h| {
                let url = config.endpoint(&["v1", "messages"]);
                (url, h, anthropic::request_body(request, config))
            }),
        };
        let (url, headers, body) = match built {
            Ok(built) => built,
            Err(e) => return EventStream::failed(e),
        };
        let prepared = Prepared {
            url,
            headers,
            body: body.to_string().into(),
        };
        let (client, config) = (self.client.clone(), self.config.clone());
        match config.kind {
            ProviderKind::OpenAi => {
                let k = key.clone();
                let wire = move || OpenAiWire::new(k.clone());
                transport::spawn_stream(client, config, prepared, wire, key, cancel)
            }
            ProviderKind::Anthropic => {
                let k = key.clone();
                let wire = move || AnthropicWire::new(k.clone());
                transport::spawn_stream(client, config, prepared, wire, key, cancel)
            }
        }
    }

    /// The models to offer: the configured ones, else the endpoint's list.
    pub async fn models(&self, key: Option<&Secret>) -> Result<Vec<ModelInfo>, ProviderError> {
        if self.config.models.is_empty() {
            return self.fetch_models(key).await;
        }
        Ok(self
            .config
            .models
            .iter()
            .map(|id| ModelInfo {
                id: id.clone(),
                display_name: None,
                context_window: None,
            })
            .collect())
    }

    /// The endpoint's model list (`GET /models`, `GET /v1/models`).
    pub async fn fetch_models(
        &self,
        key: Option<&Secret>,
    ) -> Result<Vec<ModelInfo>, ProviderError> {
        let key = key.or(self.key.as_ref());
        let config = &self.config;
        match config.kind {
            ProviderKind::OpenAi => {
                let mut headers = openai::headers(config, key)?;
                headers.insert(
                    http::header::ACCEPT,
                    http::HeaderValue::from_static("application/json"),
                );
                let url = config.endpoint(&["models"]);
                let body = transport::get_json(&self.client, config, url, headers, key).await?;
                openai::parse_models(&body)
            }
            ProviderKind::Anthropic => {
                let mut headers = anthropic::headers(config, key)?;
                headers.insert(
                    http::header::ACCEPT,
                    http::HeaderValue::from_static("application/json"),
                );
                let mut url = config.endpoint(&["v1", "models"]);
                url.query_pairs_mut().append_pair("limit", "1000");
                let body = transport::get_json(&self.client, config, url, headers, key).await?;
                anthropic::parse_models(&body)
            }
        }
    }
}
