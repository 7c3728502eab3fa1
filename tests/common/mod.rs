//! Shared helpers for the native integration tests.
#![allow(dead_code)]

use ahp_wasm::protocol::{
    ChangesetState, ResourceWatchState, RootState, SessionState, TerminalState,
};
use ahp_wasm::reduce::{self, Clock};
use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// Decodes `initial` as `S` and each of `actions` as `A`, runs them through `reducer`, and
/// returns the encoded state; `Err` names what failed to decode.
pub fn run_typed<S: DeserializeOwned + Serialize, A: DeserializeOwned, O>(
    initial: &Value,
    actions: &[Value],
    reducer: impl Fn(&mut S, &A) -> O,
) -> Result<Value, String> {
    let mut state: S =
        serde_json::from_value(initial.clone()).map_err(|e| format!("initial state: {e}"))?;
    for (i, action) in actions.iter().enumerate() {
        let action: A =
            serde_json::from_value(action.clone()).map_err(|e| format!("action {i}: {e}"))?;
        reducer(&mut state, &action);
    }
    serde_json::to_value(&state).map_err(|e| format!("encode: {e}"))
}

/// Runs every fixture through `run` and asserts each ends at its `expected` state (nulls
/// dropped, numbers by value), listing every failure; `label` names the set in the summary.
pub fn assert_fixtures_pass(
    label: &str,
    fixtures: &[(String, Value)],
    run: impl Fn(&Value) -> Result<Value, String>,
) {
    let mut failures = Vec::new();
    for (name, fixture) in fixtures {
        let expected = normalize(&fixture["expected"]);
        match run(fixture) {
            Ok(actual) => {
                if let Some(diff) = first_difference("state", &normalize(&actual), &expected) {
                    failures.push(format!("{name}: {diff}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    let passed = fixtures.len() - failures.len();
    println!("{label}: {passed}/{} fixtures passed", fixtures.len());
    assert!(
        failures.is_empty(),
        "{} fixtures failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs `actions` through the reducer a fixture names (`root`, `session`, `terminal`,
/// `changeset`, `resourceWatch`) from `initial`, and returns the encoded state.
pub fn run_reducer(
    kind: &str,
    initial: &Value,
    actions: &[Value],
    clock: &dyn Clock,
) -> Result<Value, String> {
    match kind {
        "root" => run_typed(initial, actions, |s: &mut RootState, a| {
            reduce::root_reducer(s, a, clock)
        }),
        "session" => run_typed(initial, actions, |s: &mut SessionState, a| {
            reduce::session_reducer(s, a, clock)
        }),
        "terminal" => run_typed(initial, actions, |s: &mut TerminalState, a| {
            reduce::terminal_reducer(s, a, clock)
        }),
        "changeset" => run_typed(initial, actions, |s: &mut ChangesetState, a| {
            reduce::changeset_reducer(s, a, clock)
        }),
        "resourceWatch" => run_typed(initial, actions, |s: &mut ResourceWatchState, a| {
            reduce::resource_watch_reducer(s, a, clock)
        }),
        other => Err(format!("unknown reducer {other:?}")),
    }
}

/// The vendored conformance fixtures, as (file name, parsed JSON), sorted by name.
pub fn fixtures() -> Vec<(String, Value)> {
    fixtures_in("protocol/ahp-0.3.0/conformance/reducers")
}

/// The fixtures of one vendored directory (relative to the crate), sorted by name.
pub fn fixtures_in(relative_dir: &str) -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative_dir);
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("dir entry").path();
            let text = std::fs::read_to_string(&path).expect("fixture text");
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, serde_json::from_str(&text).expect("fixture JSON"))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Null and absent are the same on the wire: drop every `null` member, recursively, and treat
/// numbers by value (`1000` equals `1000.0`).
pub fn normalize(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), normalize(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => value.clone(),
        },
        other => other.clone(),
    }
}

/// A readable first difference between two JSON values, with its path.
pub fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    None => return Some(format!("{path}.{k}: present in actual only ({v})")),
                    Some(w) => {
                        if let Some(d) = first_difference(&format!("{path}.{k}"), v, w) {
                            return Some(d);
                        }
                    }
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{path}.{k}: missing in actual (expected {})", y[k]))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| first_difference(&format!("{path}[{i}]"), v, w)),
        _ if a == b => None,
        _ => Some(format!("{path}: actual {a} != expected {b}")),
    }
}
