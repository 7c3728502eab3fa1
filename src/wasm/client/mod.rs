//! The JS client classes: `AhpClient` ([`client`], [`commands`]), `Subscription`
//! ([`subscription`]) and `MultiHostClient` ([`multi`]), over the sans-IO engine of
//! [`crate::client`]. [`driver`] runs the engine in the JS event loop, [`transport`] opens
//! connections (WebSocket, or a custom factory), [`errors`] maps client errors to the JS
//! error classes of `js/runtime.js`. The TypeScript contract is `js/index.d.ts`.

#[allow(clippy::module_inception)] // `client.rs` holds `AhpClient`, as in `client::native`
mod client;
mod commands;
mod delivery;
mod driver;
mod errors;
mod events;
mod multi;
mod options;
mod subscription;
mod transport;

pub use client::AhpClient;
