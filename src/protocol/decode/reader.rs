//! The JSON text reader behind [`Decode`](super::Decode): tokens on demand, no intermediate
//! tree, strings borrowed from the text when they have no escapes.
//!
//! Its methods are not generic, so each one is in the binary once, whatever the number of
//! types decoded with it (serde's deserializer is instantiated per visitor: that was most of
//! the code of every wire type).

use super::{DecodeError, Expected};
use crate::protocol::value::{JsonObject, JsonValue};
use std::borrow::Cow;

/// How deep objects and arrays may nest: 127 levels, as in `serde_json` (whose limit of 128
/// counts the level that fails).
const MAX_DEPTH: u32 = 127;

/// A cursor over one JSON text.
pub struct Reader<'a> {
    text: &'a str,
    pos: usize,
    /// How many more objects and arrays may open.
    depth: u32,
    /// Just after `{` or `[`: the next member or element has no `,` before it.
    first: bool,
}

/// The JSON kind of the next value, for "expected ..., got ..." messages.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Token {
    Object,
    Array,
    String,
    Number,
    True,
    False,
    Null,
}

/// The bytes of `word` (eight of the text, little-endian) that end a string's plain run: a
/// quote, a backslash or a control character (below 0x20), each as its high bit; zero if
/// none. The usual word tricks: `x - 0x01..01 & !x & 0x80..80` flags the bytes of `x` that are
/// zero, and with `0x20..20` those below 0x20. Bits above the first flagged byte may be
/// flagged wrongly (a borrow), the lowest one never is: it is where the run ends.
#[inline]
fn run_end(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    quote | backslash | control
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Reader {
            text,
            pos: 0,
            depth: MAX_DEPTH,
            first: false,
        }
    }

    /// The byte offset of the next unread byte.
    pub fn offset(&self) -> usize {
        self.pos
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// Skips white space; the next byte, if any.
    #[inline]
    fn skip_space(&mut self) -> Option<u8> {
        let bytes = self.bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Fails unless only white space is left.
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        match self.skip_space() {
            None => Ok(()),
            Some(_) => Err(self.syntax("trailing characters after the value")),
        }
    }

    /// A syntax error at the current position.
    #[cold]
    pub fn syntax(&self, message: &str) -> DecodeError {
        DecodeError::syntax(format!("invalid JSON: {message}"), self.pos)
    }

    /// The kind of the next value (white space skipped).
    pub fn peek(&mut self) -> Result<Token, DecodeError> {
        Ok(match self.skip_space() {
            Some(b'{') => Token::Object,
            Some(b'[') => Token::Array,
            Some(b'"') => Token::String,
            Some(b'-' | b'0'..=b'9') => Token::Number,
            Some(b't') => Token::True,
            Some(b'f') => Token::False,
            Some(b'n') => Token::Null,
            Some(_) => return Err(self.syntax("expected a value")),
            None => return Err(self.syntax("unexpected end of the text")),
        })
    }

    /// The error for a value of the wrong kind: names what was expected and what is there
    /// (the value itself for scalars). Its offset is the end of a scalar, the start of an
    /// object or array; the reader stays at the value.
    #[cold]
    #[inline(never)]
    pub fn mismatch(&mut self, expected: Expected) -> DecodeError {
        let token = match self.peek() {
            Err(e) => return e,
            Ok(token) => token,
        };
        let at = self.pos;
        let got = match token {
            Token::Object => "an object".to_owned(),
            Token::Array => "an array".to_owned(),
            Token::Null | Token::True | Token::False | Token::String | Token::Number => {
                if let Err(e) = self.skip_value() {
                    return e;
                }
                let text = &self.text[at..self.pos];
                match token {
                    Token::String => format!("the string {text}"),
                    Token::Number => format!("the number {text}"),
                    _ => text.to_owned(),
                }
            }
        };
        let end = self.pos;
        self.pos = at;
        DecodeError::new(format!("expected {}, got {got}", expected.describe()), end)
    }

    /// Consumes `literal` (`true`, `false`, `null`), whose first byte is known to be there.
    fn literal(&mut self, literal: &str) -> Result<(), DecodeError> {
        if self.text[self.pos..].starts_with(literal) {
            self.pos += literal.len();
            Ok(())
        } else {
            Err(self.syntax("expected a value"))
        }
    }

    /// `null` next: consumes it and returns `true`; anything else is left.
    #[inline(never)]
    pub fn null(&mut self) -> Result<bool, DecodeError> {
        if self.skip_space() == Some(b'n') {
            self.literal("null")?;
            return Ok(true);
        }
        Ok(false)
    }

    /// A boolean.
    pub fn boolean(&mut self) -> Result<bool, DecodeError> {
        match self.skip_space() {
            Some(b't') => self.literal("true").map(|()| true),
            Some(b'f') => self.literal("false").map(|()| false),
            _ => Err(self.mismatch(Expected::Boolean)),
        }
    }

    fn enter(&mut self) -> Result<(), DecodeError> {
        if self.depth == 0 {
            return Err(self.syntax("nested too deeply (128 levels or more)"));
        }
        self.depth -= 1;
        self.pos += 1;
        self.first = true;
        Ok(())
    }

    /// `{`: the members follow, read with [`next_key`](Self::next_key) until it returns
    /// `None`.
    #[inline(never)]
    pub fn begin_object(&mut self, expected: Expected) -> Result<(), DecodeError> {
        if self.skip_space() != Some(b'{') {
            return Err(self.mismatch(expected));
        }
        self.enter()
    }

    /// The key of the next member (its value is next), or `None` after the closing `}`.
    #[inline(never)]
    pub fn next_key(&mut self) -> Result<Option<Cow<'a, str>>, DecodeError> {
        match self.skip_space() {
            Some(b'}') => {
                self.pos += 1;
                self.depth += 1;
                self.first = false;
                return Ok(None);
            }
            Some(b',') if !self.first => {
                self.pos += 1;
                self.skip_space();
            }
            _ if self.first => {}
            _ => return Err(self.syntax("expected `,` or `}` after a member")),
        }
        self.first = false;
        if self.bytes().get(self.pos) != Some(&b'"') {
            return Err(self.syntax("expected a member name (a string)"));
        }
        let key = self.string_token()?;
        if self.skip_space() != Some(b':') {
            return Err(self.syntax("expected `:` after a member name"));
        }
        self.pos += 1;
        Ok(Some(key))
    }

    /// `[`: the elements follow, each after [`next_element`](Self::next_element) returns
    /// `true`.
    #[inline(never)]
    pub fn begin_array(&mut self, expected: Expected) -> Result<(), DecodeError> {
        if self.skip_space() != Some(b'[') {
            return Err(self.mismatch(expected));
        }
        self.enter()
    }

    /// Whether another element follows (it is next), or `false` after the closing `]`.
    pub fn next_element(&mut self) -> Result<bool, DecodeError> {
        match self.skip_space() {
            Some(b']') => {
                self.pos += 1;
                self.depth += 1;
                self.first = false;
                Ok(false)
            }
            Some(b',') if !self.first => {
                self.pos += 1;
                Ok(true)
            }
            Some(_) if self.first => {
                self.first = false;
                Ok(true)
            }
            _ => Err(self.syntax("expected `,` or `]` after an element")),
        }
    }

    /// A string, borrowed from the text when it has no escapes.
    #[inline]
    pub fn str(&mut self) -> Result<Cow<'a, str>, DecodeError> {
        if self.skip_space() != Some(b'"') {
            return Err(self.mismatch(Expected::String));
        }
        self.string_token()
    }

    /// The string token at `pos` (its opening quote).
    fn string_token(&mut self) -> Result<Cow<'a, str>, DecodeError> {
        let bytes = self.bytes();
        let start = self.pos + 1;
        let mut i = start;
        // Eight bytes at a time to the first byte that needs a look (a quote, a backslash or
        // a control character); byte by byte from there, and in the text's last bytes.
        while let Some(word) = bytes.get(i..i + 8) {
            let end = run_end(u64::from_le_bytes(word.try_into().unwrap_or_default()));
            if end != 0 {
                i += (end.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        while let Some(&b) = bytes.get(i) {
            match b {
                b'"' => {
                    self.pos = i + 1;
                    return Ok(Cow::Borrowed(&self.text[start..i]));
                }
                b'\\' => return self.escaped_string(start, i),
                0..=0x1f => {
                    self.pos = i;
                    return Err(self.syntax("control character in a string"));
                }
                _ => i += 1,
            }
        }
        self.pos = i;
        Err(self.syntax("unterminated string"))
    }

    /// The rest of a string from its first escape at `escape` (the text from `start` has
    /// none).
    #[inline(never)]
    fn escaped_string(&mut self, start: usize, escape: usize) -> Result<Cow<'a, str>, DecodeError> {
        let bytes = self.bytes();
        let mut out = String::with_capacity(escape - start + 16);
        out.push_str(&self.text[start..escape]);
        let mut i = escape;
        let mut run = i;
        loop {
            let Some(&b) = bytes.get(i) else {
                self.pos = i;
                return Err(self.syntax("unterminated string"));
            };
            match b {
                b'"' => {
                    out.push_str(&self.text[run..i]);
                    self.pos = i + 1;
                    return Ok(Cow::Owned(out));
                }
                b'\\' => {
                    out.push_str(&self.text[run..i]);
                    self.pos = i;
                    let escaped = match bytes.get(i + 1) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let (c, len) = self.unicode_escape(i)?;
                            out.push(c);
                            i += len;
                            run = i;
                            continue;
                        }
                        _ => return Err(self.syntax("invalid escape in a string")),
                    };
                    out.push(escaped);
                    i += 2;
                    run = i;
                }
                0..=0x1f => {
                    self.pos = i;
                    return Err(self.syntax("control character in a string"));
                }
                _ => i += 1,
            }
        }
    }

    /// The character of the `\uXXXX` escape at `at` (a surrogate pair takes two), and the
    /// escape's length in bytes.
    fn unicode_escape(&self, at: usize) -> Result<(char, usize), DecodeError> {
        let hex = |from: usize| -> Option<u32> {
            let digits = self.text.get(from..from + 4)?;
            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            u32::from_str_radix(digits, 16).ok()
        };
        let Some(first) = hex(at + 2) else {
            return Err(self.syntax("invalid \\u escape in a string"));
        };
        if !(0xd800..0xe000).contains(&first) {
            return char::from_u32(first)
                .map(|c| (c, 6))
                .ok_or_else(|| self.syntax("invalid \\u escape in a string"));
        }
        let low = (first < 0xdc00 && self.text.get(at + 6..at + 8) == Some("\\u"))
            .then(|| hex(at + 8))
            .flatten()
            .filter(|low| (0xdc00..0xe000).contains(low));
        match low {
            Some(low) => {
                let c = 0x10000 + ((first - 0xd800) << 10) + (low - 0xdc00);
                char::from_u32(c)
                    .map(|c| (c, 12))
                    .ok_or_else(|| self.syntax("invalid \\u escape in a string"))
            }
            None => Err(self.syntax("lone surrogate in a \\u escape")),
        }
    }

    /// The text of the number at `pos` (checked against JSON's grammar), and whether it is
    /// an integer (no fraction, no exponent).
    fn number_token(&mut self) -> Result<(&'a str, bool), DecodeError> {
        let bytes = self.bytes();
        let start = self.pos;
        let mut i = start;
        let digits = |i: &mut usize| {
            let from = *i;
            while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > from
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        let int_start = i;
        if !digits(&mut i) || (bytes[int_start] == b'0' && i - int_start > 1) {
            self.pos = i;
            return Err(self.syntax("invalid number"));
        }
        let mut integer = true;
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            integer = false;
            if !digits(&mut i) {
                self.pos = i;
                return Err(self.syntax("invalid number"));
            }
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            integer = false;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !digits(&mut i) {
                self.pos = i;
                return Err(self.syntax("invalid number"));
            }
        }
        self.pos = i;
        Ok((&self.text[start..i], integer))
    }

    /// A number as `f64`, correctly rounded (as `JSON.parse` reads it).
    pub fn f64(&mut self) -> Result<f64, DecodeError> {
        if !matches!(self.skip_space(), Some(b'-' | b'0'..=b'9')) {
            return Err(self.mismatch(Expected::Number));
        }
        let start = self.pos;
        let (text, integer) = self.number_token()?;
        if integer && text.len() <= 15 {
            // At most 15 digits: exact in an `i64` and in an `f64`.
            let magnitude = text
                .bytes()
                .filter(u8::is_ascii_digit)
                .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
            let negative = text.starts_with('-');
            // `-0` is `-0.0`, as `JSON.parse` reads it.
            return Ok(if negative {
                -(magnitude as f64)
            } else {
                magnitude as f64
            });
        }
        match crate::protocol::float::parse(text) {
            v if v.is_finite() => Ok(v),
            _ => {
                self.pos = start;
                Err(DecodeError::new(
                    format!("the number {text} is out of range"),
                    start,
                ))
            }
        }
    }

    /// A whole number from 0 to `max`.
    pub fn unsigned(&mut self, max: u64, expected: Expected) -> Result<u64, DecodeError> {
        if !matches!(self.skip_space(), Some(b'-' | b'0'..=b'9')) {
            return Err(self.mismatch(expected));
        }
        let start = self.pos;
        let (text, integer) = self.number_token()?;
        let value = if integer && !text.starts_with('-') {
            text.parse::<u64>().ok().filter(|v| *v <= max)
        } else {
            None
        };
        value.ok_or_else(|| {
            self.pos = start;
            DecodeError::new(
                format!("expected {}, got the number {text}", expected.describe()),
                start,
            )
        })
    }

    /// A whole number in the `i64` range.
    pub fn signed(&mut self) -> Result<i64, DecodeError> {
        if !matches!(self.skip_space(), Some(b'-' | b'0'..=b'9')) {
            return Err(self.mismatch(Expected::Integer));
        }
        let start = self.pos;
        let (text, integer) = self.number_token()?;
        match integer.then(|| text.parse::<i64>().ok()).flatten() {
            Some(v) => Ok(v),
            None => {
                self.pos = start;
                Err(DecodeError::new(
                    format!("expected a whole number, got the number {text}"),
                    start,
                ))
            }
        }
    }

    /// Any JSON value (what `serde_json` would decode it to).
    pub fn value(&mut self) -> Result<JsonValue, DecodeError> {
        Ok(match self.peek()? {
            Token::Null => {
                self.literal("null")?;
                JsonValue::Null
            }
            Token::True | Token::False => JsonValue::Bool(self.boolean()?),
            Token::String => JsonValue::String(self.string_token()?.into_owned()),
            Token::Number => JsonValue::Number(self.json_number()?),
            Token::Array => {
                self.enter()?;
                let mut items = Vec::new();
                while self.next_element()? {
                    let value = self.value().map_err(|e| e.at_index(items.len()))?;
                    items.push(value);
                }
                JsonValue::Array(items)
            }
            Token::Object => {
                self.enter()?;
                JsonValue::Object(self.members()?)
            }
        })
    }

    /// An object's members as a JSON object.
    pub fn object(&mut self, expected: Expected) -> Result<JsonObject, DecodeError> {
        self.begin_object(expected)?;
        self.members()
    }

    /// The remaining members of an object begun with [`begin_object`](Self::begin_object).
    pub fn members(&mut self) -> Result<JsonObject, DecodeError> {
        let mut object = JsonObject::new();
        while let Some(key) = self.next_key()? {
            let value = self.value().map_err(|e| e.at_key(&key))?;
            object.insert(key.into_owned(), value);
        }
        Ok(object)
    }

    /// A number as `serde_json` represents it: an unsigned or negative integer when it is one
    /// and fits, else an `f64`.
    fn json_number(&mut self) -> Result<serde_json::Number, DecodeError> {
        let start = self.pos;
        let (text, integer) = self.number_token()?;
        if integer {
            if let Ok(v) = text.parse::<u64>() {
                return Ok(v.into());
            }
            // `-0` is not an integer to `serde_json` (nor to `JSON.parse`): `-0.0`.
            if let Ok(v) = text.parse::<i64>() {
                if v < 0 {
                    return Ok(v.into());
                }
            }
        }
        self.pos = start;
        self.f64().and_then(|v| {
            serde_json::Number::from_f64(v).ok_or_else(|| {
                DecodeError::new(format!("the number {text} is out of range"), start)
            })
        })
    }

    /// Skips one value (checked, as [`value`](Self::value) would).
    pub fn skip_value(&mut self) -> Result<(), DecodeError> {
        match self.peek()? {
            Token::Null => self.literal("null"),
            Token::True => self.literal("true"),
            Token::False => self.literal("false"),
            Token::String => self.string_token().map(drop),
            Token::Number => self.number_token().map(drop),
            Token::Array => {
                self.enter()?;
                let mut index = 0;
                while self.next_element()? {
                    self.skip_value().map_err(|e| e.at_index(index))?;
                    index += 1;
                }
                Ok(())
            }
            Token::Object => {
                self.enter()?;
                while let Some(key) = self.next_key()? {
                    self.skip_value().map_err(|e| e.at_key(&key))?;
                }
                Ok(())
            }
        }
    }

    /// The text of the next value, checked.
    pub fn raw_value(&mut self) -> Result<&'a str, DecodeError> {
        self.skip_space();
        let start = self.pos;
        self.skip_value()?;
        Ok(&self.text[start..self.pos])
    }
}
