//! Which response part of the active turn a turn-content action hits: the one home of that
//! rule, used by the reducer (to change the part) and by the render path
//! ([`crate::sync::describe_session`], to say which part changed), so the two cannot disagree.
//!
//! The rule is the reference reducers' (`ahp` 0.3.0 on crates.io, `update_response_part` and
//! `update_tool_call`), including when ids collide:
//!
//! - `session/delta` and `session/reasoning` hit the FIRST part whose id is the action's
//!   `partId`, whatever its kind (a markdown or reasoning part's `id`, a tool call's
//!   `toolCallId`), and apply only if that part is of their kind (markdown for a delta,
//!   reasoning for reasoning): a part of another kind with the same id earlier in the turn makes
//!   the action a no-op, even if a later part of the right kind carries the id too.
//! - The tool-call actions (`toolCallDelta`, `toolCallReady`, `toolCallConfirmed`,
//!   `toolCallComplete`, `toolCallResultConfirmed`, `toolCallContentChanged`) hit the FIRST tool
//!   call part whose `toolCallId` matches (parts of other kinds are skipped). If that call's
//!   status does not allow the action, nothing happens: a later call with the same id is not
//!   tried.
//! - A tool call of a status this version does not know is addressed by the empty id `""` (the
//!   reference keeps such a call as raw JSON and reads no id from it), so it never hides or
//!   takes an action meant for a known call, except one addressed to `""`. Parts without an id
//!   (content references, system notifications, parts of unknown kinds) are never hit.
//!
//! Cost: a scan from the front, stopping at the first match. No O(1) check of the newest part
//! can be sound: that a part matches says nothing about whether an earlier one does. The
//! standard benchmark streams into part 0, where the scan stops at once; a stream into the
//! newest of `n` parts compares `n` ids (length first, then bytes).

use crate::protocol::{ResponsePart, ToolCallState};

/// The kind of text part a streaming action appends to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// `session/delta`: markdown parts.
    Markdown,
    /// `session/reasoning`: reasoning parts.
    Reasoning,
}

/// The index of the part `session/delta` (`Markdown`) or `session/reasoning` (`Reasoning`)
/// with `partId` = `part_id` appends to, if any (see the module docs).
#[inline]
pub fn text_part_index(parts: &[ResponsePart], part_id: &str, kind: TextKind) -> Option<usize> {
    let index = parts
        .iter()
        .position(|part| addressed_id(part).is_some_and(|id| crate::words::same(id, part_id)))?;
    let of_kind = matches!(
        (&parts[index], kind),
        (ResponsePart::Markdown(_), TextKind::Markdown)
            | (ResponsePart::Reasoning(_), TextKind::Reasoning)
    );
    of_kind.then_some(index)
}

/// The index of the tool call part a tool-call action with `toolCallId` = `tool_call_id`
/// targets, if any (see the module docs). Whether the call's status allows the action is the
/// caller's business.
#[inline]
pub fn tool_call_index(parts: &[ResponsePart], tool_call_id: &str) -> Option<usize> {
    parts.iter().position(|part| match part {
        ResponsePart::ToolCall(part) => {
            crate::words::same(addressed_tool_call_id(&part.tool_call), tool_call_id)
        }
        _ => false,
    })
}

/// The id an action addresses `part` by, if it has one.
#[inline]
fn addressed_id(part: &ResponsePart) -> Option<&str> {
    match part {
        ResponsePart::Markdown(part) => Some(&part.id),
        ResponsePart::Reasoning(part) => Some(&part.id),
        ResponsePart::ToolCall(part) => Some(addressed_tool_call_id(&part.tool_call)),
        _ => None,
    }
}

/// A tool call's id; `""` for a status this version does not know.
#[inline]
fn addressed_tool_call_id(tool_call: &ToolCallState) -> &str {
    match tool_call {
        ToolCallState::Unknown(_) => "",
        known => known.tool_call_id().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parts(value: serde_json::Value) -> Vec<ResponsePart> {
        serde_json::from_value(value).expect("parts")
    }

    #[test]
    fn the_first_part_with_the_id_decides() {
        let parts = parts(json!([
            {"kind": "systemNotification", "content": "n"},
            {"kind": "futurePart", "id": "x"},
            {"kind": "reasoning", "id": "x", "content": ""},
            {"kind": "markdown", "id": "x", "content": ""},
            {"kind": "toolCall", "toolCall": {"status": "paused", "toolCallId": "x"}},
            {"kind": "toolCall", "toolCall": {"status": "streaming", "toolCallId": "x",
                "toolName": "t", "displayName": "T"}},
            {"kind": "markdown", "id": "", "content": ""},
        ]));
        assert_eq!(text_part_index(&parts, "x", TextKind::Reasoning), Some(2));
        assert_eq!(text_part_index(&parts, "x", TextKind::Markdown), None);
        assert_eq!(tool_call_index(&parts, "x"), Some(5));
        // The unknown-status call answers to "" and comes before the markdown part "".
        assert_eq!(tool_call_index(&parts, ""), Some(4));
        assert_eq!(text_part_index(&parts, "", TextKind::Markdown), None);
        assert_eq!(text_part_index(&parts, "y", TextKind::Markdown), None);
        assert_eq!(tool_call_index(&parts, "y"), None);
    }
}
