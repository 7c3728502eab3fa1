//! Generates Rust wire types from the AHP JSON Schema.
//!
//! Input: `protocol/ahp-0.3.0/schema/*.json` (the upstream schema, vendored) and
//! `protocol/ahp-0.3.0-overlay.json` (the wire values of the TypeScript enums the schema refers to
//! but does not define). Output: `src/protocol/generated.rs`.
//!
//! Mapping rules:
//! - an object definition becomes a struct; optional properties become `Option<T>` that are
//!   skipped when absent (TypeScript `name?:`), `_meta`-style open objects become `JsonObject`;
//!   every struct ends with `#[serde(flatten)] pub extra: Extra`, the members this version does
//!   not know (a newer peer's), kept verbatim (`Extra` is `{}` in TypeScript);
//! - a `oneOf` whose members share a constant-valued property (`type`, `kind`, `status`,
//!   `state`) becomes an internally tagged enum with an `Unknown` variant for forward
//!   compatibility; the tag property is carried by the enum, not the member struct;
//! - an enum of strings becomes a Rust enum with an `Other(String)` fallback;
//! - a handful of irregular definitions are written by hand in `src/protocol/manual.rs`.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

const SCHEMA_FILES: [&str; 5] = ["state", "actions", "commands", "notifications", "errors"];
/// Our additive extensions of the 0.3.0 schema: new `$defs`, and `addProperties` (new optional
/// properties of existing definitions).
const EXTENSION_FILES: [&str; 1] = ["protocol/extensions/system-message-transform.json"];

/// Adds an extension file's definitions and properties; a name that exists already is an error
/// (an extension never changes what the protocol defines).
fn extend(defs: &mut Map<String, Value>, path: &Path) -> Result<(), String> {
    let doc = read_json(path)?;
    let at = |what: &str| format!("{}: {what}", path.display());
    for (name, def) in doc
        .get("$defs")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if defs.insert(name.clone(), def.clone()).is_some() {
            return Err(at(&format!("definition {name} exists already")));
        }
    }
    for (name, props) in doc
        .get("addProperties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let target = defs
            .get_mut(name)
            .and_then(|d| d.get_mut("properties"))
            .and_then(Value::as_object_mut)
            .ok_or_else(|| at(&format!("no definition {name} with properties")))?;
        for (prop, schema) in props.as_object().into_iter().flatten() {
            if target.insert(prop.clone(), schema.clone()).is_some() {
                return Err(at(&format!("{name}.{prop} exists already")));
            }
        }
    }
    Ok(())
}
const OUTPUT: &str = "src/protocol/generated.rs";

/// Definitions written by hand in `src/protocol/manual.rs` (irregular shapes) or deliberately
/// not generated (numeric error-code enums live in `src/protocol/errors.rs`).
const MANUAL: [&str; 8] = [
    "AhpErrorDetailsMap",
    "StringOrMarkdown",
    "SessionToolCallConfirmedAction",
    "SessionToolCallApprovedAction",
    "SessionToolCallDeniedAction",
    "ProtocolNotification",
    "JsonRpcErrorCode",
    "AhpErrorCode",
];

/// Referenced types missing from the schema that `src/protocol/manual.rs` defines.
const MANUAL_REFS: [&str; 1] = ["ChangesetOperationTarget"];

/// Numeric properties that are integers on the wire (sequence numbers).
const INTEGER_PROPS: [&str; 4] = ["serverSeq", "clientSeq", "lastSeenServerSeq", "fromSeq"];

/// Channel states: each gets a `<Name>Field` enum naming its top-level properties, which the
/// reducers use to report what an action changed.
const CHANNEL_STATES: [&str; 5] = [
    "RootState",
    "SessionState",
    "TerminalState",
    "ChangesetState",
    "ResourceWatchState",
];

/// Unions whose large variants are boxed: `StateAction` is parsed and moved once per action on
/// the wire path, so its size matters; `ResponsePart` is held by the thousand in a session's
/// history, where every part would otherwise take the size of a tool call (about 600 bytes).
/// Other unions are rare or small.
const BOXED_UNIONS: [&str; 2] = ["StateAction", "ResponsePart"];

/// Struct fields held behind a `Box` (`(struct, wire name)`): optional members that are large
/// and usually absent, in a struct a session holds by the hundred (a `Turn` without usage or
/// error would otherwise carry their full size).
const BOXED_FIELDS: [(&str, &str); 2] = [("Turn", "usage"), ("Turn", "error")];

/// Arrays whose elements are shared (`Vec<Arc<T>>`, `(struct, wire name)`): a session's
/// completed turns. A mirror copies its state when the first own action is dispatched, and a
/// reducer rarely changes a completed turn, so the copy shares them instead of copying the
/// session's whole history (`Arc::make_mut` copies the one turn a reducer changes).
const SHARED_ELEMENTS: [(&str, &str); 1] = [("SessionState", "turns")];

/// Payloads estimated above this many bytes are boxed in [`BOXED_UNIONS`].
const BOX_ABOVE_BYTES: usize = 96;

/// Preferred discriminator property names, in order.
const TAG_PROPS: [&str; 4] = ["type", "kind", "status", "state"];

pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let schema = Schema::load(root)?;
    let code = rustfmt(&Generator::new(&schema).generate()?)?;
    let out = root.join(OUTPUT);
    if check {
        let current = std::fs::read_to_string(&out).unwrap_or_default();
        if current != code {
            return Err(format!(
                "{OUTPUT} is out of date; run `cargo run -p xtask -- codegen`"
            ));
        }
        println!("{OUTPUT} is up to date");
    } else {
        std::fs::write(&out, code).map_err(|e| format!("writing {OUTPUT}: {e}"))?;
        println!("wrote {OUTPUT}");
    }
    Ok(())
}

/// Formats generated code the way `cargo fmt` would, so the checked-in file stays stable.
fn rustfmt(code: &str) -> Result<String, String> {
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

pub(crate) struct Schema {
    pub(crate) defs: Map<String, Value>,
    constants: Map<String, Value>,
    enums: Map<String, Value>,
    aliases: Map<String, Value>,
    /// `Def.prop` paths required in the schema but admitting `undefined` in TypeScript.
    pub(crate) undefined_allowed: BTreeSet<String>,
    /// `Def.prop[.sub]` paths whose exported schema is wrong -> the correct schema.
    property_types: Map<String, Value>,
}

impl Schema {
    pub(crate) fn load(root: &Path) -> Result<Self, String> {
        let mut defs = Map::new();
        for file in SCHEMA_FILES {
            let path = root.join(format!("protocol/ahp-0.3.0/schema/{file}.schema.json"));
            let doc = read_json(&path)?;
            let Some(Value::Object(file_defs)) = doc.get("$defs") else {
                return Err(format!("{}: no $defs", path.display()));
            };
            for (name, def) in file_defs {
                match defs.get(name) {
                    Some(existing) if existing != def => {
                        return Err(format!("definition {name} differs between schema files"))
                    }
                    Some(_) => {}
                    None => {
                        defs.insert(name.clone(), def.clone());
                    }
                }
            }
        }
        for file in EXTENSION_FILES {
            extend(&mut defs, &root.join(file))?;
        }
        let overlay = read_json(&root.join("protocol/ahp-0.3.0-overlay.json"))?;
        let section = |key: &str| match overlay.get(key) {
            Some(Value::Object(m)) => Ok(m.clone()),
            _ => Err(format!(
                "protocol/ahp-0.3.0-overlay.json: missing object `{key}`"
            )),
        };
        Ok(Schema {
            defs,
            constants: section("constants")?,
            enums: section("enums")?,
            aliases: section("aliases")?,
            undefined_allowed: overlay
                .get("undefinedAllowed")
                .and_then(Value::as_array)
                .ok_or("protocol/ahp-0.3.0-overlay.json: missing array `undefinedAllowed`")?
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            property_types: section("propertyTypes")?,
        })
    }

    fn constant(&self, name: &str) -> Option<&str> {
        self.constants.get(name).and_then(Value::as_str)
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("parsing {}: {e}", path.display()))
}

fn ref_name(schema: &Value) -> Option<&str> {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
}

/// A Rust field type.
#[derive(Clone, Debug, PartialEq)]
enum Ty {
    String,
    F64,
    U64,
    U32,
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
    fn rust(&self) -> String {
        match self {
            Ty::String | Ty::Literal(_) => "String".into(),
            Ty::F64 => "f64".into(),
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
    fn ts_override(&self) -> Option<String> {
        match self {
            Ty::Any | Ty::Object | Ty::Map(_) | Ty::Literal(_) => Some(self.ts()),
            Ty::Vec(t) => t.ts_override().map(|inner| format!("{inner}[]")),
            _ => None,
        }
    }

    fn ts(&self) -> String {
        match self {
            Ty::String => "string".into(),
            Ty::F64 | Ty::U64 | Ty::U32 => "number".into(),
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

struct Field {
    wire: String,
    rust: String,
    ty: Ty,
    required: bool,
    nullable: bool,
    doc: String,
}

struct Variant {
    wire: String,
    rust: String,
    payload: String,
    /// Large payloads are boxed so the enum stays small (it is moved on every parse).
    boxed: bool,
}

enum Item {
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
}

impl Item {
    fn name(&self) -> &str {
        match self {
            Item::Struct { name, .. } | Item::Tagged { name, .. } | Item::StrEnum { name, .. } => {
                name
            }
        }
    }
}

struct Generator<'a> {
    schema: &'a Schema,
    /// struct name -> discriminator property the enclosing union carries for it.
    omitted_tags: BTreeMap<String, String>,
    items: Vec<Item>,
    emitted: BTreeSet<String>,
    /// Inline object schemas already emitted (descriptions stripped) -> their type name, so
    /// identical shapes (e.g. the `error` of several tool-call states) share one type.
    inline_shapes: BTreeMap<String, String>,
}

impl<'a> Generator<'a> {
    fn new(schema: &'a Schema) -> Self {
        Generator {
            schema,
            omitted_tags: BTreeMap::new(),
            items: Vec::new(),
            emitted: BTreeSet::new(),
            inline_shapes: BTreeMap::new(),
        }
    }

    fn generate(mut self) -> Result<String, String> {
        let defs = &self.schema.defs;
        // Pass 1: find every tagged union so member structs can drop their tag property.
        let mut unions = Vec::new();
        for (name, def) in defs {
            if MANUAL.contains(&name.as_str())
                || def.get("oneOf").is_none()
                || self.constant_values(def).is_some()
            {
                continue;
            }
            unions.push((name.clone(), self.analyze_union(name, def)?));
        }
        for (union_name, (tag, variants)) in &unions {
            for v in variants {
                if let Some(prev) = self.omitted_tags.insert(v.payload.clone(), tag.clone()) {
                    if &prev != tag {
                        return Err(format!(
                            "{} is tagged by `{prev}` and by `{tag}` (in {union_name})",
                            v.payload
                        ));
                    }
                }
            }
        }
        // Pass 2: emit every definition.
        let mut unions: BTreeMap<String, (String, Vec<Variant>)> = unions.into_iter().collect();
        for (name, def) in defs {
            if MANUAL.contains(&name.as_str()) {
                continue;
            }
            let doc = description(def);
            if let Some(values) = self.constant_values(def) {
                self.push(Item::StrEnum {
                    name: name.clone(),
                    doc,
                    values: values.into_iter().map(|(_, wire)| wire).collect(),
                });
            } else if let Some((tag, variants)) = unions.remove(name) {
                self.push(Item::Tagged {
                    name: name.clone(),
                    doc,
                    tag,
                    variants,
                });
            } else if def.get("properties").is_some() || def.get("type") == Some(&"object".into()) {
                self.emit_struct(name, def)?;
            } else {
                return Err(format!("definition {name}: unsupported shape"));
            }
        }
        // String enums from the overlay that are referenced (emit all, for completeness).
        let enums: Vec<(String, Vec<String>)> = self
            .schema
            .enums
            .iter()
            .map(|(name, values)| {
                let values = values
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                (name.clone(), values)
            })
            .collect();
        for (name, values) in enums {
            self.push(Item::StrEnum {
                name,
                doc: String::new(),
                values,
            });
        }
        self.box_large_variants();
        Ok(self.render())
    }

    fn box_large_variants(&mut self) {
        let sizes: Vec<(usize, Vec<bool>)> = self
            .items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| match item {
                Item::Tagged { name, variants, .. } if BOXED_UNIONS.contains(&name.as_str()) => {
                    let boxed = variants
                        .iter()
                        .map(|v| self.estimated_size(&v.payload, 0) > BOX_ABOVE_BYTES)
                        .collect();
                    Some((i, boxed))
                }
                _ => None,
            })
            .collect();
        for (i, boxed) in sizes {
            if let Item::Tagged { variants, .. } = &mut self.items[i] {
                for (v, b) in variants.iter_mut().zip(boxed) {
                    v.boxed = b;
                }
            }
        }
    }

    /// A rough in-memory size of a named type (64-bit), enough to spot large payloads.
    fn estimated_size(&self, name: &str, depth: usize) -> usize {
        const MANUAL_SIZES: [(&str, usize); 3] = [
            ("StringOrMarkdown", 24),
            ("SessionToolCallConfirmedAction", 344),
            ("ChangesetOperationTarget", 96),
        ];
        if depth > 8 {
            return 8;
        }
        if let Some((_, size)) = MANUAL_SIZES.iter().find(|(n, _)| *n == name) {
            return *size;
        }
        match self.items.iter().find(|i| i.name() == name) {
            // The unknown members (`Extra`, one pointer) plus the fields.
            Some(Item::Struct { fields, .. }) => {
                8 + fields
                    .iter()
                    .map(|f| match &f.ty {
                        Ty::Named(n) if n != name => {
                            self.estimated_size(n, depth + 1) + if f.required { 0 } else { 8 }
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
                    .map(|v| self.estimated_size(&v.payload, depth + 1))
                    .max()
                    .unwrap_or(0)
            }
            _ => 24,
        }
    }

    fn push(&mut self, item: Item) {
        if self.emitted.insert(item.name().to_string()) {
            self.items.push(item);
        }
    }

    /// Returns (tag property, variants) for a `oneOf` definition.
    fn analyze_union(&self, name: &str, def: &Value) -> Result<(String, Vec<Variant>), String> {
        let members: Vec<&str> = def["oneOf"]
            .as_array()
            .ok_or_else(|| format!("{name}: oneOf is not an array"))?
            .iter()
            .filter_map(ref_name)
            .filter(|r| !r.is_empty())
            .collect();
        if members.is_empty() {
            return Err(format!("{name}: union without members"));
        }
        let tag = TAG_PROPS
            .iter()
            .find(|prop| {
                members
                    .iter()
                    .all(|m| self.member_tag_values(m, prop).is_some())
            })
            .ok_or_else(|| format!("{name}: no common discriminator among {members:?}"))?;
        let mut variants = Vec::new();
        for m in &members {
            for (rust, wire) in self.member_tag_values(m, tag).unwrap_or_default() {
                variants.push(Variant {
                    wire,
                    rust,
                    payload: (*m).to_string(),
                    boxed: false,
                });
            }
        }
        Ok((tag.to_string(), variants))
    }

    /// The discriminator values a union member carries in `prop`: (variant name, wire value).
    fn member_tag_values(&self, member: &str, prop: &str) -> Option<Vec<(String, String)>> {
        let def = self.schema.defs.get(member)?;
        if def.get("oneOf").is_some() {
            // A nested union (hand-written): all of its members share one value.
            let inner: Vec<&str> = def["oneOf"]
                .as_array()?
                .iter()
                .filter_map(ref_name)
                .filter(|r| !r.is_empty())
                .collect();
            let mut values: Vec<(String, String)> = inner
                .iter()
                .filter_map(|m| self.member_tag_values(m, prop))
                .flatten()
                .collect();
            values.dedup();
            return (values.len() == 1 && !inner.is_empty()).then_some(values);
        }
        let schema = def.get("properties")?.get(prop)?;
        self.constant_values(schema)
    }

    /// If `schema` only admits constant strings, returns them as (variant name, wire value).
    fn constant_values(&self, schema: &Value) -> Option<Vec<(String, String)>> {
        if let Some(r) = ref_name(schema) {
            let value = self.schema.constant(r)?;
            let member = r.rsplit('.').next().unwrap_or(r);
            return Some(vec![(member.to_string(), value.to_string())]);
        }
        if let Some(Value::Array(alts)) = schema.get("oneOf") {
            // `{}` members are artifacts of the schema exporter; they never carry a value.
            let mut out = Vec::new();
            for alt in alts.iter().filter(|a| !is_placeholder(a)) {
                out.extend(self.constant_values(alt)?);
            }
            return (!out.is_empty()).then_some(out);
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            if values.len() == 1 {
                let v = values[0].as_str()?;
                return Some(vec![(pascal(v), v.to_string())]);
            }
        }
        None
    }

    fn emit_struct(&mut self, name: &str, def: &Value) -> Result<(), String> {
        self.emit_struct_at(name, name, def)
    }

    /// `path` is the schema path (`FileEdit.before`) used to look up overlay corrections.
    fn emit_struct_at(&mut self, name: &str, path: &str, def: &Value) -> Result<(), String> {
        let required: BTreeSet<&str> = def
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let omitted = self.omitted_tags.get(name).cloned();
        let mut fields = Vec::new();
        if let Some(Value::Object(props)) = def.get("properties") {
            for (wire, prop) in props {
                if omitted.as_deref() == Some(wire.as_str()) {
                    continue;
                }
                let ctx = format!("{name}{}", pascal(wire));
                let prop_path = format!("{path}.{wire}");
                let prop = self
                    .schema
                    .property_types
                    .get(&prop_path)
                    .unwrap_or(prop)
                    .clone();
                let (ty, nullable) = self.field_type(&ctx, &prop_path, wire, &prop)?;
                fields.push(Field {
                    wire: wire.clone(),
                    rust: snake(wire),
                    ty,
                    required: required.contains(wire.as_str())
                        && !self.schema.undefined_allowed.contains(&prop_path),
                    nullable,
                    doc: description(&prop),
                });
            }
        }
        if let Some(f) = fields.iter().find(|f| f.rust == EXTRA_FIELD) {
            return Err(format!(
                "{name}.{}: the Rust name `{EXTRA_FIELD}` is taken by the unknown members",
                f.wire
            ));
        }
        self.push(Item::Struct {
            name: name.to_string(),
            doc: description(def),
            fields,
        });
        Ok(())
    }

    /// Maps a property schema to a Rust type; `ctx` names inline types. Returns (type, nullable).
    fn field_type(
        &mut self,
        ctx: &str,
        path: &str,
        prop: &str,
        schema: &Value,
    ) -> Result<(Ty, bool), String> {
        if ctx == "SnapshotState" {
            return Ok((Ty::Named("SnapshotState".into()), false));
        }
        if let Some(r) = ref_name(schema) {
            return Ok((self.ref_type(ctx, r)?, false));
        }
        if let Some(Value::Array(alts)) = schema.get("oneOf") {
            // `T | null` is written as oneOf [T, {}].
            let refs: Vec<&str> = alts.iter().filter_map(ref_name).collect();
            let empties = alts
                .iter()
                .filter(|a| a.as_object().is_some_and(|o| o.is_empty()))
                .count();
            if refs.len() == 1 && empties == 1 && alts.len() == 2 {
                return Ok((self.ref_type(ctx, refs[0])?, true));
            }
            if let Some(values) = self.constant_values(schema) {
                return Ok((self.constant_enum(ctx, schema, values), false));
            }
            return Err(format!("{ctx}: unsupported oneOf"));
        }
        let ty = match schema.get("type").and_then(Value::as_str) {
            None => Ty::Any,
            Some("string") => match schema.get("enum").and_then(Value::as_array) {
                None => Ty::String,
                Some(values) if values.len() == 1 => {
                    Ty::Literal(values[0].as_str().unwrap_or_default().to_string())
                }
                Some(values) => {
                    let values = values
                        .iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect();
                    self.push(Item::StrEnum {
                        name: ctx.to_string(),
                        doc: String::new(),
                        values,
                    });
                    Ty::Named(ctx.to_string())
                }
            },
            Some("number") | Some("integer") => {
                if INTEGER_PROPS.contains(&prop) {
                    Ty::U64
                } else {
                    Ty::F64
                }
            }
            Some("boolean") => Ty::Bool,
            Some("array") => {
                let items = schema.get("items").cloned().unwrap_or(Value::Null);
                let (inner, _) = self.field_type(&format!("{ctx}Item"), path, prop, &items)?;
                Ty::Vec(Box::new(inner))
            }
            Some("object") => {
                if schema.get("properties").is_some() {
                    // Same property name and same shape: one type. Not when the overlay
                    // corrects something inside (the shapes only look alike).
                    let corrected = self
                        .schema
                        .property_types
                        .keys()
                        .any(|k| k.starts_with(&format!("{path}.")));
                    let shape = format!("{prop}:{}", without_descriptions(schema));
                    if !corrected {
                        if let Some(existing) = self.inline_shapes.get(&shape) {
                            return Ok((Ty::Named(existing.clone()), false));
                        }
                        self.inline_shapes.insert(shape, ctx.to_string());
                    }
                    self.emit_struct_at(ctx, path, schema)?;
                    Ty::Named(ctx.to_string())
                } else {
                    match schema.get("additionalProperties") {
                        Some(ap) if ap.as_object().is_some_and(|o| !o.is_empty()) => {
                            let (inner, _) =
                                self.field_type(&format!("{ctx}Value"), path, prop, ap)?;
                            Ty::Map(Box::new(inner))
                        }
                        _ => Ty::Object,
                    }
                }
            }
            Some(other) => return Err(format!("{ctx}: unsupported type {other}")),
        };
        Ok((ty, false))
    }

    fn ref_type(&mut self, ctx: &str, name: &str) -> Result<Ty, String> {
        if name.is_empty() {
            return Ok(Ty::Any);
        }
        if self.schema.defs.contains_key(name) || MANUAL_REFS.contains(&name) {
            return Ok(Ty::Named(name.to_string()));
        }
        if let Some(alias) = self.schema.aliases.get(name).and_then(Value::as_str) {
            return match alias {
                "string" => Ok(Ty::String),
                "integer" => Ok(Ty::U32),
                "number" => Ok(Ty::F64),
                other => Err(format!("alias {name}: unsupported {other}")),
            };
        }
        if self.schema.enums.contains_key(name) {
            return Ok(Ty::Named(name.to_string()));
        }
        if let Some(value) = self.schema.constant(name) {
            let family = name.split('.').next().unwrap_or(name);
            if self.schema.enums.contains_key(family) {
                return Ok(Ty::Named(family.to_string()));
            }
            return Ok(Ty::Literal(value.to_string()));
        }
        Err(format!("{ctx}: unresolved reference {name}"))
    }

    /// A non-discriminator property restricted to some constants: reuse the constants' enum
    /// when they all come from one, otherwise generate a narrower enum.
    fn constant_enum(&mut self, ctx: &str, schema: &Value, values: Vec<(String, String)>) -> Ty {
        let families: BTreeSet<&str> = schema["oneOf"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(ref_name)
            .map(|r| r.split('.').next().unwrap_or(r))
            .collect();
        if families.len() == 1 {
            let family = families.into_iter().next().unwrap_or_default();
            if self.schema.enums.contains_key(family) {
                return Ty::Named(family.to_string());
            }
        }
        self.push(Item::StrEnum {
            name: ctx.to_string(),
            doc: String::new(),
            values: values.into_iter().map(|(_, wire)| wire).collect(),
        });
        Ty::Named(ctx.to_string())
    }

    fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(
            "// @generated by `cargo run -p xtask -- codegen` from protocol/ahp-0.3.0/schema and\n\
             // protocol/ahp-0.3.0-overlay.json. Do not edit by hand.\n\n\
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
        let defaultable = self.defaultable();
        for item in &self.items {
            match item {
                Item::Struct { name, doc, fields } => {
                    render_struct(&mut out, name, doc, fields, defaultable.contains(name));
                    if CHANNEL_STATES.contains(&name.as_str()) {
                        render_field_enum(&mut out, name, fields);
                    }
                }
                Item::Tagged {
                    name,
                    doc,
                    tag,
                    variants,
                } => render_tagged(&mut out, name, doc, tag, variants),
                Item::StrEnum { name, doc, values } => render_str_enum(&mut out, name, doc, values),
            }
        }
        render_registry(&mut out, &self.items);
        out
    }

    /// Structs whose every field has a sensible empty value can derive `Default`.
    fn defaultable(&self) -> BTreeSet<String> {
        let mut set = BTreeSet::new();
        loop {
            let before = set.len();
            for item in &self.items {
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
}

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
const EXTRA_FIELD: &str = "extra";

const DERIVE_TSIFY: &str = "#[cfg_attr(target_arch = \"wasm32\", derive(tsify::Tsify))]\n";

fn render_struct(out: &mut String, name: &str, doc: &str, fields: &[Field], default: bool) {
    render_doc(out, "", doc);
    let default = if default { ", Default" } else { "" };
    let _ = write!(
        out,
        "#[derive(Debug, Clone, PartialEq, Serialize{default})]\n{DERIVE_TSIFY}pub struct {name} {{\n"
    );
    for f in fields {
        render_doc(out, "    ", &f.doc);
        let mut serde = vec![format!("rename = {:?}", f.wire)];
        let optional = !f.required;
        let rust_ty = match &f.ty {
            // A struct that contains itself needs indirection; large, rare members get it.
            Ty::Named(n) if n == name || BOXED_FIELDS.contains(&(name, f.wire.as_str())) => {
                format!("Box<{n}>")
            }
            Ty::Vec(inner) if SHARED_ELEMENTS.contains(&(name, f.wire.as_str())) => {
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
        if let Some(ts) = ts {
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

/// `Decode` through [`wire::WireStruct`] (see `protocol/decode`): the struct starts blank
/// (`wire::Blank`), each member is read into its field (noted in a bit set), unknown ones into
/// `extra`, required ones checked at the end; `Deserialize` through `Decode`.
fn render_struct_decode(out: &mut String, name: &str, fields: &[Field]) {
    render_decode_impls(out, name, "wire::decode_struct(reader)");
    assert!(
        fields.len() <= 64,
        "{name}: more members than the decoder's bit set holds"
    );
    let _ = writeln!(
        out,
        "impl wire::Blank for {name} {{\n    fn blank() -> Self {{\n        Self {{"
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
    let _ = writeln!(
        out,
        "impl wire::WireStruct for {name} {{\n    const NAME: &'static str = {name:?};\n\n    #[inline(never)]\n    fn decode_members(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {{\n        \
         const KEYS: &[&str] = &[{}];\n        let mut out = <Self as wire::Blank>::blank();\n        let {}seen = 0u64;\n        \
         while let Some(key) = reader.next_key()? {{\n            match wire::key_index(&key, KEYS) {{",
        names.join(", "),
        if fields.is_empty() { "" } else { "mut " }
    );
    // Keys are looked up in a table by one shared function, then dispatched by index (a jump
    // table): an inline `match` on strings compiles to a comparison per member.
    for (i, f) in fields.iter().enumerate() {
        let _ = writeln!(
            out,
            "                {i} => wire::member(reader, &mut out.{}, &mut seen, {i}, KEYS)?,",
            f.rust
        );
    }
    let _ = writeln!(
        out,
        "                _ => wire::unknown(reader, &mut out.{EXTRA_FIELD}, key)?,\n            }}\n        }}\n        \
         wire::check_required(seen, {required:#x}, KEYS, reader)?;\n        Ok(out)\n    }}\n}}\n"
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

fn render_field_enum(out: &mut String, name: &str, fields: &[Field]) {
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
            "            {name}Field::{} => self.{}.clone_from(&other.{}),",
            pascal(&f.wire),
            f.rust,
            f.rust
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

fn render_tagged(out: &mut String, name: &str, doc: &str, tag: &str, variants: &[Variant]) {
    render_doc(out, "", doc);
    let _ = write!(
        out,
        "#[derive(Debug, Clone, PartialEq, Serialize)]\n{DERIVE_TSIFY}#[serde(tag = {tag:?})]\npub enum {name} {{\n"
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
        "            Self::Unknown(u) => u.tag(),\n        }}\n    }}\n\n    fn decode_variant(tag: &str, reader: &mut Reader<'_>) -> Result<Self, DecodeError> {{\n        const TAGS: &[&str] = &[{}];\n        Ok(match wire::key_index(tag, TAGS) {{",
        variants
            .iter()
            .map(|v| format!("{:?}", v.wire))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (i, v) in variants.iter().enumerate() {
        let parse = format!(
            "<{} as wire::WireStruct>::decode_members(reader)?",
            v.payload
        );
        let parse = if v.boxed {
            format!("Box::new({parse})")
        } else {
            parse
        };
        let _ = writeln!(out, "            {i} => Self::{}({parse}),", v.rust);
    }
    let _ = writeln!(
        out,
        "            _ => Self::Unknown(UnknownVariant::from_rest(Self::TAG, tag, reader)?),\n        }})\n    }}\n}}\n"
    );
    render_decode_impls(out, name, "super::tagged::decode(reader)");
    render_blank(
        out,
        name,
        "Self::Unknown(UnknownVariant(JsonObject::new()))",
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

fn render_str_enum(out: &mut String, name: &str, doc: &str, values: &[String]) {
    if doc.is_empty() {
        let _ = writeln!(out, "/// Wire values of `{name}`.");
    } else {
        render_doc(out, "", doc);
    }
    let _ = write!(
        out,
        "#[derive(Debug, Clone, PartialEq, Eq, Hash)]\n{DERIVE_TSIFY}pub enum {name} {{\n"
    );
    let variants: Vec<String> = values.iter().map(|v| pascal(v)).collect();
    for (v, rust) in values.iter().zip(&variants) {
        let _ = writeln!(
            out,
            "    #[cfg_attr(target_arch = \"wasm32\", serde(rename = {v:?}))]\n    {rust},"
        );
    }
    let _ = writeln!(out, "    /// A value this protocol version does not know (from a newer peer), kept verbatim.\n    #[cfg_attr(target_arch = \"wasm32\", serde(skip))]\n    Other(String),\n}}\n");
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

/// A name -> round-trip function table so tests can exercise every generated type by name.
fn render_registry(out: &mut String, items: &[Item]) {
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
    for item in items {
        let name = item.name();
        let _ = writeln!(out, "        {name:?} => rt::<{name}>(value),");
    }
    out.push_str("        _ => return None,\n    })\n}\n\n/// The schema names of all generated types.\npub const GENERATED_TYPES: &[&str] = &[\n");
    for item in items {
        let _ = writeln!(out, "    {:?},", item.name());
    }
    out.push_str("];\n");
}

/// `schema` with every `description` removed, for comparing shapes.
fn without_descriptions(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "description")
                .map(|(k, v)| (k.clone(), without_descriptions(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_descriptions).collect()),
        other => other.clone(),
    }
}

/// `{}` or a `$ref` to nothing: placeholders the schema exporter leaves in unions.
fn is_placeholder(schema: &Value) -> bool {
    schema.as_object().is_some_and(|o| o.is_empty()) || ref_name(schema) == Some("")
}

fn description(schema: &Value) -> String {
    schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// `turnId` -> `turn_id`, `_meta` -> `meta`, `type` -> `r#type`.
fn snake(name: &str) -> String {
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
fn pascal(value: &str) -> String {
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
