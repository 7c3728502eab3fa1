//! ahp-wasm: an Agent Host Protocol SDK in Rust (AHP 1.0, and 0.3.0 beside it), for native
//! programs and, compiled to WebAssembly, for browsers and Node.
//!
//! - [`protocol`]: the wire types of every AHP 0.3.0 definition, generated from the schema;
//!   [`protocol::v1`]: AHP 1.0.0's, generated from the official definition.
//! - [`reduce`]: pure reducers for the root, session, terminal, changeset and resource-watch
//!   channels; [`reduce::v1`]: one per 1.0 channel (root, session, chat, canvas, terminal,
//!   changeset, annotations, resource watch, automation, automation run).
//! - [`sync`]: optimistic mirrors of subscribed channels (confirmed + pending = state).
//! - [`client`]: a sans-IO JSON-RPC engine, transports, and (feature `native`) an async client.
//!
//! A 1.0 chat channel's envelopes, decoded and reduced:
//!
//! ```
//! use ahp_wasm::protocol::decode::{self, DecodeError};
//! use ahp_wasm::protocol::v1::{ActionEnvelope, ChatState};
//! use ahp_wasm::reduce::{v1::chat_reducer, Outcome};
//!
//! fn apply(state: &mut ChatState, frame: &str) -> Result<(), DecodeError> {
//!     let envelope: ActionEnvelope = decode::from_text(frame)?; // errors name the bad field's path
//!     match chat_reducer(state, &envelope.action) {
//!         Outcome::Applied(changed) => { /* `changed` lists the top-level fields touched */ }
//!         Outcome::NoOp(why) => eprintln!("ignored: {}", why.reason()),
//!     }
//!     Ok(())
//! }
//!
//! let mut state: ChatState = decode::from_text(
//!     r#"{"resource":"ahp-chat:/c","title":"","status":1,
//!         "modifiedAt":"2026-01-01T00:00:00.000Z","turns":[]}"#,
//! )?;
//! apply(&mut state, r#"{"channel":"ahp-chat:/c","serverSeq":1,
//!     "action":{"type":"chat/activityChanged","activity":"Reading files"}}"#)?;
//! assert_eq!(state.activity.as_deref(), Some("Reading files"));
//! # Ok::<(), DecodeError>(())
//! ```
//!
//! AHP 0.3.0 the same way, over its types and reducers (which read a clock):
//!
//! ```
//! use ahp_wasm::protocol::decode::{self, DecodeError};
//! use ahp_wasm::protocol::{ActionEnvelope, SessionState};
//! use ahp_wasm::reduce::{session_reducer, SystemClock};
//!
//! let mut state: SessionState = decode::from_text(
//!     r#"{"summary":{"resource":"copilot:/s","provider":"copilot","title":"","status":1,
//!         "createdAt":0,"modifiedAt":0},"lifecycle":"ready","turns":[]}"#,
//! )?;
//! let envelope: ActionEnvelope = decode::from_text(r#"{"channel":"copilot:/s","serverSeq":1,
//!     "action":{"type":"session/titleChanged","title":"Hello"}}"#)?;
//! assert!(session_reducer(&mut state, &envelope.action, &SystemClock).is_applied());
//! assert_eq!(state.summary.title, "Hello");
//! # Ok::<(), DecodeError>(())
//! ```

#![forbid(unsafe_code)]

#[cfg(not(any(feature = "v0_3", feature = "v1")))]
compile_error!("ahp-wasm speaks AHP 0.3.0 (feature `v0_3`, on by default), 1.0 (feature `v1`) or both: enable at least one");

pub mod client;
pub mod protocol;
pub mod reduce;
pub mod sync;
mod words;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
