//! Writes `js/protocol.js`, the protocol's named values under the names the official TypeScript
//! definitions give them (`ActionType.SessionDelta`, `SessionStatus.InputNeeded`,
//! `AhpErrorCodes.SessionNotFound`, ...) and `isClientDispatchable`, with their declarations in
//! the `protocol names` section of `js/index.d.ts`.
//!
//! Sources, each fact once: `protocol/ahp-0.3.0-overlay.json` (`constants`: named values;
//! `enums`: string enums whose members are named after their values, `'result-denied'` ->
//! `ResultDenied`; `clientDispatchable`) and `src/protocol/errors.rs` (the error codes and
//! their names). `tests/official_names.rs` checks every name and value against the official
//! Rust types.

#[allow(dead_code)]
#[path = "../../src/protocol/errors.rs"]
mod errors;

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Actions whose TypeScript type is a union of two interfaces (`src/protocol/manual.rs`): the
/// `type` goes on both.
const SPLIT_ACTIONS: [(&str, [&str; 2]); 1] = [(
    "SessionToolCallConfirmed",
    ["SessionToolCallApproved", "SessionToolCallDenied"],
)];

/// The generated module.
pub const OUTPUT: &str = "js/protocol.js";

/// One named value.
pub(crate) enum Literal {
    Str(String),
    Num(i64),
}

impl Literal {
    pub(crate) fn js(&self) -> String {
        match self {
            Literal::Str(s) => format!("'{s}'"),
            Literal::Num(n) => n.to_string(),
        }
    }
}

/// Named groups of values (`ActionType` -> `SessionDelta: 'session/delta'`, ...), by name.
pub(crate) type Groups = BTreeMap<String, Vec<(String, Literal)>>;

/// `'result-denied'` -> `ResultDenied`, `'mcpServer'` -> `McpServer`.
pub(crate) fn member_name(value: &str) -> String {
    value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn groups(overlay: &Value) -> Result<(Groups, Vec<String>), String> {
    let section = |key: &str| {
        overlay
            .get(key)
            .ok_or_else(|| format!("protocol/ahp-0.3.0-overlay.json: missing `{key}`"))
    };
    let mut groups = Groups::new();
    for (key, value) in section("constants")?.as_object().into_iter().flatten() {
        let (group, member) = key
            .split_once('.')
            .ok_or_else(|| format!("constant `{key}`: expected `Group.Member`"))?;
        let literal = match value {
            Value::String(s) => Literal::Str(s.clone()),
            Value::Number(n) => Literal::Num(n.as_i64().ok_or(format!("constant `{key}`"))?),
            _ => return Err(format!("constant `{key}`: expected a string or an integer")),
        };
        let members = groups.entry(group.to_string()).or_default();
        members.push((member.to_string(), literal));
    }
    for (group, values) in section("enums")?.as_object().into_iter().flatten() {
        let members = groups.entry(group.clone()).or_default();
        for value in values.as_array().into_iter().flatten() {
            let value = value
                .as_str()
                .ok_or_else(|| format!("enum `{group}`: expected strings"))?;
            let known = members
                .iter()
                .any(|(_, v)| matches!(v, Literal::Str(s) if s == value));
            if !known {
                members.push((member_name(value), Literal::Str(value.to_string())));
            }
        }
    }
    let mut codes = |name: &str, list: &[i64]| -> Result<(), String> {
        let members = list
            .iter()
            .map(|&code| {
                let member =
                    errors::error_code_name(code).ok_or(format!("code {code}: no name"))?;
                Ok((member.to_string(), Literal::Num(code)))
            })
            .collect::<Result<_, String>>()?;
        groups.insert(name.to_string(), members);
        Ok(())
    };
    codes("JsonRpcErrorCodes", &errors::JSON_RPC_ERROR_CODES)?;
    codes("AhpErrorCodes", &errors::AHP_ERROR_CODES)?;

    let action_types: Vec<&str> = groups
        .get("ActionType")
        .into_iter()
        .flatten()
        .filter_map(|(_, v)| match v {
            Literal::Str(s) => Some(s.as_str()),
            Literal::Num(_) => None,
        })
        .collect();
    let mut dispatchable = Vec::new();
    for value in section("clientDispatchable")?
        .as_array()
        .into_iter()
        .flatten()
    {
        let value = value
            .as_str()
            .ok_or("clientDispatchable: expected strings")?;
        if !action_types.contains(&value) {
            return Err(format!(
                "clientDispatchable: `{value}` is not an ActionType"
            ));
        }
        dispatchable.push(value.to_string());
    }
    Ok((groups, dispatchable))
}

/// `js/protocol.js`.
fn module(groups: &Groups, dispatchable: &[String]) -> String {
    let mut out = String::from(
        "// @generated by `cargo run -p xtask -- codegen` from protocol/ahp-0.3.0-overlay.json and\n\
         // src/protocol/errors.rs. Do not edit by hand.\n\
         //\n\
         // The protocol's named values, under the names of the official TypeScript definitions\n\
         // (frozen objects, where the official client has `enum`s).\n",
    );
    for (group, members) in groups {
        let _ = writeln!(out, "\nexport const {group} = Object.freeze({{");
        for (member, value) in members {
            let _ = writeln!(out, "  {member}: {},", value.js());
        }
        out.push_str("});\n");
    }
    out.push_str(&dispatchable_js(dispatchable));
    out
}

/// `CLIENT_DISPATCHABLE` and `isClientDispatchable` of a `protocol.js` (both versions').
pub fn dispatchable_js(dispatchable: &[String]) -> String {
    let mut out = String::from("\nconst CLIENT_DISPATCHABLE = new Set([\n");
    for value in dispatchable {
        let _ = writeln!(out, "  '{value}',");
    }
    out.push_str(
        "]);\n\n\
         /**\n \
         * Whether clients may dispatch this action (or action type) at all. The host may still\n \
         * refuse it: some are only for the client that owns the tool call or the active role.\n \
         */\n\
         export function isClientDispatchable(action) {\n  \
         return CLIENT_DISPATCHABLE.has(typeof action === 'string' ? action : action?.type);\n\
         }\n",
    );
    out
}

/// The declarations of the client-dispatchable action types and `isClientDispatchable` (both
/// versions'; `StateAction` is the version's union).
pub fn dispatchable_dts(dispatchable: &[String]) -> String {
    let mut out = String::from(
        "/** The action types clients may dispatch. */\nexport type ClientDispatchableActionType =\n",
    );
    for value in dispatchable {
        let _ = writeln!(out, "  | '{value}'");
    }
    out.push_str(
        "  ;\n\
         /** The actions clients may dispatch. */\n\
         export type ClientDispatchableAction = Extract<StateAction, { type: ClientDispatchableActionType }>;\n\
         /** Whether clients may dispatch this action (or action type) at all. */\n\
         export declare function isClientDispatchable(action: StateAction | string): boolean;\n",
    );
    out
}

/// The `protocol names` section of `js/index.d.ts`.
pub fn declarations(root: &Path) -> Result<String, String> {
    let (groups, dispatchable) = load(root)?;
    let mut out = String::new();
    for (group, members) in &groups {
        let _ = writeln!(out, "export declare const {group}: {{");
        for (member, value) in members {
            let _ = writeln!(out, "  readonly {member}: {};", value.js());
        }
        out.push_str("};\n");
        // A bit set (SessionStatus) or a code: any number; otherwise the union of the values.
        if members.iter().any(|(_, v)| matches!(v, Literal::Num(_))) {
            let _ = writeln!(out, "export type {group} = number;");
        } else {
            let _ = writeln!(
                out,
                "export type {group} = (typeof {group})[keyof typeof {group}];"
            );
        }
    }
    // Each action interface carries its `type` (the wire types leave it to the union).
    out.push_str("declare module './ahp_wasm.js' {\n");
    for (member, value) in groups.get("ActionType").into_iter().flatten() {
        let halves = SPLIT_ACTIONS.iter().find(|(action, _)| action == member);
        for name in halves.map_or(vec![member.as_str()], |(_, halves)| halves.to_vec()) {
            let _ = writeln!(out, "  interface {name}Action {{ type: {}; }}", value.js());
        }
    }
    out.push_str("}\n");
    out.push_str(&dispatchable_dts(&dispatchable));
    Ok(out)
}

fn load(root: &Path) -> Result<(Groups, Vec<String>), String> {
    let path = root.join("protocol/ahp-0.3.0-overlay.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let overlay: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    groups(&overlay)
}

/// Writes (or with `check`, compares) `js/protocol.js`; `Err` names a stale file.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let (groups, dispatchable) = load(root)?;
    let text = module(&groups, &dispatchable);
    let path = root.join(OUTPUT);
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current == text {
        return Ok(());
    }
    if check {
        return Err(format!(
            "{OUTPUT} out of date; run `cargo run -p xtask -- codegen`"
        ));
    }
    std::fs::write(&path, text).map_err(|e| format!("writing {OUTPUT}: {e}"))?;
    println!("wrote {OUTPUT}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::member_name;

    #[test]
    fn member_names_follow_the_official_style() {
        assert_eq!(member_name("result-denied"), "ResultDenied");
        assert_eq!(member_name("mcpServer"), "McpServer");
        assert_eq!(member_name("utf-8"), "Utf8");
        assert_eq!(member_name("complete"), "Complete");
    }
}
