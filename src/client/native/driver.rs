//! The task that drives a client's engine: moves frames between the transport and the engine,
//! fires timers, and reconnects with backoff.

use super::events::ClientEvent;
use super::inner::Inner;
use super::{BoxTransport, Connector, ReconnectPolicy};
use crate::client::engine::Event;
use crate::client::transport::{recv, try_recv};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// Frames gathered into one batch at most (one change notification per channel per batch).
const MAX_BATCH: usize = 256;

enum End {
    /// The app closed the client.
    Closed,
    /// The connection dropped or the handshake failed.
    Lost(String),
}

pub(super) async fn run(
    inner: Arc<Inner>,
    connector: Arc<dyn Connector>,
    policy: ReconnectPolicy,
    mut transport: BoxTransport,
) {
    let mut ever_connected = false;
    loop {
        let end = serve(&inner, &mut transport, &mut ever_connected).await;
        transport.close();
        let reason = match end {
            End::Closed => return,
            End::Lost(reason) => reason,
        };
        if !ever_connected {
            // The first handshake failed: `connect` reports it; nothing to resume.
            inner.closed.store(true, Ordering::SeqCst);
            inner.with_engine(|engine, _| engine.close());
            return;
        }
        inner.with_engine(|engine, now| engine.on_close(&reason, now));
        match reconnect(&inner, &*connector, &policy).await {
            Some(t) => transport = t,
            None => {
                inner.closed.store(true, Ordering::SeqCst);
                inner.with_engine(|engine, _| engine.close());
                return;
            }
        }
    }
}

/// Attempts to reconnect until it works, the policy gives up, or the client is closed.
async fn reconnect(
    inner: &Arc<Inner>,
    connector: &dyn Connector,
    policy: &ReconnectPolicy,
) -> Option<BoxTransport> {
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        if policy.gives_up(attempt) {
            return None;
        }
        let retry_at = tokio::time::Instant::now() + policy.delay(attempt);
        loop {
            if inner.closed.load(Ordering::SeqCst) {
                return None;
            }
            // Requests queued while offline still time out.
            let tick = next_tick(inner).unwrap_or(retry_at).min(retry_at);
            tokio::select! {
                _ = tokio::time::sleep_until(tick) => {
                    if tick >= retry_at {
                        break;
                    }
                    inner.with_engine(|engine, now| engine.on_tick(now));
                }
                _ = inner.wake.notified() => {}
            }
        }
        match connector.connect(&inner.connect_url).await {
            Ok(transport) => {
                inner.with_engine(|engine, now| engine.on_open(now));
                return Some(transport);
            }
            Err(error) => {
                let _ = inner
                    .events
                    .send(ClientEvent::ReconnectFailed { attempt, error });
            }
        }
    }
}

/// When the engine's next request deadline falls, as a tokio instant.
fn next_tick(inner: &Inner) -> Option<tokio::time::Instant> {
    let deadline = inner.engine().next_deadline()?;
    let wait = ((deadline - inner.now()).max(0.0) + 1.0) / 1000.0;
    Some(tokio::time::Instant::now() + Duration::from_secs_f64(wait))
}

/// Serves one connection until it ends.
async fn serve(inner: &Arc<Inner>, transport: &mut BoxTransport, ever_connected: &mut bool) -> End {
    loop {
        if inner.closed.load(Ordering::SeqCst) {
            return End::Closed;
        }
        // Outgoing frames, then the engine's events (delivered in order, engine unlocked).
        let (frames, events, deadline, now, order) = {
            let mut engine = inner.engine();
            let frames: Vec<String> = std::iter::from_fn(|| engine.poll_transmit()).collect();
            let events: Vec<Event> = std::iter::from_fn(|| engine.poll_event()).collect();
            let order = inner.delivery_order();
            (frames, events, engine.next_deadline(), inner.now(), order)
        };
        for frame in frames {
            if let Err(e) = transport.send(frame) {
                return End::Lost(e.to_string());
            }
        }
        let mut failed = None;
        for event in &events {
            match event {
                Event::Connected { .. } => *ever_connected = true,
                Event::HandshakeFailed(error) => {
                    failed = Some(format!("handshake failed: {error}"))
                }
                Event::ConnectionStale => failed = Some("keep-alive ping unanswered".into()),
                _ => {}
            }
        }
        inner.handle_events(events);
        drop(order);
        if let Some(reason) = failed {
            return End::Lost(reason);
        }
        let sleep = deadline.map(|d| Duration::from_secs_f64(((d - now).max(0.0) + 1.0) / 1000.0));
        tokio::select! {
            frame = recv(transport) => match frame {
                Some(Ok(first)) => {
                    let mut batch = vec![first];
                    while batch.len() < MAX_BATCH {
                        match try_recv(transport) {
                            Some(Some(Ok(frame))) => batch.push(frame),
                            _ => break,
                        }
                    }
                    inner.engine().handle_frames(batch, inner.now());
                }
                Some(Err(e)) => return End::Lost(e.to_string()),
                None => return End::Lost("closed by the peer".into()),
            },
            _ = inner.wake.notified() => {}
            _ = tokio::time::sleep(sleep.unwrap_or(Duration::from_secs(3600))), if sleep.is_some() => {
                inner.engine().on_tick(inner.now());
            }
        }
    }
}
