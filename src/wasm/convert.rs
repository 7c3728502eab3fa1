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
//! Out: a value is written as JSON text by [`encode`](crate::protocol::encode) (the one encoder
//! every wire type has, for frames too) and turned into plain JS values by one `JSON.parse`:
//! exactly the wire form (absent optional fields omitted, `null` kept), in one call across the
//! boundary instead of one per property. [`patch_struct`] writes only the top-level fields an
//! action changed onto a shallow copy of the input object, so everything else keeps its
//! identity, as with the official TypeScript reducers.

use super::errors::invalid_input;
use crate::protocol::decode::{self, Decode, DecodeError};
use crate::protocol::encode::{self, Encode, Writer};
use crate::sync::MirrorState;
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

/// `value` as a plain JS value (JSON text, then `JSON.parse`; see the module docs).
pub fn to_js<T: Encode + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    parse(&encode::to_text(value))
}

/// `JSON.parse(text)`, for text this module wrote.
pub fn parse(text: &str) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(text).map_err(|thrown| {
        let message = match thrown.dyn_ref::<js_sys::Error>() {
            Some(error) => String::from(error.message()),
            None => "a JS call threw".to_owned(),
        };
        super::errors::internal(&message)
    })
}

/// A shallow copy of the JS object `base` with the top-level fields named in `fields` replaced
/// by `state`'s (removed where `state` lacks them). The other properties of `base`, unknown
/// ones included, are carried over as they are (same identity).
pub fn patch_struct<S: MirrorState>(
    base: &JsValue,
    state: &S,
    fields: &[&str],
) -> Result<JsValue, JsValue> {
    let target = js_sys::Object::assign(&js_sys::Object::new(), base.unchecked_ref());
    for &field in S::fields() {
        let name = S::field_name(field);
        if !fields.contains(&name) {
            continue;
        }
        let key = JsValue::from_str(name);
        let mut writer = Writer::default();
        if state.encode_field(field, &mut writer) {
            js_sys::Reflect::set(&target, &key, &parse(&writer.finish())?)?;
        } else {
            js_sys::Reflect::delete_property(&target, &key)?;
        }
    }
    Ok(target.into())
}
