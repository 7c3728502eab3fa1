//! What an action did to a state, as [`PatchOp`]s: the rules every protocol version shares,
//! over two small traits a version's states implement ([`TurnsState`]: 0.3.0's session, 1.0's
//! chat; [`Scrollback`]: both versions' terminals). A version says, by its own reducer's rule,
//! which part an action hit; these functions decide, from the sizes before and the state after,
//! which fine step that is, or that the field goes whole.

use super::patch::{PatchBuilder, Probe};
use super::MirrorState;
use crate::protocol::{
    ResponsePart, SessionState, SessionStateField, StateAction, TerminalContentPart, TerminalState,
    TerminalStateField, ToolCallState,
};
use crate::reduce::{scrollback_size, text_part_index, tool_call_indices, Changed, TextKind};

/// What a turn-content action did to the active turn's response parts, by the version's
/// reducer rule (read from the state after the action). `I` lists part indices.
pub(crate) enum PartStep<I> {
    /// `appended` bytes of text went to the end of the markdown or reasoning part `index`
    /// (`None`: no part took them).
    AppendText {
        /// The part the reducer appends to.
        index: Option<usize>,
        /// How many bytes.
        appended: usize,
    },
    /// A part was appended at the end, or else (the parts kept their number) the part
    /// `else_replaced` changed in place.
    Push {
        /// The part an upsert replaced when it appended none.
        else_replaced: Option<usize>,
    },
    /// `appended` bytes of streamed input went to each streaming tool call among `indices`.
    AppendInput {
        /// The tool calls the action addresses.
        indices: I,
        /// How many bytes.
        appended: usize,
    },
    /// The parts at these indices changed in place.
    Replace(I),
    /// Nothing a rendering shows changed (the reducer still reported the field).
    Unchanged,
    /// Anything else: the field goes whole.
    Whole,
}

/// A state with completed `turns` and an `activeTurn` of `responseParts`, whose rendering a
/// [`PatchOp`](super::PatchOp) updates by path: 0.3.0's session, 1.0's chat (the same wire
/// names and nesting in both).
pub(crate) trait TurnsState: MirrorState {
    /// The `turns` field.
    const TURNS: Self::Field;
    /// The `activeTurn` field.
    const ACTIVE_TURN: Self::Field;
    /// The number of completed turns.
    fn turn_count(&self) -> usize;
    /// The number of parts of the active turn, if there is one.
    fn part_count(&self) -> Option<usize>;
    /// Whether `action` moves the active turn into `turns` (complete, cancelled, error).
    fn ends_turn(action: &Self::Action) -> bool;
    /// What `action` did to the active turn's parts (`self` is the state after it).
    fn part_step<'a>(
        &'a self,
        action: &'a Self::Action,
    ) -> PartStep<impl Iterator<Item = usize> + 'a>;
    /// The length of the active turn's part `index`'s text, if it is markdown or reasoning.
    fn text_len(&self, index: usize) -> Option<usize>;
    /// The length of the active turn's part `index`'s streamed input (absent: 0), if it is a
    /// streaming tool call.
    fn input_len(&self, index: usize) -> Option<usize>;
}

/// The sizes [`describe_turns`] needs, before an action.
pub(crate) fn probe_turns<S: TurnsState>(state: &S) -> Probe {
    Probe::of_turns(state.turn_count(), state.part_count())
}

/// Describes what `action` did to a [`TurnsState`] (`state` is after it, `before` its
/// [`probe_turns`] before, `changed` the fields the reducer reported): an ended turn pushes
/// onto `turns`; streamed text and tool input append to one part; a new part pushes; a tool
/// call that changed replaces its part; everything else takes its fields whole.
pub(crate) fn describe_turns<S: TurnsState>(
    state: &S,
    before: Probe,
    action: &S::Action,
    changed: Changed<S::Field>,
    patch: &mut PatchBuilder,
) {
    let (turns, active_turn): (u8, u8) = (S::TURNS.into(), S::ACTIVE_TURN.into());
    // The changed fields in declaration order: bit `i` is `S::fields()[i]` (a streamed delta
    // changes one of a chat's 20 fields; testing each would cost more than the step).
    let mut bits = changed.bits();
    while bits != 0 {
        let i = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let Some(&field) = S::fields().get(i) else {
            continue;
        };
        debug_assert_eq!(
            usize::from(field.into()),
            i,
            "fields() in discriminant order"
        );
        let fine = match field.into() {
            f if f == turns => {
                let pushed = S::ends_turn(action) && state.turn_count() == before.turns() + 1;
                if pushed {
                    patch.push_turns(before.turns());
                }
                pushed
            }
            f if f == active_turn => describe_parts(state, before, action, patch),
            _ => false,
        };
        if !fine {
            patch.field(S::field_name(field));
        }
    }
}

/// Adds the fine steps of what `action` did to the active turn's parts; false when the
/// field must go whole.
fn describe_parts<S: TurnsState>(
    state: &S,
    before: Probe,
    action: &S::Action,
    patch: &mut PatchBuilder,
) -> bool {
    let (Some(parts), Some(parts_before)) = (state.part_count(), before.parts()) else {
        return false;
    };
    let same_len = parts == parts_before;
    match state.part_step(action) {
        PartStep::AppendText {
            index: Some(index),
            appended,
        } if same_len => match state.text_len(index) {
            Some(after) if after >= appended => {
                patch.append_part_text(index, after - appended..after);
                true
            }
            _ => false,
        },
        PartStep::Push { .. } if parts == parts_before + 1 => {
            patch.push_parts(parts_before);
            true
        }
        PartStep::Push {
            else_replaced: Some(index),
        } if same_len => {
            patch.replace_part(index);
            true
        }
        // Streamed input alone: appended in place (the input can grow long; the part is not
        // rebuilt per delta).
        PartStep::AppendInput { indices, appended } if same_len => {
            let mut described = false;
            for index in indices {
                if let Some(after) = state.input_len(index) {
                    patch.append_tool_input(index, after.saturating_sub(appended)..after);
                    described = true;
                }
            }
            described
        }
        PartStep::Replace(indices) if same_len => {
            let mut described = false;
            for index in indices {
                patch.replace_part(index);
                described = true;
            }
            described
        }
        PartStep::Unchanged => same_len,
        _ => false,
    }
}

/// A terminal state whose output a [`PatchOp::AppendTerminalText`](super::PatchOp) appends
/// to its `content` parts (both versions: `output` of a command part, `value` of an
/// unclassified run).
pub(crate) trait Scrollback: MirrorState {
    /// The `content` field.
    const CONTENT: Self::Field;
    /// The output `action` appends, if it is `terminal/data`.
    fn output(action: &Self::Action) -> Option<&str>;
    /// The number of content parts.
    fn part_count(&self) -> usize;
    /// The content's text size, where the version trims the scrollback (0.3.0): an append
    /// that trimmed changes it by other than the output's length. `None`: never trimmed.
    fn trimmed_size(&self) -> Option<usize>;
    /// The text member of the tail part, if output goes there (the part is the reducer's
    /// append target when the parts kept their number).
    fn tail_key(&self) -> Option<&'static str>;
}

/// The sizes [`describe_scrollback`] needs, before an action.
pub(crate) fn probe_scrollback<S: Scrollback>(state: &S) -> Probe {
    Probe::of_scrollback(state.part_count(), state.trimmed_size().unwrap_or(0))
}

/// Describes what `action` did to a [`Scrollback`] (`state` is after it, `before` its
/// [`probe_scrollback`] before): output appended to the tail part is a
/// [`PatchOp::AppendTerminalText`](super::PatchOp), so a long scrollback is not rebuilt per
/// chunk of output; anything else (a new part, a trimmed scrollback, a finished command) takes
/// `content` whole, and other fields go whole.
pub(crate) fn describe_scrollback<S: Scrollback>(
    state: &S,
    before: Probe,
    action: &S::Action,
    changed: Changed<S::Field>,
    patch: &mut PatchBuilder,
) {
    let content: u8 = S::CONTENT.into();
    for &field in S::fields() {
        if !changed.contains(field)
            || (field.into() == content && appended_output(state, before, action, patch))
        {
            continue;
        }
        patch.field(S::field_name(field));
    }
}

/// Adds the append of a `terminal/data` that only grew the tail part; false otherwise.
fn appended_output<S: Scrollback>(
    state: &S,
    before: Probe,
    action: &S::Action,
    patch: &mut PatchBuilder,
) -> bool {
    let Some(data) = S::output(action) else {
        return false;
    };
    // The same parts, and (where trimmed) exactly the data more text: no part was pushed and
    // no scrollback trimmed, so the data went to the tail part (the reducer appends nowhere
    // else).
    let parts = state.part_count();
    let grew = state
        .trimmed_size()
        .is_none_or(|size| size == before.content_bytes().saturating_add(data.len()));
    if data.is_empty() || parts == 0 || parts != before.content_parts() || !grew {
        return false;
    }
    let Some(key) = state.tail_key() else {
        return false;
    };
    patch.append_terminal_text(parts - 1, key, data);
    true
}

// ---- 0.3.0 ----

impl TurnsState for SessionState {
    const TURNS: SessionStateField = SessionStateField::Turns;
    const ACTIVE_TURN: SessionStateField = SessionStateField::ActiveTurn;

    fn turn_count(&self) -> usize {
        self.turns.len()
    }

    fn part_count(&self) -> Option<usize> {
        self.active_turn.as_ref().map(|t| t.response_parts.len())
    }

    fn ends_turn(action: &StateAction) -> bool {
        matches!(
            action,
            StateAction::SessionTurnComplete(_)
                | StateAction::SessionTurnCancelled(_)
                | StateAction::SessionError(_)
        )
    }

    /// By the 0.3.0 reducer's rule (`reduce::session::target`): text to the first part with
    /// the id, tool-call actions to every call with the id.
    fn part_step<'a>(
        &'a self,
        action: &'a StateAction,
    ) -> PartStep<impl Iterator<Item = usize> + 'a> {
        let parts = active_parts(self);
        let text = |id: &str, kind: TextKind, content: &str| PartStep::AppendText {
            index: text_part_index(parts, id, kind),
            appended: content.len(),
        };
        match action {
            StateAction::SessionDelta(a) => text(&a.part_id, TextKind::Markdown, &a.content),
            StateAction::SessionReasoning(a) => text(&a.part_id, TextKind::Reasoning, &a.content),
            StateAction::SessionToolCallStart(_) | StateAction::SessionResponsePart(_) => {
                PartStep::Push {
                    else_replaced: None,
                }
            }
            // A new progress message takes the parts whole.
            StateAction::SessionToolCallDelta(a) if a.invocation_message.is_none() => {
                PartStep::AppendInput {
                    indices: tool_call_indices(parts, &a.tool_call_id),
                    appended: a.content.len(),
                }
            }
            action => match action.updated_tool_call_id() {
                Some(id) => PartStep::Replace(tool_call_indices(parts, id)),
                None => PartStep::Whole,
            },
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

/// A session's active turn's parts (none without one).
fn active_parts(state: &SessionState) -> &[ResponsePart] {
    state
        .active_turn
        .as_ref()
        .map(|t| &t.response_parts[..])
        .unwrap_or_default()
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

    fn trimmed_size(&self) -> Option<usize> {
        Some(scrollback_size(&self.content))
    }

    fn tail_key(&self) -> Option<&'static str> {
        match self.content.last()? {
            TerminalContentPart::Command(_) => Some("output"),
            TerminalContentPart::Unclassified(_) => Some("value"),
            _ => None,
        }
    }
}

impl Probe {
    /// The sizes of a 0.3.0 session state.
    pub fn session(state: &SessionState) -> Probe {
        probe_turns(state)
    }

    /// The sizes of a 0.3.0 terminal state.
    pub fn terminal(state: &TerminalState) -> Probe {
        probe_scrollback(state)
    }
}

/// Describes what `action` did to a 0.3.0 session state (`state` is after it, `before` its
/// [`Probe::session`] before, `changed` the fields the reducer reported).
pub fn describe_session(
    state: &SessionState,
    before: Probe,
    action: &StateAction,
    changed: Changed<SessionStateField>,
    patch: &mut PatchBuilder,
) {
    describe_turns(state, before, action, changed, patch)
}

/// Describes what `action` did to a 0.3.0 terminal state (`state` is after it, `before` its
/// [`Probe::terminal`] before, `changed` the fields the reducer reported): output appended to
/// the tail part is an [`AppendTerminalText`](super::PatchOp::AppendTerminalText), so a long
/// scrollback is not rebuilt per chunk of output; anything else (a new part, a trimmed
/// scrollback, a finished command) takes `content` whole.
pub fn describe_terminal(
    state: &TerminalState,
    before: Probe,
    action: &StateAction,
    changed: Changed<TerminalStateField>,
    patch: &mut PatchBuilder,
) {
    describe_scrollback(state, before, action, changed, patch)
}
