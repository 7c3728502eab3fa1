//! The hottest frame, decoded without the general deserializer: a streamed-text delta envelope
//! (0.3.0's `session/delta`, 1.0's `chat/delta`, the same layout) written member by member in
//! schema order, as `JSON.stringify` and the Rust host write it. Generic deserialization spends
//! most of its time on per-member bookkeeping; this scan walks the fixed layout once. It accepts
//! only exactly
//!
//! `{"channel":S,"action":{"type":T,"turnId":S,"partId":S,"content":S},"serverSeq":N`
//! then optionally `,"origin":{"clientId":S,"clientSeq":N}`, then `}`
//!
//! with `T` the version's delta type and no white space. Anything else — another order, white
//! space, extra members (1.0's `_meta` too), a number that is not a plain unsigned integer the
//! field holds, a malformed string — returns `None` and the frame takes the general path (which
//! also reports errors). Strings with escapes are unescaped by the decoder itself
//! (`protocol::decode`), so the two paths cannot disagree on a string's value.

use crate::protocol::{ActionEnvelope, ActionOrigin, SessionDeltaAction, StateAction};

/// A version's action envelope, as the scan fills it: one scan for both versions.
pub(crate) trait DeltaEnvelope: Sized {
    /// The layout from the channel's end to the turn id's start, naming the delta type.
    const ACTION_START: &'static str;
    /// An envelope holding an empty delta.
    fn empty_delta() -> Self;
    /// The channel and the delta's turn id, part id and content, or `None` when the
    /// envelope's action is another one.
    fn delta_strings(&mut self) -> Option<[&mut String; 4]>;
    /// The delta's content capacity (`None`: not a delta), which decides whether the envelope
    /// is worth keeping to decode into.
    fn delta_capacity(&self) -> Option<usize>;
    fn set_server_seq(&mut self, seq: u64);
    /// The origin's client id, an origin made if there is none.
    fn origin_client_id(&mut self) -> &mut String;
    /// Sets the origin's `clientSeq`; `None` when the version's field cannot hold it.
    fn set_client_seq(&mut self, seq: u64) -> Option<()>;
    fn clear_origin(&mut self);
    /// Clears what a canonical delta has none of (unknown members, rejection reason, ...).
    fn clear_rest(&mut self);
}

impl DeltaEnvelope for ActionEnvelope {
    const ACTION_START: &'static str = r#","action":{"type":"session/delta","turnId":"#;

    fn empty_delta() -> Self {
        ActionEnvelope {
            channel: String::new(),
            action: StateAction::SessionDelta(SessionDeltaAction {
                turn_id: String::new(),
                part_id: String::new(),
                content: String::new(),
                extra: Default::default(),
            }),
            server_seq: 0,
            origin: None,
            rejection_reason: None,
            extra: Default::default(),
        }
    }

    fn delta_strings(&mut self) -> Option<[&mut String; 4]> {
        let StateAction::SessionDelta(d) = &mut self.action else {
            return None;
        };
        Some([
            &mut self.channel,
            &mut d.turn_id,
            &mut d.part_id,
            &mut d.content,
        ])
    }

    fn delta_capacity(&self) -> Option<usize> {
        match &self.action {
            StateAction::SessionDelta(d) => Some(d.content.capacity()),
            _ => None,
        }
    }

    fn set_server_seq(&mut self, seq: u64) {
        self.server_seq = seq;
    }

    fn origin_client_id(&mut self) -> &mut String {
        let origin = self.origin.get_or_insert_with(|| ActionOrigin {
            client_id: String::new(),
            client_seq: 0,
            extra: Default::default(),
        });
        &mut origin.client_id
    }

    fn set_client_seq(&mut self, seq: u64) -> Option<()> {
        let origin = self.origin.as_mut()?;
        origin.client_seq = seq;
        origin.extra = Default::default();
        Some(())
    }

    fn clear_origin(&mut self) {
        self.origin = None;
    }

    fn clear_rest(&mut self) {
        if let StateAction::SessionDelta(d) = &mut self.action {
            d.extra = Default::default();
        }
        self.rejection_reason = None;
        self.extra = Default::default();
    }
}

#[cfg(feature = "v1")]
impl DeltaEnvelope for crate::protocol::v1::ActionEnvelope {
    const ACTION_START: &'static str = r#","action":{"type":"chat/delta","turnId":"#;

    fn empty_delta() -> Self {
        use crate::protocol::v1::{ChatDeltaAction, StateAction};
        Self {
            channel: String::new(),
            action: StateAction::ChatDelta(ChatDeltaAction {
                turn_id: String::new(),
                part_id: String::new(),
                content: String::new(),
                meta: None,
                extra: Default::default(),
            }),
            server_seq: 0,
            origin: None,
            rejection_reason: None,
            extra: Default::default(),
        }
    }

    fn delta_strings(&mut self) -> Option<[&mut String; 4]> {
        let crate::protocol::v1::StateAction::ChatDelta(d) = &mut self.action else {
            return None;
        };
        Some([
            &mut self.channel,
            &mut d.turn_id,
            &mut d.part_id,
            &mut d.content,
        ])
    }

    fn delta_capacity(&self) -> Option<usize> {
        match &self.action {
            crate::protocol::v1::StateAction::ChatDelta(d) => Some(d.content.capacity()),
            _ => None,
        }
    }

    fn set_server_seq(&mut self, seq: u64) {
        self.server_seq = seq;
    }

    fn origin_client_id(&mut self) -> &mut String {
        let origin = self
            .origin
            .get_or_insert_with(|| crate::protocol::v1::ActionOrigin {
                client_id: String::new(),
                client_seq: 0,
                extra: Default::default(),
            });
        &mut origin.client_id
    }

    fn set_client_seq(&mut self, seq: u64) -> Option<()> {
        let origin = self.origin.as_mut()?;
        origin.client_seq = i64::try_from(seq).ok()?; // 1.0's field is signed
        origin.extra = Default::default();
        Some(())
    }

    fn clear_origin(&mut self) {
        self.origin = None;
    }

    fn clear_rest(&mut self) {
        if let crate::protocol::v1::StateAction::ChatDelta(d) = &mut self.action {
            d.meta = None;
            d.extra = Default::default();
        }
        self.rejection_reason = None;
        self.extra = Default::default();
    }
}

/// Decodes a canonical delta envelope at the start of `text`; returns it and the bytes used.
pub(super) fn canonical_delta<E: DeltaEnvelope>(text: &str) -> Option<(E, usize)> {
    let mut envelope = E::empty_delta();
    let used = canonical_delta_into(text, &mut envelope, &mut DeltaPrefix::default())?;
    Some((envelope, used))
}

/// The start of the last canonical delta envelope decoded, up to its content
/// (`{"channel":…,"partId":…,"content":`), and the channel, turn and part it decoded to. A
/// stream's deltas repeat it byte for byte, so a delta that starts with it (one comparison) has
/// the three values copied from here and only the rest scanned. The values depend on those
/// bytes alone (the delta type is among them), so it stays right whatever came between.
#[derive(Debug, Default, Clone)]
pub(super) struct DeltaPrefix {
    text: String,
    channel: String,
    turn_id: String,
    part_id: String,
}

/// A prefix longer than this is not remembered (its strings would keep their capacity).
const PREFIX_MAX_BYTES: usize = 4096;

/// `out = value`, reusing `out`'s capacity.
fn assign(out: &mut String, value: &str) {
    out.clear();
    out.push_str(value);
}

/// Decodes a canonical delta envelope at the start of `text` into `envelope`, reusing its
/// strings (an envelope of an earlier delta: a stream then decodes without allocating);
/// returns the bytes used. On `None`, `envelope` holds a part of the frame: use it only to
/// decode into again. `prefix` is what the last delta decoded with it began with (see
/// [`DeltaPrefix`]), updated here.
pub(super) fn canonical_delta_into<E: DeltaEnvelope>(
    text: &str,
    envelope: &mut E,
    prefix: &mut DeltaPrefix,
) -> Option<usize> {
    if envelope.delta_strings().is_none() {
        *envelope = E::empty_delta();
    }
    let [channel, turn_id, part_id, content] = envelope.delta_strings()?;
    let mut scan = Scan { text, at: 0 };
    if !prefix.text.is_empty() && crate::words::starts_with(text, &prefix.text) {
        assign(channel, &prefix.channel);
        assign(turn_id, &prefix.turn_id);
        assign(part_id, &prefix.part_id);
        scan.at = prefix.text.len();
    } else {
        scan.literal(r#"{"channel":"#)?;
        scan.string_into(channel)?;
        scan.literal(E::ACTION_START)?;
        scan.string_into(turn_id)?;
        scan.literal(r#","partId":"#)?;
        scan.string_into(part_id)?;
        scan.literal(r#","content":"#)?;
        if scan.at <= PREFIX_MAX_BYTES {
            assign(&mut prefix.text, &text[..scan.at]);
            assign(&mut prefix.channel, channel);
            assign(&mut prefix.turn_id, turn_id);
            assign(&mut prefix.part_id, part_id);
        } else {
            *prefix = DeltaPrefix::default();
        }
    }
    scan.string_into(content)?;
    scan.literal(r#"},"serverSeq":"#)?;
    envelope.set_server_seq(scan.unsigned()?);
    if scan.literal(r#","origin":{"clientId":"#).is_some() {
        scan.string_into(envelope.origin_client_id())?;
        scan.literal(r#","clientSeq":"#)?;
        envelope.set_client_seq(scan.unsigned()?)?;
        scan.literal("}")?;
    } else {
        envelope.clear_origin();
    }
    scan.literal("}")?;
    envelope.clear_rest();
    Some(scan.at)
}

/// The index of the first byte that ends a plain JSON string's body (a quote), starts an escape
/// (a backslash) or is not allowed in it (a control character), eight bytes at a time (for
/// long deltas and channel names; the standard stream's 5-byte deltas gain nothing).
fn special_byte(body: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `x` below `n` (n <= 0x80). A borrow can also mark bytes
    // after one that is below, never before: the lowest mark is exact.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    for (i, chunk) in body.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let marks = below(word ^ (ONES * u64::from(b'"')), 1)
            | below(word ^ (ONES * u64::from(b'\\')), 1)
            | below(word, 0x20);
        if marks != 0 {
            return Some(i * 8 + marks.trailing_zeros() as usize / 8);
        }
    }
    let at = body.len() / 8 * 8;
    let found = body[at..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    Some(at + found)
}

struct Scan<'a> {
    text: &'a str,
    at: usize,
}

// The scan's steps are inlined into `canonical_delta_into` (ten calls per frame otherwise).
impl<'a> Scan<'a> {
    #[inline(always)]
    fn literal(&mut self, expected: &str) -> Option<()> {
        let rest = self.text.get(self.at..)?;
        crate::words::starts_with(rest, expected).then(|| self.at += expected.len())
    }

    /// A JSON string into `out` (its old content replaced, its capacity reused).
    #[inline(always)]
    fn string_into(&mut self, out: &mut String) -> Option<()> {
        assign(out, &self.string()?);
        Some(())
    }

    /// A JSON string: borrowed as is when it has no escapes, else unescaped by the decoder.
    fn string(&mut self) -> Option<std::borrow::Cow<'a, str>> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        if bytes.get(start) != Some(&b'"') {
            return None;
        }
        let body = bytes.get(start + 1..)?;
        let stop = special_byte(body)?;
        match body[stop] {
            b'"' => {
                self.at = start + 1 + stop + 1;
                // Quotes are ASCII, so these are character boundaries.
                self.text
                    .get(start + 1..start + 1 + stop)
                    .map(std::borrow::Cow::Borrowed)
            }
            b'\\' => {
                // Rare in streamed text: find the end, then let the decoder unescape and check.
                let mut i = start + 1 + stop;
                loop {
                    match *bytes.get(i)? {
                        b'"' => break,
                        b'\\' => i += 2, // the escaped character: validated by the decoder
                        _ => i += 1,
                    }
                }
                self.at = i + 1;
                crate::protocol::decode::from_text::<String>(self.text.get(start..=i)?)
                    .ok()
                    .map(std::borrow::Cow::Owned)
            }
            _ => None, // JSON forbids raw control characters
        }
    }

    /// A plain unsigned integer that fits `u64` (no sign, fraction, exponent or leading zero).
    #[inline(always)]
    fn unsigned(&mut self) -> Option<u64> {
        let bytes = self.text.as_bytes().get(self.at..)?;
        let mut value: u64 = 0;
        let mut digits = 0;
        for &b in bytes.iter().take_while(|b| b.is_ascii_digit()) {
            // Overflow checked by comparison: `checked_mul` on `u64` is a 128-bit multiply
            // in wasm32 (`__multi3`), a call per digit.
            const LAST: u64 = u64::MAX / 10;
            let digit = u64::from(b - b'0');
            if value > LAST || (value == LAST && digit > u64::MAX % 10) {
                return None;
            }
            value = value * 10 + digit;
            digits += 1;
        }
        if digits == 0 || (digits > 1 && bytes[0] == b'0') {
            return None;
        }
        if matches!(bytes.get(digits), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.at += digits;
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::{ActionEnvelope, ActionOrigin, SessionDeltaAction, StateAction};
    use proptest::prelude::*;

    fn canonical_delta(text: &str) -> Option<(ActionEnvelope, usize)> {
        super::canonical_delta(text)
    }

    fn envelope(content: &str, origin: Option<(&str, u64)>) -> ActionEnvelope {
        ActionEnvelope {
            channel: "ahp-session:/s".into(),
            action: StateAction::SessionDelta(SessionDeltaAction {
                turn_id: "t".into(),
                part_id: "p".into(),
                content: content.into(),
                extra: Default::default(),
            }),
            server_seq: 7,
            origin: origin.map(|(id, seq)| ActionOrigin {
                client_id: id.into(),
                client_seq: seq,
                extra: Default::default(),
            }),
            rejection_reason: None,
            extra: Default::default(),
        }
    }

    /// What the general path makes of `text` (an envelope alone, nothing after it).
    fn general(text: &str) -> Option<ActionEnvelope> {
        serde_json::from_str(text).ok()
    }

    #[test]
    fn canonical_envelopes_decode_like_serde() {
        for content in ["", "word ", "a \"quoted\" }\n\t\\ \u{e9}\u{1F642}", "\u{0}"] {
            for origin in [None, Some(("client-1", 42))] {
                let text = serde_json::to_string(&envelope(content, origin)).unwrap();
                let (fast, used) = canonical_delta(&text).expect(&text);
                assert_eq!(used, text.len());
                assert_eq!(Some(fast), general(&text), "{text}");
            }
        }
    }

    #[test]
    fn anything_else_is_left_to_the_general_path() {
        let ok = r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1}"#;
        assert!(canonical_delta(ok).is_some());
        let max = ok.replace(r#""serverSeq":1"#, r#""serverSeq":18446744073709551615"#);
        assert_eq!(
            canonical_delta(&max).map(|(e, _)| e.server_seq),
            Some(u64::MAX)
        );
        for text in [
            // White space, another order, an extra member, another action type.
            r#"{"channel": "c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1}"#,
            r#"{"action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"},"channel":"c","serverSeq":1}"#,
            r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x","more":1},"serverSeq":1}"#,
            r#"{"channel":"c","action":{"type":"session/reasoning","turnId":"t","partId":"p","content":"x"},"serverSeq":1}"#,
            // Numbers serde reads differently or not at all.
            r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":01}"#,
            r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1.0}"#,
            r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1e2}"#,
            r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":-1}"#,
            r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":18446744073709551616}"#,
            // Strings: a raw control character, a bad escape, no end.
            "{\"channel\":\"c\",\"action\":{\"type\":\"session/delta\",\"turnId\":\"t\",\"partId\":\"p\",\"content\":\"a\nb\"},\"serverSeq\":1}",
            r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"\q"},"serverSeq":1}"#,
            r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"#,
            // A rejection reason (rare: the general path handles it).
            r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1,"rejectionReason":"no"}"#,
        ] {
            assert_eq!(canonical_delta(text).map(|(e, _)| e), None, "{text}");
        }
    }

    #[test]
    fn special_byte_is_the_first_quote_backslash_or_control_character() {
        let plain = "abcdefghijklmnopqrstuvwxyz0123456789\u{e9}\u{1F642}";
        for special in ["\"", "\\", "\n", "\u{0}", "\u{1f}"] {
            for at in 0..=plain.len() {
                if !plain.is_char_boundary(at) {
                    continue;
                }
                let text = format!("{}{special}{}\"", &plain[..at], &plain[at..]);
                assert_eq!(super::special_byte(text.as_bytes()), Some(at), "{text:?}");
            }
        }
        assert_eq!(super::special_byte(plain.as_bytes()), None);
        assert_eq!(super::special_byte(b""), None);
    }

    proptest! {
        /// On any text near the canonical layout, the fast path either declines or agrees
        /// with serde exactly.
        #[test]
        fn never_disagrees_with_serde(
            content in "(\\PC|[\"\\\\\n\t\u{0}-\u{1f}])*",
            channel in "\\PC{0,12}",
            seq in any::<u64>(),
            origin in proptest::option::of(("\\PC{0,8}", any::<u64>())),
            cut in 0usize..400,
            insert in "[ ,:{}\"\\\\0-9a-z]{0,2}",
        ) {
            let mut e = envelope(&content, origin.as_ref().map(|(id, s)| (id.as_str(), *s)));
            e.channel = channel;
            e.server_seq = seq;
            let text = serde_json::to_string(&e).unwrap();
            // The canonical text itself decodes, and equals the original.
            let (fast, used) = canonical_delta(&text).expect("canonical text");
            prop_assert_eq!(used, text.len());
            prop_assert_eq!(&fast, &e);
            // A mangled text: declined, or decoded exactly as serde decodes the same prefix.
            let mut at = cut.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mangled = format!("{}{}{}", &text[..at], insert, &text[at..]);
            if let Some((fast, used)) = canonical_delta(&mangled) {
                prop_assert_eq!(Some(fast), general(&mangled[..used]));
            }
            // Decoded right after the canonical text (its start remembered, as in a stream) into
            // the envelope of another delta holding other values (as the engine reuses one):
            // the same, the start's values coming from `prefix`.
            let mut prefix = super::DeltaPrefix::default();
            prop_assert!(super::canonical_delta_into(&text, &mut e.clone(), &mut prefix).is_some());
            prop_assert!(!prefix.text.is_empty() && text.starts_with(&prefix.text));
            let mut spare = envelope("other content", Some(("other client", 9)));
            spare.channel = "other channel".into();
            if let StateAction::SessionDelta(d) = &mut spare.action {
                d.turn_id = "other turn".into();
                d.part_id = "other part".into();
            }
            let reused = super::canonical_delta_into(&mangled, &mut spare, &mut prefix)
                .map(|used| (spare, used));
            prop_assert_eq!(reused, canonical_delta(&mangled));
        }
    }
}

/// The same scan on 1.0's `chat/delta` envelope.
#[cfg(all(test, feature = "v1"))]
mod tests_v1 {
    use crate::protocol::v1::{ActionEnvelope, ActionOrigin, ChatDeltaAction, StateAction};

    fn canonical_delta(text: &str) -> Option<(ActionEnvelope, usize)> {
        super::canonical_delta(text)
    }

    /// What the general path (the product's decoder) makes of `text`, an envelope alone.
    fn general(text: &str) -> Option<ActionEnvelope> {
        crate::protocol::decode::from_text(text).ok()
    }

    fn envelope(content: &str, origin: Option<(&str, i64)>) -> ActionEnvelope {
        ActionEnvelope {
            channel: "ahp-chat:/s/main".into(),
            action: StateAction::ChatDelta(ChatDeltaAction {
                turn_id: "t".into(),
                part_id: "p".into(),
                content: content.into(),
                meta: None,
                extra: Default::default(),
            }),
            server_seq: 7,
            origin: origin.map(|(id, seq)| ActionOrigin {
                client_id: id.into(),
                client_seq: seq,
                extra: Default::default(),
            }),
            rejection_reason: None,
            extra: Default::default(),
        }
    }

    #[test]
    fn canonical_envelopes_decode_like_the_general_path() {
        for content in ["", "word ", "a \"quoted\" }\n\t\\ \u{e9}\u{1F642}", "\u{0}"] {
            for origin in [None, Some(("client-1", 42)), Some(("c", i64::MAX))] {
                let e = envelope(content, origin);
                let text = serde_json::to_string(&e).unwrap();
                let (fast, used) = canonical_delta(&text).expect(&text);
                assert_eq!(used, text.len());
                assert_eq!(fast, e, "{text}");
                assert_eq!(Some(fast), general(&text), "{text}");
            }
        }
        // Into an envelope of another action, or of a delta with an origin and `_meta`.
        let text = r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1}"#;
        let mut other = envelope("old", Some(("old", 1)));
        if let StateAction::ChatDelta(d) = &mut other.action {
            d.meta = Some(Default::default());
        }
        let mut prefix = super::DeltaPrefix::default();
        for mut spare in [other, general(r#"{"channel":"c","action":{"type":"chat/titleChanged","title":"T"},"serverSeq":1}"#).unwrap()] {
            let used = super::canonical_delta_into(text, &mut spare, &mut prefix);
            assert_eq!(used, Some(text.len()));
            assert_eq!(Some(spare), general(text));
        }
    }

    #[test]
    fn anything_else_is_left_to_the_general_path() {
        let ok = r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1}"#;
        assert_eq!(canonical_delta(ok).map(|(e, _)| e), general(ok));
        for text in [
            // 0.3.0's delta, white space, another order, extra members (`_meta` too).
            r#"{"channel":"c","action":{"type":"session/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1}"#,
            r#"{"channel": "c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1}"#,
            r#"{"action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"},"channel":"c","serverSeq":1}"#,
            r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x","more":1},"serverSeq":1}"#,
            r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x","_meta":{}},"serverSeq":1}"#,
            r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1,"meta":{}}"#,
            // Numbers: a leading zero, a fraction, a sign; a clientSeq past 1.0's signed field.
            r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":01}"#,
            r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1.0}"#,
            r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1,"origin":{"clientId":"a","clientSeq":-1}}"#,
            r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1,"origin":{"clientId":"a","clientSeq":9223372036854775808}}"#,
            // Strings: a raw control character, a bad escape.
            "{\"channel\":\"c\",\"action\":{\"type\":\"chat/delta\",\"turnId\":\"t\",\"partId\":\"p\",\"content\":\"a\nb\"},\"serverSeq\":1}",
            r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"\q"},"serverSeq":1}"#,
            // A rejection reason.
            r#"{"channel":"c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"},"serverSeq":1,"rejectionReason":"no"}"#,
        ] {
            assert_eq!(canonical_delta(text).map(|(e, _)| e), None, "{text}");
        }
        // An escape is decoded (by the decoder), equal to the general path.
        let escaped = r#"{"channel":"c\u00e9","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"a\"b\n"},"serverSeq":1}"#;
        assert_eq!(canonical_delta(escaped).map(|(e, _)| e), general(escaped));
        assert!(general(escaped).is_some());
    }
}
