//! Which response parts of the active turn a turn-content action hits: the one home of that
//! rule, used by the reducer (to change the parts) and by the render path
//! ([`crate::sync::describe_session`], to say which parts changed), so the two cannot disagree.
//!
//! The rule is the official TypeScript reducers' (`updateResponsePart` and
//! `updateToolCallInParts`), which read ids from the raw objects, including when ids collide:
//!
//! - `session/delta` and `session/reasoning` hit the FIRST part whose id is the action's
//!   `partId`, whatever its kind: a tool call's `toolCallId` (also one of an unknown status),
//!   any other part's `id` member (a markdown or reasoning part's, and one a part of an unknown
//!   kind, or a newer peer's on a known kind, carries). They apply only if that part is of
//!   their kind (markdown for a delta, reasoning for reasoning): a part of another kind with the
//!   same id earlier in the turn makes the action a no-op, even if a later part of the right
//!   kind carries the id too. (The official Rust reducers read no id from parts of unknown
//!   kinds and address a tool call of an unknown status by `""`.)
//! - The tool-call actions (`toolCallDelta`, `toolCallReady`, `toolCallConfirmed`,
//!   `toolCallComplete`, `toolCallResultConfirmed`, `toolCallContentChanged`) hit EVERY tool
//!   call part whose `toolCallId` matches ([`tool_call_indices`]); each one whose status allows
//!   the action changes. (The official Rust reducers stop at the first.)
//!
//! Cost: a scan from the front, stopping at the first match for text. No O(1) check of the
//! newest part can be sound: that a part matches says nothing about whether an earlier one
//! does. The standard benchmark streams into part 0, where the scan stops at once; a stream
//! into the newest of `n` parts compares `n` ids (length first, then bytes).

use crate::protocol::{JsonValue, ResponsePart};

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

/// The indices of the tool call parts a tool-call action with `toolCallId` = `tool_call_id`
/// targets (see the module docs). Whether a call's status allows the action is the caller's
/// business.
pub fn tool_call_indices<'a>(
    parts: &'a [ResponsePart],
    tool_call_id: &'a str,
) -> impl Iterator<Item = usize> + 'a {
    parts
        .iter()
        .enumerate()
        .filter_map(move |(index, part)| match part {
            ResponsePart::ToolCall(part) => part
                .tool_call
                .tool_call_id()
                .is_some_and(|id| crate::words::same(id, tool_call_id))
                .then_some(index),
            _ => None,
        })
}

/// The id a text action reads from `part`, if it has one.
#[inline]
fn addressed_id(part: &ResponsePart) -> Option<&str> {
    match part {
        ResponsePart::Markdown(part) => Some(&part.id),
        ResponsePart::Reasoning(part) => Some(&part.id),
        ResponsePart::ToolCall(part) => part.tool_call.tool_call_id(),
        ResponsePart::ContentRef(part) => part.extra.get("id").and_then(JsonValue::as_str),
        ResponsePart::SystemNotification(part) => part.extra.get("id").and_then(JsonValue::as_str),
        ResponsePart::Unknown(part) => part.0.get("id").and_then(JsonValue::as_str),
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
            {"kind": "reasoning", "id": "y", "content": ""},
            {"kind": "markdown", "id": "y", "content": ""},
            {"kind": "toolCall", "toolCall": {"status": "paused", "toolCallId": "z"}},
            {"kind": "toolCall", "toolCall": {"status": "streaming", "toolCallId": "z",
                "toolName": "t", "displayName": "T"}},
            {"kind": "markdown", "id": "z", "content": ""},
            {"kind": "markdown", "id": "", "content": ""},
            {"kind": "systemNotification", "content": "n", "id": "w"},
            {"kind": "markdown", "id": "w", "content": ""},
        ]));
        // A part of an unknown kind takes the lookup, so nothing is appended.
        assert_eq!(text_part_index(&parts, "x", TextKind::Markdown), None);
        assert_eq!(text_part_index(&parts, "y", TextKind::Reasoning), Some(2));
        assert_eq!(text_part_index(&parts, "y", TextKind::Markdown), None);
        // An unknown-status call answers to its own id, not to "".
        assert_eq!(text_part_index(&parts, "z", TextKind::Markdown), None);
        assert_eq!(text_part_index(&parts, "", TextKind::Markdown), Some(7));
        // A newer peer's `id` on a known kind counts too.
        assert_eq!(text_part_index(&parts, "w", TextKind::Markdown), None);
        assert_eq!(tool_call_indices(&parts, "z").collect::<Vec<_>>(), [4, 5]);
        assert_eq!(tool_call_indices(&parts, "x").count(), 0);
    }
}
