//! [`ProviderArgs`]: the provider flags for the host's command line (clap), grouped in the
//! order given: each `--provider KIND` starts a provider, the flags after it configure it.

use super::config::{ConfigError, ProviderConfig, ProviderSpec};
use clap::ArgMatches;
use std::path::PathBuf;

/// Model providers on the command line (`#[command(flatten)]` into the host's flags).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ProviderArgs {
    /// Adds a model provider: `openai` (any OpenAI-compatible Chat Completions endpoint) or
    /// `anthropic`. The flags after it, up to the next `--provider`, configure it.
    #[arg(long = "provider", value_name = "KIND")]
    pub provider: Vec<String>,
    /// The provider's name (default: its kind); unique.
    #[arg(long = "provider-name", value_name = "NAME")]
    pub provider_name: Vec<String>,
    /// The provider's API root (default: the hosted API), e.g. http://127.0.0.1:11434/v1.
    #[arg(long = "base-url", value_name = "URL")]
    pub base_url: Vec<String>,
    /// A model the provider offers (repeatable; the first is the default). None: the
    /// endpoint's model list.
    #[arg(long = "model", value_name = "MODEL")]
    pub model: Vec<String>,
    /// The environment variable holding the provider's API key.
    #[arg(long = "api-key-env", value_name = "VAR")]
    pub api_key_env: Vec<String>,
    /// A file whose first line is the provider's API key.
    #[arg(long = "api-key-file", value_name = "FILE")]
    pub api_key_file: Vec<String>,
    /// The provider's API key comes from each client (`authenticate`), none from the host: a
    /// turn without one is refused.
    #[arg(
        long = "api-key-from-client",
        num_args = 0,
        default_missing_value = "true",
        action = clap::ArgAction::Append
    )]
    pub api_key_from_client: Vec<String>,
    /// Most tokens per response when a turn names none.
    #[arg(long = "max-tokens", value_name = "N")]
    pub max_tokens: Vec<String>,
    /// The models' context window in tokens (it sizes the conversation sent); default: what
    /// the endpoint's model list says, else about 8k tokens.
    #[arg(long = "context-window", value_name = "TOKENS")]
    pub context_window: Vec<String>,
    /// A JSON file of providers (`{"providers": [{"kind": "openai", ...}]}`); repeatable.
    #[arg(long = "provider-config", value_name = "FILE")]
    pub provider_config: Vec<PathBuf>,
}

/// The arg ids (field names) and flag names of the grouped flags.
const GROUPED: &[(&str, &str)] = &[
    ("provider", "provider"),
    ("provider_name", "provider-name"),
    ("base_url", "base-url"),
    ("model", "model"),
    ("api_key_env", "api-key-env"),
    ("api_key_file", "api-key-file"),
    ("api_key_from_client", "api-key-from-client"),
    ("max_tokens", "max-tokens"),
    ("context_window", "context-window"),
];

impl ProviderArgs {
    /// The validated providers of the files (first) and the flags, from the matches of a
    /// command this struct was flattened into (their indices give the flags' order).
    pub fn configs(matches: &ArgMatches) -> Result<Vec<ProviderConfig>, ConfigError> {
        let mut specs = Vec::new();
        if let Ok(Some(files)) = matches.try_get_many::<PathBuf>("provider_config") {
            for file in files {
                specs.extend(ProviderSpec::from_file(file)?);
            }
        }
        let mut flags: Vec<(usize, &str, String)> = Vec::new();
        for &(id, flag) in GROUPED {
            let (Ok(Some(values)), Some(indices)) =
                (matches.try_get_many::<String>(id), matches.indices_of(id))
            else {
                continue;
            };
            for (index, value) in indices.zip(values) {
                flags.push((index, flag, value.clone()));
            }
        }
        flags.sort_by_key(|(index, _, _)| *index);
        specs.extend(ProviderSpec::from_flags(
            flags.into_iter().map(|(_, flag, value)| (flag, value)),
        )?);
        ProviderConfig::validate_all(specs)
    }
}
