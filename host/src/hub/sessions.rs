//! One session as the hub holds it: its 1.0 state (`v1_mirror.rs`: the one state, what the
//! store keeps), the 0.3.0 view of its members derived from it, subscribers, and the agent
//! working on it.

use crate::agent::AgentEvent;
use crate::store::{HostFields, LoadedSession};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::v1;
use ahp_wasm::protocol::{
    ActionOrigin, SessionState, SessionSummary, SessionSummaryChangedParams,
    SessionSummaryChangedParamsChanges, StateAction,
};
use ahp_wasm::reduce::{Clock, NoOp};
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::mpsc;

use super::v1_mirror::{Direct, Mirror};
use super::ConnId;

/// The agent task working on the active turn.
pub(super) struct AgentRun {
    pub turn_id: String,
    pub events: mpsc::UnboundedSender<AgentEvent>,
    pub task: tokio::task::JoinHandle<()>,
}

pub(super) struct Session {
    pub uri: Arc<str>,
    /// The 0.3.0 view of the session's members (summary, lifecycle, config, customizations,
    /// active client, server tools, changesets) without the conversation: derived from the 1.0
    /// state (`Mirror::v03_members`) whenever a change reaches the session's members
    /// ([`Session::refresh_members`]), for the hub's readers of them. The conversation is
    /// read from the 1.0 chat ([`Session::head`] builds its 0.3.0 view on demand).
    pub members: SessionState,
    pub subscribers: Vec<ConnId>,
    pub agent: Option<AgentRun>,
    /// The summary as last announced with `root/sessionSummaryChanged`.
    announced: SessionSummary,
    /// `session/modelChanged` / `session/agentChanged` dispatched during a turn, applied after it.
    pub deferred: Vec<(StateAction, Option<ActionOrigin>)>,
    /// The session's AHP 1.0 state (`v1_mirror.rs`): the state the hub changes and the store
    /// keeps (a session whose 0.3.0 state does not lift is refused when created,
    /// `Session::new`).
    pub v1: Mirror,
    /// Debug builds: the whole 0.3.0 state the 0.3.0 reducer makes of the same actions;
    /// `v03_view.rs` checks it, and [`Session::members`], against the view of the 1.0 state,
    /// and [`Session::apply`] that the two reducers accept the same actions.
    #[cfg(debug_assertions)]
    pub shadow: SessionState,
}

impl Session {
    /// A new session from its 0.3.0 description, lifted to 1.0; the caller stores it
    /// (`Mirror::record_all`). `None` (logged) when it does not lift or has no 0.3.0 view, a
    /// bug of the lift: it could be neither stored nor served.
    pub fn new(state: SessionState) -> Option<Session> {
        let v1 = Mirror::lift(&state)?;
        Session::of(v1, state.summary.resource.as_str())
    }

    /// A session loaded from the database: its 1.0 state. An older host's 0.3.0 state
    /// (`loaded.older`) gives what the 1.0 state lacks: the host's fields, or all of it
    /// (lifted) where no usable 1.0 state is stored; the caller stores the result. `None`
    /// (logged) when neither gives a session.
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
        #[cfg(debug_assertions)]
        if let Some(older) = &older {
            // What an older host stored and what its 1.0 state shows must agree.
            super::v03_view::check(&uri, older, &mirror);
        }
        Session::of(mirror, &uri)
    }

    fn of(v1: Mirror, uri: &str) -> Option<Session> {
        let members = match v1.v03_members(uri) {
            Ok(members) => members,
            Err(e) => {
                // A bug of the view (the debug check of `v03_view.rs` would have caught it).
                eprintln!("ahp-host: session {uri} has no 0.3.0 view ({e})");
                return None;
            }
        };
        #[cfg(debug_assertions)]
        let shadow = v1
            .v03_state(uri)
            .expect("a session with 0.3.0 members has a view");
        Some(Session {
            uri: Arc::from(uri),
            announced: members.summary.clone(),
            members,
            v1,
            subscribers: Vec::new(),
            agent: None,
            deferred: Vec::new(),
            #[cfg(debug_assertions)]
            shadow,
        })
    }

    /// Gives a new session (or chat's view) the completed turns it starts with (a fork's, a
    /// side chat's).
    pub fn seed_turns(&mut self, turns: Vec<Arc<v1::Turn>>) {
        self.v1.chat.turns = turns;
        self.refresh_members();
        #[cfg(debug_assertions)]
        {
            let view = self.v1.v03_state(&self.uri);
            self.shadow = view.expect("a seeded chat has a 0.3.0 view");
        }
    }

    /// Applies a 0.3.0 action to the session's 1.0 state at `clock`'s time: the 1.0 channels
    /// and actions it became (`Mirror::follow`), or why it changes nothing. The caller
    /// publishes them ([`super::base::Core::v1_publish_at`] refreshes the members).
    pub fn apply(
        &mut self,
        action: &StateAction,
        clock: &dyn Clock,
    ) -> Result<Vec<(String, Value)>, NoOp> {
        let uri = self.uri.clone();
        let applied = self.v1.follow(&uri, action, clock.now());
        #[cfg(debug_assertions)]
        self.shadow_agrees(action, clock, applied.is_ok());
        applied
    }

    /// Applies a 1.0 action a client dispatched (`direct`) to the session's 1.0 state, as it is:
    /// the 1.0 channels and actions, or why it changes nothing. `action` is its 0.3.0 form,
    /// which 0.3.0 subscribers are sent (debug builds check the 0.3.0 reducer accepts it too).
    pub fn apply_direct(
        &mut self,
        direct: Direct,
        #[cfg_attr(not(debug_assertions), allow(unused_variables))] action: &StateAction,
        #[cfg_attr(not(debug_assertions), allow(unused_variables))] clock: &dyn Clock,
    ) -> Result<Vec<(String, Value)>, NoOp> {
        let Direct {
            on_session,
            action: v1_action,
            json,
            ..
        } = direct;
        let uri = self.uri.clone();
        let applied = self.v1.apply(&uri, on_session, &v1_action, json);
        #[cfg(debug_assertions)]
        self.shadow_agrees(action, clock, applied.is_ok());
        applied
    }

    /// Debug builds: applies `action` to the whole 0.3.0 state and checks the 0.3.0 reducer
    /// judged it as the 1.0 reducers did (`applied`).
    #[cfg(debug_assertions)]
    fn shadow_agrees(&mut self, action: &StateAction, clock: &dyn Clock, applied: bool) {
        let shadow = ahp_wasm::reduce::session_reducer(&mut self.shadow, action, clock);
        assert_eq!(
            shadow.is_applied(),
            applied,
            "{}: the 0.3.0 and 1.0 reducers disagree on {action:?} ({shadow:?})",
            self.uri
        );
    }

    /// Debug builds: checks the whole 0.3.0 state and the members against the view of the 1.0
    /// state (`v03_view.rs`).
    #[cfg(debug_assertions)]
    pub fn check_view(&self) {
        super::v03_view::check_session(&self.uri, &self.shadow, &self.members, &self.v1);
    }

    /// Derives [`Session::members`] from the 1.0 state again (after a change of it that
    /// reaches them: its session's state, or the host's fields).
    pub fn refresh_members(&mut self) {
        match self.v1.v03_members(&self.uri) {
            Ok(members) => self.members = members,
            // A bug of the view (the debug check panics on it): the members stay as they were.
            Err(e) => eprintln!("ahp-host: session {} has no 0.3.0 view ({e})", self.uri),
        }
    }

    /// The 0.3.0 view of the session without its completed turns: [`Session::members`] and the
    /// chat's active turn, input requests, steering and queued messages (built now: for a
    /// client's dispatch being authorized, a turn being started).
    pub fn head(&self) -> SessionState {
        self.v1.v03_head(&self.uri).unwrap_or_else(|e| {
            // A bug of the view (the debug check panics on it): the members alone.
            eprintln!("ahp-host: session {} has no 0.3.0 view ({e})", self.uri);
            self.members.clone()
        })
    }

    /// The id of the chat's active turn.
    pub fn active_turn_id(&self) -> Option<&str> {
        self.v1.chat.active_turn.as_ref().map(|t| t.id.as_str())
    }

    /// The `root/sessionSummaryChanged` params for a summary change not yet announced.
    pub fn summary_changes(&mut self) -> Option<SessionSummaryChangedParams> {
        let (old, new) = (&self.announced, &self.members.summary);
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
