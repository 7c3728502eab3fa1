//! The protocol version the bindings speak: AHP 1.0 in a build with feature `v1` alone (the
//! package's default entry `ahp-wasm`), AHP 0.3.0 without it (its `ahp-wasm/v0.3` entry). One build speaks
//! one version, so neither entry carries the other's types, reducers and mirrors; the rest of
//! the bindings is written once against the names here.

use crate::client::engine::{Engine, Event};
use crate::client::Error;

#[cfg(not(feature = "v1"))]
mod speak {
    /// The version's command markers (`Command` types) and its command table.
    pub use crate::protocol::jsonrpc as commands;
    pub(crate) use crate::protocol::jsonrpc::for_each_command as for_each_command_of_version;

    pub use crate::client::engine::ChannelEventV0_3 as ChannelEvent;
    pub use crate::protocol::{
        ClientCapabilities, ResponsePart, StateAction, ToolCallState, PROTOCOL_VERSION,
    };
    pub use crate::sync::{AnyMirror, ChannelKind};

    /// The state whose turns the fine patch steps address (streamed parts, tool input).
    pub type TurnsState = crate::protocol::SessionState;

    /// `$m!($($args)*; kinds)`: the version's channel kinds (`AnyMirror`'s variants).
    macro_rules! with_kinds {
        ($m:ident!($($args:tt)*)) => {
            $m!($($args)*; Root Session Terminal Changeset ResourceWatch)
        };
    }
    pub(crate) use with_kinds;
}

#[cfg(feature = "v1")]
mod speak {
    /// The version's command markers (`Command` types) and its command table.
    pub use crate::protocol::v1::jsonrpc as commands;
    pub(crate) use crate::protocol::v1::jsonrpc::for_each_command_v1 as for_each_command_of_version;

    pub use crate::client::engine::ChannelEventV1 as ChannelEvent;
    pub use crate::protocol::v1::{ResponsePart, StateAction, ToolCallState, PROTOCOL_VERSION};
    // The engine's handshake takes 0.3.0's capabilities type (the 1.0 one has the same
    // members the engine sends).
    pub use crate::protocol::ClientCapabilities;
    pub use crate::sync::v1::{AnyMirror, ChannelKind};

    /// The state whose turns the fine patch steps address (streamed parts, tool input).
    pub type TurnsState = crate::protocol::v1::ChatState;

    /// `$m!($($args)*; kinds)`: the version's channel kinds (`AnyMirror`'s variants).
    macro_rules! with_kinds {
        ($m:ident!($($args:tt)*)) => {
            $m!($($args)*; Root Session Annotations Chat Terminal Changeset ResourceWatch
                Automations AutomationRun Canvas)
        };
    }
    pub(crate) use with_kinds;
}

pub use speak::{
    commands, AnyMirror, ChannelEvent, ChannelKind, ClientCapabilities, ResponsePart, StateAction,
    ToolCallState, TurnsState, PROTOCOL_VERSION,
};
pub(crate) use speak::{for_each_command_of_version, with_kinds};

/// Runs `$body` with `$s` bound to the mirror's typed state `$which` (`state`: the optimistic
/// one, `confirmed`), whatever the kind.
macro_rules! with_typed {
    ($mirror:expr, $which:ident, $s:ident => $body:expr) => {
        $crate::wasm::wire::with_kinds!(with_typed!(@kinds $mirror, $which, $s => $body))
    };
    (@kinds $mirror:expr, $which:ident, $s:ident => $body:expr; $($kind:ident)*) => {
        match $mirror {
            $($crate::wasm::wire::AnyMirror::$kind(m) => {
                let $s = m.$which();
                $body
            })*
        }
    };
}
pub(crate) use with_typed;

/// A set of changed top-level fields of a channel of this version.
pub type ChangeSet = crate::sync::ChangeSet<ChannelKind>;
/// An own action the host rejected.
pub type Rejection = crate::sync::Rejection<StateAction>;

/// Every protocol version the bindings speak (one per build).
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &[PROTOCOL_VERSION];

/// Dispatches an own action of this version (see [`Engine::dispatch`]).
pub fn dispatch(
    engine: &mut Engine,
    channel: &str,
    action: StateAction,
    now: f64,
) -> Result<u64, Error> {
    #[cfg(not(feature = "v1"))]
    return engine.dispatch(channel, action, now);
    #[cfg(feature = "v1")]
    return engine.dispatch_v1(channel, action, now);
}

/// The mirror of a subscribed state-bearing channel.
pub fn mirror<'a>(engine: &'a Engine, channel: &str) -> Option<&'a AnyMirror> {
    #[cfg(not(feature = "v1"))]
    return engine.mirror(channel);
    #[cfg(feature = "v1")]
    return engine.mirror_v1(channel);
}

/// A channel event of this version in the generic form; any other event back as `Err`.
#[allow(clippy::result_large_err)] // the event itself, moved back: no allocation per event
pub fn channel_event(event: Event) -> Result<ChannelEvent, Event> {
    #[cfg(not(feature = "v1"))]
    return event.into_channel_event();
    #[cfg(feature = "v1")]
    return event.into_channel_event_v1();
}
