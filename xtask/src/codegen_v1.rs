//! Generates the AHP 1.0.0 wire types from the protocol's machine-readable definition: the
//! official crate `ahp-types` 1.0.0 (MIT; no JSON Schema of 1.0.0 is published), an xtask
//! dependency only. Its source is located with `cargo metadata` and read with `syn` into the
//! model the 0.3.0 schema reader builds (`model.rs`); output: `src/protocol/v1/generated.rs`.
//!
//! How the definition's serde attributes map to the model:
//! - a struct deriving `Serialize`/`Deserialize` becomes a struct: `rename_all = "camelCase"`
//!   and `rename` give the wire names, `Option<T>` with `skip_serializing_if` an optional
//!   member, `Option<T>` without it a nullable one, `Box<T>` a boxed field, `HashMap<String,
//!   T>` a record; every struct keeps the members it does not know (`extra`), where the
//!   definition drops them;
//! - `#[serde(tag = "...")]` enums become tagged unions, always open (an `Unknown` variant,
//!   also where the definition is closed); struct-like and unit variants get a struct of their
//!   own, `<Union><Variant>`;
//! - unit-variant enums, closed (`rename` per variant) or open (`Unknown(String)` with a
//!   hand-written `Serialize` whose `serialize_str` calls name the values), become open string
//!   enums;
//! - `#[serde(untagged)]` enums become untagged unions (first fitting variant, as serde);
//! - a `#[serde(transparent)]` `u32` newtype with `const` flags becomes a bitset;
//! - a member written with its union's tag although its type is the variant's struct (the
//!   definition's `serialize_with` helpers, and the hand-written `Serialize` impls listed in
//!   [`HAND_SERIALIZED`]) becomes `Tagged<Struct>` (`src/protocol/v1/manual.rs`).
//!
//! Anything else is an error, so a new shape in a later definition is noticed, not guessed.

use crate::codegen::{extension_items, EXTENSION_FILES};
use crate::model::{
    render_module, rustfmt, Field, Item, RenderOptions, Ty, UntaggedVariant, Variant, EXTRA_FIELD,
};
use crate::syn_read::{
    bitset_flags, camel, derives, doc, field_type, impl_target, plain_type, serde_attrs,
    serialized_values,
};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use syn::Fields;

const OUTPUT: &str = "src/protocol/v1/generated.rs";

/// The definition: this package at this version (the xtask dependency `ahp-types-1`).
const PACKAGE: (&str, &str) = ("ahp-types", "1.0.0");

/// The definition's modules holding wire types, in output order (`common.rs` is the crate's
/// own hand-written primitives, `StringOrMarkdown` among them, which `v1/manual.rs` provides;
/// `version.rs` holds constants).
const SOURCE_FILES: [&str; 6] = [
    "state.rs",
    "actions.rs",
    "commands.rs",
    "notifications.rs",
    "messages.rs",
    "errors.rs",
];

/// Structs whose `Serialize` is written by hand in the definition, and the members it writes
/// with their union's tag: `chat/error`'s `part` is an `ErrorResponsePart` written as the
/// response part it is (`kind: "error"`).
const HAND_SERIALIZED: [(&str, &str); 1] = [("ChatErrorAction", "part")];

/// Channel states (`<Name>Field` enums, as for 0.3.0): what the 1.0 reducers report changed.
const CHANNEL_STATES: [&str; 10] = [
    "RootState",
    "SessionState",
    "ChatState",
    "CanvasState",
    "TerminalState",
    "ChangesetState",
    "AnnotationsState",
    "ResourceWatchState",
    "AutomationState",
    "AutomationRunState",
];

/// Arrays whose elements are shared (`Vec<Arc<T>>`), as 0.3.0's session's turns: a chat's
/// completed turns, so a mirror's copy of a chat shares its history.
const SHARED_ELEMENTS: [(&str, &str); 1] = [("ChatState", "turns")];

/// The 1.0 types (the definition's and the extensions'), and the variant structs used
/// outside their unions (see `Reader::tagged_members`).
pub(crate) type Definition = (Vec<Item>, BTreeMap<String, (String, String)>);

/// Reads the definition and the extensions into the model.
pub(crate) fn definition(root: &Path) -> Result<Definition, String> {
    let source = definition_source(root)?;
    let mut reader = Reader::default();
    for file in SOURCE_FILES {
        let path = source.join(file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        let parsed =
            syn::parse_file(&text).map_err(|e| format!("parsing {}: {e}", path.display()))?;
        reader.collect(&parsed, file)?;
    }
    let mut items = reader.items()?;
    for file in EXTENSION_FILES {
        extend(&mut items, &root.join(file))?;
    }
    Ok((items, reader.tagged_members))
}

/// `StateAction` is decoded, moved and kept pending once per action: its large payloads are
/// boxed (the definition boxes none, which made the union 552 bytes), as 0.3.0's are.
const BOXED_UNIONS: [&str; 1] = ["StateAction"];

/// Payloads estimated above this many bytes are boxed in [`BOXED_UNIONS`]: the streamed-text
/// actions (`chat/delta`, `chat/reasoning`: three strings, `_meta` and the unknown members, 88
/// bytes) stay inline, so a delta decodes without allocating, and the union is 96 bytes, as
/// 0.3.0's.
const BOX_ABOVE_BYTES: usize = 88;

/// Sizes the estimate cannot see (the hand-written primitives).
const MANUAL_SIZES: [(&str, usize); 1] = [("StringOrMarkdown", 24)];

/// Members held behind a `Box` in Rust: `_meta`, optional on nearly every 1.0 type and rarely
/// sent, would otherwise take a whole map's size (72 bytes) in each action and part.
const BOXED_WIRE_NAMES: [&str; 1] = ["_meta"];

pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let (mut items, tagged_members) = definition(root)?;
    box_rare_members(&mut items);
    crate::model::box_large_variants(&mut items, &BOXED_UNIONS, BOX_ABOVE_BYTES, &MANUAL_SIZES);
    let options = RenderOptions {
        header:
            "// @generated by `cargo run -p xtask -- codegen` from the AHP 1.0.0 definition (the\n\
                 // official crate `ahp-types` 1.0.0) and protocol/extensions. Do not edit by hand.",
        tsify: false,
        channel_states: &CHANNEL_STATES,
        boxed_fields: &[],
        shared_elements: &SHARED_ELEMENTS,
        manual_in_registry: &["StringOrMarkdown"],
    };
    let mut code = render_module(&items, &options);
    render_union_members(&mut code, &tagged_members);
    let code = rustfmt(&code)?;
    super::codegen::write_or_check(root, OUTPUT, &code, check)?;
    let declarations = crate::ts_v1::render(&items, &tagged_members);
    super::codegen::write_or_check(root, crate::ts_v1::OUTPUT, &declarations, check)
}

/// Marks the [`BOXED_WIRE_NAMES`] members of every struct boxed.
fn box_rare_members(items: &mut [Item]) {
    for item in items {
        if let Item::Struct { fields, .. } = item {
            for f in fields.iter_mut() {
                if BOXED_WIRE_NAMES.contains(&f.wire.as_str()) {
                    f.boxed = true;
                }
            }
        }
    }
}

/// The `src` directory of the definition's package, from `cargo metadata`.
pub(crate) fn definition_source(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .output()
        .map_err(|e| format!("running cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata output: {e}"))?;
    let (name, version) = PACKAGE;
    metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == name && p["version"] == version)
        .and_then(|p| p["manifest_path"].as_str())
        .and_then(|manifest| Path::new(manifest).parent())
        .map(|dir| dir.join("src"))
        .ok_or_else(|| format!("cargo metadata: no package {name} {version}"))
}

/// Adds an extension's types and its members of existing structs.
fn extend(items: &mut Vec<Item>, path: &Path) -> Result<(), String> {
    let extension = extension_items(path)?;
    for item in extension.items {
        if items.iter().any(|i| i.name() == item.name()) {
            return Err(format!(
                "{}: {} exists already in 1.0.0",
                path.display(),
                item.name()
            ));
        }
        items.push(item);
    }
    for (target, field) in extension.fields {
        let Some(Item::Struct { fields, .. }) = items.iter_mut().find(|i| i.name() == target)
        else {
            return Err(format!(
                "{}: 1.0.0 has no struct {target} (decide how the extension applies)",
                path.display()
            ));
        };
        if fields.iter().any(|f| f.wire == field.wire) {
            return Err(format!("{target}.{} exists already in 1.0.0", field.wire));
        }
        fields.push(field);
    }
    Ok(())
}

/// `impl UnionMember` for each struct that stands alone with its union's tag.
fn render_union_members(out: &mut String, members: &BTreeMap<String, (String, String)>) {
    for (payload, (tag, value)) in members {
        let _ = writeln!(
            out,
            "impl UnionMember for {payload} {{\n    const TAG_KEY: &'static str = {tag:?};\n    const TAG: &'static str = {value:?};\n}}\n"
        );
    }
}

/// Reads the definition's modules; [`Reader::items`] maps them.
#[derive(Default)]
struct Reader {
    structs: Vec<(syn::ItemStruct, String)>,
    enums: Vec<(syn::ItemEnum, String)>,
    /// Type name -> its `Serialize` impl, and its inherent impls.
    serialize_impls: BTreeMap<String, syn::ItemImpl>,
    inherent_impls: BTreeMap<String, Vec<syn::ItemImpl>>,
    /// Order of definition: (name, is an enum).
    order: Vec<(String, bool)>,
    /// Variant structs that stand alone somewhere with their union's tag -> (tag, value).
    tagged_members: BTreeMap<String, (String, String)>,
}

impl Reader {
    fn collect(&mut self, file: &syn::File, name: &str) -> Result<(), String> {
        for item in &file.items {
            match item {
                syn::Item::Struct(s) if matches!(s.vis, syn::Visibility::Public(_)) => {
                    self.order.push((s.ident.to_string(), false));
                    self.structs.push((s.clone(), name.to_string()));
                }
                syn::Item::Enum(e) if matches!(e.vis, syn::Visibility::Public(_)) => {
                    self.order.push((e.ident.to_string(), true));
                    self.enums.push((e.clone(), name.to_string()));
                }
                syn::Item::Impl(imp) => {
                    let Some(target) = impl_target(imp) else {
                        continue;
                    };
                    match &imp.trait_ {
                        Some((_, path, _))
                            if path.segments.last().is_some_and(|s| s.ident == "Serialize") =>
                        {
                            self.serialize_impls.insert(target, imp.clone());
                        }
                        None => self
                            .inherent_impls
                            .entry(target)
                            .or_default()
                            .push(imp.clone()),
                        Some(_) => {}
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Every definition as model items, in definition order (a union's variant structs after
    /// it).
    fn items(&mut self) -> Result<Vec<Item>, String> {
        let mut seen = BTreeSet::new();
        for (name, _) in &self.order {
            if !seen.insert(name.clone()) {
                return Err(format!("{name} is defined twice"));
            }
        }
        // Pass 1: the tags of the unions' variant structs.
        let mut variant_tags: BTreeMap<String, BTreeSet<(String, String)>> = BTreeMap::new();
        for (e, file) in &self.enums {
            let serde = serde_attrs(&e.attrs, &format!("{file}: {}", e.ident))?;
            let Some(tag) = serde.tag else { continue };
            for v in &e.variants {
                if let Fields::Unnamed(f) = &v.fields {
                    let vs = serde_attrs(&v.attrs, &format!("{}::{}", e.ident, v.ident))?;
                    if vs.untagged {
                        continue;
                    }
                    let (ty, _, _) = field_type(&f.unnamed[0].ty, &e.ident.to_string())?;
                    if let Ty::Named(payload) = ty {
                        let wire = vs.rename.unwrap_or_else(|| v.ident.to_string());
                        variant_tags
                            .entry(payload)
                            .or_default()
                            .insert((tag.clone(), wire));
                    }
                }
            }
        }
        // Pass 2: the items.
        let structs: BTreeMap<String, (syn::ItemStruct, String)> = self
            .structs
            .iter()
            .map(|(s, f)| (s.ident.to_string(), (s.clone(), f.clone())))
            .collect();
        let enums: BTreeMap<String, (syn::ItemEnum, String)> = self
            .enums
            .iter()
            .map(|(e, f)| (e.ident.to_string(), (e.clone(), f.clone())))
            .collect();
        let mut items = Vec::new();
        for (name, is_enum) in self.order.clone() {
            if is_enum {
                let (e, file) = &enums[&name];
                self.map_enum(e, file, &mut items)?;
            } else {
                let (s, file) = &structs[&name];
                if let Some(item) = self.map_struct(s, file, &variant_tags)? {
                    items.push(item);
                }
            }
        }
        self.move_tags_out(&mut items, &variant_tags)?;
        Ok(items)
    }

    /// A variant struct that has its union's tag as a member of its own (the TypeScript type
    /// names the tag, `status: ToolCallStatus.AuthRequired`): serde would write the tag twice
    /// in the union and never read the variant, so the member is dropped (the union carries
    /// it) and where the struct stands alone it is `Tagged<_>`, which writes it.
    fn move_tags_out(
        &mut self,
        items: &mut [Item],
        variant_tags: &BTreeMap<String, BTreeSet<(String, String)>>,
    ) -> Result<(), String> {
        let mut moved = BTreeSet::new();
        for item in items.iter_mut() {
            if let Item::Struct { name, fields, .. } = item {
                for (tag, _) in variant_tags.get(name.as_str()).into_iter().flatten() {
                    if fields.iter().any(|f| &f.wire == tag) {
                        fields.retain(|f| &f.wire != tag);
                        moved.insert(name.clone());
                    }
                }
            }
        }
        for item in items.iter_mut() {
            let Item::Struct { name, fields, .. } = item else {
                continue;
            };
            for f in fields.iter_mut() {
                let inner = match &f.ty {
                    Ty::Vec(inner) => inner,
                    ty => ty,
                };
                if matches!(inner, Ty::Named(n) if moved.contains(n)) {
                    let at = format!("{name}.{}", f.wire);
                    f.ty = self.tagged_member(f.ty.clone(), &at, variant_tags)?;
                }
            }
        }
        Ok(())
    }

    fn map_struct(
        &mut self,
        s: &syn::ItemStruct,
        file: &str,
        variant_tags: &BTreeMap<String, BTreeSet<(String, String)>>,
    ) -> Result<Option<Item>, String> {
        let name = s.ident.to_string();
        let at = format!("{file}: {name}");
        let derived = derives(&s.attrs);
        if !derived.contains("Serialize") && !derived.contains("Deserialize") {
            return Ok(None); // not a wire type
        }
        let hand_serialized: Vec<&str> = HAND_SERIALIZED
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, member)| *member)
            .collect();
        if !derived.contains("Serialize") && hand_serialized.is_empty() {
            return Err(format!(
                "{at}: a hand-written Serialize; list what it writes in HAND_SERIALIZED"
            ));
        }
        let serde = serde_attrs(&s.attrs, &at)?;
        if serde.transparent {
            let flags: Vec<_> = self
                .inherent_impls
                .get(&name)
                .into_iter()
                .flatten()
                .flat_map(bitset_flags)
                .collect();
            let is_u32 = matches!(&s.fields, Fields::Unnamed(f)
                if f.unnamed.len() == 1 && plain_type(&f.unnamed[0].ty, &at) == Ok(Ty::U32));
            if !is_u32 || flags.is_empty() {
                return Err(format!(
                    "{at}: transparent, but not a u32 bitset with flags"
                ));
            }
            return Ok(Some(Item::Bitset {
                name,
                doc: doc(&s.attrs),
                flags,
            }));
        }
        let Fields::Named(named) = &s.fields else {
            return Err(format!("{at}: a struct without named fields"));
        };
        let fields = self.map_fields(
            named,
            serde.rename_all.as_deref(),
            &at,
            variant_tags,
            &hand_serialized,
        )?;
        Ok(Some(Item::Struct {
            name,
            doc: doc(&s.attrs),
            fields,
        }))
    }

    fn map_fields(
        &mut self,
        named: &syn::FieldsNamed,
        rename_all: Option<&str>,
        at: &str,
        variant_tags: &BTreeMap<String, BTreeSet<(String, String)>>,
        hand_serialized: &[&str],
    ) -> Result<Vec<Field>, String> {
        if rename_all.is_some_and(|r| r != "camelCase") {
            return Err(format!("{at}: unsupported rename_all {rename_all:?}"));
        }
        let mut fields = Vec::new();
        for f in &named.named {
            let ident = f
                .ident
                .as_ref()
                .ok_or_else(|| format!("{at}: unnamed field"))?;
            let rust = ident.to_string();
            let at = format!("{at}.{rust}");
            let serde = serde_attrs(&f.attrs, &at)?;
            let plain = rust.trim_start_matches("r#");
            let wire = match (serde.rename, rename_all) {
                (Some(wire), _) => wire,
                (None, Some(_)) => camel(plain),
                (None, None) => plain.to_string(),
            };
            let (mut ty, optional, boxed) = field_type(&f.ty, &at)?;
            if serde.with_functions || hand_serialized.contains(&wire.as_str()) {
                ty = self.tagged_member(ty, &at, variant_tags)?;
            }
            if rust == EXTRA_FIELD {
                return Err(format!(
                    "{at}: `{EXTRA_FIELD}` is taken by the unknown members"
                ));
            }
            fields.push(Field {
                wire,
                rust,
                ty,
                // `Option` without `skip_serializing_if`: written as `null` when absent.
                required: !optional || !serde.skip_serializing_if,
                nullable: optional && !serde.skip_serializing_if,
                boxed,
                doc: doc(&f.attrs),
            });
        }
        Ok(fields)
    }

    /// `ty` (a variant struct, or a `Vec` of one) written with its union's tag: `Tagged<_>`.
    fn tagged_member(
        &mut self,
        ty: Ty,
        at: &str,
        variant_tags: &BTreeMap<String, BTreeSet<(String, String)>>,
    ) -> Result<Ty, String> {
        match ty {
            Ty::Vec(inner) => Ok(Ty::Vec(Box::new(self.tagged_member(
                *inner,
                at,
                variant_tags,
            )?))),
            Ty::Named(payload) => {
                let tags: Vec<&(String, String)> =
                    variant_tags.get(&payload).into_iter().flatten().collect();
                if tags.len() != 1 {
                    return Err(format!(
                        "{at}: custom serde for {payload}, which is not the struct of one union variant"
                    ));
                }
                let (tag, value) = tags[0];
                self.tagged_members
                    .insert(payload.clone(), (tag.clone(), value.clone()));
                Ok(Ty::Named(format!("Tagged<{payload}>")))
            }
            _ => Err(format!("{at}: custom serde for an unsupported type")),
        }
    }

    fn map_enum(
        &mut self,
        e: &syn::ItemEnum,
        file: &str,
        items: &mut Vec<Item>,
    ) -> Result<(), String> {
        let name = e.ident.to_string();
        let at = format!("{file}: {name}");
        let serde = serde_attrs(&e.attrs, &at)?;
        let doc_text = doc(&e.attrs);
        if let Some(tag) = serde.tag {
            let mut variants = Vec::new();
            let mut own_structs = Vec::new();
            for v in &e.variants {
                let vat = format!("{at}::{}", v.ident);
                let vs = serde_attrs(&v.attrs, &vat)?;
                if vs.untagged {
                    continue; // the definition's `Unknown`: every union gets one
                }
                let wire = vs.rename.unwrap_or_else(|| v.ident.to_string());
                let rust = v.ident.to_string();
                let (payload, boxed) = match &v.fields {
                    Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                        match field_type(&f.unnamed[0].ty, &vat)? {
                            (Ty::Named(payload), false, boxed) => (payload, boxed),
                            _ => return Err(format!("{vat}: the payload must be a struct")),
                        }
                    }
                    Fields::Named(named) => {
                        let payload = format!("{name}{rust}");
                        let fields = self.map_fields(named, None, &vat, &BTreeMap::new(), &[])?;
                        own_structs.push(Item::Struct {
                            name: payload.clone(),
                            doc: doc(&v.attrs),
                            fields,
                        });
                        (payload, false)
                    }
                    Fields::Unit => {
                        let payload = format!("{name}{rust}");
                        own_structs.push(Item::Struct {
                            name: payload.clone(),
                            doc: doc(&v.attrs),
                            fields: Vec::new(),
                        });
                        (payload, false)
                    }
                    Fields::Unnamed(_) => return Err(format!("{vat}: unsupported variant")),
                };
                variants.push(Variant {
                    wire,
                    rust,
                    payload,
                    boxed,
                });
            }
            for s in &own_structs {
                if self.order.iter().any(|(n, _)| n == s.name()) {
                    return Err(format!("{at}: {} is defined already", s.name()));
                }
            }
            items.push(Item::Tagged {
                name,
                doc: doc_text,
                tag,
                variants,
            });
            items.extend(own_structs);
        } else if serde.untagged {
            let mut variants = Vec::new();
            for v in &e.variants {
                let vat = format!("{at}::{}", v.ident);
                let Fields::Unnamed(f) = &v.fields else {
                    return Err(format!("{vat}: an untagged variant must wrap one type"));
                };
                let (ty, optional, boxed) = field_type(&f.unnamed[0].ty, &vat)?;
                if optional {
                    return Err(format!("{vat}: unsupported Option"));
                }
                variants.push(UntaggedVariant {
                    rust: v.ident.to_string(),
                    ty,
                    boxed,
                });
            }
            items.push(Item::Untagged {
                name,
                doc: doc_text,
                variants,
            });
        } else {
            let unit = e
                .variants
                .iter()
                .filter(|v| matches!(v.fields, Fields::Unit));
            let open = e.variants.iter().any(|v| !matches!(v.fields, Fields::Unit));
            let values: Vec<String> = if open {
                // Open upstream: values from the hand-written `Serialize`.
                let imp = self
                    .serialize_impls
                    .get(&name)
                    .ok_or_else(|| format!("{at}: an open enum without a Serialize impl"))?;
                let values = serialized_values(imp);
                if values.len() != unit.count() {
                    return Err(format!(
                        "{at}: not every variant's value found in Serialize"
                    ));
                }
                values.into_iter().map(|(_, wire)| wire).collect()
            } else {
                unit.map(|v| {
                    serde_attrs(&v.attrs, &at)
                        .map(|s| s.rename.unwrap_or_else(|| v.ident.to_string()))
                })
                .collect::<Result<_, _>>()?
            };
            items.push(Item::StrEnum {
                name,
                doc: doc_text,
                values,
            });
        }
        Ok(())
    }
}
