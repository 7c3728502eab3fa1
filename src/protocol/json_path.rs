//! The path of the value a `serde_json` error is about (`action.activeClient.tools[0].name`).
//!
//! Every wire type is decoded from JSON text by plain `serde_json::from_str`: one
//! deserializer, so one copy of each type's `Deserialize` in the binary. Tracking the path
//! while decoding (`serde_path_to_error`) would instantiate every type a second time for the
//! tracking deserializer. Instead, only on failure, [`error_path`] walks the text up to the
//! error's position with a small non-recursive scanner, keeping the stack of object keys and
//! array indices, and names the value there.
//!
//! Where `serde_json` puts the position (`line`/`column` count bytes): just after the last
//! byte it read, which is the end of the offending scalar (`"partId":7` → after `7`), the
//! closing `}` of an object missing a field, or, for a value of the wrong kind that it did
//! not read (an object where a string belongs), the `:` or `,` before it. The scanner maps
//! each of these to the value the error is about: the scalar, the object, the pending value.

use std::fmt;

/// One step of a path: an object member or an array element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    /// An object member, by (unescaped) key.
    Key(String),
    /// An array element, by index.
    Index(usize),
}

/// The path from the root of a JSON text to one of its values (empty: the root itself).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct JsonPath(pub(crate) Vec<Segment>);

impl JsonPath {
    /// `true` for the root value itself.
    pub(crate) fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// `a.b[0].c`, keys that are not identifiers as `["a b"]`, `""` for the root: the form
    /// used in `InvalidInputError.path` (the same as `js/checks.js`).
    #[cfg(any(target_arch = "wasm32", test))]
    pub(crate) fn to_js_string(&self) -> String {
        let mut out = String::new();
        for segment in &self.0 {
            match segment {
                Segment::Index(index) => {
                    out.push_str(&format!("[{index}]"));
                }
                Segment::Key(key) if is_identifier(key) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
                Segment::Key(key) => {
                    out.push('[');
                    out.push_str(&serde_json::to_string(key).unwrap_or_default());
                    out.push(']');
                }
            }
        }
        out
    }
}

/// `a.b[0].c` with keys as they are, `.` for the root (the form of `invalid params at ...`).
impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str(".");
        }
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Index(index) => write!(f, "[{index}]")?,
                Segment::Key(key) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(key)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(any(target_arch = "wasm32", test))]
fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// The path of the value that `error`, from decoding `text` with `serde_json::from_str`,
/// is about. The root when the error has no position.
pub(crate) fn error_path(text: &str, error: &serde_json::Error) -> JsonPath {
    match byte_offset(text, error.line(), error.column()) {
        Some(offset) => path_at(text, offset),
        None => JsonPath::default(),
    }
}

/// [`error_path`], down to the member itself when the error is a missing field (`summary`
/// rather than the object lacking it): what `InvalidInputError.path` names.
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) fn field_path(text: &str, error: &serde_json::Error) -> JsonPath {
    let mut path = error_path(text, error);
    let message = error.to_string();
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
    {
        path.0.push(Segment::Key(field.to_owned()));
    }
    path
}

/// The error's message in JSON terms (see [`json_terms`]) without `serde_json`'s
/// ` at line L column C` (a position in a text the caller may never have seen).
pub(crate) fn message_of(error: &serde_json::Error) -> String {
    let message = error.to_string();
    if error.line() == 0 {
        return json_terms(&message);
    }
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    json_terms(message.strip_suffix(&suffix).unwrap_or(&message))
}

/// A serde message in the terms of JSON (and JavaScript), not Rust: `invalid type: floating
/// point `1.5`, expected u32` becomes `expected a whole number from 0 to 4294967295, got the
/// number 1.5`; `missing field` becomes `missing property`. Other messages are kept.
pub(crate) fn json_terms(message: &str) -> String {
    if let Some(field) = message.strip_prefix("missing field ") {
        return format!("missing property {field}");
    }
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "));
    let Some((got, expected)) = rest.and_then(|r| r.rsplit_once(", expected ")) else {
        return message.to_owned();
    };
    format!(
        "expected {}, got {}",
        expected_term(expected),
        got_term(got)
    )
}

/// serde's `Unexpected` in JSON terms.
fn got_term(got: &str) -> String {
    let quoted = |prefix: &str| {
        got.strip_prefix(prefix)
            .map(|v| v.trim_matches('`').to_owned())
    };
    if let Some(n) = quoted("floating point ").or_else(|| quoted("integer ")) {
        return format!("the number {n}");
    }
    if let Some(b) = quoted("boolean ") {
        return b;
    }
    if let Some(s) = got.strip_prefix("string ") {
        return format!("the string {s}");
    }
    match got {
        "map" => "an object".into(),
        "sequence" => "an array".into(),
        "unit value" | "unit" | "null" => "null".into(),
        other => other.into(),
    }
}

/// What serde expected, in JSON terms.
fn expected_term(expected: &str) -> String {
    let whole = |max: &str| format!("a whole number from 0 to {max}");
    match expected {
        "u8" => whole("255"),
        "u16" => whole("65535"),
        "u32" => whole("4294967295"),
        "u64" | "usize" => whole("18446744073709551615"),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a sequence" => "an array".into(),
        "a map" => "an object".into(),
        other => match other.strip_prefix("struct ") {
            Some(name) => format!("an object ({name})"),
            None => other.into(),
        },
    }
}

/// The byte offset of `serde_json`'s `line` (1-based) and `column` (bytes into the line).
fn byte_offset(text: &str, line: usize, column: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let bytes = text.as_bytes();
    let mut start = 0;
    for _ in 1..line {
        start += bytes[start..].iter().position(|&b| b == b'\n')? + 1;
    }
    Some((start + column).min(bytes.len()))
}

/// One open object or array while scanning.
struct Frame {
    object: bool,
    /// Object: the key of the member being read, once its key is read.
    key: Option<String>,
    /// Array: the index of the element being read or next.
    index: usize,
    /// Object: after `:`. Array: after `[` or `,`. A value is expected.
    pending: bool,
}

/// The path of the frames' current members: `upto` frames, each with its key or index.
fn path_of(stack: &[Frame]) -> JsonPath {
    JsonPath(
        stack
            .iter()
            .filter_map(|frame| match (frame.object, &frame.key) {
                (true, Some(key)) => Some(Segment::Key(key.clone())),
                (true, None) => None,
                (false, _) => Some(Segment::Index(frame.index)),
            })
            .collect(),
    )
}

/// The path of the value the byte before `offset` belongs to (see the module docs).
pub(crate) fn path_at(text: &str, offset: usize) -> JsonPath {
    let bytes = text.as_bytes();
    let Some(p) = offset.min(bytes.len()).checked_sub(1) else {
        return JsonPath::default();
    };
    let mut stack: Vec<Frame> = Vec::new();
    // The path of the object or array on top of the stack (without its current member).
    let container = |stack: &[Frame]| path_of(&stack[..stack.len().saturating_sub(1)]);
    // Where `p` is between tokens (whitespace, `:`, `,`, `[`): a pending value, else the
    // innermost open container.
    let between = |stack: &[Frame]| match stack.last() {
        Some(top) if top.pending => path_of(stack),
        Some(_) => container(stack),
        None => JsonPath::default(),
    };
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            if i == p {
                return between(&stack);
            }
            i += 1;
            continue;
        }
        match b {
            b'{' | b'[' => {
                if i == p {
                    return path_of(&stack);
                }
                stack.push(Frame {
                    object: b == b'{',
                    key: None,
                    index: 0,
                    pending: b == b'[',
                });
                i += 1;
            }
            b'}' | b']' => {
                if i == p || stack.len() <= 1 {
                    // The closing bracket of the value the error is about (or the root's).
                    return container(&stack);
                }
                stack.pop();
                value_done(&mut stack);
                i += 1;
            }
            b',' | b':' => {
                if let Some(top) = stack.last_mut() {
                    if b == b':' {
                        top.pending = true;
                    } else if top.object {
                        top.key = None;
                        top.pending = false;
                    } else {
                        top.index += 1;
                        top.pending = true;
                    }
                }
                if i == p {
                    return between(&stack);
                }
                i += 1;
            }
            b'"' => {
                let end = string_end(bytes, i);
                let is_key = matches!(stack.last(), Some(top) if top.object && !top.pending);
                if is_key {
                    if p < end {
                        // In a key: the error is about the object.
                        return container(&stack);
                    }
                    let key = serde_json::from_str::<String>(&text[i..end])
                        .unwrap_or_else(|_| text[i + 1..end.saturating_sub(1).max(i + 1)].into());
                    if let Some(top) = stack.last_mut() {
                        top.key = Some(key);
                    }
                } else {
                    if p < end {
                        return path_of(&stack);
                    }
                    value_done(&mut stack);
                }
                i = end;
            }
            _ => {
                // A number or a literal (`true`, `false`, `null`), up to the next delimiter.
                let end = i + bytes[i..]
                    .iter()
                    .position(|&c| {
                        matches!(c, b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r')
                    })
                    .unwrap_or(bytes.len() - i)
                    .max(1);
                if p < end {
                    return path_of(&stack);
                }
                value_done(&mut stack);
                i = end;
            }
        }
    }
    between(&stack)
}

/// A member or element has been read completely.
fn value_done(stack: &mut [Frame]) {
    if let Some(top) = stack.last_mut() {
        top.pending = false;
    }
}

/// The index just after the string starting at `start` (its opening quote).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests;
