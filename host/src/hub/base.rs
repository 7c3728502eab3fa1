//! The hub's core: what every feature builds on. `serverSeq` and its persistence, the root
//! channel, the sessions, the connections with their subscriptions and the outbox of frames,
//! the replay ring, the store and the handles to reach the hub (its sender, the runtime).
//!
//! Features (MCP, customizations, changesets, watches, terminals, agent auth, the transform)
//! keep their own state next to the core in [`super::Hub`] and get `&mut Core` in their
//! lifecycle hooks (see `features.rs`).

use super::{fanout, Conn, ConnId, HubSender};
use crate::agent::AgentEvent;
use crate::replay::{action_frame, ReplayRing};
use crate::resources::Sandbox;
use crate::store::{Op, Store};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::jsonrpc::{self, ErrorObject, RequestId};
use ahp_wasm::protocol::{ActionEnvelope, ActionOrigin, RootState, SessionState, StateAction};
use ahp_wasm::reduce::{root_reducer, Clock, FixedClock, NoOp, Outcome, SystemClock};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// The core's state (see the module docs).
pub(super) struct Core {
    pub(super) seq: u64,
    /// The `serverSeq` last committed to the database. Every number a client may have seen
    /// (including those of rejected actions, which write nothing else) is committed before the
    /// frame carrying it is sent, so a restart never hands a number out twice.
    pub(super) persisted_seq: u64,
    pub(super) root_uri: Arc<str>,
    pub(super) root: RootState,
    pub(super) root_subs: Vec<ConnId>,
    /// AHP 1.0 connections subscribed to the root (`v1.rs`).
    pub(super) root_subs_v1: Vec<ConnId>,
    /// The AHP 1.0 dispatch being applied through the 0.3.0 path, for its rejections.
    pub(super) v1_pending: Option<super::v1_mirror::PendingV1>,
    /// Set while a 0.3.0 handler answers an AHP 1.0 client (`RequestV1::Shared`): its result
    /// is written with 1.0's integers (`compat::integers`).
    pub(super) respond_v1: bool,
    pub(super) sessions: HashMap<String, super::sessions::Session>,
    pub(super) conns: HashMap<ConnId, Conn>,
    pub(super) replay: ReplayRing,
    /// The AHP 1.0 envelopes sent to 1.0 subscribers (rejections, sent to their dispatcher
    /// alone, are not kept), for a 1.0 client's `reconnect` (`v1.rs`). Its floor starts above
    /// the last `serverSeq` of the previous run: the state a restart loads may differ from what
    /// its envelopes said (turns interrupted, 1.0 state lifted), so a client that saw anything
    /// from before the restart gets snapshots.
    pub(super) replay_v1: ReplayRing,
    /// Whether a 1.0 client has connected in this run. Until one has, no 1.0 client can ask
    /// for a replay, so feature channels' actions are not converted to 1.0 for `replay_v1`.
    pub(super) v1_in_run: bool,
    pub(super) store: Store,
    pub(super) ops: Vec<Op>,
    pub(super) outbox: Vec<(ConnId, Arc<str>)>,
    pub(super) tx: HubSender,
    pub(super) rt: tokio::runtime::Handle,
    pub(super) sandbox: Sandbox,
    /// The agent's delay between streamed chunks.
    pub(super) chunk_delay: Duration,
    /// Numbers the hub's timers, so a stale timer's message is told from the current one.
    pub(super) next_timer: u64,
    pub(super) limits: crate::config::Limits,
    pub(super) bindings: super::identity::Bindings,
    pub(super) stopping: bool,
    /// The host's requests to clients.
    pub(super) peer: Arc<crate::peer::PeerRequests>,
    /// Channels subscribed to by the request being handled: once it is answered, the
    /// features hear they are used ([`super::features::Feature::session_used`]), so the
    /// subscriber gets the snapshot before the envelopes that follow it.
    pub(super) to_wake: Vec<String>,
    /// Actions a feature's hook applied whose reactions have not run yet (see `apply_server`).
    pub(super) applied: Vec<(String, StateAction)>,
}

impl Core {
    /// Commits the queued writes, and the current `serverSeq` whenever it moved (a rejection or a
    /// root action moves it without any other write).
    pub(super) fn commit_ops(&mut self) {
        if self.ops.is_empty() && self.seq == self.persisted_seq {
            return;
        }
        if let Err(e) = self.store.commit(&self.ops, self.seq, self.replay.newest()) {
            // Nothing from this batch was sent; stopping is the only way not to acknowledge
            // what is not on disk.
            eprintln!("ahp-host: cannot persist ({e}); stopping");
            std::process::exit(70);
        }
        self.ops.clear();
        self.persisted_seq = self.seq;
    }

    /// Queues a response frame.
    pub(super) fn respond<R: Serialize>(&mut self, conn: ConnId, id: &RequestId, result: &R) {
        if self.respond_v1 {
            if let Ok(mut json) = serde_json::to_value(result) {
                crate::compat::integers(&mut json);
                let text = jsonrpc::result_text(id, &json);
                self.outbox.push((conn, Arc::from(text)));
                return;
            }
        }
        self.outbox
            .push((conn, Arc::from(jsonrpc::result_text(id, result))));
    }

    /// Queues an error response frame.
    pub(super) fn respond_error(&mut self, conn: ConnId, id: &RequestId, error: ErrorObject) {
        self.outbox
            .push((conn, Arc::from(jsonrpc::error_text(Some(id), &error))));
    }

    /// Queues a notification for every subscriber of the root channel.
    pub(super) fn notify_root<P: Serialize>(&mut self, method: &str, params: &P) {
        let frame: Arc<str> = Arc::from(jsonrpc::notification_text(method, params));
        fanout(&mut self.outbox, &self.root_subs, &frame);
        if !self.root_subs_v1.is_empty() {
            if let Ok(params) = serde_json::to_value(params) {
                self.v1_notify_root(method, params);
            }
        }
    }

    pub(super) fn envelope_frame(
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

    /// Echoes a rejected client action to its dispatcher only, with `rejectionReason`.
    pub(super) fn reject(
        &mut self,
        conn: ConnId,
        channel: &str,
        action: StateAction,
        origin: ActionOrigin,
        reason: String,
    ) {
        self.seq += 1;
        if self.is_v1(conn) {
            // A 1.0 client's dispatch: rejected in 1.0, as it was dispatched.
            self.v1_reject(conn, &origin, &reason);
            return;
        }
        let (frame, _) = self.envelope_frame(channel, action, Some(origin), Some(reason));
        self.outbox.push((conn, frame));
    }

    /// Sends an event to the agent working on `channel`, if any.
    pub(super) fn tell_agent(&mut self, channel: &str, event: AgentEvent) {
        if let Some(session) = self.sessions.get(channel) {
            session.tell_agent(event);
        }
    }

    pub(super) fn conn_client_id(&self, conn: ConnId) -> Option<&str> {
        self.conns.get(&conn).and_then(|c| c.client_id.as_deref())
    }

    /// Applies an action to the root or a session through its reducer; on success it gets the
    /// next `serverSeq`, is logged, kept for replay and broadcast to the channel's subscribers.
    /// The action is handed back either way.
    pub(super) fn apply(
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
            let (frame, action) = self.envelope_frame(channel, action, origin.clone(), None);
            self.replay
                .push(self.seq, self.root_uri.clone(), frame.clone(), None);
            fanout(&mut self.outbox, &self.root_subs, &frame);
            self.v1_root_applied(&action, origin.as_ref());
            return Ok(action);
        }
        let Some(session) = self.sessions.get_mut(channel) else {
            return Err((action, NoOp::UnknownTarget));
        };
        // The 1.0 state judges and changes; the 0.3.0 envelope shows 0.3.0 clients the same.
        // A 1.0 client's action is applied as it sent it.
        let direct = self.v1_pending.as_mut();
        let direct = direct.and_then(|p| p.take_direct(channel, origin.as_ref()));
        let applied = match direct {
            Some(direct) => session.apply_direct(direct, &action, &clock),
            None => session.apply(&action, &clock),
        };
        let applied = match applied {
            Ok(applied) => applied,
            Err(reason) => return Err((action, reason)),
        };
        self.seq += 1;
        // Clients without `capabilities.mcpApps` get the envelope without `mcpApp`/`channel`.
        let plain = crate::mcp::apps::plain_action(&action)
            .map(|plain| self.envelope_frame(channel, plain, origin.clone(), None).0);
        let (frame, action) = self.envelope_frame(channel, action, origin.clone(), None);
        let session = self.sessions.get_mut(channel).expect("checked above");
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
        self.replay.push(self.seq, uri.clone(), frame, plain);
        // The translated actions are the 0.3.0 envelope in 1.0's words: the same number (an
        // action that follows is another envelope, a number of its own).
        self.v1_publish_at(&uri, self.seq, applied, origin.as_ref());
        if matches!(action, StateAction::SessionChangesetsChanged(_)) {
            self.v1_views_take_changesets(&uri);
        }
        #[cfg(debug_assertions)]
        if turns_change(&action) {
            self.check_v03_view(&uri);
        }
        // A chat's view has no summary of its own (`chat_views.rs`).
        let summary_changes = self
            .sessions
            .get_mut(&*uri)
            .filter(|_| !super::v1_mirror::is_chat_view(&uri))
            .and_then(|session| session.summary_changes());
        if let Some(changes) = summary_changes {
            self.notify_root(jsonrpc::methods::SESSION_SUMMARY_CHANGED, &changes);
        }
        Ok(action)
    }

    /// Checks that session (or chat's view) `uri`'s whole 0.3.0 state, as the 0.3.0 reducer
    /// makes it, and its 0.3.0 members are the view of its 1.0 state (`v03_view.rs`; debug
    /// builds, whenever turns start, end or are cut, and at every snapshot served).
    #[cfg(debug_assertions)]
    pub(super) fn check_v03_view(&self, uri: &str) {
        if let Some(session) = self.sessions.get(uri) {
            session.check_view();
        }
    }

    /// Gives an action a feature applied to its own channel the next `serverSeq`: its envelope
    /// goes to `subscribers` and into the replay ring.
    pub(super) fn publish(
        &mut self,
        channel: &str,
        action: StateAction,
        origin: Option<ActionOrigin>,
        subscribers: &[ConnId],
    ) -> StateAction {
        self.seq += 1;
        let (frame, action) = self.envelope_frame(channel, action, origin.clone(), None);
        // Made whether or not a 1.0 client subscribes now: one that reconnects is replayed it.
        let v1 = self
            .v1_in_run
            .then(|| self.channel_frame_v1(channel, &action, origin.as_ref()))
            .flatten();
        self.send_channel(&frame, v1.as_ref(), subscribers);
        let channel: Arc<str> = Arc::from(channel);
        if let Some(v1) = v1 {
            self.keep_v1(channel.clone(), v1);
        }
        self.replay.push(self.seq, channel, frame, None);
        action
    }

    /// Keeps a 1.0 envelope sent to a channel's 1.0 subscribers at the current `serverSeq` for
    /// a 1.0 client's `reconnect` (`chats.rs` pushes its own, numbered like the 0.3.0 envelope
    /// they come from).
    pub(super) fn keep_v1(&mut self, channel: Arc<str>, frame: Arc<str>) {
        self.replay_v1.push(self.seq, channel, frame, None);
    }

    /// The 1.0 envelope of `action` on a feature's channel (`compat::channel_action_v1`) at the
    /// current `serverSeq`.
    fn channel_frame_v1(
        &self,
        channel: &str,
        action: &StateAction,
        origin: Option<&ActionOrigin>,
    ) -> Option<Arc<str>> {
        let mut json = serde_json::to_value(action).ok()?;
        crate::compat::channel_action_v1(&mut json);
        Some(super::v1_mirror::envelope_frame(
            channel, &json, self.seq, origin, None,
        ))
    }

    /// Sends `frame` to the 0.3.0 connections among `subscribers` and `v1` to the 1.0 ones.
    fn send_channel(&mut self, frame: &Arc<str>, v1: Option<&Arc<str>>, subscribers: &[ConnId]) {
        for &conn in subscribers {
            if !self.is_v1(conn) {
                self.outbox.push((conn, frame.clone()));
            } else if let Some(v1) = v1 {
                self.outbox.push((conn, v1.clone()));
            }
        }
    }

    /// Sends the envelope `frame` of `action` on a resource watch's channel to its subscribers:
    /// AHP 1.0 connections get its 1.0 form (`compat::channel_action_v1`), made once. Not kept
    /// for replay: a watch ends with its last subscriber, so a reconnecting client finds it
    /// missing.
    pub(super) fn fanout_channel(
        &mut self,
        channel: &str,
        action: &StateAction,
        origin: Option<&ActionOrigin>,
        frame: &Arc<str>,
        subscribers: &[ConnId],
    ) {
        let v1 = subscribers
            .iter()
            .any(|&c| self.is_v1(c))
            .then(|| self.channel_frame_v1(channel, action, origin))
            .flatten();
        self.send_channel(frame, v1.as_ref(), subscribers);
    }

    /// Applies a server-originated action (no `origin`) from a feature's hook; its reactions
    /// (`Hub::after_apply`) run once the hook returns. Returns whether it applied.
    pub(super) fn apply_server(&mut self, channel: &str, action: StateAction) -> bool {
        match self.apply(channel, action, None) {
            Ok(action) => {
                self.applied.push((channel.to_owned(), action));
                true
            }
            Err(_) => false,
        }
    }

    /// A session's working directory (the sandbox root when it has none or it is unusable).
    pub(super) fn session_workdir(&self, state: &SessionState) -> std::path::PathBuf {
        state
            .summary
            .working_directory
            .as_deref()
            .and_then(|d| crate::resources::uri_path(d).ok())
            .unwrap_or_else(|| self.sandbox.root().to_path_buf())
    }
}

/// Whether a 0.3.0 action starts, ends or cuts turns (debug builds check the views then).
#[cfg(debug_assertions)]
fn turns_change(action: &StateAction) -> bool {
    matches!(
        action,
        StateAction::SessionTurnStarted(_)
            | StateAction::SessionTurnComplete(_)
            | StateAction::SessionTurnCancelled(_)
            | StateAction::SessionError(_)
            | StateAction::SessionTruncated(_)
    )
}
