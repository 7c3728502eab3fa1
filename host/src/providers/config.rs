//! [`ProviderConfig`]: one configured model endpoint, from flags (`--provider openai
//! --base-url URL --model M`, repeatable) or a JSON file (`{"providers": [...]}`, like
//! `--mcp-config`), validated with errors that name the provider and the field.

use super::secret::KeySource;
use reqwest::Url;
use serde::Deserialize;
use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// Largest provider config file read.
pub const MAX_CONFIG_FILE_BYTES: u64 = 1 << 20;

/// The range of a configured context window, in tokens.
pub const MIN_CONTEXT_WINDOW: u32 = 256;
pub const MAX_CONTEXT_WINDOW: u32 = 100_000_000;

/// Which wire format an endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    /// OpenAI Chat Completions (OpenAI, Azure OpenAI, Ollama, llama.cpp, vLLM, LM Studio,
    /// OpenRouter, ...).
    OpenAi,
    /// The Anthropic Messages API.
    Anthropic,
}

impl ProviderKind {
    /// The name flags and files use.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Anthropic => "anthropic",
        }
    }

    /// Where the hosted API lives.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
        }
    }
}

impl FromStr for ProviderKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "openai" | "openai-compatible" => Ok(ProviderKind::OpenAi),
            "anthropic" => Ok(ProviderKind::Anthropic),
            other => Err(format!(
                "unknown provider kind `{other}` (expected `openai` or `anthropic`)"
            )),
        }
    }
}

/// The header an OpenAI-compatible endpoint takes the key in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyHeader {
    /// `Authorization: Bearer KEY` (OpenAI and most servers).
    Bearer,
    /// `api-key: KEY` (Azure OpenAI).
    ApiKey,
}

/// The waits of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Opening the connection.
    pub connect: Duration,
    /// From sending the request to the response's headers (a local model may load first).
    pub first_byte: Duration,
    /// Between two chunks of the stream.
    pub idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(120),
            idle: Duration::from_secs(60),
        }
    }
}

/// Retries of 429, 5xx and unreachable endpoints, only before anything was streamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all (1: no retry).
    pub max_attempts: u32,
    /// The first backoff; doubled per attempt, unless the endpoint sent `Retry-After`.
    pub base_delay: Duration,
    /// Longest wait before one retry: a `Retry-After` beyond it fails at once (the error
    /// carries the wait asked for).
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(500),
            max_wait: Duration::from_secs(30),
        }
    }
}

/// One configured model endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    /// Unique among the providers; the agent's name.
    pub name: String,
    pub kind: ProviderKind,
    /// The API root: `{base}/chat/completions` (OpenAI) or `{base}/v1/messages` (Anthropic).
    pub base_url: Url,
    /// The models offered; empty: the endpoint's model list. The first is the default.
    pub models: Vec<String>,
    pub key: KeySource,
    /// OpenAI-compatible only.
    pub key_header: KeyHeader,
    /// The `anthropic-version` header (Anthropic only).
    pub anthropic_version: String,
    /// `max_tokens` when the request names none.
    pub max_tokens: u32,
    /// The models' context window in tokens, when given: it sizes the conversation sent
    /// (`agent/model/history.rs`) and wins over what the endpoint lists (a server may run a
    /// model with less context than the model takes).
    pub context_window: Option<u32>,
    pub timeouts: Timeouts,
    pub retry: RetryPolicy,
    /// Bound of one response's bytes (a stream, or a model list).
    pub max_response_bytes: u64,
}

/// A provider configuration that does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The provider's name, or `#N` (1-based) when it has none yet.
    pub provider: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "model provider {}: {}", self.provider, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// One provider as written (a file entry, or the flags after one `--provider`), before
/// validation. Relative `apiKeyFile`s are resolved against the config file's directory.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderSpec {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub base_url: Option<String>,
    #[serde(default)]
    pub models: Vec<String>,
    pub api_key_env: Option<String>,
    pub api_key_file: Option<PathBuf>,
    /// The key comes from each client (`authenticate`), none from the host.
    pub api_key_from_client: Option<bool>,
    pub key_header: Option<String>,
    pub anthropic_version: Option<String>,
    pub max_tokens: Option<u32>,
    pub context_window: Option<u32>,
    pub connect_timeout_ms: Option<u64>,
    pub first_byte_timeout_ms: Option<u64>,
    pub idle_timeout_ms: Option<u64>,
    pub max_attempts: Option<u32>,
    pub max_retry_wait_ms: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ProviderFile {
    providers: Vec<ProviderSpec>,
}

/// The flags that configure providers, in the order given: each `--provider KIND` starts a
/// provider, the flags after it (up to the next `--provider`) configure it.
pub const PROVIDER_FLAGS: &[&str] = &[
    "provider",
    "provider-name",
    "base-url",
    "model",
    "api-key-env",
    "api-key-file",
    "api-key-from-client",
    "max-tokens",
    "context-window",
];

impl ProviderSpec {
    /// Groups `(flag, value)` pairs (flag names without `--`, in command-line order) into one
    /// spec per `--provider`.
    pub fn from_flags<K: AsRef<str>, V: Into<String>>(
        flags: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Vec<ProviderSpec>, ConfigError> {
        let mut specs: Vec<ProviderSpec> = Vec::new();
        for (flag, value) in flags {
            let (flag, value) = (flag.as_ref(), value.into());
            if flag == "provider" {
                specs.push(ProviderSpec {
                    kind: Some(value),
                    ..ProviderSpec::default()
                });
                continue;
            }
            let n = specs.len();
            let Some(spec) = specs.last_mut() else {
                return Err(ConfigError {
                    provider: "#1".into(),
                    message: format!("--{flag} must follow a --provider"),
                });
            };
            let once = |slot: &mut Option<String>, value: String| {
                if slot.replace(value).is_some() {
                    Err(ConfigError {
                        provider: format!("#{n}"),
                        message: format!("--{flag} given twice for one --provider"),
                    })
                } else {
                    Ok(())
                }
            };
            match flag {
                "provider-name" => once(&mut spec.name, value)?,
                "base-url" => once(&mut spec.base_url, value)?,
                "api-key-env" => once(&mut spec.api_key_env, value)?,
                "model" => spec.models.push(value),
                "api-key-from-client" => {
                    if spec.api_key_from_client.replace(true).is_some() {
                        return Err(ConfigError {
                            provider: format!("#{n}"),
                            message: "--api-key-from-client given twice for one --provider".into(),
                        });
                    }
                }
                "api-key-file" => {
                    let mut path = spec.api_key_file.take().map(|p| p.display().to_string());
                    once(&mut path, value)?;
                    spec.api_key_file = path.map(PathBuf::from);
                }
                "max-tokens" => {
                    spec.max_tokens = Some(value.parse().map_err(|_| ConfigError {
                        provider: format!("#{n}"),
                        message: format!("--max-tokens `{value}` is not a whole number"),
                    })?);
                }
                "context-window" => {
                    spec.context_window = Some(value.parse().map_err(|_| ConfigError {
                        provider: format!("#{n}"),
                        message: format!("--context-window `{value}` is not a whole number"),
                    })?);
                }
                other => {
                    return Err(ConfigError {
                        provider: format!("#{n}"),
                        message: format!("unknown provider flag --{other}"),
                    })
                }
            }
        }
        Ok(specs)
    }

    /// The specs of a JSON file `{"providers": [...]}`.
    pub fn from_file(path: &Path) -> Result<Vec<ProviderSpec>, ConfigError> {
        let fail = |message: String| ConfigError {
            provider: format!("file {}", path.display()),
            message,
        };
        let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
        if meta.len() > MAX_CONFIG_FILE_BYTES {
            return Err(fail(format!("larger than {MAX_CONFIG_FILE_BYTES} bytes")));
        }
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
        let mut file: ProviderFile =
            serde_json::from_str(&text).map_err(|e| fail(format!("invalid JSON: {e}")))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        for spec in &mut file.providers {
            if let Some(key_file) = spec.api_key_file.as_mut() {
                if key_file.is_relative() {
                    *key_file = dir.join(&*key_file);
                }
            }
        }
        Ok(file.providers)
    }

    /// Checks the spec and fills in defaults. `position` (1-based) names an unnamed one.
    pub fn validate(self, position: usize) -> Result<ProviderConfig, ConfigError> {
        let label = self.name.clone().unwrap_or_else(|| format!("#{position}"));
        let fail = |message: String| ConfigError {
            provider: label.clone(),
            message,
        };
        let kind: ProviderKind = self
            .kind
            .as_deref()
            .ok_or_else(|| fail("`kind` is missing (`openai` or `anthropic`)".into()))?
            .parse()
            .map_err(fail)?;
        let name = self.name.unwrap_or_else(|| kind.as_str().to_string());
        if name.is_empty()
            || name.len() > 64
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return Err(fail(format!(
                "name `{name}` must be 1-64 characters of letters, digits, `-`, `_` or `.`"
            )));
        }
        let base = self
            .base_url
            .unwrap_or_else(|| kind.default_base_url().to_string());
        let base_url = Url::parse(&base)
            .map_err(|e| fail(format!("base URL `{base}` does not parse: {e}")))?;
        if !matches!(base_url.scheme(), "http" | "https") {
            return Err(fail(format!("base URL `{base}` is not http or https")));
        }
        if !base_url.username().is_empty() || base_url.password().is_some() {
            return Err(fail(
                "the base URL must not hold credentials (use --api-key-env or --api-key-file)"
                    .into(),
            ));
        }
        if base_url.fragment().is_some() {
            return Err(fail(format!("base URL `{base}` has a fragment")));
        }
        let from_client = self.api_key_from_client == Some(true);
        if from_client && (self.api_key_env.is_some() || self.api_key_file.is_some()) {
            return Err(fail(
                "a key from the client excludes a key variable or file".into(),
            ));
        }
        let key = match (self.api_key_env, self.api_key_file) {
            _ if from_client => KeySource::Client,
            (Some(_), Some(_)) => {
                return Err(fail(
                    "give the API key by a variable or a file, not both".into(),
                ))
            }
            (Some(var), None) if var.is_empty() || var.contains('=') || var.contains('\0') => {
                return Err(fail(format!("`{var}` is not a variable name")))
            }
            (Some(var), None) => KeySource::Env(var),
            (None, Some(path)) => KeySource::File(path),
            (None, None) => KeySource::None,
        };
        if key != KeySource::None && base_url.scheme() == "http" && !is_loopback(&base_url) {
            return Err(fail(format!(
                "refusing to send an API key over plain http to {}",
                base_url.host_str().unwrap_or("?")
            )));
        }
        let mut models: Vec<String> = Vec::new();
        for model in self.models {
            if model.trim().is_empty() || model.len() > 256 {
                return Err(fail(format!("model `{model}` must be 1-256 characters")));
            }
            if models.contains(&model) {
                return Err(fail(format!("model `{model}` is listed twice")));
            }
            models.push(model);
        }
        let key_header = match (kind, self.key_header.as_deref()) {
            (_, None) => KeyHeader::Bearer,
            (ProviderKind::OpenAi, Some("authorization" | "bearer")) => KeyHeader::Bearer,
            (ProviderKind::OpenAi, Some("api-key")) => KeyHeader::ApiKey,
            (ProviderKind::OpenAi, Some(other)) => {
                return Err(fail(format!(
                    "keyHeader `{other}` must be `authorization` or `api-key`"
                )))
            }
            (ProviderKind::Anthropic, Some(_)) => {
                return Err(fail("keyHeader applies to openai providers only".into()))
            }
        };
        if kind == ProviderKind::OpenAi && self.anthropic_version.is_some() {
            return Err(fail(
                "anthropicVersion applies to anthropic providers only".into(),
            ));
        }
        let anthropic_version = self
            .anthropic_version
            .unwrap_or_else(|| "2023-06-01".into());
        if anthropic_version.is_empty() || !anthropic_version.is_ascii() {
            return Err(fail("anthropicVersion must be ASCII text".into()));
        }
        let max_tokens = self.max_tokens.unwrap_or(4096);
        if !(1..=1_000_000).contains(&max_tokens) {
            return Err(fail(format!(
                "maxTokens {max_tokens} is not in 1..=1000000"
            )));
        }
        if let Some(window) = self.context_window {
            if !(MIN_CONTEXT_WINDOW..=MAX_CONTEXT_WINDOW).contains(&window) {
                return Err(fail(format!(
                    "contextWindow {window} is not in \
                     {MIN_CONTEXT_WINDOW}..={MAX_CONTEXT_WINDOW} tokens"
                )));
            }
        }
        let defaults = Timeouts::default();
        let ms = |value: Option<u64>, default: Duration, what: &str| match value {
            None => Ok(default),
            Some(ms) if (1..=3_600_000).contains(&ms) => Ok(Duration::from_millis(ms)),
            Some(ms) => Err(fail(format!("{what} {ms} ms is not in 1..=3600000"))),
        };
        let timeouts = Timeouts {
            connect: ms(
                self.connect_timeout_ms,
                defaults.connect,
                "connectTimeoutMs",
            )?,
            first_byte: ms(
                self.first_byte_timeout_ms,
                defaults.first_byte,
                "firstByteTimeoutMs",
            )?,
            idle: ms(self.idle_timeout_ms, defaults.idle, "idleTimeoutMs")?,
        };
        let mut retry = RetryPolicy::default();
        if let Some(attempts) = self.max_attempts {
            if !(1..=10).contains(&attempts) {
                return Err(fail(format!("maxAttempts {attempts} is not in 1..=10")));
            }
            retry.max_attempts = attempts;
        }
        if let Some(wait) = self.max_retry_wait_ms {
            if wait > 600_000 {
                return Err(fail(format!("maxRetryWaitMs {wait} is over 600000")));
            }
            retry.max_wait = Duration::from_millis(wait);
        }
        Ok(ProviderConfig {
            name,
            kind,
            base_url,
            models,
            key,
            key_header,
            anthropic_version,
            max_tokens,
            context_window: self.context_window,
            timeouts,
            retry,
            max_response_bytes: 64 << 20,
        })
    }
}

impl ProviderConfig {
    /// Validates specs from all sources together: each must hold, and names must be unique.
    pub fn validate_all(
        specs: impl IntoIterator<Item = ProviderSpec>,
    ) -> Result<Vec<ProviderConfig>, ConfigError> {
        let mut out: Vec<ProviderConfig> = Vec::new();
        for (i, spec) in specs.into_iter().enumerate() {
            let config = spec.validate(i + 1)?;
            if out.iter().any(|c| c.name == config.name) {
                return Err(ConfigError {
                    provider: config.name.clone(),
                    message: "two providers have this name (give one --provider-name)".into(),
                });
            }
            out.push(config);
        }
        Ok(out)
    }

    /// The environment variable the key is read from: the host must withhold it from its
    /// child processes (shells, MCP servers) as it does its own token.
    pub fn key_variable(&self) -> Option<&str> {
        match &self.key {
            KeySource::Env(var) => Some(var),
            _ => None,
        }
    }

    /// `{base}/{segments...}`, the base's query (e.g. Azure's `api-version`) kept.
    pub fn endpoint(&self, segments: &[&str]) -> Url {
        let mut url = self.base_url.clone();
        let path = format!(
            "{}/{}",
            url.path().trim_end_matches('/'),
            segments.join("/")
        );
        url.set_path(&path);
        url
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host_str() {
        Some("localhost") => true,
        Some(host) => host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback()),
        None => false,
    }
}
