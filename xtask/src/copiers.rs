//! The `copiers` section of `js/render.js`: for the objects a streamed delta copies (the
//! session state or 1.0's chat state, the active turn, the part), a copier that names their members in schema
//! order, so the hot path copies them with property stores instead of spreading a frozen
//! object (see the comment above the section). Members and which are required come from the
//! same schema as the Rust types, so the copy's key order is the one the SDK renders.

use crate::codegen::Schema;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// The shapes with a copier (schema definitions). Parts are variants of a union tagged by
/// `kind`, which the Rust types write first: it must come first in the schema too.
const COPIED_SHAPES: [&str; 5] = [
    "SessionState",
    "ActiveTurn",
    "MarkdownResponsePart",
    "ReasoningResponsePart",
    "ToolCallResponsePart",
];

/// 1.0's shapes with a copier (the 1.0 definition's structs), named here: its parts have
/// 0.3.0's members, but its active turn (`startedAt`) and its chat state do not. The same
/// `js/render.js` serves both entries; each copy tries the shape it made last first.
const COPIED_SHAPES_V1: [(&str, &str); 2] =
    [("ChatState", "ChatState"), ("ActiveTurn", "ChatActiveTurn")];

/// The section's lines.
pub fn section(root: &Path) -> Result<String, String> {
    let schema = Schema::load(root)?;
    let mut out = String::new();
    let mut rendered: Vec<(&str, Vec<(String, bool)>)> = Vec::new();
    for name in COPIED_SHAPES {
        let def = schema
            .defs
            .get(name)
            .ok_or_else(|| format!("copiers: no definition {name}"))?;
        let members = members(&schema, name, def)?;
        if name.ends_with("ResponsePart") && members.first().map(|m| m.0.as_str()) != Some("kind") {
            return Err(format!("copiers: {name}: `kind` is not its first member"));
        }
        // A shape with the same members as one already written (reasoning and markdown
        // parts) shares its copier.
        if let Some((same, _)) = rendered.iter().find(|(_, m)| *m == members) {
            let _ = writeln!(out, "const {name} = {same};");
            let _ = writeln!(out, "const copy{name} = copy{same};");
            continue;
        }
        render(&mut out, name, &members);
        rendered.push((name, members));
    }
    let (items, _) = crate::codegen_v1::definition(root)?;
    for (definition, name) in COPIED_SHAPES_V1 {
        let fields = items
            .iter()
            .find_map(|item| match item {
                crate::model::Item::Struct { name, fields, .. } if name == definition => {
                    Some(fields)
                }
                _ => None,
            })
            .ok_or_else(|| format!("copiers: no 1.0 struct {definition}"))?;
        if fields.len() > 30 {
            return Err(format!(
                "copiers: 1.0 {definition} has more members than a 31-bit mask holds"
            ));
        }
        // Rendered members: the required ones always (a nullable one as `null`).
        let members: Vec<(String, bool)> = fields
            .iter()
            .map(|f| (f.wire.clone(), f.required))
            .collect();
        render(&mut out, name, &members);
    }
    Ok(out)
}

/// `(wire name, required)` in schema order.
fn members(schema: &Schema, name: &str, def: &Value) -> Result<Vec<(String, bool)>, String> {
    let Some(Value::Object(props)) = def.get("properties") else {
        return Err(format!("copiers: {name} has no properties"));
    };
    if props.len() > 30 {
        return Err(format!(
            "copiers: {name} has more members than a 31-bit mask holds"
        ));
    }
    let required: Vec<&str> = def
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    Ok(props
        .keys()
        .map(|wire| {
            let path = format!("{name}.{wire}");
            let is_required =
                required.contains(&wire.as_str()) && !schema.undefined_allowed.contains(&path);
            (wire.clone(), is_required)
        })
        .collect())
}

/// `o.name`, or `o['na-me']` when the name is not an identifier.
fn access(object: &str, wire: &str) -> String {
    let identifier = wire.chars().enumerate().all(|(i, c)| {
        c == '_' || c == '$' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())
    });
    if identifier && !wire.is_empty() {
        format!("{object}.{wire}")
    } else {
        format!("{object}['{wire}']")
    }
}

fn render(out: &mut String, name: &str, members: &[(String, bool)]) {
    let keys: Vec<String> = members.iter().map(|(w, _)| format!("'{w}'")).collect();
    let required: u32 = members
        .iter()
        .enumerate()
        .filter(|(_, (_, r))| *r)
        .map(|(i, _)| 1u32 << i)
        .sum();
    // The required members before the first optional one open the object literal.
    let leading = members.iter().take_while(|(_, r)| *r).count();
    let literal: Vec<String> = members[..leading]
        .iter()
        .map(|(w, _)| {
            let key = access("o", w);
            match key.strip_prefix("o.") {
                Some(plain) => format!("{plain}: {key}"),
                None => format!("'{w}': {key}"),
            }
        })
        .collect();
    let _ = writeln!(
        out,
        "const {name} = shape([{}], {required:#x});",
        keys.join(", ")
    );
    let _ = writeln!(out, "function copy{name}(o) {{");
    let _ = writeln!(out, "  const m = membersOf({name}, o);");
    let _ = writeln!(out, "  if (m < 0) return null;");
    let _ = writeln!(out, "  const c = {{ {} }};", literal.join(", "));
    for (i, (wire, is_required)) in members.iter().enumerate().skip(leading) {
        let store = format!("{} = {};", access("c", wire), access("o", wire));
        if *is_required {
            let _ = writeln!(out, "  {store}");
        } else {
            let _ = writeln!(out, "  if (m & {:#x}) {store}", 1u32 << i);
        }
    }
    let _ = writeln!(out, "  {name}.mask = m;");
    let _ = writeln!(out, "  return c;");
    let _ = writeln!(out, "}}");
}
