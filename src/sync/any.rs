//! [`AnyMirror`]: a [`Mirror`] of any channel kind, for code that holds many channels.
//!
//! The enums of a protocol version's states and mirrors come from one macro,
//! [`any_channel!`], so 1.0's (`super::v1`) are the same code over its ten kinds.

use super::{ChannelKind, Kind, MirrorState};
use crate::protocol::decode::{from_text, DecodeError};
use crate::protocol::RawJson;
use crate::protocol::{
    ActionEnvelope, ChangesetState, ResourceWatchState, RootState, SessionState, StateAction,
    TerminalState,
};
use crate::reduce::Changed;

/// A set of changed top-level fields of a channel of any kind (of the protocol version whose
/// kinds `K` are: 0.3.0's by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangeSet<K = ChannelKind> {
    /// The channel kind the fields belong to.
    pub kind: K,
    bits: u64,
}

impl<K: Kind> ChangeSet<K> {
    /// A set of `S`'s fields.
    pub fn of<S: MirrorState<Kind = K>>(changed: Changed<S::Field>) -> ChangeSet<K> {
        ChangeSet {
            kind: S::KIND,
            bits: changed.bits(),
        }
    }

    /// The empty set of a kind.
    pub fn empty(kind: K) -> ChangeSet<K> {
        ChangeSet { kind, bits: 0 }
    }

    /// Whether no field changed.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Union with another set of the same kind.
    pub fn union(self, other: ChangeSet<K>) -> ChangeSet<K> {
        debug_assert_eq!(self.kind, other.kind);
        ChangeSet {
            kind: self.kind,
            bits: self.bits | other.bits,
        }
    }

    /// The typed set, if this set is of `S`'s kind.
    pub fn typed<S: MirrorState<Kind = K>>(&self) -> Option<Changed<S::Field>> {
        (self.kind == S::KIND).then(|| Changed::from_bits(self.bits))
    }

    /// The wire names of the changed fields (`["activeTurn", "summary"]`).
    pub fn names(&self) -> Vec<&'static str> {
        self.kind.field_names(self.bits)
    }

    /// Whether the field with this wire name changed.
    pub fn contains(&self, name: &str) -> bool {
        self.names().contains(&name)
    }
}

/// A version's [`AnyMirror`](super::AnyMirror) as a trait: its inherent methods, so that code
/// driving mirrors (the client engine) is written once for both protocol versions.
pub trait VersionMirror: Sized {
    /// The version's `AnyState`.
    type State;
    /// The version's action union.
    type Action;
    /// The version's action envelope.
    type Envelope: super::Envelope<Action = Self::Action>;
    /// The version's channel kinds.
    type Kind: super::Kind;
    /// Decodes a snapshot's state for the channel `uri` (see the version's `AnyState::decode`).
    fn decode_state(uri: &str, state: RawJson<'_>) -> Result<Self::State, DecodeError>;
    /// A mirror of a snapshot state taken at `from_seq`.
    fn new_mirror(state: Self::State, from_seq: u64) -> Self;
    /// See the inherent `reset`.
    fn reset_to(
        &mut self,
        state: Self::State,
        from_seq: u64,
        clock: &dyn crate::reduce::Clock,
    ) -> Result<ChangeSet<Self::Kind>, Box<Self::State>>;
    /// See the inherent `dispatch`.
    fn dispatch_own(
        &mut self,
        client_seq: u64,
        action: Self::Action,
        clock: &dyn crate::reduce::Clock,
    ) -> (ChangeSet<Self::Kind>, super::StatePatch);
    /// See the inherent `mark_sent`.
    fn sent(&mut self, client_seq: u64);
    /// See the inherent `pending_count`.
    fn pending_len(&self) -> usize;
    /// See the inherent `apply_batch`.
    fn apply<'a>(
        &mut self,
        envelopes: impl IntoIterator<Item = &'a mut Self::Envelope>,
        client_id: &str,
        clock: &dyn crate::reduce::Clock,
    ) -> super::BatchOutcome<ChangeSet<Self::Kind>, Self::Action>
    where
        Self::Envelope: 'a;
    /// See the inherent `drop_pending`.
    #[allow(clippy::type_complexity)]
    fn drop_some(
        &mut self,
        drop: impl FnMut(&super::PendingAction<Self::Action>) -> bool,
        clock: &dyn crate::reduce::Clock,
    ) -> (
        Vec<super::PendingAction<Self::Action>>,
        ChangeSet<Self::Kind>,
    );
}

/// A protocol version's `AnyState` and `AnyMirror` enums (one variant per channel kind, named
/// as the kind's variant) and their methods, which dispatch to the typed [`Mirror`].
///
/// [`Mirror`]: super::Mirror
macro_rules! any_channel {
    (
        kind: $kind:ident, action: $action:ty, envelope: $envelope:ty, outcome: $outcome:ident,
        $($(#[$doc:meta])* $variant:ident($state:ty),)+
    ) => {
        /// The state of a channel of any kind.
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        #[serde(untagged)]
        #[allow(clippy::large_enum_variant)] // held once per subscription
        pub enum AnyState {
            $($(#[$doc])* $variant($state),)+
        }

        impl AnyState {
            /// The channel kind.
            pub fn kind(&self) -> $kind {
                match self {
                    $(AnyState::$variant(_) => $kind::$variant,)+
                }
            }
        }

        /// A [`BatchOutcome`](crate::sync::BatchOutcome) with kind-independent field sets.
        pub type $outcome = $crate::sync::BatchOutcome<$crate::sync::ChangeSet<$kind>, $action>;

        /// A [`Mirror`](crate::sync::Mirror) of any channel kind.
        #[derive(Debug, Clone)]
        #[allow(clippy::large_enum_variant)] // held once per subscription
        pub enum AnyMirror {
            $($(#[$doc])* $variant($crate::sync::Mirror<$state>),)+
        }

        impl AnyMirror {
            /// A mirror of a snapshot state taken at `from_seq`.
            pub fn new(state: AnyState, from_seq: u64) -> AnyMirror {
                match state {
                    $(AnyState::$variant(s) => {
                        AnyMirror::$variant($crate::sync::Mirror::new(s, from_seq))
                    })+
                }
            }

            /// The channel kind.
            pub fn kind(&self) -> $kind {
                match self {
                    $(AnyMirror::$variant(_) => $kind::$variant,)+
                }
            }

            /// The typed mirror, if it is of `S`'s kind.
            pub fn typed<S: $crate::sync::MirrorState<Kind = $kind>>(
                &self,
            ) -> Option<&$crate::sync::Mirror<S>> {
                let any: &dyn std::any::Any = match self {
                    $(AnyMirror::$variant(m) => m,)+
                };
                any.downcast_ref()
            }

            /// The optimistic state, cloned.
            pub fn state(&self) -> AnyState {
                match self {
                    $(AnyMirror::$variant(m) => AnyState::$variant(m.state().clone()),)+
                }
            }

            /// The confirmed state, cloned.
            pub fn confirmed(&self) -> AnyState {
                match self {
                    $(AnyMirror::$variant(m) => AnyState::$variant(m.confirmed().clone()),)+
                }
            }

            /// The optimistic state as JSON (without cloning the typed state).
            pub fn state_json(&self) -> serde_json::Value {
                match self {
                    $(AnyMirror::$variant(m) => {
                        serde_json::to_value(m.state()).unwrap_or_default()
                    })+
                }
            }

            /// Pending own actions, in dispatch order.
            pub fn pending(&self) -> Vec<&$crate::sync::PendingAction<$action>> {
                match self {
                    $(AnyMirror::$variant(m) => m.pending().collect(),)+
                }
            }

            /// How many own actions await their echo.
            pub fn pending_count(&self) -> usize {
                match self {
                    $(AnyMirror::$variant(m) => m.pending_count(),)+
                }
            }

            /// The highest `serverSeq` applied.
            pub fn last_server_seq(&self) -> u64 {
                match self {
                    $(AnyMirror::$variant(m) => m.last_server_seq(),)+
                }
            }

            /// See [`Mirror::dispatch_patched`](crate::sync::Mirror::dispatch_patched);
            /// returns the fields touched (empty for a local no-op) and how.
            pub fn dispatch(
                &mut self,
                client_seq: u64,
                action: $action,
                clock: &dyn $crate::reduce::Clock,
            ) -> ($crate::sync::ChangeSet<$kind>, $crate::sync::StatePatch) {
                match self {
                    $(AnyMirror::$variant(m) => {
                        $crate::sync::any::dispatch_any(m, client_seq, action, clock)
                    })+
                }
            }

            /// See [`Mirror::mark_sent`](crate::sync::Mirror::mark_sent).
            pub fn mark_sent(&mut self, client_seq: u64) {
                match self {
                    $(AnyMirror::$variant(m) => m.mark_sent(client_seq),)+
                }
            }

            /// See [`Mirror::pending_action`](crate::sync::Mirror::pending_action).
            pub fn pending_action(
                &self,
                client_seq: u64,
            ) -> Option<&$crate::sync::PendingAction<$action>> {
                match self {
                    $(AnyMirror::$variant(m) => m.pending_action(client_seq),)+
                }
            }

            /// See [`Mirror::apply_batch`](crate::sync::Mirror::apply_batch). Inlined into
            /// its one caller, the engine's batch (per frame on a stream; 1.0's ten kinds
            /// made it a call of its own where 0.3.0's five were inlined).
            #[inline(always)]
            pub fn apply_batch<E>(
                &mut self,
                envelopes: impl IntoIterator<Item = E>,
                client_id: &str,
                clock: &dyn $crate::reduce::Clock,
            ) -> $outcome
            where
                E: $crate::sync::BatchEnvelope<Envelope = $envelope>,
            {
                match self {
                    $(AnyMirror::$variant(m) => m
                        .apply_batch(envelopes, client_id, clock)
                        .map_changes($crate::sync::ChangeSet::of::<$state>),)+
                }
            }

            /// See [`Mirror::reset`](crate::sync::Mirror::reset). Fails (leaving the mirror
            /// untouched, handing `state` back) if `state` is of another kind.
            pub fn reset(
                &mut self,
                state: AnyState,
                from_seq: u64,
                clock: &dyn $crate::reduce::Clock,
            ) -> Result<$crate::sync::ChangeSet<$kind>, Box<AnyState>> {
                Ok(match (self, state) {
                    $((AnyMirror::$variant(m), AnyState::$variant(s)) => {
                        $crate::sync::ChangeSet::of::<$state>(m.reset(s, from_seq, clock))
                    })+
                    #[allow(unreachable_patterns)] // every kind pairs with itself above
                    (_, other) => return Err(Box::new(other)),
                })
            }

            /// See [`Mirror::drop_pending`](crate::sync::Mirror::drop_pending).
            pub fn drop_pending(
                &mut self,
                drop: impl FnMut(&$crate::sync::PendingAction<$action>) -> bool,
                clock: &dyn $crate::reduce::Clock,
            ) -> (
                Vec<$crate::sync::PendingAction<$action>>,
                $crate::sync::ChangeSet<$kind>,
            ) {
                match self {
                    $(AnyMirror::$variant(m) => {
                        let (dropped, changed) = m.drop_pending(drop, clock);
                        (dropped, $crate::sync::ChangeSet::of::<$state>(changed))
                    })+
                }
            }
        }

        impl $crate::sync::VersionMirror for AnyMirror {
            type State = AnyState;
            type Action = $action;
            type Envelope = $envelope;
            type Kind = $kind;
            fn decode_state(
                uri: &str,
                state: $crate::protocol::RawJson<'_>,
            ) -> Result<AnyState, $crate::protocol::decode::DecodeError> {
                AnyState::decode(uri, state)
            }
            fn new_mirror(state: AnyState, from_seq: u64) -> AnyMirror {
                AnyMirror::new(state, from_seq)
            }
            fn reset_to(
                &mut self,
                state: AnyState,
                from_seq: u64,
                clock: &dyn $crate::reduce::Clock,
            ) -> Result<$crate::sync::ChangeSet<$kind>, Box<AnyState>> {
                self.reset(state, from_seq, clock)
            }
            fn dispatch_own(
                &mut self,
                client_seq: u64,
                action: $action,
                clock: &dyn $crate::reduce::Clock,
            ) -> ($crate::sync::ChangeSet<$kind>, $crate::sync::StatePatch) {
                self.dispatch(client_seq, action, clock)
            }
            fn sent(&mut self, client_seq: u64) {
                self.mark_sent(client_seq)
            }
            fn pending_len(&self) -> usize {
                self.pending_count()
            }
            #[inline(always)] // see `apply_batch`
            fn apply<'a>(
                &mut self,
                envelopes: impl IntoIterator<Item = &'a mut $envelope>,
                client_id: &str,
                clock: &dyn $crate::reduce::Clock,
            ) -> $outcome {
                self.apply_batch(envelopes, client_id, clock)
            }
            fn drop_some(
                &mut self,
                drop: impl FnMut(&$crate::sync::PendingAction<$action>) -> bool,
                clock: &dyn $crate::reduce::Clock,
            ) -> (
                Vec<$crate::sync::PendingAction<$action>>,
                $crate::sync::ChangeSet<$kind>,
            ) {
                self.drop_pending(drop, clock)
            }
        }
    };
}
pub(crate) use any_channel;

/// [`AnyMirror::dispatch`] for one kind: one copy per state type, not per call site.
pub(crate) fn dispatch_any<S: MirrorState>(
    m: &mut super::Mirror<S>,
    seq: u64,
    action: S::Action,
    clock: &dyn crate::reduce::Clock,
) -> (super::ChangeSet<S::Kind>, super::StatePatch) {
    let (outcome, patch) = m.dispatch_patched(seq, action, clock);
    let changed = match outcome {
        crate::reduce::Outcome::Applied(c) => c,
        crate::reduce::Outcome::NoOp(_) => Changed::none(),
    };
    (super::ChangeSet::of::<S>(changed), patch)
}

any_channel! {
    kind: ChannelKind, action: StateAction, envelope: ActionEnvelope, outcome: AnyBatchOutcome,
    /// `ahp-root://`.
    Root(RootState),
    /// A session.
    Session(SessionState),
    /// A terminal.
    Terminal(TerminalState),
    /// A changeset.
    Changeset(ChangesetState),
    /// A resource watch.
    ResourceWatch(ResourceWatchState),
}

impl AnyState {
    /// Decodes a snapshot's `state` for the channel `uri`: by the URI's scheme when it is one of
    /// the spec's (`ahp-session:` ...), otherwise by the state's shape.
    pub fn decode(uri: &str, state: RawJson<'_>) -> Result<AnyState, DecodeError> {
        let text = state.get();
        Ok(match ChannelKind::from_uri(uri) {
            Some(ChannelKind::Root) => AnyState::Root(from_text(text)?),
            Some(ChannelKind::Session) => AnyState::Session(from_text(text)?),
            Some(ChannelKind::Terminal) => AnyState::Terminal(from_text(text)?),
            Some(ChannelKind::Changeset) => AnyState::Changeset(from_text(text)?),
            Some(ChannelKind::ResourceWatch) => AnyState::ResourceWatch(from_text(text)?),
            // By shape, in `SnapshotState`'s order.
            None => from_text(text)
                .map(AnyState::Root)
                .or_else(|_| from_text(text).map(AnyState::Session))
                .or_else(|_| from_text(text).map(AnyState::Terminal))
                .or_else(|_| from_text(text).map(AnyState::Changeset))?,
        })
    }
}
