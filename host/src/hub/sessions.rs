//! One session as the hub holds it: its 1.0 state (`v1_mirror.rs`, what the store keeps), the
//! 0.3.0 view of its members and active turn, subscribers, and the agent working on it.

use crate::agent::AgentEvent;
use crate::store::{HostFields, LoadedSession};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::{
    ActionOrigin, SessionState, SessionStateField, SessionSummary, SessionSummaryChangedParams,
    SessionSummaryChangedParamsChanges, SessionTruncatedAction, StateAction,
};
use ahp_wasm::reduce::{session_reducer, Changed, Clock, NoOp, Outcome};
use std::sync::Arc;
use tokio::sync::mpsc;

use super::v1_mirror::Mirror;
use super::ConnId;

/// The agent task working on the active turn.
pub(super) struct AgentRun {
    pub turn_id: String,
    pub events: mpsc::UnboundedSender<AgentEvent>,
    pub task: tokio::task::JoinHandle<()>,
}

pub(super) struct Session {
    pub uri: Arc<str>,
    /// The 0.3.0 view of the session's members and active turn, without its completed turns:
    /// those are the 1.0 chat's alone ([`Mirror::v03_turns`] shows them as 0.3.0 has them).
    /// The 0.3.0 reducer keeps it in step with each action, a truncation checked against the
    /// 1.0 chat's turns ([`Session::reduce`]), for the hub's readers of session members.
    pub state: SessionState,
    pub subscribers: Vec<ConnId>,
    pub agent: Option<AgentRun>,
    /// The summary as last announced with `root/sessionSummaryChanged`.
    announced: SessionSummary,
    /// `session/modelChanged` / `session/agentChanged` dispatched during a turn, applied after it.
    pub deferred: Vec<(StateAction, Option<ActionOrigin>)>,
    /// The session's AHP 1.0 state (`v1_mirror.rs`): what the store keeps (a session whose
    /// 0.3.0 state does not lift is refused when created, `Session::new`).
    pub v1: Mirror,
    /// Debug builds: the whole 0.3.0 state, completed turns too, as the 0.3.0 reducer makes it
    /// from every action; `v03_view.rs` checks it, and [`Session::state`], against the view of
    /// the 1.0 state.
    #[cfg(debug_assertions)]
    pub shadow: SessionState,
}

impl Session {
    /// A new session; the caller stores it (`Mirror::record_all`). `None` (logged) when its
    /// state does not lift to 1.0, a bug of the lift: it could be neither stored nor served.
    pub fn new(mut state: SessionState) -> Option<Session> {
        let v1 = Mirror::lift(&state)?;
        #[cfg(debug_assertions)]
        let shadow = state.clone();
        state.turns = Vec::new();
        Some(Session {
            uri: Arc::from(state.summary.resource.as_str()),
            announced: state.summary.clone(),
            v1,
            state,
            subscribers: Vec::new(),
            agent: None,
            deferred: Vec::new(),
            #[cfg(debug_assertions)]
            shadow,
        })
    }

    /// Gives a new session (or chat's view) the completed turns it starts with (a fork's, a
    /// side chat's), as the 1.0 chat has them.
    pub fn seed_turns(&mut self, turns: Vec<Arc<ahp_wasm::protocol::v1::Turn>>) {
        self.v1.chat.turns = turns;
        #[cfg(debug_assertions)]
        {
            let view = self.v1.v03_state(&self.uri);
            self.shadow.turns = view.expect("a seeded chat has a 0.3.0 view").turns;
        }
    }

    /// A session loaded from the database: its 1.0 state, and its 0.3.0 state derived from
    /// it. An older host's 0.3.0 state (`loaded.older`) gives what the 1.0 state lacks: the
    /// host's fields, or all of it (lifted) where no usable 1.0 state is stored; the caller
    /// stores the result. `None` (logged) when neither gives a session.
    pub fn loaded(loaded: LoadedSession) -> Option<Session> {
        let LoadedSession { uri, v1, older } = loaded;
        let stored = v1.and_then(|v1| Mirror::loaded(&uri, v1));
        let mirror = match (stored, &older) {
            (Some(mut mirror), older) => {
                if let Some(older) = older.as_ref().filter(|_| mirror.needs_head) {
                    mirror.host = HostFields::of(older);
                }
                mirror
            }
            (None, Some(older)) => Mirror::lift(older)?,
            (None, None) => {
                eprintln!("ahp-host: session {uri} has no usable stored state; not loaded");
                return None;
            }
        };
        let state = match mirror.v03_head(&uri) {
            Ok(state) => state,
            Err(e) => {
                // A bug of the view (the debug check of `v03_view.rs` would have caught it).
                eprintln!("ahp-host: session {uri} has no 0.3.0 view ({e}); not loaded");
                return None;
            }
        };
        #[cfg(debug_assertions)]
        if let Some(older) = &older {
            // What an older host stored and what its 1.0 state shows must agree.
            super::v03_view::check(&uri, older, &mirror);
        }
        #[cfg(debug_assertions)]
        let shadow = mirror
            .v03_state(&uri)
            .expect("a session with a 0.3.0 head has a 0.3.0 view");
        Some(Session {
            uri: Arc::from(uri.as_str()),
            announced: state.summary.clone(),
            v1: mirror,
            state,
            subscribers: Vec::new(),
            agent: None,
            deferred: Vec::new(),
            #[cfg(debug_assertions)]
            shadow,
        })
    }

    /// Applies a 0.3.0 action to [`Session::state`] (before the 1.0 state follows it, in the
    /// core). Completed turns are the 1.0 chat's: a truncation is checked against them, and a
    /// turn that ends leaves none behind here.
    pub fn reduce(
        &mut self,
        action: &StateAction,
        clock: &dyn Clock,
    ) -> Outcome<SessionStateField> {
        let outcome = match action {
            StateAction::SessionTruncated(a) => {
                let turns = &self.v1.chat.turns;
                let keep = match &a.turn_id {
                    // The first turn of that id, as the reducers take it.
                    Some(id) => match turns.iter().position(|t| t.id == *id) {
                        Some(index) => index + 1,
                        None => return Outcome::NoOp(NoOp::UnknownTarget),
                    },
                    None => 0,
                };
                // All of none: the rest of what a truncation does (the active turn, input
                // requests, status) is the state's.
                let all = StateAction::SessionTruncated(SessionTruncatedAction {
                    turn_id: None,
                    extra: a.extra.clone(),
                });
                match session_reducer(&mut self.state, &all, clock) {
                    Outcome::Applied(mut changed) if keep < turns.len() => {
                        changed.insert(SessionStateField::Turns);
                        Outcome::Applied(changed)
                    }
                    outcome => outcome,
                }
            }
            _ => session_reducer(&mut self.state, action, clock),
        };
        self.state.turns.clear();
        #[cfg(debug_assertions)]
        {
            let shadow = session_reducer(&mut self.shadow, action, clock);
            assert_eq!(
                shadow.is_applied(),
                outcome.is_applied(),
                "{}: the 0.3.0 view and the whole 0.3.0 state disagree on {action:?}",
                self.uri
            );
        }
        outcome
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

    /// Bytes of completed turns this session (its default chat) stores.
    pub fn stored_turn_bytes(&self) -> usize {
        self.v1.stored_turn_bytes()
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
