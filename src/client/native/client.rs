//! [`AhpClient`]: the engine behind a mutex ([`Inner`]), driven by a tokio task
//! ([`driver`]).

use super::driver;
use super::events::ClientEvent;
use super::inner::{close, CloseOnDrop, Inner};
use super::subscription::Subscription;
use super::{BoxTransport, ConnectOptions, Connector};
use crate::client::engine::{decode_result, Engine, EngineConfig, ServerInfo};
use crate::client::{generate_client_id, with_query_param, ConnectionState, Error};
use crate::protocol::jsonrpc::Command;
use crate::protocol::StateAction;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::{broadcast, oneshot, watch};

/// A connection to one AHP host: requests, subscriptions with optimistic dispatch, automatic
/// reconnection. Cheap to clone (all clones share the connection); the connection closes when
/// the last clone (and the last [`Subscription`]) is dropped, or on [`AhpClient::close`].
#[derive(Clone)]
pub struct AhpClient {
    inner: Arc<Inner>,
    /// Shared with the client's clones and subscriptions.
    owner: Arc<CloseOnDrop>,
}

impl AhpClient {
    /// Connects and performs `initialize` (offering every supported protocol version).
    /// Fails if the host cannot be reached or refuses the handshake (for example
    /// [`Error::UnsupportedProtocolVersion`]); later drops are retried per
    /// [`ConnectOptions::reconnect`].
    pub async fn connect(url: &str, options: ConnectOptions) -> Result<AhpClient, Error> {
        let display_url = url.to_string();
        let url = match &options.token {
            Some(token) => with_query_param(url, "tkn", token),
            None => url.to_string(),
        };
        let connector = options.connector.clone();
        let transport = connector.connect(&url).await.map_err(|e| match e {
            // Connect errors may quote the URL: keep the token out of them.
            Error::Transport { kind, .. } => {
                Error::transport(kind, format!("cannot connect to {display_url}"))
            }
            other => other,
        })?;
        Self::start(url, display_url, options, connector, transport).await
    }

    async fn start(
        url: String,
        display_url: String,
        options: ConnectOptions,
        connector: Arc<dyn Connector>,
        transport: BoxTransport,
    ) -> Result<AhpClient, Error> {
        let mut config = EngineConfig::new(options.client_id.unwrap_or_else(generate_client_id));
        config.initial_subscriptions = options.initial_subscriptions;
        config.protocol_versions = options.protocol_versions;
        config.capabilities = options.capabilities;
        config.locale = options.locale;
        config.request_timeout_ms = options.request_timeout.as_secs_f64() * 1000.0;
        config.pending_policy = options.pending_policy;
        config.keepalive_ms = options.keepalive.map(|d| d.as_secs_f64() * 1000.0);
        let mut engine = Engine::new(config);
        for method in options.handlers.keys() {
            engine.handle_requests(method.clone());
        }
        let (handshake_tx, handshake_rx) = oneshot::channel();
        let inner = Arc::new(Inner::new(
            url,
            display_url,
            engine,
            options.handlers,
            handshake_tx,
        ));
        inner.with_engine(|engine, now| engine.on_open(now));
        tokio::spawn(driver::run(
            inner.clone(),
            connector,
            options.reconnect,
            transport,
        ));
        let client = AhpClient {
            owner: Arc::new(CloseOnDrop(inner.clone())),
            inner,
        };
        match handshake_rx.await {
            Ok(Ok(())) => Ok(client),
            Ok(Err(error)) => {
                client.close();
                Err(error)
            }
            Err(_) => Err(Error::Closed),
        }
    }

    /// The URL connected to (as given: without the token).
    pub fn url(&self) -> &str {
        self.inner.url()
    }

    /// This client's id.
    pub fn client_id(&self) -> String {
        self.inner.engine().client_id().to_string()
    }

    /// The secret the host bound this client's id to, once connected (see
    /// [`EngineConfig::client_secret`](crate::client::EngineConfig::client_secret)).
    pub fn client_secret(&self) -> Option<String> {
        self.inner.engine().client_secret().map(str::to_owned)
    }

    /// What the server said in the handshake.
    pub fn server_info(&self) -> Option<ServerInfo> {
        self.inner.engine().server_info().cloned()
    }

    /// The protocol version the host chose in the last handshake (`"0.3.0"` or `"1.0.0"`).
    pub fn protocol_version(&self) -> &'static str {
        self.inner.engine().protocol_version()
    }

    /// The connection state now.
    pub fn connection_state(&self) -> ConnectionState {
        *self.inner.state.borrow()
    }

    /// Watches the connection state.
    pub fn state_changes(&self) -> watch::Receiver<ConnectionState> {
        self.inner.state.subscribe()
    }

    /// Client events (notifications such as `root/sessionAdded`, rejections, dropped actions,
    /// lost subscriptions, reconnect failures), from now on.
    pub fn events(&self) -> broadcast::Receiver<ClientEvent> {
        self.inner.events.subscribe()
    }

    /// Sends a typed request and awaits its typed result.
    pub async fn request<C: Command>(&self, params: C::Params) -> Result<C::Result, Error> {
        let raw = self
            .inner
            .call(|engine, now| engine.request::<C>(&params, now))
            .await?;
        decode_result::<C>(raw.as_raw())
    }

    /// Subscribes to a channel; the handle exposes its optimistic state.
    pub async fn subscribe(&self, uri: &str) -> Result<Subscription, Error> {
        let events = self.inner.channel_events(uri);
        self.inner
            .call(|engine, now| engine.subscribe(uri, now))
            .await?;
        Ok(Subscription::new(
            self.inner.clone(),
            self.owner.clone(),
            uri.to_string(),
            events,
        ))
    }

    /// Unsubscribes from a channel (every handle of it).
    pub fn unsubscribe(&self, uri: &str) {
        self.inner.unsubscribe(uri);
    }

    /// Dispatches an action optimistically on a subscribed channel; returns its `clientSeq`.
    pub fn dispatch(&self, uri: &str, action: StateAction) -> Result<u64, Error> {
        self.inner.dispatch(uri, action)
    }

    /// Dispatches an AHP 1.0 action optimistically on a subscribed channel, when the host
    /// speaks 1.0 (see [`Engine::dispatch_v1`]); returns its `clientSeq`.
    #[cfg(feature = "v1")]
    pub fn dispatch_v1(
        &self,
        uri: &str,
        action: crate::protocol::v1::StateAction,
    ) -> Result<u64, Error> {
        self.inner
            .with_engine(|engine, now| engine.dispatch_v1(uri, action, now))
    }

    /// The optimistic state of a subscribed 1.0 channel, when the host speaks 1.0.
    #[cfg(feature = "v1")]
    pub fn state_v1(&self, uri: &str) -> Option<crate::sync::v1::AnyState> {
        self.inner.engine().mirror_v1(uri).map(|m| m.state())
    }

    /// Answers server requests of command `C` from now on (see [`ConnectOptions::handle`]).
    pub fn handle<C, F, Fut>(&self, handler: F)
    where
        C: Command,
        F: Fn(C::Params) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<C::Result, crate::protocol::jsonrpc::ErrorObject>>
            + Send
            + 'static,
    {
        self.inner
            .add_handler(C::METHOD, super::typed_handler::<C, F, Fut>(handler));
    }

    /// Closes the client: outstanding requests fail with [`Error::Closed`], no reconnect.
    pub fn close(&self) {
        close(&self.inner);
    }

    /// Whether [`AhpClient::close`] was called (or reconnection gave up).
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::SeqCst)
    }
}

impl std::fmt::Debug for AhpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AhpClient")
            .field("url", &self.inner.url())
            .field("state", &self.connection_state())
            .finish()
    }
}
