//! The 1.0 chat and terminal as [`TurnsState`] and [`Scrollback`]: the same patch steps as
//! 0.3.0's session and terminal (the wire names and nesting the steps address, `turns`,
//! `activeTurn.responseParts[i].content`, `...toolCall.partialInput`, `content[i].output` /
//! `.value`, are the same in 1.0), found by the 1.0 reducers' rules.
//!
//! Those rules differ from 0.3.0's, so the lookups here are 1.0's own, as `reduce::v1::chat`
//! applies them: a text action hits the first markdown, reasoning or tool-call part with the id
//! (a call of an unknown status has none); a tool-call action the first call with the id; an
//! input action the first open request with the id.

use crate::protocol::v1::{
    ChatState, ChatStateField, ResponsePart, StateAction, TerminalContentPart, TerminalState,
    TerminalStateField, ToolCallState,
};
use crate::reduce::v1::tool_call_id;
use crate::reduce::{Changed, TextKind};
use crate::sync::describe::{
    describe_scrollback, describe_turns, probe_scrollback, probe_turns, PartStep, Scrollback,
    TurnsState,
};
use crate::sync::{PatchBuilder, Probe};
use crate::words::same;

impl TurnsState for ChatState {
    const TURNS: ChatStateField = ChatStateField::Turns;
    const ACTIVE_TURN: ChatStateField = ChatStateField::ActiveTurn;

    fn turn_count(&self) -> usize {
        self.turns.len()
    }

    fn part_count(&self) -> Option<usize> {
        self.active_turn.as_ref().map(|t| t.response_parts.len())
    }

    fn ends_turn(action: &StateAction) -> bool {
        matches!(
            action,
            StateAction::ChatTurnComplete(_)
                | StateAction::ChatTurnCancelled(_)
                | StateAction::ChatError(_)
        )
    }

    fn part_step<'a>(
        &'a self,
        action: &'a StateAction,
    ) -> PartStep<impl Iterator<Item = usize> + 'a> {
        let parts = active_parts(self);
        let text = |id: &str, kind: TextKind, content: &str| PartStep::AppendText {
            index: text_part_index(parts, id, kind),
            appended: content.len(),
        };
        let call = |id: &str| first_call(parts, id).into_iter();
        match action {
            StateAction::ChatDelta(a) => text(&a.part_id, TextKind::Markdown, &a.content),
            StateAction::ChatReasoning(a) => text(&a.part_id, TextKind::Reasoning, &a.content),
            StateAction::ChatToolCallStart(_) | StateAction::ChatResponsePart(_) => {
                PartStep::Push {
                    else_replaced: None,
                }
            }
            // A new progress message or `_meta` takes the part whole; input alone appends.
            StateAction::ChatToolCallDelta(a)
                if a.invocation_message.is_some() || a.meta.is_some() =>
            {
                PartStep::Replace(call(&a.tool_call_id))
            }
            StateAction::ChatToolCallDelta(a) => match &a.content {
                Some(content) => PartStep::AppendInput {
                    indices: call(&a.tool_call_id),
                    appended: content.len(),
                },
                None => PartStep::Unchanged,
            },
            StateAction::ChatToolCallReady(a) => PartStep::Replace(call(&a.tool_call_id)),
            StateAction::ChatToolCallConfirmed(a) => PartStep::Replace(call(&a.tool_call_id)),
            StateAction::ChatToolCallComplete(a) => PartStep::Replace(call(&a.tool_call_id)),
            StateAction::ChatToolCallResultConfirmed(a) => PartStep::Replace(call(&a.tool_call_id)),
            StateAction::ChatToolCallContentChanged(a) => PartStep::Replace(call(&a.tool_call_id)),
            StateAction::ChatToolCallAuthRequired(a) => PartStep::Replace(call(&a.tool_call_id)),
            StateAction::ChatToolCallAuthResolved(a) => PartStep::Replace(call(&a.tool_call_id)),
            // An upsert: a new request is appended, an open one with the id replaced in place
            // (it stays open, so it is still the first open one with the id).
            StateAction::ChatInputRequested(a) => PartStep::Push {
                else_replaced: first_open_request(parts, &a.request.id),
            },
            StateAction::ChatInputAnswerChanged(a) => {
                PartStep::Replace(first_open_request(parts, &a.request_id).into_iter())
            }
            // `chat/inputCompleted` closes its request: in the state after, nothing tells it
            // from an earlier closed one with the id, so the turn goes whole (a rare action).
            _ => PartStep::Whole,
        }
    }

    fn text_len(&self, index: usize) -> Option<usize> {
        match active_parts(self).get(index)? {
            ResponsePart::Markdown(p) => Some(p.content.len()),
            ResponsePart::Reasoning(p) => Some(p.content.len()),
            _ => None,
        }
    }

    fn input_len(&self, index: usize) -> Option<usize> {
        match active_parts(self).get(index)? {
            ResponsePart::ToolCall(call) => match &call.tool_call {
                ToolCallState::Streaming(s) => {
                    Some(s.partial_input.as_ref().map_or(0, String::len))
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// A chat's active turn's parts (none without one).
fn active_parts(state: &ChatState) -> &[ResponsePart] {
    state
        .active_turn
        .as_ref()
        .map(|t| &t.response_parts[..])
        .unwrap_or_default()
}

/// The id a 1.0 text action reads from a part: a markdown or reasoning part's `id`, a tool
/// call's `toolCallId` (none for a call of an unknown status); other parts have none.
fn addressed_id(part: &ResponsePart) -> Option<&str> {
    match part {
        ResponsePart::Markdown(p) => Some(&p.id),
        ResponsePart::Reasoning(p) => Some(&p.id),
        ResponsePart::ToolCall(p) => tool_call_id(&p.tool_call),
        _ => None,
    }
}

/// The part `chat/delta` (`Markdown`) or `chat/reasoning` (`Reasoning`) appends to: the first
/// part with the id, if it is of that kind.
fn text_part_index(parts: &[ResponsePart], id: &str, kind: TextKind) -> Option<usize> {
    let index = parts
        .iter()
        .position(|p| addressed_id(p).is_some_and(|a| same(a, id)))?;
    let of_kind = matches!(
        (&parts[index], kind),
        (ResponsePart::Markdown(_), TextKind::Markdown)
            | (ResponsePart::Reasoning(_), TextKind::Reasoning)
    );
    of_kind.then_some(index)
}

/// The index of the first tool call with the id: the one a tool-call action addresses.
fn first_call(parts: &[ResponsePart], id: &str) -> Option<usize> {
    parts.iter().position(|part| match part {
        ResponsePart::ToolCall(p) => tool_call_id(&p.tool_call).is_some_and(|c| same(c, id)),
        _ => false,
    })
}

/// The index of the first open input request with the id.
fn first_open_request(parts: &[ResponsePart], id: &str) -> Option<usize> {
    parts.iter().position(|part| match part {
        ResponsePart::InputRequest(p) => p.response.is_none() && p.request.id == id,
        _ => false,
    })
}

impl Scrollback for TerminalState {
    const CONTENT: TerminalStateField = TerminalStateField::Content;

    fn output(action: &StateAction) -> Option<&str> {
        match action {
            StateAction::TerminalData(data) => Some(&data.data),
            _ => None,
        }
    }

    fn part_count(&self) -> usize {
        self.content.len()
    }

    /// A 1.0 terminal keeps all its output.
    fn trimmed_size(&self) -> Option<usize> {
        None
    }

    /// Output goes to an open command's `output` or an unclassified run's `value`; after a
    /// finished command (or a part of an unknown kind) it starts a new run.
    fn tail_key(&self) -> Option<&'static str> {
        match self.content.last()? {
            TerminalContentPart::Command(c) if !c.is_complete => Some("output"),
            TerminalContentPart::Unclassified(_) => Some("value"),
            _ => None,
        }
    }
}

impl Probe {
    /// The sizes of a 1.0 chat state.
    pub fn chat(state: &ChatState) -> Probe {
        probe_turns(state)
    }

    /// The sizes of a 1.0 terminal state.
    pub fn terminal_v1(state: &TerminalState) -> Probe {
        probe_scrollback(state)
    }
}

/// Describes what `action` did to a 1.0 chat state (`state` is after it, `before` its
/// [`Probe::chat`] before, `changed` the fields the reducer reported): streamed text and tool
/// input append to one part, a new part pushes, a tool call that changed replaces its part, a
/// turn that ends pushes onto `turns`; everything else takes its fields whole.
pub fn describe_chat(
    state: &ChatState,
    before: Probe,
    action: &StateAction,
    changed: Changed<ChatStateField>,
    patch: &mut PatchBuilder,
) {
    describe_turns(state, before, action, changed, patch)
}

/// Describes what `action` did to a 1.0 terminal state (`state` is after it, `before` its
/// [`Probe::terminal_v1`] before): output appended to the tail part is an
/// [`AppendTerminalText`](crate::sync::PatchOp::AppendTerminalText); anything else takes its
/// fields whole.
pub fn describe_terminal(
    state: &TerminalState,
    before: Probe,
    action: &StateAction,
    changed: Changed<TerminalStateField>,
    patch: &mut PatchBuilder,
) {
    describe_scrollback(state, before, action, changed, patch)
}
