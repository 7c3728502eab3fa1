//! Tool calls whose MCP server refused them for authorization (guide/mcp.md, "Mid-tool-call
//! step-up auth"). The guide asks for `SessionStatus.InputNeeded`; the reducers derive the
//! status from state (open input requests, tool calls awaiting confirmation), so the host says
//! it with state they understand: the call stays `running` and an input request asks for a
//! token.
//!
//! The agent reports the refusal ([`StepUp`]); the server moves to `authRequired` on its own
//! (`auth.rs`). Once it is there, the host dispatches `session/inputRequested` naming the
//! server, its resource and the call. Then, whichever comes first:
//! - the server is `ready` on a new connection (`authenticate`, or a token pushed for another
//!   session): the host completes the request (`accept`) and the agent retries the call once;
//! - a client completes the request: `decline`/`cancel` fail the call; `accept` keeps waiting
//!   while the server is `starting` and fails the call when it still needs a token;
//! - the server is turned off or fails, or `--mcp-auth-wait-ms` passes: the call fails and the
//!   request is withdrawn (`cancel`);
//! - the turn ends or the session is disposed of: the wait is dropped (the reducers drop open
//!   input requests with the turn).

use super::McpRuns;
use crate::agent::AgentEvent;
use crate::bus::{HubMsg, StepUp};
use crate::hub::Hub;
use crate::mcp::ServerHandle;
use ahp_wasm::protocol::{
    McpAuthRequiredReason, McpServerAuthRequiredState, McpServerState, SessionInputCompletedAction,
    SessionInputRequest, SessionInputRequestedAction, SessionInputResponseKind, StateAction,
};
use tokio::task::AbortHandle;

/// One call waiting.
pub(in crate::hub) struct Wait {
    step: StepUp,
    /// The input request, once raised (and until a client completes it).
    request_id: Option<String>,
    /// A client accepted the request: no new one is raised.
    answered: bool,
    timer: u64,
    expiry: AbortHandle,
}

impl Drop for Wait {
    fn drop(&mut self) {
        self.expiry.abort();
    }
}

/// The calls waiting for a token.
#[derive(Default)]
pub(in crate::hub) struct Waits {
    list: Vec<Wait>,
    next_timer: u64,
}

impl Waits {
    fn position(&self, channel: &str, tool_call_id: &str) -> Option<usize> {
        self.list
            .iter()
            .position(|w| w.step.channel == channel && w.step.tool_call_id == tool_call_id)
    }

    /// Whether input request `request_id` of session `channel` is one of these.
    pub(in crate::hub) fn owns(&self, channel: &str, request_id: &str) -> bool {
        self.list
            .iter()
            .any(|w| w.step.channel == channel && w.request_id.as_deref() == Some(request_id))
    }
}

/// What a waiting call does next.
enum Next {
    Wait,
    Ask(Box<McpServerAuthRequiredState>),
    Resume(ServerHandle),
    Fail(String),
}

/// The input request's text: which server, which resource, why, and what continues the call.
fn request_message(server: &str, tool: &str, needs: &McpServerAuthRequiredState) -> String {
    let why = match needs.reason {
        McpAuthRequiredReason::Expired => "its token expired".to_owned(),
        McpAuthRequiredReason::InsufficientScope => "its token lacks a scope".to_owned(),
        _ => "it needs a token".to_owned(),
    };
    let scopes = match needs.required_scopes.as_deref() {
        Some(s) if !s.is_empty() => format!(", scopes: {}", s.join(" ")),
        _ => String::new(),
    };
    format!(
        "The MCP server `{server}` refused the tool call `{tool}`: {why}. Push a token for \
         `{}` with `authenticate` ({}{scopes}) and the call continues; decline to fail it.",
        needs.resource.resource,
        needs
            .resource
            .resource_name
            .as_deref()
            .unwrap_or("protected resource"),
    )
}

impl Hub {
    /// The agent holds a call for a token: wait (bounded), then see where its server is.
    pub(in crate::hub) fn on_mcp_step_up(&mut self, step: StepUp) {
        let current = self
            .core
            .sessions
            .get(&step.channel)
            .and_then(|s| s.agent.as_ref())
            .is_some_and(|run| run.turn_id == step.turn_id);
        if !current {
            return;
        }
        let waits = &mut self.mcp.step_ups;
        waits.next_timer += 1;
        let timer = waits.next_timer;
        let (hub, after) = (self.core.tx.clone(), self.mcp.limits.auth_wait);
        let expired = HubMsg::McpStepUpExpired {
            channel: step.channel.clone(),
            tool_call_id: step.tool_call_id.clone(),
            timer,
        };
        let task = self.core.rt.spawn(async move {
            tokio::time::sleep(after).await;
            let _ = hub.send(expired).await;
        });
        let (channel, tool_call_id) = (step.channel.clone(), step.tool_call_id.clone());
        self.mcp.step_ups.list.push(Wait {
            step,
            request_id: None,
            answered: false,
            timer,
            expiry: task.abort_handle(),
        });
        self.step_up_advance(&channel, &tool_call_id);
    }

    /// Server `server_id` of session `channel` changed state: its waiting calls follow.
    pub(in crate::hub) fn mcp_step_up_check(&mut self, channel: &str, server_id: &str) {
        let calls: Vec<String> = self
            .mcp
            .step_ups
            .list
            .iter()
            .filter(|w| w.step.channel == channel && w.step.server_id == server_id)
            .map(|w| w.step.tool_call_id.clone())
            .collect();
        for tool_call_id in calls {
            self.step_up_advance(channel, &tool_call_id);
        }
    }

    /// A client completed input request `request_id` of session `channel`.
    pub(in crate::hub) fn mcp_step_up_answered(
        &mut self,
        channel: &str,
        request_id: &str,
        response: &SessionInputResponseKind,
    ) {
        let Some(w) = self
            .mcp
            .step_ups
            .list
            .iter_mut()
            .find(|w| w.step.channel == channel && w.request_id.as_deref() == Some(request_id))
        else {
            return;
        };
        // The reducer removed the request.
        w.request_id = None;
        let tool_call_id = w.step.tool_call_id.clone();
        if *response == SessionInputResponseKind::Accept {
            w.answered = true;
            return self.step_up_advance(channel, &tool_call_id);
        }
        let how = match response {
            SessionInputResponseKind::Decline => "declined",
            _ => "cancelled",
        };
        let server = self.step_up_server_name(channel, &tool_call_id);
        self.step_up_end(
            channel,
            &tool_call_id,
            Err(format!(
                "the MCP server `{server}` needs a new token and the request for it was {how}"
            )),
        );
    }

    /// A wait's timer fired: unless it is stale, the call fails.
    pub(in crate::hub) fn on_mcp_step_up_expired(
        &mut self,
        channel: &str,
        tool_call_id: &str,
        timer: u64,
    ) {
        let live = self
            .mcp
            .step_ups
            .position(channel, tool_call_id)
            .is_some_and(|i| self.mcp.step_ups.list[i].timer == timer);
        if !live {
            return;
        }
        let server = self.step_up_server_name(channel, tool_call_id);
        let ms = self.mcp.limits.auth_wait.as_millis();
        self.step_up_end(
            channel,
            tool_call_id,
            Err(format!(
                "the MCP server `{server}` needs a new token and none arrived within {ms} ms"
            )),
        );
    }

    fn step_up_server_name(&self, channel: &str, tool_call_id: &str) -> String {
        let Some(i) = self.mcp.step_ups.position(channel, tool_call_id) else {
            return String::new();
        };
        let id = &self.mcp.step_ups.list[i].step.server_id;
        self.mcp
            .run(channel, id)
            .map_or_else(|| id.clone(), |r| r.name().to_owned())
    }

    /// Moves one waiting call on according to its server's state.
    fn step_up_advance(&mut self, channel: &str, tool_call_id: &str) {
        let Some(i) = self.mcp.step_ups.position(channel, tool_call_id) else {
            return;
        };
        let w = &self.mcp.step_ups.list[i];
        let (server_id, generation) = (w.step.server_id.clone(), w.step.generation);
        let server = self.step_up_server_name(channel, tool_call_id);
        let fresh = self
            .mcp_handles(channel)
            .into_iter()
            .find(|h| h.customization_id == server_id && h.generation != generation);
        let next = match (fresh, super::server_state(&self.core, channel, &server_id)) {
            (Some(handle), _) => Next::Resume(handle),
            (None, None) => Next::Fail(format!("the MCP server `{server}` is gone")),
            // `ready` on the refused connection: its refusal is on its way to the hub.
            (None, Some(McpServerState::Starting(_) | McpServerState::Ready(_))) => Next::Wait,
            (None, Some(McpServerState::AuthRequired(_))) if w.answered => Next::Fail(format!(
                "the request for a token was answered, but the MCP server `{server}` still \
                 needs one"
            )),
            (None, Some(McpServerState::AuthRequired(a))) if w.request_id.is_none() => {
                Next::Ask(Box::new(a))
            }
            (None, Some(McpServerState::Stopped(_))) => Next::Fail(format!(
                "the MCP server `{server}` was turned off while the call waited for a new token"
            )),
            (None, Some(McpServerState::Error(e))) => Next::Fail(format!(
                "the MCP server `{server}` failed while the call waited for a new token: {}",
                e.error.message
            )),
            (None, Some(_)) => Next::Wait,
        };
        match next {
            Next::Wait => {}
            Next::Ask(needs) => {
                let request_id = format!("mcp-auth-{}-{tool_call_id}", w.step.turn_id);
                let message = request_message(&server, &w.step.tool, &needs);
                self.mcp.step_ups.list[i].request_id = Some(request_id.clone());
                self.apply_server(
                    channel,
                    StateAction::SessionInputRequested(Box::new(SessionInputRequestedAction {
                        request: SessionInputRequest {
                            id: request_id,
                            message: Some(message),
                            url: None,
                            questions: None,
                            answers: None,
                            extra: Default::default(),
                        },
                        extra: Default::default(),
                    })),
                );
            }
            Next::Resume(handle) => self.step_up_end(channel, tool_call_id, Ok(handle)),
            Next::Fail(why) => self.step_up_end(channel, tool_call_id, Err(why)),
        }
    }

    /// Ends a wait: its open request is completed (`accept` when the call goes on, `cancel`
    /// when it fails) and the agent is told.
    fn step_up_end(
        &mut self,
        channel: &str,
        tool_call_id: &str,
        outcome: Result<ServerHandle, String>,
    ) {
        let Some(i) = self.mcp.step_ups.position(channel, tool_call_id) else {
            return;
        };
        let w = self.mcp.step_ups.list.remove(i);
        if let Some(request_id) = w.request_id.clone() {
            let response = match outcome {
                Ok(_) => SessionInputResponseKind::Accept,
                Err(_) => SessionInputResponseKind::Cancel,
            };
            self.apply_server(
                channel,
                StateAction::SessionInputCompleted(SessionInputCompletedAction {
                    request_id,
                    response,
                    answers: None,
                    extra: Default::default(),
                }),
            );
        }
        self.core.tell_agent(
            channel,
            AgentEvent::McpAuthSettled {
                tool_call_id: tool_call_id.to_owned(),
                outcome,
            },
        );
    }
}

impl McpRuns {
    /// The turn ended or the session is gone: drop its waits (the agent is stopped).
    pub(in crate::hub) fn forget_step_ups(&mut self, channel: &str) {
        self.step_ups.list.retain(|w| w.step.channel != channel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ahp_wasm::protocol::ProtectedResourceMetadata;

    #[test]
    fn the_request_names_the_server_the_resource_and_the_way_on() {
        let needs = McpServerAuthRequiredState {
            reason: McpAuthRequiredReason::InsufficientScope,
            resource: ProtectedResourceMetadata {
                resource: "https://a.example/mcp".into(),
                ..Default::default()
            },
            required_scopes: Some(vec!["files:write".into()]),
            description: None,
            extra: Default::default(),
        };
        let m = request_message("files", "save", &needs);
        for part in [
            "`files`",
            "`save`",
            "lacks a scope",
            "https://a.example/mcp",
            "`authenticate`",
            "scopes: files:write",
        ] {
            assert!(m.contains(part), "{part} in {m}");
        }
    }
}
