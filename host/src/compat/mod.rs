//! The AHP 0.3.0 view of a 1.0 session.
//!
//! A 1.0 session holds chats; a 0.3.0 session is one conversation. A 0.3.0 client is shown each
//! session as it would look with only its default chat: the chat's turns, tool calls, input
//! requests and pending messages inside the session state, the session's own metadata around
//! them. The view is computed in two ways that must agree:
//!
//! - [`session_state`]: the whole 0.3.0 state, for a snapshot (subscribe, reconnect), and
//!   [`session_summary`]: its summary alone (`listSessions`); [`session_members`] and
//!   [`conversation_into`]: the view in parts (the hub keeps the members, `hub/sessions.rs`);
//! - [`action`]: the 0.3.0 actions one 1.0 action becomes, for the envelopes that follow.
//!
//! and back: [`lift`] makes a 0.3.0 session a 1.0 session with one chat (a 0.3.0 database
//! opened by a 1.0 host), [`to_v1`] a 0.3.0 action the 1.0 action with the same effect (a 0.3.0
//! client's dispatch). `host/tests/compat/lift.rs` holds the official 0.3.0 session fixtures
//! to that: the view of the lifted state after the translated actions equals the 0.3.0
//! reducer's state.
//!
//! Agreeing means: the 0.3.0 reducer applied to the view of a state and the translation of an
//! action gives the view of the 1.0 reducer's result. `host/tests/compat/view.rs` holds every
//! official 1.0.0 chat and session fixture to that, step by step. Where the two versions model
//! a thing differently the view loses it, and [`GAPS`] lists each such place.
//!
//! Both directions work on JSON values: the versions' types are the same shapes under other
//! names for almost everything a view carries, so a view is a few renames and field edits, and
//! the typed 0.3.0 decoder checks the result ([`typed_state`], [`typed_action`]).

mod actions;
mod change;
mod channels;
mod content;
mod lift;
mod state;
mod versions;

pub use actions::{action, dispatched_on_session, Source, View};
pub use change::SessionChange;
pub use channels::{
    channel_action_v03, channel_action_v1, channel_state_v1, claim_chat, create_terminal_v03,
    default_chat_uri, integers, root_v1, session_of_chat,
};
pub use lift::{lift, to_v1, Target};
pub use state::{conversation_into, session_members, session_state, session_summary, turn};
pub use versions::negotiate;

use ahp_wasm::protocol as v03;
use serde_json::Value;

/// Where the 0.3.0 view of a 1.0 session loses something: (what, why). The first entries are
/// the reasons [`View::Resync`] gives; the host README lists them all.
pub const GAPS: &[(&str, &str)] = &[
    (
        "tool calls waiting for authentication",
        "1.0's `auth-required` tool call state has no 0.3.0 form (a snapshot carries it as a state of unknown kind)",
    ),
    ("a resumed turn", "0.3.0 cannot reopen a turn that ended"),
    ("older turns loaded", "0.3.0 cannot prepend turns"),
    (
        "a tool call's metadata, owner or confirmation refined",
        "1.0's `toolCallReady`/`toolCallDelta` also update a call's `_meta`, contributor and pending confirmation; 0.3.0's do not",
    ),
    (
        "the session's working directory",
        "0.3.0 has no action that changes `summary.workingDirectory`",
    ),
    (
        "summary.modifiedAt",
        "a 0.3.0 reducer stamps it with its own clock on most actions; the view shows the chat's",
    ),
    (
        "other chats",
        "only the default chat is shown; a change of the default chat needs a fresh snapshot",
    ),
    (
        "several active clients",
        "0.3.0 has one active client: the view shows the first of the session's `activeClients`",
    ),
    (
        "a file edit's content given by reference",
        "0.3.0 has a file edit's text inline: a `data:` reference is decoded, any other shows as empty text",
    ),
    (
        "model and agent",
        "1.0 selects them per message; the view's summary has neither",
    ),
    (
        "1.0-only state",
        "drafts, background work, canvases, annotations, per-chat working directories and changesets, the session's own read, archived and activity flags are not shown",
    ),
];

/// A view that the 0.3.0 types refuse: a bug in the view, never the client's fault.
#[derive(Debug)]
pub struct ViewError(pub String);

impl std::fmt::Display for ViewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the 0.3.0 view: {}", self.0)
    }
}

impl std::error::Error for ViewError {}

/// The typed 0.3.0 session state of a view.
pub fn typed_state(view: Value) -> Result<v03::SessionState, ViewError> {
    serde_json::from_value(view).map_err(|e| ViewError(format!("session state: {e}")))
}

/// The typed 0.3.0 session summary of a view.
pub fn typed_summary(view: Value) -> Result<v03::SessionSummary, ViewError> {
    serde_json::from_value(view).map_err(|e| ViewError(format!("session summary: {e}")))
}

/// The typed 0.3.0 turn of a view.
pub fn typed_turn(view: Value) -> Result<v03::Turn, ViewError> {
    serde_json::from_value(view).map_err(|e| ViewError(format!("turn: {e}")))
}

/// The typed 0.3.0 action of a view.
pub fn typed_action(view: Value) -> Result<v03::StateAction, ViewError> {
    serde_json::from_value(view).map_err(|e| ViewError(format!("action: {e}")))
}

/// Milliseconds since the epoch of an RFC 3339 timestamp (0.3.0's times are numbers).
fn millis(timestamp: Option<&Value>) -> Value {
    let parsed = timestamp
        .and_then(Value::as_str)
        .and_then(ahp_wasm::reduce::v1::unix_millis);
    Value::from(parsed.unwrap_or(0) as f64)
}
