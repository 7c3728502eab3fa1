//! [`AhpClient`]: the engine behind a mutex, driven by a tokio task.

use super::subscription::{Subscription, SubscriptionEvent};
use super::{driver, BoxTransport, ConnectOptions, Connector, Handler};
use crate::client::engine::{decode_result, Engine, EngineConfig, Event, ServerInfo};
use crate::client::{generate_client_id, with_query_param, ConnectionState, Error};
use crate::protocol::jsonrpc::Command;
use crate::protocol::RawJsonBuf;
use crate::protocol::StateAction;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{broadcast, oneshot, watch, Notify};

/// What a client reports besides request results and per-subscription changes.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // mirrors `Event`
pub enum ClientEvent {
    /// An engine event: state changes, notifications, rejections, dropped actions, resyncs,
    /// lost subscriptions, malformed frames (never `Response` or `ServerRequest`).
    Protocol(Event),
    /// A reconnection attempt failed; another follows unless the policy gives up.
    ReconnectFailed {
        /// 1-based attempt number.
        attempt: u32,
        /// Why.
        error: Error,
    },
}

type Waiter = oneshot::Sender<Result<RawJsonBuf, Error>>;

pub(super) struct Inner {
    /// The URL connections are opened with (may carry the token: never log it).
    pub connect_url: String,
    /// The URL as given, without the token.
    url: String,
    pub engine: Mutex<Engine>,
    waiters: Mutex<HashMap<u64, Waiter>>,
    pub wake: Notify,
    pub closed: AtomicBool,
    pub state: watch::Sender<ConnectionState>,
    pub events: broadcast::Sender<ClientEvent>,
    channels: Mutex<HashMap<String, broadcast::Sender<SubscriptionEvent>>>,
    handlers: Mutex<HashMap<String, Handler>>,
    handshake: Mutex<Option<oneshot::Sender<Result<(), Error>>>>,
    /// Held from draining the engine's events until they are delivered, so events drained
    /// by different threads are delivered in the engine's order.
    delivery: Mutex<()>,
    /// Monotonic clock origin: `now()` is epoch-based ms that never goes back.
    epoch_ms: f64,
    start: tokio::time::Instant,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Inner {
    pub fn now(&self) -> f64 {
        self.epoch_ms + self.start.elapsed().as_secs_f64() * 1000.0
    }

    pub fn engine(&self) -> MutexGuard<'_, Engine> {
        lock(&self.engine)
    }

    /// Runs `f` on the engine, then delivers the events it queued (after unlocking the
    /// engine, in order) and wakes the driver to send what it queued.
    pub fn with_engine<R>(self: &Arc<Self>, f: impl FnOnce(&mut Engine, f64) -> R) -> R {
        let mut engine = self.engine();
        let result = f(&mut engine, self.now());
        let events: Vec<Event> = std::iter::from_fn(|| engine.poll_event()).collect();
        let order = self.delivery_order();
        drop(engine);
        self.handle_events(events);
        drop(order);
        self.wake.notify_one();
        result
    }

    /// Take while holding the engine lock, release after delivering the drained events.
    pub fn delivery_order(&self) -> MutexGuard<'_, ()> {
        lock(&self.delivery)
    }

    /// Delivers engine events: resolves requests, feeds subscription streams and the event
    /// stream, runs server-request handlers. Never called with the engine locked.
    pub fn handle_events(self: &Arc<Self>, events: Vec<Event>) {
        for event in events {
            match event {
                Event::Response { id, result } => {
                    if let Some(waiter) = lock(&self.waiters).remove(&id) {
                        let _ = waiter.send(result);
                    }
                }
                Event::ServerRequest(request) => {
                    let handler = lock(&self.handlers).get(&request.method).cloned();
                    let inner = self.clone();
                    if let Some(handler) = handler {
                        tokio::spawn(async move {
                            let result = handler(request.params.clone()).await;
                            inner.with_engine(|engine, _| engine.respond(&request.id, result));
                        });
                    }
                }
                Event::StateChanged(state) => {
                    self.state.send_replace(state);
                    self.publish(Event::StateChanged(state));
                }
                Event::Connected { .. } => {
                    if let Some(tx) = lock(&self.handshake).take() {
                        let _ = tx.send(Ok(()));
                    }
                    self.publish(event);
                }
                Event::HandshakeFailed(ref error) => {
                    if let Some(tx) = lock(&self.handshake).take() {
                        let _ = tx.send(Err(error.clone()));
                    }
                    self.publish(event);
                }
                Event::ChannelChanged {
                    ref channel,
                    changed,
                    confirmed_changed,
                    pending,
                    ..
                } => self.to_channel(
                    channel,
                    SubscriptionEvent::Changed {
                        changed,
                        confirmed_changed,
                        pending,
                    },
                ),
                Event::Subscribed { ref channel } => {
                    self.to_channel(channel, SubscriptionEvent::Subscribed);
                    self.publish(event);
                }
                Event::Rejected {
                    ref channel,
                    ref rejection,
                } => {
                    self.to_channel(channel, SubscriptionEvent::Rejected(rejection.clone()));
                    self.publish(event);
                }
                Event::PendingDropped {
                    ref channel,
                    ref actions,
                    reason,
                } => {
                    let e = SubscriptionEvent::PendingDropped {
                        actions: actions.clone(),
                        reason,
                    };
                    self.to_channel(channel, e);
                    self.publish(event);
                }
                Event::SubscriptionLost {
                    ref channel,
                    ref reason,
                } => {
                    self.to_channel(channel, SubscriptionEvent::Lost(reason.clone()));
                    self.publish(event);
                }
                other => self.publish(other),
            }
        }
    }

    pub fn publish(&self, event: Event) {
        let _ = self.events.send(ClientEvent::Protocol(event));
    }

    fn to_channel(&self, channel: &str, event: SubscriptionEvent) {
        if let Some(tx) = lock(&self.channels).get(channel) {
            let _ = tx.send(event);
        }
    }

    pub fn channel_events(&self, channel: &str) -> broadcast::Receiver<SubscriptionEvent> {
        lock(&self.channels)
            .entry(channel.to_string())
            .or_insert_with(|| broadcast::channel(256).0)
            .subscribe()
    }

    pub fn forget_channel(&self, channel: &str) {
        lock(&self.channels).remove(channel);
    }

    /// Starts a request on the engine and registers its waiter atomically.
    pub fn start(
        self: &Arc<Self>,
        f: impl FnOnce(&mut Engine, f64) -> u64,
    ) -> oneshot::Receiver<Result<RawJsonBuf, Error>> {
        let (tx, rx) = oneshot::channel();
        self.with_engine(|engine, now| {
            let id = f(engine, now);
            lock(&self.waiters).insert(id, tx);
        });
        rx
    }

    pub async fn call(
        self: &Arc<Self>,
        f: impl FnOnce(&mut Engine, f64) -> u64,
    ) -> Result<RawJsonBuf, Error> {
        self.start(f).await.unwrap_or(Err(Error::Closed))
    }
}

/// A connection to one AHP host: requests, subscriptions with optimistic dispatch, automatic
/// reconnection. Cheap to clone (all clones share the connection); the connection closes when
/// the last clone (and the last [`Subscription`]) is dropped, or on [`AhpClient::close`].
#[derive(Clone)]
pub struct AhpClient {
    pub(super) inner: Arc<Inner>,
    _owner: Arc<CloseOnDrop>,
}

/// Closes the connection when the last [`AhpClient`] clone goes (the driver task holds only
/// `Inner`, so it would otherwise run forever).
struct CloseOnDrop(Arc<Inner>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        close(&self.0);
    }
}

fn close(inner: &Arc<Inner>) {
    inner.closed.store(true, Ordering::SeqCst);
    inner.with_engine(|engine, _| engine.close());
    inner.wake.notify_one();
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
        let inner = Arc::new(Inner {
            connect_url: url,
            url: display_url,
            engine: Mutex::new(engine),
            waiters: Mutex::new(HashMap::new()),
            wake: Notify::new(),
            closed: AtomicBool::new(false),
            state: watch::channel(ConnectionState::Idle).0,
            events: broadcast::channel(1024).0,
            channels: Mutex::new(HashMap::new()),
            handlers: Mutex::new(options.handlers),
            handshake: Mutex::new(Some(handshake_tx)),
            delivery: Mutex::new(()),
            epoch_ms: crate::reduce::Clock::now(&crate::reduce::SystemClock),
            start: tokio::time::Instant::now(),
        });
        inner.with_engine(|engine, now| engine.on_open(now));
        tokio::spawn(driver::run(
            inner.clone(),
            connector,
            options.reconnect,
            transport,
        ));
        let client = AhpClient {
            _owner: Arc::new(CloseOnDrop(inner.clone())),
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
        &self.inner.url
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
        Ok(Subscription::new(self.clone(), uri.to_string(), events))
    }

    /// Unsubscribes from a channel (every handle of it).
    pub fn unsubscribe(&self, uri: &str) {
        self.inner
            .with_engine(|engine, now| engine.unsubscribe(uri, now));
        self.inner.forget_channel(uri);
    }

    /// Dispatches an action optimistically on a subscribed channel; returns its `clientSeq`.
    pub fn dispatch(&self, uri: &str, action: StateAction) -> Result<u64, Error> {
        self.inner
            .with_engine(|engine, now| engine.dispatch(uri, action, now))
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
        lock(&self.inner.handlers).insert(
            C::METHOD.to_string(),
            super::typed_handler::<C, F, Fut>(handler),
        );
        self.inner
            .with_engine(|engine, _| engine.handle_requests(C::METHOD));
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
            .field("url", &self.inner.url)
            .field("state", &self.connection_state())
            .finish()
    }
}
