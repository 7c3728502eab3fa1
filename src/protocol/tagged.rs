//! Fast, forward-compatible decoding of internally tagged unions.
//!
//! Wire objects almost always put their discriminator first, so [`decode`] reads the first
//! member and, when it is the tag, reads the remaining members straight into the variant's
//! struct. Otherwise it reads the object into a tree and decodes it again as JSON text with
//! the tag first (the slow path). A tag this version does not know yields the union's
//! `Unknown` variant instead of an error.

use super::decode::{self, DecodeError, Expected, Reader};
use super::wire::{JsonObject, JsonValue};
use serde::{Serialize, Serializer};

/// A union discriminated by the string property [`TaggedUnion::TAG`].
pub trait TaggedUnion: Sized {
    /// The discriminator property (`type`, `kind`, `status`, ...).
    const TAG: &'static str;
    /// The union's schema name, for error messages.
    const NAME: &'static str;
    /// The discriminator value of this variant.
    fn variant_tag(&self) -> &str;
    /// Builds the variant for `tag` from the object's other members (the rest of the object
    /// the reader is in: a variant's struct is decoded by the same code either way).
    fn decode_variant(tag: &str, reader: &mut Reader<'_>) -> Result<Self, DecodeError>;
}

/// Decodes a [`TaggedUnion`] (see the module docs).
pub fn decode<T: TaggedUnion>(reader: &mut Reader<'_>) -> Result<T, DecodeError> {
    let text = match start(reader, T::NAME, T::TAG)? {
        Start::Tag(tag) => return T::decode_variant(&tag, reader),
        Start::Reordered(text) => text,
    };
    // Slow path: the tag was not the first member. The object written again with the tag
    // first is decoded by the fast path (paths in errors stay right: the text is the same
    // object).
    let mut again = Reader::new(&text);
    let value = decode(&mut again)?;
    again.finish()?;
    Ok(value)
}

/// How a union's object starts: with its tag (the fast path) or not (its text reordered).
enum Start<'a> {
    Tag(std::borrow::Cow<'a, str>),
    Reordered(String),
}

/// The start of [`decode`] that does not depend on the union (one copy for every union):
/// the object's first member, its tag or the object reordered.
#[inline(never)]
fn start<'a>(
    reader: &mut Reader<'a>,
    name: &'static str,
    tag_key: &'static str,
) -> Result<Start<'a>, DecodeError> {
    reader.begin_object(Expected::Struct(name))?;
    let Some(first) = reader.next_key()? else {
        return Err(DecodeError::missing(tag_key, reader.offset()));
    };
    if crate::words::same(&first, tag_key) {
        let tag = reader.str().map_err(|e| e.at_key(tag_key))?;
        return Ok(Start::Tag(tag));
    }
    reordered(first, reader, tag_key).map(Start::Reordered)
}

/// The object whose first member `first` the reader has just read, as JSON text with the
/// member `tag_key` first (not generic: one copy for every union).
#[inline(never)]
fn reordered(
    first: std::borrow::Cow<'_, str>,
    reader: &mut Reader<'_>,
    tag_key: &str,
) -> Result<String, DecodeError> {
    let value = reader.value().map_err(|e| e.at_key(&first))?;
    let mut object = JsonObject::new();
    object.insert(first.into_owned(), value);
    object.extend(reader.members()?);
    let offset = reader.offset();
    let tag = match object.shift_remove(tag_key) {
        Some(JsonValue::String(tag)) => tag,
        Some(other) => {
            let message = format!("expected a string, got {}", decode::got(&other));
            return Err(DecodeError::new(message, offset).at_key(tag_key));
        }
        None => return Err(DecodeError::missing(tag_key, offset)),
    };
    let mut ordered = JsonObject::new();
    ordered.insert(tag_key.to_owned(), JsonValue::String(tag));
    ordered.extend(object);
    Ok(super::encode::json_text(&JsonValue::Object(ordered)))
}

/// A union variant from a newer protocol version: the whole object, tag included, kept so it
/// can be forwarded or re-serialized unchanged. Reducers ignore it.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownVariant(pub JsonObject);

impl UnknownVariant {
    /// Rebuilds the object from its tag and the remaining members.
    pub fn from_rest(
        tag_key: &str,
        tag: &str,
        reader: &mut Reader<'_>,
    ) -> Result<Self, DecodeError> {
        let mut object = JsonObject::new();
        object.insert(tag_key.to_owned(), JsonValue::String(tag.to_owned()));
        object.extend(reader.members()?);
        Ok(UnknownVariant(object))
    }

    /// The discriminator value (empty if the object somehow lacks it).
    pub fn tag(&self) -> &str {
        self.0
            .values()
            .next()
            .and_then(JsonValue::as_str)
            .unwrap_or_default()
    }
}

impl Serialize for UnknownVariant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::StateAction;

    fn error_of(text: &str) -> String {
        let error = crate::protocol::decode::from_text::<StateAction>(text).expect_err(text);
        error.to_string()
    }

    #[test]
    fn a_tag_that_is_not_a_string_is_named_in_json() {
        // The tag after another member takes the buffered path.
        assert_eq!(
            error_of(r#"{"title": "t", "type": 5}"#),
            "expected a string, got the number 5 at `type`"
        );
        assert_eq!(
            error_of(r#"{"title": "t", "type": {"a": [1, "x"]}}"#),
            "expected a string, got an object at `type`"
        );
    }

    #[test]
    fn a_confirmation_that_is_not_a_boolean_is_named_in_json() {
        let text = r#"{"type": "session/toolCallConfirmed", "turnId": "t", "toolCallId": "c", "approved": "yes"}"#;
        assert_eq!(
            error_of(text),
            r#"expected a boolean, got the string "yes" at `approved`"#
        );
    }
}
