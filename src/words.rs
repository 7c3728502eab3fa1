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
    words_equal && last_word(head) == last_word(prefix)
}

/// The last bytes of `bytes` as one word: the last eight (overlapping the chunks); for a
/// shorter text, its first and last four (two, one) bytes, which cover all of it. Two texts of
/// the same length have the same word only if their bytes are the same. (A slice comparison
/// would call `memcmp`, copying the bytes into padded words would call `memcpy`; folding
/// them in one by one took most of the time of comparing the short member names.)
#[inline]
fn last_word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    if n >= 8 {
        u64::from_ne_bytes(bytes[n - 8..].try_into().unwrap_or_default())
    } else if n >= 4 {
        let first = u32::from_ne_bytes(bytes[..4].try_into().unwrap_or_default());
        let last = u32::from_ne_bytes(bytes[n - 4..].try_into().unwrap_or_default());
        u64::from(first) << 32 | u64::from(last)
    } else if n >= 2 {
        let first = u16::from_ne_bytes(bytes[..2].try_into().unwrap_or_default());
        let last = u16::from_ne_bytes(bytes[n - 2..].try_into().unwrap_or_default());
        u64::from(first) << 16 | u64::from(last)
    } else {
        bytes.first().map_or(0, |&b| u64::from(b))
    }
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
    fn a_difference_anywhere_is_seen() {
        // Every length across the word and half-word boundaries, one byte changed at each
        // position, in both directions.
        let text = "abcdefghijklmnopqrstuvwxyz0123456789";
        for len in 0..=text.len() {
            let word = &text[..len];
            assert!(super::same(word, word));
            for at in 0..len {
                let mut other = word.as_bytes().to_vec();
                other[at] = b'_';
                let other = std::str::from_utf8(&other).expect("ascii");
                assert!(!super::same(word, other), "{word:?} {other:?}");
                assert!(!super::starts_with(text, other), "{other:?}");
                assert!(super::starts_with(other, &other[..at]));
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
