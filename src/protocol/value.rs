//! The JSON values of the wire model: any value ([`JsonValue`]), an open object
//! ([`JsonObject`]), and the members a wire object does not know ([`Extra`]). The bottom of
//! the protocol module: it uses nothing else of it.

use serde::{Serialize, Serializer};
use std::fmt;

/// Any JSON value (`unknown` in TypeScript).
pub type JsonValue = serde_json::Value;
/// An open JSON object such as `_meta` (`Record<string, unknown>` in TypeScript).
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// The members of a wire object that this protocol version does not know (from a newer peer
/// or an extension, such as `activeClient.systemMessageTransform`), kept in their order so that
/// decoding, reducing and encoding an object never drops them.
///
/// Every generated struct has one, as its last field `extra` (flattened: the members sit
/// beside the known ones on the wire). In TypeScript it adds nothing to the object types.
///
/// Almost always empty, so it is one pointer wide and allocates nothing when empty (wire
/// structs are built and moved per action). It reads as a [`JsonObject`] (`extra.get(name)`,
/// `extra.insert(name, value)`).
#[derive(Clone, Default)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(type = "{}"))]
pub struct Extra(Option<Box<JsonObject>>);

impl Extra {
    /// Whether there are no unknown members.
    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|members| members.is_empty())
    }

    /// The members, if any.
    pub fn into_object(self) -> JsonObject {
        self.0.map(|members| *members).unwrap_or_default()
    }
}

fn empty_object() -> &'static JsonObject {
    static EMPTY: std::sync::OnceLock<JsonObject> = std::sync::OnceLock::new();
    EMPTY.get_or_init(JsonObject::new)
}

impl std::ops::Deref for Extra {
    type Target = JsonObject;
    fn deref(&self) -> &JsonObject {
        self.0.as_deref().unwrap_or_else(|| empty_object())
    }
}

impl std::ops::DerefMut for Extra {
    fn deref_mut(&mut self) -> &mut JsonObject {
        self.0.get_or_insert_with(Default::default)
    }
}

impl From<JsonObject> for Extra {
    fn from(members: JsonObject) -> Self {
        Extra((!members.is_empty()).then(|| Box::new(members)))
    }
}

impl PartialEq for Extra {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl fmt::Debug for Extra {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for Extra {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(members) => members.serialize(serializer),
            None => serializer.collect_map(std::iter::empty::<(&str, &JsonValue)>()),
        }
    }
}
