//! Small serde helpers the generated wire types use.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
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

impl<'de> Deserialize<'de> for Extra {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Extra;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Extra, A::Error> {
                let mut members: Option<Box<JsonObject>> = None;
                while let Some((key, value)) = map.next_entry::<String, JsonValue>()? {
                    members
                        .get_or_insert_with(Default::default)
                        .insert(key, value);
                }
                Ok(Extra(members))
            }
        }
        deserializer.deserialize_map(V)
    }
}

/// `value` as compact JSON text, for messages. What `{value}` writes, without linking
/// `JsonValue`'s `Display` (a serializer instance of its own for each of its two formats).
pub fn json_text(value: &JsonValue) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Largest integer a JavaScript number holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Writes a JSON number the way JavaScript would: integral values without a fraction
/// (`1000`, not `1000.0`), so the wire and the fixtures see the same text.
pub fn ser_f64<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    let v = *value;
    if v.fract() == 0.0 && v.abs() <= MAX_SAFE_INTEGER {
        serializer.serialize_i64(v as i64)
    } else {
        serializer.serialize_f64(v)
    }
}

/// [`ser_f64`] for optional numbers.
pub fn ser_opt_f64<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => ser_f64(v, serializer),
        None => serializer.serialize_none(),
    }
}

/// [`ser_f64`] for arrays of numbers.
pub fn ser_vec_f64<S: Serializer>(values: &[f64], serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    struct Num(f64);
    impl serde::Serialize for Num {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            ser_f64(&self.0, s)
        }
    }
    let mut seq = serializer.serialize_seq(Some(values.len()))?;
    for v in values {
        seq.serialize_element(&Num(*v))?;
    }
    seq.end()
}

/// Deserializes a string enum without allocating for known values.
pub fn deserialize_str_enum<'de, D, T>(
    deserializer: D,
    from_wire: fn(&str) -> T,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    struct V<T>(fn(&str) -> T);
    impl<T> Visitor<'_> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
            Ok((self.0)(s))
        }
    }
    deserializer.deserialize_str(V(from_wire))
}

/// A wire struct decoded from the entries of a JSON object. The impls are generated (see the
/// `xtask` crate) instead of derived: serde's derive with a flattened [`Extra`] buffers every
/// unknown member as `Content` and adds a field visitor of a dozen methods per struct, and
/// tagged unions would instantiate each variant's struct a second time behind a
/// `MapAccessDeserializer`. Here each struct has one function over the decoder's own
/// `MapAccess`, shared by both paths ([`StructVisitor`] and
/// [`TaggedUnion`](super::tagged::TaggedUnion)), which keeps the wasm module small.
pub trait WireStruct: Sized {
    /// The schema name, for messages (`invalid type: string, expected struct Name`).
    const NAME: &'static str;
    /// Reads the remaining entries of an object: known members into fields (each at most
    /// once), unknown ones into `extra`; fails on a missing required member.
    fn from_map<'de, A: de::MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

/// Deserializes a [`WireStruct`] from a JSON object.
pub fn deserialize_struct<'de, D: Deserializer<'de>, T: WireStruct>(
    deserializer: D,
) -> Result<T, D::Error> {
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: WireStruct> Visitor<'de> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "struct {}", T::NAME)
        }
        fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::from_map(map)
        }
    }
    deserializer.deserialize_map(V(std::marker::PhantomData))
}

/// Reads an object key, borrowing from the input when it can.
pub fn next_key<'de, A: de::MapAccess<'de>>(
    map: &mut A,
) -> Result<Option<std::borrow::Cow<'de, str>>, A::Error> {
    map.next_key_seed(super::tagged::StrSeed)
}

/// The index of `key` in `keys` (member names, union tags, enum values), or `usize::MAX`.
#[inline(never)]
pub fn key_index(key: &str, keys: &[&str]) -> usize {
    keys.iter()
        .position(|k| crate::words::same(k, key))
        .unwrap_or(usize::MAX)
}

/// Reads the value of a known member into its slot; a member given twice is an error.
#[inline(never)]
pub fn field<'de, T: Deserialize<'de>, A: de::MapAccess<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Reads the value of an unknown member into `extra`.
pub fn unknown<'de, A: de::MapAccess<'de>>(
    map: &mut A,
    extra: &mut Extra,
    key: std::borrow::Cow<'de, str>,
) -> Result<(), A::Error> {
    let value: JsonValue = map.next_value()?;
    extra.insert(key.into_owned(), value);
    Ok(())
}

/// The error for a required member that is absent (not inlined: one copy per decoder error
/// type, not one per member).
#[inline(never)]
pub fn missing<E: de::Error>(name: &'static str) -> E {
    de::Error::missing_field(name)
}

/// The value of a required member the generated decoder has checked to be present.
#[inline]
pub fn present<T>(slot: Option<T>) -> T {
    match slot {
        Some(value) => value,
        None => unreachable!("a required member is checked before it is taken"),
    }
}

#[cfg(test)]
mod key_tests {
    use super::key_index;

    #[test]
    fn finds_names_and_misses_unknown_ones() {
        let keys = ["type", "turnId", "partId", "content"];
        assert_eq!(key_index("partId", &keys), 2);
        assert_eq!(key_index("part", &keys), usize::MAX);
        assert_eq!(key_index("", &keys), usize::MAX);
        assert_eq!(key_index("contents", &keys), usize::MAX);
        assert_eq!(key_index("type", &[]), usize::MAX);
    }
}
