//! [`Mirror`]: one channel's confirmed state, pending actions and optimistic state.

use super::{all_fields, Envelope, MirrorState, PatchBuilder, StatePatch};
use crate::protocol::StateAction;
use crate::reduce::{Changed, Clock, Outcome};
use std::collections::VecDeque;

/// An action dispatched by this client and not yet echoed by the server. `A` is the protocol
/// version's action union (0.3.0's by default).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingAction<A = StateAction> {
    /// The `clientSeq` it was dispatched with.
    pub client_seq: u64,
    /// The action.
    pub action: A,
    /// Whether it was handed to a transport (a connection may have carried it to the server).
    pub sent: bool,
    /// Fields it touched when last applied to the optimistic state (as a raw bit set).
    effect: u64,
}

/// An envelope given to [`Mirror::apply_batch`]: borrowed, or mutably borrowed so that the
/// action of a rejected echo can be moved into its [`Rejection`] instead of cloned (the engine
/// does that: no copy of `StateAction`'s `Clone` in the wasm module for it).
pub trait BatchEnvelope {
    /// The protocol version's envelope.
    type Envelope: Envelope;
    /// The envelope.
    fn envelope(&self) -> &Self::Envelope;
    /// Its action, for a rejection: a clone, or moved out of a mutable borrow (an unknown
    /// action with no members is left behind).
    fn take_action(self) -> <Self::Envelope as Envelope>::Action;
}

impl<E: Envelope> BatchEnvelope for &E
where
    E::Action: Clone,
{
    type Envelope = E;
    fn envelope(&self) -> &E {
        self
    }
    fn take_action(self) -> E::Action {
        self.action().clone()
    }
}

impl<E: Envelope> BatchEnvelope for &mut E {
    type Envelope = E;
    fn envelope(&self) -> &E {
        self
    }
    fn take_action(self) -> E::Action {
        Envelope::take_action(self)
    }
}

/// An own action the server rejected (`rejectionReason` on its echo).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection<A = StateAction> {
    /// The `clientSeq` of the action.
    pub client_seq: u64,
    /// The action, as dispatched (or as echoed, if it was no longer pending).
    pub action: A,
    /// The server's reason.
    pub reason: String,
}

/// A detected disagreement with the server that the mirror cannot repair by itself: the
/// caller should fetch a fresh snapshot (re-subscribe) and [`Mirror::reset`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Divergence {
    /// The server echoed, as ours, a `clientSeq` this channel never dispatched (another
    /// client using our `clientId`, or a server bug).
    UnknownClientSeq(u64),
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Divergence::UnknownClientSeq(seq) => write!(
                f,
                "the server echoed clientSeq {seq} as ours, but this channel never dispatched it"
            ),
        }
    }
}

/// What [`Mirror::apply_batch`] did. `C` is the set of changed fields: `Changed<Field>` for a
/// typed mirror, a kind-independent `ChangeSet` for an `AnyMirror`; `A` the protocol
/// version's action union.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchOutcome<C, A = StateAction> {
    /// Top-level fields of the optimistic [`Mirror::state`] that may differ from before the
    /// batch (a superset: fields outside it are unchanged). Empty: nothing to re-render.
    pub changed: C,
    /// Top-level fields of [`Mirror::confirmed`] the batch changed.
    pub confirmed_changed: C,
    /// Envelopes applied (own or foreign, not rejected, not duplicates).
    pub applied: usize,
    /// Envelopes ignored because their `serverSeq` was not above the last one seen.
    pub duplicates: usize,
    /// `clientSeq`s of own actions the server applied.
    pub resolved: Vec<u64>,
    /// Own actions the server rejected.
    pub rejected: Vec<Rejection<A>>,
    /// Own actions dropped by the watermark: the server echoed a later `clientSeq` of ours
    /// on this channel first, so it never applied these.
    pub skipped: Vec<PendingAction<A>>,
    /// Set when the mirror can no longer be trusted; see [`Divergence`].
    pub divergence: Option<Divergence>,
    /// How the optimistic state changed: fine steps while it moved by plain application of
    /// the batch's actions, else the `changed` fields whole.
    pub patch: StatePatch,
}

impl<C: Default, A> Default for BatchOutcome<C, A> {
    fn default() -> Self {
        BatchOutcome {
            changed: C::default(),
            confirmed_changed: C::default(),
            applied: 0,
            duplicates: 0,
            resolved: Vec::new(),
            rejected: Vec::new(),
            skipped: Vec::new(),
            divergence: None,
            patch: StatePatch::default(),
        }
    }
}

impl<C, A> BatchOutcome<C, A> {
    /// The same outcome with its field sets converted by `f`.
    pub fn map_changes<D>(self, f: impl Fn(C) -> D) -> BatchOutcome<D, A> {
        BatchOutcome {
            changed: f(self.changed),
            confirmed_changed: f(self.confirmed_changed),
            applied: self.applied,
            duplicates: self.duplicates,
            resolved: self.resolved,
            rejected: self.rejected,
            skipped: self.skipped,
            divergence: self.divergence,
            patch: self.patch,
        }
    }
}

/// One channel's state as this client sees it.
///
/// `state()` is `confirmed()` with the pending actions replayed on top. While nothing is
/// pending the mirror keeps a single copy of the state (`state()` *is* `confirmed()`); it forks
/// an optimistic copy on the first dispatch and drops it when the last pending action resolves.
/// A batch of envelopes replays pending actions at most once, and not at all when the batch
/// only confirms pending actions in order (the optimistic state is then already right).
#[derive(Debug, Clone)]
pub struct Mirror<S: MirrorState> {
    confirmed: S,
    optimistic: Option<S>,
    pending: VecDeque<PendingAction<S::Action>>,
    last_server_seq: u64,
    /// Highest own `clientSeq` resolved (applied, rejected or skipped) on this channel.
    watermark: u64,
}

impl<S: MirrorState> Mirror<S> {
    /// A mirror of a snapshot taken at `from_seq`.
    pub fn new(state: S, from_seq: u64) -> Self {
        Mirror {
            confirmed: state,
            optimistic: None,
            pending: VecDeque::new(),
            last_server_seq: from_seq,
            watermark: 0,
        }
    }

    /// The optimistic state: what the UI renders.
    pub fn state(&self) -> &S {
        self.optimistic.as_ref().unwrap_or(&self.confirmed)
    }

    /// The last server-acknowledged state.
    pub fn confirmed(&self) -> &S {
        &self.confirmed
    }

    /// Whether the mirror holds a separate optimistic copy (only while actions are pending).
    pub fn is_forked(&self) -> bool {
        self.optimistic.is_some()
    }

    /// Own actions not yet echoed, in dispatch order.
    pub fn pending(&self) -> impl ExactSizeIterator<Item = &PendingAction<S::Action>> {
        self.pending.iter()
    }

    /// How many own actions await their echo.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// The highest `serverSeq` applied (or the snapshot's `fromSeq`).
    pub fn last_server_seq(&self) -> u64 {
        self.last_server_seq
    }

    /// Applies an own action optimistically and queues it until its echo. `client_seq` must be
    /// greater than every pending one. Returns what the reducer did to the optimistic state
    /// (a local no-op is still queued: the server decides).
    pub fn dispatch(
        &mut self,
        client_seq: u64,
        action: S::Action,
        clock: &dyn Clock,
    ) -> Outcome<S::Field> {
        self.dispatch_patched(client_seq, action, clock).0
    }

    /// [`Mirror::dispatch`], also saying how the optimistic state changed.
    pub fn dispatch_patched(
        &mut self,
        client_seq: u64,
        action: S::Action,
        clock: &dyn Clock,
    ) -> (Outcome<S::Field>, StatePatch) {
        debug_assert!(self
            .pending
            .back()
            .is_none_or(|p| p.client_seq < client_seq));
        let optimistic = self
            .optimistic
            .get_or_insert_with(|| self.confirmed.clone());
        let before = optimistic.probe();
        let outcome = optimistic.reduce(&action, clock);
        let mut patch = PatchBuilder::default();
        if let Outcome::Applied(changed) = outcome {
            optimistic.describe(before, &action, changed, &mut patch);
        }
        self.pending.push_back(PendingAction {
            client_seq,
            action,
            sent: false,
            effect: effect_bits(outcome),
        });
        (outcome, patch.finish())
    }

    /// Marks the pending action `client_seq` as handed to a transport.
    pub fn mark_sent(&mut self, client_seq: u64) {
        if let Some(i) = self.pending_index(client_seq) {
            self.pending[i].sent = true;
        }
    }

    /// The pending action dispatched with `client_seq`, if it still awaits its echo.
    pub fn pending_action(&self, client_seq: u64) -> Option<&PendingAction<S::Action>> {
        self.pending_index(client_seq).map(|i| &self.pending[i])
    }

    /// Pending actions are queued in increasing `clientSeq` order, so a lookup is a binary
    /// search, not a scan (a burst of dispatches must not cost O(pending²)).
    fn pending_index(&self, client_seq: u64) -> Option<usize> {
        self.pending
            .binary_search_by_key(&client_seq, |p| p.client_seq)
            .ok()
    }

    /// Applies server envelopes for this channel, in order, and reconciles pending actions;
    /// `client_id` tells own echoes from foreign actions.
    ///
    /// - `serverSeq` must increase: an envelope at or below the last one seen is a duplicate
    ///   and is ignored.
    /// - Own echo (`origin.clientId == client_id`): pending actions up to and including its
    ///   `clientSeq` leave the queue (earlier ones are reported as `skipped`); if applied it
    ///   goes to `confirmed`, if rejected it is reported in `rejected`.
    /// - Foreign action (or an own one already resolved): applied to `confirmed`; pending
    ///   actions are then replayed, once, at the end of the batch.
    /// - A rejected envelope never touches `confirmed`.
    pub fn apply_batch<E: BatchEnvelope<Envelope = S::Envelope>>(
        &mut self,
        envelopes: impl IntoIterator<Item = E>,
        client_id: &str,
        clock: &dyn Clock,
    ) -> BatchOutcome<Changed<S::Field>, S::Action> {
        let mut out = BatchOutcome::default();
        let start_effects = self.pending.iter().fold(0, |bits, p| bits | p.effect);
        let had_optimistic = self.optimistic.is_some();
        // Each confirmed step is described on the confirmed state. That is exact for every
        // field no pending action touches (there the optimistic state equals the confirmed
        // one); the fields pending actions touch, before or after the replay, are taken whole
        // below, which drops the fine steps inside them.
        let mut patch = PatchBuilder::default();
        let mut needs_replay = false;
        for item in envelopes {
            let envelope = item.envelope();
            let books = Books {
                pending: &mut self.pending,
                watermark: &mut self.watermark,
                last_server_seq: &mut self.last_server_seq,
            };
            let records = Records {
                duplicates: &mut out.duplicates,
                skipped: &mut out.skipped,
                rejected: &mut out.rejected,
                divergence: &mut out.divergence,
            };
            match classify(books, records, envelope, client_id) {
                Step::Skip => {}
                Step::Replay => needs_replay = true,
                Step::ApplyOwn(seq, replay) => {
                    needs_replay |= replay;
                    self.apply_confirmed(envelope.action(), clock, &mut out, &mut patch);
                    out.resolved.push(seq);
                }
                Step::RejectTaken(seq, reason) => out.rejected.push(Rejection {
                    client_seq: seq,
                    action: item.take_action(),
                    reason,
                }),
                Step::Apply => {
                    // Foreign (or an own action no longer pending): the server applied it.
                    if self.apply_confirmed(envelope.action(), clock, &mut out, &mut patch)
                        && !self.pending.is_empty()
                    {
                        needs_replay = true;
                    }
                }
            }
        }
        let whole = if self.pending.is_empty() {
            if had_optimistic {
                self.optimistic = None;
                out.changed = out.confirmed_changed.union(from_bits(start_effects));
            } else {
                out.changed = out.confirmed_changed;
            }
            start_effects
        } else if needs_replay {
            let stale = start_effects | out.confirmed_changed.bits();
            let replayed = self.replay(stale, clock);
            out.changed = out
                .confirmed_changed
                .union(from_bits(start_effects | replayed));
            start_effects | replayed
        } else {
            // Only own echoes, in order: the optimistic state already showed them.
            return out;
        };
        if whole != 0 {
            for name in super::field_names::<S>(from_bits(whole)) {
                patch.field(name);
            }
        }
        out.patch = patch.finish();
        out
    }

    /// Replaces the confirmed state with a fresh snapshot taken at `from_seq`, keeping the
    /// pending actions (the server has not applied them yet) and replaying them on top.
    /// Reports every field as changed.
    pub fn reset(&mut self, state: S, from_seq: u64, clock: &dyn Clock) -> Changed<S::Field> {
        self.confirmed = state;
        self.last_server_seq = from_seq;
        // Rebuilt from the new snapshot whole (its unknown top-level members too).
        self.optimistic = None;
        if !self.pending.is_empty() {
            self.replay(all_fields::<S>().bits(), clock);
        }
        all_fields::<S>()
    }

    /// Removes the pending actions `drop` selects (e.g. those a dropped connection may have
    /// delivered) and rebuilds the optimistic state. Returns them and the fields that may
    /// have changed.
    pub fn drop_pending(
        &mut self,
        mut drop: impl FnMut(&PendingAction<S::Action>) -> bool,
        clock: &dyn Clock,
    ) -> (Vec<PendingAction<S::Action>>, Changed<S::Field>) {
        let (dropped, mut bits) = take_pending(&mut self.pending, &mut self.watermark, &mut drop);
        if dropped.is_empty() {
            return (dropped, Changed::none());
        }
        if self.pending.is_empty() {
            self.optimistic = None;
        } else {
            bits |= self.replay(bits, clock);
        }
        (dropped, from_bits(bits))
    }

    /// `confirmed` with every pending action replayed, computed afresh (for checks and tests:
    /// it always equals [`Mirror::state`] under a deterministic clock).
    pub fn recompute(&self, clock: &dyn Clock) -> S {
        let mut state = self.confirmed.clone();
        for p in &self.pending {
            state.reduce(&p.action, clock);
        }
        state
    }

    fn apply_confirmed(
        &mut self,
        action: &S::Action,
        clock: &dyn Clock,
        out: &mut BatchOutcome<Changed<S::Field>, S::Action>,
        patch: &mut PatchBuilder,
    ) -> bool {
        out.applied += 1;
        let before = self.confirmed.probe();
        match self.confirmed.reduce(action, clock) {
            Outcome::Applied(changed) => {
                out.confirmed_changed = out.confirmed_changed.union(changed);
                self.confirmed.describe(before, action, changed, patch);
                true
            }
            Outcome::NoOp(_) => false,
        }
    }

    /// Rebuilds the optimistic state as `confirmed` + pending; returns the fields touched.
    ///
    /// `stale` holds every field in which the optimistic copy may differ from `confirmed`
    /// (the pending actions' effects, the confirmed changes since the last replay): only those
    /// are copied from `confirmed`, so the cost follows what changed, not the state's size.
    fn replay(&mut self, stale: u64, clock: &dyn Clock) -> u64 {
        let state = match self.optimistic.as_mut() {
            Some(state) => {
                state.clone_fields_from(&self.confirmed, from_bits(stale));
                state
            }
            None => self.optimistic.insert(self.confirmed.clone()),
        };
        let mut bits = 0;
        for p in &mut self.pending {
            p.effect = effect_bits(state.reduce(&p.action, clock));
            bits |= p.effect;
        }
        bits
    }
}

/// A mirror's bookkeeping, borrowed for [`classify`].
struct Books<'a, A> {
    pending: &'a mut VecDeque<PendingAction<A>>,
    watermark: &'a mut u64,
    last_server_seq: &'a mut u64,
}

/// The parts of a [`BatchOutcome`] that [`classify`] writes (the ones not about fields).
struct Records<'a, A> {
    duplicates: &'a mut usize,
    skipped: &'a mut Vec<PendingAction<A>>,
    rejected: &'a mut Vec<Rejection<A>>,
    divergence: &'a mut Option<Divergence>,
}

/// What [`Mirror::apply_batch`] does with one envelope.
enum Step {
    /// Nothing (a duplicate, a rejected foreign action); reported in the outcome already.
    Skip,
    /// Nothing, but pending actions must be replayed (an own rejection).
    Replay,
    /// Apply it to the confirmed state: the server applied own action `.0` (`.1`: earlier
    /// pending actions were skipped, so replay).
    ApplyOwn(u64, bool),
    /// An own action no longer pending, rejected: report it with its action.
    RejectTaken(u64, String),
    /// Apply it to the confirmed state (foreign, or own and no longer pending).
    Apply,
}

/// The bookkeeping of one envelope, apart from the state (one copy in the module, not one
/// per kind of state, one per protocol version): duplicates, own echoes against the pending
/// queue (skipped ones are moved out, a rejected one reported), the watermark, divergence.
#[inline(never)]
fn classify<E: Envelope>(
    books: Books<'_, E::Action>,
    out: Records<'_, E::Action>,
    envelope: &E,
    client_id: &str,
) -> Step {
    let Books {
        pending,
        watermark,
        last_server_seq,
    } = books;
    let server_seq = envelope.server_seq();
    if server_seq <= *last_server_seq {
        *out.duplicates += 1;
        return Step::Skip;
    }
    *last_server_seq = server_seq;
    let own_seq = envelope
        .origin()
        .filter(|(id, _)| crate::words::same(id, client_id))
        .map(|(_, seq)| seq);
    let Some(seq) = own_seq else {
        return match envelope.rejection_reason() {
            Some(_) => Step::Skip,
            None => Step::Apply,
        };
    };
    if let Some(index) = pending.iter().position(|p| p.client_seq == seq) {
        out.skipped.extend(pending.drain(..index));
        let own = pending.pop_front().expect("position is in range");
        *watermark = (*watermark).max(seq);
        return match envelope.rejection_reason() {
            Some(reason) => {
                out.rejected.push(Rejection {
                    client_seq: seq,
                    action: own.action,
                    reason: reason.clone(),
                });
                Step::Replay
            }
            None => Step::ApplyOwn(seq, index > 0),
        };
    }
    if seq > *watermark {
        *out.divergence = Some(Divergence::UnknownClientSeq(seq));
    }
    match envelope.rejection_reason() {
        Some(reason) => Step::RejectTaken(seq, reason.clone()),
        None => Step::Apply,
    }
}

/// Moves the pending actions `drop` selects out of the queue (not cloned: they go to the
/// caller), raising the watermark past them. Returns them and the fields the dropped and the
/// kept ones touched (empty when none is dropped).
#[inline(never)]
fn take_pending<A>(
    pending: &mut VecDeque<PendingAction<A>>,
    watermark: &mut u64,
    drop: &mut dyn FnMut(&PendingAction<A>) -> bool,
) -> (Vec<PendingAction<A>>, u64) {
    let mut dropped = Vec::new();
    let mut kept = VecDeque::with_capacity(pending.len());
    for p in std::mem::take(pending) {
        if drop(&p) {
            dropped.push(p);
        } else {
            kept.push_back(p);
        }
    }
    *pending = kept;
    if dropped.is_empty() {
        return (dropped, 0);
    }
    let mut bits = dropped.iter().fold(0, |b, p| b | p.effect);
    bits |= pending.iter().fold(0, |b, p| b | p.effect);
    if let Some(max) = dropped.iter().map(|p| p.client_seq).max() {
        *watermark = (*watermark).max(max);
    }
    (dropped, bits)
}

fn effect_bits<F: Copy + Into<u8>>(outcome: Outcome<F>) -> u64 {
    match outcome {
        Outcome::Applied(changed) => to_bits(changed),
        Outcome::NoOp(_) => 0,
    }
}

fn to_bits<F>(changed: Changed<F>) -> u64 {
    changed.bits()
}

fn from_bits<F>(bits: u64) -> Changed<F> {
    Changed::from_bits(bits)
}
