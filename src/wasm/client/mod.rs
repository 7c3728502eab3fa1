//! The JS client classes: `AhpClient` ([`client`], [`commands`]), `Subscription`
//! ([`subscription`]) and `MultiHostClient` ([`multi`]), over the sans-IO engine of
//! [`crate::client`]. [`driver`] runs the engine in the JS event loop over the parts of its
//! state ([`connection`], [`mailbox`], [`requests`], [`channels`], [`listeners`]) and
//! [`delivery`] calls user code; [`transport`] opens connections (WebSocket, or a custom
//! factory), [`timer`] wraps `setTimeout`, [`errors`] maps client errors to the JS error
//! classes of `js/errors.js`. The TypeScript contract is `js/index.d.ts`.

mod channels;
#[allow(clippy::module_inception)] // `client.rs` holds `AhpClient`, as in `client::native`
mod client;
mod commands;
mod connection;
mod delivery;
mod driver;
mod errors;
mod events;
mod listeners;
mod mailbox;
mod multi;
mod options;
mod requests;
mod subscription;
mod timer;
pub(crate) mod transport;

pub use client::AhpClient;
