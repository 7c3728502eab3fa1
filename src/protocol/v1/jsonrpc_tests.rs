//! The 1.0 command table against the official 1.0.0 sources (the crates `ahp-types` and `ahp`
//! 1.0.0, dev-dependencies, read from where cargo keeps them): every request method they
//! define is a row, with their params and result types.

use super::*;
use std::collections::BTreeSet;
use std::path::PathBuf;

#[test]
fn the_table_is_consistent() {
    crate::protocol::jsonrpc::tests::assert_consistent(COMMANDS, REQUEST_METHODS);
    assert_eq!(CreateChat::METHOD, "createChat");
    assert_eq!(
        REQUEST_METHODS.len(),
        31,
        "the 1.0 table: {REQUEST_METHODS:?}"
    );
}

/// What the official sources say about the request methods.
struct Official {
    /// Every request method.
    methods: BTreeSet<String>,
    /// The params and result types they name (`CreateChatParams`, `MoveChatResult`).
    params: BTreeSet<String>,
    results: BTreeSet<String>,
}

/// `createChat` -> `CreateChat`.
fn pascal(method: &str) -> String {
    method[..1].to_uppercase() + &method[1..]
}

/// The `src` directory of an official package, from `cargo metadata`.
fn package_source(name: &str, version: &str) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let manifest = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name && p["version"] == version)
        .and_then(|p| p["manifest_path"].as_str())
        .unwrap_or_else(|| panic!("no package {name} {version} in cargo metadata"));
    PathBuf::from(manifest).parent().unwrap().join("src")
}

/// The names `pub struct <Name><suffix>` / `pub enum <Name><suffix>` declare.
fn declared(source: &str, suffix: &str) -> BTreeSet<String> {
    source
        .lines()
        .filter_map(|line| {
            let rest = line
                .trim_start()
                .strip_prefix("pub struct ")
                .or_else(|| line.trim_start().strip_prefix("pub enum "))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (name.len() > suffix.len() && name.ends_with(suffix)).then_some(name)
        })
        .collect()
}

/// The string literal methods the official client passes to `.<call>(`.
fn called(source: &str, call: &str) -> BTreeSet<String> {
    let needle = format!(".{call}(");
    source
        .match_indices(&needle)
        .filter_map(|(at, _)| {
            let rest = source[at + needle.len()..].trim_start().strip_prefix('"')?;
            Some(rest[..rest.find('"')?].to_string())
        })
        .collect()
}

/// The request methods: the command params types of `ahp-types` (`<Method>Params`) and what
/// the official client sends as requests (`ping` has no params type), less what it sends as
/// notifications.
fn official() -> Official {
    let types = package_source("ahp-types", "1.0.0").join("commands.rs");
    let types = std::fs::read_to_string(&types).unwrap();
    let client = package_source("ahp", "1.0.0").join("client.rs");
    let client = std::fs::read_to_string(&client).unwrap();
    let params = declared(&types, "Params");
    let results = declared(&types, "Result");
    let notified = called(&client, "notify");
    let requested = called(&client, "request");
    // The reading finds what it must: else an empty set would pass below.
    assert!(notified.contains("dispatchAction") && notified.contains("unsubscribe"));
    assert!(requested.contains("ping") && requested.contains("resourceRead"));
    assert!(params.contains("CreateChatParams") && results.contains("MoveChatResult"));
    let mut methods: BTreeSet<String> = params
        .iter()
        .map(|p| {
            let name = p.trim_end_matches("Params");
            name[..1].to_lowercase() + &name[1..]
        })
        .collect();
    methods.extend(requested);
    methods.retain(|m| !notified.contains(m));
    Official {
        methods,
        params,
        results,
    }
}

/// Where a table differs from the official definition (empty: it does not).
fn gaps(table: &[CommandInfo], official: &Official) -> Vec<String> {
    let ours: BTreeSet<String> = table.iter().map(|c| c.method.to_string()).collect();
    let mut gaps: Vec<String> = official
        .methods
        .difference(&ours)
        .map(|m| format!("`{m}` is missing"))
        .chain(
            ours.difference(&official.methods)
                .map(|m| format!("`{m}` is not an official request method")),
        )
        .collect();
    for row in table {
        let pascal = pascal(row.method);
        let params = format!("{pascal}Params");
        if official.params.contains(&params) && row.params != params {
            gaps.push(format!(
                "`{}` takes {params}, not {}",
                row.method, row.params
            ));
        }
        let result = format!("{pascal}Result");
        let expected = match official.results.contains(&result) {
            true => result.as_str(),
            false => "void",
        };
        if row.result != expected {
            let (method, got) = (row.method, row.result);
            gaps.push(format!("`{method}` returns {expected}, not {got}"));
        }
    }
    gaps
}

#[test]
fn the_table_is_the_official_request_methods() {
    let official = official();
    assert_eq!(gaps(COMMANDS, &official), Vec::<String>::new());
    // The check catches a missing row, a wrong result and a method 1.0 does not have.
    let without: Vec<CommandInfo> = COMMANDS
        .iter()
        .filter(|c| c.method != "runAutomation")
        .copied()
        .collect();
    assert_eq!(gaps(&without, &official), ["`runAutomation` is missing"]);
    let mut changed = COMMANDS.to_vec();
    changed
        .iter_mut()
        .find(|c| c.method == "moveChat")
        .unwrap()
        .result = "void";
    assert_eq!(
        gaps(&changed, &official),
        ["`moveChat` returns MoveChatResult, not void"]
    );
    let mut invented = COMMANDS.to_vec();
    invented.push(CommandInfo {
        method: "createAutomation",
        ..COMMANDS[0]
    });
    invented.last_mut().unwrap().result = "void";
    assert_eq!(
        gaps(&invented, &official),
        ["`createAutomation` is not an official request method"]
    );
    let mut with_0_3 = COMMANDS.to_vec();
    with_0_3.extend(crate::protocol::jsonrpc::COMMANDS.iter().copied());
    assert!(
        gaps(&with_0_3, &official).is_empty(),
        "0.3.0's methods are all in 1.0"
    );
}
