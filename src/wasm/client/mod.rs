//! The JS client classes over the sans-IO engine of [`crate::client`]; the TypeScript
//! contract is `js/index.d.ts`. One type per file (with the private types only it uses: its
//! entries); the files in layers, each using only the ones below it (`cargo run -p xtask --
//! imports` checks there is no circle):
//!
//! 1. The classes: `AhpClient` ([`client`], its command methods in [`commands`]),
//!    `Subscription` ([`subscription`]), `MultiHostClient` ([`multi`]); with [`args`] (their
//!    arguments' checks) and [`options`] (`ConnectOptions`).
//! 2. The driver: [`driver`]'s `Inner`, one client's engine run in the JS event loop, all of
//!    its methods in that file in the order a frame goes (the transport's report, the engine
//!    drained, the loop, user code called). It makes the classes' objects through
//!    constructors `client` gives it.
//! 3. `Inner`'s parts, which hold data and never call user code: [`connection`]
//!    (`Connection`), [`mailbox`] (`Mailbox`), [`requests`] (`Requests` of [`waiter`]s and
//!    their [`decode`]), [`channels`] (`Channels` of [`channel`]s, updated by [`changes`]),
//!    [`listeners`] (`Listeners`, a [`registry`] of each kind of [`listener`]), [`lifetime`]
//!    (`Lifetime`), [`timer`] (`Timer`).
//! 4. The connections: [`transport`] opens them (WebSocket, or a custom factory; frames of a
//!    custom one come through a [`frame_sink`]) as a [`conn`], reporting to the driver
//!    through [`transport_events`] (a trait the driver implements).
//! 5. The JS forms of what the client reports ([`events`], queued as a [`delivery`]) and of
//!    its errors ([`errors`]: the classes of `js/errors.js`).

mod args;
mod changes;
mod channel;
mod channels;
#[allow(clippy::module_inception)] // `client.rs` holds `AhpClient`, as in `client::native`
mod client;
mod commands;
mod conn;
mod connection;
mod decode;
mod delivery;
mod driver;
mod errors;
mod events;
mod frame_sink;
mod lifetime;
mod listener;
mod listeners;
mod mailbox;
mod multi;
mod options;
mod registry;
mod requests;
mod subscription;
mod timer;
mod transport;
mod transport_events;
mod waiter;

pub use client::AhpClient;
