//! `dispatchAction`: which actions a client may dispatch, authorized against the current state
//! and the dispatching connection (and, for `session/configChanged` and `session/modelChanged`,
//! the agent's config schema and models), then validated by running the reducer.

use super::{ConnId, Hub};
use crate::agent::AgentEvent;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::tagged::TaggedUnion;
use ahp_wasm::protocol::{
    ActionOrigin, DispatchActionParams, ResponsePart, SessionLifecycle, SessionState,
    SessionToolCallConfirmedAction, StateAction, ToolCallContributor, ToolCallState,
};

/// What to do with an authorized action.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Disposition {
    /// Apply it now.
    Apply,
    /// Apply it when the active turn ends (model and agent changes).
    Defer,
}

/// The client-dispatchable actions (guide/actions.md), authorized for `client_id`.
pub(super) fn authorize(
    state: &SessionState,
    action: &StateAction,
    client_id: &str,
) -> Result<Disposition, String> {
    use StateAction as A;
    let user_only = |kind: &str| {
        if kind == "user" {
            Ok(Disposition::Apply)
        } else {
            Err("clients may only send user messages".to_string())
        }
    };
    match action {
        A::SessionTurnStarted(a) => {
            if state.lifecycle != SessionLifecycle::Ready {
                return Err("the session is not ready".into());
            }
            if state.active_turn.is_some() {
                return Err("a turn is already active; queue or steer instead".into());
            }
            if a.queued_message_id.is_some() {
                return Err("queuedMessageId is set by the server".into());
            }
            user_only(&a.message.origin.kind)
        }
        A::SessionPendingMessageSet(a) => user_only(&a.message.origin.kind),
        A::SessionModelChanged(a)
            if crate::agent::config::check_model(state, &a.model.id).is_err() =>
        {
            crate::agent::config::check_model(state, &a.model.id).map(|()| Disposition::Apply)
        }
        A::SessionConfigChanged(a) => match &state.config {
            Some(config) => crate::agent::config::check_change(config, a)
                .map(|()| Disposition::Apply)
                .map_err(|e| format!("config: {e}")),
            None => Err("this session has no config (it predates session config)".into()),
        },
        A::SessionModelChanged(_) | A::SessionAgentChanged(_) => {
            Ok(if state.active_turn.is_some() {
                Disposition::Defer
            } else {
                Disposition::Apply
            })
        }
        A::SessionActiveClientChanged(a) => {
            let current = state.active_client.as_ref().map(|c| c.client_id.as_str());
            match (&a.active_client, current) {
                (Some(new), _) if new.client_id != client_id => {
                    Err("a client can only claim the active role for itself".into())
                }
                (Some(_), Some(cur)) if cur != client_id => Err("another client is active".into()),
                (None, Some(cur)) if cur != client_id => {
                    Err("only the active client can release the role".into())
                }
                (Some(new), _) => client_plugins(state, new.customizations.as_deref()),
                _ => Ok(Disposition::Apply),
            }
        }
        A::SessionActiveClientToolsChanged(_) => match state.active_client.as_ref() {
            Some(c) if c.client_id == client_id => Ok(Disposition::Apply),
            _ => Err("only the active client can change its tools".into()),
        },
        A::SessionToolCallComplete(a) => tool_owner(state, &a.turn_id, &a.tool_call_id, client_id),
        A::SessionToolCallContentChanged(a) => {
            tool_owner(state, &a.turn_id, &a.tool_call_id, client_id)
        }
        A::SessionTurnCancelled(_)
        | A::SessionTruncated(_)
        | A::SessionToolCallConfirmed(_)
        | A::SessionToolCallResultConfirmed(_)
        | A::SessionTitleChanged(_)
        | A::SessionIsReadChanged(_)
        | A::SessionIsArchivedChanged(_)
        | A::SessionActivityChanged(_)
        | A::SessionCustomizationToggled(_)
        | A::SessionPendingMessageRemoved(_)
        | A::SessionQueuedMessagesReordered(_)
        | A::SessionInputAnswerChanged(_)
        | A::SessionInputCompleted(_) => Ok(Disposition::Apply),
        other => Err(format!(
            "`{}` is not client-dispatchable on a session",
            other.variant_tag()
        )),
    }
}

/// A client's published plugins: ids the host's own containers do not use (nor other entries
/// of the session), unique, not too many, and ids and uris of bounded length.
fn client_plugins(
    state: &SessionState,
    plugins: Option<&[ahp_wasm::protocol::ClientPluginCustomization]>,
) -> Result<Disposition, String> {
    let plugins = plugins.unwrap_or_default();
    let max = super::customizations::client_plugins::MAX_CLIENT_PLUGINS;
    if plugins.len() > max {
        return Err(format!("at most {max} plugins may be published"));
    }
    for (i, p) in plugins.iter().enumerate() {
        let max_id = super::customizations::client_plugins::MAX_PLUGIN_ID_BYTES;
        if p.id.len() > max_id {
            return Err(format!(
                "a plugin id is longer than {max_id} bytes ({} bytes)",
                p.id.len()
            ));
        }
        let max_uri = super::customizations::client_plugins::MAX_PLUGIN_URI_BYTES;
        if p.uri.len() > max_uri {
            return Err(format!(
                "the uri of plugin `{}` is longer than {max_uri} bytes ({} bytes)",
                p.id,
                p.uri.len()
            ));
        }
        let taken = state.customizations.iter().flatten().any(|c| match c {
            ahp_wasm::protocol::Customization::Plugin(q) => q.id == p.id && q.client_id.is_none(),
            ahp_wasm::protocol::Customization::Directory(d) => d.id == p.id,
            ahp_wasm::protocol::Customization::McpServer(m) => m.id == p.id,
            ahp_wasm::protocol::Customization::Unknown(_) => false,
        });
        if super::customizations::is_host_id(&p.id) || taken {
            return Err(format!("plugin id `{}` is the host's", p.id));
        }
        if plugins[..i].iter().any(|q| q.id == p.id) {
            return Err(format!("plugin id `{}` is published twice", p.id));
        }
    }
    Ok(Disposition::Apply)
}

/// Client tools are completed (and their content streamed) only by the client providing them;
/// server tools only by the server.
fn tool_owner(
    state: &SessionState,
    turn_id: &str,
    tool_call_id: &str,
    client_id: &str,
) -> Result<Disposition, String> {
    let Some(turn) = state.active_turn.as_ref().filter(|t| t.id == turn_id) else {
        // The reducer rejects it with the precise reason.
        return Ok(Disposition::Apply);
    };
    let contributor = turn
        .response_parts
        .iter()
        .rev()
        .find_map(|part| match part {
            ResponsePart::ToolCall(p) => {
                let (id, contributor) = tool_call_identity(&p.tool_call)?;
                (id == tool_call_id).then_some(contributor)
            }
            _ => None,
        });
    match contributor {
        None => Ok(Disposition::Apply),
        Some(Some(ToolCallContributor::Client(c))) if c.client_id == client_id => {
            Ok(Disposition::Apply)
        }
        Some(Some(ToolCallContributor::Client(_))) => {
            Err("only the client that provides this tool can complete it".into())
        }
        Some(_) => Err("this tool call is executed by the server".into()),
    }
}

fn tool_call_identity(tc: &ToolCallState) -> Option<(&str, Option<&ToolCallContributor>)> {
    Some(match tc {
        ToolCallState::Streaming(s) => (s.tool_call_id.as_str(), s.contributor.as_ref()),
        ToolCallState::PendingConfirmation(s) => (s.tool_call_id.as_str(), s.contributor.as_ref()),
        ToolCallState::Running(s) => (s.tool_call_id.as_str(), s.contributor.as_ref()),
        ToolCallState::PendingResultConfirmation(s) => {
            (s.tool_call_id.as_str(), s.contributor.as_ref())
        }
        ToolCallState::Completed(s) => (s.tool_call_id.as_str(), s.contributor.as_ref()),
        ToolCallState::Cancelled(s) => (s.tool_call_id.as_str(), s.contributor.as_ref()),
        ToolCallState::Unknown(_) => return None,
    })
}

impl Hub {
    pub(super) fn on_dispatch(&mut self, conn: ConnId, p: DispatchActionParams) {
        let Some(client_id) = self.core.conn_client_id(conn).map(str::to_owned) else {
            return;
        };
        let origin = ActionOrigin {
            client_id: client_id.clone(),
            client_seq: p.client_seq,
            extra: Default::default(),
        };
        let channel = p.channel;
        let action = p.action;
        if channel == ROOT_CHANNEL {
            return self.on_root_config_changed(conn, action, origin);
        }
        if channel.starts_with("ahp-terminal:") {
            return self.on_terminal_dispatch(conn, &channel, action, origin);
        }
        // A chat's view is not a 0.3.0 channel (`chat_views.rs`).
        if super::v1_mirror::is_chat_view(&channel) && !self.core.is_v1(conn) {
            return;
        }
        // Actions for a channel that does not exist are ignored silently (session-channel.md).
        let Some(session) = self.core.sessions.get_mut(&channel) else {
            return;
        };
        let adds_a_message = matches!(
            action,
            StateAction::SessionTurnStarted(_) | StateAction::SessionPendingMessageSet(_)
        );
        let stored = session.stored_turn_bytes();
        let max = self.core.limits.max_session_bytes;
        // The built-in agent's lock guards its sessions; a model agent's key is asked for by
        // its provider when a turn runs.
        let builtin = session.members.summary.provider == crate::agent::PROVIDER;
        if adds_a_message && builtin {
            if let Err(e) = self.agent_usable(conn) {
                let reason = format!("AuthRequired ({}): {}", e.code, e.message);
                return self.core.reject(conn, &channel, action, origin, reason);
            }
        }
        let session = self.core.sessions.get_mut(&channel).expect("checked above");
        if adds_a_message && stored >= max {
            let reason = format!(
                "the session is full: its turns take {stored} bytes (limit {max}); \
                 start a new session or truncate this one"
            );
            return self.core.reject(conn, &channel, action, origin, reason);
        }
        // The 0.3.0 view of the session without its completed turns (the active turn's calls,
        // the open input requests): what the checks read.
        let head = session.head();
        match authorize(&head, &action, &client_id) {
            Err(reason) => self.core.reject(conn, &channel, action, origin, reason),
            Ok(Disposition::Defer) => session.deferred.push((action, Some(origin))),
            Ok(Disposition::Apply) => {
                // The host's own requests (a token for an MCP server) are not the agent's.
                let agents = match &action {
                    StateAction::SessionInputCompleted(a) => {
                        !self.mcp.step_ups.owns(&channel, &a.request_id)
                    }
                    _ => true,
                };
                let prior_answers = match &action {
                    StateAction::SessionInputCompleted(a) => head
                        .input_requests
                        .iter()
                        .flatten()
                        .find(|r| r.id == a.request_id)
                        .and_then(|r| r.answers.clone()),
                    _ => None,
                };
                match self.apply(&channel, action, Some(origin.clone())) {
                    Ok(action) => {
                        if let (StateAction::SessionInputCompleted(a), true) = (&action, agents) {
                            let answers = a.answers.clone().or(prior_answers);
                            self.core.tell_agent(
                                &channel,
                                AgentEvent::InputCompleted {
                                    request_id: a.request_id.clone(),
                                    response: a.response.clone(),
                                    answers,
                                },
                            );
                        }
                        self.after_apply(&channel, &action, Some(&client_id));
                    }
                    Err((action, why)) => {
                        // A denial of a running call changes no state (the reducers only deny
                        // pending calls), but from the owner of a client tool call it is the
                        // spec's "unknown tool" answer: the call ends now.
                        if let StateAction::SessionToolCallConfirmed(c) = &action {
                            if let SessionToolCallConfirmedAction::Denied(d) = c.as_ref() {
                                let id = d.tool_call_id.clone();
                                self.client_tool_denied(&channel, &id, &client_id);
                            }
                        }
                        self.core
                            .reject(conn, &channel, action, origin, why.reason().into())
                    }
                }
            }
        }
    }
}
