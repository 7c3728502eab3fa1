//! Text comparisons eight bytes at a time, for the per-frame hot path: wasm's `memcmp`
//! (compiler-builtins) compares byte by byte, and every frame compares some 140 bytes of fixed
//! text and a few ids.

/// `text.starts_with(prefix)`.
pub(crate) fn starts_with(text: &str, prefix: &str) -> bool {
    let (text, prefix) = (text.as_bytes(), prefix.as_bytes());
    let Some(head) = text.get(..prefix.len()) else {
        return false;
    };
    let words_equal = head
        .chunks_exact(8)
        .zip(prefix.chunks_exact(8))
        .all(|(a, b)| {
            u64::from_ne_bytes(a.try_into().unwrap_or_default())
                == u64::from_ne_bytes(b.try_into().unwrap_or_default())
        });
    // The last bytes: the last eight as one word (overlapping the chunks), or the whole of a
    // shorter text folded into one (a slice comparison would call `memcmp`, copying them into
    // padded words would call `memcpy`).
    let last_word = |bytes: &[u8]| match bytes.len().checked_sub(8) {
        Some(last) => u64::from_ne_bytes(bytes[last..].try_into().unwrap_or_default()),
        None => bytes.iter().fold(0u64, |w, &b| w << 8 | u64::from(b)),
    };
    words_equal && last_word(head) == last_word(prefix)
}

/// `a == b`.
#[inline]
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && starts_with(a, b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn starts_with_is_str_starts_with() {
        let text = r#"{"jsonrpc":"2.0","method":"action","params":{"#;
        for cut in 0..=text.len() {
            let prefix = &text[..cut];
            assert!(super::starts_with(text, prefix));
            assert_eq!(super::starts_with(prefix, text), cut == text.len());
            let mut other = prefix.to_string();
            if let Some(last) = other.pop() {
                other.push(if last == 'x' { 'y' } else { 'x' });
                assert!(!super::starts_with(text, &other), "{other}");
            }
        }
    }

    #[test]
    fn same_is_str_eq() {
        let words = [
            "",
            "a",
            "p1",
            "turn-501",
            "turn-5012",
            "copilot:/bench-session",
            "copilot:/bench-sessioN",
        ];
        for a in words {
            for b in words {
                assert_eq!(super::same(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }
}
