//! Optimistic mirrors of AHP 1.0 channels: the same [`Mirror`](super::Mirror) and
//! [`BatchOutcome`](super::BatchOutcome) as 0.3.0's, over the 1.0 wire model
//! (`crate::protocol::v1`) and reducers (`crate::reduce::v1`, which read no clock: a mirror's
//! `clock` argument is ignored for 1.0 states).
//!
//! ```
//! use ahp_wasm::protocol::v1::{ActionEnvelope, ActionOrigin, RootState, StateAction};
//! use ahp_wasm::reduce::FixedClock;
//! use ahp_wasm::sync::Mirror;
//!
//! let clock = FixedClock(0.0);
//! let mut mirror = Mirror::new(RootState::default(), 10);
//! let action: StateAction =
//!     serde_json::from_str(r#"{"type":"root/activeSessionsChanged","activeSessions":3}"#)?;
//! mirror.dispatch(1, action.clone(), &clock);
//! assert_eq!(mirror.state().active_sessions, Some(3));
//! let echo = ActionEnvelope {
//!     channel: "ahp-root://".into(),
//!     action,
//!     server_seq: 11,
//!     origin: Some(ActionOrigin { client_id: "me".into(), client_seq: 1, ..Default::default() }),
//!     rejection_reason: None,
//!     extra: Default::default(),
//! };
//! assert_eq!(mirror.apply_batch([&echo], "me", &clock).resolved, vec![1]);
//! # Ok::<(), serde_json::Error>(())
//! ```

mod any;
mod describe;

pub use any::{AnyBatchOutcome, AnyMirror, AnyState};
pub use describe::{describe_chat, describe_terminal};

use super::{field_names, mirror_state, Kind, MirrorState, PatchBuilder, Probe};
use crate::protocol::v1::{
    ActionEnvelope, AnnotationsState, AnnotationsStateField, AutomationRunState,
    AutomationRunStateField, AutomationState, AutomationStateField, CanvasState, CanvasStateField,
    ChangesetState, ChangesetStateField, ChatState, ChatStateField, ResourceWatchState,
    ResourceWatchStateField, RootState, RootStateField, SessionState, SessionStateField,
    StateAction, TerminalState, TerminalStateField,
};
use crate::reduce::v1 as reduce;
use crate::reduce::Changed;

/// The kinds of AHP 1.0 state-bearing channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    /// `ahp-root://`: [`RootState`].
    Root,
    /// `ahp-session:/<id>`: [`SessionState`].
    Session,
    /// `ahp-session:/<id>/annotations`: [`AnnotationsState`].
    Annotations,
    /// `ahp-chat:/<id>`: [`ChatState`].
    Chat,
    /// `ahp-terminal:/<id>`: [`TerminalState`].
    Terminal,
    /// `ahp-changeset:/<id>`: [`ChangesetState`].
    Changeset,
    /// `ahp-resource-watch:/<id>`: [`ResourceWatchState`].
    ResourceWatch,
    /// `ahp-automations://`, the automation catalogue: [`AutomationState`].
    Automations,
    /// `ahp-automation-run:/<id>`: [`AutomationRunState`].
    AutomationRun,
    /// `ahp-canvas:/<id>`: [`CanvasState`].
    Canvas,
}

impl ChannelKind {
    /// Every kind.
    pub const ALL: &'static [ChannelKind] = &[
        ChannelKind::Root,
        ChannelKind::Session,
        ChannelKind::Annotations,
        ChannelKind::Chat,
        ChannelKind::Terminal,
        ChannelKind::Changeset,
        ChannelKind::ResourceWatch,
        ChannelKind::Automations,
        ChannelKind::AutomationRun,
        ChannelKind::Canvas,
    ];

    /// The kind a channel URI names, if it is one of the 1.0 spec's: by its scheme, and for a
    /// session's annotations channel by its path (`ahp-session:/<id>/annotations`).
    pub fn from_uri(uri: &str) -> Option<ChannelKind> {
        let (scheme, rest) = uri.split_once(':')?;
        Some(match scheme {
            "ahp-root" => ChannelKind::Root,
            "ahp-session" if is_annotations_path(rest) => ChannelKind::Annotations,
            "ahp-session" => ChannelKind::Session,
            "ahp-chat" => ChannelKind::Chat,
            "ahp-terminal" => ChannelKind::Terminal,
            "ahp-changeset" => ChannelKind::Changeset,
            "ahp-resource-watch" => ChannelKind::ResourceWatch,
            "ahp-automations" => ChannelKind::Automations,
            "ahp-automation-run" => ChannelKind::AutomationRun,
            "ahp-canvas" => ChannelKind::Canvas,
            _ => return None,
        })
    }

    /// A lower-case name (`"automationRun"`).
    pub fn name(self) -> &'static str {
        match self {
            ChannelKind::Root => "root",
            ChannelKind::Session => "session",
            ChannelKind::Annotations => "annotations",
            ChannelKind::Chat => "chat",
            ChannelKind::Terminal => "terminal",
            ChannelKind::Changeset => "changeset",
            ChannelKind::ResourceWatch => "resourceWatch",
            ChannelKind::Automations => "automations",
            ChannelKind::AutomationRun => "automationRun",
            ChannelKind::Canvas => "canvas",
        }
    }
}

/// Whether the part of an `ahp-session:` URI after the scheme is a session's annotations
/// channel: `/<id>/annotations`, with a non-empty id.
fn is_annotations_path(rest: &str) -> bool {
    rest.strip_suffix("/annotations")
        .map(|session| session.trim_start_matches('/'))
        .is_some_and(|id| !id.is_empty())
}

impl Kind for ChannelKind {
    fn field_names(self, bits: u64) -> Vec<&'static str> {
        fn names<S: MirrorState>(bits: u64) -> Vec<&'static str> {
            field_names::<S>(Changed::from_bits(bits))
        }
        match self {
            ChannelKind::Root => names::<RootState>(bits),
            ChannelKind::Session => names::<SessionState>(bits),
            ChannelKind::Annotations => names::<AnnotationsState>(bits),
            ChannelKind::Chat => names::<ChatState>(bits),
            ChannelKind::Terminal => names::<TerminalState>(bits),
            ChannelKind::Changeset => names::<ChangesetState>(bits),
            ChannelKind::ResourceWatch => names::<ResourceWatchState>(bits),
            ChannelKind::Automations => names::<AutomationState>(bits),
            ChannelKind::AutomationRun => names::<AutomationRunState>(bits),
            ChannelKind::Canvas => names::<CanvasState>(bits),
        }
    }
}

// 1.0's `clientSeq` is signed; a negative one is no `clientSeq` of ours, so the envelope
// reads as foreign.
crate::sync::envelope_impl!(ActionEnvelope, StateAction, |origin| u64::try_from(
    origin.client_seq
)
.ok());

/// A 1.0 channel state: a [`MirrorState`] over 1.0's actions, envelopes and kinds.
/// Its methods are [`MirrorState`]'s: generic code bound by it calls them as is; calling them
/// on a concrete state takes `use ahp_wasm::sync::MirrorState`.
pub trait ChannelState:
    MirrorState<Action = StateAction, Envelope = ActionEnvelope, Kind = ChannelKind>
{
}

impl<S> ChannelState for S where
    S: MirrorState<Action = StateAction, Envelope = ActionEnvelope, Kind = ChannelKind>
{
}

/// A 1.0 [`mirror_state!`]: its reducers read no clock.
macro_rules! channel_state_v1 {
    ($state:ty, $field:ty, $kind:ident, $reducer:path $(, $extra:item)*) => {
        mirror_state!(
            $state,
            $field,
            ChannelKind = ChannelKind::$kind,
            StateAction,
            ActionEnvelope,
            |state, action, _clock| $reducer(state, action) $(, $extra)*
        );
    };
}

channel_state_v1!(RootState, RootStateField, Root, reduce::root_reducer);
channel_state_v1!(
    SessionState,
    SessionStateField,
    Session,
    reduce::session_reducer
);
channel_state_v1!(
    AnnotationsState,
    AnnotationsStateField,
    Annotations,
    reduce::annotations_reducer
);
channel_state_v1!(
    ChatState,
    ChatStateField,
    Chat,
    reduce::chat_reducer,
    fn probe(&self) -> Probe {
        Probe::chat(self)
    },
    fn describe(
        &self,
        before: Probe,
        action: &StateAction,
        changed: Changed<ChatStateField>,
        patch: &mut PatchBuilder,
    ) {
        describe_chat(self, before, action, changed, patch)
    }
);
channel_state_v1!(
    TerminalState,
    TerminalStateField,
    Terminal,
    reduce::terminal_reducer,
    fn probe(&self) -> Probe {
        Probe::terminal_v1(self)
    },
    fn describe(
        &self,
        before: Probe,
        action: &StateAction,
        changed: Changed<TerminalStateField>,
        patch: &mut PatchBuilder,
    ) {
        describe_terminal(self, before, action, changed, patch)
    }
);
channel_state_v1!(
    ChangesetState,
    ChangesetStateField,
    Changeset,
    reduce::changeset_reducer
);
channel_state_v1!(
    ResourceWatchState,
    ResourceWatchStateField,
    ResourceWatch,
    reduce::resource_watch_reducer
);
channel_state_v1!(
    AutomationState,
    AutomationStateField,
    Automations,
    reduce::automation_reducer
);
channel_state_v1!(
    AutomationRunState,
    AutomationRunStateField,
    AutomationRun,
    reduce::automation_run_reducer
);
channel_state_v1!(
    CanvasState,
    CanvasStateField,
    Canvas,
    reduce::canvas_reducer
);

#[cfg(all(test, not(target_arch = "wasm32")))]
mod patch_props;
#[cfg(test)]
mod patch_tests;
#[cfg(test)]
mod tests;
