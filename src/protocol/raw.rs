//! Raw JSON: the text of one value, checked, kept as text (a frame's params or result until
//! the handler for its method decodes them). [`RawJson`] borrows it, [`RawJsonBuf`] owns it.

use super::decode::{self, Decode, DecodeError, Reader};
use super::encode::{Encode, Writer};
use std::fmt;

/// The JSON text of one value, checked to be JSON, borrowed (a slice of a frame).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawJson<'a>(&'a str);

/// The JSON text of one value, checked to be JSON, owned.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RawJsonBuf(Box<str>);

impl<'a> RawJson<'a> {
    /// `text` as a raw value, checked (white space around the value is kept).
    pub fn from_text(text: &'a str) -> Result<RawJson<'a>, DecodeError> {
        let mut reader = Reader::new(text);
        reader.skip_value()?;
        reader.finish()?;
        Ok(RawJson(text))
    }

    /// Text the decoder has read as one value.
    pub(crate) fn from_checked(text: &'a str) -> RawJson<'a> {
        RawJson(text)
    }

    /// The JSON text.
    pub fn get(self) -> &'a str {
        self.0
    }

    /// An owned copy.
    #[allow(clippy::wrong_self_convention)] // `RawJson` is `Copy`: by value is by reference
    pub fn to_owned(self) -> RawJsonBuf {
        RawJsonBuf(self.0.into())
    }

    /// Decodes the value as a `T`.
    pub fn decode<T: Decode>(self) -> Result<T, DecodeError> {
        decode::from_text(self.0)
    }
}

impl RawJsonBuf {
    /// `text` as a raw value, checked.
    pub fn from_string(text: String) -> Result<RawJsonBuf, DecodeError> {
        RawJson::from_text(&text)?;
        Ok(RawJsonBuf(text.into_boxed_str()))
    }

    /// Text the decoder has read as one value (not checked again).
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn from_checked(text: String) -> RawJsonBuf {
        RawJsonBuf(text.into_boxed_str())
    }

    /// Borrowed.
    pub fn as_raw(&self) -> RawJson<'_> {
        RawJson(&self.0)
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        &self.0
    }

    /// Decodes the value as a `T`.
    pub fn decode<T: Decode>(&self) -> Result<T, DecodeError> {
        decode::from_text(&self.0)
    }
}

impl fmt::Debug for RawJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self.0)
    }
}

impl fmt::Debug for RawJsonBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", &self.0)
    }
}

impl Encode for RawJson<'_> {
    fn encode(&self, writer: &mut Writer) {
        writer.raw(self.get());
    }
}

impl Encode for RawJsonBuf {
    fn encode(&self, writer: &mut Writer) {
        writer.raw(self.get());
    }
}

impl Decode for RawJsonBuf {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.raw_value().map(|text| RawJsonBuf(text.into()))
    }
}

/// Written as its text (through `serde_json`'s raw value: other serializers get a struct).
impl serde::Serialize for RawJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw: &serde_json::value::RawValue =
            serde_json::from_str(self.0).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl serde::Serialize for RawJsonBuf {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_raw().serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for RawJsonBuf {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(deserializer)?;
        Ok(RawJsonBuf(raw.get().into()))
    }
}

#[cfg(test)]
mod tests {
    use super::{RawJson, RawJsonBuf};

    #[test]
    fn checked_text_kept_as_it_is() {
        let raw = RawJson::from_text(r#" {"a": [1, 2.5, "x"]} "#).unwrap();
        assert_eq!(raw.get(), r#" {"a": [1, 2.5, "x"]} "#);
        assert!(RawJson::from_text("{").is_err());
        assert!(RawJson::from_text("1 2").is_err());
        let owned = RawJsonBuf::from_string("[true]".into()).unwrap();
        assert_eq!(owned.clone().get(), "[true]");
        assert_eq!(owned.decode::<Vec<bool>>().unwrap(), vec![true]);
        let text = serde_json::to_string(&serde_json::json!({"k": 1})).unwrap();
        let raw = RawJson::from_text(&text).unwrap();
        assert_eq!(serde_json::to_string(&raw).unwrap(), text);
        let back: RawJsonBuf = serde_json::from_str(r#"{"b":null}"#).unwrap();
        assert_eq!(back.get(), r#"{"b":null}"#);
    }
}
