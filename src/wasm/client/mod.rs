//! The JS client classes: `AhpClient` ([`client`], [`commands`]), `Subscription`
//! ([`subscription`]) and `MultiHostClient` ([`multi`]), over the sans-IO engine of
//! [`crate::client`]. [`driver`] runs the engine in the JS event loop, [`transport`] opens
//! connections (WebSocket, or a custom factory), [`errors`] maps client errors to the JS
//! error classes of `js/runtime.js`. The TypeScript contract is `js/index.d.ts`.

#[allow(clippy::module_inception)] // `client.rs` holds `AhpClient`, as in `client::native`
pub mod client;
pub mod commands;
mod delivery;
pub mod driver;
pub mod errors;
pub mod events;
pub mod multi;
pub mod options;
pub mod subscription;
pub mod transport;

pub use client::AhpClient;
pub use multi::MultiHostClient;
pub use subscription::Subscription;
