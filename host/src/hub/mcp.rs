//! The hub's side of MCP servers (see `crate::mcp`): one run per declared server and session.
//!
//! Servers are per session: a session's servers are read from `--mcp-config` and the
//! session's `.mcp.json` when it is created (or, after a host restart, when it is first
//! subscribed to or gets a turn) and started at once; each is a top-level
//! `McpServerCustomization` added with `session/customizationUpdated` and moved through
//! `starting` → `ready` | `error` (`stopped` when disabled) with `session/mcpServerStateChanged`,
//! all server-originated actions through the reducers. Disposing of the session, disabling the
//! server or stopping the host kills its process group. A server that fails or crashes stays in
//! `error` until it is toggled off and on again (no automatic restart).
//!
//! Every start attempt has a generation: reports from an older attempt are ignored (and a
//! connection they carry is stopped).

use super::{Hub, HubMsg};
use crate::mcp::config::{self, Declared, ServerSpec};
use crate::mcp::{McpConnection, McpEvent, ServerHandle};
use ahp_wasm::protocol::{
    Customization, ErrorInfo, McpServerCustomization, McpServerErrorState, McpServerReadyState,
    McpServerStartingState, McpServerState, McpServerStoppedState,
    SessionCustomizationRemovedAction, SessionCustomizationUpdatedAction,
    SessionMcpServerStateChangedAction, SessionServerToolsChangedAction, StateAction,
};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// One declared server of one session.
pub(super) struct Run {
    id: String,
    name: String,
    spec: Result<ServerSpec, String>,
    generation: u64,
    /// Cancelled to stop the current attempt.
    stop: CancellationToken,
    /// The child's pid once spawned (0: none).
    pid: Arc<AtomicU32>,
    /// Set while ready.
    conn: Option<Arc<McpConnection>>,
}

impl Run {
    /// Stops the current attempt at once (kills the child's process group) and makes its
    /// later reports stale.
    fn halt(&mut self) {
        self.generation += 1;
        self.stop.cancel();
        crate::mcp::client::kill_slot(&self.pid);
        if let Some(conn) = self.conn.take() {
            conn.stop();
        }
    }
}

/// All MCP runs of the host.
#[derive(Default)]
pub(super) struct McpRuns {
    /// By session URI, in declaration order.
    sessions: HashMap<String, Vec<Run>>,
    /// Sessions restored from the database whose servers start when they are next used.
    lazy: HashSet<String>,
    /// Channels just subscribed to, woken once the request is answered (so the subscriber
    /// gets the snapshot before the envelopes that follow it).
    pub(super) to_wake: Vec<String>,
}

impl McpRuns {
    /// The run of server `id` of session `channel`.
    fn run_mut(&mut self, channel: &str, id: &str) -> Option<&mut Run> {
        self.sessions
            .get_mut(channel)?
            .iter_mut()
            .find(|r| r.id == id)
    }
}

fn state_changed(id: &str, state: McpServerState) -> StateAction {
    StateAction::SessionMcpServerStateChanged(Box::new(SessionMcpServerStateChangedAction {
        id: id.to_owned(),
        state,
        channel: None,
    }))
}

fn error_state(reason: &str) -> McpServerState {
    McpServerState::Error(McpServerErrorState {
        error: ErrorInfo {
            error_type: "McpServerError".into(),
            message: reason.to_owned(),
            stack: None,
        },
    })
}

/// Whether a customization id is one this host mints for MCP declarations.
fn ours(id: &str) -> bool {
    id.starts_with("mcp/") || id.starts_with("mcp-config/")
}

impl Hub {
    /// The MCP customizations of a session, as (id, enabled).
    fn mcp_entries(&self, channel: &str) -> Vec<(String, bool)> {
        self.sessions
            .get(channel)
            .and_then(|s| s.state.customizations.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|c| match c {
                Customization::McpServer(m) if ours(&m.id) => Some((m.id.clone(), m.enabled)),
                _ => None,
            })
            .collect()
    }

    /// After a restart: servers that were starting or ready are `stopped` until the session is
    /// used again.
    pub(super) fn mcp_restored(&mut self, channel: &str) {
        let running: Vec<String> = self
            .sessions
            .get(channel)
            .and_then(|s| s.state.customizations.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|c| match c {
                Customization::McpServer(m)
                    if ours(&m.id)
                        && matches!(
                            m.state,
                            McpServerState::Starting(_) | McpServerState::Ready(_)
                        ) =>
                {
                    Some(m.id.clone())
                }
                _ => None,
            })
            .collect();
        for id in running {
            self.apply_server(
                channel,
                state_changed(&id, McpServerState::Stopped(McpServerStoppedState {})),
            );
        }
        self.mcp.lazy.insert(channel.to_owned());
    }

    /// A restored session is being used: read its declarations and start its servers.
    pub(super) fn mcp_wake(&mut self, channel: &str) {
        if self.mcp.lazy.remove(channel) {
            self.mcp_open(channel);
        }
    }

    /// Reads the session's declarations, publishes them and starts the enabled ones.
    pub(super) fn mcp_open(&mut self, channel: &str) {
        let Some(session) = self.sessions.get(channel) else {
            return;
        };
        let workdir = self.session_workdir(&session.state);
        let declared = config::load(self.mcp_config.as_deref(), &workdir);
        let previous = self.mcp_entries(channel);
        for (id, _) in &previous {
            if !declared.iter().any(|d| &d.id == id) {
                self.apply_server(
                    channel,
                    StateAction::SessionCustomizationRemoved(SessionCustomizationRemovedAction {
                        id: id.clone(),
                    }),
                );
            }
        }
        let mut runs = Vec::new();
        for Declared {
            id,
            name,
            source,
            spec,
        } in declared
        {
            let enabled = previous
                .iter()
                .find(|(p, _)| p == &id)
                .is_none_or(|(_, e)| *e);
            let state = match (&spec, enabled) {
                (Err(reason), _) => error_state(reason),
                (Ok(_), true) => McpServerState::Starting(McpServerStartingState {}),
                (Ok(_), false) => McpServerState::Stopped(McpServerStoppedState {}),
            };
            let entry = McpServerCustomization {
                id: id.clone(),
                uri: crate::resources::file_uri(&source),
                name: name.clone(),
                icons: None,
                range: None,
                enabled,
                state,
                channel: None,
                mcp_app: None,
            };
            self.apply_server(
                channel,
                StateAction::SessionCustomizationUpdated(Box::new(
                    SessionCustomizationUpdatedAction {
                        customization: Customization::McpServer(entry),
                    },
                )),
            );
            runs.push((
                Run {
                    id,
                    name,
                    spec,
                    generation: 0,
                    stop: CancellationToken::new(),
                    pid: Arc::new(AtomicU32::new(0)),
                    conn: None,
                },
                enabled,
            ));
        }
        let start: Vec<String> = runs
            .iter()
            .filter(|(r, enabled)| *enabled && r.spec.is_ok())
            .map(|(r, _)| r.id.clone())
            .collect();
        self.mcp.sessions.insert(
            channel.to_owned(),
            runs.into_iter().map(|(r, _)| r).collect(),
        );
        for id in start {
            self.mcp_start(channel, &id);
        }
    }

    /// Starts (a new attempt of) one server.
    fn mcp_start(&mut self, channel: &str, id: &str) {
        let cwd: PathBuf = match self.sessions.get(channel) {
            Some(s) => self.session_workdir(&s.state),
            None => return,
        };
        let Some(run) = self.mcp.run_mut(channel, id) else {
            return;
        };
        let Ok(spec) = run.spec.clone() else {
            return;
        };
        run.halt();
        run.stop = CancellationToken::new();
        run.pid = Arc::new(AtomicU32::new(0));
        let generation = run.generation;
        let (stop, pid) = (run.stop.clone(), run.pid.clone());
        let limits = self.mcp_limits.clone();
        let hub = self.tx.clone();
        let (channel, id) = (channel.to_owned(), id.to_owned());
        self.rt.spawn(async move {
            let event = |result: Result<Arc<McpConnection>, String>| match result {
                Ok(conn) => McpEvent::Ready {
                    channel: channel.clone(),
                    id: id.clone(),
                    generation,
                    conn,
                },
                Err(reason) => McpEvent::Failed {
                    channel: channel.clone(),
                    id: id.clone(),
                    generation,
                    reason,
                },
            };
            let result = McpConnection::connect(&spec, &cwd, &limits, stop, pid).await;
            let conn = match result {
                Ok(conn) => Arc::new(conn),
                Err(reason) => {
                    let _ = hub.send(HubMsg::Mcp(event(Err(reason)))).await;
                    return;
                }
            };
            let mut exited = conn.exit_watch();
            let weak = Arc::downgrade(&conn);
            if hub.send(HubMsg::Mcp(event(Ok(conn)))).await.is_err() {
                return;
            }
            // A ready server that goes away is reported (a stop by the hub is stale by then).
            if exited.wait_for(Option::is_some).await.is_ok() {
                let mut reason = exited.borrow().clone().unwrap_or_default();
                if let Some(conn) = weak.upgrade() {
                    let tail = conn.stderr_tail();
                    if !tail.is_empty() {
                        reason = format!("{reason}; stderr: {tail}");
                    }
                }
                let _ = hub.send(HubMsg::Mcp(event(Err(reason)))).await;
            }
        });
    }

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
                run.conn = Some(conn);
                // Tools first: a client that sees `ready` finds them listed.
                self.mcp_refresh_tools(&channel);
                self.apply_server(
                    &channel,
                    state_changed(&id, McpServerState::Ready(McpServerReadyState {})),
                );
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

    /// The run of the current attempt `generation`, if it is still current.
    fn mcp_run(&mut self, channel: &str, id: &str, generation: u64) -> Option<&mut Run> {
        self.mcp
            .run_mut(channel, id)
            .filter(|r| r.generation == generation)
    }

    /// `session/customizationToggled` on one of our servers: stop it, or start it again.
    pub(super) fn mcp_toggled(&mut self, channel: &str, id: &str, enabled: bool) {
        let Some(run) = self.mcp.run_mut(channel, id) else {
            return;
        };
        if !enabled {
            run.halt();
            self.mcp_refresh_tools(channel);
            self.apply_server(
                channel,
                state_changed(id, McpServerState::Stopped(McpServerStoppedState {})),
            );
            return;
        }
        let state = match &run.spec {
            Ok(_) => McpServerState::Starting(McpServerStartingState {}),
            Err(reason) => error_state(reason),
        };
        self.apply_server(channel, state_changed(id, state));
        self.mcp_start(channel, id);
    }

    /// Publishes `serverTools` (when it changed): the built-in tools and those of the ready
    /// servers. Done before a server's state changes, so `ready` comes with its tools listed
    /// and they are gone by the time it leaves `ready`.
    fn mcp_refresh_tools(&mut self, channel: &str) {
        let mut tools = crate::agent::tools::definitions();
        for run in self.mcp.sessions.get(channel).into_iter().flatten() {
            if let Some(conn) = &run.conn {
                tools.extend(
                    conn.tools
                        .iter()
                        .map(|t| crate::mcp::tool_definition(&run.name, &run.id, t)),
                );
            }
        }
        let current = self
            .sessions
            .get(channel)
            .and_then(|s| s.state.server_tools.as_ref());
        if current != Some(&tools) {
            self.apply_server(
                channel,
                StateAction::SessionServerToolsChanged(SessionServerToolsChangedAction { tools }),
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
                })
            })
            .collect()
    }

    /// The session is gone: stop its servers.
    pub(super) fn mcp_close(&mut self, channel: &str) {
        self.mcp.lazy.remove(channel);
        for mut run in self.mcp.sessions.remove(channel).unwrap_or_default() {
            run.halt();
        }
    }

    /// The host stops: kill every server now.
    pub(super) fn mcp_close_all(&mut self) {
        for (_, runs) in self.mcp.sessions.drain() {
            for mut run in runs {
                run.halt();
            }
        }
    }
}
