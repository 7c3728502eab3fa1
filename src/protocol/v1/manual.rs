//! Wire types of 1.0.0 the generator does not write: `StringOrMarkdown` (the same shape as in
//! 0.3.0) and [`Tagged`], a union variant's struct standing alone with its tag.

use super::decode::{self, Decode, DecodeError, Reader};
use super::encode::{self, Encode, EncodeMembers, Writer};
use super::wire::{self, JsonObject, JsonValue};
use crate::protocol::tagged::{self, TaggedUnion};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use crate::protocol::StringOrMarkdown;

/// The struct of one variant of a tagged union: the tag it is written with.
pub trait UnionMember: wire::WireStruct + EncodeMembers + wire::Blank + Serialize {
    /// The discriminator property (`kind`, `status`, ...).
    const TAG_KEY: &'static str;
    /// This variant's value of it.
    const TAG: &'static str;
}

/// A union variant's struct where the definition uses it outside its union but still writes
/// its tag (`chat/error`'s `part` is an error response part, `kind: "error"`; a client tool
/// execution request's `toolCall` is a running tool call, `status: "running"`). Reading
/// requires the tag to have this variant's value; writing puts it first.
#[derive(Debug, Clone, PartialEq)]
pub struct Tagged<T>(pub T);

impl<T> std::ops::Deref for Tagged<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Tagged<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: UnionMember> TaggedUnion for Tagged<T> {
    const TAG: &'static str = T::TAG_KEY;
    const NAME: &'static str = T::NAME;

    fn variant_tag(&self) -> &str {
        T::TAG
    }

    fn decode_variant(tag: &str, reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        if tag != T::TAG {
            let message = format!("expected {:?}, got {tag:?}", T::TAG);
            return Err(DecodeError::new(message, reader.offset()).at_key(T::TAG_KEY));
        }
        T::decode_members(reader).map(Tagged)
    }
}

impl<T: UnionMember> Decode for Tagged<T> {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        tagged::decode(reader)
    }
}

impl<'de, T: UnionMember> Deserialize<'de> for Tagged<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        decode::deserialize(deserializer)
    }
}

impl<T: UnionMember> wire::Blank for Tagged<T> {
    fn blank() -> Self {
        Tagged(T::blank())
    }
}

impl<T: UnionMember> Encode for Tagged<T> {
    fn encode(&self, writer: &mut Writer) {
        let key = format!("{}:", wire::json_text(&JsonValue::from(T::TAG_KEY)));
        let tag = wire::json_text(&JsonValue::from(T::TAG));
        encode::encode_variant(writer, &key, &tag, &self.0);
    }
}

impl<T: UnionMember> Serialize for Tagged<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let JsonValue::Object(members) = serde_json::to_value(&self.0).map_err(S::Error::custom)?
        else {
            return Err(S::Error::custom("a union variant's struct is an object"));
        };
        let mut object = JsonObject::new();
        object.insert(T::TAG_KEY.to_owned(), JsonValue::from(T::TAG));
        object.extend(members);
        object.serialize(serializer)
    }
}

impl super::Customization {
    /// The entry's `id`, the key customization actions address it by (none for a kind this
    /// version does not know).
    pub fn id(&self) -> Option<&str> {
        use super::Customization as C;
        match self {
            C::Plugin(c) => Some(&c.id),
            C::Directory(c) => Some(&c.id),
            C::McpServer(c) => Some(&c.id),
            C::Unknown(_) => None,
        }
    }
}

impl super::ChildCustomization {
    /// The child's `id` (none for a kind this version does not know).
    pub fn id(&self) -> Option<&str> {
        use super::ChildCustomization as C;
        match self {
            C::Agent(c) => Some(&c.id),
            C::Skill(c) => Some(&c.id),
            C::Prompt(c) => Some(&c.id),
            C::Rule(c) => Some(&c.id),
            C::Hook(c) => Some(&c.id),
            C::McpServer(c) => Some(&c.id),
            C::Unknown(_) => None,
        }
    }
}
