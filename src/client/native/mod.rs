//! The async native client (feature `native`, tokio): [`AhpClient`] for one host,
//! [`MultiHostClient`] for several. A thin driver around the sans-IO
//! [`Engine`](crate::client::Engine).
//!
//! On an AHP 1.0 connection (offer `"1.0.0"`): the 1.0 commands are [`AhpClient::v1`]'s, an
//! own action goes out with [`AhpClient::dispatch_v1`], a channel's optimistic state is
//! [`AhpClient::state_v1`], and its changes and the host's typed notifications arrive on
//! [`AhpClient::events`] (a [`Subscription`] handle has its channel's: `state_v1`,
//! `dispatch_v1`, and `SubscriptionEvent::V1` from `next_event`):
//!
//! ```no_run
//! use ahp_wasm::client::engine::Event;
//! use ahp_wasm::client::native::{AhpClient, ClientEvent, ConnectOptions};
//! use ahp_wasm::protocol::v1::{ListSessionsParams, StateAction};
//! use ahp_wasm::sync::v1::AnyState;
//!
//! # async fn run(token: String, action: StateAction) -> Result<(), ahp_wasm::client::Error> {
//! let options = ConnectOptions {
//!     token: Some(token),
//!     protocol_versions: vec!["1.0.0".into()],
//!     ..Default::default()
//! };
//! let client = AhpClient::connect("ws://127.0.0.1:8080/ahp", options).await?;
//! let sessions = client.v1().list_sessions(ListSessionsParams::default()).await?;
//! let mut events = client.events();
//! client.subscribe("ahp-chat:/1").await?;
//! let seq = client.dispatch_v1("ahp-chat:/1", action)?; // applied locally at once
//! while let Ok(event) = events.recv().await {
//!     match event {
//!         // One per channel per batch of envelopes; the state is the optimistic one.
//!         ClientEvent::Protocol(Event::ChannelV1(change)) => {
//!             if let Some(AnyState::Chat(chat)) = client.state_v1(change.channel()) {
//!                 println!("{}: {} turns", chat.title, chat.turns.len());
//!             }
//!         }
//!         ClientEvent::NotificationV1(n) => println!("{}", n.method()), // typed as 1.0's
//!         _ => {}
//!     }
//! }
//! # let _ = (sessions, seq); Ok(()) }
//! ```
//!
//! On AHP 0.3.0 (the default offer), a subscription handle carries its channel's state and
//! events:
//!
//! ```no_run
//! use ahp_wasm::client::native::{AhpClient, ConnectOptions};
//! use ahp_wasm::protocol::{ListSessionsParams, SessionState, StateAction};
//!
//! # async fn run() -> Result<(), ahp_wasm::client::Error> {
//! let options = ConnectOptions { token: Some("secret".into()), ..Default::default() };
//! let client = AhpClient::connect("ws://127.0.0.1:8080/ahp", options).await?;
//! let sessions = client.list_sessions(ListSessionsParams::default()).await?;
//! let mut sub = client.subscribe("ahp-session:/1").await?;
//! let action: StateAction = serde_json::from_str(r#"{"type":"session/titleChanged","title":"Hi"}"#).unwrap();
//! let seq = sub.dispatch(action)?; // applied locally at once
//! while let Some(event) = sub.next_event().await {
//!     let title = sub.state_as::<SessionState>().map(|s| s.summary.title);
//!     println!("{event:?}: {title:?} ({} pending)", sub.pending_count());
//! }
//! # let _ = (sessions, seq); Ok(()) }
//! ```

mod client;
mod commands;
mod commands_v1;
mod driver;
mod events;
mod inner;
mod multi;
mod subscription;

pub use client::AhpClient;
pub use commands_v1::AhpClientV1;
pub use events::{ClientEvent, SubscriptionEvent};
pub use multi::MultiHostClient;
pub use subscription::Subscription;

use super::engine::PendingPolicy;
use super::transport::memory::MemoryConnector;
use super::transport::{ws, Transport};
use super::Error;
use crate::protocol::jsonrpc::{decode_params, Command, ErrorObject};
use crate::protocol::{ClientCapabilities, JsonValue};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A transport the native client can drive.
pub type BoxTransport = Box<dyn Transport + Send>;

/// Opens connections, for the first connect and every reconnect.
pub trait Connector: Send + Sync + 'static {
    /// Connects to `url`.
    fn connect(&self, url: &str) -> BoxFuture<Result<BoxTransport, Error>>;
}

/// WebSockets over tokio-tungstenite.
#[derive(Debug, Clone, Copy, Default)]
pub struct WsConnector;

impl Connector for WsConnector {
    fn connect(&self, url: &str) -> BoxFuture<Result<BoxTransport, Error>> {
        let url = url.to_string();
        Box::pin(async move { Ok(Box::new(ws::connect(&url).await?) as BoxTransport) })
    }
}

impl Connector for MemoryConnector {
    fn connect(&self, _url: &str) -> BoxFuture<Result<BoxTransport, Error>> {
        let result = MemoryConnector::connect(self).map(|t| Box::new(t) as BoxTransport);
        Box::pin(async move { result })
    }
}

pub use crate::client::ReconnectPolicy;

/// Handles one server→client request method; returns the JSON result or an error object.
pub type Handler = Arc<
    dyn Fn(Option<crate::protocol::RawJsonBuf>) -> BoxFuture<Result<JsonValue, ErrorObject>>
        + Send
        + Sync,
>;

/// Options of [`AhpClient::connect`].
#[derive(Clone)]
pub struct ConnectOptions {
    /// The client id; generated if absent. Kept across reconnects.
    pub client_id: Option<String>,
    /// Channels to subscribe to in `initialize` (default: `ahp-root://`).
    pub initial_subscriptions: Vec<String>,
    /// Offered protocol versions, most preferred first (default: `["0.3.0"]`; see
    /// [`EngineConfig::protocol_versions`](crate::client::engine::EngineConfig::protocol_versions)).
    /// When the host chooses `"1.0.0"`, use [`AhpClient::v1`] (its commands),
    /// [`AhpClient::dispatch_v1`] and [`AhpClient::state_v1`]; 1.0 channel events arrive on
    /// [`AhpClient::events`] and on the channel's [`Subscription`] (`SubscriptionEvent::V1`,
    /// with its `state_v1` and `dispatch_v1`).
    pub protocol_versions: Vec<String>,
    /// Declared client capabilities.
    pub capabilities: Option<ClientCapabilities>,
    /// Preferred locale (BCP 47).
    pub locale: Option<String>,
    /// Access token, appended to the URL as the `tkn` query parameter.
    pub token: Option<String>,
    /// Per-request timeout.
    pub request_timeout: Duration,
    /// Ping after this long without traffic; an unanswered ping drops the connection (and
    /// reconnects). `None`: no keep-alive.
    pub keepalive: Option<Duration>,
    /// Reconnection after a drop.
    pub reconnect: ReconnectPolicy,
    /// Own actions a dropped connection may have carried: see [`PendingPolicy`].
    pub pending_policy: PendingPolicy,
    /// Server→client request handlers by method (see [`ConnectOptions::handle`]).
    pub handlers: HashMap<String, Handler>,
    /// How connections are opened (default: WebSocket).
    pub connector: Arc<dyn Connector>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            client_id: None,
            initial_subscriptions: vec![crate::protocol::jsonrpc::ROOT_CHANNEL.to_string()],
            protocol_versions: crate::protocol::SUPPORTED_PROTOCOL_VERSIONS
                .iter()
                .map(|v| v.to_string())
                .collect(),
            capabilities: None,
            locale: None,
            token: None,
            request_timeout: Duration::from_secs(30),
            keepalive: Some(Duration::from_secs(30)),
            reconnect: ReconnectPolicy::default(),
            pending_policy: PendingPolicy::default(),
            handlers: HashMap::new(),
            connector: Arc::new(WsConnector),
        }
    }
}

impl ConnectOptions {
    /// Answers server requests of command `C` (e.g. [`ResourceRead`]) with `handler`.
    /// Methods without a handler are answered `-32601`.
    ///
    /// [`ResourceRead`]: crate::protocol::jsonrpc::ResourceRead
    pub fn handle<C, F, Fut>(mut self, handler: F) -> Self
    where
        C: Command,
        F: Fn(C::Params) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<C::Result, ErrorObject>> + Send + 'static,
    {
        self.handlers
            .insert(C::METHOD.to_string(), typed_handler::<C, F, Fut>(handler));
        self
    }

    /// Uses `connector` to open connections (e.g. an in-memory one in tests).
    pub fn with_connector(mut self, connector: impl Connector) -> Self {
        self.connector = Arc::new(connector);
        self
    }
}

pub(crate) fn typed_handler<C, F, Fut>(handler: F) -> Handler
where
    C: Command,
    F: Fn(C::Params) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<C::Result, ErrorObject>> + Send + 'static,
{
    let handler = Arc::new(handler);
    Arc::new(move |raw| {
        let handler = handler.clone();
        Box::pin(async move {
            let params =
                decode_params::<C::Params>(raw.as_ref().map(crate::protocol::RawJsonBuf::as_raw))?;
            let result = handler(params).await?;
            serde_json::to_value(result).map_err(|e| {
                ErrorObject::new(crate::protocol::errors::INTERNAL_ERROR, e.to_string())
            })
        })
    })
}

#[cfg(test)]
mod tests;
