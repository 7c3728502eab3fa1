//! Writes the generated sections of the hand-written JavaScript package files from the crate's
//! tables, and checks what it cannot write.
//!
//! - `js/index.d.ts`: the `AhpClient` command methods and the types they name, from the command
//!   table (`src/protocol/command_table.rs`), and `NotificationMap`, from the table of protocol
//!   notifications (`src/protocol/methods.rs`);
//! - `js/v1/generated.d.ts`, a whole generated file: the same for AHP 1.0 (the default entry),
//!   from the 1.0 command table (`src/protocol/v1/command_table.rs`; 1.0's notifications carry
//!   the same params types), with 1.0's named values ([`crate::names_v1`]); the hand-written
//!   `js/v1/index.d.ts` re-exports it;
//! - `js/error-classes.js` (the package's error class exports) and `js/errors.js`: the lists
//!   of error classes,
//!   from the error class table (`src/client/error_classes.rs`); and the classes that
//!   `js/errors.js` defines and `js/common.d.ts` declares must be exactly the table's, with its
//!   `kind` and `code` values;
//! - `js/render.js`: the copiers of the objects a streamed delta copies, from the schema
//!   ([`crate::copiers`]).
//!
//! A section is the lines between `// <generated: NAME> ...` and `// </generated: NAME>`.
//! Both tables are compiled into this crate from the SDK's sources (they depend on nothing), so
//! the xtask builds even when the SDK does not.

// The tables' macros and fields serve the SDK; the xtask reads the consts.
#[allow(dead_code, unused_imports, unused_macros)]
#[path = "../../src/protocol/command_table.rs"]
mod command_table;
#[allow(dead_code)]
#[path = "../../src/client/error_classes.rs"]
mod error_classes;

// AHP 1.0's table, compiled on its own as the 0.3.0 one and expanded by the same `COMMANDS`
// consumer: the command methods of the 1.0 entry's declarations (`js/v1/generated.d.ts`).
#[allow(dead_code, unused_macros)]
#[path = "../../src/protocol/v1/command_table.rs"]
mod command_table_v1;
#[allow(dead_code)]
mod commands_v1 {
    use super::command_table::{command_call, command_infos, CommandCall, CommandInfo};
    super::command_table_v1::for_each_command_v1!(command_infos);
}

// The xtask reads the tables only: 0.3.0's and 1.0's protocol notifications (the 1.0 file
// names `NotificationInfo` by the SDK's path, which `crate::protocol` in main.rs mirrors).
#[allow(dead_code)]
#[path = "../../src/protocol/methods.rs"]
pub(crate) mod methods;
#[allow(dead_code)]
#[path = "../../src/protocol/v1/methods.rs"]
mod methods_v1;

use command_table::{CommandCall, CommandInfo, COMMANDS};
use error_classes::{ErrorClass, ERROR_CLASSES};
use methods::{NotificationInfo, PROTOCOL_NOTIFICATIONS};
use std::fmt::Write as _;
use std::path::Path;

/// A generated section of a file: its name and its lines.
type Section = (&'static str, String);

/// The files with generated sections, and the sections.
fn files(root: &Path) -> Result<Vec<(&'static str, Vec<Section>)>, String> {
    Ok(vec![
        (
            "js/index.d.ts",
            vec![
                (
                    "command types",
                    command_types(COMMANDS, PROTOCOL_NOTIFICATIONS, "./ahp_wasm.js", ""),
                ),
                ("command methods", command_methods(COMMANDS)?),
                ("protocol names", crate::names::declarations(root)?),
            ],
        ),
        ("js/errors.js", vec![("error classes", errors_js_lists())]),
        (
            "js/render.js",
            vec![("copiers", crate::copiers::section(root)?)],
        ),
        (
            "js/error-classes.js",
            vec![("error classes", exported_error_classes())],
        ),
    ])
}

/// Rewrites (or with `check`, compares) every generated section, then checks the error classes.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let mut stale = Vec::new();
    for (path, sections) in files(root)? {
        let current =
            std::fs::read_to_string(root.join(path)).map_err(|e| format!("reading {path}: {e}"))?;
        let mut text = current.clone();
        for (name, body) in &sections {
            text = replace_section(&text, name, body).map_err(|e| format!("{path}: {e}"))?;
        }
        if text == current {
            continue;
        }
        if check {
            stale.push(path);
        } else {
            std::fs::write(root.join(path), &text).map_err(|e| format!("writing {path}: {e}"))?;
            println!("wrote {path}");
        }
    }
    if !stale.is_empty() {
        return Err(format!(
            "{} out of date; run `cargo run -p xtask -- codegen`",
            stale.join(", ")
        ));
    }
    crate::codegen::write_or_check(root, V1_DECLARATIONS, &v1_declarations(root)?, check)?;
    let read = |path: &str| {
        std::fs::read_to_string(root.join(path)).map_err(|e| format!("reading {path}: {e}"))
    };
    check_error_classes("js/errors.js", &read("js/errors.js")?, Style::Js)?;
    check_error_classes("js/common.d.ts", &read("js/common.d.ts")?, Style::Dts)?;
    if check {
        println!("js/index.d.ts, js/errors.js, js/error-classes.js, js/render.js are up to date");
    }
    Ok(())
}

/// Replaces the lines between the markers of section `name` with `body`.
fn replace_section(text: &str, name: &str, body: &str) -> Result<String, String> {
    let begin = format!("// <generated: {name}>");
    let end = format!("// </generated: {name}>");
    let marker = |line: &str, marker: &str| line.trim_start().starts_with(marker);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let start = lines
        .iter()
        .position(|l| marker(l, &begin))
        .ok_or_else(|| format!("no `{begin}` line"))?;
    let stop = start
        + lines[start..]
            .iter()
            .position(|l| marker(l, &end))
            .ok_or_else(|| format!("no `{end}` line after `{begin}`"))?;
    if lines[stop + 1..].iter().any(|l| marker(l, &begin)) {
        return Err(format!("`{begin}` more than once"));
    }
    Ok([&lines[..=start].concat(), body, &lines[stop..].concat()].concat())
}

/// The generated declarations of the default entry (AHP 1.0).
const V1_DECLARATIONS: &str = "js/v1/generated.d.ts";

/// `js/v1/generated.d.ts`: the reducers' declarations re-exported (so that the names declared
/// here, `ActionType` and the other named values, take precedence over the wire types' of the
/// same name), 1.0's named values, the command types and the `AhpClient` command methods
/// (`AhpClientCommands`, which `js/v1/index.d.ts` makes part of `AhpClient`).
fn v1_declarations(root: &Path) -> Result<String, String> {
    let mut out = String::from(
        "// @generated by `cargo run -p xtask -- codegen` from the AHP 1.0.0 definition and\n\
         // src/protocol/v1/command_table.rs. Do not edit by hand.\n\
         //\n\
         // The generated declarations of the default entry `ahp-wasm` (AHP 1.0), re-exported by\n\
         // js/v1/index.d.ts: the named values (js/v1/protocol.js; they work before `init()`), the\n\
         // command types and the command methods of `AhpClient`.\n\n\
         export * from './reducers.js';\n\
         import type { RootParams } from '../common.js';\n\
         import type { StateAction } from './types.js';\n\n",
    );
    out.push_str(&crate::names_v1::declarations_v1(root)?);
    out.push('\n');
    out.push_str(&command_types(
        commands_v1::COMMANDS,
        methods_v1::PROTOCOL_NOTIFICATIONS,
        "./types.js",
        PING_PARAMS_V1,
    ));
    out.push_str(
        "\n/** The command methods of `AhpClient`, one per command of the 1.0 table. */\n\
         export interface AhpClientCommands {\n",
    );
    out.push_str(&command_methods(commands_v1::COMMANDS)?);
    out.push_str("}\n");
    Ok(out)
}

/// The TypeScript of a command's params argument (`None`: the method takes none).
fn params_arg(command: &CommandInfo) -> Option<String> {
    let params = command.params;
    match command.call {
        CommandCall::Handshake | CommandCall::NoParams => None,
        CommandCall::Params => Some(format!("params: {params}")),
        CommandCall::RootParams => Some(format!("params: RootParams<{params}>")),
        CommandCall::OptionalRootParams => Some(format!("params?: RootParams<{params}>")),
    }
}

/// `ping`'s params in the 1.0 declarations: the 1.0 definition names no type for them (the
/// table takes 0.3.0's, the same `{channel}`), so the section declares it.
const PING_PARAMS_V1: &str =
    "/** `ping`'s params (the 1.0 definition names no type for them). */\n\
     export interface PingParams {\n  channel: string;\n}\n\n";

/// The commands of `table` that are `AhpClient` methods.
fn methods(table: &'static [CommandInfo]) -> impl Iterator<Item = &'static CommandInfo> {
    table.iter().filter(|c| c.call != CommandCall::Handshake)
}

/// `import type { ... } from module` of the types the command methods of `table` and the
/// `notifications` name (but those `local` declares), `local`, `CommandMap` and
/// `NotificationMap`.
fn command_types(
    table: &'static [CommandInfo],
    notifications: &[NotificationInfo],
    module: &str,
    local: &str,
) -> String {
    let mut names: Vec<&str> = Vec::new();
    for command in methods(table) {
        let params = Some(command.params);
        let result = Some(command.result).filter(|r| *r != "void");
        for name in [params, result].into_iter().flatten() {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    for params in notifications.iter().map(|n| n.params) {
        if !names.contains(&params) {
            names.push(params);
        }
    }
    let declared = |name: &str| local.contains(&format!("interface {name} "));
    let mut out = String::from("import type {\n");
    for name in names.into_iter().filter(|name| !declared(name)) {
        let _ = writeln!(out, "  {name},");
    }
    let _ = writeln!(out, "}} from '{module}';\n");
    out.push_str(local);
    out.push_str(
        "/** Each command's wire params and result by method name, for `request<M>()`. */\n\
         export interface CommandMap {\n",
    );
    for command in methods(table) {
        let result = match command.result {
            "void" => "unknown",
            result => result,
        };
        let _ = writeln!(
            out,
            "  {}: {{ params: {}; result: {result} }};",
            command.method, command.params
        );
    }
    out.push_str("}\n\n");
    out.push_str(
        "/**\n * The params of each protocol notification by method (`action` aside), for the\n \
         * `'notification'` `ClientEvent`.\n */\n\
         export interface NotificationMap {\n",
    );
    for notification in notifications {
        let _ = writeln!(out, "  '{}': {};", notification.method, notification.params);
    }
    out.push_str("}\n");
    out
}

/// The `AhpClient` command method declarations of `table`.
fn command_methods(table: &'static [CommandInfo]) -> Result<String, String> {
    let mut out = String::new();
    for command in methods(table) {
        if command.doc.contains("*/") {
            return Err(format!("the doc of `{}` contains `*/`", command.method));
        }
        let _ = writeln!(
            out,
            "  /** {} */\n  {}({}): Promise<{}>;",
            command.doc,
            command.method,
            params_arg(command).unwrap_or_default(),
            command.result,
        );
    }
    Ok(out)
}

/// `js/error-classes.js`: the package's exports, one per error class, from `errorClasses()`
/// (what `pkg/generated.js` re-exports from the bindings' snippet), so they work before
/// `init()`.
fn exported_error_classes() -> String {
    let mut out = String::from("export const {\n");
    for class in ERROR_CLASSES {
        let _ = writeln!(out, "  {},", class.name);
    }
    out.push_str("} = errorClasses();\n");
    out
}

/// `js/errors.js`: the class of each client error kind, and every class by name.
fn errors_js_lists() -> String {
    let mut out = String::from("const CLIENT_ERRORS = {\n");
    for class in ERROR_CLASSES.iter().filter(|c| c.client) {
        let _ = writeln!(out, "  {}: {},", class.kind, class.name);
    }
    out.push_str("};\n\nexport function errorClasses() {\n  return {\n");
    for class in ERROR_CLASSES {
        let _ = writeln!(out, "    {},", class.name);
    }
    out.push_str("  };\n}\n");
    out
}

/// How a file writes a class's `kind` and `code`.
#[derive(Clone, Copy)]
enum Style {
    /// `js/errors.js`: `{ kind: 'rpc', code: -32602 }`, `this.name = 'RpcError'`.
    Js,
    /// `js/index.d.ts`: `readonly kind: 'rpc';`, `readonly code: -32602;`.
    Dts,
}

/// Checks that `text` defines exactly the table's error classes (a class whose name ends in
/// `Error` or that extends `AhpError`), each with its `kind` and fixed `code`.
fn check_error_classes(path: &str, text: &str, style: Style) -> Result<(), String> {
    let classes = class_blocks(text);
    let found: Vec<&str> = classes
        .iter()
        .filter(|(name, head, _)| name.ends_with("Error") || head.contains("extends AhpError"))
        .map(|(name, _, _)| *name)
        .collect();
    let expected: Vec<&str> = ERROR_CLASSES.iter().map(|c| c.name).collect();
    let missing: Vec<&str> = expected
        .iter()
        .filter(|n| !found.contains(n))
        .copied()
        .collect();
    let extra: Vec<&str> = found
        .iter()
        .filter(|n| !expected.contains(n))
        .copied()
        .collect();
    if !missing.is_empty() || !extra.is_empty() {
        return Err(format!(
            "{path}: the error classes differ from src/client/error_classes.rs \
             (missing: [{}], not in the table: [{}])",
            missing.join(", "),
            extra.join(", ")
        ));
    }
    for class in ERROR_CLASSES {
        let (_, _, body) = classes
            .iter()
            .find(|(name, _, _)| *name == class.name)
            .expect("found above");
        for wanted in expected_members(class, style) {
            if !body.contains(&wanted) {
                return Err(format!(
                    "{path}: class {} lacks `{wanted}` (src/client/error_classes.rs)",
                    class.name
                ));
            }
        }
    }
    Ok(())
}

/// What the body of `class` must contain in a file of `style`.
fn expected_members(class: &ErrorClass, style: Style) -> Vec<String> {
    let base = class.name == ERROR_CLASSES[0].name;
    let mut wanted = Vec::new();
    match style {
        Style::Js => {
            wanted.push(format!("this.name = '{}';", class.name));
            wanted.push(if base {
                format!("?? '{}'", class.kind)
            } else {
                format!("kind: '{}'", class.kind)
            });
            wanted.extend(class.code.map(|code| format!("code: {code}")));
        }
        Style::Dts => {
            if !base {
                wanted.push(format!("readonly kind: '{}';", class.kind));
            }
            wanted.extend(class.code.map(|code| format!("readonly code: {code};")));
        }
    }
    wanted
}

/// Every top-level `class` of a JavaScript or declaration file: its name, the rest of its
/// first line, and its body (up to the first `}` at the start of a line).
fn class_blocks(text: &str) -> Vec<(&str, &str, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(line_start) = find_class_line(rest) {
        let from = &rest[line_start..];
        let head_end = from.find('\n').unwrap_or(from.len());
        let head = &from[..head_end];
        let after_class = &head[head.find("class ").map_or(0, |i| i + "class ".len())..];
        let name_end = after_class
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(after_class.len());
        let end = from.find("\n}").map_or(from.len(), |i| i + 2);
        out.push((&after_class[..name_end], head, &from[..end]));
        rest = &from[end..];
    }
    out
}

/// The offset of the next line that starts a class (`export class`, `export declare class`).
fn find_class_line(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let words: Vec<&str> = line.split_whitespace().take(3).collect();
        if matches!(
            words.as_slice(),
            ["export", "class", ..] | ["export", "declare", "class"]
        ) {
            return Some(offset);
        }
        offset += line.len();
    }
    None
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

    #[test]
    fn replaces_only_between_the_markers() {
        let text = "a\n  // <generated: x> note\nold\n  // </generated: x>\nb\n";
        assert_eq!(
            replace_section(text, "x", "new\n").unwrap(),
            "a\n  // <generated: x> note\nnew\n  // </generated: x>\nb\n"
        );
        assert!(replace_section("a\n", "x", "").is_err());
        assert!(replace_section("// <generated: x>\n", "x", "").is_err());
    }

    #[test]
    fn the_checked_in_files_are_current() {
        let root = root();
        for (path, sections) in files(&root).unwrap() {
            let text = std::fs::read_to_string(root.join(path)).unwrap();
            let mut regenerated = text.clone();
            for (name, body) in &sections {
                regenerated = replace_section(&regenerated, name, body).unwrap();
            }
            assert!(regenerated == text, "{path} is stale: run the codegen");
        }
    }

    #[test]
    fn a_hand_edited_signature_is_stale() {
        let text = std::fs::read_to_string(root().join("js/index.d.ts")).unwrap();
        let edited = text.replace(
            "listSessions(params?: RootParams<ListSessionsParams>)",
            "listSessions(params: ListSessionsParams)",
        );
        assert_ne!(edited, text);
        let (_, sections) = files(&root()).unwrap().swap_remove(0);
        let mut regenerated = edited;
        for (name, body) in &sections {
            regenerated = replace_section(&regenerated, name, body).unwrap();
        }
        assert_eq!(regenerated, text);
    }

    #[test]
    fn the_v1_declarations_are_current_and_a_hand_edit_is_stale() {
        let root = root();
        let text = std::fs::read_to_string(root.join(V1_DECLARATIONS)).unwrap();
        let generated = v1_declarations(&root).unwrap();
        assert!(
            generated == text,
            "{V1_DECLARATIONS} is stale: run the codegen"
        );
        assert!(text.contains("createChat(params: CreateChatParams)"));
        assert!(text.contains("export declare function isClientDispatchable("));
        let edited = text.replace(
            "createChat(params: CreateChatParams)",
            "createChat(params: CreateSessionParams)",
        );
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("generated.d.ts");
        std::fs::write(&copy, &edited).unwrap();
        let check = crate::codegen::write_or_check(dir.path(), "generated.d.ts", &generated, true);
        assert!(check.unwrap_err().contains("out of date"));
    }

    #[test]
    fn error_classes_match_the_table() {
        let errors_js = std::fs::read_to_string(root().join("js/errors.js")).unwrap();
        let dts = std::fs::read_to_string(root().join("js/common.d.ts")).unwrap();
        check_error_classes("js/errors.js", &errors_js, Style::Js).unwrap();
        check_error_classes("js/common.d.ts", &dts, Style::Dts).unwrap();

        // A class added in one place only, or with another kind, fails.
        let extra = format!("{errors_js}\nexport class ExtraError extends AhpError {{\n}}\n");
        let e = check_error_classes("js/errors.js", &extra, Style::Js).unwrap_err();
        assert!(e.contains("not in the table: [ExtraError]"), "{e}");
        let without = dts.replace("class NotSubscribedError", "class NotSubscribed");
        let e = check_error_classes("js/common.d.ts", &without, Style::Dts).unwrap_err();
        assert!(e.contains("missing: [NotSubscribedError]"), "{e}");
        let kind = dts.replace("readonly kind: 'timeout';", "readonly kind: 'timedOut';");
        assert!(check_error_classes("js/common.d.ts", &kind, Style::Dts).is_err());
        let code = errors_js.replace("code: -32005", "code: -32000");
        assert!(check_error_classes("js/errors.js", &code, Style::Js).is_err());
    }
}
