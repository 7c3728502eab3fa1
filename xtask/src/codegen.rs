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

use crate::model::{
    pascal, render_module, rustfmt, snake, Field, Item, RenderOptions, Ty, Variant, EXTRA_FIELD,
};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const SCHEMA_FILES: [&str; 5] = ["state", "actions", "commands", "notifications", "errors"];
/// Our additive extensions of the 0.3.0 schema: new `$defs`, and `addProperties` (new optional
/// properties of existing definitions).
pub(crate) const EXTENSION_FILES: [&str; 1] = ["protocol/extensions/system-message-transform.json"];

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

/// Sizes the estimate cannot see (hand-written types, and one payload it underrates).
const MANUAL_SIZES: [(&str, usize); 3] = [
    ("StringOrMarkdown", 24),
    ("SessionToolCallConfirmedAction", 344),
    ("ChangesetOperationTarget", 96),
];

/// Preferred discriminator property names, in order.
const TAG_PROPS: [&str; 4] = ["type", "kind", "status", "state"];

pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let schema = Schema::load(root)?;
    let code = rustfmt(&Generator::new(&schema).generate()?)?;
    write_or_check(root, OUTPUT, &code, check)
}

/// Writes generated `code` to `root/path`, or (`check`) fails when the file there differs.
pub(crate) fn write_or_check(
    root: &Path,
    path: &str,
    code: &str,
    check: bool,
) -> Result<(), String> {
    let out = root.join(path);
    if check {
        let current = std::fs::read_to_string(&out).unwrap_or_default();
        if current != code {
            return Err(format!(
                "{path} is out of date; run `cargo run -p xtask -- codegen`"
            ));
        }
        println!("{path} is up to date");
    } else {
        std::fs::write(&out, code).map_err(|e| format!("writing {path}: {e}"))?;
        println!("wrote {path}");
    }
    Ok(())
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
        crate::model::box_large_variants(
            &mut self.items,
            &BOXED_UNIONS,
            BOX_ABOVE_BYTES,
            &MANUAL_SIZES,
        );
        Ok(self.render())
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
                    boxed: false,
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
        let options = RenderOptions {
            header: "// @generated by `cargo run -p xtask -- codegen` from protocol/ahp-0.3.0/schema and\n\
                     // protocol/ahp-0.3.0-overlay.json. Do not edit by hand.",
            tsify: true,
            channel_states: &CHANNEL_STATES,
            boxed_fields: &BOXED_FIELDS,
            shared_elements: &SHARED_ELEMENTS,
            manual_in_registry: &[],
        };
        render_module(&self.items, &options)
    }
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

/// What an extension adds: types, and fields of existing definitions (`(definition, field)`).
pub(crate) struct Extension {
    pub(crate) items: Vec<Item>,
    pub(crate) fields: Vec<(String, Field)>,
}

/// An extension file mapped as the 0.3.0 schema is, for another version's types: the types of
/// its `$defs`, and its `addProperties` as optional fields.
pub(crate) fn extension_items(path: &Path) -> Result<Extension, String> {
    let doc = read_json(path)?;
    let section = |key: &str| {
        doc.get(key)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let schema = Schema {
        defs: section("$defs"),
        constants: Map::new(),
        enums: Map::new(),
        aliases: Map::new(),
        undefined_allowed: BTreeSet::new(),
        property_types: Map::new(),
    };
    let mut generator = Generator::new(&schema);
    for (name, def) in &schema.defs {
        generator.emit_struct(name, def)?;
    }
    let mut fields = Vec::new();
    for (target, props) in section("addProperties") {
        for (wire, prop) in props.as_object().into_iter().flatten() {
            let ctx = format!("{target}{}", pascal(wire));
            let path = format!("{target}.{wire}");
            let (ty, nullable) = generator.field_type(&ctx, &path, wire, prop)?;
            let field = Field {
                wire: wire.clone(),
                rust: snake(wire),
                ty,
                required: false,
                nullable,
                boxed: false,
                doc: description(prop),
            };
            fields.push((target.clone(), field));
        }
    }
    Ok(Extension {
        items: generator.items,
        fields,
    })
}
