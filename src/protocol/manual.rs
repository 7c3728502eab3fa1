//! Wire types whose schema shape the generator does not cover: untagged unions, a union nested
//! inside `StateAction`, and one type the schema references without defining.
//!
//! A child of `generated.rs` (which declares it): its types and the generated ones name each
//! other, so the two files are one module of wire types.

// `generated.rs` allows clippy's lints for the generated code; this hand-written file keeps them.
#![warn(clippy::all)]

use super::{
    ChangesetState, Message, RootState, SessionState, TerminalState, TextRange,
    ToolCallCancellationReason, ToolCallConfirmationReason,
};
use crate::protocol::decode::{self, Decode, DecodeError, Expected, Reader, Token};
use crate::protocol::encode::{self, Encode, EncodeMembers, Writer};
use crate::protocol::tagged::TaggedUnion;
use crate::protocol::wire::{self, Extra, JsonObject, JsonValue};
use serde::{Deserialize, Deserializer, Serialize};

/// A string that may be rendered as Markdown: a plain `string` is shown as-is, an object
/// `{ markdown }` with Markdown formatting.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(untagged)]
pub enum StringOrMarkdown {
    /// Plain text.
    Plain(String),
    /// Markdown text.
    Markdown {
        /// The Markdown source.
        markdown: String,
        /// Members this protocol version does not know, kept verbatim.
        #[serde(flatten)]
        extra: Extra,
    },
}

impl Default for StringOrMarkdown {
    fn default() -> Self {
        StringOrMarkdown::Plain(String::new())
    }
}

impl From<&str> for StringOrMarkdown {
    fn from(s: &str) -> Self {
        StringOrMarkdown::Plain(s.to_owned())
    }
}

impl Decode for StringOrMarkdown {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        if reader.peek()? == Token::String {
            return String::decode(reader).map(StringOrMarkdown::Plain);
        }
        reader.begin_object(Expected::Words(
            "a string or an object { markdown: string }",
        ))?;
        let mut markdown = None;
        let mut extra = Extra::default();
        while let Some(key) = reader.next_key()? {
            if key == "markdown" {
                wire::field(reader, &mut markdown, "markdown")?;
            } else {
                wire::unknown(reader, &mut extra, key)?;
            }
        }
        match markdown {
            Some(markdown) => Ok(StringOrMarkdown::Markdown { markdown, extra }),
            None => Err(wire::missing("markdown", reader)),
        }
    }
}

impl wire::Blank for StringOrMarkdown {
    fn blank() -> Self {
        StringOrMarkdown::Plain(String::new())
    }
}

impl Encode for StringOrMarkdown {
    fn encode(&self, writer: &mut Writer) {
        match self {
            StringOrMarkdown::Plain(text) => writer.string(text),
            StringOrMarkdown::Markdown { markdown, extra } => {
                writer.begin_object();
                writer.key("\"markdown\":");
                writer.string(markdown);
                writer.extra(extra);
                writer.end_object();
            }
        }
    }
}

impl<'de> Deserialize<'de> for StringOrMarkdown {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        decode::deserialize(deserializer)
    }
}

/// `session/toolCallConfirmed`: the client approves or denies a pending tool call. The two
/// shapes are told apart by the `approved` boolean.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(untagged)]
pub enum SessionToolCallConfirmedAction {
    /// `approved: true`: the tool transitions to `running`.
    Approved(SessionToolCallApprovedAction),
    /// `approved: false`: the tool transitions to `cancelled`.
    Denied(SessionToolCallDeniedAction),
}

/// Read as a tree first: the shape is only known from `approved`, wherever it is.
impl wire::WireStruct for SessionToolCallConfirmedAction {
    const NAME: &'static str = "SessionToolCallConfirmedAction";

    fn decode_members(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let object = reader.members()?;
        let approved = match object.get("approved") {
            Some(JsonValue::Bool(b)) => *b,
            Some(other) => {
                let message = format!("expected a boolean, got {}", decode::got(other));
                return Err(DecodeError::new(message, reader.offset()).at_key("approved"));
            }
            None => return Err(wire::missing("approved", reader)),
        };
        let text = encode::json_text(&JsonValue::Object(object));
        if approved {
            decode::from_text(&text).map(Self::Approved)
        } else {
            decode::from_text(&text).map(Self::Denied)
        }
    }
}

/// The placeholder `StateAction`'s decoder reads this variant into (`read_into`, which for
/// this type replaces it with what `decode_members` returns): a blank denial.
impl wire::Blank for SessionToolCallConfirmedAction {
    fn blank() -> Self {
        Self::Denied(SessionToolCallDeniedAction {
            turn_id: String::new(),
            tool_call_id: String::new(),
            meta: None,
            approved: (),
            reason: wire::Blank::blank(),
            user_suggestion: None,
            reason_message: None,
            selected_option_id: None,
            extra: Extra::default(),
        })
    }
}

impl Encode for SessionToolCallConfirmedAction {
    fn encode(&self, writer: &mut Writer) {
        encode::encode_struct(self, writer)
    }
}

impl EncodeMembers for SessionToolCallConfirmedAction {
    fn encode_members(&self, writer: &mut Writer) {
        match self {
            Self::Approved(approved) => approved.encode_members(writer),
            Self::Denied(denied) => denied.encode_members(writer),
        }
    }
}

impl Decode for SessionToolCallConfirmedAction {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        wire::decode_struct(reader)
    }
}

impl<'de> Deserialize<'de> for SessionToolCallConfirmedAction {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        decode::deserialize(deserializer)
    }
}

/// The client approves a pending tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct SessionToolCallApprovedAction {
    /// Turn identifier.
    #[serde(rename = "turnId")]
    pub turn_id: String,
    /// Tool call identifier.
    #[serde(rename = "toolCallId")]
    pub tool_call_id: String,
    /// Additional provider-specific metadata for this tool call.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>"))]
    pub meta: Option<JsonObject>,
    /// Always `true`.
    #[serde(serialize_with = "ser_true")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "true"))]
    pub approved: (),
    /// How the tool was confirmed.
    pub confirmed: ToolCallConfirmationReason,
    /// Edited tool input parameters, if the client modified them before confirming.
    #[serde(
        rename = "editedToolInput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub edited_tool_input: Option<String>,
    /// ID of the selected confirmation option, if the server provided options.
    #[serde(
        rename = "selectedOptionId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub selected_option_id: Option<String>,
    /// Members this protocol version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The client denies a pending tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct SessionToolCallDeniedAction {
    /// Turn identifier.
    #[serde(rename = "turnId")]
    pub turn_id: String,
    /// Tool call identifier.
    #[serde(rename = "toolCallId")]
    pub tool_call_id: String,
    /// Additional provider-specific metadata for this tool call.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>"))]
    pub meta: Option<JsonObject>,
    /// Always `false`.
    #[serde(serialize_with = "ser_false")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "false"))]
    pub approved: (),
    /// Why the tool call was not run: `denied` or `skipped`.
    pub reason: ToolCallCancellationReason,
    /// What the user suggested instead.
    #[serde(
        rename = "userSuggestion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub user_suggestion: Option<Message>,
    /// Explanation shown to the user.
    #[serde(
        rename = "reasonMessage",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub reason_message: Option<StringOrMarkdown>,
    /// ID of the selected confirmation option, if the server provided options.
    #[serde(
        rename = "selectedOptionId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub selected_option_id: Option<String>,
    /// Members this protocol version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

fn ser_true<S: serde::Serializer>(_: &(), s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bool(true)
}

fn ser_false<S: serde::Serializer>(_: &(), s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bool(false)
}

// The two shapes of `session/toolCallConfirmed` are decoded as the generated structs are
// (`wire::WireStruct`).

/// `Decode` through [`wire::WireStruct`] for a struct whose members are listed as
/// `field: "wireName"` (required), `field: "wireName" optional`, or `field: "wireName" ignored`
/// (required, read and dropped: the shapes' constant `approved`), beside `extra`: the decoder
/// the generator writes.
macro_rules! confirmation_decoder {
    ($name:ident approved: $approved:literal { $($field:ident: $wire:literal $($kind:ident)?,)* }) => {
        impl Encode for $name {
            fn encode(&self, writer: &mut Writer) {
                encode::encode_struct(self, writer)
            }
        }

        impl EncodeMembers for $name {
            fn encode_members(&self, writer: &mut Writer) {
                $(confirmation_decoder!(@encode self writer $field $wire $approved $($kind)?);)*
                writer.extra(&self.extra);
            }
        }

        impl Decode for $name {
            fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
                wire::decode_struct(reader)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                decode::deserialize(deserializer)
            }
        }

        impl wire::WireStruct for $name {
            const NAME: &'static str = stringify!($name);

            #[inline(never)]
            fn decode_members(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
                $(let mut $field = confirmation_decoder!(@slot $($kind)?);)*
                let mut extra = Extra::default();
                const KEYS: &[&str] = &[$($wire,)*];
                'members: while let Some(key) = reader.next_key()? {
                    let index = wire::key_index(&key, KEYS);
                    let mut at = 0;
                    $(
                        if index == at {
                            wire::field(reader, &mut $field, $wire)?;
                            continue 'members;
                        }
                        at += 1;
                    )*
                    let _ = at;
                    wire::unknown(reader, &mut extra, key)?;
                }
                $(confirmation_decoder!(@check reader $field $wire $($kind)?);)*
                Ok(Self {
                    $($field: confirmation_decoder!(@take $field $($kind)?),)*
                    extra,
                })
            }
        }
    };
    (@encode $self:ident $writer:ident $field:ident $wire:literal $approved:literal optional) => {
        if let Some(value) = &$self.$field {
            $writer.key(concat!("\"", $wire, "\":"));
            value.encode($writer);
        }
    };
    (@encode $self:ident $writer:ident $field:ident $wire:literal $approved:literal ignored) => {
        $writer.key(concat!("\"", $wire, "\":"));
        $writer.boolean($approved);
    };
    (@encode $self:ident $writer:ident $field:ident $wire:literal $approved:literal) => {
        $writer.key(concat!("\"", $wire, "\":"));
        $self.$field.encode($writer);
    };
    (@slot ignored) => {
        None::<JsonValue>
    };
    (@slot $($kind:ident)?) => {
        None
    };
    (@check $reader:ident $field:ident $wire:literal optional) => {};
    (@check $reader:ident $field:ident $wire:literal $($kind:ident)?) => {
        if $field.is_none() {
            return Err(wire::missing($wire, $reader));
        }
    };
    (@take $field:ident optional) => {
        $field.unwrap_or_default()
    };
    (@take $field:ident ignored) => {
        ()
    };
    (@take $field:ident) => {
        wire::present($field)
    };
}

confirmation_decoder!(SessionToolCallApprovedAction approved: true {
    turn_id: "turnId",
    tool_call_id: "toolCallId",
    meta: "_meta" optional,
    approved: "approved" ignored,
    confirmed: "confirmed",
    edited_tool_input: "editedToolInput" optional,
    selected_option_id: "selectedOptionId" optional,
});

confirmation_decoder!(SessionToolCallDeniedAction approved: false {
    turn_id: "turnId",
    tool_call_id: "toolCallId",
    meta: "_meta" optional,
    approved: "approved" ignored,
    reason: "reason",
    user_suggestion: "userSuggestion" optional,
    reason_message: "reasonMessage" optional,
    selected_option_id: "selectedOptionId" optional,
});

/// Which side of a changeset file an operation targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum ChangesetSide {
    /// The file before the change.
    Before,
    /// The file after the change.
    After,
}

/// Target of `invokeChangesetOperation`: a whole file or a line range of one.
///
/// Decoded as the generated unions are ([`TaggedUnion`]): serde's derived `tag = "kind"`
/// buffers the object into its `Content` tree, whose decoders were in the wasm module for
/// this one type.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ChangesetOperationTarget {
    /// A single file of the changeset.
    Resource {
        /// The file.
        resource: String,
        /// Which side of the file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<ChangesetSide>,
    },
    /// A line range of one file.
    Range {
        /// The file.
        resource: String,
        /// Which side of the file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<ChangesetSide>,
        /// The range.
        range: TextRange,
    },
}

impl Decode for ChangesetSide {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let start = reader.offset();
        match &*reader.str()? {
            "before" => Ok(ChangesetSide::Before),
            "after" => Ok(ChangesetSide::After),
            other => Err(DecodeError::new(
                format!(
                    "expected \"before\" or \"after\", got the string {}",
                    encode::to_text(other)
                ),
                start,
            )),
        }
    }
}

impl Encode for ChangesetSide {
    fn encode(&self, writer: &mut Writer) {
        writer.string(match self {
            ChangesetSide::Before => "before",
            ChangesetSide::After => "after",
        })
    }
}

impl<'de> Deserialize<'de> for ChangesetSide {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        decode::deserialize(deserializer)
    }
}

impl TaggedUnion for ChangesetOperationTarget {
    const TAG: &'static str = "kind";
    const NAME: &'static str = "ChangesetOperationTarget";

    fn variant_tag(&self) -> &str {
        match self {
            Self::Resource { .. } => "resource",
            Self::Range { .. } => "range",
        }
    }

    fn decode_variant(tag: &str, reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let range_wanted = match tag {
            "resource" => false,
            "range" => true,
            other => {
                let message = format!(
                    "expected \"resource\" or \"range\", got the string {}",
                    encode::to_text(other)
                );
                return Err(DecodeError::new(message, reader.offset()).at_key("kind"));
            }
        };
        let (mut resource, mut side, mut range) = (None, None, None);
        while let Some(key) = reader.next_key()? {
            match &*key {
                "resource" => wire::field(reader, &mut resource, "resource")?,
                "side" => wire::field(reader, &mut side, "side")?,
                "range" if range_wanted => wire::field(reader, &mut range, "range")?,
                // Other members are not kept: the type has no room for them.
                _ => reader.skip_value().map_err(|e| e.at_key(&key))?,
            }
        }
        let Some(resource) = resource else {
            return Err(wire::missing("resource", reader));
        };
        let side: Option<ChangesetSide> = side.flatten();
        if !range_wanted {
            return Ok(Self::Resource { resource, side });
        }
        match range {
            Some(range) => Ok(Self::Range {
                resource,
                side,
                range,
            }),
            None => Err(wire::missing("range", reader)),
        }
    }
}

impl Decode for ChangesetOperationTarget {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        crate::protocol::tagged::decode(reader)
    }
}

impl Encode for ChangesetOperationTarget {
    fn encode(&self, writer: &mut Writer) {
        writer.begin_object();
        writer.key("\"kind\":");
        let (resource, side, range) = match self {
            Self::Resource { resource, side } => {
                writer.string("resource");
                (resource, side, None)
            }
            Self::Range {
                resource,
                side,
                range,
            } => {
                writer.string("range");
                (resource, side, Some(range))
            }
        };
        writer.key("\"resource\":");
        writer.string(resource);
        if let Some(side) = side {
            writer.key("\"side\":");
            side.encode(writer);
        }
        if let Some(range) = range {
            writer.key("\"range\":");
            range.encode(writer);
        }
        writer.end_object();
    }
}

impl<'de> Deserialize<'de> for ChangesetOperationTarget {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        decode::deserialize(deserializer)
    }
}

/// The state carried by a `Snapshot`; which one depends on the snapshot's resource URI.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)] // parsed once per subscription; boxing would only add a hop
pub enum SnapshotState {
    /// `ahp-root://` state.
    Root(RootState),
    /// A session's state.
    Session(SessionState),
    /// A terminal's state.
    Terminal(TerminalState),
    /// A changeset's state.
    Changeset(ChangesetState),
}

/// The first kind of state the value decodes as (a snapshot's resource URI tells which it
/// should be; this is for a snapshot read on its own).
impl Decode for SnapshotState {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        decode::first_fitting(
            reader,
            &[
                |text| decode::from_text(text).ok().map(SnapshotState::Root),
                |text| decode::from_text(text).ok().map(SnapshotState::Session),
                |text| decode::from_text(text).ok().map(SnapshotState::Terminal),
                |text| decode::from_text(text).ok().map(SnapshotState::Changeset),
            ],
            "a root, session, terminal or changeset state",
        )
    }
}

impl wire::Blank for SnapshotState {
    fn blank() -> Self {
        SnapshotState::Root(wire::Blank::blank())
    }
}

impl Encode for SnapshotState {
    fn encode(&self, writer: &mut Writer) {
        match self {
            SnapshotState::Root(state) => state.encode(writer),
            SnapshotState::Session(state) => state.encode(writer),
            SnapshotState::Terminal(state) => state.encode(writer),
            SnapshotState::Changeset(state) => state.encode(writer),
        }
    }
}

impl<'de> Deserialize<'de> for SnapshotState {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        decode::deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::{ChangesetOperationTarget, ChangesetSide, TextRange};
    use serde::Deserialize;

    /// serde's derived decoder for the same shape: what the hand-written one must match.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "kind", rename_all = "lowercase")]
    enum Derived {
        Resource {
            resource: String,
            #[serde(default)]
            side: Option<Side>,
        },
        Range {
            resource: String,
            #[serde(default)]
            side: Option<Side>,
            range: TextRange,
        },
    }

    /// [`ChangesetSide`] by serde's derive.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Side {
        Before,
        After,
    }

    fn side(side: Option<ChangesetSide>) -> Option<Side> {
        side.map(|side| match side {
            ChangesetSide::Before => Side::Before,
            ChangesetSide::After => Side::After,
        })
    }

    fn as_derived(target: ChangesetOperationTarget) -> Derived {
        match target {
            ChangesetOperationTarget::Resource { resource, side: s } => Derived::Resource {
                resource,
                side: side(s),
            },
            ChangesetOperationTarget::Range {
                resource,
                side: s,
                range,
            } => Derived::Range {
                resource,
                side: side(s),
                range,
            },
        }
    }

    #[test]
    fn tool_call_confirmations_decode_both_shapes_and_keep_unknown_members() {
        use super::SessionToolCallConfirmedAction as Confirmed;
        use serde_json::{json, Value};
        let approved = json!({"turnId": "t", "toolCallId": "c", "approved": true,
            "confirmed": "user-action", "editedToolInput": "ls", "future": [1, {"x": null}]});
        let denied = json!({"turnId": "t", "toolCallId": "c", "approved": false, "reason": "denied",
            "userSuggestion": {"text": "no", "origin": {"kind": "user"}},
            "reasonMessage": {"markdown": "**no**"}, "_meta": {"k": 1}});
        for value in [&approved, &denied] {
            let decoded: Confirmed = serde_json::from_value(value.clone()).unwrap();
            let text = serde_json::to_string(&decoded).unwrap();
            let back: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(&back, value, "{text}");
            assert_eq!(serde_json::from_str::<Confirmed>(&text).unwrap(), decoded);
        }
        assert!(matches!(
            serde_json::from_value::<Confirmed>(approved.clone()).unwrap(),
            Confirmed::Approved(a) if a.edited_tool_input.as_deref() == Some("ls")
                && a.extra.get("future").is_some()
        ));
        let error = |value: Value| {
            serde_json::from_value::<Confirmed>(value)
                .unwrap_err()
                .to_string()
        };
        let mut missing = approved.clone();
        missing.as_object_mut().unwrap().remove("confirmed");
        assert!(error(missing).contains("missing property `confirmed`"));
        let mut missing = denied.clone();
        missing.as_object_mut().unwrap().remove("turnId");
        assert!(error(missing).contains("missing property `turnId`"));
        let mut wrong = denied.clone();
        wrong["reason"] = json!(7);
        assert!(error(wrong).contains("expected a string, got the number 7 at `reason`"));
        let mut null_meta = approved.clone();
        null_meta["_meta"] = Value::Null;
        let decoded: Confirmed = serde_json::from_value(null_meta).unwrap();
        assert!(matches!(decoded, Confirmed::Approved(a) if a.meta.is_none()));
    }

    #[test]
    fn changeset_targets_decode_as_serdes_tagged_enum_does() {
        let range = r#"{"start":{"line":1,"character":0},"end":{"line":2,"character":3}}"#;
        let texts = [
            r#"{"kind":"resource","resource":"file:///a"}"#.to_string(),
            r#"{"kind":"resource","resource":"file:///a","side":"before","extra":[1]}"#.into(),
            format!(r#"{{"kind":"range","resource":"file:///a","range":{range}}}"#),
            format!(r#"{{"resource":"file:///a","range":{range},"side":"after","kind":"range"}}"#),
            format!(r#"{{"kind":"resource","resource":"file:///a","range":{range}}}"#),
            r#"{"kind":"resource","resource":"file:///a","range":7}"#.into(),
            r#"{"kind":"range","resource":"file:///a"}"#.into(),
            r#"{"kind":"range","resource":"file:///a","range":{"start":1}}"#.into(),
            r#"{"kind":"line","resource":"file:///a"}"#.into(),
            r#"{"resource":"file:///a"}"#.into(),
            r#"{"kind":5,"resource":"file:///a"}"#.into(),
            r#"{"kind":"resource","resource":"file:///a","side":"middle"}"#.into(),
            r#"{"kind":"resource"}"#.into(),
        ];
        let mut decoded = 0;
        for text in &texts {
            let ours = serde_json::from_str::<ChangesetOperationTarget>(text).map(as_derived);
            let oracle = serde_json::from_str::<Derived>(text);
            match (ours, oracle) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "{text}");
                    decoded += 1;
                }
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{text}: ours {a:?}, serde's {b:?}"),
            }
        }
        assert_eq!(decoded, 6, "the valid texts decode");
        // The one difference, on purpose: serde's derive also takes an array (the tag, then the
        // members in order), which is not AHP's wire form; like every union here, this refuses it.
        let array = r#"["resource","file:///a"]"#;
        assert!(serde_json::from_str::<Derived>(array).is_ok());
        let error = serde_json::from_str::<ChangesetOperationTarget>(array).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("expected an object (ChangesetOperationTarget), got an array"),
            "{error}"
        );
        let target: ChangesetOperationTarget = serde_json::from_str(&texts[3]).unwrap();
        let text = serde_json::to_string(&target).unwrap();
        assert!(text.starts_with(r#"{"kind":"range","#), "{text}");
        assert_eq!(
            serde_json::from_str::<ChangesetOperationTarget>(&text).unwrap(),
            target
        );
    }
}
