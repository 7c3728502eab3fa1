//! The AHP client: a sans-IO [`engine`] (JSON-RPC, subscriptions, handshake, reconnection),
//! [`transport`]s, and with the `native` feature an async client over tokio
//! (`native::AhpClient`, `native::MultiHostClient`).
//!
//! The engine does no I/O and never calls user code, so the same logic drives the native
//! client and the WebAssembly bindings.

pub mod engine;
mod error;
mod error_classes;
mod reconnect;
pub mod transport;
mod url;

#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub mod native;

pub use engine::{ConnectionState, Engine, EngineConfig, Event, PendingPolicy};
pub use error::{Error, TransportErrorKind};
pub use error_classes::{ErrorClass, ERROR_CLASSES};
pub use reconnect::ReconnectPolicy;
#[cfg(not(target_arch = "wasm32"))]
pub use url::generate_client_id;
pub use url::with_query_param;
