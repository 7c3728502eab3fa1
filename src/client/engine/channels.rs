//! The engine's channel table, in the protocol version the host chose: 0.3.0's mirrors or
//! 1.0's. Everything else in the engine (requests, timeouts, keep-alive, reconnect
//! bookkeeping) is the same for both.

use crate::sync;
use litemap::LiteMap;

/// The protocol versions this engine implements, most preferred first. What it offers is
/// [`EngineConfig::protocol_versions`](super::EngineConfig::protocol_versions); it accepts
/// the host's choice only if it is both offered and in this list.
pub const IMPLEMENTED_PROTOCOL_VERSIONS: &[&str] = &[
    crate::protocol::v1::PROTOCOL_VERSION,
    crate::protocol::PROTOCOL_VERSION,
];

/// Subscribed state-bearing channels, as mirrors of the negotiated version. Before the first
/// handshake the table is an empty 0.3.0 one.
pub(super) enum Channels {
    /// AHP 0.3.0.
    V0_3(LiteMap<String, sync::AnyMirror>),
    /// AHP 1.0.
    V1(LiteMap<String, sync::v1::AnyMirror>),
}

impl Channels {
    /// An empty table for `version`, if this engine implements it.
    pub fn for_version(version: &str) -> Option<Channels> {
        if version == crate::protocol::PROTOCOL_VERSION {
            Some(Channels::V0_3(LiteMap::new()))
        } else if version == crate::protocol::v1::PROTOCOL_VERSION {
            Some(Channels::V1(LiteMap::new()))
        } else {
            None
        }
    }

    /// The version the table holds mirrors of.
    pub fn version(&self) -> &'static str {
        match self {
            Channels::V0_3(_) => crate::protocol::PROTOCOL_VERSION,
            Channels::V1(_) => crate::protocol::v1::PROTOCOL_VERSION,
        }
    }

    /// The channels, in order.
    pub fn names(&self) -> Vec<String> {
        match self {
            Channels::V0_3(m) => m.keys().cloned().collect(),
            Channels::V1(m) => m.keys().cloned().collect(),
        }
    }

    pub fn contains(&self, channel: &str) -> bool {
        match self {
            Channels::V0_3(m) => m.contains_key(channel),
            Channels::V1(m) => m.contains_key(channel),
        }
    }

    /// The highest `serverSeq` any mirror applied.
    pub fn last_server_seq(&self) -> u64 {
        match self {
            Channels::V0_3(m) => m.values().map(|m| m.last_server_seq()).max(),
            Channels::V1(m) => m.values().map(|m| m.last_server_seq()).max(),
        }
        .unwrap_or(0)
    }

    /// Every pending own action as (`clientSeq`, channel), in `clientSeq` order.
    pub fn pending_by_seq(&self) -> LiteMap<u64, String> {
        // A sorted map, not a sort: each channel's actions come in `clientSeq` order, so they
        // are mostly appended (and a sort's code is 4 KB of the wasm module, for this alone).
        let mut all: LiteMap<u64, String> = LiteMap::new();
        match self {
            Channels::V0_3(m) => {
                for (channel, mirror) in m.iter() {
                    for p in mirror.pending() {
                        all.insert(p.client_seq, channel.clone());
                    }
                }
            }
            Channels::V1(m) => {
                for (channel, mirror) in m.iter() {
                    for p in mirror.pending() {
                        all.insert(p.client_seq, channel.clone());
                    }
                }
            }
        }
        all
    }
}
