//! JS <-> Rust conversion for the bindings.
//!
//! In: a JS value is checked and turned into JSON text by one call into JS (`jsonText` in
//! `js/checks.js`): an iterative walk first checks it is JSON-like data (plain objects and
//! arrays, strings, finite numbers, booleans, null; `undefined` members are left out as
//! `JSON.stringify` does) within [`MAX_DEPTH`] levels, [`MAX_VALUES`] values and
//! [`MAX_STRING_UNITS`] string characters, so a deep, cyclic or huge value is an
//! `InvalidInputError` naming the offending path instead of a stack overflow or an
//! out-of-memory trap; then `JSON.stringify` writes it. The text is decoded by
//! [`decode`](crate::protocol::decode), the one decoder every wire type has (frames, snapshots,
//! params); a failure names the path of the offending value
//! (`activeTurn.responseParts[0].kind`).
//!
//! Out: a value is written as JSON text by `serde_json` (the one `Serialize` instantiation every
//! wire type needs anyway, for frames) and turned into plain JS values by one `JSON.parse`:
//! exactly the wire form (absent optional fields omitted, `null` kept), in one call across the
//! boundary instead of one per property, and without a second copy of every wire type's
//! `Serialize` in the module. [`patch_struct`] writes only the top-level fields an action
//! changed onto a shallow copy of the input object, so everything else keeps its identity, as
//! with the official TypeScript reducers.

use super::errors::invalid_input;
use crate::protocol::decode::{self, Decode, DecodeError};
use serde::ser::{self, Impossible, Serialize};
use serde_json::Error;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Deepest nesting of objects and arrays accepted from JS (the same bound as `serde_json`).
pub const MAX_DEPTH: u32 = 128;
/// Most values (objects, arrays and leaves) accepted in one argument.
pub const MAX_VALUES: u32 = 2_000_000;
/// Most string characters (UTF-16 code units), summed over one argument.
pub const MAX_STRING_UNITS: u32 = 64 * 1024 * 1024;

#[wasm_bindgen(module = "/js/checks.js")]
extern "C" {
    #[wasm_bindgen(js_name = inspectInput, catch)]
    fn inspect_input(
        value: &JsValue,
        max_depth: u32,
        max_values: u32,
        max_chars: u32,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_name = jsonText, catch)]
    fn json_text(
        value: &JsValue,
        max_depth: u32,
        max_values: u32,
        max_chars: u32,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_name = encodeText)]
    fn encode_text(text: &js_sys::JsString, into: &mut [u8]) -> i32;

    #[wasm_bindgen(js_name = utf8Length)]
    fn utf8_length(text: &js_sys::JsString) -> u32;
}

/// A JS string as a Rust `String`, written into wasm memory by `TextEncoder.encodeInto`.
///
/// wasm-bindgen's own string argument copies character by character until the first
/// non-ASCII one: about 2.4 ns a character in Node 20, 3 ms for a 500-turn session's state.
/// The encoder takes a fraction of that. The buffer is exact for ASCII text (one byte per
/// UTF-16 unit); otherwise JS counts the UTF-8 length first, so a long text never takes the
/// three bytes per unit of the worst case (wasm memory, once grown, stays grown).
pub fn text_from_js(text: &js_sys::JsString) -> String {
    let units = text.length() as usize;
    let mut bytes = vec![0u8; units];
    let mut written = encode_text(text, &mut bytes);
    if written < 0 {
        // Freed first, so that the allocator can reuse it for the larger buffer.
        drop(std::mem::take(&mut bytes));
        bytes = vec![0u8; utf8_length(text) as usize];
        written = encode_text(text, &mut bytes);
    }
    bytes.truncate(usize::try_from(written).unwrap_or(0));
    // The encoder writes well-formed UTF-8 (lone surrogates as U+FFFD).
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Checks `value` against the input limits (see the module docs).
pub fn check_limits(value: &JsValue, argument: &str) -> Result<(), JsValue> {
    // Primitives cannot nest: skip the call into JS.
    if !value.is_object() {
        return Ok(());
    }
    let found = inspect_input(value, MAX_DEPTH, MAX_VALUES, MAX_STRING_UNITS);
    match found {
        Ok(found) if found.is_null() => Ok(()),
        other => Err(rejected(other, argument)),
    }
}

/// The `InvalidInputError` for what `inspectInput` or `jsonText` found (`[path, reason]`) or
/// threw (a getter, a proxy or a `toJSON` method).
fn rejected(found: Result<JsValue, JsValue>, argument: &str) -> JsValue {
    match found {
        Ok(found) => {
            let found: js_sys::Array = found.unchecked_into();
            let path = found.get(0).as_string().unwrap_or_default();
            let reason = found.get(1).as_string().unwrap_or_default();
            invalid_input(argument, &path, &reason)
        }
        Err(thrown) => {
            let reason = match thrown.dyn_ref::<js_sys::Error>() {
                Some(error) => String::from(error.message()),
                None => thrown
                    .as_string()
                    .unwrap_or_else(|| "reading the value threw".to_owned()),
            };
            invalid_input(argument, "", &reason)
        }
    }
}

/// `value` as JSON text, checked against the input limits (see the module docs).
pub fn to_json_text(value: &JsValue, argument: &str) -> Result<String, JsValue> {
    to_json_js(value, argument).map(|text| text_from_js(&text))
}

/// [`to_json_text`], the text left in JS (for a caller that also parses it there).
pub fn to_json_js(value: &JsValue, argument: &str) -> Result<js_sys::JsString, JsValue> {
    match json_text(value, MAX_DEPTH, MAX_VALUES, MAX_STRING_UNITS) {
        Ok(text) => text
            .dyn_into::<js_sys::JsString>()
            .map_err(|text| rejected(Ok(text), argument)),
        thrown => Err(rejected(thrown, argument)),
    }
}

/// Converts a JS value to `T` (through JSON text, see the module docs), or returns an
/// `InvalidInputError` naming `argument` and the offending field path.
pub fn from_js<T: Decode>(value: &JsValue, argument: &str) -> Result<T, JsValue> {
    from_json_text(&to_json_text(value, argument)?, argument)
}

/// Decodes text from [`to_json_text`] as `T`, or returns an `InvalidInputError` naming
/// `argument` and the offending field path.
pub fn from_json_text<T: Decode>(text: &str, argument: &str) -> Result<T, JsValue> {
    decode_json_text(text, argument).map(|(value, _)| value)
}

/// [`from_json_text`], also telling whether the value is exactly what `JSON.parse(text)` gives
/// (`false` when lone surrogates had to be replaced first).
pub fn decode_json_text<T: Decode>(text: &str, argument: &str) -> Result<(T, bool), JsValue> {
    match decode::from_text(text) {
        Ok(value) => Ok((value, true)),
        // Valid JSON from `JSON.stringify` fails to parse only for a string with a lone
        // surrogate (escaped as `\udXXX`), which is not text: replace those by U+FFFD, as a
        // conversion of the string would.
        Err(e) if e.is_syntax() => {
            let text = replace_lone_surrogates(text);
            let value = decode::from_text(&text).map_err(|e| decode_error(argument, &e))?;
            Ok((value, false))
        }
        Err(e) => Err(decode_error(argument, &e)),
    }
}

/// The `InvalidInputError` for a failed decode of `argument`.
pub fn decode_error(argument: &str, error: &DecodeError) -> JsValue {
    invalid_input(argument, &error.js_path(), error.message())
}

/// `text` (from `JSON.stringify`) with every `\u` escape of a surrogate replaced by
/// `\ufffd`: `JSON.stringify` writes surrogate pairs as they are and escapes only lone ones.
fn replace_lone_surrogates(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let escape = &bytes[i..(i + 6).min(bytes.len())];
        let lone = escape.len() == 6
            && escape[1] == b'u'
            && escape[2].eq_ignore_ascii_case(&b'd')
            && matches!(escape[3].to_ascii_lowercase(), b'8'..=b'9' | b'a'..=b'f');
        if lone {
            out.push_str(&text[copied..i]);
            out.push_str("\\ufffd");
            copied = i + 6;
            i += 6;
        } else {
            // Any other escape (`\\` among them) is two characters at least.
            i += 2;
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Serializes `value` to a plain JS value (JSON text, then `JSON.parse`; see the module docs).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    to_js_inner(value).map_err(|e| super::errors::internal(&e.to_string()))
}

fn to_js_inner<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, Error> {
    let text = serde_json::to_string(value)?;
    js_sys::JSON::parse(&text).map_err(js_error)
}

/// A JS exception (from `JSON.parse` or `Reflect`) as a serialization error.
fn js_error(thrown: JsValue) -> Error {
    let message = match thrown.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.message()),
        None => "a JS call threw".to_owned(),
    };
    ser::Error::custom(message)
}

/// A shallow copy of the JS object `base` with the top-level fields named in `fields` replaced
/// by the serialized fields of the struct `value` (removed where `value` skips them). The other
/// properties of `base`, unknown ones included, are carried over as they are (same identity).
///
/// `value` may serialize as a struct or, as the wire types do (their unknown members are a
/// flattened [`Extra`](crate::protocol::Extra)), as a map with string keys.
pub fn patch_struct<T: Serialize>(
    base: &JsValue,
    value: &T,
    fields: &[&str],
) -> Result<JsValue, JsValue> {
    let target = js_sys::Object::assign(&js_sys::Object::new(), base.unchecked_ref());
    value
        .serialize(PatchSerializer {
            target: &target,
            fields,
        })
        .map_err(|e| super::errors::internal(&e.to_string()))?;
    Ok(target.into())
}

/// A serializer that accepts one struct or string-keyed map and writes the selected fields
/// onto `target`.
struct PatchSerializer<'a> {
    target: &'a js_sys::Object,
    fields: &'a [&'a str],
}

struct PatchStruct<'a> {
    target: &'a js_sys::Object,
    fields: &'a [&'a str],
}

impl ser::SerializeStruct for PatchStruct<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<V: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), Error> {
        if !self.fields.contains(&key) {
            return Ok(());
        }
        write_field(self.target, key, value)
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), Error> {
        if self.fields.contains(&key) {
            js_sys::Reflect::delete_property(self.target, &JsValue::from_str(key))
                .map_err(js_error)?;
        }
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// Writes one selected field onto `target` (`JSON.parse` never gives `undefined`: a field to
/// leave out is skipped by its `Serialize`, and deleted by the caller).
fn write_field<V: ?Sized + Serialize>(
    target: &js_sys::Object,
    key: &str,
    value: &V,
) -> Result<(), Error> {
    let value = to_js_inner(value)?;
    js_sys::Reflect::set(target, &JsValue::from_str(key), &value).map_err(js_error)?;
    Ok(())
}

/// The map form of a struct (`#[serde(flatten)]` makes serde write structs as maps): entries
/// whose key is selected are written; selected keys that no entry wrote are absent from the
/// value (skipped `None`s) and deleted at the end. Other entries (unknown members among them)
/// are left to `target` as it is.
struct PatchMap<'a> {
    target: &'a js_sys::Object,
    fields: &'a [&'a str],
    /// Per entry of `fields`: whether an entry wrote it.
    written: Vec<bool>,
    /// The index in `fields` of the key just read, if selected.
    pending: Option<usize>,
}

impl ser::SerializeMap for PatchMap<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<K: ?Sized + Serialize>(&mut self, key: &K) -> Result<(), Error> {
        let key = key.serialize(KeySerializer)?;
        self.pending = self.fields.iter().position(|f| *f == key);
        Ok(())
    }

    fn serialize_value<V: ?Sized + Serialize>(&mut self, value: &V) -> Result<(), Error> {
        if let Some(i) = self.pending.take() {
            let key = self.fields[i];
            write_field(self.target, key, value)?;
            for (written, field) in self.written.iter_mut().zip(self.fields) {
                *written |= *field == key;
            }
        }
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        for (field, written) in self.fields.iter().zip(self.written) {
            if !written {
                js_sys::Reflect::delete_property(self.target, &JsValue::from_str(field))
                    .map_err(js_error)?;
            }
        }
        Ok(())
    }
}

/// Reads a map key that is a string.
struct KeySerializer;

fn key_not_a_string() -> Error {
    ser::Error::custom("patch_struct: a map key is not a string")
}

macro_rules! reject_key {
    ($($name:ident($($arg:ty),*);)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<String, Error> { Err(key_not_a_string()) })*
    };
}

impl ser::Serializer for KeySerializer {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_owned())
    }

    reject_key! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    fn serialize_some<V: ?Sized + Serialize>(self, _: &V) -> Result<String, Error> {
        Err(key_not_a_string())
    }
    fn serialize_newtype_struct<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &V,
    ) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<String, Error> {
        Err(key_not_a_string())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_not_a_string())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_not_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_not_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_not_a_string())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_not_a_string())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_not_a_string())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_not_a_string())
    }
}

fn not_a_struct() -> Error {
    ser::Error::custom("patch_struct: the state type must serialize as a struct or a map")
}

macro_rules! reject {
    ($($name:ident($($arg:ty),*);)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<(), Error> { Err(not_a_struct()) })*
    };
}

impl<'a> ser::Serializer for PatchSerializer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = PatchMap<'a>;
    type SerializeStruct = PatchStruct<'a>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<PatchStruct<'a>, Error> {
        Ok(PatchStruct {
            target: self.target,
            fields: self.fields,
        })
    }

    reject! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_str(&str);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    fn serialize_some<V: ?Sized + Serialize>(self, _: &V) -> Result<(), Error> {
        Err(not_a_struct())
    }
    fn serialize_newtype_struct<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &V,
    ) -> Result<(), Error> {
        Err(not_a_struct())
    }
    fn serialize_newtype_variant<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<(), Error> {
        Err(not_a_struct())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_a_struct())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<PatchMap<'a>, Error> {
        Ok(PatchMap {
            target: self.target,
            fields: self.fields,
            written: vec![false; self.fields.len()],
            pending: None,
        })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_a_struct())
    }
}
