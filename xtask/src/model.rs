//! The model both definition readers build (the 0.3.0 JSON Schema in `codegen.rs`, the 1.0.0
//! Rust definitions in `codegen_v1.rs`), and how it is written as Rust: structs with their
//! exact wire names and unknown members kept (`extra`), internally tagged unions with an
//! `Unknown` variant, open string enums with `Other(String)`, untagged unions, bitsets; each
//! with `Decode`/`Encode` impls for the SDK's own reader and writer.

pub(crate) use crate::render::EXTRA_FIELD;
use crate::render::{
    render_bitset, render_field_enum, render_registry, render_str_enum, render_struct,
    render_tagged, render_untagged, DERIVE_TSIFY,
};
use std::collections::BTreeSet;

/// Formats generated code the way `cargo fmt` would, so the checked-in file stays stable.
pub(crate) fn rustfmt(code: &str) -> Result<String, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("running rustfmt: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("rustfmt: no stdin")?;
    let input = code.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child
        .wait_with_output()
        .map_err(|e| format!("rustfmt: {e}"))?;
    writer
        .join()
        .map_err(|_| "rustfmt: writer panicked")?
        .map_err(|e| format!("rustfmt: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "rustfmt failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("rustfmt output: {e}"))
}

/// A Rust field type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    String,
    F64,
    U64,
    U32,
    I64,
    Bool,
    Any,
    Object,
    Vec(Box<Ty>),
    Map(Box<Ty>),
    Named(String),
    /// A string that always has this one value (e.g. `channel: "ahp-root://"`).
    Literal(String),
}

impl Ty {
    pub(crate) fn rust(&self) -> String {
        match self {
            Ty::String | Ty::Literal(_) => "String".into(),
            Ty::F64 => "f64".into(),
            Ty::I64 => "i64".into(),
            Ty::U64 => "u64".into(),
            Ty::U32 => "u32".into(),
            Ty::Bool => "bool".into(),
            Ty::Any => "JsonValue".into(),
            Ty::Object => "JsonObject".into(),
            Ty::Vec(t) => format!("Vec<{}>", t.rust()),
            Ty::Map(t) => format!("LiteMap<String, {}>", t.rust()),
            Ty::Named(n) => n.clone(),
        }
    }

    /// The TypeScript type, when tsify cannot infer it from the Rust type.
    pub(crate) fn ts_override(&self) -> Option<String> {
        match self {
            Ty::Any | Ty::Object | Ty::Map(_) | Ty::Literal(_) => Some(self.ts()),
            Ty::Vec(t) => t.ts_override().map(|inner| format!("{inner}[]")),
            _ => None,
        }
    }

    pub(crate) fn ts(&self) -> String {
        match self {
            Ty::String => "string".into(),
            Ty::F64 | Ty::U64 | Ty::U32 | Ty::I64 => "number".into(),
            Ty::Bool => "boolean".into(),
            Ty::Any => "unknown".into(),
            Ty::Object => "Record<string, unknown>".into(),
            Ty::Vec(t) => format!("{}[]", t.ts()),
            Ty::Map(t) => format!("Record<string, {}>", t.ts()),
            Ty::Named(n) => n.clone(),
            Ty::Literal(v) => format!("{v:?}"),
        }
    }
}

/// A struct member.
pub(crate) struct Field {
    /// The name on the wire.
    pub(crate) wire: String,
    pub(crate) rust: String,
    pub(crate) ty: Ty,
    /// Not `name?:` in TypeScript (a required member, or a nullable one written as `null`).
    pub(crate) required: bool,
    /// `T | null`: an `Option<T>` written as `null` when `None`.
    pub(crate) nullable: bool,
    /// Held behind a `Box` (the definition boxes it: recursion or size).
    pub(crate) boxed: bool,
    pub(crate) doc: String,
}

/// A variant of an internally tagged union.
pub(crate) struct Variant {
    /// The tag's value on the wire.
    pub(crate) wire: String,
    pub(crate) rust: String,
    /// The struct holding the variant's other members.
    pub(crate) payload: String,
    /// Large payloads are boxed so the enum stays small (it is moved on every parse).
    pub(crate) boxed: bool,
}

/// A variant of an untagged union: the first variant whose type the value decodes as.
pub(crate) struct UntaggedVariant {
    pub(crate) rust: String,
    pub(crate) ty: Ty,
    pub(crate) boxed: bool,
}

/// One generated type: the model both definition readers (the 0.3.0 JSON Schema, the 1.0
/// Rust definitions) build and [`render_module`] writes.
pub(crate) enum Item {
    Struct {
        name: String,
        doc: String,
        fields: Vec<Field>,
    },
    Tagged {
        name: String,
        doc: String,
        tag: String,
        variants: Vec<Variant>,
    },
    StrEnum {
        name: String,
        doc: String,
        values: Vec<String>,
    },
    /// A union without a discriminator, decoded as its first fitting variant (serde's
    /// `untagged`).
    Untagged {
        name: String,
        doc: String,
        variants: Vec<UntaggedVariant>,
    },
    /// A `u32` bitset with named flags (`(name, value, doc)`); unknown bits are kept.
    Bitset {
        name: String,
        doc: String,
        flags: Vec<(String, u32, String)>,
    },
}

impl Item {
    pub(crate) fn name(&self) -> &str {
        match self {
            Item::Struct { name, .. }
            | Item::Tagged { name, .. }
            | Item::StrEnum { name, .. }
            | Item::Untagged { name, .. }
            | Item::Bitset { name, .. } => name,
        }
    }
}

/// How a module of generated types is written.
pub(crate) struct RenderOptions<'a> {
    /// The leading comment (without a trailing newline).
    pub(crate) header: &'a str,
    /// Derive `tsify::Tsify` in wasm builds (the types the npm package exports).
    pub(crate) tsify: bool,
    /// Channel states: each gets a `<Name>Field` enum naming its top-level properties, which
    /// the reducers use to report what an action changed.
    pub(crate) channel_states: &'a [&'a str],
    /// Struct fields held behind a `Box` (`(struct, wire name)`).
    pub(crate) boxed_fields: &'a [(&'a str, &'a str)],
    /// Arrays whose elements are shared (`Vec<Arc<T>>`, `(struct, wire name)`).
    pub(crate) shared_elements: &'a [(&'a str, &'a str)],
    /// Hand-written types that `roundtrip_by_name` also knows.
    pub(crate) manual_in_registry: &'a [&'a str],
}

impl RenderOptions<'_> {
    pub(crate) fn derive_tsify(&self) -> &'static str {
        if self.tsify {
            DERIVE_TSIFY
        } else {
            ""
        }
    }
}

/// Boxes the variants of the tagged `unions` whose payload is estimated above `above` bytes,
/// so the union stays small where it is moved per action. `manual` gives the sizes of types the
/// estimate cannot see.
pub(crate) fn box_large_variants(
    items: &mut [Item],
    unions: &[&str],
    above: usize,
    manual: &[(&str, usize)],
) {
    let boxed: Vec<(usize, Vec<bool>)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Item::Tagged { name, variants, .. } if unions.contains(&name.as_str()) => {
                let boxed = variants
                    .iter()
                    .map(|v| estimated_size(items, &v.payload, 0, manual) > above)
                    .collect();
                Some((i, boxed))
            }
            _ => None,
        })
        .collect();
    for (i, flags) in boxed {
        if let Item::Tagged { variants, .. } = &mut items[i] {
            for (v, b) in variants.iter_mut().zip(flags) {
                v.boxed = b;
            }
        }
    }
}

/// A rough in-memory size of a named type (64-bit), enough to spot large payloads.
fn estimated_size(items: &[Item], name: &str, depth: usize, manual: &[(&str, usize)]) -> usize {
    if depth > 8 {
        return 8;
    }
    if let Some((_, size)) = manual.iter().find(|(n, _)| *n == name) {
        return *size;
    }
    // A variant struct written with its union's tag (1.0's `Tagged<_>`) is the struct.
    if let Some(inner) = name
        .strip_prefix("Tagged<")
        .and_then(|n| n.strip_suffix('>'))
    {
        return estimated_size(items, inner, depth, manual);
    }
    match items.iter().find(|i| i.name() == name) {
        // The unknown members (`Extra`, one pointer) plus the fields.
        Some(Item::Struct { fields, .. }) => {
            8 + fields
                .iter()
                .map(|f| match &f.ty {
                    _ if f.boxed => 8,
                    Ty::Named(n) if n != name => {
                        estimated_size(items, n, depth + 1, manual) + if f.required { 0 } else { 8 }
                    }
                    Ty::Any | Ty::Object => 72,
                    Ty::F64 | Ty::U64 => 16,
                    Ty::U32 | Ty::Bool => 8,
                    _ => 24,
                })
                .sum::<usize>()
        }
        Some(Item::Tagged { variants, .. }) => {
            8 + variants
                .iter()
                .map(|v| estimated_size(items, &v.payload, depth + 1, manual))
                .max()
                .unwrap_or(0)
        }
        _ => 24,
    }
}

/// The module's source: the header, the imports, every item, the by-name registry.
pub(crate) fn render_module(items: &[Item], options: &RenderOptions) -> String {
    let mut out = String::new();
    out.push_str(options.header);
    out.push_str(
        "\n\n\
         #![allow(clippy::all, missing_docs)]\n\n\
         // The shapes the generator does not cover, written by hand beside this file: a\n\
         // part of this module (its types and these name each other).\n\
         #[path = \"manual.rs\"]\n\
         mod manual;\n\
         pub use manual::*;\n\n\
         use super::tagged::{TaggedUnion, UnknownVariant};\n\
         use super::decode::{self, Decode, DecodeError, Reader};\n\
         use super::encode::{self, Encode, EncodeMembers, Writer};\n\
         use super::wire::{self, Extra, JsonObject, JsonValue};\n\
         use serde::{Deserialize, Deserializer, Serialize, Serializer};\n\
         use litemap::LiteMap;\n\n",
    );
    let defaultable = defaultable(items);
    for item in items {
        match item {
            Item::Struct { name, doc, fields } => {
                render_struct(
                    &mut out,
                    name,
                    doc,
                    fields,
                    defaultable.contains(name),
                    options,
                );
                if options.channel_states.contains(&name.as_str()) {
                    render_field_enum(&mut out, name, fields);
                }
            }
            Item::Tagged {
                name,
                doc,
                tag,
                variants,
            } => render_tagged(&mut out, name, doc, tag, variants, options),
            Item::StrEnum { name, doc, values } => {
                render_str_enum(&mut out, name, doc, values, options)
            }
            Item::Untagged {
                name,
                doc,
                variants,
            } => render_untagged(&mut out, name, doc, variants),
            Item::Bitset { name, doc, flags } => render_bitset(&mut out, name, doc, flags),
        }
    }
    render_registry(&mut out, items, options.manual_in_registry);
    out
}

/// Structs whose every field has a sensible empty value can derive `Default`.
fn defaultable(items: &[Item]) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    loop {
        let before = set.len();
        for item in items {
            if let Item::Struct { name, fields, .. } = item {
                let ok = fields.iter().all(|f| {
                    !f.required
                        || f.nullable
                        || match &f.ty {
                            Ty::Named(n) => set.contains(n),
                            _ => true,
                        }
                });
                if ok {
                    set.insert(name.clone());
                }
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// `turnId` -> `turn_id`, `_meta` -> `meta`, `type` -> `r#type`.
pub(crate) fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.trim_start_matches('_').chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else {
            out.push('_');
        }
    }
    match out.as_str() {
        "type" | "ref" | "use" | "mod" | "move" | "self" | "match" | "loop" | "fn" | "impl"
        | "struct" | "enum" | "trait" | "where" | "async" | "await" | "dyn" | "crate" | "super"
        | "static" | "const" | "in" | "for" | "if" | "else" | "return" | "break" | "continue"
        | "let" | "mut" | "pub" | "true" | "false" | "while" | "as" | "box" | "unsafe"
        | "extern" | "override" => format!("r#{out}"),
        _ => out,
    }
}

/// `not-needed` -> `NotNeeded`, `session/delta` -> `SessionDelta`, `ahp-root://` -> `AhpRoot`.
pub(crate) fn pascal(value: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in value.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        } else {
            upper = true;
        }
    }
    if out.is_empty() {
        out.push_str("Empty");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    out
}
