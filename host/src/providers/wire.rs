//! What a wire format implements ([`Wire`]), and the HTTP pieces both share: error bodies and
//! `Retry-After`.

use super::error::ProviderError;
use super::secret::Secret;
use super::types::ProviderEvent;
use http::HeaderMap;
use std::time::{Duration, SystemTime};

/// Longest part of an error body kept in a message.
const MAX_ERROR_MESSAGE_CHARS: usize = 400;

/// Whether a stream goes on after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// The format's end marker (`[DONE]`, `message_stop`): stop reading.
    Done,
}

/// One wire format's stream decoder: server-sent events in, normalized events out. A fresh
/// one per attempt.
pub trait Wire: Send + 'static {
    /// Decodes one server-sent event (`event` name, `data` text) into `out`.
    fn event(
        &mut self,
        event: Option<&str>,
        data: &str,
        out: &mut Vec<ProviderEvent>,
    ) -> Result<Flow, ProviderError>;

    /// The body ended cleanly without [`Flow::Done`]: finish, or say the stream was cut.
    fn end(&mut self, out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError>;
}

/// The typed error of a non-2xx response: its status, the `message` of a JSON error body
/// (`{"error": {"message": ...}}`, both formats) or the start of the body, scrubbed of `key`.
pub fn status_error(
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
    key: Option<&Secret>,
) -> ProviderError {
    let message = error_message(body, key);
    match status {
        401 | 403 => ProviderError::Auth { status, message },
        429 => ProviderError::RateLimited {
            retry_after: retry_after(headers, SystemTime::now()),
            message,
        },
        500..=599 => ProviderError::Server { status, message },
        _ => ProviderError::Rejected { status, message },
    }
}

/// A short, key-free message from an error body.
pub fn error_message(body: &[u8], key: Option<&Secret>) -> String {
    let parsed = serde_json::from_slice::<serde_json::Value>(body).ok();
    let text = match parsed.as_ref().and_then(|v| v.get("error")) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(error) => error
            .get("message")
            .and_then(|m| m.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| error.to_string()),
        None => String::from_utf8_lossy(body).trim().to_string(),
    };
    clean(&text, key)
}

/// `text` scrubbed of `key`, on one line, bounded.
pub fn clean(text: &str, key: Option<&Secret>) -> String {
    let text = match key {
        Some(key) => key.scrub(text),
        None => text.to_string(),
    };
    let mut out: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_ERROR_MESSAGE_CHARS)
        .collect();
    if text.chars().count() > MAX_ERROR_MESSAGE_CHARS {
        out.push('…');
    }
    out
}

/// The wait a response asks for: `retry-after-ms` (OpenAI), else `Retry-After` in seconds
/// or as an HTTP date.
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64((ms / 1000.0).min(86_400.0)));
        }
    }
    let value = header("retry-after")?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0)
            .then(|| Duration::from_secs_f64(secs.min(86_400.0)));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_milliseconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers, now), None);
        headers.insert("retry-after", "7".parse().unwrap());
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(7)));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(42));
        headers.insert("retry-after", later.parse().unwrap());
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(42)));
        headers.insert("retry-after", "soon".parse().unwrap());
        assert_eq!(retry_after(&headers, now), None);
        headers.insert("retry-after-ms", "1500".parse().unwrap());
        assert_eq!(
            retry_after(&headers, now),
            Some(Duration::from_millis(1500))
        );
    }

    #[test]
    fn error_bodies_become_short_key_free_messages() {
        let key = Secret::new("sk-abcdef").unwrap();
        let body = br#"{"error":{"message":"Incorrect API key provided: sk-abcdef","type":"x"}}"#;
        let err = status_error(401, &HeaderMap::new(), body, Some(&key));
        assert_eq!(
            err,
            ProviderError::Auth {
                status: 401,
                message: "Incorrect API key provided: [redacted]".into()
            }
        );
        let long = "x\n".repeat(1000);
        let msg = error_message(long.as_bytes(), None);
        assert!(msg.chars().count() <= MAX_ERROR_MESSAGE_CHARS + 1 && !msg.contains('\n'));
        assert!(matches!(
            status_error(503, &HeaderMap::new(), b"busy", None),
            ProviderError::Server { status: 503, .. }
        ));
        assert!(matches!(
            status_error(404, &HeaderMap::new(), b"", None),
            ProviderError::Rejected { status: 404, .. }
        ));
    }
}
