//! Side effects of applied actions: starting and stopping the agent (built-in or a model
//! agent), consuming queued and steering messages, deferred model/agent changes, and the
//! active client leaving.

use super::sessions::AgentRun;
use super::Hub;
use crate::agent::{AgentEvent, TurnJob};
use ahp_wasm::protocol::{
    ErrorInfo, Message, MessageOrigin, PendingMessage, PendingMessageKind,
    SessionActiveClientChangedAction, SessionErrorAction, SessionLifecycle,
    SessionPendingMessageRemovedAction, SessionToolCallConfirmedAction, SessionTurnStartedAction,
    StateAction, ToolCallContributor,
};
use tokio::sync::mpsc;

/// The `session/error` that fails a turn interrupted by a host restart.
pub(super) fn interrupted(turn_id: &str) -> StateAction {
    StateAction::SessionError(Box::new(SessionErrorAction {
        turn_id: turn_id.to_owned(),
        error: ErrorInfo {
            error_type: "HostRestarted".into(),
            message: "the host restarted while this turn was in progress".into(),
            stack: None,
            extra: Default::default(),
        },
        extra: Default::default(),
    }))
}

pub(super) fn new_turn_id() -> String {
    format!("turn-{}", new_id())
}

/// 16 hex digits from the OS random source: ids of turns, runs and sessions the host makes.
pub(super) fn new_id() -> String {
    let mut bytes = [0u8; 8];
    let _ = getrandom::fill(&mut bytes);
    crate::security::hex(&bytes)
}

impl Hub {
    /// Reacts to an applied action (`from_client` is the dispatcher, `None` for the server).
    pub(super) fn after_apply(
        &mut self,
        channel: &str,
        action: &StateAction,
        from_client: Option<&str>,
    ) {
        match action {
            StateAction::SessionTurnStarted(a) => {
                self.start_agent(channel, &a.turn_id, &a.message, from_client)
            }
            StateAction::SessionTurnComplete(_)
            | StateAction::SessionTurnCancelled(_)
            | StateAction::SessionError(_)
            | StateAction::SessionTruncated(_) => self.turn_ended(channel),
            StateAction::SessionToolCallConfirmed(confirmed) => {
                let (tool_call_id, approved) = match confirmed.as_ref() {
                    SessionToolCallConfirmedAction::Approved(a) => (a.tool_call_id.clone(), true),
                    SessionToolCallConfirmedAction::Denied(a) => (a.tool_call_id.clone(), false),
                };
                self.core.tell_agent(
                    channel,
                    AgentEvent::ToolConfirmed {
                        tool_call_id,
                        approved,
                    },
                );
            }
            StateAction::SessionToolCallStart(a) => {
                if let Some(ToolCallContributor::Client(c)) = &a.contributor {
                    self.watch_client_tool(
                        channel,
                        &a.turn_id,
                        &a.tool_call_id,
                        &a.tool_name,
                        &c.client_id,
                    );
                }
            }
            StateAction::SessionToolCallComplete(a) => {
                self.client_tool_done(channel, &a.tool_call_id);
                if from_client.is_some() {
                    self.core.tell_agent(
                        channel,
                        AgentEvent::ToolCompleted {
                            tool_call_id: a.tool_call_id.clone(),
                            result: Box::new(a.result.clone()),
                        },
                    );
                }
            }
            StateAction::SessionCustomizationToggled(a) => {
                self.mcp_toggled(channel, &a.id, a.enabled, from_client)
            }
            StateAction::SessionMcpServerStateChanged(a) => self.mcp_step_up_check(channel, &a.id),
            StateAction::SessionActiveClientChanged(_) => {
                self.customs.client_sync(&mut self.core, channel)
            }
            StateAction::SessionModelChanged(a) => self.mirror_model(channel, &a.model.id),
            StateAction::SessionInputCompleted(a) if from_client.is_some() => {
                self.mcp_step_up_answered(channel, &a.request_id, &a.response)
            }
            StateAction::SessionPendingMessageSet(a) => match a.kind {
                PendingMessageKind::Steering => self.core.tell_agent(
                    channel,
                    AgentEvent::Steering(PendingMessage {
                        id: a.id.clone(),
                        message: a.message.clone(),
                        extra: Default::default(),
                    }),
                ),
                PendingMessageKind::Queued => self.start_queued(channel),
                PendingMessageKind::Other(_) => {}
            },
            _ => {}
        }
    }

    /// Spawns the session's agent for a new turn (replacing any previous run): the built-in
    /// one, or a model agent (with the key of `from_client`'s connection, if it gave one).
    fn start_agent(
        &mut self,
        channel: &str,
        turn_id: &str,
        message: &Message,
        from_client: Option<&str>,
    ) {
        self.each_feature(|f, core| f.session_used(core, channel));
        let mcp = self.mcp_handles(channel);
        let customizations = self.customs.active(&self.core, channel);
        let Some(session) = self.core.sessions.get_mut(channel) else {
            return;
        };
        session.stop_agent();
        let session = &self.core.sessions[channel];
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let workdir = self.core.session_workdir(&session.members);
        let prompt = crate::agent::prompt::render(
            &session.members,
            &workdir.to_string_lossy(),
            &customizations,
        );
        let transform = self.transform.target(&self.core, &session.members, &prompt);
        let reserved =
            crate::agent::prompt::assemble(&prompt).chars().count() + message.text.chars().count();
        let model_run = self.model_run(session, from_client, reserved);
        let job = TurnJob {
            channel: channel.to_owned(),
            turn_id: turn_id.to_owned(),
            text: message.text.clone(),
            workdir,
            model: session
                .members
                .summary
                .model
                .as_ref()
                .map_or_else(|| crate::agent::default_model().id, |m| m.id.clone()),
            mode: crate::agent::config::mode_of(&session.members),
            prompt,
            active_client: session.members.active_client.clone(),
            steering: session.head().steering_message,
            chunk_delay: self.core.chunk_delay,
            mcp,
            customizations,
            transform,
            model_run,
        };
        let task = self
            .core
            .rt
            .spawn(crate::agent::run_turn(job, self.core.tx.clone(), events_rx));
        if let Some(session) = self.core.sessions.get_mut(channel) {
            session.agent = Some(AgentRun {
                turn_id: turn_id.to_owned(),
                events: events_tx,
                task,
            });
        }
    }

    /// The active turn ended: stop its agent, apply deferred changes, start the next queued
    /// message.
    fn turn_ended(&mut self, channel: &str) {
        let deferred = match self.core.sessions.get_mut(channel) {
            Some(session) if session.active_turn_id().is_none() => {
                session.stop_agent();
                std::mem::take(&mut session.deferred)
            }
            _ => return,
        };
        self.each_feature(|f, core| f.turn_ended(core, channel));
        for (action, origin) in deferred {
            if let Ok(action) = self.apply(channel, action, origin.clone()) {
                let client = origin.as_ref().map(|o| o.client_id.clone());
                self.after_apply(channel, &action, client.as_deref());
            }
        }
        self.start_queued(channel);
    }

    /// Starts a turn from the first queued message when the session is ready and idle.
    fn start_queued(&mut self, channel: &str) {
        let next = match self.core.sessions.get(channel) {
            Some(s)
                if s.active_turn_id().is_none()
                    && s.members.lifecycle == SessionLifecycle::Ready =>
            {
                // No active turn: the view of the conversation is its messages alone.
                s.head().queued_messages.and_then(|q| q.into_iter().next())
            }
            _ => None,
        };
        let Some(next) = next else {
            return;
        };
        self.apply_server(
            channel,
            StateAction::SessionPendingMessageRemoved(SessionPendingMessageRemovedAction {
                kind: PendingMessageKind::Queued,
                id: next.id.clone(),
                extra: Default::default(),
            }),
        );
        let mut message = next.message;
        if message.origin.kind.is_empty() {
            message.origin = MessageOrigin::user();
        }
        self.apply_server(
            channel,
            StateAction::SessionTurnStarted(Box::new(SessionTurnStartedAction {
                turn_id: new_turn_id(),
                message,
                queued_message_id: Some(next.id),
                extra: Default::default(),
            })),
        );
    }

    /// Applies actions from the agent working on `turn_id`; a stale agent is ignored.
    pub(super) fn on_agent(&mut self, channel: &str, turn_id: &str, actions: Vec<StateAction>) {
        for action in actions {
            let current = self
                .core
                .sessions
                .get(channel)
                .and_then(|s| s.agent.as_ref())
                .is_some_and(|run| run.turn_id == turn_id);
            if !current {
                return;
            }
            // An action the state no longer accepts (the turn was cancelled meanwhile) is
            // dropped: the reducer is the judge for the server's actions too.
            let tool_done = matches!(action, StateAction::SessionToolCallComplete(_));
            // A tool may have changed files: the changeset looks again.
            if self.apply_server(channel, action) && tool_done {
                self.changes_session_touched(channel);
            }
        }
    }

    /// The client left: release its active-client role everywhere.
    pub(super) fn release_active_client(&mut self, client_id: &str) {
        let held: Vec<String> = self
            .core
            .sessions
            .iter()
            .filter(|(_, s)| {
                s.members
                    .active_client
                    .as_ref()
                    .is_some_and(|c| c.client_id == client_id)
            })
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in held {
            self.apply_server(
                &uri,
                StateAction::SessionActiveClientChanged(Box::new(
                    SessionActiveClientChangedAction {
                        active_client: None,
                        extra: Default::default(),
                    },
                )),
            );
        }
    }
}
