//! [`AnyMirror`]: a [`Mirror`] of any channel kind, for code that holds many channels.

use super::{
    field_names, BatchEnvelope, BatchOutcome, ChannelKind, ChannelState, Mirror, PendingAction,
    StatePatch,
};
use crate::protocol::decode::{from_text, DecodeError};
use crate::protocol::RawJson;
use crate::protocol::{
    ChangesetState, ResourceWatchState, RootState, SessionState, StateAction, TerminalState,
};
use crate::reduce::{Changed, Clock, Outcome};
use serde::Serialize;

/// The state of a channel of any kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)] // held once per subscription
pub enum AnyState {
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

    /// The channel kind.
    pub fn kind(&self) -> ChannelKind {
        match self {
            AnyState::Root(_) => ChannelKind::Root,
            AnyState::Session(_) => ChannelKind::Session,
            AnyState::Terminal(_) => ChannelKind::Terminal,
            AnyState::Changeset(_) => ChannelKind::Changeset,
            AnyState::ResourceWatch(_) => ChannelKind::ResourceWatch,
        }
    }
}

/// A set of changed top-level fields of a channel of any kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangeSet {
    /// The channel kind the fields belong to.
    pub kind: ChannelKind,
    bits: u64,
}

impl ChangeSet {
    /// A set of `S`'s fields.
    pub fn of<S: ChannelState>(changed: Changed<S::Field>) -> ChangeSet {
        ChangeSet {
            kind: S::KIND,
            bits: changed.bits(),
        }
    }

    /// The empty set of a kind.
    pub fn empty(kind: ChannelKind) -> ChangeSet {
        ChangeSet { kind, bits: 0 }
    }

    /// Whether no field changed.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Union with another set of the same kind.
    pub fn union(self, other: ChangeSet) -> ChangeSet {
        debug_assert_eq!(self.kind, other.kind);
        ChangeSet {
            kind: self.kind,
            bits: self.bits | other.bits,
        }
    }

    /// The typed set, if this set is of `S`'s kind.
    pub fn typed<S: ChannelState>(&self) -> Option<Changed<S::Field>> {
        (self.kind == S::KIND).then(|| Changed::from_bits(self.bits))
    }

    /// The wire names of the changed fields (`["activeTurn", "summary"]`).
    pub fn names(&self) -> Vec<&'static str> {
        let bits = self.bits;
        match self.kind {
            ChannelKind::Root => field_names::<RootState>(Changed::from_bits(bits)),
            ChannelKind::Session => field_names::<SessionState>(Changed::from_bits(bits)),
            ChannelKind::Terminal => field_names::<TerminalState>(Changed::from_bits(bits)),
            ChannelKind::Changeset => field_names::<ChangesetState>(Changed::from_bits(bits)),
            ChannelKind::ResourceWatch => {
                field_names::<ResourceWatchState>(Changed::from_bits(bits))
            }
        }
    }

    /// Whether the field with this wire name changed.
    pub fn contains(&self, name: &str) -> bool {
        self.names().contains(&name)
    }
}

/// A [`BatchOutcome`] with kind-independent field sets.
pub type AnyBatchOutcome = BatchOutcome<ChangeSet>;

/// A [`Mirror`] of any channel kind.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // held once per subscription
pub enum AnyMirror {
    /// `ahp-root://`.
    Root(Mirror<RootState>),
    /// A session.
    Session(Mirror<SessionState>),
    /// A terminal.
    Terminal(Mirror<TerminalState>),
    /// A changeset.
    Changeset(Mirror<ChangesetState>),
    /// A resource watch.
    ResourceWatch(Mirror<ResourceWatchState>),
}

/// Runs `$body` with `$m` bound to the typed mirror, whatever the kind.
macro_rules! each {
    ($self:expr, $m:ident => $body:expr) => {
        match $self {
            AnyMirror::Root($m) => $body,
            AnyMirror::Session($m) => $body,
            AnyMirror::Terminal($m) => $body,
            AnyMirror::Changeset($m) => $body,
            AnyMirror::ResourceWatch($m) => $body,
        }
    };
}

fn convert<S: ChannelState>(o: BatchOutcome<Changed<S::Field>>) -> AnyBatchOutcome {
    o.map_changes(ChangeSet::of::<S>)
}

impl AnyMirror {
    /// A mirror of a snapshot state taken at `from_seq`.
    pub fn new(state: AnyState, from_seq: u64) -> AnyMirror {
        match state {
            AnyState::Root(s) => AnyMirror::Root(Mirror::new(s, from_seq)),
            AnyState::Session(s) => AnyMirror::Session(Mirror::new(s, from_seq)),
            AnyState::Terminal(s) => AnyMirror::Terminal(Mirror::new(s, from_seq)),
            AnyState::Changeset(s) => AnyMirror::Changeset(Mirror::new(s, from_seq)),
            AnyState::ResourceWatch(s) => AnyMirror::ResourceWatch(Mirror::new(s, from_seq)),
        }
    }

    /// The channel kind.
    pub fn kind(&self) -> ChannelKind {
        match self {
            AnyMirror::Root(_) => ChannelKind::Root,
            AnyMirror::Session(_) => ChannelKind::Session,
            AnyMirror::Terminal(_) => ChannelKind::Terminal,
            AnyMirror::Changeset(_) => ChannelKind::Changeset,
            AnyMirror::ResourceWatch(_) => ChannelKind::ResourceWatch,
        }
    }

    /// The typed mirror, if it is of `S`'s kind.
    pub fn typed<S: ChannelState>(&self) -> Option<&Mirror<S>> {
        let any: &dyn std::any::Any = each!(self, m => m);
        any.downcast_ref()
    }

    /// The optimistic state, cloned.
    pub fn state(&self) -> AnyState {
        match self {
            AnyMirror::Root(m) => AnyState::Root(m.state().clone()),
            AnyMirror::Session(m) => AnyState::Session(m.state().clone()),
            AnyMirror::Terminal(m) => AnyState::Terminal(m.state().clone()),
            AnyMirror::Changeset(m) => AnyState::Changeset(m.state().clone()),
            AnyMirror::ResourceWatch(m) => AnyState::ResourceWatch(m.state().clone()),
        }
    }

    /// The confirmed state, cloned.
    pub fn confirmed(&self) -> AnyState {
        match self {
            AnyMirror::Root(m) => AnyState::Root(m.confirmed().clone()),
            AnyMirror::Session(m) => AnyState::Session(m.confirmed().clone()),
            AnyMirror::Terminal(m) => AnyState::Terminal(m.confirmed().clone()),
            AnyMirror::Changeset(m) => AnyState::Changeset(m.confirmed().clone()),
            AnyMirror::ResourceWatch(m) => AnyState::ResourceWatch(m.confirmed().clone()),
        }
    }

    /// The optimistic state as JSON (without cloning the typed state).
    pub fn state_json(&self) -> serde_json::Value {
        each!(self, m => serde_json::to_value(m.state()).unwrap_or_default())
    }

    /// Pending own actions, in dispatch order.
    pub fn pending(&self) -> Vec<&PendingAction> {
        each!(self, m => m.pending().collect())
    }

    /// How many own actions await their echo.
    pub fn pending_count(&self) -> usize {
        each!(self, m => m.pending_count())
    }

    /// The highest `serverSeq` applied.
    pub fn last_server_seq(&self) -> u64 {
        each!(self, m => m.last_server_seq())
    }

    /// See [`Mirror::dispatch_patched`]; returns the fields touched (empty for a local no-op)
    /// and how.
    pub fn dispatch(
        &mut self,
        client_seq: u64,
        action: StateAction,
        clock: &dyn Clock,
    ) -> (ChangeSet, StatePatch) {
        fn go<S: ChannelState>(
            m: &mut Mirror<S>,
            seq: u64,
            action: StateAction,
            clock: &dyn Clock,
        ) -> (ChangeSet, StatePatch) {
            let (outcome, patch) = m.dispatch_patched(seq, action, clock);
            let changed = match outcome {
                Outcome::Applied(c) => c,
                Outcome::NoOp(_) => Changed::none(),
            };
            (ChangeSet::of::<S>(changed), patch)
        }
        each!(self, m => go(m, client_seq, action, clock))
    }

    /// See [`Mirror::mark_sent`].
    pub fn mark_sent(&mut self, client_seq: u64) {
        each!(self, m => m.mark_sent(client_seq))
    }

    /// See [`Mirror::pending_action`].
    pub fn pending_action(&self, client_seq: u64) -> Option<&PendingAction> {
        each!(self, m => m.pending_action(client_seq))
    }

    /// See [`Mirror::apply_batch`].
    pub fn apply_batch<E: BatchEnvelope>(
        &mut self,
        envelopes: impl IntoIterator<Item = E>,
        client_id: &str,
        clock: &dyn Clock,
    ) -> AnyBatchOutcome {
        fn go<S: ChannelState, E: BatchEnvelope>(
            m: &mut Mirror<S>,
            envelopes: impl IntoIterator<Item = E>,
            client_id: &str,
            clock: &dyn Clock,
        ) -> AnyBatchOutcome {
            convert::<S>(m.apply_batch(envelopes, client_id, clock))
        }
        each!(self, m => go(m, envelopes, client_id, clock))
    }

    /// See [`Mirror::reset`]. Fails (leaving the mirror untouched, handing `state` back) if
    /// `state` is of another kind.
    pub fn reset(
        &mut self,
        state: AnyState,
        from_seq: u64,
        clock: &dyn Clock,
    ) -> Result<ChangeSet, Box<AnyState>> {
        Ok(match (self, state) {
            (AnyMirror::Root(m), AnyState::Root(s)) => {
                ChangeSet::of::<RootState>(m.reset(s, from_seq, clock))
            }
            (AnyMirror::Session(m), AnyState::Session(s)) => {
                ChangeSet::of::<SessionState>(m.reset(s, from_seq, clock))
            }
            (AnyMirror::Terminal(m), AnyState::Terminal(s)) => {
                ChangeSet::of::<TerminalState>(m.reset(s, from_seq, clock))
            }
            (AnyMirror::Changeset(m), AnyState::Changeset(s)) => {
                ChangeSet::of::<ChangesetState>(m.reset(s, from_seq, clock))
            }
            (AnyMirror::ResourceWatch(m), AnyState::ResourceWatch(s)) => {
                ChangeSet::of::<ResourceWatchState>(m.reset(s, from_seq, clock))
            }
            (_, other) => return Err(Box::new(other)),
        })
    }

    /// See [`Mirror::drop_pending`].
    pub fn drop_pending(
        &mut self,
        drop: impl FnMut(&PendingAction) -> bool,
        clock: &dyn Clock,
    ) -> (Vec<PendingAction>, ChangeSet) {
        fn go<S: ChannelState>(
            m: &mut Mirror<S>,
            drop: impl FnMut(&PendingAction) -> bool,
            clock: &dyn Clock,
        ) -> (Vec<PendingAction>, ChangeSet) {
            let (dropped, changed) = m.drop_pending(drop, clock);
            (dropped, ChangeSet::of::<S>(changed))
        }
        each!(self, m => go(m, drop, clock))
    }
}
