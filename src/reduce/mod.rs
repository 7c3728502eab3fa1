//! Pure reducers: `fn(&mut State, &StateAction, &dyn Clock) -> Outcome`, one module per channel.
//!
//! # Matching the official references
//!
//! A mirror must equal what the host computes, and hosts run the official reducers (VS Code's
//! runs the TypeScript ones). So where the official reducers (TypeScript `typescript/v0.3.0`,
//! Rust `ahp` 0.3.0) and the conformance fixtures agree, these reducers match them, even where
//! we would have designed it otherwise; where the official Rust and TypeScript reducers
//! disagree, they follow TypeScript, and the handler names the difference. What TypeScript does
//! is read from its published source (`types/channels-*/reducer.ts`). The differential tests
//! (`tests/reference_reducers.rs`, `tests/reference_channels.rs`) check both rules on random
//! sequences over every action type, against the Rust crate and a model of the TypeScript
//! reducers.
//!
//! Every reducer validates an action against the current state before mutating anything, so an
//! action that does not apply (wrong turn, unknown tool call, invalid transition, an action for
//! another channel, or an action type from a newer protocol version) leaves the state untouched
//! and reports [`Outcome::NoOp`]. Reducers never panic.

mod by_id;
mod changeset;
mod resource_watch;
mod root;
mod session;
mod terminal;
pub mod v1;

pub use changeset::changeset_reducer;
pub use resource_watch::resource_watch_reducer;
pub use root::root_reducer;
pub use session::session_reducer;
pub use session::target::{text_part_index, tool_call_indices, TextKind};
pub use terminal::{
    scrollback_size, terminal_reducer, terminal_text, trim_scrollback, MAX_SCROLLBACK_BYTES,
    SCROLLBACK_TRIM_TARGET,
};

use std::marker::PhantomData;

/// The time source for reducers that stamp `modifiedAt`-style fields: milliseconds since the
/// Unix epoch. Any `Fn() -> f64` is a clock; [`SystemClock`] reads the real time.
pub trait Clock {
    /// Current time in milliseconds since the Unix epoch.
    fn now(&self) -> f64;
}

impl<F: Fn() -> f64> Clock for F {
    fn now(&self) -> f64 {
        self()
    }
}

/// The real clock: `Date.now()` in WebAssembly, the system time natively.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[cfg(target_arch = "wasm32")]
    fn now(&self) -> f64 {
        js_sys::Date::now()
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn now(&self) -> f64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as f64)
            .unwrap_or(0.0)
    }
}

/// A fixed clock, for tests and deterministic replays.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub f64);

impl Clock for FixedClock {
    fn now(&self) -> f64 {
        self.0
    }
}

/// What a reducer did with an action.
pub enum Outcome<F> {
    /// The state changed; these top-level fields were touched.
    Applied(Changed<F>),
    /// The action did not apply and the state is untouched.
    NoOp(NoOp),
}

impl<F> Clone for Outcome<F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F> Copy for Outcome<F> {}
impl<F> PartialEq for Outcome<F> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Outcome::Applied(a), Outcome::Applied(b)) => a == b,
            (Outcome::NoOp(a), Outcome::NoOp(b)) => a == b,
            _ => false,
        }
    }
}
impl<F> Eq for Outcome<F> {}
impl<F> std::fmt::Debug for Outcome<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Applied(c) => write!(f, "Applied({c:?})"),
            Outcome::NoOp(r) => write!(f, "NoOp({r:?})"),
        }
    }
}

impl<F> Outcome<F> {
    /// Whether the state changed.
    pub fn is_applied(&self) -> bool {
        matches!(self, Outcome::Applied(_))
    }
}

/// Why an action left the state untouched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoOp {
    /// An action type this channel does not handle (another channel's, or a newer version's).
    NotForThisChannel,
    /// The action names a turn that is not the active turn (or no turn is active).
    WrongTurn,
    /// The action names a response part, tool call, message, request or item that does not exist.
    UnknownTarget,
    /// The target exists but is in a state the action cannot transition from.
    InvalidTransition,
    /// The action would not change anything (e.g. a config merge with no config).
    NothingToChange,
}

impl NoOp {
    /// A short human-readable reason.
    pub fn reason(self) -> &'static str {
        match self {
            NoOp::NotForThisChannel => "action type not handled by this channel",
            NoOp::WrongTurn => "turnId does not match the active turn",
            NoOp::UnknownTarget => "the action's target does not exist",
            NoOp::InvalidTransition => "the target's current status does not allow this action",
            NoOp::NothingToChange => "the action changes nothing in the current state",
        }
    }
}

/// A handler step of either protocol version that puts `value` in `slot`: `field` changed.
#[inline]
pub(crate) fn set<T, F: Copy + Into<u8>>(
    slot: &mut T,
    value: T,
    field: F,
) -> Result<Changed<F>, NoOp> {
    *slot = value;
    Ok(Changed::one(field))
}

/// A handler step of either protocol version that makes `slot` a clone of `value` (reusing its
/// allocations): `field` changed.
#[inline]
pub(crate) fn replace<T: Clone, F: Copy + Into<u8>>(
    slot: &mut T,
    value: &T,
    field: F,
) -> Result<Changed<F>, NoOp> {
    slot.clone_from(value);
    Ok(Changed::one(field))
}

/// A set of top-level state fields (`F` is a generated `<State>Field` enum, at most 64 fields).
pub struct Changed<F> {
    bits: u64,
    _field: PhantomData<F>,
}

impl<F> Clone for Changed<F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F> Copy for Changed<F> {}
impl<F> PartialEq for Changed<F> {
    fn eq(&self, other: &Self) -> bool {
        self.bits == other.bits
    }
}
impl<F> Eq for Changed<F> {}
impl<F> Default for Changed<F> {
    fn default() -> Self {
        Changed {
            bits: 0,
            _field: PhantomData,
        }
    }
}

impl<F: Copy + Into<u8>> Changed<F> {
    /// The empty set.
    pub fn none() -> Self {
        Self::default()
    }

    /// A set with one field.
    pub fn one(field: F) -> Self {
        Self::none().with(field)
    }

    /// This set plus `field`.
    pub fn with(mut self, field: F) -> Self {
        self.bits |= 1 << field.into();
        self
    }

    /// Adds `field`.
    pub fn insert(&mut self, field: F) {
        self.bits |= 1 << field.into();
    }

    /// Whether `field` is in the set.
    pub fn contains(&self, field: F) -> bool {
        self.bits & (1 << field.into()) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Union of two sets.
    pub fn union(self, other: Self) -> Self {
        Changed {
            bits: self.bits | other.bits,
            _field: PhantomData,
        }
    }
}

impl<F> Changed<F> {
    /// The set as a bit mask: bit `i` is the field whose discriminant is `i`.
    pub fn bits(&self) -> u64 {
        self.bits
    }

    /// The set with the fields of a bit mask from [`Changed::bits`].
    pub fn from_bits(bits: u64) -> Self {
        Changed {
            bits,
            _field: PhantomData,
        }
    }
}

impl<F> std::fmt::Debug for Changed<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Changed({:#b})", self.bits)
    }
}
