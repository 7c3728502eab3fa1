//! The engine's channel table, in the protocol version the host chose: 0.3.0's mirrors
//! (feature `v0_3`) or 1.0's (feature `v1`). Everything else in the engine (requests,
//! timeouts, keep-alive, reconnect bookkeeping) is the same for both.
//!
//! A version's code is reached only through its variant of [`Channels`]: a build without
//! `v0_3` has no 0.3.0 variant, so every 0.3.0 path (the fast delta decoder, the 0.3.0
//! reducers and mirrors) is unreachable and left out of the binary; the wasm package's 1.0
//! entry is built that way.

use crate::sync;
use litemap::LiteMap;

/// The protocol versions this engine implements, most preferred first. What it offers is
/// [`EngineConfig::protocol_versions`](super::EngineConfig::protocol_versions); it accepts
/// the host's choice only if it is both offered and in this list. `"1.0.0"` only with feature
/// `v1`.
pub const IMPLEMENTED_PROTOCOL_VERSIONS: &[&str] = &[
    #[cfg(feature = "v1")]
    crate::protocol::v1::PROTOCOL_VERSION,
    #[cfg(feature = "v0_3")]
    crate::protocol::PROTOCOL_VERSION,
];

/// Subscribed state-bearing channels, as mirrors of the negotiated version. Before the first
/// handshake the table is an empty one of the first implemented version.
pub(super) enum Channels {
    /// AHP 0.3.0.
    #[cfg(feature = "v0_3")]
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
            #[cfg(feature = "v0_3")]
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
        #[cfg(feature = "v0_3")]
        if version == crate::protocol::PROTOCOL_VERSION {
            return Some(Channels::V0_3(LiteMap::new()));
        }
        #[cfg(feature = "v1")]
        if version == crate::protocol::v1::PROTOCOL_VERSION {
            return Some(Channels::V1(LiteMap::new()));
        }
        None
    }

    /// An empty table of the engine's first implemented version, before a handshake.
    pub fn before_handshake() -> Channels {
        Channels::for_version(
            IMPLEMENTED_PROTOCOL_VERSIONS[IMPLEMENTED_PROTOCOL_VERSIONS.len() - 1],
        )
        .expect("an implemented version")
    }

    /// The version the table holds mirrors of.
    pub fn version(&self) -> &'static str {
        match self {
            #[cfg(feature = "v0_3")]
            Channels::V0_3(_) => crate::protocol::PROTOCOL_VERSION,
            #[cfg(feature = "v1")]
            Channels::V1(_) => crate::protocol::v1::PROTOCOL_VERSION,
        }
    }

    /// Whether the table holds 1.0 mirrors (a constant when only one version is built).
    #[inline]
    pub fn is_v1(&self) -> bool {
        match self {
            #[cfg(feature = "v0_3")]
            Channels::V0_3(_) => false,
            #[cfg(feature = "v1")]
            Channels::V1(_) => true,
        }
    }

    /// The 0.3.0 mirrors, if the table holds those.
    #[inline]
    pub fn v0_3_mut(&mut self) -> Option<&mut LiteMap<String, sync::AnyMirror>> {
        match self {
            #[cfg(feature = "v0_3")]
            Channels::V0_3(mirrors) => Some(mirrors),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The 1.0 mirrors, if the table holds those.
    #[cfg(feature = "v1")]
    #[inline]
    pub fn v1_mut(&mut self) -> Option<&mut LiteMap<String, sync::v1::AnyMirror>> {
        match self {
            Channels::V1(mirrors) => Some(mirrors),
            #[allow(unreachable_patterns)]
            _ => None,
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
