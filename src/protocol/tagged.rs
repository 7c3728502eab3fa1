//! Fast, forward-compatible deserialization of internally tagged unions.
//!
//! serde's derived `#[serde(tag = "...")]` buffers every object into an intermediate tree
//! before picking the variant, which costs several times the parse itself. Wire objects almost
//! always put their discriminator first, so [`deserialize`] reads the first key and, when it is
//! the tag, streams the remaining fields straight into the variant's struct. Otherwise it
//! buffers the object and decodes it again as JSON text with the tag first (the slow path).
//! A tag this version does not know yields the union's `Unknown` variant instead of an error.

use super::json_path::message_of;
use super::wire::{JsonObject, JsonValue};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// A union discriminated by the string property [`TaggedUnion::TAG`].
pub trait TaggedUnion: Sized {
    /// The discriminator property (`type`, `kind`, `status`, ...).
    const TAG: &'static str;
    /// The union's schema name, for error messages.
    const NAME: &'static str;
    /// The discriminator value of this variant.
    fn variant_tag(&self) -> &str;
    /// Builds the variant for `tag` from the object's other properties (the rest of the
    /// decoder's own map: a variant's struct is decoded by the same code either way).
    fn deserialize_variant<'de, A: MapAccess<'de>>(tag: &str, rest: A) -> Result<Self, A::Error>;
}

/// Deserializes a [`TaggedUnion`] (see the module docs).
pub fn deserialize<'de, D: Deserializer<'de>, T: TaggedUnion>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_map(TaggedVisitor(PhantomData))
}

struct TaggedVisitor<T>(PhantomData<T>);

impl<'de, T: TaggedUnion> Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} object with a `{}` property", T::NAME, T::TAG)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let Some(first) = map.next_key_seed(StrSeed)? else {
            return Err(de::Error::missing_field(T::TAG));
        };
        if first == T::TAG {
            let tag = map.next_value_seed(StrSeed)?;
            return T::deserialize_variant(&tag, map);
        }
        // Slow path: the tag is not the first property. Buffer the object, then decode it
        // again as JSON text with the tag first, through the fast path: every wire type has one
        // deserializer (`serde_json`'s on text); decoding the buffered value with another
        // (`serde_json::Value`'s) would add a second copy of every variant's.
        let mut object = JsonObject::new();
        object.insert(first.into_owned(), map.next_value()?);
        while let Some((key, value)) = map.next_entry::<String, JsonValue>()? {
            object.insert(key, value);
        }
        let tag = match object.shift_remove(T::TAG) {
            Some(JsonValue::String(tag)) => tag,
            Some(other) => {
                return Err(de::Error::custom(format_args!(
                    "`{}` must be a string, got {}",
                    T::TAG,
                    super::wire::json_text(&other)
                )))
            }
            None => return Err(de::Error::missing_field(T::TAG)),
        };
        let mut ordered = JsonObject::new();
        ordered.insert(T::TAG.to_owned(), JsonValue::String(tag));
        ordered.extend(object);
        let text = serde_json::to_string(&ordered).map_err(de::Error::custom)?;
        let mut text_de = serde_json::Deserializer::from_str(&text);
        // The error is about this object (the caller's position); its message stands alone.
        deserialize::<_, T>(&mut text_de).map_err(|e| de::Error::custom(message_of(&e)))
    }
}

/// Reads a string, borrowing from the input when it can.
pub struct StrSeed;

impl<'de> de::DeserializeSeed<'de> for StrSeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for StrSeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_owned()))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s))
    }
}

/// A union variant from a newer protocol version: the whole object, tag included, kept so it
/// can be forwarded or re-serialized unchanged. Reducers ignore it.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownVariant(pub JsonObject);

impl UnknownVariant {
    /// Rebuilds the object from its tag and the remaining properties.
    pub fn from_rest<'de, A: MapAccess<'de>>(
        tag_key: &str,
        tag: &str,
        mut rest: A,
    ) -> Result<Self, A::Error> {
        let mut object = JsonObject::new();
        object.insert(tag_key.to_owned(), JsonValue::String(tag.to_owned()));
        while let Some((key, value)) = rest.next_entry::<String, JsonValue>()? {
            object.insert(key, value);
        }
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
        let error = serde_json::from_str::<StateAction>(text).expect_err(text);
        super::message_of(&error)
    }

    #[test]
    fn a_tag_that_is_not_a_string_is_named_in_json() {
        // The tag after another member takes the buffered path.
        assert_eq!(
            error_of(r#"{"title": "t", "type": 5}"#),
            "`type` must be a string, got 5"
        );
        assert_eq!(
            error_of(r#"{"title": "t", "type": {"a": [1, "x"]}}"#),
            r#"`type` must be a string, got {"a":[1,"x"]}"#
        );
    }

    #[test]
    fn a_confirmation_that_is_not_a_boolean_is_named_in_json() {
        let text = r#"{"type": "session/toolCallConfirmed", "turnId": "t", "toolCallId": "c", "approved": "yes"}"#;
        assert_eq!(error_of(text), r#"`approved` must be a boolean, got "yes""#);
    }
}
