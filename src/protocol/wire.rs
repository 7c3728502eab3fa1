//! Small serde helpers the generated wire types use.

use super::decode::{Decode, DecodeError, Expected, Reader};
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

/// `value` as compact JSON text, for messages. What `{value}` writes, without linking
/// `JsonValue`'s `Display` (a serializer instance of its own for each of its two formats).
pub fn json_text(value: &JsonValue) -> String {
    super::encode::to_text(value)
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

/// A `Record<string, T>` member as a JSON object (`LiteMap`'s own `Serialize` writes an empty
/// map as an array).
pub fn ser_map<S: Serializer, V: Serialize>(
    map: &litemap::LiteMap<String, V>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(map.iter())
}

/// [`ser_map`] for optional members.
pub fn ser_opt_map<S: Serializer, V: Serialize>(
    map: &Option<litemap::LiteMap<String, V>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match map {
        Some(map) => ser_map(map, serializer),
        None => serializer.serialize_none(),
    }
}

/// Decodes a string enum without allocating for known values.
#[inline(never)]
pub fn decode_str_enum<T>(
    reader: &mut Reader<'_>,
    from_wire: fn(&str) -> T,
) -> Result<T, DecodeError> {
    reader.str().map(|s| from_wire(&s))
}

/// A wire struct: an object whose members are decoded into fields. The impls are generated
/// (see the `xtask` crate): one slot per known member, unknown members into `extra`, required
/// ones checked at the end. [`decode_struct`] reads a whole object;
/// [`TaggedUnion`](super::tagged::TaggedUnion) decoders call [`decode_members`] after the
/// tag, so a variant's struct is decoded by the same code either way.
///
/// [`decode_members`]: WireStruct::decode_members
pub trait WireStruct: Sized {
    /// The schema name, for messages (`expected an object (Name), got null`).
    const NAME: &'static str;
    /// Reads the remaining members of an object whose `{` the caller has read.
    fn decode_members(reader: &mut Reader<'_>) -> Result<Self, DecodeError>;
}

/// Decodes a [`WireStruct`] from a JSON object.
#[inline]
pub fn decode_struct<T: WireStruct>(reader: &mut Reader<'_>) -> Result<T, DecodeError> {
    reader.begin_object(Expected::Struct(T::NAME))?;
    T::decode_members(reader)
}

/// The index of `key` in `keys` (member names, union tags, enum values), or `usize::MAX`.
#[inline(never)]
pub fn key_index(key: &str, keys: &[&str]) -> usize {
    keys.iter()
        .position(|k| crate::words::same(k, key))
        .unwrap_or(usize::MAX)
}

/// A placeholder value a decoder starts a struct with before its members are read (an empty
/// string, zero, `None`, a blank struct...). A required member that stays blank is an error
/// ([`check_required`]), so no blank reaches a caller. Decoding into the struct itself, not
/// into a slot per member, leaves one drop of the whole struct on an error path instead of one
/// per filled slot, and no move of the slots at the end: a third of the decoders' code.
pub trait Blank {
    /// The placeholder.
    fn blank() -> Self;
}

macro_rules! blank_by_default {
    ($($ty:ty),*) => {
        $(impl Blank for $ty {
            fn blank() -> Self {
                Default::default()
            }
        })*
    };
}

blank_by_default!(String, bool, f64, u64, u32, i64, JsonValue, JsonObject, Extra);

impl<T> Blank for Option<T> {
    fn blank() -> Self {
        None
    }
}

impl<T> Blank for Vec<T> {
    fn blank() -> Self {
        Vec::new()
    }
}

impl<K: Ord, V> Blank for litemap::LiteMap<K, V> {
    fn blank() -> Self {
        litemap::LiteMap::new()
    }
}

impl<T: Blank> Blank for Box<T> {
    fn blank() -> Self {
        Box::new(T::blank())
    }
}

impl<T: Blank> Blank for std::sync::Arc<T> {
    fn blank() -> Self {
        std::sync::Arc::new(T::blank())
    }
}

/// Reads the value of member `bit` (its name is `keys[bit]`) into the struct's field `slot`,
/// noting it in `seen`; a member given twice is an error.
#[inline(never)]
pub fn member<T: Decode>(
    reader: &mut Reader<'_>,
    slot: &mut T,
    seen: &mut u64,
    bit: usize,
    keys: &[&'static str],
) -> Result<(), DecodeError> {
    let name = keys[bit];
    if *seen & (1 << bit) != 0 {
        return Err(duplicate(name, reader.offset()));
    }
    *slot = T::decode(reader).map_err(|e| e.at_key(name))?;
    *seen |= 1 << bit;
    Ok(())
}

/// Fails for the first required member (a bit of `required`) that was not `seen`.
#[inline(never)]
pub fn check_required(
    seen: u64,
    required: u64,
    keys: &[&'static str],
    reader: &Reader<'_>,
) -> Result<(), DecodeError> {
    let absent = required & !seen;
    if absent == 0 {
        return Ok(());
    }
    Err(missing(keys[absent.trailing_zeros() as usize], reader))
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

#[cold]
#[inline(never)]
fn duplicate(name: &str, offset: usize) -> DecodeError {
    DecodeError::new(format!("duplicate property `{name}`"), offset).at_key(name)
}

/// Reads the value of an unknown member into `extra`.
#[inline(never)]
pub fn unknown(
    reader: &mut Reader<'_>,
    extra: &mut Extra,
    key: std::borrow::Cow<'_, str>,
) -> Result<(), DecodeError> {
    let value = reader.value().map_err(|e| e.at_key(&key))?;
    extra.insert(key.into_owned(), value);
    Ok(())
}

/// The error for a required member that is absent (not inlined: one copy, not one per
/// member).
#[cold]
#[inline(never)]
pub fn missing(name: &'static str, reader: &Reader<'_>) -> DecodeError {
    DecodeError::missing(name, reader.offset())
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
