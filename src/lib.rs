//! ahp-wasm: an Agent Host Protocol (AHP 0.3.0) SDK in Rust, for native programs and, compiled to
//! WebAssembly, for browsers and Node.
//!
//! - [`protocol`]: the wire types of every AHP 0.3.0 definition, generated from the schema.
//! - [`reduce`]: pure reducers for the root, session, terminal, changeset and resource-watch
//!   channels.
//! - [`sync`]: optimistic mirrors of subscribed channels (confirmed + pending = state).
//! - [`client`]: a sans-IO JSON-RPC engine, transports, and (feature `native`) an async client.
//!
//! ```
//! use ahp_wasm::protocol::decode::{self, DecodeError};
//! use ahp_wasm::protocol::{ActionEnvelope, SessionState};
//! use ahp_wasm::reduce::{session_reducer, Outcome, SystemClock};
//!
//! fn apply(state: &mut SessionState, frame: &str) -> Result<(), DecodeError> {
//!     let envelope: ActionEnvelope = decode::from_text(frame)?; // errors name the bad field's path
//!     match session_reducer(state, &envelope.action, &SystemClock) {
//!         Outcome::Applied(changed) => { /* `changed` lists the top-level fields touched */ }
//!         Outcome::NoOp(why) => eprintln!("ignored: {}", why.reason()),
//!     }
//!     Ok(())
//! }
//!
//! let mut state: SessionState = decode::from_text(
//!     r#"{"summary":{"resource":"copilot:/s","provider":"copilot","title":"","status":1,
//!         "createdAt":0,"modifiedAt":0},"lifecycle":"ready","turns":[]}"#,
//! )?;
//! apply(&mut state, r#"{"channel":"copilot:/s","serverSeq":1,
//!     "action":{"type":"session/titleChanged","title":"Hello"}}"#)?;
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
