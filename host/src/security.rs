//! The access token, the `Origin` check, and the cheap pre-parse checks on untrusted frames.
//!
//! The token never appears in `Debug` output, logs or panic messages: [`Token`] has no
//! `Display`, its `Debug` prints `Token(<redacted>)`, and comparisons run in constant time.

use std::fmt;

/// The access token a client must present before `initialize`.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// Wraps a caller-chosen token (from `--token` or `AHP_HOST_TOKEN`).
    pub fn new(value: impl Into<String>) -> Token {
        Token(value.into())
    }

    /// A fresh random token: 24 bytes (192 bits) from the OS generator, hex-encoded.
    pub fn generate() -> Token {
        let mut bytes = [0u8; 24];
        getrandom::fill(&mut bytes).expect("the OS random number generator is unavailable");
        Token(hex(&bytes))
    }

    /// The secret itself, for the one place that prints it (the startup URL) and for clients.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Constant-time comparison with a presented value.
    pub fn matches(&self, presented: &str) -> bool {
        constant_time_eq(self.0.as_bytes(), presented.as_bytes())
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

impl std::str::FromStr for Token {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.len() < 16 {
            return Err("a token needs at least 16 characters".into());
        }
        if !s.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("a token is printable ASCII without spaces".into());
        }
        Ok(Token(s.to_owned()))
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

/// Compares two byte strings in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// The token presented on an upgrade request: the `tkn` query parameter (browsers cannot set
/// headers on a WebSocket) or `Authorization: Bearer <token>`.
pub fn presented_token<'a>(
    query_tkn: Option<&'a str>,
    authorization: Option<&'a str>,
) -> Option<&'a str> {
    if let Some(t) = query_tkn {
        return Some(t);
    }
    let value = authorization?.trim();
    let (scheme, rest) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
}

/// Whether an upgrade request's `Origin` is acceptable: absent (not a browser), or exactly one of
/// `allowed` (the host's own origins plus `--allow-origin` values; compared case-insensitively,
/// without a trailing slash).
pub fn origin_allowed(origin: Option<&str>, allowed: &[String]) -> bool {
    match origin {
        None => true,
        Some(origin) => {
            let origin = origin.trim().trim_end_matches('/');
            allowed
                .iter()
                .any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(origin))
        }
    }
}

/// Whether `text` nests arrays/objects at most `max_depth` deep. A linear scan that understands
/// strings and escapes, run before parsing so deeply nested input never reaches the recursive
/// parser. Malformed JSON passes here and is rejected by the parser.
pub fn json_depth_within(text: &str, max_depth: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return false;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_redacted_and_compared_exactly() {
        let a = Token::generate();
        let b = Token::generate();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), 48);
        assert!(a.matches(a.expose()));
        assert!(!a.matches(b.expose()));
        assert!(!a.matches(""));
        let debug = format!("{a:?} {:?}", Some(&a));
        assert!(!debug.contains(a.expose()), "{debug}");
        assert!("short".parse::<Token>().is_err());
        assert!("has a space in it, long enough".parse::<Token>().is_err());
    }

    #[test]
    fn presented_token_reads_query_then_bearer() {
        assert_eq!(presented_token(Some("q"), Some("Bearer h")), Some("q"));
        assert_eq!(presented_token(None, Some("Bearer h")), Some("h"));
        assert_eq!(presented_token(None, Some("bearer  h ")), Some("h"));
        assert_eq!(presented_token(None, Some("Basic h")), None);
        assert_eq!(presented_token(None, None), None);
    }

    #[test]
    fn origins() {
        let allowed = vec!["http://127.0.0.1:8787".to_string()];
        assert!(origin_allowed(None, &allowed));
        assert!(origin_allowed(Some("http://127.0.0.1:8787"), &allowed));
        assert!(origin_allowed(Some("HTTP://127.0.0.1:8787/"), &allowed));
        assert!(!origin_allowed(Some("http://evil.example"), &allowed));
        assert!(!origin_allowed(Some("null"), &allowed));
    }

    #[test]
    fn depth_scan() {
        assert!(json_depth_within(r#"{"a":[1,{"b":"[[[["}]}"#, 3));
        assert!(!json_depth_within(r#"{"a":[1,{"b":[]}]}"#, 3));
        assert!(json_depth_within(r#"{"a":"\"[[[[[[\\"}"#, 1));
        assert!(!json_depth_within(&"[".repeat(100_000), 64));
    }
}
