//! The engine's AHP 1.0 channels: snapshots decoded as 1.0 states, `action` envelopes applied
//! to 1.0 mirrors, optimistic dispatch of 1.0 actions. Used when the host chose `"1.0.0"` in
//! `initialize`; requests, timeouts and reconnect bookkeeping are the version-free engine's.
//! 1.0 frames take the general decode path (the 0.3.0 fast paths do not apply).

use super::channels::Channels;
use super::inbound::Batch;
use super::versions::V1;
use super::Engine;
use crate::client::Error;
use crate::protocol::decode::decode_object;
use crate::protocol::v1::{ActionEnvelope, StateAction};
use crate::sync::v1::{AnyMirror, ChannelState};
use crate::sync::Mirror;

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
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The typed 1.0 mirror of a subscribed channel, if it holds an `S`.
    pub fn mirror_v1_as<S: ChannelState>(&self, channel: &str) -> Option<&Mirror<S>> {
        self.mirror_v1(channel)?.typed()
    }

    /// [`Engine::dispatch`] of an AHP 1.0 action, when the host speaks 1.0: applied to the
    /// channel's optimistic state at once ([`ChannelEventV1::Changed`]), sent as
    /// `dispatchAction`. Returns its `clientSeq`. On a 0.3.0 connection it is refused
    /// ([`Error::WrongProtocolVersion`]) and nothing changes.
    ///
    /// [`ChannelEventV1::Changed`]: super::ChannelEventV1::Changed
    pub fn dispatch_v1(
        &mut self,
        channel: &str,
        action: StateAction,
        now: f64,
    ) -> Result<u64, Error> {
        self.dispatch_in::<V1>(channel, action, now)
    }

    /// Batches a 1.0 envelope (applied by `flush_batch`).
    pub(super) fn route_envelope_v1(&mut self, envelope: ActionEnvelope, batch: &mut Batch) {
        self.last_seen_server_seq = self.last_seen_server_seq.max(envelope.server_seq);
        batch.envelopes_v1.push(envelope);
    }

    /// Applies and empties a batch of 1.0 envelopes.
    pub(super) fn flush_batch_v1(&mut self, envelopes: &mut Vec<ActionEnvelope>, now: f64) {
        self.flush_envelopes_in::<V1>(envelopes, now);
        envelopes.clear();
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
