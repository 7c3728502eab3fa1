//! Small helpers for connection URLs and client ids.

/// Appends `name=value` (percent-encoded) to a URL's query, before any `#fragment`: how a
/// browser passes the access token (`tkn`) on the WebSocket upgrade.
///
/// ```
/// use ahp_wasm::client::with_query_param;
/// assert_eq!(with_query_param("ws://h:1/ahp", "tkn", "a b&c"), "ws://h:1/ahp?tkn=a%20b%26c");
/// assert_eq!(with_query_param("ws://h/?x=1#f", "tkn", "t"), "ws://h/?x=1&tkn=t#f");
/// ```
pub fn with_query_param(url: &str, name: &str, value: &str) -> String {
    let (base, fragment) = match url.find('#') {
        Some(i) => url.split_at(i),
        None => (url, ""),
    };
    let separator = if !base.contains('?') {
        "?"
    } else if base.ends_with('?') || base.ends_with('&') {
        ""
    } else {
        "&"
    };
    format!(
        "{base}{separator}{}={}{fragment}",
        encode(name),
        encode(value)
    )
}

fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// A random client id (`ahp-` + 32 hex digits), from the standard library's randomly seeded
/// hasher and the time; no extra dependency. Not on `wasm32-unknown-unknown`, where that hasher
/// has no entropy source (the JS client draws its ids from `Math.random`).
#[cfg(not(target_arch = "wasm32"))]
pub fn generate_client_id() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let now = crate::reduce::Clock::now(&crate::reduce::SystemClock);
    let mut words = [0u64; 2];
    for (i, word) in words.iter_mut().enumerate() {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(now.to_bits());
        h.write_usize(i);
        *word = h.finish();
    }
    format!("ahp-{:016x}{:016x}", words[0], words[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_params() {
        assert_eq!(with_query_param("ws://h/a?", "tkn", "x"), "ws://h/a?tkn=x");
        assert_eq!(
            with_query_param("ws://h/a?b=1&", "tkn", "x"),
            "ws://h/a?b=1&tkn=x"
        );
        assert_eq!(
            with_query_param("ws://h", "tkn", "é/"),
            "ws://h?tkn=%C3%A9%2F"
        );
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn client_ids_differ() {
        let (a, b) = (generate_client_id(), generate_client_id());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
    }
}
