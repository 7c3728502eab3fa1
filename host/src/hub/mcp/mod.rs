//! The hub's side of MCP servers (see `crate::mcp`): one run per declared server and session.
//!
//! Servers are per session: a session's servers are read from `--mcp-config` and the
//! session's `.mcp.json` when it is created (or, after a host restart, when it is first
//! subscribed to or gets a turn) and started at once, except those of the working directory
//! not approved yet (`trust.rs`), which wait until a client enables them; each is a top-level
//! `McpServerCustomization` added with `session/customizationUpdated` and moved through
//! `starting` → `ready` | `authRequired` | `error` (`stopped` when disabled) with
//! `session/mcpServerStateChanged`, all server-originated actions through the reducers
//! (`authRequired` and `authenticate`: `auth.rs`). Disposing of the session, disabling the
//! server or stopping the host kills its process group. A server that fails or crashes stays in
//! `error` until it is toggled off and on again (no automatic restart).
//!
//! A ready server's `notifications/tools/list_changed` makes the host list its tools again
//! (once per burst, bounded like any request); a changed list updates `serverTools`, and
//! `mcpApp` and the channel follow when an App tool came or went.
//!
//! Every start attempt has a generation: reports from an older attempt are ignored (and a
//! connection they carry is stopped).

pub(super) mod auth;
pub(super) mod channel;
mod lifecycle;
pub(super) mod step_up;
pub(super) mod trust;

use super::base::Core;
use super::features::Feature;
use super::{Hub, HubMsg};
use crate::mcp::config::{self, Declared, ServerSpec};
use crate::mcp::{
    apps, auth as upstream_auth, ConnectError, McpConnection, McpEvent, ServerHandle, Upstream,
};
use ahp_wasm::protocol::{
    AhpMcpUiHostCapabilities, Customization, ErrorInfo, McpServerCustomization,
    McpServerCustomizationApps, McpServerErrorState, McpServerReadyState, McpServerStartingState,
    McpServerState, McpServerStoppedState, SessionCustomizationRemovedAction,
    SessionCustomizationUpdatedAction, SessionMcpServerStateChangedAction,
    SessionServerToolsChangedAction, StateAction,
};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// One declared server of one session.
pub(super) struct Run {
    id: String,
    name: String,
    spec: Result<ServerSpec, String>,
    pub(super) generation: u64,
    /// The protected resource the server named when it asked for a token (kept once known).
    pub(super) resource: Option<String>,
    /// The serial of the token the current attempt presents.
    pub(super) attempt_token: Option<u64>,
    /// Cancelled to stop the current attempt.
    stop: CancellationToken,
    /// The child's pid once spawned (0: none).
    pid: Arc<AtomicU32>,
    /// Set while ready.
    conn: Option<Arc<McpConnection>>,
    /// Set while it waits for a client's approval: it is not started.
    pub(super) pending: Option<trust::Pending>,
    /// Its `mcp://` channel URI (minted once per declaration and session; served only while
    /// ready and `caps` is set).
    pub(super) channel_uri: String,
    /// What its channel serves, while ready and able to host MCP Apps.
    pub(super) caps: Option<AhpMcpUiHostCapabilities>,
}

impl Run {
    /// Stops the current attempt at once (kills the child's process group) and makes its
    /// later reports stale.
    pub(super) fn halt(&mut self) {
        self.generation += 1;
        self.stop.cancel();
        crate::mcp::process::kill_slot(&self.pid);
        self.caps = None;
        if let Some(conn) = self.conn.take() {
            conn.stop();
        }
    }

    /// The server's name.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// The connection and capabilities of its channel, while it serves one.
    pub(super) fn channel(&self) -> Option<(&Arc<McpConnection>, &AhpMcpUiHostCapabilities)> {
        Some((self.conn.as_ref()?, self.caps.as_ref()?))
    }
}

/// All MCP runs of the host.
pub(super) struct McpRuns {
    /// `--mcp-config`: servers for every session.
    config_file: Option<std::path::PathBuf>,
    /// `--plugin`: their `.mcp.json` declare servers too.
    plugins: Vec<std::path::PathBuf>,
    /// Bounds of every MCP server.
    pub(super) limits: crate::mcp::McpLimits,
    /// By session URI, in declaration order.
    sessions: HashMap<String, Vec<Run>>,
    /// Sessions restored from the database whose servers start when they are next used.
    lazy: HashSet<String>,
    /// `mcp://` channel URI → (session URI, customization id), for every run.
    pub(super) by_channel: HashMap<String, (String, String)>,
    /// Pushed tokens and the `authenticate` requests waiting for their servers.
    pub(super) auth: auth::AuthState,
    /// Tool calls waiting for a new token.
    pub(super) step_ups: step_up::Waits,
    /// Approvals of working-directory servers.
    pub(super) trust: trust::Trust,
}

impl McpRuns {
    pub(super) fn new(
        config: &crate::config::Config,
        approvals: Vec<crate::store::McpApproval>,
    ) -> McpRuns {
        McpRuns {
            config_file: config.mcp_config.clone(),
            plugins: config.plugins.clone(),
            limits: config.mcp.clone(),
            sessions: HashMap::new(),
            lazy: HashSet::new(),
            by_channel: HashMap::new(),
            auth: auth::AuthState::default(),
            step_ups: step_up::Waits::default(),
            trust: trust::Trust::new(approvals, config.trust_project_mcp),
        }
    }

    /// (session URI, customization id) of every run whose server asked for a token for
    /// `resource`.
    pub(super) fn asking_for(&self, resource: &str) -> Vec<(String, String)> {
        self.sessions
            .iter()
            .flat_map(|(session, runs)| {
                runs.iter()
                    .filter(|r| r.resource.as_deref() == Some(resource))
                    .map(|r| (session.clone(), r.id.clone()))
            })
            .collect()
    }

    /// The run of server `id` of session `channel`.
    pub(super) fn run_mut(&mut self, channel: &str, id: &str) -> Option<&mut Run> {
        self.sessions
            .get_mut(channel)?
            .iter_mut()
            .find(|r| r.id == id)
    }

    /// The run of server `id` of session `channel`.
    pub(super) fn run(&self, channel: &str, id: &str) -> Option<&Run> {
        self.sessions.get(channel)?.iter().find(|r| r.id == id)
    }

    /// The session and run owning `mcp://` channel `uri`.
    pub(super) fn by_channel(&self, uri: &str) -> Option<(&str, &Run)> {
        let (session, id) = self.by_channel.get(uri)?;
        Some((session, self.run(session, id)?))
    }

    /// Forgets the runs of a session.
    fn remove(&mut self, session: &str) -> Vec<Run> {
        let runs = self.sessions.remove(session).unwrap_or_default();
        for run in &runs {
            self.by_channel.remove(&run.channel_uri);
        }
        runs
    }
}

pub(super) fn state_changed(id: &str, state: McpServerState) -> StateAction {
    StateAction::SessionMcpServerStateChanged(Box::new(SessionMcpServerStateChangedAction {
        id: id.to_owned(),
        state,
        channel: None,
        extra: Default::default(),
    }))
}

/// A fresh, unguessable `mcp://` channel URI.
fn mint_channel_uri() -> String {
    format!(
        "{}ahp-host/{}",
        apps::SCHEME,
        crate::security::Token::generate().expose()
    )
}

/// How long a server's `tools/list_changed` notifications are gathered before the tools are
/// listed again (a burst is one refresh).
const TOOLS_REFRESH_DELAY: Duration = Duration::from_millis(100);

/// A task that lists a ready server's tools again when poked (after a pause that gathers a
/// burst of pokes), each listing bounded by the request timeout, and reports a changed list as
/// [`McpEvent::ToolsChanged`]. It ends with the connection, the run or the returned sender.
fn refresh_tools(
    conn: Weak<McpConnection>,
    hub: super::HubSender,
    stop: CancellationToken,
    (channel, id, generation): (String, String, u64),
) -> mpsc::Sender<()> {
    let (poke, mut pokes) = mpsc::channel::<()>(1);
    tokio::spawn(async move {
        loop {
            tokio::select! {
                p = pokes.recv() => if p.is_none() { return },
                _ = stop.cancelled() => return,
            }
            tokio::time::sleep(TOOLS_REFRESH_DELAY).await;
            while pokes.try_recv().is_ok() {}
            let Some(conn) = conn.upgrade() else {
                return;
            };
            let before = conn.tools();
            let after = tokio::select! {
                r = conn.refresh_tools() => r,
                _ = stop.cancelled() => return,
            };
            drop(conn);
            match after {
                Ok(after)
                    if after
                        .iter()
                        .map(|t| &t.raw)
                        .eq(before.iter().map(|t| &t.raw)) => {}
                Ok(_) => {
                    let changed = McpEvent::ToolsChanged {
                        channel: channel.clone(),
                        id: id.clone(),
                        generation,
                    };
                    if hub.send(HubMsg::Mcp(changed)).await.is_err() {
                        return;
                    }
                }
                // The old list stays (a refusal for authorization is reported by the
                // connection's denied watch).
                Err(e) => {
                    eprintln!("ahp-host: MCP server {id}: listing its tools again failed: {e}")
                }
            }
        }
    });
    poke
}

pub(super) fn error_state(reason: &str) -> McpServerState {
    McpServerState::Error(McpServerErrorState {
        error: ErrorInfo {
            error_type: "McpServerError".into(),
            message: reason.to_owned(),
            stack: None,
            extra: Default::default(),
        },
        extra: Default::default(),
    })
}

/// Whether a customization id is one this host mints for MCP declarations.
fn ours(id: &str) -> bool {
    id.starts_with("mcp/") || id.starts_with("mcp-config/")
}

/// The MCP server customizations of a session that this host runs.
pub(super) fn servers<'a>(
    core: &'a Core,
    channel: &str,
) -> impl Iterator<Item = &'a McpServerCustomization> {
    core.sessions
        .get(channel)
        .and_then(|s| s.members.customizations.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|c| match c {
            Customization::McpServer(m) if ours(&m.id) => Some(m),
            _ => None,
        })
}

/// The MCP customizations of a session, as (id, enabled).
fn entries(core: &Core, channel: &str) -> Vec<(String, bool)> {
    servers(core, channel)
        .map(|m| (m.id.clone(), m.enabled))
        .collect()
}

/// The published state of server `id` of session `channel`.
pub(super) fn server_state(core: &Core, channel: &str, id: &str) -> Option<McpServerState> {
    servers(core, channel)
        .find(|m| m.id == id)
        .map(|m| m.state.clone())
}

impl Hub {
    /// A server task reported.
    pub(super) fn on_mcp(&mut self, event: McpEvent) {
        match event {
            McpEvent::Ready {
                channel,
                id,
                generation,
                conn,
            } => {
                let Some(run) = self.mcp_run(&channel, &id, generation) else {
                    conn.stop();
                    return;
                };
                let caps = apps::host_capabilities(&conn.server_capabilities(), &conn.tools());
                run.conn = Some(conn);
                run.caps = caps.clone();
                let uri = caps.is_some().then(|| run.channel_uri.clone());
                if let Some((resource, serial)) = run.resource.clone().zip(run.attempt_token) {
                    self.mcp.auth.accepted(&resource, serial);
                }
                // Tools first: a client that sees `ready` finds them listed (and `mcpApp`).
                self.mcp_refresh_tools(&channel);
                self.mcp_set_app(&channel, &id, caps);
                let mut ready = state_changed(
                    &id,
                    McpServerState::Ready(McpServerReadyState {
                        extra: Default::default(),
                    }),
                );
                if let StateAction::SessionMcpServerStateChanged(a) = &mut ready {
                    a.channel = uri;
                }
                self.apply_server(&channel, ready);
            }
            McpEvent::AuthRequired {
                channel,
                id,
                generation,
                state,
                during_call,
            } => self.mcp_auth_required(&channel, &id, generation, state, during_call),
            McpEvent::ToolsChanged {
                channel,
                id,
                generation,
            } => self.mcp_tools_changed(&channel, &id, generation),
            McpEvent::Notified {
                channel,
                id,
                generation,
                method,
            } => {
                if self.mcp_run(&channel, &id, generation).is_some() {
                    self.mcp_channel_notify(&channel, &id, method);
                }
            }
            McpEvent::Failed {
                channel,
                id,
                generation,
                reason,
            } => {
                let Some(run) = self.mcp_run(&channel, &id, generation) else {
                    return;
                };
                run.halt();
                self.mcp_refresh_tools(&channel);
                self.apply_server(&channel, state_changed(&id, error_state(&reason)));
            }
        }
    }

    /// A ready server's tools changed: `serverTools` follows, and so do `mcpApp` and its
    /// channel (an App tool may have come or gone).
    fn mcp_tools_changed(&mut self, channel: &str, id: &str, generation: u64) {
        let Some(run) = self.mcp_run(channel, id, generation) else {
            return;
        };
        let Some(conn) = run.conn.clone() else {
            return;
        };
        let caps = apps::host_capabilities(&conn.server_capabilities(), &conn.tools());
        let had_channel = run.caps.is_some();
        run.caps = caps.clone();
        let uri = caps.is_some().then(|| run.channel_uri.clone());
        self.mcp_refresh_tools(channel);
        self.mcp_set_app(channel, id, caps);
        if had_channel != uri.is_some() {
            let mut ready = state_changed(
                id,
                McpServerState::Ready(McpServerReadyState {
                    extra: Default::default(),
                }),
            );
            if let StateAction::SessionMcpServerStateChanged(a) = &mut ready {
                a.channel = uri;
            }
            self.apply_server(channel, ready);
        }
    }

    /// Publishes `mcpApp` of server `id` (with `session/customizationUpdated`) when it changed.
    /// It stays after the server leaves `ready` (what it could do when last seen), while its
    /// `channel` goes.
    fn mcp_set_app(&mut self, channel: &str, id: &str, caps: Option<AhpMcpUiHostCapabilities>) {
        let app = caps.map(|capabilities| McpServerCustomizationApps {
            capabilities,
            extra: Default::default(),
        });
        let current = servers(&self.core, channel).find(|m| m.id == id);
        let Some(entry) = current.filter(|m| m.mcp_app != app) else {
            return;
        };
        let mut entry = entry.clone();
        entry.mcp_app = app;
        self.apply_server(
            channel,
            StateAction::SessionCustomizationUpdated(Box::new(SessionCustomizationUpdatedAction {
                customization: Customization::McpServer(entry),
                extra: Default::default(),
            })),
        );
    }

    /// The run of the current attempt `generation`, if it is still current.
    pub(super) fn mcp_run(&mut self, channel: &str, id: &str, generation: u64) -> Option<&mut Run> {
        self.mcp
            .run_mut(channel, id)
            .filter(|r| r.generation == generation)
    }

    /// `session/customizationToggled` (by client `by`) on one of our servers: stop it, or start
    /// it again (approving it first when it waits for approval).
    pub(super) fn mcp_toggled(&mut self, channel: &str, id: &str, enabled: bool, by: Option<&str>) {
        if self.mcp_approval_toggled(channel, id, enabled, by) {
            return;
        }
        let Some(run) = self.mcp.run_mut(channel, id) else {
            return;
        };
        if !enabled {
            run.halt();
            self.mcp_refresh_tools(channel);
            self.apply_server(
                channel,
                state_changed(
                    id,
                    McpServerState::Stopped(McpServerStoppedState {
                        extra: Default::default(),
                    }),
                ),
            );
            return;
        }
        let state = match &run.spec {
            Ok(_) => McpServerState::Starting(McpServerStartingState {
                extra: Default::default(),
            }),
            Err(reason) => error_state(reason),
        };
        self.apply_server(channel, state_changed(id, state));
        self.mcp.start(&mut self.core, channel, id);
    }

    /// Publishes `serverTools` (when it changed): the built-in tools and those of the ready
    /// servers. Done before a server's state changes, so `ready` comes with its tools listed
    /// and they are gone by the time it leaves `ready`.
    pub(super) fn mcp_refresh_tools(&mut self, channel: &str) {
        let mut tools = crate::agent::tools::definitions();
        for run in self.mcp.sessions.get(channel).into_iter().flatten() {
            if let Some(conn) = &run.conn {
                tools.extend(
                    conn.tools()
                        .iter()
                        .map(|t| crate::mcp::tool_definition(&run.name, &run.id, t)),
                );
            }
        }
        let current = self
            .core
            .sessions
            .get(channel)
            .and_then(|s| s.members.server_tools.as_ref());
        if current != Some(&tools) {
            self.apply_server(
                channel,
                StateAction::SessionServerToolsChanged(SessionServerToolsChangedAction {
                    tools,
                    extra: Default::default(),
                }),
            );
        }
    }

    /// The ready servers of a session, for a turn.
    pub(super) fn mcp_handles(&self, channel: &str) -> Vec<ServerHandle> {
        self.mcp
            .sessions
            .get(channel)
            .into_iter()
            .flatten()
            .filter_map(|r| {
                Some(ServerHandle {
                    name: r.name.clone(),
                    customization_id: r.id.clone(),
                    conn: r.conn.clone()?,
                    generation: r.generation,
                })
            })
            .collect()
    }
}
