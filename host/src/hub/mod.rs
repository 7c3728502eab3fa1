//! The hub: the one owner of all protocol state.
//!
//! It runs on its own thread and handles messages from connections and agent tasks one at a
//! time, so every state change, `serverSeq` and fan-out is trivially ordered. Messages are
//! handled in batches: the batch's writes are committed to SQLite in one transaction and only
//! then is anything the batch produced (responses, envelopes, notifications) handed to the
//! connections' bounded queues. A connection whose queue is full is dropped as a slow consumer.
//!
//! - `mod.rs`: the loop, connections, applying and broadcasting actions;
//! - `commands.rs`: the request handlers;
//! - `dispatch.rs`: authorization of client-dispatched actions;
//! - `identity.rs`: client ids bound to secrets; `id_claims.rs`: handshakes waiting for the
//!   connection that holds their id (pinged: alive, or gone);
//! - `agent_auth.rs`: which connections unlocked the protected built-in agent;
//! - `turns.rs`: the agent orchestration (turn start/end, queued and steering messages);
//! - `sessions.rs`: per-session bookkeeping (persistence, summary notifications);
//! - `session_config.rs`: `resolveSessionConfig`, `sessionConfigCompletions`, `completions`;
//! - `mcp.rs`: the sessions' MCP servers (start, stop, toggles, state changes, tools);
//! - `mcp_auth.rs`: MCP servers that need a token (`authRequired`, `authenticate`);
//! - `mcp_step_up.rs`: tool calls waiting for a new token (an input request meanwhile);
//! - `mcp_trust.rs`: working-directory MCP servers wait for a client's approval;
//! - `mcp_channel.rs`: their `mcp://` channels (MCP Apps);
//! - `terminals.rs`: terminal channels and their shells (`crate::terminals`);
//! - `customizations.rs`: plugins and directories (`crate::customize`); `client_plugins.rs`:
//!   plugins published by the active client, read back from it;
//! - `watches.rs`: resource watches (`createResourceWatch`, `ahp-resource-watch:` channels);
//! - `changesets.rs`: each session's changeset (`ahp-changeset:` channels, operations).

mod agent_auth;
mod changesets;
mod client_plugins;
mod client_tools;
mod commands;
mod customizations;
mod dispatch;
mod id_claims;
mod identity;
mod mcp;
mod mcp_auth;
mod mcp_channel;
mod mcp_step_up;
mod mcp_trust;
mod session_config;
mod sessions;
mod terminal_run;
mod terminals;
mod turns;
mod watches;

use crate::agent::AgentEvent;
use crate::bus::{
    Authenticate, ConnHandle, ConnId, ConnShared, HubMsg, HubSender, QueueError, Request,
};
use crate::config::Config;
use crate::replay::{action_frame, ReplayRing};
use crate::resources::Sandbox;
use crate::store::{Loaded, Op, Store};
use ahp_wasm::protocol::jsonrpc::{self, ErrorObject, RequestId, ROOT_CHANNEL};
use ahp_wasm::protocol::{ActionEnvelope, ActionOrigin, RootState, StateAction};
use ahp_wasm::reduce::{root_reducer, Clock, FixedClock, NoOp, Outcome, SystemClock};
use serde::Serialize;
use sessions::Session;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How many messages one batch (one transaction) handles at most.
const MAX_BATCH: usize = 512;

struct Conn {
    handle: ConnHandle,
    client_id: Option<String>,
    subs: HashSet<String>,
    /// The client declared `capabilities.mcpApps`: it sees `mcpApp` and `channel` and may use
    /// `mcp://` channels.
    mcp_apps: bool,
}

/// The hub's state (see the module docs).
pub struct Hub {
    seq: u64,
    /// The `serverSeq` last committed to the database. Every number a client may have seen
    /// (including those of rejected actions, which write nothing else) is committed before the
    /// frame carrying it is sent, so a restart never hands a number out twice.
    persisted_seq: u64,
    root_uri: Arc<str>,
    root: RootState,
    root_subs: Vec<ConnId>,
    sessions: HashMap<String, Session>,
    terminals: terminals::Terminals,
    conns: HashMap<ConnId, Conn>,
    replay: ReplayRing,
    store: Store,
    ops: Vec<Op>,
    outbox: Vec<(ConnId, Arc<str>)>,
    tx: HubSender,
    rt: tokio::runtime::Handle,
    sandbox: Sandbox,
    chunk_delay: Duration,
    client_tool_timeout: Duration,
    client_tool_grace: Duration,
    /// Client tool calls the agent waits on, by (session, tool call id).
    client_tools: HashMap<(String, String), client_tools::ClientToolWait>,
    next_timer: u64,
    limits: crate::config::Limits,
    bindings: identity::Bindings,
    /// The protected built-in agent's lock and the connections it is open for.
    agent_auth: agent_auth::AgentAuth,
    stopping: bool,
    /// The MCP servers of the sessions.
    mcp: mcp::McpRuns,
    /// `--mcp-config`: servers for every session.
    mcp_config: Option<std::path::PathBuf>,
    plugins: Vec<std::path::PathBuf>,
    /// Bounds of every MCP server.
    mcp_limits: crate::mcp::McpLimits,
    /// Plugins, directories and client plugins of the sessions.
    customs: customizations::Customs,
    /// The host's requests to clients.
    peer: Arc<crate::peer::PeerRequests>,
    /// How long one of them may wait for its answer.
    client_request_timeout: Duration,
    transform_timeout: Duration,
    debug: bool,
    /// Resource watches.
    watches: watches::Watches,
    /// The sessions' changesets.
    changesets: changesets::Changesets,
}

impl Hub {
    /// Builds the hub from loaded state; in-progress turns from before a restart are failed.
    pub fn new(
        config: &Config,
        store: Store,
        loaded: Loaded,
        sandbox: Sandbox,
        tx: HubSender,
        rt: tokio::runtime::Handle,
        peer: Arc<crate::peer::PeerRequests>,
    ) -> Hub {
        let mut hub = Hub {
            seq: loaded.last_seq,
            persisted_seq: loaded.last_seq,
            root_uri: Arc::from(ROOT_CHANNEL),
            root: RootState {
                agents: vec![crate::agent::agent_info()],
                active_sessions: Some(loaded.sessions.len() as f64),
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
            sessions: HashMap::new(),
            terminals: terminals::Terminals::default(),
            conns: HashMap::new(),
            replay: ReplayRing::new(
                config.limits.replay_entries,
                config.limits.replay_bytes,
                loaded.last_seq,
            ),
            store,
            ops: Vec::new(),
            outbox: Vec::new(),
            tx,
            rt,
            sandbox,
            chunk_delay: config.chunk_delay,
            client_tool_timeout: config.client_tool_timeout,
            client_tool_grace: config.client_tool_grace,
            client_tools: HashMap::new(),
            next_timer: 0,
            limits: config.limits.clone(),
            bindings: identity::Bindings::loaded(loaded.clients),
            agent_auth: agent_auth::AgentAuth::default(),
            stopping: false,
            mcp: mcp::McpRuns::default(),
            mcp_config: config.mcp_config.clone(),
            plugins: config.plugins.clone(),
            mcp_limits: config.mcp.clone(),
            customs: customizations::Customs::default(),
            peer,
            client_request_timeout: config.client_request_timeout,
            transform_timeout: config.transform_timeout,
            debug: config.debug,
            watches: watches::Watches::default(),
            changesets: changesets::Changesets::default(),
        };
        hub.mcp.trust = mcp_trust::Trust::new(loaded.mcp_approvals, config.trust_project_mcp);
        let mut interrupted = Vec::new();
        for s in loaded.sessions {
            let uri = s.state.summary.resource.clone();
            if let Some(turn) = &s.state.active_turn {
                interrupted.push((uri.clone(), turn.id.clone()));
            }
            hub.sessions.insert(uri.clone(), Session::loaded(&uri, s));
        }
        for (uri, turn_id) in interrupted {
            hub.apply_server(&uri, turns::interrupted(&turn_id));
        }
        let uris: Vec<String> = hub.sessions.keys().cloned().collect();
        for uri in uris {
            hub.mcp_restored(&uri);
            hub.custom_restored(&uri);
            hub.changes_open(&uri);
        }
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
            if self.stopping {
                break;
            }
        }
        for (_, session) in self.sessions.iter_mut() {
            session.stop_agent();
        }
        self.mcp_close_all();
        self.kill_terminals();
        for (_, conn) in self.conns.drain() {
            conn.handle.shared.kill.cancel();
        }
    }

    fn handle(&mut self, msg: HubMsg) {
        match msg {
            HubMsg::Connect { conn, handle } => {
                self.conns.insert(
                    conn,
                    Conn {
                        handle,
                        client_id: None,
                        subs: HashSet::new(),
                        mcp_apps: false,
                    },
                );
            }
            HubMsg::Disconnect { conn } => self.drop_conn(conn),
            HubMsg::Pong { conn } => self.on_pong(conn),
            HubMsg::ClaimWaitOver { claimant, timer } => self.on_claim_wait_over(claimant, timer),
            HubMsg::Request { conn, id, request } => {
                if self.conns.contains_key(&conn) {
                    self.on_request(conn, id, *request);
                }
            }
            HubMsg::Dispatch { conn, params } => self.on_dispatch(conn, params),
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
            HubMsg::CustomizationsChanged { paths, overflow } => {
                self.on_customizations_changed(paths, overflow)
            }
            HubMsg::Customization(read) => self.on_customization_read(*read),
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
            HubMsg::Changes(msg) => self.on_changes(*msg),
            HubMsg::Shutdown => self.stopping = true,
        }
        if self.mcp.auth.waiting() {
            self.mcp_settle_auth();
        }
    }

    /// Commits the batch's writes, then hands its frames to the connections; repeats while
    /// dropping slow consumers produced more.
    fn commit_and_flush(&mut self) {
        loop {
            self.commit_ops();
            if self.outbox.is_empty() {
                return;
            }
            let mut dead = Vec::new();
            for (conn, frame) in self.outbox.drain(..) {
                if let Some(c) = self.conns.get(&conn) {
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
                if self.conns.contains_key(&conn) {
                    if slow {
                        eprintln!("ahp-host: connection {conn} dropped (slow consumer)");
                    }
                    self.drop_conn(conn);
                }
            }
        }
    }

    /// Commits the queued writes, and the current `serverSeq` whenever it moved (a rejection or a
    /// root action moves it without any other write).
    fn commit_ops(&mut self) {
        if self.ops.is_empty() && self.seq == self.persisted_seq {
            return;
        }
        if let Err(e) = self.store.commit(&self.ops, self.seq) {
            // Nothing from this batch was sent; stopping is the only way not to acknowledge
            // what is not on disk.
            eprintln!("ahp-host: cannot persist ({e}); stopping");
            std::process::exit(70);
        }
        self.ops.clear();
        self.persisted_seq = self.seq;
    }

    /// Forgets a connection: its subscriptions, and the active-client role of its client id
    /// when no other connection holds that id.
    fn drop_conn(&mut self, conn: ConnId) {
        let Some(c) = self.conns.remove(&conn) else {
            return;
        };
        c.handle.shared.kill.cancel();
        self.agent_auth.conn_closed(conn);
        self.claims_conn_closed(conn);
        for channel in &c.subs {
            if let Some(subs) = self.subscribers_mut(channel) {
                subs.retain(|&x| x != conn);
            }
        }
        let subs: Vec<String> = c.subs.iter().cloned().collect();
        self.watches_conn_closed(conn, &subs);
        if let Some(client_id) = c.client_id {
            let still_here = self
                .conns
                .values()
                .any(|o| o.client_id.as_deref() == Some(client_id.as_str()));
            if !still_here {
                self.release_active_client(&client_id);
                self.client_left(&client_id);
            }
        }
    }

    fn subscribers_mut(&mut self, channel: &str) -> Option<&mut Vec<ConnId>> {
        if channel == ROOT_CHANNEL {
            Some(&mut self.root_subs)
        } else if channel.starts_with(crate::watches::SCHEME) {
            self.watch_subscribers_mut(channel)
        } else if channel.starts_with(crate::changes::SCHEME) {
            self.changeset_subscribers_mut(channel)
        } else if let Some(t) = self.terminals.map.get_mut(channel) {
            Some(&mut t.subscribers)
        } else {
            self.sessions.get_mut(channel).map(|s| &mut s.subscribers)
        }
    }

    /// Queues a response frame.
    fn respond<R: Serialize>(&mut self, conn: ConnId, id: &RequestId, result: &R) {
        self.outbox
            .push((conn, Arc::from(jsonrpc::result_text(id, result))));
    }

    /// Queues an error response frame.
    fn respond_error(&mut self, conn: ConnId, id: &RequestId, error: ErrorObject) {
        self.outbox
            .push((conn, Arc::from(jsonrpc::error_text(Some(id), &error))));
    }

    /// Queues a notification for every subscriber of the root channel.
    fn notify_root<P: Serialize>(&mut self, method: &str, params: &P) {
        let frame: Arc<str> = Arc::from(jsonrpc::notification_text(method, params));
        fanout(&mut self.outbox, &self.root_subs, &frame);
    }

    fn envelope_frame(
        &self,
        channel: &str,
        action: StateAction,
        origin: Option<ActionOrigin>,
        rejection_reason: Option<String>,
    ) -> (Arc<str>, StateAction) {
        let envelope = ActionEnvelope {
            channel: channel.to_owned(),
            action,
            server_seq: self.seq,
            origin,
            rejection_reason,
            extra: Default::default(),
        };
        let json = serde_json::to_string(&envelope).expect("envelopes always serialize");
        (action_frame(&json), envelope.action)
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
        let now = SystemClock.now();
        let clock = FixedClock(now);
        if channel == ROOT_CHANNEL {
            if let Outcome::NoOp(reason) = root_reducer(&mut self.root, &action, &clock) {
                return Err((action, reason));
            }
            self.seq += 1;
            let (frame, action) = self.envelope_frame(channel, action, origin, None);
            self.replay
                .push(self.seq, self.root_uri.clone(), frame.clone(), None);
            fanout(&mut self.outbox, &self.root_subs, &frame);
            return Ok(action);
        }
        if let Some(terminal) = self.terminals.map.get_mut(channel) {
            let outcome = ahp_wasm::reduce::terminal_reducer(&mut terminal.state, &action, &clock);
            match outcome {
                Outcome::Applied(_) => {}
                // Side-effect only (written to the pty): echoed like an applied action.
                Outcome::NoOp(NoOp::NothingToChange)
                    if matches!(action, StateAction::TerminalInput(_)) => {}
                Outcome::NoOp(reason) => return Err((action, reason)),
            }
            self.seq += 1;
            let (frame, action) = self.envelope_frame(channel, action, origin, None);
            let terminal = &self.terminals.map[channel];
            fanout(&mut self.outbox, &terminal.subscribers, &frame);
            self.replay.push(self.seq, Arc::from(channel), frame, None);
            return Ok(action);
        }
        let Some(session) = self.sessions.get_mut(channel) else {
            return Err((action, NoOp::UnknownTarget));
        };
        let changed = match session.reduce(&action, &clock) {
            Outcome::Applied(changed) => changed,
            Outcome::NoOp(reason) => return Err((action, reason)),
        };
        self.seq += 1;
        // Clients without `capabilities.mcpApps` get the envelope without `mcpApp`/`channel`.
        let plain = crate::mcp::apps::plain_action(&action)
            .map(|plain| self.envelope_frame(channel, plain, origin.clone(), None).0);
        let (frame, action) = self.envelope_frame(channel, action, origin, None);
        let session = self.sessions.get_mut(channel).expect("checked above");
        session.record(self.seq, now, &frame, changed, &mut self.ops);
        let uri = session.uri.clone();
        match &plain {
            None => fanout(&mut self.outbox, &session.subscribers, &frame),
            Some(plain) => {
                for &c in &session.subscribers {
                    let apps = self.conns.get(&c).is_some_and(|c| c.mcp_apps);
                    let f = if apps { &frame } else { plain };
                    self.outbox.push((c, f.clone()));
                }
            }
        }
        let summary_changes = session.summary_changes(changed);
        self.replay.push(self.seq, uri, frame, plain);
        if let Some(changes) = summary_changes {
            self.notify_root(jsonrpc::methods::SESSION_SUMMARY_CHANGED, &changes);
        }
        Ok(action)
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

    /// Echoes a rejected client action to its dispatcher only, with `rejectionReason`.
    fn reject(
        &mut self,
        conn: ConnId,
        channel: &str,
        action: StateAction,
        origin: ActionOrigin,
        reason: String,
    ) {
        self.seq += 1;
        let (frame, _) = self.envelope_frame(channel, action, Some(origin), Some(reason));
        self.outbox.push((conn, frame));
    }

    /// Sends an event to the agent working on `channel`, if any.
    fn tell_agent(&mut self, channel: &str, event: AgentEvent) {
        if let Some(session) = self.sessions.get(channel) {
            session.tell_agent(event);
        }
    }

    fn conn_client_id(&self, conn: ConnId) -> Option<&str> {
        self.conns.get(&conn).and_then(|c| c.client_id.as_deref())
    }

    fn mark_initialized(&mut self, conn: ConnId, client_id: String) {
        // One live connection per client id: a newer one takes over (a reconnect usually
        // arrives before the old socket is noticed dead).
        let others: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(id, c)| **id != conn && c.client_id.as_deref() == Some(client_id.as_str()))
            .map(|(id, _)| *id)
            .collect();
        for other in others {
            if let Some(c) = self.conns.get_mut(&other) {
                // Keep the role: the same client is still here.
                c.client_id = None;
            }
            self.drop_conn(other);
        }
        let apps = self.bindings.mcp_apps(&client_id);
        if let Some(c) = self.conns.get_mut(&conn) {
            c.handle.shared.initialized.store(true, Ordering::Release);
            c.client_id = Some(client_id.clone());
            c.mcp_apps = apps;
        }
        self.client_returned(&client_id);
        self.custom_client_returned(&client_id);
    }
}

fn fanout(outbox: &mut Vec<(ConnId, Arc<str>)>, subs: &[ConnId], frame: &Arc<str>) {
    outbox.extend(subs.iter().map(|&c| (c, frame.clone())));
}
