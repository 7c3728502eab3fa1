//! Writing the model as Rust: each kind of item with its serde derive or impls, and the
//! `Decode`/`Encode` impls for the SDK's own reader and writer.

use crate::model::{pascal, Field, Item, RenderOptions, Ty, UntaggedVariant, Variant};
use std::fmt::Write as _;

fn render_doc(out: &mut String, indent: &str, doc: &str) {
    let mut in_fence = false;
    for line in doc.lines() {
        let trimmed = line.trim_start();
        let line = if let Some(rest) = trimmed.strip_prefix("```") {
            // Fenced blocks in schema descriptions are examples in other languages.
            let rendered = if in_fence {
                "```".to_string()
            } else {
                let _ = rest;
                "```text".to_string()
            };
            in_fence = !in_fence;
            rendered
        } else {
            line.replace('\t', "    ")
        };
        if line.is_empty() {
            let _ = writeln!(out, "{indent}///");
        } else {
            let _ = writeln!(out, "{indent}/// {line}");
        }
    }
    if in_fence {
        let _ = writeln!(out, "{indent}/// ```");
    }
}

/// The field of every generated struct that keeps the object's unknown members
/// (`protocol::wire::Extra`, flattened). No wire property may map to this name.
pub(crate) const EXTRA_FIELD: &str = "extra";

pub(crate) const DERIVE_TSIFY: &str =
    "#[cfg_attr(target_arch = \"wasm32\", derive(tsify::Tsify))]\n";

pub(crate) fn render_struct(
    out: &mut String,
    name: &str,
    doc: &str,
    fields: &[Field],
    default: bool,
    options: &RenderOptions,
) {
    let derive_tsify = options.derive_tsify();
    render_doc(out, "", doc);
    let default = if default { ", Default" } else { "" };
    let _ = write!(
        out,
        "#[derive(Debug, PartialEq, Serialize{default})]\n{derive_tsify}pub struct {name} {{\n"
    );
    for f in fields {
        render_doc(out, "    ", &f.doc);
        let mut serde = vec![format!("rename = {:?}", f.wire)];
        let optional = !f.required;
        let rust_ty = match &f.ty {
            // A struct that contains itself needs indirection; large, rare members get it.
            Ty::Named(n)
                if f.boxed
                    || n == name
                    || options.boxed_fields.contains(&(name, f.wire.as_str())) =>
            {
                format!("Box<{n}>")
            }
            Ty::Object if f.boxed => "Box<JsonObject>".into(),
            Ty::Vec(inner) if options.shared_elements.contains(&(name, f.wire.as_str())) => {
                format!("Vec<std::sync::Arc<{}>>", inner.rust())
            }
            other => other.rust(),
        };
        let ty = if optional || f.nullable {
            format!("Option<{rust_ty}>")
        } else {
            rust_ty
        };
        if optional || f.nullable {
            serde.push("default".into());
        }
        if optional {
            serde.push("skip_serializing_if = \"Option::is_none\"".into());
        }
        match (&f.ty, optional || f.nullable) {
            (Ty::F64, false) => serde.push("serialize_with = \"wire::ser_f64\"".into()),
            (Ty::F64, true) => serde.push("serialize_with = \"wire::ser_opt_f64\"".into()),
            (Ty::Vec(inner), _) if **inner == Ty::F64 => {
                serde.push("serialize_with = \"wire::ser_vec_f64\"".into())
            }
            // Always an object, also when empty (`LiteMap`'s own impl writes `[]` then).
            (Ty::Map(_), false) => serde.push("serialize_with = \"wire::ser_map\"".into()),
            (Ty::Map(_), true) => serde.push("serialize_with = \"wire::ser_opt_map\"".into()),
            _ => {}
        }
        let _ = writeln!(out, "    #[serde({})]", serde.join(", "));
        let ts = if f.nullable {
            Some(format!("{} | null", f.ty.ts()))
        } else {
            f.ty.ts_override()
        };
        if let Some(ts) = ts.filter(|_| options.tsify) {
            let _ = writeln!(
                out,
                "    #[cfg_attr(target_arch = \"wasm32\", tsify(type = {ts:?}))]"
            );
        }
        let _ = writeln!(out, "    pub {}: {ty},", f.rust);
    }
    let _ = writeln!(
        out,
        "    /// Members this protocol version does not know (from a newer peer or an extension),\n    \
         /// kept verbatim so they survive decoding, reducing and encoding.\n    \
         #[serde(flatten)]\n    pub {EXTRA_FIELD}: Extra,"
    );
    out.push_str("}\n\n");
    render_struct_clone(out, name, fields);
    render_struct_decode(out, name, fields);
    render_struct_encode(out, name, fields);
}

/// The JSON text of a member name with its colon, as the generated encoders write it.
fn quoted_key(wire: &str) -> String {
    format!(
        "{}:",
        serde_json::to_string(wire).expect("a string serializes")
    )
}

/// `Encode` member by member, as serde's derive writes the struct: members in order, optional
/// ones left out when absent, then the unknown ones.
fn render_struct_encode(out: &mut String, name: &str, fields: &[Field]) {
    let _ = writeln!(
        out,
        "impl Encode for {name} {{\n    fn encode(&self, writer: &mut Writer) {{\n        encode::encode_struct(self, writer)\n    }}\n}}\n\n\
         impl EncodeMembers for {name} {{\n    fn encode_members(&self, writer: &mut Writer) {{"
    );
    for f in fields {
        let key = format!("{:?}", quoted_key(&f.wire));
        if f.required {
            let _ = writeln!(
                out,
                "        writer.key({key});\n        self.{}.encode(writer);",
                f.rust
            );
        } else {
            let _ = writeln!(
                out,
                "        if let Some(value) = &self.{} {{\n            writer.key({key});\n            value.encode(writer);\n        }}",
                f.rust
            );
        }
    }
    let _ = writeln!(
        out,
        "        writer.extra(&self.{EXTRA_FIELD});\n    }}\n}}\n"
    );
}

/// `Clone` written out, not derived: the derive marks `clone` `#[inline]`, and inlined into
/// every caller (each union's, each containing struct's) the clones of the wire types were a
/// tenth of the wasm module. Written out as a blank struct (`wire::Blank`, the decoders') and
/// one out-of-line `wire::assign` per member that owns memory, each member is a call: the
/// clone of a member type is one copy in the module, shared by every struct that has one
/// (inlined, the `Option` matches and the moves of each member's value were most of the code).
fn render_struct_clone(out: &mut String, name: &str, fields: &[Field]) {
    let _ = writeln!(
        out,
        "impl Clone for {name} {{\n    fn clone(&self) -> Self {{\n        let mut out = <Self as wire::Blank>::blank();"
    );
    for f in fields {
        let _ = writeln!(out, "        {};", clone_member(f, "out", "self"));
    }
    let _ = writeln!(
        out,
        "        wire::assign(&mut out.{EXTRA_FIELD}, &self.{EXTRA_FIELD});\n        out\n    }}\n}}\n"
    );
}

/// The statement that sets member `f` of `to` to a clone of `from`'s: a copy for a number or
/// a boolean, else `wire::assign` (see `render_struct_clone`).
fn clone_member(f: &Field, to: &str, from: &str) -> String {
    let field = &f.rust;
    if matches!(f.ty, Ty::F64 | Ty::U64 | Ty::U32 | Ty::I64 | Ty::Bool) {
        format!("{to}.{field} = {from}.{field}")
    } else {
        format!("wire::assign(&mut {to}.{field}, &{from}.{field})")
    }
}

/// `Decode` through [`wire::WireStruct`] (see `protocol/decode`): the struct starts blank
/// (`wire::Blank`), each member is read into its field (noted in a bit set), unknown ones into
/// `extra`, required ones checked at the end; `Deserialize` through `Decode`.
fn render_struct_decode(out: &mut String, name: &str, fields: &[Field]) {
    render_decode_impls(out, name, "wire::decode_struct(reader)");
    assert!(
        fields.len() <= 64,
        "{name}: more members than the decoder's bit set holds"
    );
    // Out of line from two members on: the decoder and `Clone` share one copy of it.
    let inline = if fields.len() >= 2 {
        "    #[inline(never)]\n"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "impl wire::Blank for {name} {{\n{inline}    fn blank() -> Self {{\n        Self {{"
    );
    for f in fields {
        let _ = writeln!(out, "            {}: wire::Blank::blank(),", f.rust);
    }
    let _ = writeln!(
        out,
        "            {EXTRA_FIELD}: Extra::default(),\n        }}\n    }}\n}}\n"
    );
    // Required members: not nullable (a nullable one may be absent, as `null`).
    let required: u64 = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.required && !f.nullable)
        .fold(0, |mask, (i, _)| mask | 1 << i);
    let names: Vec<String> = fields.iter().map(|f| format!("{:?}", f.wire)).collect();
    // One shared loop (`wire::read_members`) reads the keys, looks them up, checks duplicates
    // and required members and keeps unknown ones; it reaches the struct through
    // `wire::Members` (a trait object), so each struct has only its dispatch by index (a jump
    // table) and its blank, not a copy of the loop.
    let (index, reader) = if fields.is_empty() {
        ("_index", "_reader")
    } else {
        ("index", "reader")
    };
    let _ = writeln!(
        out,
        "impl wire::Members for {name} {{\n    fn member(&mut self, {index}: usize, {reader}: &mut Reader<'_>) -> Result<(), DecodeError> {{\n        \
         match {index} {{"
    );
    for (i, f) in fields.iter().enumerate() {
        let _ = writeln!(
            out,
            "            {i} => wire::slot(reader, &mut self.{}),",
            f.rust
        );
    }
    let _ = writeln!(
        out,
        "            _ => Ok(()),\n        }}\n    }}\n\n    fn extra(&mut self) -> &mut Extra {{\n        &mut self.{EXTRA_FIELD}\n    }}\n}}\n"
    );
    let _ = writeln!(
        out,
        "impl wire::WireStruct for {name} {{\n    const NAME: &'static str = {name:?};\n\n    #[inline(never)]\n    fn decode_members(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {{\n        \
         let mut out = <Self as wire::Blank>::blank();\n        \
         Self::read_into(reader, &mut out)?;\n        Ok(out)\n    }}\n\n    \
         fn read_into(reader: &mut Reader<'_>, out: &mut Self) -> Result<(), DecodeError> {{\n        \
         wire::read_members(reader, out, &[{}], {required:#x})\n    }}\n}}\n",
        names.join(", ")
    );
}

/// `wire::Blank` of a union or an enum: `value`, its variant for an unknown wire value.
fn render_blank(out: &mut String, name: &str, value: &str) {
    let _ = writeln!(
        out,
        "impl wire::Blank for {name} {{\n    fn blank() -> Self {{\n        {value}\n    }}\n}}\n"
    );
}

/// `Decode` by `body` (over `reader`), and `Deserialize` through it.
fn render_decode_impls(out: &mut String, name: &str, body: &str) {
    let _ = writeln!(
        out,
        "impl Decode for {name} {{\n    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {{\n        {body}\n    }}\n}}\n\n\
         impl<'de> Deserialize<'de> for {name} {{\n    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {{\n        decode::deserialize(deserializer)\n    }}\n}}\n"
    );
}

pub(crate) fn render_field_enum(out: &mut String, name: &str, fields: &[Field]) {
    let _ = writeln!(
        out,
        "/// The top-level properties of [`{name}`], for reporting which ones an action changed.\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\n#[repr(u8)]\npub enum {name}Field {{"
    );
    for f in fields {
        let _ = writeln!(out, "    {},", pascal(&f.wire));
    }
    let _ = writeln!(
        out,
        "}}\n\nimpl {name}Field {{\n    /// Every field, in declaration order.\n    pub const ALL: &'static [Self] = &["
    );
    for f in fields {
        let _ = writeln!(out, "        Self::{},", pascal(&f.wire));
    }
    let _ = writeln!(
        out,
        "    ];\n\n    /// The property name on the wire.\n    pub fn wire_name(self) -> &'static str {{\n        match self {{"
    );
    for f in fields {
        let _ = writeln!(
            out,
            "            Self::{} => {:?},",
            pascal(&f.wire),
            f.wire
        );
    }
    let _ = writeln!(out, "        }}\n    }}\n}}\n");
    let _ = writeln!(
        out,
        "impl From<{name}Field> for u8 {{\n    fn from(field: {name}Field) -> u8 {{\n        field as u8\n    }}\n}}\n"
    );
    let _ = writeln!(
        out,
        "impl {name} {{\n    /// Sets one top-level field to a clone of `other`'s (so a copy can be brought up to\n    \
         /// date field by field instead of cloning the whole state).\n    \
         pub fn clone_field_from(&mut self, other: &Self, field: {name}Field) {{\n        match field {{"
    );
    for f in fields {
        let _ = writeln!(
            out,
            "            {name}Field::{} => {},",
            pascal(&f.wire),
            clone_member(f, "self", "other")
        );
    }
    let _ = writeln!(
        out,
        "        }}\n    }}\n\n    /// Writes one top-level field's value as JSON; `false` when the field is absent (then\n    \
         /// nothing is written).\n    \
         pub fn encode_field(&self, field: {name}Field, writer: &mut Writer) -> bool {{\n        match field {{"
    );
    for f in fields {
        if f.required {
            let _ = writeln!(
                out,
                "            {name}Field::{} => {{\n                self.{}.encode(writer);\n                true\n            }}",
                pascal(&f.wire),
                f.rust
            );
        } else {
            let _ = writeln!(
                out,
                "            {name}Field::{} => self.{}.as_ref().map(|value| value.encode(writer)).is_some(),",
                pascal(&f.wire),
                f.rust
            );
        }
    }
    let _ = writeln!(out, "        }}\n    }}\n}}\n");
}

pub(crate) fn render_tagged(
    out: &mut String,
    name: &str,
    doc: &str,
    tag: &str,
    variants: &[Variant],
    options: &RenderOptions,
) {
    let derive_tsify = options.derive_tsify();
    render_doc(out, "", doc);
    let _ = write!(
        out,
        "#[derive(Debug, PartialEq, Serialize)]\n{derive_tsify}#[serde(tag = {tag:?})]\npub enum {name} {{\n"
    );
    for v in variants {
        let payload = if v.boxed {
            format!("Box<{}>", v.payload)
        } else {
            v.payload.clone()
        };
        let _ = writeln!(
            out,
            "    #[serde(rename = {:?})]\n    {}({payload}),",
            v.wire, v.rust
        );
    }
    let _ = writeln!(
        out,
        "    /// A variant this protocol version does not know (from a newer peer), kept verbatim.\n    #[serde(untagged, skip_deserializing)]\n    Unknown(UnknownVariant),\n}}\n"
    );
    let _ = writeln!(
        out,
        "impl TaggedUnion for {name} {{\n    const TAG: &'static str = {tag:?};\n    const NAME: &'static str = {name:?};\n\n    fn variant_tag(&self) -> &str {{\n        match self {{"
    );
    for v in variants {
        let _ = writeln!(out, "            Self::{}(_) => {:?},", v.rust, v.wire);
    }
    let _ = writeln!(
        out,
        "            Self::Unknown(u) => u.tag(),\n        }}\n    }}\n\n    fn decode_variant(tag: &str, reader: &mut Reader<'_>) -> Result<Self, DecodeError> {{\n        const TAGS: &[&str] = &[{}];\n        let mut out = match wire::key_index(tag, TAGS) {{",
        variants
            .iter()
            .map(|v| format!("{:?}", v.wire))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // The variant is made blank in the union, then read in place (`WireStruct::read_into`):
    // no move of its struct into the union, one drop of the union on an error.
    for (i, v) in variants.iter().enumerate() {
        let _ = writeln!(
            out,
            "            {i} => Self::{}(wire::Blank::blank()),",
            v.rust
        );
    }
    let _ = writeln!(
        out,
        "            _ => return UnknownVariant::from_rest(Self::TAG, tag, reader).map(Self::Unknown),\n        }};\n        match &mut out {{"
    );
    for v in variants {
        let value = if v.boxed { "&mut **value" } else { "value" };
        let _ = writeln!(
            out,
            "            Self::{}(value) => <{} as wire::WireStruct>::read_into(reader, {value})?,",
            v.rust, v.payload
        );
    }
    let _ = writeln!(
        out,
        "            Self::Unknown(_) => {{}}\n        }}\n        Ok(out)\n    }}\n}}\n"
    );
    // `Clone` written out, as a struct's (`render_struct_clone`).
    let _ = writeln!(
        out,
        "impl Clone for {name} {{\n    fn clone(&self) -> Self {{\n        match self {{"
    );
    for v in variants {
        let _ = writeln!(
            out,
            "            Self::{0}(value) => Self::{0}(value.clone()),",
            v.rust
        );
    }
    let _ = writeln!(
        out,
        "            Self::Unknown(value) => Self::Unknown(value.clone()),\n        }}\n    }}\n}}\n"
    );
    render_decode_impls(out, name, "super::tagged::decode(reader)");
    render_blank(
        out,
        name,
        "Self::Unknown(UnknownVariant(wire::Blank::blank()))",
    );
    let _ = writeln!(
        out,
        "impl Encode for {name} {{\n    fn encode(&self, writer: &mut Writer) {{\n        const TAG: &str = {:?};\n        match self {{",
        quoted_key(tag)
    );
    for v in variants {
        let tag_text = serde_json::to_string(&v.wire).expect("a string serializes");
        let members = if v.boxed { "&**members" } else { "members" };
        let _ = writeln!(
            out,
            "            Self::{}(members) => encode::encode_variant(writer, TAG, {tag_text:?}, {members}),",
            v.rust
        );
    }
    let _ = writeln!(
        out,
        "            Self::Unknown(unknown) => unknown.0.encode(writer),\n        }}\n    }}\n}}\n"
    );
}

pub(crate) fn render_str_enum(
    out: &mut String,
    name: &str,
    doc: &str,
    values: &[String],
    options: &RenderOptions,
) {
    let derive_tsify = options.derive_tsify();
    if doc.is_empty() {
        let _ = writeln!(out, "/// Wire values of `{name}`.");
    } else {
        render_doc(out, "", doc);
    }
    let _ = write!(
        out,
        "#[derive(Debug, Clone, PartialEq, Eq, Hash)]\n{derive_tsify}pub enum {name} {{\n"
    );
    let variants: Vec<String> = values.iter().map(|v| pascal(v)).collect();
    for (v, rust) in values.iter().zip(&variants) {
        if options.tsify {
            let _ = writeln!(
                out,
                "    #[cfg_attr(target_arch = \"wasm32\", serde(rename = {v:?}))]"
            );
        }
        let _ = writeln!(out, "    {rust},");
    }
    let skip = if options.tsify {
        "    #[cfg_attr(target_arch = \"wasm32\", serde(skip))]\n"
    } else {
        ""
    };
    let _ = writeln!(out, "    /// A value this protocol version does not know (from a newer peer), kept verbatim.\n{skip}    Other(String),\n}}\n");
    let _ = writeln!(
        out,
        "impl {name} {{\n    /// The wire string.\n    pub fn as_str(&self) -> &str {{\n        match self {{"
    );
    for (v, rust) in values.iter().zip(&variants) {
        let _ = writeln!(out, "            Self::{rust} => {v:?},");
    }
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    let _ = writeln!(out, "            Self::Other(s) => s,\n        }}\n    }}\n\n    /// Parses a wire string; unknown values are kept as `Other`.\n    pub fn from_wire(s: &str) -> Self {{\n        const VALUES: &[&str] = &[{}];\n        match wire::key_index(s, VALUES) {{", quoted.join(", "));
    for (i, rust) in variants.iter().enumerate() {
        let _ = writeln!(out, "            {i} => Self::{rust},");
    }
    let _ = writeln!(
        out,
        "            _ => Self::Other(s.to_string()),\n        }}\n    }}\n}}\n\nimpl Serialize for {name} {{\n    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{\n        serializer.serialize_str(self.as_str())\n    }}\n}}\n"
    );
    render_decode_impls(out, name, "wire::decode_str_enum(reader, Self::from_wire)");
    render_blank(out, name, "Self::Other(String::new())");
    let _ = writeln!(
        out,
        "impl Encode for {name} {{\n    fn encode(&self, writer: &mut Writer) {{\n        writer.string(self.as_str())\n    }}\n}}\n"
    );
}

/// An untagged union: written as its variant's value, read as the first variant it fits.
pub(crate) fn render_untagged(
    out: &mut String,
    name: &str,
    doc: &str,
    variants: &[UntaggedVariant],
) {
    render_doc(out, "", doc);
    let _ = writeln!(
        out,
        "#[derive(Debug, Clone, PartialEq, Serialize)]\n#[serde(untagged)]\npub enum {name} {{"
    );
    let payload = |v: &UntaggedVariant| {
        if v.boxed {
            format!("Box<{}>", v.ty.rust())
        } else {
            v.ty.rust()
        }
    };
    for v in variants {
        let _ = writeln!(out, "    {}({}),", v.rust, payload(v));
    }
    let _ = writeln!(out, "}}\n");
    let shapes: Vec<String> = variants
        .iter()
        .map(|v| {
            format!(
                "|text| decode::from_text::<{}>(text).ok().map(Self::{})",
                payload(v),
                v.rust
            )
        })
        .collect();
    let expected: Vec<String> = variants.iter().map(|v| v.ty.rust()).collect();
    render_decode_impls(
        out,
        name,
        &format!(
            "decode::first_fitting(reader, &[{}], {:?})",
            shapes.join(", "),
            format!("one of {}", expected.join(", "))
        ),
    );
    if let Some(first) = variants.first() {
        render_blank(
            out,
            name,
            &format!("Self::{}(wire::Blank::blank())", first.rust),
        );
    }
    let _ = writeln!(
        out,
        "impl Encode for {name} {{\n    fn encode(&self, writer: &mut Writer) {{\n        match self {{"
    );
    for v in variants {
        let _ = writeln!(
            out,
            "            Self::{}(value) => value.encode(writer),",
            v.rust
        );
    }
    let _ = writeln!(out, "        }}\n    }}\n}}\n");
}

/// A `u32` bitset: a number on the wire, every bit kept (known flags are constants).
pub(crate) fn render_bitset(
    out: &mut String,
    name: &str,
    doc: &str,
    flags: &[(String, u32, String)],
) {
    render_doc(out, "", doc);
    let _ = writeln!(
        out,
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]\n\
         #[serde(transparent)]\npub struct {name}(pub u32);\n\n\
         #[allow(non_upper_case_globals)]\nimpl {name} {{"
    );
    for (flag, value, flag_doc) in flags {
        render_doc(out, "    ", flag_doc);
        let _ = writeln!(out, "    pub const {flag}: Self = Self({value});");
    }
    let _ = writeln!(
        out,
        "\n    /// Every bit, known or not.\n    pub const fn bits(self) -> u32 {{\n        self.0\n    }}\n\n    \
         /// Whether every bit of `other` is set.\n    pub const fn contains(self, other: Self) -> bool {{\n        self.0 & other.0 == other.0\n    }}\n}}\n\n\
         impl std::ops::BitOr for {name} {{\n    type Output = Self;\n    fn bitor(self, other: Self) -> Self {{\n        Self(self.0 | other.0)\n    }}\n}}\n\n\
         impl Decode for {name} {{\n    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {{\n        u32::decode(reader).map(Self)\n    }}\n}}\n"
    );
    render_blank(out, name, "Self(0)");
    let _ = writeln!(
        out,
        "impl Encode for {name} {{\n    fn encode(&self, writer: &mut Writer) {{\n        self.0.encode(writer)\n    }}\n}}\n"
    );
}

/// A name -> round-trip function table so tests can exercise every generated type by name.
pub(crate) fn render_registry(out: &mut String, items: &[Item], manual: &[&str]) {
    out.push_str(
        "/// Every generated type by its schema name: deserializes `value` as that type and\n\
         /// serializes it back, checking that its `Encode` writes what serde writes. Used by the\n\
         /// schema round-trip tests.\n\
         pub fn roundtrip_by_name(name: &str, value: JsonValue) -> Option<Result<JsonValue, String>> {\n\
         \x20   fn rt<T: serde::de::DeserializeOwned + Serialize + Encode>(value: JsonValue) -> Result<JsonValue, String> {\n\
         \x20       let typed: T = serde_json::from_value(value).map_err(|e| e.to_string())?;\n\
         \x20       let text = serde_json::to_string(&typed).map_err(|e| e.to_string())?;\n\
         \x20       let encoded = encode::to_text(&typed);\n\
         \x20       if encoded != text {\n\
         \x20           return Err(format!(\"Encode wrote {encoded}, serde {text}\"));\n\
         \x20       }\n\
         \x20       serde_json::from_str(&text).map_err(|e| e.to_string())\n\
         \x20   }\n\
         \x20   Some(match name {\n",
    );
    for name in items.iter().map(Item::name).chain(manual.iter().copied()) {
        let _ = writeln!(out, "        {name:?} => rt::<{name}>(value),");
    }
    out.push_str("        _ => return None,\n    })\n}\n\n/// The schema names of all generated types.\npub const GENERATED_TYPES: &[&str] = &[\n");
    for item in items {
        let _ = writeln!(out, "    {:?},", item.name());
    }
    out.push_str("];\n");
}
