//! What the engine does with mirrors, written once for both protocol versions: optimistic
//! dispatch, snapshots, batches of envelopes, pending actions dropped. A [`Version`] names the
//! version's mirror type ([`VersionMirror`]), where its mirrors are in the channel table, and
//! how its channel events are reported (0.3.0's as [`Event`]'s own variants, 1.0's in
//! `Event::ChannelV1`).

use super::channels::Channels;
use super::events::Event;
use super::{dispatch_frame, ConnectionState, DropReason, Engine};
use crate::client::Error;
use crate::protocol::decode::decode_object;
use crate::protocol::encode::Encode;
use crate::protocol::tagged::TaggedUnion;
use crate::protocol::RawJsonBuf;
use crate::reduce::FixedClock;
use crate::sync::{ChangeSet, Envelope, PendingAction, Rejection, StatePatch, VersionMirror};
use litemap::LiteMap;

/// A snapshot whose state is decoded later, by the channel's kind.
#[derive(Debug)]
pub(super) struct RawSnapshot {
    pub resource: String,
    pub state: RawJsonBuf,
    pub from_seq: u64,
}

decode_object!(RawSnapshot {
    resource: "resource",
    state: "state",
    from_seq: "fromSeq",
});

/// The action union of version `V`.
pub(super) type ActionOf<V> = <<V as Version>::Mirror as VersionMirror>::Action;
/// The channel kinds of version `V`.
type KindOf<V> = <<V as Version>::Mirror as VersionMirror>::Kind;
/// The action envelope of version `V`.
pub(super) type EnvelopeOf<V> = <<V as Version>::Mirror as VersionMirror>::Envelope;

/// A protocol version, as the engine drives its mirrors.
pub(super) trait Version {
    /// The version's `AnyMirror`.
    type Mirror: VersionMirror<Action: Encode + TaggedUnion>;
    /// One change of a `resourceWatch/changed` action, as its event carries it.
    type Change;
    /// The version string (`"1.0.0"`).
    const PROTOCOL_VERSION: &'static str;
    /// The table's mirrors, if it holds this version's.
    fn mirrors(channels: &mut Channels) -> Option<&mut LiteMap<String, Self::Mirror>>;
    /// The changes a `resourceWatch/changed` action carries, added to `into`.
    fn collect_changes(action: &ActionOf<Self>, into: &mut Vec<Self::Change>);
    /// The event of a channel's changed state.
    fn changed(
        channel: String,
        changed: ChangeSet<KindOf<Self>>,
        confirmed_changed: ChangeSet<KindOf<Self>>,
        pending: usize,
        patch: StatePatch,
    ) -> Event;
    /// The event of an own action the server rejected.
    fn rejected(channel: String, rejection: Rejection<ActionOf<Self>>) -> Event;
    /// The event of own actions dropped without an echo.
    fn dropped(
        channel: String,
        actions: Vec<PendingAction<ActionOf<Self>>>,
        reason: DropReason,
    ) -> Event;
    /// The event of a watch's changes.
    fn resource_changes(channel: String, changes: Vec<Self::Change>) -> Event;
}

impl Engine {
    /// Dispatches an own action of version `V` (see [`Engine::dispatch`]).
    pub(super) fn dispatch_in<V: Version>(
        &mut self,
        channel: &str,
        action: ActionOf<V>,
        now: f64,
    ) -> Result<u64, Error> {
        self.check_dispatch(channel, V::PROTOCOL_VERSION, action.variant_tag())?;
        let seq = self.next_client_seq;
        // Built once: its size is checked against the server's limit, then it is what is sent.
        let frame = dispatch_frame(channel, seq, &action);
        self.check_frame_size("dispatchAction", || frame.len())?;
        let connected = self.state == ConnectionState::Connected;
        let not_subscribed = || Error::NotSubscribed {
            channel: channel.to_string(),
        };
        let mirrors = V::mirrors(&mut self.channels).ok_or_else(not_subscribed)?;
        let mirror = mirrors.get_mut(channel).ok_or_else(not_subscribed)?;
        self.next_client_seq += 1;
        let (changed, patch) = mirror.dispatch_own(seq, action, &FixedClock(now));
        let pending = mirror.pending_len();
        if connected {
            mirror.sent(seq);
            self.outgoing.push_back(frame);
        }
        let confirmed_changed = ChangeSet::empty(changed.kind);
        let event = V::changed(channel.into(), changed, confirmed_changed, pending, patch);
        self.events.push_back(event);
        Ok(seq)
    }

    /// Creates the channel's mirror from a snapshot, or resets it (keeping pending actions).
    pub(super) fn install_snapshot_in<V: Version>(
        &mut self,
        channel: &str,
        snapshot: RawSnapshot,
        now: f64,
    ) -> Result<(), String> {
        let state = V::Mirror::decode_state(channel, snapshot.state.as_raw())
            .map_err(|e| format!("snapshot of `{}`: {e}", snapshot.resource))?;
        self.last_seen_server_seq = self.last_seen_server_seq.max(snapshot.from_seq);
        self.stateless.remove(channel);
        let Some(mirrors) = V::mirrors(&mut self.channels) else {
            return Err(format!("not a {} connection", V::PROTOCOL_VERSION));
        };
        let reset = match mirrors.get_mut(channel) {
            Some(mirror) => mirror
                .reset_to(state, snapshot.from_seq, &FixedClock(now))
                .map(|changed| (changed, mirror.pending_len())),
            None => Err(Box::new(state)),
        };
        match reset {
            Ok((changed, pending)) => {
                let patch = StatePatch::fields(changed.names());
                let event = V::changed(channel.into(), changed, changed, pending, patch);
                self.events.push_back(event);
            }
            Err(state) => {
                // New channel (or its kind changed, which only a broken server does).
                let old = mirrors.remove(channel);
                mirrors.insert(
                    channel.to_string(),
                    V::Mirror::new_mirror(*state, snapshot.from_seq),
                );
                if let Some(old) = old {
                    self.report_dropped_in::<V>(channel, old, DropReason::ChannelLost, now);
                }
                self.events.push_back(Event::Subscribed {
                    channel: channel.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Applies and empties a batch of envelopes, per channel (channels in order of first
    /// appearance). The envelopes go to the mirrors mutably borrowed, so a rejected action is
    /// moved into its report, not cloned.
    pub(super) fn flush_envelopes_in<V: Version>(
        &mut self,
        envelopes: &mut [EnvelopeOf<V>],
        now: f64,
    ) {
        for i in 0..envelopes.len() {
            let (before, rest) = envelopes.split_at_mut(i);
            let (first, after) = rest.split_first_mut().expect("i < len");
            let same = |e: &EnvelopeOf<V>, channel: &str| crate::words::same(e.channel(), channel);
            if before.iter().any(|e| same(e, first.channel())) {
                continue; // applied with its channel's first envelope
            }
            // The channel name is lent out of the first envelope while all of the channel's
            // envelopes are borrowed (no copy), and put back after.
            let channel = std::mem::take(first.channel_mut());
            let of_channel =
                std::iter::once(&mut *first).chain(after.iter_mut().filter(|e| same(e, &channel)));
            self.apply_envelopes_in::<V>(&channel, of_channel, now);
            *first.channel_mut() = channel;
        }
    }

    /// Applies one channel's envelopes of a batch to its mirror, if it has one.
    fn apply_envelopes_in<'a, V: Version>(
        &mut self,
        channel: &str,
        envelopes: impl IntoIterator<Item = &'a mut EnvelopeOf<V>>,
        now: f64,
    ) where
        EnvelopeOf<V>: 'a,
    {
        let Some(mirror) = V::mirrors(&mut self.channels).and_then(|m| m.get_mut(channel)) else {
            return;
        };
        let mut changes = Vec::new();
        let envelopes = envelopes
            .into_iter()
            .inspect(|e| V::collect_changes(e.action(), &mut changes));
        let out = mirror.apply(envelopes, &self.config.client_id, &FixedClock(now));
        let pending = mirror.pending_len();
        if !changes.is_empty() {
            let event = V::resource_changes(channel.into(), changes);
            self.events.push_back(event);
        }
        if !out.changed.is_empty() || !out.confirmed_changed.is_empty() {
            let event = V::changed(
                channel.into(),
                out.changed,
                out.confirmed_changed,
                pending,
                out.patch,
            );
            self.events.push_back(event);
        }
        for rejection in out.rejected {
            self.events
                .push_back(V::rejected(channel.into(), rejection));
        }
        if !out.skipped.is_empty() {
            let event = V::dropped(channel.into(), out.skipped, DropReason::Skipped);
            self.events.push_back(event);
        }
        if let Some(divergence) = out.divergence {
            self.events.push_back(Event::Resync {
                channel: channel.to_string(),
                reason: divergence.to_string(),
            });
            self.resync(channel, now);
        }
    }

    /// Removes a channel's mirror, reporting its pending actions dropped; whether it had one.
    pub(super) fn remove_mirror_in<V: Version>(
        &mut self,
        channel: &str,
        reason: DropReason,
        now: f64,
    ) -> bool {
        let Some(mirror) = V::mirrors(&mut self.channels).and_then(|m| m.remove(channel)) else {
            return false;
        };
        self.report_dropped_in::<V>(channel, mirror, reason, now);
        true
    }

    /// Reports the pending actions of a removed mirror as dropped.
    fn report_dropped_in<V: Version>(
        &mut self,
        channel: &str,
        mut mirror: V::Mirror,
        reason: DropReason,
        now: f64,
    ) {
        let (actions, _) = mirror.drop_some(|_| true, &FixedClock(now));
        if !actions.is_empty() {
            self.events
                .push_back(V::dropped(channel.into(), actions, reason));
        }
    }

    /// Drops the pending actions a dropped connection carried, channel by channel.
    pub(super) fn drop_in_flight_in<V: Version>(&mut self, reason: DropReason, now: f64) {
        let Some(mirrors) = V::mirrors(&mut self.channels) else {
            return;
        };
        for (channel, mirror) in mirrors.iter_mut() {
            let (actions, changed) = mirror.drop_some(|p| p.sent, &FixedClock(now));
            if actions.is_empty() {
                continue;
            }
            let patch = StatePatch::fields(changed.names());
            let confirmed_changed = ChangeSet::empty(changed.kind);
            let pending = mirror.pending_len();
            self.events.push_back(V::changed(
                channel.clone(),
                changed,
                confirmed_changed,
                pending,
                patch,
            ));
            self.events
                .push_back(V::dropped(channel.clone(), actions, reason));
        }
    }
}

/// AHP 0.3.0: channel events as [`Event`]'s own variants.
pub(super) struct V0_3;

impl Version for V0_3 {
    type Mirror = crate::sync::AnyMirror;
    type Change = crate::protocol::ResourceChange;
    const PROTOCOL_VERSION: &'static str = crate::protocol::PROTOCOL_VERSION;

    fn mirrors(channels: &mut Channels) -> Option<&mut LiteMap<String, Self::Mirror>> {
        channels.v0_3_mut()
    }

    fn collect_changes(action: &crate::protocol::StateAction, into: &mut Vec<Self::Change>) {
        if let crate::protocol::StateAction::ResourceWatchChanged(a) = action {
            into.extend(a.changes.items.iter().cloned());
        }
    }

    fn changed(
        channel: String,
        changed: ChangeSet,
        confirmed_changed: ChangeSet,
        pending: usize,
        patch: StatePatch,
    ) -> Event {
        Event::ChannelChanged {
            channel,
            changed,
            confirmed_changed,
            pending,
            patch,
        }
    }

    fn rejected(channel: String, rejection: Rejection) -> Event {
        Event::Rejected { channel, rejection }
    }

    fn dropped(channel: String, actions: Vec<PendingAction>, reason: DropReason) -> Event {
        Event::PendingDropped {
            channel,
            actions,
            reason,
        }
    }

    fn resource_changes(channel: String, changes: Vec<Self::Change>) -> Event {
        Event::ResourceChanges { channel, changes }
    }
}

/// AHP 1.0: channel events in `Event::ChannelV1`.
#[cfg(feature = "v1")]
pub(super) struct V1;

#[cfg(feature = "v1")]
impl Version for V1 {
    type Mirror = crate::sync::v1::AnyMirror;
    type Change = crate::protocol::JsonValue;
    const PROTOCOL_VERSION: &'static str = crate::protocol::v1::PROTOCOL_VERSION;

    fn mirrors(channels: &mut Channels) -> Option<&mut LiteMap<String, Self::Mirror>> {
        channels.v1_mut()
    }

    fn collect_changes(action: &crate::protocol::v1::StateAction, into: &mut Vec<Self::Change>) {
        if let crate::protocol::v1::StateAction::ResourceWatchChanged(a) = action {
            into.push(a.changes.clone());
        }
    }

    fn changed(
        channel: String,
        changed: ChangeSet<crate::sync::v1::ChannelKind>,
        confirmed_changed: ChangeSet<crate::sync::v1::ChannelKind>,
        pending: usize,
        patch: StatePatch,
    ) -> Event {
        v1_event(ChannelEventV1::Changed {
            channel,
            changed,
            confirmed_changed,
            pending,
            patch,
        })
    }

    fn rejected(channel: String, rejection: Rejection<crate::protocol::v1::StateAction>) -> Event {
        v1_event(ChannelEventV1::Rejected { channel, rejection })
    }

    fn dropped(
        channel: String,
        actions: Vec<PendingAction<crate::protocol::v1::StateAction>>,
        reason: DropReason,
    ) -> Event {
        v1_event(ChannelEventV1::PendingDropped {
            channel,
            actions,
            reason,
        })
    }

    fn resource_changes(channel: String, changes: Vec<Self::Change>) -> Event {
        v1_event(ChannelEventV1::ResourceChanges { channel, changes })
    }
}

#[cfg(feature = "v1")]
use super::events::ChannelEventV1;

#[cfg(feature = "v1")]
fn v1_event(event: ChannelEventV1) -> Event {
    Event::ChannelV1(event)
}
