//! Small accessors over the generated unions that reducers and bindings both need.

use super::{
    JsonValue, Message, MessageOrigin, ResponsePart, SessionToolCallConfirmedAction,
    SessionTurnStartedAction, StateAction, ToolCallState,
};

impl ToolCallState {
    /// The tool call's id, whatever its status (read from the raw object for a status this
    /// version does not know).
    pub fn tool_call_id(&self) -> Option<&str> {
        Some(match self {
            ToolCallState::Streaming(s) => &s.tool_call_id,
            ToolCallState::PendingConfirmation(s) => &s.tool_call_id,
            ToolCallState::Running(s) => &s.tool_call_id,
            ToolCallState::PendingResultConfirmation(s) => &s.tool_call_id,
            ToolCallState::Completed(s) => &s.tool_call_id,
            ToolCallState::Cancelled(s) => &s.tool_call_id,
            ToolCallState::Unknown(unknown) => {
                return unknown.0.get("toolCallId").and_then(JsonValue::as_str)
            }
        })
    }
}

impl ResponsePart {
    /// The id actions address this part by: the part id of markdown and reasoning parts, the
    /// tool call id of a tool call part.
    pub fn target_id(&self) -> Option<&str> {
        match self {
            ResponsePart::Markdown(p) => Some(&p.id),
            ResponsePart::Reasoning(p) => Some(&p.id),
            ResponsePart::ToolCall(p) => p.tool_call.tool_call_id(),
            _ => None,
        }
    }
}

impl Message {
    /// A message the user typed: `text`, origin `user`.
    pub fn user(text: impl Into<String>) -> Message {
        Message {
            text: text.into(),
            origin: MessageOrigin::user(),
            ..Default::default()
        }
    }
}

impl MessageOrigin {
    /// The origin of what the user typed.
    pub fn user() -> MessageOrigin {
        MessageOrigin {
            kind: "user".into(),
            extra: Default::default(),
        }
    }
}

impl StateAction {
    /// `session/turnStarted` for a message a user typed (origin `user`, not from the queue).
    pub fn user_turn_started(turn_id: impl Into<String>, text: impl Into<String>) -> StateAction {
        StateAction::SessionTurnStarted(Box::new(SessionTurnStartedAction {
            turn_id: turn_id.into(),
            message: Message::user(text),
            queued_message_id: None,
            extra: Default::default(),
        }))
    }

    /// The tool call this action updates in place, if it is a tool-call update (not a start).
    pub fn updated_tool_call_id(&self) -> Option<&str> {
        use SessionToolCallConfirmedAction as Confirmed;
        Some(match self {
            StateAction::SessionToolCallDelta(a) => &a.tool_call_id,
            StateAction::SessionToolCallReady(a) => &a.tool_call_id,
            StateAction::SessionToolCallComplete(a) => &a.tool_call_id,
            StateAction::SessionToolCallResultConfirmed(a) => &a.tool_call_id,
            StateAction::SessionToolCallContentChanged(a) => &a.tool_call_id,
            StateAction::SessionToolCallConfirmed(c) => match c.as_ref() {
                Confirmed::Approved(a) => &a.tool_call_id,
                Confirmed::Denied(a) => &a.tool_call_id,
            },
            _ => return None,
        })
    }
}
