//! Small helpers the wire types use (the generated ones and those of `manual.rs`): serde's
//! number and map writers, and what the decoders of wire structs share ([`WireStruct`],
//! [`Blank`], [`member`], ...). The JSON value types are `value.rs`'s, re-exported here.

use super::decode::{duplicate, Decode, DecodeError, Expected, Reader};
pub use super::decode::{field, missing};
pub use super::encode::json_text;
pub use super::value::{Extra, JsonObject, JsonValue};
use serde::{Serialize, Serializer};

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
/// [`TaggedUnion`](super::tagged::TaggedUnion) decoders call [`read_into`] after the tag, so
/// a variant's struct is decoded by the same code either way.
///
/// [`read_into`]: WireStruct::read_into
pub trait WireStruct: Sized {
    /// The schema name, for messages (`expected an object (Name), got null`).
    const NAME: &'static str;
    /// Reads the remaining members of an object whose `{` the caller has read.
    fn decode_members(reader: &mut Reader<'_>) -> Result<Self, DecodeError>;
    /// [`decode_members`](WireStruct::decode_members) into `out`, a blank value
    /// ([`Blank`]) already in its place: a union's decoder makes its variant blank in the
    /// union and reads into it, so that no variant's struct is moved into the union (those
    /// moves were most of a large union's decoder). On an error `out` is left partly read.
    #[inline]
    fn read_into(reader: &mut Reader<'_>, out: &mut Self) -> Result<(), DecodeError> {
        *out = Self::decode_members(reader)?;
        Ok(())
    }
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

blank_by_default!(String, bool, f64, u64, u32, i64, JsonValue, Extra);

/// Out of line: an empty object starts its hasher from a thread-local seed, code that every
/// union's blank (its `Unknown` variant) would otherwise carry inline.
impl Blank for JsonObject {
    #[inline(never)]
    fn blank() -> Self {
        JsonObject::new()
    }
}

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

/// A wire struct being decoded, as [`read_members`] sees it: a trait object, so one loop serves
/// every struct and each struct's code is its dispatch by member index (generated).
pub trait Members {
    /// Reads the value of member `index` (of the keys given to [`read_members`]) into its field.
    fn member(&mut self, index: usize, reader: &mut Reader<'_>) -> Result<(), DecodeError>;
    /// Where unknown members go.
    fn extra(&mut self) -> &mut Extra;
}

/// Reads the remaining members of an object into `out`: each known one (its name is
/// `keys[index]`) once, unknown ones into its `extra`; then fails for the first member of
/// `required` (bits of `keys`' indices) that was absent.
#[inline(never)]
pub fn read_members(
    reader: &mut Reader<'_>,
    out: &mut dyn Members,
    keys: &[&'static str],
    required: u64,
) -> Result<(), DecodeError> {
    let mut seen = 0u64;
    while let Some(key) = reader.next_key()? {
        let bit = key_index(&key, keys);
        let Some(&name) = keys.get(bit) else {
            unknown(reader, out.extra(), key)?;
            continue;
        };
        if seen & (1 << bit) != 0 {
            return Err(duplicate(name, reader.offset()));
        }
        out.member(bit, reader).map_err(|e| e.at_key(name))?;
        seen |= 1 << bit;
    }
    check_required(seen, required, keys, reader)
}

/// Decodes a member's value into its field (for [`Members::member`]): one instance per field
/// type, shared by every struct.
#[inline(never)]
pub fn slot<T: Decode>(reader: &mut Reader<'_>, slot: &mut T) -> Result<(), DecodeError> {
    *slot = T::decode(reader)?;
    Ok(())
}

/// Sets `slot` to a clone of `value` (for the generated `Clone` and `clone_field_from`): one
/// instance per member type, shared by every struct, instead of each member's clone (an
/// `Option`'s match, the moves of its value) inlined into each struct's.
#[inline(never)]
pub fn assign<T: Clone>(slot: &mut T, value: &T) {
    *slot = value.clone();
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
