//! The HTTP side shared by the wire formats: one streaming request with retries, timeouts and
//! cancellation ([`spawn_stream`]), one bounded JSON GET ([`get_json`]).
//!
//! A stream runs in its own task that owns the HTTP response; [`EventStream`] is the receiving
//! end. Cancelling its token, or dropping it, ends the task at once, and with it the response:
//! the connection is closed, not drained.

use super::config::ProviderConfig;
use super::error::{ProviderError, TimeoutPhase};
use super::secret::Secret;
use super::types::ProviderEvent;
use super::wire::{clean, status_error, Flow, Wire};
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use http::HeaderMap;
use reqwest::Url;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

/// Events buffered between the HTTP task and the consumer (backpressure beyond it).
const CHANNEL: usize = 256;
/// Largest error body read.
const MAX_ERROR_BODY: usize = 64 << 10;

/// One item of a provider's stream.
pub type EventResult = Result<ProviderEvent, ProviderError>;

/// The events of one model response: ends after [`ProviderEvent::Finish`] or one error.
/// Dropping it cancels the request.
pub struct EventStream {
    rx: mpsc::Receiver<EventResult>,
    _cancel_on_drop: DropGuard,
}

impl EventStream {
    /// The next event; `None` once the stream is over.
    pub async fn next_event(&mut self) -> Option<EventResult> {
        self.rx.recv().await
    }

    /// A stream that yields `error` and ends (a request that could not be built).
    pub(crate) fn failed(error: ProviderError) -> EventStream {
        let (tx, rx) = mpsc::channel(1);
        let _ = tx.try_send(Err(error));
        EventStream {
            rx,
            _cancel_on_drop: CancellationToken::new().drop_guard(),
        }
    }
}

impl fmt::Debug for EventStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EventStream")
    }
}

impl Stream for EventStream {
    type Item = EventResult;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<EventResult>> {
        self.rx.poll_recv(cx)
    }
}

/// A request ready to send: where, which headers (the key among them), which body.
pub struct Prepared {
    pub url: Url,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// The client of one provider (connection pool, connect timeout; no proxy features built).
pub fn client(config: &ProviderConfig) -> Result<reqwest::Client, ProviderError> {
    // reqwest's rustls needs a process-wide crypto provider; ring is the one built in.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(config.timeouts.connect)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ProviderError::InvalidRequest(chain(&e)))
}

/// Starts `prepared` in a task and returns its events; `wire` makes a decoder per attempt.
pub fn spawn_stream<W: Wire>(
    client: reqwest::Client,
    config: Arc<ProviderConfig>,
    prepared: Prepared,
    wire: impl Fn() -> W + Send + 'static,
    key: Option<Secret>,
    cancel: CancellationToken,
) -> EventStream {
    let (tx, rx) = mpsc::channel(CHANNEL);
    let cancel = cancel.child_token();
    let guard = cancel.clone().drop_guard();
    tokio::spawn(async move {
        let run = Run {
            client,
            config,
            prepared,
            key,
            tx: tx.clone(),
        };
        tokio::select! {
            biased;
            _ = cancel.cancelled() => {
                let _ = tx.try_send(Err(ProviderError::Cancelled));
            }
            _ = run.drive(wire) => {}
        }
    });
    EventStream {
        rx,
        _cancel_on_drop: guard,
    }
}

struct Run {
    client: reqwest::Client,
    config: Arc<ProviderConfig>,
    prepared: Prepared,
    key: Option<Secret>,
    tx: mpsc::Sender<EventResult>,
}

impl Run {
    /// Attempts until one succeeds, fails for good, or something was streamed.
    async fn drive<W: Wire>(self, wire: impl Fn() -> W) {
        let policy = self.config.retry;
        let mut attempt = 1;
        loop {
            let mut emitted = false;
            let Err(error) = self.attempt(wire(), &mut emitted).await else {
                return;
            };
            if emitted || !error.is_retryable() || attempt >= policy.max_attempts {
                let _ = self.tx.send(Err(error)).await;
                return;
            }
            let backoff = policy.base_delay.saturating_mul(1 << (attempt - 1).min(16));
            let wait = error.retry_after().unwrap_or(backoff);
            if wait > policy.max_wait {
                let _ = self.tx.send(Err(error)).await;
                return;
            }
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    /// One request: `Ok` once the stream finished (or the consumer left).
    async fn attempt<W: Wire>(&self, mut wire: W, emitted: &mut bool) -> Result<(), ProviderError> {
        let timeouts = self.config.timeouts;
        let key = self.key.as_ref();
        let request = self
            .client
            .post(self.prepared.url.clone())
            .headers(self.prepared.headers.clone())
            .body(self.prepared.body.clone());
        let response = tokio::time::timeout(timeouts.first_byte, request.send())
            .await
            .map_err(|_| ProviderError::Timeout(TimeoutPhase::FirstByte))?
            .map_err(|e| send_error(&e, key))?;
        let status = response.status();
        if !status.is_success() {
            let headers = response.headers().clone();
            let body = read_bounded(response, MAX_ERROR_BODY, timeouts.idle).await;
            return Err(status_error(status.as_u16(), &headers, &body, key));
        }
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !content_type
            .to_ascii_lowercase()
            .starts_with("text/event-stream")
        {
            let shown = clean(content_type, key);
            return Err(ProviderError::MalformedChunk(format!(
                "expected a text/event-stream response, got `{shown}`"
            )));
        }
        let bytes = guarded(
            response.bytes_stream(),
            timeouts.idle,
            self.config.max_response_bytes,
        );
        let mut events = Box::pin(sse_stream::SseStream::from_bytes_stream(bytes));
        let mut out = Vec::new();
        loop {
            let flow = match events.next().await {
                None => {
                    wire.end(&mut out)?;
                    Flow::Done
                }
                Some(Err(e)) => return Err(sse_error(e, key)),
                Some(Ok(sse)) => match sse.data.as_deref() {
                    Some(data) => wire.event(sse.event.as_deref(), data, &mut out)?,
                    None => Flow::Continue,
                },
            };
            for event in out.drain(..) {
                *emitted = true;
                if crate::probe::on() && matches!(event, ProviderEvent::TextDelta(_)) {
                    crate::probe::mark(crate::probe::Stage::Decoded);
                }
                if self.tx.send(Ok(event)).await.is_err() {
                    return Ok(());
                }
            }
            if flow == Flow::Done {
                return Ok(());
            }
        }
    }
}

/// GET `url` and parse its JSON body (at most `limit` bytes), with the provider's timeouts.
pub async fn get_json(
    client: &reqwest::Client,
    config: &ProviderConfig,
    url: Url,
    headers: HeaderMap,
    key: Option<&Secret>,
) -> Result<serde_json::Value, ProviderError> {
    let limit = (config.max_response_bytes as usize).min(8 << 20);
    let response = tokio::time::timeout(
        config.timeouts.first_byte,
        client.get(url).headers(headers).send(),
    )
    .await
    .map_err(|_| ProviderError::Timeout(TimeoutPhase::FirstByte))?
    .map_err(|e| send_error(&e, key))?;
    let status = response.status();
    let headers = response.headers().clone();
    let body = read_bounded(response, limit + 1, config.timeouts.idle).await;
    if !status.is_success() {
        return Err(status_error(status.as_u16(), &headers, &body, key));
    }
    if body.len() > limit {
        return Err(ProviderError::TooLarge(limit as u64));
    }
    serde_json::from_slice(&body)
        .map_err(|e| ProviderError::MalformedChunk(format!("the model list is not JSON: {e}")))
}

/// Up to `limit` bytes of a body (what arrived, if it stalls or fails).
async fn read_bounded(response: reqwest::Response, limit: usize, idle: Duration) -> Vec<u8> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Ok(Some(Ok(chunk))) = tokio::time::timeout(idle, stream.next()).await {
        let room = limit.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= limit {
            break;
        }
    }
    body
}

/// Why the bytes of a stream stopped.
#[derive(Debug)]
enum ChunkError {
    Idle,
    TooLarge(u64),
    Body(reqwest::Error),
}

impl fmt::Display for ChunkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChunkError::Idle => f.write_str("idle timeout"),
            ChunkError::TooLarge(n) => write!(f, "over {n} bytes"),
            ChunkError::Body(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ChunkError {}

/// The body's chunks with the idle timeout and the size bound applied; ends after an error.
fn guarded(
    body: impl Stream<Item = reqwest::Result<Bytes>> + Send + 'static,
    idle: Duration,
    limit: u64,
) -> impl Stream<Item = Result<Bytes, ChunkError>> + Send {
    let body = Box::pin(body);
    futures_util::stream::unfold(Some((body, 0u64)), move |state| async move {
        let (mut body, seen) = state?;
        match tokio::time::timeout(idle, body.next()).await {
            Err(_) => Some((Err(ChunkError::Idle), None)),
            Ok(None) => None,
            Ok(Some(Err(e))) => Some((Err(ChunkError::Body(e)), None)),
            Ok(Some(Ok(chunk))) => {
                let seen = seen + chunk.len() as u64;
                if seen > limit {
                    Some((Err(ChunkError::TooLarge(limit)), None))
                } else {
                    Some((Ok(chunk), Some((body, seen))))
                }
            }
        }
    })
}

fn sse_error(error: sse_stream::Error, key: Option<&Secret>) -> ProviderError {
    match error {
        sse_stream::Error::Body(body) => match body.downcast::<ChunkError>() {
            Ok(chunk) => match *chunk {
                ChunkError::Idle => ProviderError::Timeout(TimeoutPhase::Idle),
                ChunkError::TooLarge(n) => ProviderError::TooLarge(n),
                ChunkError::Body(e) => ProviderError::StreamCut(clean(&chain(&e), key)),
            },
            Err(other) => ProviderError::StreamCut(clean(&other.to_string(), key)),
        },
        other => ProviderError::MalformedChunk(format!("not server-sent events: {other}")),
    }
}

/// A failure before any response: connect timeout, unreachable, or other.
fn send_error(error: &reqwest::Error, key: Option<&Secret>) -> ProviderError {
    if error.is_timeout() {
        ProviderError::Timeout(TimeoutPhase::Connect)
    } else if error.is_connect() {
        ProviderError::Connect(clean(&chain(error), key))
    } else if error.is_builder() {
        ProviderError::InvalidRequest(clean(&chain(error), key))
    } else {
        ProviderError::StreamCut(clean(&chain(error), key))
    }
}

/// An error and its sources, `a: b: c`.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let more = e.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = e.source();
    }
    text
}
