//! [`AnyMirror`]: a 1.0 [`Mirror`](crate::sync::Mirror) of any channel kind, from the same
//! macro as 0.3.0's.

use super::ChannelKind;
use crate::protocol::decode::{from_text, DecodeError};
use crate::protocol::v1::{
    ActionEnvelope, AnnotationsState, AutomationRunState, AutomationState, CanvasState,
    ChangesetState, ChatState, ResourceWatchState, RootState, SessionState, SnapshotState,
    StateAction, TerminalState,
};
use crate::protocol::RawJson;
use crate::sync::any::any_channel;

any_channel! {
    kind: ChannelKind, action: StateAction, envelope: ActionEnvelope, outcome: AnyBatchOutcome,
    /// `ahp-root://`.
    Root(RootState),
    /// A session.
    Session(SessionState),
    /// A session's annotations.
    Annotations(AnnotationsState),
    /// A chat.
    Chat(ChatState),
    /// A terminal.
    Terminal(TerminalState),
    /// A changeset.
    Changeset(ChangesetState),
    /// A resource watch.
    ResourceWatch(ResourceWatchState),
    /// The automation catalogue.
    Automations(AutomationState),
    /// An automation run.
    AutomationRun(AutomationRunState),
    /// A canvas.
    Canvas(CanvasState),
}

impl AnyState {
    /// Decodes a snapshot's `state` for the channel `uri`: by the URI's kind when it is one of
    /// the 1.0 spec's, otherwise by the state's shape (in `SnapshotState`'s order).
    pub fn decode(uri: &str, state: RawJson<'_>) -> Result<AnyState, DecodeError> {
        let text = state.get();
        let Some(kind) = ChannelKind::from_uri(uri) else {
            return Ok(from_text::<SnapshotState>(text)?.into());
        };
        Ok(match kind {
            ChannelKind::Root => AnyState::Root(from_text(text)?),
            ChannelKind::Session => AnyState::Session(from_text(text)?),
            ChannelKind::Annotations => AnyState::Annotations(from_text(text)?),
            ChannelKind::Chat => AnyState::Chat(from_text(text)?),
            ChannelKind::Terminal => AnyState::Terminal(from_text(text)?),
            ChannelKind::Changeset => AnyState::Changeset(from_text(text)?),
            ChannelKind::ResourceWatch => AnyState::ResourceWatch(from_text(text)?),
            ChannelKind::Automations => AnyState::Automations(from_text(text)?),
            ChannelKind::AutomationRun => AnyState::AutomationRun(from_text(text)?),
            ChannelKind::Canvas => AnyState::Canvas(from_text(text)?),
        })
    }
}

impl From<SnapshotState> for AnyState {
    fn from(state: SnapshotState) -> AnyState {
        match state {
            SnapshotState::Root(s) => AnyState::Root(*s),
            SnapshotState::Session(s) => AnyState::Session(*s),
            SnapshotState::Annotations(s) => AnyState::Annotations(*s),
            SnapshotState::Chat(s) => AnyState::Chat(*s),
            SnapshotState::Terminal(s) => AnyState::Terminal(*s),
            SnapshotState::Changeset(s) => AnyState::Changeset(*s),
            SnapshotState::ResourceWatch(s) => AnyState::ResourceWatch(*s),
            SnapshotState::Automations(s) => AnyState::Automations(*s),
            SnapshotState::AutomationRun(s) => AnyState::AutomationRun(*s),
            SnapshotState::Canvas(s) => AnyState::Canvas(*s),
        }
    }
}
