//! The engine's channel table, in the protocol version the host chose: 0.3.0's mirrors or
//! 1.0's (feature `v1`). Everything else in the engine (requests, timeouts, keep-alive,
//! reconnect bookkeeping) is the same for both.

use crate::sync;
use litemap::LiteMap;

/// The protocol versions this engine implements, most preferred first. What it offers is
/// [`EngineConfig::protocol_versions`](super::EngineConfig::protocol_versions); it accepts
/// the host's choice only if it is both offered and in this list. `"1.0.0"` only with feature
/// `v1`.
pub const IMPLEMENTED_PROTOCOL_VERSIONS: &[&str] = &[
    #[cfg(feature = "v1")]
    crate::protocol::v1::PROTOCOL_VERSION,
    crate::protocol::PROTOCOL_VERSION,
];

/// Subscribed state-bearing channels, as mirrors of the negotiated version. Before the first
/// handshake the table is an empty 0.3.0 one.
pub(super) enum Channels {
    /// AHP 0.3.0.
    V0_3(LiteMap<String, sync::AnyMirror>),
    /// AHP 1.0.
    #[cfg(feature = "v1")]
    V1(LiteMap<String, sync::v1::AnyMirror>),
}

/// `$body` with `$mirrors` bound to the table's map of mirrors, whichever version it holds
/// (the two versions' mirrors have the same methods), so version-free code is written once.
macro_rules! with_mirrors {
    ($channels:expr, |$mirrors:ident| $body:expr) => {
        match $channels {
            Channels::V0_3($mirrors) => $body,
            #[cfg(feature = "v1")]
            Channels::V1($mirrors) => $body,
        }
    };
}
pub(super) use with_mirrors;

impl Channels {
    /// An empty table for `version`, if this engine implements it.
    pub fn for_version(version: &str) -> Option<Channels> {
        if version == crate::protocol::PROTOCOL_VERSION {
            return Some(Channels::V0_3(LiteMap::new()));
        }
        #[cfg(feature = "v1")]
        if version == crate::protocol::v1::PROTOCOL_VERSION {
            return Some(Channels::V1(LiteMap::new()));
        }
        None
    }

    /// The version the table holds mirrors of.
    pub fn version(&self) -> &'static str {
        match self {
            Channels::V0_3(_) => crate::protocol::PROTOCOL_VERSION,
            #[cfg(feature = "v1")]
            Channels::V1(_) => crate::protocol::v1::PROTOCOL_VERSION,
        }
    }

    /// Whether the table holds 1.0 mirrors (always false without feature `v1`).
    #[inline]
    pub fn is_v1(&self) -> bool {
        match self {
            #[cfg(feature = "v1")]
            Channels::V1(_) => true,
            _ => false,
        }
    }

    /// The 0.3.0 mirrors, if the table holds those.
    #[inline]
    pub fn v0_3_mut(&mut self) -> Option<&mut LiteMap<String, sync::AnyMirror>> {
        match self {
            Channels::V0_3(mirrors) => Some(mirrors),
            #[cfg(feature = "v1")]
            Channels::V1(_) => None,
        }
    }

    /// The 1.0 mirrors, if the table holds those.
    #[cfg(feature = "v1")]
    #[inline]
    pub fn v1_mut(&mut self) -> Option<&mut LiteMap<String, sync::v1::AnyMirror>> {
        match self {
            Channels::V1(mirrors) => Some(mirrors),
            Channels::V0_3(_) => None,
        }
    }

    /// The channels, in order.
    pub fn names(&self) -> Vec<String> {
        with_mirrors!(self, |m| m.keys().cloned().collect())
    }

    pub fn contains(&self, channel: &str) -> bool {
        with_mirrors!(self, |m| m.contains_key(channel))
    }

    /// The highest `serverSeq` any mirror applied.
    pub fn last_server_seq(&self) -> u64 {
        with_mirrors!(self, |m| m.values().map(|m| m.last_server_seq()).max()).unwrap_or(0)
    }

    /// Every pending own action as (`clientSeq`, channel), in `clientSeq` order.
    pub fn pending_by_seq(&self) -> LiteMap<u64, String> {
        // A sorted map, not a sort: each channel's actions come in `clientSeq` order, so they
        // are mostly appended (and a sort's code is 4 KB of the wasm module, for this alone).
        let mut all: LiteMap<u64, String> = LiteMap::new();
        with_mirrors!(self, |m| {
            for (channel, mirror) in m.iter() {
                for p in mirror.pending() {
                    all.insert(p.client_seq, channel.clone());
                }
            }
        });
        all
    }
}
