//! [`StatePatch`]: how a channel's optimistic state changed, below the top level where that is
//! cheap to say, so a render layer (the wasm `Subscription`) updates only what changed instead
//! of rebuilding whole fields.

use crate::protocol::JsonValue;
use std::ops::Range;

/// One step of a [`StatePatch`]. Values are not carried: a consumer reads them from the
/// mirror's state after the batch (appended text too, by its byte range there; a terminal's
/// output is carried, as a trimmed scrollback moves it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchOp {
    /// A top-level field changed in an unspecified way: take it whole from the state.
    Field(&'static str),
    /// `activeTurn.responseParts[index].content` grew (a markdown or reasoning delta): what
    /// was appended is `content[appended]` in the state after the update.
    AppendPartText {
        /// Index of the response part.
        index: usize,
        /// The bytes appended, in the content after the update.
        appended: Range<usize>,
    },
    /// `activeTurn.responseParts[index].toolCall.partialInput` grew (a streaming tool call's
    /// `session/toolCallDelta`; an absent input counts as empty): what was appended is
    /// `partialInput[appended]` in the state after the update.
    AppendToolInput {
        /// Index of the response part.
        index: usize,
        /// The bytes appended, in the input after the update.
        appended: Range<usize>,
    },
    /// `activeTurn.responseParts[index]` changed: take it from the state.
    ReplacePart {
        /// Index of the response part.
        index: usize,
    },
    /// `activeTurn.responseParts` grew: the parts from `from` on are new.
    PushParts {
        /// Index of the first new part.
        from: usize,
    },
    /// `turns` grew: the turns from `from` on are new.
    PushTurns {
        /// Index of the first new turn.
        from: usize,
    },
    /// A terminal's `content[index][key]` grew by `text` (`terminal/data` on the tail part:
    /// `key` is `output` for a command part, `value` for an unclassified one).
    AppendTerminalText {
        /// Index of the content part.
        index: usize,
        /// The wire name of the part's text member.
        key: &'static str,
        /// The text appended.
        text: String,
    },
}

impl PatchOp {
    /// An append step's bytes in the state after the update, when `self` and `other` append
    /// to the same part's text (session steps, which read their text from the state).
    fn appended_range<'a>(
        &'a mut self,
        other: &'a PatchOp,
    ) -> Option<(&'a mut Range<usize>, &'a Range<usize>)> {
        match (self, other) {
            (
                PatchOp::AppendPartText { index, appended },
                PatchOp::AppendPartText {
                    index: i,
                    appended: next,
                },
            )
            | (
                PatchOp::AppendToolInput { index, appended },
                PatchOp::AppendToolInput {
                    index: i,
                    appended: next,
                },
            ) if index == i => Some((appended, next)),
            _ => None,
        }
    }
}

/// The changes of one update of a mirror's optimistic state, in order. Applying them to the
/// previous rendering, reading values from the new state, gives the new rendering.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatePatch {
    /// The steps, in order.
    pub ops: Vec<PatchOp>,
}

impl StatePatch {
    /// A patch that replaces the named top-level fields whole.
    pub fn fields(names: impl IntoIterator<Item = &'static str>) -> StatePatch {
        StatePatch {
            ops: names.into_iter().map(PatchOp::Field).collect(),
        }
    }

    /// Whether the patch changes nothing.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

/// Sizes read from a state before an action, so that a state's `describe`
/// ([`describe_session`](super::describe_session), [`describe_terminal`](super::describe_terminal)
/// and their 1.0 counterparts) can tell what the action appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Probe {
    turns: usize,
    /// The active turn's parts, if there is an active turn.
    parts: Option<usize>,
    /// A terminal's number of content parts.
    content_parts: usize,
    /// A terminal's text size, where the version trims its scrollback (0.3.0).
    content_bytes: usize,
}

impl Probe {
    /// Sizes of a state with turns: `turns` completed, `parts` in the active turn (`None`:
    /// no active turn).
    pub(crate) fn of_turns(turns: usize, parts: Option<usize>) -> Probe {
        Probe {
            turns,
            parts,
            ..Probe::default()
        }
    }

    /// Sizes of a terminal's content: `parts` parts, `bytes` of text (0 where not trimmed).
    pub(crate) fn of_scrollback(parts: usize, bytes: usize) -> Probe {
        Probe {
            content_parts: parts,
            content_bytes: bytes,
            ..Probe::default()
        }
    }

    /// The number of completed turns.
    pub(crate) fn turns(self) -> usize {
        self.turns
    }

    /// The number of parts of the active turn, if there was one.
    pub(crate) fn parts(self) -> Option<usize> {
        self.parts
    }

    /// A terminal's number of content parts.
    pub(crate) fn content_parts(self) -> usize {
        self.content_parts
    }

    /// A terminal's text size (where trimmed).
    pub(crate) fn content_bytes(self) -> usize {
        self.content_bytes
    }
}

/// Collects the [`PatchOp`]s of a sequence of actions and normalizes them, so that the result
/// is right when every value is read from the state *after* the last action: steps that a
/// later "take it from the state" step already covers are dropped, and consecutive appends to
/// one part are joined.
#[derive(Debug, Default)]
pub struct PatchBuilder {
    fields: Vec<&'static str>,
    ops: Vec<PatchOp>,
    /// Response parts whose final value is taken from the state (replaced or pushed): later
    /// appends to them are already in that value.
    final_parts: Vec<usize>,
    final_parts_from: Option<usize>,
}

impl PatchBuilder {
    /// A top-level field changed: take it whole.
    pub fn field(&mut self, name: &'static str) {
        if !self.fields.contains(&name) {
            self.fields.push(name);
        }
    }

    fn part_is_final(&self, index: usize) -> bool {
        self.final_parts_from.is_some_and(|from| index >= from) || self.final_parts.contains(&index)
    }

    /// Text appended to a response part of the active turn: `content[appended]` after it.
    pub fn append_part_text(&mut self, index: usize, appended: Range<usize>) {
        if !self.part_is_final(index) {
            self.push_appended(PatchOp::AppendPartText { index, appended });
        }
    }

    /// Streamed input appended to a tool call of the active turn: `partialInput[appended]`
    /// after it.
    pub fn append_tool_input(&mut self, index: usize, appended: Range<usize>) {
        if !self.part_is_final(index) {
            self.push_appended(PatchOp::AppendToolInput { index, appended });
        }
    }

    /// Adds an append step, or extends the last step when it appended the bytes just before
    /// to the same place.
    fn push_appended(&mut self, op: PatchOp) {
        if let Some(last) = self.ops.last_mut() {
            if let Some((joined, next)) = last.appended_range(&op) {
                if joined.end == next.start {
                    joined.end = next.end;
                    return;
                }
            }
        }
        self.ops.push(op);
    }

    /// Text appended to a terminal's content part (joined to the last step when that appended
    /// to the same part).
    pub fn append_terminal_text(&mut self, index: usize, key: &'static str, text: &str) {
        if let Some(PatchOp::AppendTerminalText {
            index: last,
            key: last_key,
            text: joined,
        }) = self.ops.last_mut()
        {
            if *last == index && *last_key == key {
                joined.push_str(text);
                return;
            }
        }
        self.ops.push(PatchOp::AppendTerminalText {
            index,
            key,
            text: text.to_string(),
        });
    }

    /// A response part of the active turn changed.
    pub fn replace_part(&mut self, index: usize) {
        if !self.part_is_final(index) {
            self.final_parts.push(index);
            self.ops.push(PatchOp::ReplacePart { index });
        }
    }

    /// Response parts were appended to the active turn, from `from` on.
    pub fn push_parts(&mut self, from: usize) {
        if !self.part_is_final(from) {
            self.final_parts_from = Some(self.final_parts_from.map_or(from, |f| f.min(from)));
            self.ops.push(PatchOp::PushParts { from });
        }
    }

    /// Turns were appended, from `from` on.
    pub fn push_turns(&mut self, from: usize) {
        for op in &mut self.ops {
            if let PatchOp::PushTurns { from: earlier } = op {
                *earlier = (*earlier).min(from);
                return;
            }
        }
        self.ops.push(PatchOp::PushTurns { from });
    }

    /// The normalized patch: fine steps first (in order), then whole fields; fine steps inside
    /// a field that is replaced whole are dropped.
    pub fn finish(self) -> StatePatch {
        if self.fields.is_empty() {
            return StatePatch { ops: self.ops }; // the streaming case: nothing to filter
        }
        let fields = self.fields;
        let mut ops: Vec<PatchOp> = self
            .ops
            .into_iter()
            .filter(|op| {
                let inside = match op {
                    PatchOp::PushTurns { .. } => "turns",
                    PatchOp::AppendTerminalText { .. } => "content",
                    PatchOp::Field(_) => return true,
                    PatchOp::AppendPartText { .. }
                    | PatchOp::AppendToolInput { .. }
                    | PatchOp::ReplacePart { .. }
                    | PatchOp::PushParts { .. } => "activeTurn",
                };
                !fields.contains(&inside)
            })
            .collect();
        ops.extend(fields.into_iter().map(PatchOp::Field));
        StatePatch { ops }
    }
}

impl StatePatch {
    /// Applies the patch to `rendered`, the JSON of the state before, reading values from
    /// `state`, the JSON of the state after: afterwards `rendered == state`. The reference
    /// semantics of the ops (the wasm render layer does the same on frozen JS objects).
    pub fn apply_to_json(&self, rendered: &mut JsonValue, state: &JsonValue) {
        for op in &self.ops {
            match op {
                PatchOp::Field(name) => set_or_remove(rendered, name, state.get(*name)),
                PatchOp::AppendPartText { index, appended } => {
                    let text = parts(state).and_then(|p| {
                        p.get(*index)?
                            .get("content")?
                            .as_str()?
                            .get(appended.clone())
                    });
                    if let (Some(JsonValue::String(content)), Some(text)) = (
                        parts_mut(rendered).and_then(|p| p.get_mut(*index)?.get_mut("content")),
                        text,
                    ) {
                        content.push_str(text);
                    }
                }
                PatchOp::AppendToolInput { index, appended } => {
                    let text = parts(state).and_then(|p| {
                        p.get(*index)?
                            .get("toolCall")?
                            .get("partialInput")?
                            .as_str()?
                            .get(appended.clone())
                    });
                    let call = parts_mut(rendered)
                        .and_then(|p| p.get_mut(*index)?.get_mut("toolCall")?.as_object_mut());
                    if let (Some(call), Some(text)) = (call, text) {
                        let input = call
                            .entry("partialInput")
                            .or_insert_with(|| JsonValue::String(String::new()));
                        if let JsonValue::String(input) = input {
                            input.push_str(text);
                        }
                    }
                }
                PatchOp::AppendTerminalText { index, key, text } => {
                    let part = rendered
                        .get_mut("content")
                        .and_then(|c| c.as_array_mut()?.get_mut(*index)?.get_mut(*key));
                    if let Some(JsonValue::String(value)) = part {
                        value.push_str(text);
                    }
                }
                PatchOp::ReplacePart { index } => {
                    let new = parts(state).and_then(|p| p.get(*index)).cloned();
                    if let (Some(parts), Some(new)) = (parts_mut(rendered), new) {
                        if let Some(slot) = parts.get_mut(*index) {
                            *slot = new;
                        }
                    }
                }
                PatchOp::PushParts { from } => {
                    let new: Vec<JsonValue> = parts(state)
                        .map(|p| p.iter().skip(*from).cloned().collect())
                        .unwrap_or_default();
                    if let Some(parts) = parts_mut(rendered) {
                        parts.truncate(*from);
                        parts.extend(new);
                    }
                }
                PatchOp::PushTurns { from } => {
                    let new: Vec<JsonValue> = state["turns"]
                        .as_array()
                        .map(|t| t.iter().skip(*from).cloned().collect())
                        .unwrap_or_default();
                    if let Some(turns) = rendered.get_mut("turns").and_then(|t| t.as_array_mut()) {
                        turns.truncate(*from);
                        turns.extend(new);
                    }
                }
            }
        }
    }
}

fn set_or_remove(object: &mut JsonValue, name: &str, value: Option<&JsonValue>) {
    if let Some(object) = object.as_object_mut() {
        match value {
            Some(value) => {
                object.insert(name.to_string(), value.clone());
            }
            None => {
                object.remove(name);
            }
        }
    }
}

fn parts(state: &JsonValue) -> Option<&Vec<JsonValue>> {
    state.get("activeTurn")?.get("responseParts")?.as_array()
}

fn parts_mut(state: &mut JsonValue) -> Option<&mut Vec<JsonValue>> {
    state
        .get_mut("activeTurn")?
        .get_mut("responseParts")?
        .as_array_mut()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_to_one_part_are_joined() {
        let mut b = PatchBuilder::default();
        b.append_part_text(2, 3..4);
        b.append_part_text(2, 4..6);
        b.append_part_text(1, 0..1);
        b.append_part_text(1, 2..3); // not the bytes just after: a step of its own
        b.append_tool_input(4, 0..2);
        b.append_tool_input(4, 2..3);
        let expected = vec![
            PatchOp::AppendPartText {
                index: 2,
                appended: 3..6,
            },
            PatchOp::AppendPartText {
                index: 1,
                appended: 0..1,
            },
            PatchOp::AppendPartText {
                index: 1,
                appended: 2..3,
            },
            PatchOp::AppendToolInput {
                index: 4,
                appended: 0..3,
            },
        ];
        assert_eq!(b.finish().ops, expected);
    }

    #[test]
    fn terminal_output_to_one_part_is_joined() {
        let mut b = PatchBuilder::default();
        b.append_terminal_text(0, "output", "a");
        b.append_terminal_text(0, "output", "b");
        b.append_terminal_text(1, "value", "c");
        let text = |index, key, text: &str| PatchOp::AppendTerminalText {
            index,
            key,
            text: text.into(),
        };
        assert_eq!(
            b.finish().ops,
            vec![text(0, "output", "ab"), text(1, "value", "c")]
        );
    }

    #[test]
    fn appends_to_a_part_read_from_the_state_are_dropped() {
        let mut b = PatchBuilder::default();
        b.push_parts(3);
        b.append_part_text(3, 0..26);
        b.replace_part(1);
        b.append_part_text(1, 0..28);
        b.append_part_text(0, 0..4);
        let ops = b.finish().ops;
        assert_eq!(
            ops,
            vec![
                PatchOp::PushParts { from: 3 },
                PatchOp::ReplacePart { index: 1 },
                PatchOp::AppendPartText {
                    index: 0,
                    appended: 0..4
                },
            ]
        );
    }

    #[test]
    fn a_whole_field_subsumes_the_steps_inside_it() {
        let mut b = PatchBuilder::default();
        b.append_part_text(0, 0..1);
        b.push_turns(4);
        b.push_turns(3);
        b.field("activeTurn");
        b.field("summary");
        b.field("activeTurn");
        assert_eq!(
            b.finish().ops,
            vec![
                PatchOp::PushTurns { from: 3 },
                PatchOp::Field("activeTurn"),
                PatchOp::Field("summary"),
            ]
        );
    }
}
