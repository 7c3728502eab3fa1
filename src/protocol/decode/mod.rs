//! Decoding wire types from JSON text: the one decoder of every wire type.
//!
//! Each type implements [`Decode`] over a [`Reader`] of the text (the generated types by the
//! `xtask` generator, the others in `manual.rs` and `jsonrpc.rs`). The reader is not generic,
//! so a type's decoder is one function of its own members; serde's `Deserialize` instantiated
//! its deserializer's code per type and visitor, most of the wasm module's size.
//!
//! Errors name the offending value by its path from the root (`action.activeClient.tools[0]`),
//! collected while the error returns, and speak JSON, not Rust (`expected a string, got the
//! number 42`, `missing property `turnId``).
//!
//! Serde still works: every wire type's `Deserialize` reads the value as JSON and decodes its
//! text here ([`deserialize`]).
//!
//! ```
//! use ahp_wasm::protocol::{decode, StateAction};
//!
//! let action: StateAction = decode::from_text(r#"{"type":"session/titleChanged","title":"Hi"}"#)?;
//! assert!(matches!(action, StateAction::SessionTitleChanged(_)));
//!
//! let error = decode::from_text::<StateAction>(r#"{"type":"session/titleChanged","title":7}"#)
//!     .unwrap_err();
//! assert_eq!(error.message(), "expected a string, got the number 7");
//! assert_eq!(error.path().to_string(), "title");
//! # Ok::<(), decode::DecodeError>(())
//! ```

mod reader;

pub use reader::{Reader, Token};

use super::encode::json_text;
use super::json_path::{JsonPath, Segment};
use super::value::{JsonObject, JsonValue};
use litemap::LiteMap;
use std::fmt;
use std::sync::Arc;

/// A wire type that can be read from JSON text.
pub trait Decode: Sized {
    /// Reads one value of this type at the reader's position.
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError>;
}

/// Decodes the whole of `text` as a `T` (white space around it allowed, nothing else).
pub fn from_text<T: Decode>(text: &str) -> Result<T, DecodeError> {
    let mut reader = Reader::new(text);
    let value = T::decode(&mut reader)?;
    reader.finish()?;
    Ok(value)
}

/// `Deserialize` for a [`Decode`] type: reads the value as JSON, and decodes its text. Any
/// deserializer works (inside serde's buffered `untagged` and `flatten` too), at the cost of
/// a detour: [`from_text`] is the fast way.
pub fn deserialize<'de, D: serde::Deserializer<'de>, T: Decode>(
    deserializer: D,
) -> Result<T, D::Error> {
    use serde::Deserialize;
    let value = JsonValue::deserialize(deserializer)?;
    from_text(&json_text(&value)).map_err(serde::de::Error::custom)
}

/// Decodes the next value as the first of `shapes` it fits, as serde's `untagged` does; else
/// an error saying it `expected` one of them.
pub(crate) fn first_fitting<T>(
    reader: &mut Reader<'_>,
    shapes: &[fn(&str) -> Option<T>],
    expected: &str,
) -> Result<T, DecodeError> {
    let start = reader.offset();
    let text = reader.raw_value()?;
    shapes
        .iter()
        .find_map(|shape| shape(text))
        .ok_or_else(|| DecodeError::new(format!("expected {expected}"), start))
}

/// How a message names a value it did not expect: `the number 5`, `the string "x"`, `an
/// object`, ...
pub(crate) fn got(value: &JsonValue) -> String {
    match value {
        JsonValue::Object(_) => "an object".into(),
        JsonValue::Array(_) => "an array".into(),
        JsonValue::String(_) => format!("the string {}", json_text(value)),
        JsonValue::Number(_) => format!("the number {}", json_text(value)),
        other => json_text(other),
    }
}

/// What a decoder expected, for messages.
#[derive(Clone, Copy, Debug)]
pub enum Expected {
    /// A string.
    String,
    /// Any number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A whole number in the `i64` range.
    Integer,
    /// A whole number from 0 to this.
    Unsigned(u64),
    /// An array.
    Array,
    /// Any object.
    Object,
    /// An object of this wire type.
    Struct(&'static str),
    /// Anything else, described in these words.
    Words(&'static str),
}

impl Expected {
    /// `a string`, `an object (SessionState)`, ...
    pub fn describe(self) -> String {
        match self {
            Expected::String => "a string".into(),
            Expected::Number => "a number".into(),
            Expected::Boolean => "a boolean".into(),
            Expected::Integer => "a whole number".into(),
            Expected::Unsigned(max) => format!("a whole number from 0 to {max}"),
            Expected::Array => "an array".into(),
            Expected::Object => "an object".into(),
            Expected::Struct(name) => format!("an object ({name})"),
            Expected::Words(words) => words.into(),
        }
    }
}

/// Why a JSON text does not decode as a wire type: what is wrong, and where.
pub struct DecodeError(Box<ErrorInner>);

struct ErrorInner {
    message: String,
    /// Innermost first: each decoder adds its own step as the error returns through it.
    path: Vec<Segment>,
    offset: usize,
    syntax: bool,
}

impl DecodeError {
    /// An error about the value at byte `offset` (the caller adds the path).
    #[cold]
    pub fn new(message: impl Into<String>, offset: usize) -> Self {
        DecodeError(Box::new(ErrorInner {
            message: message.into(),
            path: Vec::new(),
            offset,
            syntax: false,
        }))
    }

    #[cold]
    pub(crate) fn syntax(message: String, offset: usize) -> Self {
        let mut error = DecodeError::new(message, offset);
        error.0.syntax = true;
        error
    }

    /// The error for an object without the required member `name` (the path names it).
    #[cold]
    #[inline(never)]
    pub fn missing(name: &str, offset: usize) -> Self {
        DecodeError::new(format!("missing property `{name}`"), offset).at_key(name)
    }

    /// What is wrong, in JSON terms, without the path.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Where: the path from the root of the text to the offending value (for a missing
    /// member, the member).
    pub fn path(&self) -> JsonPath {
        JsonPath(self.0.path.iter().rev().cloned().collect())
    }

    /// The path in the `InvalidInputError.path` form (`a.b[0].c`, `""` for the root).
    #[cfg(any(target_arch = "wasm32", test))]
    pub(crate) fn js_path(&self) -> String {
        self.path().to_js_string()
    }

    /// The byte offset in the text where the error was found.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// Whether the text is not JSON at all (rather than JSON of the wrong shape).
    pub fn is_syntax(&self) -> bool {
        self.0.syntax
    }

    /// The same error, one member further from the root.
    #[cold]
    #[inline(never)]
    pub fn at_key(mut self, key: &str) -> Self {
        self.0.path.push(Segment::Key(key.to_owned()));
        self
    }

    /// The same error, one array element further from the root.
    #[cold]
    #[inline(never)]
    pub fn at_index(mut self, index: usize) -> Self {
        self.0.path.push(Segment::Index(index));
        self
    }
}

/// `message at `path`` (the path left out for the root).
impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.path.is_empty() {
            f.write_str(&self.0.message)
        } else {
            write!(f, "{} at `{}`", self.0.message, self.path())
        }
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DecodeError({self}, offset {})", self.0.offset)
    }
}

impl std::error::Error for DecodeError {}

impl Decode for String {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.str().map(|s| s.into_owned())
    }
}

impl Decode for bool {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.boolean()
    }
}

impl Decode for f64 {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.f64()
    }
}

impl Decode for u64 {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.unsigned(u64::MAX, Expected::Unsigned(u64::MAX))
    }
}

impl Decode for u32 {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let max = u64::from(u32::MAX);
        reader
            .unsigned(max, Expected::Unsigned(max))
            .map(|v| v as u32)
    }
}

impl Decode for i64 {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.signed()
    }
}

impl Decode for JsonValue {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.value()
    }
}

impl Decode for JsonObject {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.object(Expected::Object)
    }
}

/// `null` is `None`.
impl<T: Decode> Decode for Option<T> {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        if reader.null()? {
            Ok(None)
        } else {
            T::decode(reader).map(Some)
        }
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.begin_array(Expected::Array)?;
        let mut items = Vec::new();
        while reader.next_element()? {
            let item = T::decode(reader).map_err(|e| e.at_index(items.len()))?;
            items.push(item);
        }
        Ok(items)
    }
}

impl<T: Decode> Decode for Box<T> {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        T::decode(reader).map(Box::new)
    }
}

impl<T: Decode> Decode for Arc<T> {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        T::decode(reader).map(Arc::new)
    }
}

/// A JSON object of values of one type (`Record<string, T>`), by name.
impl<T: Decode> Decode for LiteMap<String, T> {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.begin_object(Expected::Object)?;
        let mut map = LiteMap::new();
        while let Some(key) = reader.next_key()? {
            let value = T::decode(reader).map_err(|e| e.at_key(&key))?;
            map.insert(key.into_owned(), value);
        }
        Ok(map)
    }
}

/// Reads the value of a known member into its slot; a member given twice is an error.
#[inline(never)]
pub fn field<T: Decode>(
    reader: &mut Reader<'_>,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), DecodeError> {
    if slot.is_some() {
        return Err(duplicate(name, reader.offset()));
    }
    *slot = Some(T::decode(reader).map_err(|e| e.at_key(name))?);
    Ok(())
}

/// The error for a member given twice.
#[cold]
#[inline(never)]
pub(crate) fn duplicate(name: &str, offset: usize) -> DecodeError {
    DecodeError::new(format!("duplicate property `{name}`"), offset).at_key(name)
}

/// The error for a required member that is absent (not inlined: one copy, not one per
/// member).
#[cold]
#[inline(never)]
pub fn missing(name: &'static str, reader: &Reader<'_>) -> DecodeError {
    DecodeError::missing(name, reader.offset())
}

/// `Decode` for a plain struct (no `extra`): each member `field: "wireName"`, required, or
/// `field: "wireName" = default` when absent or `null`. Unknown members are skipped.
///
/// ```text
/// decode_object!(ServerInfo { server_seq: "serverSeq", locale: "locale" = None });
/// ```
macro_rules! decode_object {
    ($name:ident $(<$lt:lifetime>)? { $($field:ident: $wire:literal $(= $default:expr)?),* $(,)? }) => {
        impl $(<$lt>)? $crate::protocol::decode::Decode for $name $(<$lt>)? {
            fn decode(
                reader: &mut $crate::protocol::decode::Reader<'_>,
            ) -> Result<Self, $crate::protocol::decode::DecodeError> {
                use $crate::protocol::decode;
                reader.begin_object(decode::Expected::Struct(stringify!($name)))?;
                $(let mut $field = None;)*
                while let Some(key) = reader.next_key()? {
                    match &*key {
                        $($wire => decode::field(reader, &mut $field, $wire)?,)*
                        _ => reader.skip_value().map_err(|e| e.at_key(&key))?,
                    }
                }
                Ok($name {
                    $($field: decode_object!(@take reader $field $wire $($default)?),)*
                })
            }
        }
    };
    (@take $reader:ident $field:ident $wire:literal $default:expr) => {
        $field.unwrap_or($default)
    };
    (@take $reader:ident $field:ident $wire:literal) => {
        match $field {
            Some(value) => value,
            None => return Err($crate::protocol::decode::missing($wire, $reader)),
        }
    };
}
pub(crate) use decode_object;

#[cfg(test)]
mod tests;
