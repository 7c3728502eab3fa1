//! [`Inner`]: the engine behind a mutex, and the delivery of its events (request results,
//! subscription streams, the client's event stream, server-request handlers); shared by a
//! client's clones, its subscriptions and the driver task. [`CloseOnDrop`] closes it with
//! the last handle.

use super::events::{ClientEvent, SubscriptionEvent};
use super::Handler;
use crate::client::engine::{Engine, Event};
use crate::client::{ConnectionState, Error};
use crate::protocol::{RawJsonBuf, StateAction};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{broadcast, oneshot, watch, Notify};

type Waiter = oneshot::Sender<Result<RawJsonBuf, Error>>;

/// What a client's clones, its subscriptions and its driver task share: the engine and where
/// its events go.
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
    /// A client's shared state over `engine`, before its first connection opens.
    pub fn new(
        connect_url: String,
        url: String,
        engine: Engine,
        handlers: HashMap<String, Handler>,
        handshake: oneshot::Sender<Result<(), Error>>,
    ) -> Inner {
        Inner {
            connect_url,
            url,
            engine: Mutex::new(engine),
            waiters: Mutex::new(HashMap::new()),
            wake: Notify::new(),
            closed: AtomicBool::new(false),
            state: watch::channel(ConnectionState::Idle).0,
            events: broadcast::channel(1024).0,
            channels: Mutex::new(HashMap::new()),
            handlers: Mutex::new(handlers),
            handshake: Mutex::new(Some(handshake)),
            delivery: Mutex::new(()),
            epoch_ms: crate::reduce::Clock::now(&crate::reduce::SystemClock),
            start: tokio::time::Instant::now(),
        }
    }

    /// The URL as given, without the token.
    pub fn url(&self) -> &str {
        &self.url
    }

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
                #[cfg(feature = "v1")]
                Event::ChannelV1(e) => {
                    // To the channel's handles and to `events()`: copied only when both listen
                    // (a streamed chat sends one per batch, and most apps read one of the two).
                    let app_listens = self.events.receiver_count() > 0;
                    let channels = lock(&self.channels);
                    match channels
                        .get(e.channel())
                        .filter(|tx| tx.receiver_count() > 0)
                    {
                        Some(tx) if app_listens => {
                            let _ = tx.send(SubscriptionEvent::V1(Box::new(e.clone())));
                        }
                        Some(tx) => {
                            let _ = tx.send(SubscriptionEvent::V1(Box::new(e)));
                            continue;
                        }
                        None => {}
                    }
                    drop(channels);
                    if app_listens {
                        self.publish(Event::ChannelV1(e));
                    }
                }
                #[cfg(feature = "v1")]
                Event::NotificationV1 { notification, .. } => {
                    let _ = self.events.send(ClientEvent::NotificationV1(notification));
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

    /// Dispatches an action optimistically on a subscribed channel; returns its `clientSeq`.
    pub fn dispatch(self: &Arc<Self>, uri: &str, action: StateAction) -> Result<u64, Error> {
        self.with_engine(|engine, now| engine.dispatch(uri, action, now))
    }

    /// Unsubscribes from a channel (every handle of it).
    pub fn unsubscribe(self: &Arc<Self>, uri: &str) {
        self.with_engine(|engine, now| engine.unsubscribe(uri, now));
        self.forget_channel(uri);
    }

    /// Answers server requests of `method` with `handler` from now on.
    pub fn add_handler(self: &Arc<Self>, method: &str, handler: Handler) {
        lock(&self.handlers).insert(method.to_string(), handler);
        self.with_engine(|engine, _| engine.handle_requests(method));
    }
}

/// Closes the connection when the last handle (an `AhpClient` clone or a `Subscription`)
/// goes (the driver task holds only `Inner`, so it would otherwise run forever).
pub(super) struct CloseOnDrop(pub Arc<Inner>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        close(&self.0);
    }
}

/// Closes the client: outstanding requests fail with [`Error::Closed`], no reconnect.
pub(super) fn close(inner: &Arc<Inner>) {
    inner.closed.store(true, Ordering::SeqCst);
    inner.with_engine(|engine, _| engine.close());
    inner.wake.notify_one();
}
