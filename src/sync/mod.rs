//! Optimistic mirrors of subscribed channels (write-ahead reconciliation, spec
//! `guide/reconciliation.md`). Pure: no I/O, no wasm, no clock of its own.
//!
//! A [`Mirror`] holds, for one channel, the server-`confirmed` state, the client's `pending`
//! actions tagged with their `clientSeq`, and the optimistic `state` = confirmed with pending
//! replayed. [`AnyMirror`] wraps the five state-bearing channel kinds behind one type.
//!
//! The mirror is version-generic: a [`MirrorState`] names its protocol version's action,
//! envelope ([`Envelope`]) and kind types. [`ChannelState`] is a 0.3.0 state; [`v1`] holds the
//! AHP 1.0 states, kinds and `AnyMirror`, over the same [`Mirror`] code.
//!
//! ```
//! use ahp_wasm::protocol::{ActionEnvelope, ActionOrigin, RootState, StateAction};
//! use ahp_wasm::reduce::FixedClock;
//! use ahp_wasm::sync::Mirror;
//!
//! let clock = FixedClock(0.0);
//! let mut mirror = Mirror::new(RootState::default(), 10);
//! let action: StateAction =
//!     serde_json::from_str(r#"{"type":"root/activeSessionsChanged","activeSessions":3}"#)?;
//! mirror.dispatch(1, action.clone(), &clock); // applied locally at once
//! assert_eq!(mirror.state().active_sessions, Some(3.0));
//! assert_eq!(mirror.confirmed().active_sessions, None);
//!
//! // The server echoes it: the pending action is confirmed.
//! let echo = ActionEnvelope {
//!     channel: "ahp-root://".into(),
//!     action,
//!     server_seq: 11,
//!     origin: Some(ActionOrigin { client_id: "me".into(), client_seq: 1, ..Default::default() }),
//!     rejection_reason: None,
//!     extra: Default::default(),
//! };
//! let outcome = mirror.apply_batch([&echo], "me", &clock);
//! assert_eq!(outcome.resolved, vec![1]);
//! assert_eq!(mirror.pending_count(), 0);
//! assert_eq!(mirror.confirmed().active_sessions, Some(3.0));
//! # Ok::<(), serde_json::Error>(())
//! ```

mod any;
mod describe;
mod mirror;
mod patch;
pub mod v1;

pub use any::{AnyBatchOutcome, AnyMirror, AnyState, ChangeSet, VersionMirror};
pub use describe::{describe_session, describe_terminal};
pub use mirror::{BatchEnvelope, BatchOutcome, Divergence, Mirror, PendingAction, Rejection};
pub use patch::{PatchBuilder, PatchOp, Probe, StatePatch};

use crate::protocol::decode::Decode;
use crate::protocol::encode::{Encode, Writer};
use crate::protocol::{
    ActionEnvelope, ChangesetState, ChangesetStateField, ResourceWatchState,
    ResourceWatchStateField, RootState, RootStateField, SessionState, SessionStateField,
    StateAction, TerminalState, TerminalStateField,
};
use crate::reduce::{self, Changed, Clock, Outcome};
use serde::Serialize;
use std::fmt;
use std::hash::Hash;

/// The kinds of state-bearing channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    /// `ahp-root://`: [`RootState`].
    Root,
    /// `ahp-session:/<id>`: [`SessionState`].
    Session,
    /// `ahp-terminal:/<id>`: [`TerminalState`].
    Terminal,
    /// `ahp-changeset:/<id>`: [`ChangesetState`].
    Changeset,
    /// `ahp-resource-watch:/<id>`: [`ResourceWatchState`].
    ResourceWatch,
}

impl ChannelKind {
    /// The kind named by a channel URI's scheme, if it is one of the spec's schemes.
    pub fn from_uri(uri: &str) -> Option<ChannelKind> {
        let scheme = uri.split_once(':').map(|(s, _)| s)?;
        Some(match scheme {
            "ahp-root" => ChannelKind::Root,
            "ahp-session" => ChannelKind::Session,
            "ahp-terminal" => ChannelKind::Terminal,
            "ahp-changeset" => ChannelKind::Changeset,
            "ahp-resource-watch" => ChannelKind::ResourceWatch,
            _ => return None,
        })
    }

    /// A lower-case name (`"session"`).
    pub fn name(self) -> &'static str {
        match self {
            ChannelKind::Root => "root",
            ChannelKind::Session => "session",
            ChannelKind::Terminal => "terminal",
            ChannelKind::Changeset => "changeset",
            ChannelKind::ResourceWatch => "resourceWatch",
        }
    }
}

impl Kind for ChannelKind {
    fn field_names(self, bits: u64) -> Vec<&'static str> {
        match self {
            ChannelKind::Root => field_names::<RootState>(Changed::from_bits(bits)),
            ChannelKind::Session => field_names::<SessionState>(Changed::from_bits(bits)),
            ChannelKind::Terminal => field_names::<TerminalState>(Changed::from_bits(bits)),
            ChannelKind::Changeset => field_names::<ChangesetState>(Changed::from_bits(bits)),
            ChannelKind::ResourceWatch => {
                field_names::<ResourceWatchState>(Changed::from_bits(bits))
            }
        }
    }
}

/// A protocol version's enum of channel kinds (0.3.0's [`ChannelKind`], 1.0's
/// [`v1::ChannelKind`]): what a [`ChangeSet`] names its fields by.
pub trait Kind: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static {
    /// The wire names of the fields of this kind's state in the bit set `bits`.
    fn field_names(self, bits: u64) -> Vec<&'static str>;
}

/// What a [`Mirror`] reads from a protocol version's action envelope. Implemented by each
/// version's `ActionEnvelope`; the accessors inline to the field reads they were before the
/// sync layer served two versions.
pub trait Envelope {
    /// The version's action union.
    type Action;
    /// The action.
    fn action(&self) -> &Self::Action;
    /// The action, moved out: an unknown action with no members is left behind.
    fn take_action(&mut self) -> Self::Action;
    /// The `serverSeq`.
    fn server_seq(&self) -> u64;
    /// The origin's `clientId` and `clientSeq`, if the envelope names one (a `clientSeq`
    /// no client of ours can have dispatched reads as no origin).
    fn origin(&self) -> Option<(&str, u64)>;
    /// The server's reason, if it rejected the action.
    fn rejection_reason(&self) -> Option<&String>;
    /// The channel URI.
    fn channel(&self) -> &str;
    /// The channel URI, mutable: a batch lends it out while the channel's envelopes are
    /// borrowed (no copy).
    fn channel_mut(&mut self) -> &mut String;
}

/// `impl Envelope` for a version's `ActionEnvelope` (fields `channel`, `action`, `serverSeq`,
/// `origin`, `rejectionReason`; the action union has an `Unknown` variant); `|$origin|
/// $client_seq` reads the origin's `clientSeq` as ours (`None`: no `clientSeq` of ours).
macro_rules! envelope_impl {
    ($envelope:ty, $action:ident, |$origin:ident| $client_seq:expr) => {
        impl $crate::sync::Envelope for $envelope {
            type Action = $action;
            #[inline]
            fn action(&self) -> &$action {
                &self.action
            }
            #[inline]
            fn take_action(&mut self) -> $action {
                let left = $action::Unknown($crate::protocol::tagged::UnknownVariant(
                    $crate::protocol::JsonObject::new(),
                ));
                std::mem::replace(&mut self.action, left)
            }
            #[inline]
            fn server_seq(&self) -> u64 {
                self.server_seq
            }
            #[inline]
            fn origin(&self) -> Option<(&str, u64)> {
                let $origin = self.origin.as_ref()?;
                Some(($origin.client_id.as_str(), $client_seq?))
            }
            #[inline]
            fn rejection_reason(&self) -> Option<&String> {
                self.rejection_reason.as_ref()
            }
            #[inline]
            fn channel(&self) -> &str {
                &self.channel
            }
            #[inline]
            fn channel_mut(&mut self) -> &mut String {
                &mut self.channel
            }
        }
    };
}
pub(crate) use envelope_impl;

envelope_impl!(ActionEnvelope, StateAction, |origin| Some(
    origin.client_seq
));

/// A channel state of any protocol version with its reducer: what a [`Mirror`] needs.
/// [`ChannelState`] is this for the 0.3.0 states, [`v1::ChannelState`] for the 1.0 ones.
pub trait MirrorState:
    Clone + PartialEq + fmt::Debug + Serialize + Encode + Decode + Send + Sync + 'static
{
    /// The enum of top-level fields a reducer reports as changed.
    type Field: Copy + Into<u8> + fmt::Debug + Send + Sync + 'static;
    /// The protocol version's action union.
    type Action: Clone + PartialEq + fmt::Debug + Send + Sync + 'static;
    /// The protocol version's action envelope.
    type Envelope: Envelope<Action = Self::Action>;
    /// The protocol version's enum of channel kinds.
    type Kind: Kind;
    /// Which channel kind holds this state.
    const KIND: Self::Kind;
    /// Every field, in declaration order.
    fn fields() -> &'static [Self::Field];
    /// The wire name of a field (`"activeTurn"`).
    fn field_name(field: Self::Field) -> &'static str;
    /// Applies one action with this channel's reducer (a version whose reducers read no
    /// clock ignores `clock`).
    fn reduce(&mut self, action: &Self::Action, clock: &dyn Clock) -> Outcome<Self::Field>;
    /// Writes one top-level field's value as JSON; `false` when the field is absent.
    fn encode_field(&self, field: Self::Field, writer: &mut Writer) -> bool;
    /// Sets the fields in `fields` to clones of `other`'s.
    fn clone_fields_from(&mut self, other: &Self, fields: Changed<Self::Field>);
    /// Sizes to remember before an action, for [`MirrorState::describe`].
    fn probe(&self) -> Probe {
        Probe::default()
    }
    /// Adds to `patch` what an action that changed `changed` did (`self` is the state after
    /// it, `before` its [`MirrorState::probe`] before). Default: the changed fields, whole.
    fn describe(
        &self,
        _before: Probe,
        _action: &Self::Action,
        changed: Changed<Self::Field>,
        patch: &mut PatchBuilder,
    ) {
        for name in field_names::<Self>(changed) {
            patch.field(name);
        }
    }
}

/// A 0.3.0 channel state: a [`MirrorState`] over 0.3.0's actions, envelopes and kinds.
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

/// An `impl MirrorState`: the state, its field enum (generated, with `ALL`, `wire_name`,
/// `encode_field`, `clone_field_from`), its kind, the version's action and envelope types,
/// how to call its reducer, and any overridden methods.
macro_rules! mirror_state {
    (
        $state:ty, $field:ty, $kind_ty:ty = $kind:expr, $action:ty, $envelope:ty,
        |$s:ident, $a:ident, $c:ident| $reduce:expr $(, $extra:item)*
    ) => {
        impl $crate::sync::MirrorState for $state {
            type Field = $field;
            type Action = $action;
            type Envelope = $envelope;
            type Kind = $kind_ty;
            const KIND: $kind_ty = $kind;
            fn fields() -> &'static [$field] {
                <$field>::ALL
            }
            fn field_name(field: $field) -> &'static str {
                field.wire_name()
            }
            fn encode_field(
                &self,
                field: $field,
                writer: &mut $crate::protocol::encode::Writer,
            ) -> bool {
                <$state>::encode_field(self, field, writer)
            }
            fn reduce(
                &mut self,
                action: &$action,
                clock: &dyn $crate::reduce::Clock,
            ) -> $crate::reduce::Outcome<$field> {
                let ($s, $a, $c) = (self, action, clock);
                $reduce
            }
            fn clone_fields_from(&mut self, other: &Self, fields: $crate::reduce::Changed<$field>) {
                for &field in <$field>::ALL {
                    if fields.contains(field) {
                        self.clone_field_from(other, field);
                    }
                }
            }
            $($extra)*
        }
    };
}
pub(crate) use mirror_state;

/// A 0.3.0 [`mirror_state!`]: its reducers read the clock.
macro_rules! channel_state {
    ($state:ty, $field:ty, $kind:ident, $reducer:path $(, $extra:item)*) => {
        mirror_state!(
            $state, $field, ChannelKind = ChannelKind::$kind, StateAction, ActionEnvelope,
            |state, action, clock| $reducer(state, action, clock) $(, $extra)*
        );
    };
}

channel_state!(RootState, RootStateField, Root, reduce::root_reducer);
channel_state!(
    SessionState,
    SessionStateField,
    Session,
    reduce::session_reducer,
    fn probe(&self) -> Probe {
        Probe::session(self)
    },
    fn describe(
        &self,
        before: Probe,
        action: &StateAction,
        changed: Changed<SessionStateField>,
        patch: &mut PatchBuilder,
    ) {
        describe_session(self, before, action, changed, patch)
    }
);
channel_state!(
    TerminalState,
    TerminalStateField,
    Terminal,
    reduce::terminal_reducer,
    fn probe(&self) -> Probe {
        Probe::terminal(self)
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
channel_state!(
    ChangesetState,
    ChangesetStateField,
    Changeset,
    reduce::changeset_reducer
);
channel_state!(
    ResourceWatchState,
    ResourceWatchStateField,
    ResourceWatch,
    reduce::resource_watch_reducer
);

/// Every field of `S`, as a [`Changed`] set.
pub fn all_fields<S: MirrorState>() -> Changed<S::Field> {
    S::fields()
        .iter()
        .fold(Changed::none(), |set, &f| set.with(f))
}

/// The wire names of the fields in `changed`, in declaration order.
pub fn field_names<S: MirrorState>(changed: Changed<S::Field>) -> Vec<&'static str> {
    S::fields()
        .iter()
        .filter(|&&f| changed.contains(f))
        .map(|&f| S::field_name(f))
        .collect()
}

#[cfg(test)]
mod tests;
