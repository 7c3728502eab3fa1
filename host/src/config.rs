//! Command-line flags and the resolved [`Config`] the server runs with.

use crate::mcp::McpLimits;
use crate::security::Token;
use clap::Parser;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long the host waits for a client's `systemMessageTransform` answer unless told
/// otherwise (the proposal's ~5 s; see `agent/transform.rs`).
pub const DEFAULT_TRANSFORM_TIMEOUT: Duration = Duration::from_secs(5);

/// `ahp-host`: an Agent Host Protocol 0.3.0 server with a built-in agent.
#[derive(Debug, Parser)]
#[command(name = "ahp-host", version, about, long_about = None)]
pub struct Cli {
    /// Address to listen on. Anything but a loopback address also needs `--allow-remote`.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub listen: IpAddr,
    /// Port to listen on; 0 picks a free port (the chosen one is printed).
    #[arg(long, default_value_t = 8787)]
    pub port: u16,
    /// Allow listening on a non-loopback address (the token is then the only protection).
    #[arg(long)]
    pub allow_remote: bool,
    /// Access token clients must present (default: a random 192-bit token, printed at start).
    #[arg(long, env = "AHP_HOST_TOKEN", hide_env_values = true)]
    pub token: Option<Token>,
    /// An extra allowed `Origin` for WebSocket upgrades (repeatable), e.g. http://localhost:5173.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Directory for the SQLite database (default: $XDG_STATE_HOME/ahp-host,
    /// ~/.local/state/ahp-host, or ./.ahp-host).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Working directory of new sessions; `resource*` commands and the agent's file tools are
    /// confined to it (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// The web page directory served at `/` (default: `www/` of the workspace).
    #[arg(long, value_name = "DIR")]
    pub www: Option<PathBuf>,
    /// The npm package directory served at `/pkg/` (default: `pkg/` of the workspace).
    #[arg(long, value_name = "DIR")]
    pub pkg: Option<PathBuf>,
    /// Delay between the built-in agent's streamed chunks, in milliseconds.
    #[arg(long, default_value_t = 30)]
    pub chunk_delay_ms: u64,
    /// How long the agent waits for a client tool call (`/client-tool`) to be completed by
    /// the client that provides it before failing it (`ClientToolTimeout`), in milliseconds.
    #[arg(long, default_value_t = 30_000)]
    pub client_tool_timeout_ms: u64,
    /// How long a client that provides a running tool call may stay disconnected before the
    /// call is failed (`ClientDisconnected`), in milliseconds.
    #[arg(long, default_value_t = 5_000)]
    pub client_tool_grace_ms: u64,
    /// An MCP config file (`{"mcpServers": {...}}`) whose servers every session runs, besides
    /// those of the `.mcp.json` in the session's working directory (once approved).
    #[arg(long, value_name = "FILE")]
    pub mcp_config: Option<PathBuf>,
    /// Start the MCP servers of a working directory's `.mcp.json` without a client's approval
    /// (as the operator's are). Off by default: the repository wrote that file.
    #[arg(long)]
    pub trust_project_mcp: bool,
    /// An Open Plugins directory (repeatable): every session shows it as a plugin (skills,
    /// agents, commands, prompts, rules, hooks) and runs the MCP servers of its `.mcp.json`.
    #[arg(long = "plugins", value_name = "DIR")]
    pub plugins: Vec<PathBuf>,
    /// How long a client may take to answer one of the host's requests (`resourceList` /
    /// `resourceRead` of a plugin it published), in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub client_request_timeout_ms: u64,
    /// How long the active client may take to answer a `systemMessageTransform` request (our
    /// extension) before the turn uses the rendered sections, in milliseconds.
    #[arg(long, default_value_t = 5_000)]
    pub transform_timeout_ms: u64,
    /// Print debug lines on stderr: the audit of every `systemMessageTransform` (section ids and
    /// content hashes, never the content).
    #[arg(long, env = "AHP_HOST_DEBUG")]
    pub debug: bool,
    /// How long an MCP server may take to start and answer `initialize`, in milliseconds.
    #[arg(long, default_value_t = 30_000)]
    pub mcp_init_timeout_ms: u64,
    /// How long one MCP request (a tool call) may take, in milliseconds.
    #[arg(long, default_value_t = 60_000)]
    pub mcp_request_timeout_ms: u64,
    /// How long a tool call whose MCP server refused it for authorization waits for a new
    /// token (`authenticate`) before it fails, in milliseconds.
    #[arg(long, default_value_t = 600_000)]
    pub mcp_auth_wait_ms: u64,
    /// Largest message accepted from an MCP server (e.g. one tool result), in bytes.
    #[arg(long, default_value_t = McpLimits::default().max_message_bytes)]
    pub mcp_max_message_bytes: usize,
    /// Largest request a client may send on an `mcp://` channel (MCP Apps), in bytes.
    #[arg(long, default_value_t = McpLimits::default().max_channel_request_bytes)]
    pub mcp_channel_max_request_bytes: usize,
    /// Requests one connection may have in flight on `mcp://` channels.
    #[arg(long, default_value_t = McpLimits::default().max_channel_inflight)]
    pub mcp_channel_max_inflight: usize,
    /// Largest accepted text frame, in bytes.
    #[arg(long, default_value_t = Limits::default().max_frame_bytes)]
    pub max_frame_bytes: usize,
    /// Most subscriptions one connection may hold.
    #[arg(long, default_value_t = Limits::default().max_subscriptions)]
    pub max_subscriptions: usize,
    /// Action envelopes kept for `reconnect` replay.
    #[arg(long, default_value_t = Limits::default().replay_entries)]
    pub replay_entries: usize,
    /// Messages queued for one connection before it is dropped as a slow consumer.
    #[arg(long, default_value_t = Limits::default().outbound_queue)]
    pub outbound_queue: usize,
    /// Bytes queued for one connection before it is dropped as a slow consumer.
    #[arg(long, default_value_t = Limits::default().outbound_queue_bytes)]
    pub outbound_queue_bytes: usize,
    /// Largest answer to one request (e.g. the snapshots of `initialize`), in bytes.
    #[arg(long, default_value_t = Limits::default().max_response_bytes)]
    pub max_response_bytes: usize,
    /// Most simultaneous WebSocket connections.
    #[arg(long, default_value_t = Limits::default().max_connections)]
    pub max_connections: usize,
    /// Most simultaneous connections that have not upgraded to an authenticated WebSocket
    /// (page requests, upgrade attempts, idle sockets).
    #[arg(long, default_value_t = Limits::default().max_unauthenticated)]
    pub max_unauthenticated: usize,
    /// Most sessions the host keeps.
    #[arg(long, default_value_t = Limits::default().max_sessions)]
    pub max_sessions: usize,
    /// Most bytes of turns one session may store; a session over it accepts no new messages.
    #[arg(long, default_value_t = Limits::default().max_session_bytes)]
    pub max_session_bytes: usize,
    /// Most bytes one client's published plugins may add to a session's state (their entries as
    /// JSON, children included); a plugin past it is shown `degraded` with the children that fit.
    #[arg(long, default_value_t = Limits::default().max_client_customization_bytes)]
    pub max_client_customization_bytes: usize,
    /// Protect the built-in agent with the token in this file (one line, at least 16
    /// characters): clients `authenticate` before using it. A file, not a flag or variable, so
    /// the token shows neither in `ps` nor in child processes' environments.
    #[arg(long, value_name = "FILE")]
    pub agent_auth_token_file: Option<PathBuf>,
    /// The resource identifier the protected agent declares (an https URL, RFC 9728).
    #[arg(long, value_name = "URL", default_value = crate::agent_auth::DEFAULT_RESOURCE)]
    pub agent_auth_resource: String,
    /// How long one `authenticate` unlocks the agent for a connection, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = crate::agent_auth::DEFAULT_TTL.as_secs())]
    pub agent_auth_ttl: u64,
    /// Model providers (`--provider openai --base-url URL --model M`, repeatable): each is an
    /// agent next to the built-in one. Read with [`providers_from`] (the flags' order matters).
    #[command(flatten)]
    pub providers: crate::providers::ProviderArgs,
}

/// Resource bounds; every one of them is enforced and tested.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest text frame handled; larger ones get a JSON-RPC error (the connection stays).
    pub max_frame_bytes: usize,
    /// Frames beyond this size close the connection at the WebSocket layer.
    pub hard_frame_bytes: usize,
    /// Deepest JSON nesting accepted.
    pub max_json_depth: usize,
    /// Subscriptions per connection.
    pub max_subscriptions: usize,
    /// Envelopes kept for replay.
    pub replay_entries: usize,
    /// Bytes of envelopes kept for replay.
    pub replay_bytes: usize,
    /// Pending outbound messages per connection.
    pub outbound_queue: usize,
    /// Bytes of pending outbound messages per connection.
    pub outbound_queue_bytes: usize,
    /// Longest a single write to a connection may stall before it is dropped.
    pub write_timeout: Duration,
    /// Largest answer to one request (`initialize`, `reconnect` and `subscribe` snapshots).
    pub max_response_bytes: usize,
    /// Simultaneous WebSocket connections.
    pub max_connections: usize,
    /// Simultaneous connections still in HTTP (not an authenticated WebSocket).
    pub max_unauthenticated: usize,
    /// Longest wait for a request's headers (slowloris, idle sockets).
    pub header_timeout: Duration,
    /// Largest file `resourceRead` returns.
    pub max_resource_bytes: u64,
    /// Sessions per host.
    pub max_sessions: usize,
    /// Bytes of turns one session may store.
    pub max_session_bytes: usize,
    /// Bytes one client's customizations may add to a session's state.
    pub max_client_customization_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frame_bytes: 1 << 20,
            hard_frame_bytes: 16 << 20,
            max_json_depth: 64,
            max_subscriptions: 256,
            replay_entries: 50_000,
            replay_bytes: 64 << 20,
            outbound_queue: 8192,
            outbound_queue_bytes: 64 << 20,
            write_timeout: Duration::from_secs(30),
            max_response_bytes: 32 << 20,
            max_connections: 4096,
            max_unauthenticated: 256,
            header_timeout: Duration::from_secs(10),
            max_resource_bytes: 8 << 20,
            max_sessions: 10_000,
            max_session_bytes: 24 << 20,
            max_client_customization_bytes: 1 << 20,
        }
    }
}

/// Everything the server needs to run; built from [`Cli`] or directly (tests).
#[derive(Debug, Clone)]
pub struct Config {
    /// Listen address.
    pub listen: IpAddr,
    /// Listen port (0: any free port).
    pub port: u16,
    /// Whether a non-loopback `listen` is allowed.
    pub allow_remote: bool,
    /// The access token (generated when `None`).
    pub token: Option<Token>,
    /// Extra allowed origins.
    pub allow_origins: Vec<String>,
    /// Where the database lives.
    pub data_dir: PathBuf,
    /// Session working directory and resource sandbox root.
    pub workdir: PathBuf,
    /// Static page directory.
    pub www: PathBuf,
    /// npm package directory.
    pub pkg: PathBuf,
    /// The agent's streaming delay.
    pub chunk_delay: Duration,
    /// Longest wait for a client tool call's result.
    pub client_tool_timeout: Duration,
    /// Longest absence of the client that provides a running tool call.
    pub client_tool_grace: Duration,
    /// Bounds.
    pub limits: Limits,
    /// `--mcp-config`: MCP servers for every session.
    pub mcp_config: Option<PathBuf>,
    /// `--plugins`: plugin directories (shown in every session; their `.mcp.json` servers run
    /// in every session).
    pub plugins: Vec<PathBuf>,
    /// `--trust-project-mcp`: working-directory MCP servers start without approval.
    pub trust_project_mcp: bool,
    /// Longest wait for a client's answer to a host request.
    pub client_request_timeout: Duration,
    /// Longest wait for the active client's `systemMessageTransform` answer.
    pub transform_timeout: Duration,
    /// `--debug`: debug lines on stderr.
    pub debug: bool,
    /// Bounds of MCP servers.
    pub mcp: McpLimits,
    /// `--agent-auth-token-file`: the built-in agent needs `authenticate` first.
    pub agent_auth: Option<crate::agent_auth::AgentAuthConfig>,
    /// Model providers, their keys read (see [`providers_from`]): each becomes an agent.
    pub providers: Vec<crate::providers::Provider>,
    /// How long the start waits for each provider's model list.
    pub provider_models_timeout: Duration,
}

impl Config {
    /// A loopback config on a free port with the given data and working directories.
    pub fn local(data_dir: impl Into<PathBuf>, workdir: impl Into<PathBuf>) -> Config {
        Config {
            listen: IpAddr::from([127, 0, 0, 1]),
            port: 0,
            allow_remote: false,
            token: None,
            allow_origins: Vec::new(),
            data_dir: data_dir.into(),
            workdir: workdir.into(),
            www: default_asset_dir("www"),
            pkg: default_asset_dir("pkg"),
            chunk_delay: Duration::from_millis(5),
            client_tool_timeout: Duration::from_secs(30),
            client_tool_grace: Duration::from_secs(5),
            limits: Limits::default(),
            mcp_config: None,
            plugins: Vec::new(),
            trust_project_mcp: false,
            client_request_timeout: Duration::from_secs(10),
            transform_timeout: DEFAULT_TRANSFORM_TIMEOUT,
            debug: false,
            mcp: McpLimits::default(),
            agent_auth: None,
            providers: Vec::new(),
            provider_models_timeout: DEFAULT_MODELS_TIMEOUT,
        }
    }
}

impl From<Cli> for Config {
    fn from(cli: Cli) -> Config {
        let limits = Limits {
            max_frame_bytes: cli.max_frame_bytes,
            max_subscriptions: cli.max_subscriptions,
            replay_entries: cli.replay_entries,
            outbound_queue: cli.outbound_queue.max(16),
            outbound_queue_bytes: cli.outbound_queue_bytes,
            max_response_bytes: cli.max_response_bytes,
            max_connections: cli.max_connections,
            max_unauthenticated: cli.max_unauthenticated.max(1),
            max_sessions: cli.max_sessions,
            max_session_bytes: cli.max_session_bytes,
            max_client_customization_bytes: cli.max_client_customization_bytes,
            ..Limits::default()
        };
        Config {
            listen: cli.listen,
            port: cli.port,
            allow_remote: cli.allow_remote,
            token: cli.token,
            allow_origins: cli.allow_origins,
            data_dir: cli.data_dir.unwrap_or_else(default_data_dir),
            workdir: cli.workdir.unwrap_or_else(|| PathBuf::from(".")),
            www: cli.www.unwrap_or_else(|| default_asset_dir("www")),
            pkg: cli.pkg.unwrap_or_else(|| default_asset_dir("pkg")),
            chunk_delay: Duration::from_millis(cli.chunk_delay_ms),
            client_tool_timeout: Duration::from_millis(cli.client_tool_timeout_ms),
            client_tool_grace: Duration::from_millis(cli.client_tool_grace_ms),
            limits,
            mcp_config: cli.mcp_config,
            plugins: cli.plugins,
            trust_project_mcp: cli.trust_project_mcp,
            client_request_timeout: Duration::from_millis(cli.client_request_timeout_ms.max(1)),
            transform_timeout: Duration::from_millis(cli.transform_timeout_ms.max(1)),
            debug: cli.debug,
            mcp: McpLimits {
                init_timeout: Duration::from_millis(cli.mcp_init_timeout_ms),
                request_timeout: Duration::from_millis(cli.mcp_request_timeout_ms),
                auth_wait: Duration::from_millis(cli.mcp_auth_wait_ms),
                max_message_bytes: cli.mcp_max_message_bytes.max(1024),
                max_channel_request_bytes: cli.mcp_channel_max_request_bytes,
                max_channel_inflight: cli.mcp_channel_max_inflight.max(1),
                ..McpLimits::default()
            },
            agent_auth: cli.agent_auth_token_file.map(|token_file| {
                crate::agent_auth::AgentAuthConfig {
                    token_file,
                    resource: cli.agent_auth_resource,
                    ttl: Duration::from_secs(cli.agent_auth_ttl),
                }
            }),
            // The flags' order is only in the matches: see `providers_from`.
            providers: Vec::new(),
            provider_models_timeout: DEFAULT_MODELS_TIMEOUT,
        }
    }
}

/// How long the start waits for a provider's model list before offering its configured models.
pub const DEFAULT_MODELS_TIMEOUT: Duration = Duration::from_secs(3);

/// The model providers of the parsed command line (`matches` of [`Cli`]), their keys read from
/// the environment or files once. The variables that held keys are then removed from the
/// host's environment, so no child process (shell, MCP server) inherits them. Call it before
/// any other thread runs. Errors name the provider and the field, never a key.
pub fn providers_from(
    matches: &clap::ArgMatches,
) -> Result<Vec<crate::providers::Provider>, String> {
    let configs = crate::providers::ProviderArgs::configs(matches).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(configs.len());
    for config in configs {
        let variable = config.key_variable().map(str::to_owned);
        out.push(crate::providers::Provider::new(config).map_err(|e| e.to_string())?);
        if let Some(variable) = variable {
            std::env::remove_var(variable);
        }
    }
    Ok(out)
}

/// `$XDG_STATE_HOME/ahp-host`, else `$HOME/.local/state/ahp-host`, else `./.ahp-host`.
pub fn default_data_dir() -> PathBuf {
    let nonempty = |v: std::ffi::OsString| (!v.is_empty()).then(|| PathBuf::from(v));
    if let Some(state) = std::env::var_os("XDG_STATE_HOME").and_then(nonempty) {
        return state.join("ahp-host");
    }
    if let Some(home) = std::env::var_os("HOME").and_then(nonempty) {
        return home.join(".local").join("state").join("ahp-host");
    }
    PathBuf::from(".ahp-host")
}

/// `./NAME` when the current directory has it (running from the workspace root), else `NAME`
/// next to this crate in the workspace it was built from.
pub fn default_asset_dir(name: &str) -> PathBuf {
    let here = Path::new(name);
    if here.is_dir() {
        return here.to_path_buf();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_flags_reach_the_config() {
        let cli = Cli::try_parse_from([
            "ahp-host",
            "--mcp-config",
            "servers.json",
            "--mcp-init-timeout-ms",
            "1500",
            "--mcp-request-timeout-ms",
            "2500",
            "--mcp-max-message-bytes",
            "65536",
            "--mcp-channel-max-request-bytes",
            "4096",
            "--mcp-channel-max-inflight",
            "3",
            "--plugins",
            "p1",
            "--plugins",
            "p2",
            "--mcp-auth-wait-ms",
            "9000",
        ])
        .unwrap();
        let config = Config::from(cli);
        assert_eq!(config.mcp_config, Some(PathBuf::from("servers.json")));
        assert_eq!(config.mcp.init_timeout, Duration::from_millis(1500));
        assert_eq!(config.mcp.request_timeout, Duration::from_millis(2500));
        assert_eq!(config.mcp.max_message_bytes, 65536);
        assert_eq!(config.mcp.max_channel_request_bytes, 4096);
        assert_eq!(config.mcp.max_channel_inflight, 3);
        assert_eq!(config.plugins, [PathBuf::from("p1"), PathBuf::from("p2")]);
        assert_eq!(config.mcp.auth_wait, Duration::from_millis(9000));
        let defaults = Config::from(Cli::try_parse_from(["ahp-host"]).unwrap());
        assert_eq!(defaults.mcp_config, None);
        assert!(defaults.plugins.is_empty());
        assert_eq!(defaults.mcp.max_message_bytes, 4 << 20);
        assert_eq!(defaults.mcp.max_channel_request_bytes, 256 << 10);
        assert_eq!(defaults.mcp.max_channel_inflight, 16);
        assert_eq!(defaults.mcp.auth_wait, Duration::from_secs(600));
    }

    #[test]
    fn agent_auth_flags_reach_the_config() {
        let defaults = Config::from(Cli::try_parse_from(["ahp-host"]).unwrap());
        assert!(defaults.agent_auth.is_none());
        let cli = Cli::try_parse_from([
            "ahp-host",
            "--agent-auth-token-file",
            "token",
            "--agent-auth-ttl",
            "90",
        ])
        .unwrap();
        let auth = Config::from(cli).agent_auth.unwrap();
        assert_eq!(auth.token_file, PathBuf::from("token"));
        assert_eq!(auth.ttl, Duration::from_secs(90));
        assert_eq!(auth.resource, crate::agent_auth::DEFAULT_RESOURCE);
    }

    #[test]
    fn provider_flags_become_providers_in_order() {
        use clap::{CommandFactory, FromArgMatches};
        let matches = Cli::command()
            .try_get_matches_from([
                "ahp-host",
                "--port",
                "0",
                "--provider",
                "openai",
                "--base-url",
                "http://127.0.0.1:11434/v1",
                "--model",
                "llama3.2",
                "--provider",
                "anthropic",
                "--provider-name",
                "claude",
                "--model",
                "claude-sonnet-4-5",
            ])
            .unwrap();
        assert_eq!(Cli::from_arg_matches(&matches).unwrap().port, 0);
        let providers = providers_from(&matches).unwrap();
        let names: Vec<&str> = providers.iter().map(|p| p.config().name.as_str()).collect();
        assert_eq!(names, ["openai", "claude"]);
        assert_eq!(providers[0].config().models, ["llama3.2"]);
        assert_eq!(
            providers[0].config().base_url.as_str(),
            "http://127.0.0.1:11434/v1"
        );
        let bad = Cli::command()
            .try_get_matches_from(["ahp-host", "--model", "m"])
            .unwrap();
        let err = providers_from(&bad).unwrap_err();
        assert!(err.contains("--model must follow a --provider"), "{err}");
        let none = Cli::command().try_get_matches_from(["ahp-host"]).unwrap();
        assert!(providers_from(&none).unwrap().is_empty());
    }

    #[test]
    fn the_client_customization_budget_flag_reaches_the_limits() {
        let defaults = Config::from(Cli::try_parse_from(["ahp-host"]).unwrap());
        assert_eq!(defaults.limits.max_client_customization_bytes, 1 << 20);
        let cli =
            Cli::try_parse_from(["ahp-host", "--max-client-customization-bytes", "65536"]).unwrap();
        assert_eq!(
            Config::from(cli).limits.max_client_customization_bytes,
            65536
        );
    }
}
