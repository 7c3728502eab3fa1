//! [`ProviderError`]: every way a model request fails, typed so the host can tell the user
//! plainly (and offer `authenticate` on [`ProviderError::Auth`]). No variant ever holds the
//! API key: messages from the endpoint are scrubbed of it before they get here.

use std::fmt;
use std::time::Duration;

/// Which wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// Opening the connection (TCP and TLS).
    Connect,
    /// Waiting for the response's status and headers.
    FirstByte,
    /// Waiting for the next chunk of a streaming response.
    Idle,
}

/// Why a model request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderError {
    /// 401 or 403: no key, a wrong key, or a key without access.
    Auth { status: u16, message: String },
    /// 429 (or a rate-limit error in the stream): retried while the wait was within bounds;
    /// `retry_after` is what the endpoint asked for.
    RateLimited {
        retry_after: Option<Duration>,
        message: String,
    },
    /// 5xx (or an overload error in the stream), after the retries.
    Server { status: u16, message: String },
    /// Any other refusal (400 bad request, 404 unknown model, ...).
    Rejected { status: u16, message: String },
    /// The endpoint could not be reached.
    Connect(String),
    /// A wait ran out.
    Timeout(TimeoutPhase),
    /// The response stopped before its end (connection dropped or closed early).
    StreamCut(String),
    /// A chunk that is not what the wire format says (bad JSON, a tool call without a name).
    MalformedChunk(String),
    /// The endpoint reported an error inside the stream (`kind` as it named it).
    Stream { kind: String, message: String },
    /// The response grew past the provider's bound.
    TooLarge(u64),
    /// The request could not be built (e.g. an invalid header value).
    InvalidRequest(String),
    /// The caller cancelled.
    Cancelled,
}

impl ProviderError {
    /// Whether trying again may help: rate limits, server errors, unreachable endpoints.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ProviderError::RateLimited { .. }
                | ProviderError::Server { .. }
                | ProviderError::Connect(_)
        )
    }

    /// The wait the endpoint asked for before trying again.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let said = |message: &str| {
            if message.is_empty() {
                String::new()
            } else {
                format!(": {message}")
            }
        };
        match self {
            ProviderError::Auth { status, message } => write!(
                f,
                "the model provider refused the API key (HTTP {status}){}",
                said(message)
            ),
            ProviderError::RateLimited {
                retry_after,
                message,
            } => {
                write!(f, "the model provider is rate limiting requests")?;
                if let Some(wait) = retry_after {
                    write!(f, " (retry after {} s)", wait.as_secs_f64().ceil())?;
                }
                write!(f, "{}", said(message))
            }
            ProviderError::Server { status, message } => write!(
                f,
                "the model provider failed (HTTP {status}){}",
                said(message)
            ),
            ProviderError::Rejected { status, message } => write!(
                f,
                "the model provider rejected the request (HTTP {status}){}",
                said(message)
            ),
            ProviderError::Connect(detail) => {
                write!(f, "cannot reach the model provider: {detail}")
            }
            ProviderError::Timeout(TimeoutPhase::Connect) => {
                write!(f, "timed out connecting to the model provider")
            }
            ProviderError::Timeout(TimeoutPhase::FirstByte) => {
                write!(f, "the model provider did not answer in time")
            }
            ProviderError::Timeout(TimeoutPhase::Idle) => {
                write!(f, "the model provider's stream stalled")
            }
            ProviderError::StreamCut(detail) => {
                write!(f, "the model provider's stream ended early: {detail}")
            }
            ProviderError::MalformedChunk(detail) => {
                write!(f, "the model provider sent a malformed chunk: {detail}")
            }
            ProviderError::Stream { kind, message } => {
                write!(f, "the model provider reported {kind}{}", said(message))
            }
            ProviderError::TooLarge(limit) => {
                write!(f, "the model provider's response exceeded {limit} bytes")
            }
            ProviderError::InvalidRequest(detail) => {
                write!(f, "cannot build the model request: {detail}")
            }
            ProviderError::Cancelled => write!(f, "the model request was cancelled"),
        }
    }
}

impl std::error::Error for ProviderError {}
