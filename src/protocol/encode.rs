//! Encoding wire types as JSON text, the counterpart of [`decode`](super::decode): each type
//! implements [`Encode`] over a [`Writer`] whose methods are not generic, so a type's encoder is
//! one function of its own members (serde's derived `Serialize` is instantiated per serializer
//! and inlines the serializer's work for every member).
//!
//! The text is what `serde_json::to_string` writes for the same value (the serde impls stay,
//! for users' own serializers; `tests/encode.rs` holds the two to the same output): members in
//! schema order, absent optional members left out, whole numbers without a fraction.
//!
//! ```
//! use ahp_wasm::protocol::{decode, encode, StateAction};
//!
//! let text = r#"{"type":"session/titleChanged","title":"Hi"}"#;
//! let action: StateAction = decode::from_text(text)?;
//! assert_eq!(encode::to_text(&action), text);
//! # Ok::<(), decode::DecodeError>(())
//! ```

use super::value::{Extra, JsonObject, JsonValue};
use litemap::LiteMap;
use std::sync::Arc;

/// A wire type that can be written as JSON text.
pub trait Encode {
    /// Writes the value at the writer's position.
    fn encode(&self, writer: &mut Writer);
}

/// `value` as JSON text.
pub fn to_text<T: Encode + ?Sized>(value: &T) -> String {
    let mut writer = Writer::default();
    value.encode(&mut writer);
    writer.finish()
}

/// `value` as compact JSON text, for messages. What `{value}` writes, without linking
/// `JsonValue`'s `Display` (a serializer instance of its own for each of its two formats).
pub fn json_text(value: &JsonValue) -> String {
    to_text(value)
}

/// Largest integer a JavaScript number holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// JSON text being written, token by token.
#[derive(Default)]
pub struct Writer {
    out: String,
    /// A value was just completed: the next member or element needs a `,` first.
    comma: bool,
}

impl Writer {
    /// The text written.
    pub fn finish(self) -> String {
        self.out
    }

    #[inline]
    fn value_start(&mut self) {
        if self.comma {
            self.out.push(',');
        }
    }

    /// `{`: members follow, each a [`key`](Self::key) and a value.
    pub fn begin_object(&mut self) {
        self.value_start();
        self.out.push('{');
        self.comma = false;
    }

    /// `}`.
    pub fn end_object(&mut self) {
        self.out.push('}');
        self.comma = true;
    }

    /// `[`: elements follow.
    pub fn begin_array(&mut self) {
        self.value_start();
        self.out.push('[');
        self.comma = false;
    }

    /// `]`.
    pub fn end_array(&mut self) {
        self.out.push(']');
        self.comma = true;
    }

    /// A member name given as its JSON text with the colon (`"turnId":`, as the generated
    /// encoders write it).
    #[inline(never)]
    pub fn key(&mut self, quoted_with_colon: &str) {
        self.value_start();
        self.out.push_str(quoted_with_colon);
        self.comma = false;
    }

    /// A member name known only at run time.
    #[inline(never)]
    pub fn dynamic_key(&mut self, name: &str) {
        self.value_start();
        self.escaped(name);
        self.out.push(':');
        self.comma = false;
    }

    /// Text that is one JSON value already.
    pub fn raw(&mut self, json: &str) {
        self.value_start();
        self.out.push_str(json);
        self.comma = true;
    }

    /// A string.
    #[inline(never)]
    pub fn string(&mut self, value: &str) {
        self.value_start();
        self.escaped(value);
        self.comma = true;
    }

    /// `"value"` with JSON's escapes, as serde_json writes them: `"` `\` and control characters.
    fn escaped(&mut self, value: &str) {
        let out = &mut self.out;
        out.push('"');
        let bytes = value.as_bytes();
        let mut run = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let escape: &str = match b {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                0..=0x1f => "",
                _ => continue,
            };
            out.push_str(&value[run..i]);
            if escape.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            } else {
                out.push_str(escape);
            }
            run = i + 1;
        }
        out.push_str(&value[run..]);
        out.push('"');
    }

    /// A number the way JavaScript writes it: whole values without a fraction (`1000`, not
    /// `1000.0`).
    #[inline(never)]
    pub fn number(&mut self, value: f64) {
        if value.fract() == 0.0 && value.abs() <= MAX_SAFE_INTEGER {
            self.integer(value as i64);
        } else {
            // Non-finite values are written as `null`, as JSON has no other way.
            self.value_start();
            if value.is_finite() {
                super::float::write(value, &mut self.out);
            } else {
                self.out.push_str("null");
            }
            self.comma = true;
        }
    }

    /// A whole number.
    #[inline(never)]
    pub fn integer(&mut self, value: i64) {
        self.value_start();
        self.out.push_str(itoa::Buffer::new().format(value));
        self.comma = true;
    }

    /// A whole number from 0 up.
    #[inline(never)]
    pub fn unsigned(&mut self, value: u64) {
        self.value_start();
        self.out.push_str(itoa::Buffer::new().format(value));
        self.comma = true;
    }

    /// `true` or `false`.
    pub fn boolean(&mut self, value: bool) {
        self.raw(if value { "true" } else { "false" });
    }

    /// `null`.
    pub fn null(&mut self) {
        self.raw("null");
    }

    /// The members of `extra` (unknown ones, kept), inside an object being written.
    pub fn extra(&mut self, extra: &Extra) {
        self.members(extra);
    }

    /// The members of `object`, inside an object being written.
    #[inline(never)]
    pub fn members(&mut self, object: &JsonObject) {
        for (name, value) in object {
            self.dynamic_key(name);
            value.encode(self);
        }
    }
}

impl Encode for str {
    fn encode(&self, writer: &mut Writer) {
        writer.string(self);
    }
}

impl Encode for String {
    fn encode(&self, writer: &mut Writer) {
        writer.string(self);
    }
}

impl Encode for bool {
    fn encode(&self, writer: &mut Writer) {
        writer.boolean(*self);
    }
}

impl Encode for f64 {
    fn encode(&self, writer: &mut Writer) {
        writer.number(*self);
    }
}

impl Encode for u64 {
    fn encode(&self, writer: &mut Writer) {
        writer.unsigned(*self);
    }
}

impl Encode for u32 {
    fn encode(&self, writer: &mut Writer) {
        writer.unsigned(u64::from(*self));
    }
}

impl Encode for i64 {
    fn encode(&self, writer: &mut Writer) {
        writer.integer(*self);
    }
}

impl Encode for JsonValue {
    fn encode(&self, writer: &mut Writer) {
        match self {
            JsonValue::Null => writer.null(),
            JsonValue::Bool(b) => writer.boolean(*b),
            JsonValue::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(v), _, _) => writer.unsigned(v),
                (None, Some(v), _) => writer.integer(v),
                (None, None, Some(v)) => {
                    writer.value_start();
                    super::float::write(v, &mut writer.out);
                    writer.comma = true;
                }
                (None, None, None) => writer.null(),
            },
            JsonValue::String(s) => writer.string(s),
            JsonValue::Array(items) => items.encode(writer),
            JsonValue::Object(members) => members.encode(writer),
        }
    }
}

impl Encode for JsonObject {
    fn encode(&self, writer: &mut Writer) {
        writer.begin_object();
        writer.members(self);
        writer.end_object();
    }
}

/// `None` is `null` (members that are left out when absent are skipped by their struct).
impl<T: Encode> Encode for Option<T> {
    fn encode(&self, writer: &mut Writer) {
        match self {
            Some(value) => value.encode(writer),
            None => writer.null(),
        }
    }
}

impl<T: Encode> Encode for [T] {
    fn encode(&self, writer: &mut Writer) {
        writer.begin_array();
        for item in self {
            item.encode(writer);
        }
        writer.end_array();
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, writer: &mut Writer) {
        self.as_slice().encode(writer);
    }
}

impl<T: Encode + ?Sized> Encode for Box<T> {
    fn encode(&self, writer: &mut Writer) {
        (**self).encode(writer);
    }
}

impl<T: Encode + ?Sized> Encode for Arc<T> {
    fn encode(&self, writer: &mut Writer) {
        (**self).encode(writer);
    }
}

impl<T: Encode + ?Sized> Encode for &T {
    fn encode(&self, writer: &mut Writer) {
        (**self).encode(writer);
    }
}

impl<T: Encode> Encode for LiteMap<String, T> {
    fn encode(&self, writer: &mut Writer) {
        writer.begin_object();
        for (name, value) in self {
            writer.dynamic_key(name);
            value.encode(writer);
        }
        writer.end_object();
    }
}

/// A struct's members without the braces around them: what a tagged union's variant writes
/// after its tag.
pub trait EncodeMembers {
    /// Writes the members, inside an object being written.
    fn encode_members(&self, writer: &mut Writer);
}

/// Writes a struct from its members.
#[inline]
pub fn encode_struct<T: EncodeMembers + ?Sized>(value: &T, writer: &mut Writer) {
    writer.begin_object();
    value.encode_members(writer);
    writer.end_object();
}

/// Writes a tagged union's variant: the tag member first, then the variant's members.
#[inline(never)]
pub fn encode_variant(writer: &mut Writer, tag_key: &str, tag: &str, members: &dyn EncodeMembers) {
    writer.begin_object();
    writer.key(tag_key);
    writer.raw(tag);
    members.encode_members(writer);
    writer.end_object();
}

#[cfg(test)]
mod tests {
    use super::to_text;
    use crate::protocol::JsonValue;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = JsonValue> {
        let leaf = prop_oneof![
            Just(JsonValue::Null),
            any::<bool>().prop_map(JsonValue::from),
            any::<i64>().prop_map(JsonValue::from),
            any::<u64>().prop_map(JsonValue::from),
            any::<f64>().prop_map(JsonValue::from),
            "\\PC{0,6}|[\u{0}-\u{1f}\"\\\\/\u{7f}é😀]{0,6}".prop_map(JsonValue::from),
        ];
        leaf.prop_recursive(5, 40, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(JsonValue::Array),
                prop::collection::vec(("[\u{0}-\u{1f}a-z\"]{0,4}", inner), 0..5)
                    .prop_map(|members| JsonValue::Object(members.into_iter().collect())),
            ]
        })
    }

    /// `Record<string, T>` members are objects, also when empty, by serde and by `Encode`.
    #[test]
    fn empty_records_are_objects() {
        let schema: crate::protocol::ConfigSchema =
            crate::protocol::decode::from_text(r#"{"type":"object","properties":{}}"#).unwrap();
        let text = to_text(&schema);
        assert_eq!(text, r#"{"type":"object","properties":{}}"#);
        assert_eq!(serde_json::to_string(&schema).unwrap(), text);
    }

    proptest! {
        /// Any JSON value is written as serde_json writes it: escapes, numbers, nesting.
        #[test]
        fn values_are_written_as_serde_json_writes_them(value in json_value()) {
            prop_assert_eq!(to_text(&value), serde_json::to_string(&value).unwrap());
        }

        /// Numbers as JavaScript writes them: whole ones without a fraction.
        #[test]
        fn numbers_are_written_as_javascript_reads_them(v in any::<f64>()) {
            let text = to_text(&v);
            if v.is_finite() {
                prop_assert_eq!(text.parse::<f64>().unwrap(), v);
                prop_assert_eq!(text.contains('.') || text.contains('e'), v.fract() != 0.0 || v.abs() > 9_007_199_254_740_991.0);
            } else {
                prop_assert_eq!(text, "null");
            }
        }
    }
}
