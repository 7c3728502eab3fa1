//! The engine's AHP 1.0 channels: snapshots decoded as 1.0 states, `action` envelopes applied
//! to 1.0 mirrors, optimistic dispatch of 1.0 actions. Used when the host chose `"1.0.0"` in
//! `initialize`; requests, timeouts and reconnect bookkeeping are the version-free engine's.
//! 1.0 frames take the general decode path (the 0.3.0 fast paths do not apply).

use super::channels::Channels;
use super::events::{ChannelEventV1, Event};
use super::inbound::RawSnapshot;
use super::{dispatch_frame, DropReason, Engine};
use crate::client::Error;
use crate::protocol::decode::decode_object;
use crate::protocol::v1::{ActionEnvelope, StateAction, PROTOCOL_VERSION};
use crate::reduce::FixedClock;
use crate::sync::v1::{AnyMirror, AnyState, ChannelState};
use crate::sync::{ChangeSet, Mirror, StatePatch};

/// A 1.0 replay reconnect result (the same shape, with 1.0 envelopes).
pub(super) struct ReplayV1 {
    pub actions: Vec<ActionEnvelope>,
    pub missing: Vec<String>,
}

decode_object!(ReplayV1 {
    actions: "actions",
    missing: "missing" = Vec::new(),
});

impl Engine {
    /// The 1.0 mirror of a subscribed state-bearing channel (when the host speaks 1.0).
    pub fn mirror_v1(&self, channel: &str) -> Option<&AnyMirror> {
        match &self.channels {
            Channels::V1(mirrors) => mirrors.get(channel),
            Channels::V0_3(_) => None,
        }
    }

    /// The typed 1.0 mirror of a subscribed channel, if it holds an `S`.
    pub fn mirror_v1_as<S: ChannelState>(&self, channel: &str) -> Option<&Mirror<S>> {
        self.mirror_v1(channel)?.typed()
    }

    /// [`Engine::dispatch`] of an AHP 1.0 action, when the host speaks 1.0: applied to the
    /// channel's optimistic state at once ([`ChannelEventV1::Changed`]), sent as
    /// `dispatchAction`. Returns its `clientSeq`. On a 0.3.0 connection it is refused
    /// ([`Error::Transport`], kind `Send`) and nothing changes.
    pub fn dispatch_v1(
        &mut self,
        channel: &str,
        action: StateAction,
        now: f64,
    ) -> Result<u64, Error> {
        self.check_dispatch(channel, PROTOCOL_VERSION)?;
        let seq = self.next_client_seq;
        let frame = dispatch_frame(channel, seq, &action);
        self.check_frame_size("dispatchAction", || frame.len())?;
        self.next_client_seq += 1;
        let connected = self.state == super::ConnectionState::Connected;
        let Channels::V1(mirrors) = &mut self.channels else {
            unreachable!("checked above")
        };
        let mirror = mirrors.get_mut(channel).expect("checked above");
        let (changed, patch) = mirror.dispatch(seq, action, &FixedClock(now));
        let pending = mirror.pending_count();
        if connected {
            mirror.mark_sent(seq);
            self.outgoing.push_back(frame);
        }
        self.events
            .push_back(Event::ChannelV1(Box::new(ChannelEventV1::Changed {
                channel: channel.to_string(),
                changed,
                confirmed_changed: ChangeSet::empty(changed.kind),
                pending,
                patch,
            })));
        Ok(seq)
    }

    /// Creates the channel's 1.0 mirror from a snapshot, or resets it (keeping pending
    /// actions).
    pub(super) fn install_snapshot_v1(
        &mut self,
        channel: &str,
        snapshot: RawSnapshot,
        now: f64,
    ) -> Result<(), String> {
        let state = AnyState::decode(channel, snapshot.state.as_raw())
            .map_err(|e| format!("snapshot of `{}`: {e}", snapshot.resource))?;
        self.last_seen_server_seq = self.last_seen_server_seq.max(snapshot.from_seq);
        self.stateless.remove(channel);
        let Channels::V1(mirrors) = &mut self.channels else {
            return Err("not a 1.0 connection".to_string());
        };
        let reset = match mirrors.get_mut(channel) {
            Some(mirror) => mirror.reset(state, snapshot.from_seq, &FixedClock(now)),
            None => Err(Box::new(state)),
        };
        match reset {
            Ok(changed) => {
                let pending = mirrors.get(channel).map_or(0, AnyMirror::pending_count);
                self.events
                    .push_back(Event::ChannelV1(Box::new(ChannelEventV1::Changed {
                        channel: channel.to_string(),
                        changed,
                        confirmed_changed: changed,
                        pending,
                        patch: StatePatch::fields(changed.names()),
                    })));
            }
            Err(state) => {
                // New channel (or its kind changed, which only a broken server does).
                if let Some(old) = mirrors.remove(channel) {
                    self.report_dropped_v1(channel, old, DropReason::ChannelLost, now);
                }
                if let Channels::V1(mirrors) = &mut self.channels {
                    let mirror = AnyMirror::new(*state, snapshot.from_seq);
                    mirrors.insert(channel.to_string(), mirror);
                }
                self.events.push_back(Event::Subscribed {
                    channel: channel.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Batches a 1.0 envelope (applied with the 0.3.0 batch, see `flush_batch`).
    pub(super) fn route_envelope_v1(&mut self, envelope: ActionEnvelope) {
        self.last_seen_server_seq = self.last_seen_server_seq.max(envelope.server_seq);
        self.batch_v1.push(envelope);
    }

    /// Applies the 1.0 envelopes batched by `route_envelope_v1`. Not inlined: the 0.3.0 path
    /// pays only the check that there are none.
    #[inline(never)]
    pub(super) fn flush_pending_v1(&mut self, now: f64) {
        let mut envelopes = std::mem::take(&mut self.batch_v1);
        self.flush_batch_v1(&mut envelopes, now);
        self.batch_v1 = envelopes; // empty, with its capacity
    }

    /// Applies and empties a batch of 1.0 envelopes, per channel (in order of first
    /// appearance).
    pub(super) fn flush_batch_v1(&mut self, envelopes: &mut Vec<ActionEnvelope>, now: f64) {
        let mut channels: Vec<String> = Vec::new();
        for e in envelopes.iter() {
            if !channels.contains(&e.channel) {
                channels.push(e.channel.clone());
            }
        }
        for channel in channels {
            let of_channel = envelopes.iter_mut().filter(|e| e.channel == channel);
            self.apply_envelopes_v1(&channel, of_channel, now);
        }
        envelopes.clear();
    }

    fn apply_envelopes_v1<'a>(
        &mut self,
        channel: &str,
        envelopes: impl IntoIterator<Item = &'a mut ActionEnvelope>,
        now: f64,
    ) {
        let Channels::V1(mirrors) = &mut self.channels else {
            return;
        };
        let Some(mirror) = mirrors.get_mut(channel) else {
            return;
        };
        let mut changes = Vec::new();
        let envelopes = envelopes.into_iter().inspect(|e| {
            if let StateAction::ResourceWatchChanged(a) = &e.action {
                changes.push(a.changes.clone());
            }
        });
        let out = mirror.apply_batch(envelopes, &self.config.client_id, &FixedClock(now));
        let pending = mirror.pending_count();
        let channel_event = |event| Event::ChannelV1(Box::new(event));
        if !changes.is_empty() {
            self.events
                .push_back(channel_event(ChannelEventV1::ResourceChanges {
                    channel: channel.to_string(),
                    changes,
                }));
        }
        if !out.changed.is_empty() || !out.confirmed_changed.is_empty() {
            self.events
                .push_back(channel_event(ChannelEventV1::Changed {
                    channel: channel.to_string(),
                    changed: out.changed,
                    confirmed_changed: out.confirmed_changed,
                    pending,
                    patch: out.patch,
                }));
        }
        for rejection in out.rejected {
            self.events
                .push_back(channel_event(ChannelEventV1::Rejected {
                    channel: channel.to_string(),
                    rejection,
                }));
        }
        if !out.skipped.is_empty() {
            self.events
                .push_back(channel_event(ChannelEventV1::PendingDropped {
                    channel: channel.to_string(),
                    actions: out.skipped,
                    reason: DropReason::Skipped,
                }));
        }
        if let Some(divergence) = out.divergence {
            self.events.push_back(Event::Resync {
                channel: channel.to_string(),
                reason: divergence.to_string(),
            });
            self.resync(channel, now);
        }
    }

    pub(super) fn report_dropped_v1(
        &mut self,
        channel: &str,
        mut mirror: AnyMirror,
        reason: DropReason,
        now: f64,
    ) {
        let (actions, _) = mirror.drop_pending(|_| true, &FixedClock(now));
        if !actions.is_empty() {
            self.events
                .push_back(Event::ChannelV1(Box::new(ChannelEventV1::PendingDropped {
                    channel: channel.to_string(),
                    actions,
                    reason,
                })));
        }
    }

    /// Drops the pending actions a dropped connection carried (see `drop_in_flight`).
    pub(super) fn drop_in_flight_v1(&mut self, reason: DropReason, now: f64) {
        let Channels::V1(mirrors) = &mut self.channels else {
            return;
        };
        for (channel, mirror) in mirrors.iter_mut() {
            let (actions, changed) = mirror.drop_pending(|p| p.sent, &FixedClock(now));
            if actions.is_empty() {
                continue;
            }
            let pending = mirror.pending_count();
            self.events
                .push_back(Event::ChannelV1(Box::new(ChannelEventV1::Changed {
                    channel: channel.clone(),
                    changed,
                    confirmed_changed: ChangeSet::empty(changed.kind),
                    pending,
                    patch: StatePatch::fields(changed.names()),
                })));
            self.events
                .push_back(Event::ChannelV1(Box::new(ChannelEventV1::PendingDropped {
                    channel: channel.clone(),
                    actions,
                    reason,
                })));
        }
    }

    /// The server replayed what we missed (1.0 envelopes): as 0.3.0's `adopt_replay`.
    pub(super) fn adopt_replay_v1(&mut self, replay: ReplayV1, now: f64) {
        for channel in replay.missing {
            self.lose_channel(&channel, "the server cannot resume this channel", now);
        }
        let mut envelopes = replay.actions;
        for envelope in &envelopes {
            self.last_seen_server_seq = self.last_seen_server_seq.max(envelope.server_seq);
        }
        self.flush_batch_v1(&mut envelopes, now);
        self.after_replay(now);
    }
}
