//! `ahp-host`: a native Agent Host Protocol server (AHP 0.3.0; 1.0.0 for the sessions' default
//! chats) built on the `ahp-wasm` crate's wire types and reducers.
//!
//! - [`config`]: flags and limits; [`server`]: HTTP, the WebSocket endpoint and the page;
//!   [`canvas_pages`]: the pages of AHP 1.0 canvases;
//! - [`connection`]: one WebSocket (reader and writer tasks);
//! - [`hub`]: the single owner of protocol state; [`store`]: SQLite persistence;
//!   [`replay`]: the reconnect buffer;
//! - [`mcp`]: the sessions' MCP servers (`rmcp` clients);
//! - [`customize`]: plugins and directories parsed into customizations; [`peer`]: requests
//!   from the host to a client;
//! - [`changes`]: a session's changes against git `HEAD` or a snapshot, and reverts;
//! - [`agent`]: the built-in agent (and its session config) and the model agents
//!   (`agent::model`: a configured provider per agent); [`completions`]: `@` file and `/`
//!   directive completions; [`resources`]: the file sandbox; [`security`]: token, origin and
//!   input checks; [`agent_auth`]: the built-in agent's protected resource; [`child_process`]:
//!   what child processes get of the host (not its secrets); [`compat`]: the AHP 0.3.0 view of
//!   an AHP 1.0 session (its default chat), for 0.3.0 clients of a 1.0 host; [`providers`]:
//!   model endpoints (OpenAI-compatible, Anthropic).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let host = ahp_host::start(ahp_host::Config::local("/tmp/ahp-data", ".")).await?;
//! println!("open {}", host.page_url());
//! # Ok(()) }
//! ```

pub mod agent;
pub mod agent_auth;
pub mod bus;
pub mod canvas_pages;
pub mod changes;
pub mod child_process;
pub mod compat;
pub mod completions;
pub mod config;
pub mod connection;
pub mod customize;
pub mod debounce;
pub mod dir_watch;
pub mod hub;
pub mod mcp;
pub mod params;
pub mod peer;
pub mod probe;
pub mod providers;
pub mod replay;
pub mod resources;
pub mod security;
pub mod server;
pub mod store;
pub mod terminals;
pub mod watches;

pub use config::{Cli, Config, Limits};
pub use security::Token;
pub use server::{start, RunningHost, StartError};
