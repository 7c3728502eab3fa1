//! The hub: the one owner of all protocol state.
//!
//! It runs on its own thread and handles messages from connections and agent tasks one at a
//! time, so every state change, `serverSeq` and fan-out is trivially ordered. Messages are
//! handled in batches: the batch's writes are committed to SQLite in one transaction and only
//! then is anything the batch produced (responses, envelopes, notifications) handed to the
//! connections' bounded queues. A connection whose queue is full is dropped as a slow consumer.
//!
//! The hub is a core and features. The core (`base.rs`: `serverSeq`, the outbox, connections,
//! sessions, replay, the store) is what every feature builds on; each feature keeps its own
//! state in a field of [`Hub`] and plugs into the session, turn and connection lifecycle through
//! the hooks of one trait (`features.rs`), each hook getting its own state and `&mut Core`.
//!
//! - `mod.rs`: the loop, connections, applying and broadcasting actions;
//! - `base.rs`: the core; `features.rs`: the lifecycle hooks and the order they run in;
//! - `commands.rs`: the request handlers;
//! - `dispatch.rs`: authorization of client-dispatched actions;
//! - `identity.rs`: client ids bound to secrets; `id_claims.rs`: handshakes waiting for the
//!   connection that holds their id (pinged: alive, or gone);
//! - `turns.rs`: the agent orchestration (turn start/end, queued and steering messages);
//! - `sessions.rs`: per-session bookkeeping (persistence, summary notifications);
//!   `session_filter.rs`: the `listSessions` filter;
//! - `session_config.rs`: `resolveSessionConfig`, `sessionConfigCompletions`, `completions`.
//!
//! The features:
//! - `agent_auth.rs`: which connections unlocked the protected built-in agent;
//! - `model_agents.rs`: the model providers as agents, and the keys clients gave them;
//! - `mcp/`: the sessions' MCP servers (start, stop, toggles, state changes, tools), with
//!   `auth.rs` (servers that need a token: `authRequired`, `authenticate`), `step_up.rs` (tool
//!   calls waiting for a new token), `trust.rs` (working-directory servers wait for a client's
//!   approval) and `channel.rs` (their `mcp://` channels, MCP Apps);
//! - `terminals/`: terminal channels and their shells (`crate::terminals`), with `run.rs` (the
//!   agent's `/run` in them);
//! - `customizations/`: plugins and directories (`crate::customize`), with `client_plugins.rs`
//!   (plugins published by the active client, read back from it) and `client_tools.rs` (tool
//!   calls the agent delegated to a client);
//! - `watches.rs`: resource watches (`createResourceWatch`, `ahp-resource-watch:` channels);
//! - `changesets.rs`: each session's changeset (`ahp-changeset:` channels, operations);
//! - `transform.rs`: where the agent's system prompt goes to be transformed by a client;
//! - `automations/`: AHP 1.0 automations, their runs (which drive sessions) and the scheduler;
//! - `annotations.rs`: AHP 1.0 annotations of sessions (`ahp-session:/<id>/annotations`);
//! - `canvases.rs`: AHP 1.0 canvases the agent opens (`ahp-canvas:` channels, served pages).

mod agent_auth;
mod annotations;
mod automations;
mod base;
mod canvases;
mod changesets;
mod chat_views;
mod chats;
mod commands;
mod customizations;
mod dispatch;
mod features;
mod id_claims;
mod identity;
mod input_needed;
mod mcp;
mod model_agents;
mod session_config;
mod sessions;
mod terminals;
mod transform;
mod turns;
#[cfg(debug_assertions)]
mod v03_view;
mod v1;
mod v1_channels;
mod v1_mirror;
mod v1_root;
mod watches;

use crate::bus::{
    Authenticate, ConnHandle, ConnId, ConnShared, HubMsg, HubSender, QueueError, Request,
};
use crate::config::Config;
use crate::replay::ReplayRing;
use crate::resources::Sandbox;
use crate::store::{Checkpoint, Loaded, Store};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::{ActionOrigin, RootState, StateAction};
use ahp_wasm::reduce::NoOp;
use base::Core;
use sessions::Session;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::mpsc;

/// How many messages one batch (one transaction) handles at most.
const MAX_BATCH: usize = 512;
/// How long the hub waits for a message before it checkpoints the database.
const CHECKPOINT_IDLE: std::time::Duration = std::time::Duration::from_millis(100);

struct Conn {
    handle: ConnHandle,
    client_id: Option<String>,
    subs: HashSet<String>,
    /// The client declared `capabilities.mcpApps`: it sees `mcpApp` and `channel` and may use
    /// `mcp://` channels.
    mcp_apps: bool,
    /// The handshake chose AHP 1.0 (`v1.rs`).
    v1: bool,
    /// Its AHP 1.0 subscriptions (a 1.0 connection has no 0.3.0 ones).
    v1_subs: HashSet<String>,
}

/// The hub's state (see the module docs): the core, and each feature's own state.
pub struct Hub {
    core: Core,
    /// Terminal channels, with the agent's `/run` in them.
    terminals: terminals::Terminals,
    /// The sessions' changesets.
    changesets: changesets::Changesets,
    /// Resource watches.
    watches: watches::Watches,
    /// Plugins, directories, client plugins and client tools of the sessions.
    customs: customizations::Customs,
    /// The MCP servers of the sessions, with their auth, trust, step-up and channels.
    mcp: mcp::McpRuns,
    /// The protected built-in agent's lock and the connections it is open for.
    agent_auth: agent_auth::AgentAuth,
    /// The model providers as agents, and the keys connections gave them.
    model_agents: model_agents::ModelAgents,
    /// Where the agent's system prompt goes to be transformed by a client.
    transform: transform::Transform,
    /// AHP 1.0 automations and their runs.
    automations: automations::Automations,
    /// AHP 1.0 annotations of the sessions.
    annotations: annotations::Annotations,
    /// AHP 1.0 canvases the agent opened.
    canvases: canvases::Canvases,
    /// Messages handled (an idle checkpoint timer checks none came since it was armed).
    handled: u64,
    /// Whether an idle checkpoint timer is on its way.
    checkpoint_armed: bool,
}

impl Hub {
    /// Builds the hub from loaded state; in-progress turns from before a restart are failed.
    pub fn new(
        config: &Config,
        store: Store,
        mut loaded: Loaded,
        sandbox: Sandbox,
        tx: HubSender,
        rt: tokio::runtime::Handle,
        peer: Arc<crate::peer::PeerRequests>,
    ) -> Hub {
        let core = Core {
            seq: loaded.last_seq,
            persisted_seq: loaded.last_seq,
            root_uri: Arc::from(ROOT_CHANNEL),
            root: RootState {
                agents: vec![crate::agent::agent_info()],
                // Counted once the sessions are loaded.
                active_sessions: Some(0.0),
                terminals: None,
                config: Some(crate::agent::config::root_config(
                    loaded
                        .root_config
                        .as_deref()
                        .and_then(|json| serde_json::from_str(json).ok())
                        .as_ref(),
                )),
                extra: Default::default(),
            },
            root_subs: Vec::new(),
            root_subs_v1: Vec::new(),
            v1_pending: None,
            respond_v1: false,
            sessions: HashMap::new(),
            conns: HashMap::new(),
            replay: ReplayRing::new(
                config.limits.replay_entries,
                config.limits.replay_bytes,
                loaded.replay_seq,
            ),
            // Above the last number of the previous run (see `Core::replay_v1`).
            replay_v1: ReplayRing::new(
                config.limits.replay_entries,
                config.limits.replay_bytes,
                loaded.last_seq + 1,
            ),
            v1_in_run: false,
            store,
            ops: Vec::new(),
            outbox: Vec::new(),
            tx,
            rt,
            sandbox,
            chunk_delay: config.chunk_delay,
            next_timer: 0,
            limits: config.limits.clone(),
            bindings: identity::Bindings::loaded(loaded.clients),
            stopping: false,
            peer,
            to_wake: Vec::new(),
            applied: Vec::new(),
        };
        let mut core = core;
        let automations = automations::Automations::restored(
            &mut core,
            std::mem::take(&mut loaded.automations),
            std::mem::take(&mut loaded.automation_runs),
        );
        let mut hub = Hub {
            automations,
            annotations: annotations::Annotations::restored(std::mem::take(
                &mut loaded.annotations,
            )),
            canvases: canvases::Canvases::default(),
            handled: 0,
            checkpoint_armed: false,
            core,
            terminals: terminals::Terminals::default(),
            changesets: changesets::Changesets::default(),
            watches: watches::Watches::default(),
            customs: customizations::Customs::new(config),
            mcp: mcp::McpRuns::new(config, loaded.mcp_approvals),
            agent_auth: agent_auth::AgentAuth::default(),
            model_agents: model_agents::ModelAgents::default(),
            transform: transform::Transform {
                timeout: config.transform_timeout,
                audit: config.debug,
            },
        };
        let mut interrupted = Vec::new();
        for s in loaded.sessions {
            let older = s.older.is_some();
            let Some(mut session) = Session::loaded(s) else {
                continue;
            };
            let uri = session.uri.to_string();
            if let Some(turn) = session.active_turn_id() {
                interrupted.push((uri.clone(), turn.to_owned()));
            }
            // Stored as the 1.0 state alone from now on: completed (its host fields), or
            // lifted (a session of a host before AHP 1.0), and the older rows gone.
            let seq = hub.core.seq;
            if session.v1.needs_head {
                session.v1.record_all(&session.uri, seq, &mut hub.core.ops);
            }
            if older {
                let uri = session.uri.clone();
                hub.core
                    .ops
                    .push(crate::store::Op::ForgetOlderState { uri });
            }
            hub.core.sessions.insert(uri, session);
        }
        for orphan in chat_views::link_parents(&mut hub.core.sessions) {
            eprintln!("ahp-host: chat {orphan} belongs to no session; dropped");
            hub.core.ops.push(crate::store::Op::DeleteSession {
                uri: Arc::from(orphan.as_str()),
            });
            interrupted.retain(|(uri, _)| *uri != orphan);
        }
        let sessions = hub
            .core
            .sessions
            .keys()
            .filter(|uri| !v1_mirror::is_chat_view(uri));
        hub.core.root.active_sessions = Some(sessions.count() as f64);
        for (uri, turn_id) in interrupted {
            hub.apply_server(&uri, turns::interrupted(&turn_id));
        }
        hub.forget_canvases();
        let uris: Vec<String> = hub.core.sessions.keys().cloned().collect();
        for uri in uris {
            hub.each_feature(|f, core| f.session_restored(core, &uri));
        }
        hub.arm_automations();
        hub.commit_and_flush();
        hub
    }

    /// Runs the hub until `Shutdown` or until every sender is gone.
    pub fn run(mut self, mut rx: mpsc::Receiver<HubMsg>) {
        while let Some(msg) = rx.blocking_recv() {
            self.handle(msg);
            for _ in 1..MAX_BATCH {
                match rx.try_recv() {
                    Ok(msg) => self.handle(msg),
                    Err(_) => break,
                }
            }
            self.commit_and_flush();
            if self.core.stopping {
                break;
            }
            self.schedule_checkpoint();
        }
        for (_, session) in self.core.sessions.iter_mut() {
            session.stop_agent();
        }
        self.each_feature(|f, core| f.shutdown(core));
        for (_, conn) in self.core.conns.drain() {
            conn.handle.shared.kill.cancel();
        }
    }

    /// A checkpoint of the database runs when the hub has had no message for
    /// [`CHECKPOINT_IDLE`] (an idle timer, re-armed while messages come), or at once when the
    /// log is long: it syncs the disk, which would otherwise stall whichever batch's commit
    /// crossed SQLite's own threshold (a streamed chunk's, say).
    fn schedule_checkpoint(&mut self) {
        match self.core.store.checkpoint_due() {
            Checkpoint::No => {}
            Checkpoint::Now => self.checkpoint(),
            Checkpoint::WhenIdle if !self.checkpoint_armed => {
                self.checkpoint_armed = true;
                let (handled, hub) = (self.handled, self.core.tx.clone());
                self.core.rt.spawn(async move {
                    tokio::time::sleep(CHECKPOINT_IDLE).await;
                    let _ = hub.send(HubMsg::CheckpointIdle { handled }).await;
                });
            }
            Checkpoint::WhenIdle => {}
        }
    }

    /// The idle timer is over: checkpoint if no other message came since it was armed (else
    /// the loop arms it again).
    fn on_checkpoint_idle(&mut self, handled: u64) {
        self.checkpoint_armed = false;
        if handled == self.handled {
            self.checkpoint();
        }
    }

    fn checkpoint(&mut self) {
        if let Err(e) = self.core.store.checkpoint() {
            // The commits are in the log, which the next checkpoint (or open) copies.
            eprintln!("ahp-host: checkpoint failed ({e})");
        }
    }

    fn handle(&mut self, msg: HubMsg) {
        // The idle timer's own message is not activity (else it would keep re-arming itself).
        if !matches!(msg, HubMsg::CheckpointIdle { .. }) {
            self.handled += 1;
        }
        match msg {
            HubMsg::Connect { conn, handle } => {
                self.core.conns.insert(
                    conn,
                    Conn {
                        handle,
                        client_id: None,
                        subs: HashSet::new(),
                        mcp_apps: false,
                        v1: false,
                        v1_subs: HashSet::new(),
                    },
                );
            }
            HubMsg::Disconnect { conn } => self.drop_conn(conn),
            HubMsg::Pong { conn } => self.on_pong(conn),
            HubMsg::ClaimWaitOver { claimant, timer } => self.on_claim_wait_over(claimant, timer),
            HubMsg::AutomationDue { timer } => self.on_automation_due(timer),
            HubMsg::CheckpointIdle { handled } => self.on_checkpoint_idle(handled),
            HubMsg::Request { conn, id, request } => {
                if self.core.conns.contains_key(&conn) {
                    self.on_request(conn, id, *request);
                }
            }
            HubMsg::RequestV1 { conn, id, request } => {
                if self.core.conns.contains_key(&conn) {
                    self.on_request_v1(conn, id, *request);
                }
            }
            HubMsg::Dispatch { conn, params } => self.on_dispatch(conn, params),
            HubMsg::DispatchV1 { conn, params } => self.on_dispatch_v1(conn, *params),
            HubMsg::Unsubscribe { conn, channel } => self.unsubscribe(conn, &channel),
            HubMsg::Agent {
                channel,
                turn_id,
                actions,
            } => self.on_agent(&channel, &turn_id, actions),
            HubMsg::ClientToolExpired {
                channel,
                turn_id,
                tool_call_id,
                timer,
                reason,
            } => self.on_client_tool_expired(channel, turn_id, tool_call_id, timer, reason),
            HubMsg::AgentAuthExpired { conn, timer } => self.on_agent_auth_expired(conn, timer),
            HubMsg::Mcp(event) => self.on_mcp(event),
            HubMsg::McpChannel(message) => self.on_mcp_channel(*message),
            HubMsg::McpStepUp(step) => self.on_mcp_step_up(*step),
            HubMsg::McpStepUpExpired {
                channel,
                tool_call_id,
                timer,
            } => self.on_mcp_step_up_expired(&channel, &tool_call_id, timer),
            HubMsg::CustomizationsChanged { paths, overflow } => self
                .customs
                .on_customizations_changed(&mut self.core, paths, overflow),
            HubMsg::Customization(read) => {
                self.customs.on_customization_read(&mut self.core, *read)
            }
            HubMsg::WatchOpened(opened) => self.on_watch_opened(*opened),
            HubMsg::WatchChanged { channel, changes } => self.on_watch_changed(&channel, changes),
            HubMsg::TerminalOutput { channel, id, data } => {
                self.on_terminal_output(&channel, id, data)
            }
            HubMsg::TerminalExited {
                channel,
                id,
                exit_code,
            } => self.on_terminal_exited(&channel, id, exit_code),
            HubMsg::TerminalShell { channel, id, event } => {
                self.on_terminal_shell(&channel, id, event)
            }
            HubMsg::TerminalRun(msg) => self.on_terminal_run(*msg),
            HubMsg::Panel(msg) => self.on_panel(*msg),
            HubMsg::Changes(msg) => self.on_changes(*msg),
            HubMsg::Shutdown => self.core.stopping = true,
        }
        self.each_feature(|f, core| f.after_message(core));
    }

    /// Commits the batch's writes, then hands its frames to the connections; repeats while
    /// dropping slow consumers produced more.
    fn commit_and_flush(&mut self) {
        loop {
            self.core.commit_ops();
            if self.core.outbox.is_empty() {
                return;
            }
            let mut dead = Vec::new();
            for (conn, frame) in self.core.outbox.drain(..) {
                if let Some(c) = self.core.conns.get(&conn) {
                    match c.handle.queue(frame) {
                        Ok(()) => {}
                        Err(QueueError::Slow) => dead.push((conn, true)),
                        // Its writer is gone: the disconnect is on its way to the hub.
                        Err(QueueError::Closed) => dead.push((conn, false)),
                    }
                }
            }
            if dead.is_empty() {
                return;
            }
            for (conn, slow) in dead {
                if self.core.conns.contains_key(&conn) {
                    if slow {
                        eprintln!("ahp-host: connection {conn} dropped (slow consumer)");
                    }
                    self.drop_conn(conn);
                }
            }
        }
    }

    /// Forgets a connection: its subscriptions, and the active-client role of its client id
    /// when no other connection holds that id.
    fn drop_conn(&mut self, conn: ConnId) {
        let Some(c) = self.core.conns.remove(&conn) else {
            return;
        };
        c.handle.shared.kill.cancel();
        self.claims_conn_closed(conn);
        let v1_subs: Vec<String> = c.v1_subs.iter().cloned().collect();
        self.drop_conn_v1(conn, &v1_subs);
        for channel in &c.subs {
            if let Some(subs) = self.subscribers_mut(channel) {
                subs.retain(|&x| x != conn);
            }
        }
        let subs: Vec<String> = c.subs.iter().cloned().collect();
        self.each_feature(|f, core| f.conn_closed(core, conn, &subs));
        if let Some(client_id) = c.client_id {
            let still_here = self
                .core
                .conns
                .values()
                .any(|o| o.client_id.as_deref() == Some(client_id.as_str()));
            if !still_here {
                self.release_active_client(&client_id);
                self.each_feature(|f, core| f.client_left(core, &client_id));
            }
        }
    }

    fn subscribers_mut(&mut self, channel: &str) -> Option<&mut Vec<ConnId>> {
        if channel == ROOT_CHANNEL {
            Some(&mut self.core.root_subs)
        } else if self.feature_has_channel(channel) {
            self.feature_subscribers_mut(channel)
        } else {
            self.core
                .sessions
                .get_mut(channel)
                .map(|s| &mut s.subscribers)
        }
    }

    /// Applies an action through the channel's reducer; on success it gets the next
    /// `serverSeq`, is logged, kept for replay and broadcast to the channel's subscribers.
    /// The action is handed back either way.
    fn apply(
        &mut self,
        channel: &str,
        action: StateAction,
        origin: Option<ActionOrigin>,
    ) -> Result<StateAction, (StateAction, NoOp)> {
        if self.terminals.map.contains_key(channel) {
            return self
                .terminals
                .apply(&mut self.core, channel, action, origin);
        }
        self.core.apply(channel, action, origin)
    }

    /// Applies a server-originated action (no `origin`) and runs its side effects. Returns
    /// whether it applied.
    fn apply_server(&mut self, channel: &str, action: StateAction) -> bool {
        match self.apply(channel, action, None) {
            Ok(action) => {
                self.after_apply(channel, &action, None);
                true
            }
            Err(_) => false,
        }
    }

    fn mark_initialized(&mut self, conn: ConnId, client_id: String) {
        // One live connection per client id: a newer one takes over (a reconnect usually
        // arrives before the old socket is noticed dead).
        let others: Vec<ConnId> = self
            .core
            .conns
            .iter()
            .filter(|(id, c)| **id != conn && c.client_id.as_deref() == Some(client_id.as_str()))
            .map(|(id, _)| *id)
            .collect();
        for other in others {
            if let Some(c) = self.core.conns.get_mut(&other) {
                // Keep the role: the same client is still here.
                c.client_id = None;
            }
            self.drop_conn(other);
        }
        let apps = self.core.bindings.mcp_apps(&client_id);
        if let Some(c) = self.core.conns.get_mut(&conn) {
            c.handle.shared.initialized.store(true, Ordering::Release);
            c.client_id = Some(client_id.clone());
            c.mcp_apps = apps;
        }
        self.each_feature(|f, core| f.client_returned(core, &client_id));
    }
}

fn fanout(outbox: &mut Vec<(ConnId, Arc<str>)>, subs: &[ConnId], frame: &Arc<str>) {
    outbox.extend(subs.iter().map(|&c| (c, frame.clone())));
}
