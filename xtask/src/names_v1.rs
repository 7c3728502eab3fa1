//! Writes `js/v1/protocol.js`, AHP 1.0's named values for the default entry (`ahp-wasm`, AHP
//! 1.0) under the official names (`ActionType.ChatTurnStarted`, `SessionStatus.InputNeeded`,
//! `AhpErrorCodes.Conflict`, ...) with `isClientDispatchable`, and their declarations (the
//! protocol names of `js/v1/generated.d.ts`, [`crate::bindings`]). The 0.3.0 entry's are
//! `js/protocol.js` ([`crate::names`]).
//!
//! Sources: the 1.0 model (`codegen_v1.rs`): one group per string enum, `ActionType` among
//! them (members named after their values as for 0.3.0: `'chat/turnStarted'` ->
//! `ChatTurnStarted`, but for the [`MEMBER_NAMES`] the definition names otherwise),
//! `SessionStatus` from its flags; and the error codes from
//! the definition's `errors.rs` (`json_rpc_error_codes`, `ahp_error_codes`); the actions clients
//! may dispatch, which the definition does not carry, from [`OVERLAY`] (each must be an
//! `ActionType` value). The tests check every name against the definition's own enums.

use crate::model::Item;
use crate::names::{member_name, Groups, Literal};
use std::fmt::Write as _;
use std::path::Path;

/// The generated module.
pub const OUTPUT: &str = "js/v1/protocol.js";

/// What the 1.0 definition does not carry: `clientDispatchable`, the action types clients may
/// dispatch (the official TypeScript definitions' `@clientDispatchable` tags).
const OVERLAY: &str = "protocol/ahp-1.0.0-overlay.json";

/// The error code groups: the definition's module and the name of the group.
const ERROR_MODULES: [(&str, &str); 2] = [
    ("json_rpc_error_codes", "JsonRpcErrorCodes"),
    ("ahp_error_codes", "AhpErrorCodes"),
];

/// Members the official definitions do not name after their values: (group, value, name).
const MEMBER_NAMES: [(&str, &str, &str); 1] = [("ToolCallContributorKind", "mcp", "MCP")];

/// The official name of `value` in string enum `group`.
fn enum_member(group: &str, value: &str) -> String {
    MEMBER_NAMES
        .iter()
        .find(|(g, v, _)| *g == group && *v == value)
        .map_or_else(|| member_name(value), |(_, _, name)| name.to_string())
}

/// `PARSE_ERROR` -> `ParseError`.
fn upper_camel(constant: &str) -> String {
    member_name(&constant.to_ascii_lowercase())
}

/// The error codes of the definition's `errors.rs`: `pub const NAME: i32 = -32001;` lines of
/// each module of [`ERROR_MODULES`].
fn error_codes(errors_rs: &str) -> Result<Groups, String> {
    let mut groups = Groups::new();
    for (module, group) in ERROR_MODULES {
        let start = errors_rs
            .find(&format!("pub mod {module} {{"))
            .ok_or_else(|| format!("errors.rs: no module `{module}`"))?;
        let body = &errors_rs[start..];
        let body = &body[..body.find("\n}").unwrap_or(body.len())];
        let mut members = Vec::new();
        for line in body.lines().map(str::trim) {
            let Some(rest) = line.strip_prefix("pub const ") else {
                continue;
            };
            let (name, value) = rest
                .split_once(": i32 = ")
                .ok_or_else(|| format!("errors.rs: `{line}`"))?;
            let value: i64 = value
                .trim_end_matches(';')
                .parse()
                .map_err(|e| format!("errors.rs: `{line}`: {e}"))?;
            members.push((upper_camel(name), Literal::Num(value)));
        }
        if members.is_empty() {
            return Err(format!("errors.rs: no codes in `{module}`"));
        }
        groups.insert(group.to_string(), members);
    }
    Ok(groups)
}

/// Every group of named values of the 1.0 definition.
fn groups(items: &[Item], errors_rs: &str) -> Result<Groups, String> {
    let mut groups = error_codes(errors_rs)?;
    for item in items {
        match item {
            Item::StrEnum { name, values, .. } => {
                let members = values
                    .iter()
                    .map(|v| (enum_member(name, v), Literal::Str(v.clone())))
                    .collect();
                groups.insert(name.clone(), members);
            }
            Item::Bitset { name, flags, .. } => {
                let members = flags
                    .iter()
                    .map(|(flag, value, _)| (flag.clone(), Literal::Num(i64::from(*value))))
                    .collect();
                groups.insert(name.clone(), members);
            }
            _ => {}
        }
    }
    if !groups.contains_key("ActionType") {
        return Err("the 1.0 definition has no ActionType".into());
    }
    Ok(groups)
}

/// The `clientDispatchable` list of [`OVERLAY`]: `ActionType` values, each once.
fn client_dispatchable(overlay: &str, groups: &Groups) -> Result<Vec<String>, String> {
    let overlay: serde_json::Value =
        serde_json::from_str(overlay).map_err(|e| format!("{OVERLAY}: {e}"))?;
    let list = overlay["clientDispatchable"]
        .as_array()
        .ok_or_else(|| format!("{OVERLAY}: no `clientDispatchable` list"))?;
    let action_types = &groups["ActionType"];
    let mut out: Vec<String> = Vec::new();
    for value in list {
        let value = value
            .as_str()
            .ok_or_else(|| format!("{OVERLAY}: clientDispatchable: expected strings"))?;
        if !action_types
            .iter()
            .any(|(_, v)| matches!(v, Literal::Str(s) if s == value))
        {
            return Err(format!(
                "{OVERLAY}: clientDispatchable: `{value}` is not a 1.0 ActionType"
            ));
        }
        if out.iter().any(|v| v == value) {
            return Err(format!("{OVERLAY}: clientDispatchable: `{value}` twice"));
        }
        out.push(value.to_string());
    }
    Ok(out)
}

/// `js/v1/protocol.js`.
fn module(groups: &Groups, dispatchable: &[String]) -> String {
    let mut out = String::from(
        "// @generated by `cargo run -p xtask -- codegen` from the AHP 1.0.0 definition (the\n\
         // official crate `ahp-types` 1.0.0), protocol/extensions and\n\
         // protocol/ahp-1.0.0-overlay.json. Do not edit by hand.\n\
         //\n\
         // AHP 1.0's named values for the default entry (`ahp-wasm`; scripts/build-pkg.sh copies\n\
         // this file to pkg/protocol.js), under the names of the official TypeScript\n\
         // definitions (frozen objects, where the official client has `enum`s).\n",
    );
    for (group, members) in groups {
        let _ = writeln!(out, "\nexport const {group} = Object.freeze({{");
        for (member, value) in members {
            let _ = writeln!(out, "  {member}: {},", value.js());
        }
        out.push_str("});\n");
    }
    out.push_str(&crate::names::dispatchable_js(dispatchable));
    out
}

/// The protocol names of `js/v1/generated.d.ts`: each group's value, and its type (the wire type
/// of the same name where there is one); the client-dispatchable action types.
fn declarations(groups: &Groups, items: &[Item], dispatchable: &[String]) -> String {
    let mut out = String::new();
    for (group, members) in groups {
        let _ = writeln!(out, "export declare const {group}: {{");
        for (member, value) in members {
            let _ = writeln!(out, "  readonly {member}: {};", value.js());
        }
        out.push_str("};\n");
        if items.iter().any(|item| item.name() == group) {
            let _ = writeln!(out, "export type {group} = import('./types.js').{group};");
        } else if members.iter().any(|(_, v)| matches!(v, Literal::Num(_))) {
            let _ = writeln!(out, "export type {group} = number;");
        } else {
            let _ = writeln!(
                out,
                "export type {group} = (typeof {group})[keyof typeof {group}];"
            );
        }
    }
    out.push_str(&crate::names::dispatchable_dts(dispatchable));
    out
}

/// The named values, the wire types and the client-dispatchable action types.
type Loaded = (Groups, Vec<Item>, Vec<String>);

fn load(root: &Path) -> Result<Loaded, String> {
    let (items, _) = crate::codegen_v1::definition(root)?;
    let path = crate::codegen_v1::definition_source(root)?.join("errors.rs");
    let errors_rs =
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let groups = groups(&items, &errors_rs)?;
    let overlay = std::fs::read_to_string(root.join(OVERLAY))
        .map_err(|e| format!("reading {OVERLAY}: {e}"))?;
    let dispatchable = client_dispatchable(&overlay, &groups)?;
    Ok((groups, items, dispatchable))
}

/// The protocol names of `js/v1/generated.d.ts`.
pub fn declarations_v1(root: &Path) -> Result<String, String> {
    let (groups, items, dispatchable) = load(root)?;
    Ok(declarations(&groups, &items, &dispatchable))
}

/// Writes (or with `check`, compares) `js/v1/protocol.js`.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let (groups, _, dispatchable) = load(root)?;
    crate::codegen::write_or_check(root, OUTPUT, &module(&groups, &dispatchable), check)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf()
    }

    /// The variant names of `pub enum NAME { ... }` in `source` (attributes, comments and
    /// tuple variants' payloads left out).
    fn enum_variants(source: &str, name: &str) -> Option<Vec<String>> {
        let file = syn::parse_file(source).ok()?;
        file.items.iter().find_map(|item| match item {
            syn::Item::Enum(e) if e.ident == name => {
                Some(e.variants.iter().map(|v| v.ident.to_string()).collect())
            }
            _ => None,
        })
    }

    #[test]
    fn names_are_the_definitions() {
        let root = root();
        let (groups, _, _) = load(&root).unwrap();
        let source = crate::codegen_v1::definition_source(&root).unwrap();
        let read = |file: &str| std::fs::read_to_string(source.join(file)).unwrap();
        let (actions, state) = (read("actions.rs"), read("state.rs"));

        // ActionType: the official enum's members (its `Unknown` aside), in its order.
        let mut official = enum_variants(&actions, "ActionType").unwrap();
        official.retain(|v| v != "Unknown");
        let ours: Vec<&str> = groups["ActionType"]
            .iter()
            .map(|(m, _)| m.as_str())
            .collect();
        assert_eq!(ours, official);
        assert!(ours.len() > 100, "{}", ours.len());

        // Every string enum the definition declares: its members (the open ones' `Unknown`
        // aside), in its order.
        let mut compared = 0;
        let mut mismatches = Vec::new();
        for (group, members) in &groups {
            let Some(official) = enum_variants(&state, group) else {
                continue;
            };
            let official: Vec<&str> = official
                .iter()
                .map(String::as_str)
                .filter(|v| *v != "Unknown")
                .collect();
            let ours: Vec<&str> = members.iter().map(|(m, _)| m.as_str()).collect();
            if ours != official {
                mismatches.push(format!("{group}: {ours:?} vs {official:?}"));
            }
            compared += 1;
        }
        assert!(mismatches.is_empty(), "{mismatches:#?}");
        assert!(compared > 30, "{compared}");

        // The codes, and the bits of SessionStatus.
        let codes = &groups["AhpErrorCodes"];
        assert!(codes
            .iter()
            .any(|(m, v)| m == "Conflict" && matches!(v, Literal::Num(-32011))));
        let status = &groups["SessionStatus"];
        assert!(status
            .iter()
            .any(|(m, v)| m == "InputNeeded" && matches!(v, Literal::Num(24))));
    }

    #[test]
    fn client_dispatchable_list() {
        let (groups, _, dispatchable) = load(&root()).unwrap();
        // The overlay's list: 1.0.0's action types (the vendored list of all 106), each once.
        let all = std::fs::read_to_string(root().join("protocol/ahp-1.0.0/action-types-1.0.0.txt"))
            .unwrap();
        let all: Vec<&str> = all.lines().collect();
        assert_eq!(all.len(), 106);
        for value in &dispatchable {
            assert!(all.contains(&value.as_str()), "{value}");
        }
        assert!(dispatchable.iter().any(|v| v == "chat/turnStarted"));
        assert!(!dispatchable.iter().any(|v| v == "chat/delta"));
        // A value that is no ActionType, or one listed twice, is refused.
        let bad = r#"{"clientDispatchable": ["chat/turnStarted", "session/turnStarted"]}"#;
        assert!(client_dispatchable(bad, &groups)
            .unwrap_err()
            .contains("session/turnStarted"));
        let twice = r#"{"clientDispatchable": ["chat/delta", "chat/delta"]}"#;
        assert!(client_dispatchable(twice, &groups).is_err());
    }

    #[test]
    fn error_code_names() {
        assert_eq!(upper_camel("PARSE_ERROR"), "ParseError");
        let text = "pub mod json_rpc_error_codes {\n    pub const PARSE_ERROR: i32 = -32700;\n}\n\
                    pub mod ahp_error_codes {\n    pub const CONFLICT: i32 = -32011;\n}\n";
        let groups = error_codes(text).unwrap();
        assert_eq!(groups["AhpErrorCodes"][0].0, "Conflict");
        assert!(error_codes("pub mod json_rpc_error_codes {\n}\n").is_err());
    }
}
