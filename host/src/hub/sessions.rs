//! One session as the hub holds it: state, subscribers, the agent working on it, and what is
//! on disk.

use crate::agent::AgentEvent;
use crate::store::{LoadedSession, Op};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::{
    ActionOrigin, SessionState, SessionStateField, SessionSummary, SessionSummaryChangedParams,
    SessionSummaryChangedParamsChanges, StateAction,
};
use ahp_wasm::reduce::{session_reducer, Changed, Clock, Outcome};
use std::sync::Arc;
use tokio::sync::mpsc;

use super::v1_mirror::Mirror;
use super::ConnId;

/// A fresh head (state without completed turns) is written at least this often, so a restart
/// replays a bounded log.
const HEAD_EVERY: usize = 512;
/// ... and at least every this many bytes of log, so large actions (a client plugin published
/// again and again) do not grow the database by their size each time.
const HEAD_EVERY_BYTES: usize = 4 << 20;

/// The agent task working on the active turn.
pub(super) struct AgentRun {
    pub turn_id: String,
    pub events: mpsc::UnboundedSender<AgentEvent>,
    pub task: tokio::task::JoinHandle<()>,
}

pub(super) struct Session {
    pub uri: Arc<str>,
    pub state: SessionState,
    pub subscribers: Vec<ConnId>,
    pub agent: Option<AgentRun>,
    /// Completed turns written to the `turns` table.
    persisted_turns: usize,
    /// The JSON size of each of those turns.
    turn_bytes: Vec<usize>,
    /// Log entries since the last head.
    since_head: usize,
    /// Bytes of those entries (of this process's: a restart starts counting again).
    since_head_bytes: usize,
    /// The summary as last announced with `root/sessionSummaryChanged`.
    announced: SessionSummary,
    /// `session/modelChanged` / `session/agentChanged` dispatched during a turn, applied after it.
    pub deferred: Vec<(StateAction, Option<ActionOrigin>)>,
    /// The session's AHP 1.0 state (`v1_mirror.rs`); `None` only where a bug of the lift left
    /// it without one (logged): the session is then not served to 1.0 clients.
    pub v1: Option<super::v1_mirror::Mirror>,
}

impl Session {
    /// A new session; the caller records its first head.
    pub fn new(state: SessionState) -> Session {
        Session {
            uri: Arc::from(state.summary.resource.as_str()),
            announced: state.summary.clone(),
            v1: Mirror::lift(&state),
            state,
            subscribers: Vec::new(),
            agent: None,
            persisted_turns: 0,
            turn_bytes: Vec::new(),
            since_head: 0,
            since_head_bytes: 0,
            deferred: Vec::new(),
        }
    }

    /// A session loaded from the database.
    pub fn loaded(uri: &str, loaded: LoadedSession) -> Session {
        Session {
            uri: Arc::from(uri),
            announced: loaded.state.summary.clone(),
            // Stored in 1.0, or (a database of an older host, or a stored state without its
            // default chat) lifted once and stored.
            v1: loaded
                .v1
                .and_then(|v1| Mirror::loaded(uri, v1))
                .map(|mut mirror| {
                    mirror.selection = super::v1_mirror::Selection::of(&loaded.state);
                    mirror
                })
                .or_else(|| Mirror::lift(&loaded.state)),
            state: loaded.state,
            subscribers: Vec::new(),
            agent: None,
            persisted_turns: loaded.persisted_turns,
            turn_bytes: loaded.turn_bytes,
            since_head: loaded.since_head,
            since_head_bytes: 0,
            deferred: Vec::new(),
        }
    }

    pub fn reduce(
        &mut self,
        action: &StateAction,
        clock: &dyn Clock,
    ) -> Outcome<SessionStateField> {
        session_reducer(&mut self.state, action, clock)
    }

    /// Queues the writes for an applied envelope: the log entry, completed or truncated turns,
    /// and a new head when the structure changed or the log grew long.
    pub fn record(
        &mut self,
        seq: u64,
        ts: f64,
        frame: &Arc<str>,
        changed: Changed<SessionStateField>,
        ops: &mut Vec<Op>,
    ) {
        ops.push(Op::Action {
            seq,
            uri: self.uri.clone(),
            ts,
            frame: frame.clone(),
        });
        self.since_head += 1;
        self.since_head_bytes += frame.len();
        let structural = changed.contains(SessionStateField::Turns)
            || changed.contains(SessionStateField::Lifecycle);
        if changed.contains(SessionStateField::Turns) {
            self.record_turns(ops);
        }
        if structural || self.since_head >= HEAD_EVERY || self.since_head_bytes >= HEAD_EVERY_BYTES
        {
            self.record_head(seq, ops);
        }
    }

    /// Queues writes for completed turns added (or removed) since the last call.
    pub fn record_turns(&mut self, ops: &mut Vec<Op>) {
        let len = self.state.turns.len();
        if len < self.persisted_turns {
            ops.push(Op::TruncateTurns {
                uri: self.uri.clone(),
                from_idx: len,
            });
            self.persisted_turns = len;
            self.turn_bytes.truncate(len);
        }
        for idx in self.persisted_turns..len {
            let turn = &self.state.turns[idx];
            let json = serde_json::to_string(turn).expect("turns always serialize");
            self.turn_bytes.push(json.len());
            ops.push(Op::Turn {
                uri: self.uri.clone(),
                idx,
                turn_id: turn.id.clone(),
                json,
            });
        }
        self.persisted_turns = len;
    }

    /// Queues the state without its completed turns as the head at `seq`.
    pub fn record_head(&mut self, seq: u64, ops: &mut Vec<Op>) {
        let turns = std::mem::take(&mut self.state.turns);
        let json = serde_json::to_string(&self.state).expect("session state always serializes");
        self.state.turns = turns;
        ops.push(Op::Head {
            uri: self.uri.clone(),
            json,
            seq,
        });
        self.since_head = 0;
        self.since_head_bytes = 0;
    }

    /// The `root/sessionSummaryChanged` params for a summary change not yet announced.
    pub fn summary_changes(
        &mut self,
        changed: Changed<SessionStateField>,
    ) -> Option<SessionSummaryChangedParams> {
        if !changed.contains(SessionStateField::Summary) {
            return None;
        }
        let (old, new) = (&self.announced, &self.state.summary);
        let differs = |a: bool| a.then_some(());
        let changes = SessionSummaryChangedParamsChanges {
            title: differs(old.title != new.title).map(|_| new.title.clone()),
            status: differs(old.status != new.status).map(|_| new.status),
            activity: differs(old.activity != new.activity).and(new.activity.clone()),
            modified_at: differs(old.modified_at != new.modified_at).map(|_| new.modified_at),
            project: differs(old.project != new.project).and(new.project.clone()),
            model: differs(old.model != new.model).and(new.model.clone()),
            agent: differs(old.agent != new.agent).and(new.agent.clone()),
            working_directory: differs(old.working_directory != new.working_directory)
                .and(new.working_directory.clone()),
            changes: differs(old.changes != new.changes).and(new.changes.clone()),
            ..Default::default()
        };
        if changes == SessionSummaryChangedParamsChanges::default() {
            return None;
        }
        self.announced = new.clone();
        Some(SessionSummaryChangedParams {
            channel: ROOT_CHANNEL.into(),
            session: self.uri.to_string(),
            changes,
            extra: Default::default(),
        })
    }

    /// Bytes of completed turns this session stores.
    pub fn stored_turn_bytes(&self) -> usize {
        self.turn_bytes.iter().sum()
    }

    pub fn tell_agent(&self, event: AgentEvent) {
        if let Some(run) = &self.agent {
            let _ = run.events.send(event);
        }
    }

    /// Stops the agent task, if any.
    pub fn stop_agent(&mut self) {
        if let Some(run) = self.agent.take() {
            run.task.abort();
        }
    }
}
