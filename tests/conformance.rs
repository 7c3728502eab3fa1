//! The 163 official reducer conformance fixtures, run through the native reducers.
//! Rules (as for the official clients): the clock reads 9999; states compare with nulls removed.

mod common;

use ahp_wasm::protocol::{
    ChangesetState, ResourceWatchState, RootState, SessionState, StateAction, TerminalState,
};
use ahp_wasm::reduce::{self, FixedClock};
use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;

const FIXTURE_NOW: f64 = 9999.0;

fn run_typed<S: DeserializeOwned + Serialize, F>(
    initial: &Value,
    actions: &[Value],
    reducer: impl Fn(&mut S, &StateAction) -> reduce::Outcome<F>,
) -> Result<Value, String> {
    let mut state: S =
        serde_json::from_value(initial.clone()).map_err(|e| format!("initial state: {e}"))?;
    for (i, action) in actions.iter().enumerate() {
        let action: StateAction =
            serde_json::from_value(action.clone()).map_err(|e| format!("action {i}: {e}"))?;
        reducer(&mut state, &action);
    }
    serde_json::to_value(&state).map_err(|e| format!("serialize: {e}"))
}

fn run_fixture(fixture: &Value) -> Result<Value, String> {
    let clock = FixedClock(FIXTURE_NOW);
    let initial = &fixture["initial"];
    let actions = fixture["actions"]
        .as_array()
        .ok_or("fixture has no actions array")?;
    match fixture["reducer"].as_str() {
        Some("root") => {
            run_typed::<RootState, _>(initial, actions, |s, a| reduce::root_reducer(s, a, &clock))
        }
        Some("session") => run_typed::<SessionState, _>(initial, actions, |s, a| {
            reduce::session_reducer(s, a, &clock)
        }),
        Some("terminal") => run_typed::<TerminalState, _>(initial, actions, |s, a| {
            reduce::terminal_reducer(s, a, &clock)
        }),
        Some("changeset") => run_typed::<ChangesetState, _>(initial, actions, |s, a| {
            reduce::changeset_reducer(s, a, &clock)
        }),
        Some("resourceWatch") => run_typed::<ResourceWatchState, _>(initial, actions, |s, a| {
            reduce::resource_watch_reducer(s, a, &clock)
        }),
        other => Err(format!("unknown reducer {other:?}")),
    }
}

#[test]
fn all_conformance_fixtures_pass() {
    let fixtures = common::fixtures();
    assert_eq!(fixtures.len(), 163, "expected the 163 official fixtures");
    let mut failures = Vec::new();
    for (name, fixture) in &fixtures {
        let expected = common::normalize(&fixture["expected"]);
        match run_fixture(fixture) {
            Ok(actual) => {
                let actual = common::normalize(&actual);
                if let Some(diff) = common::first_difference("state", &actual, &expected) {
                    failures.push(format!("{name}: {diff}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    let passed = fixtures.len() - failures.len();
    println!("conformance: {passed}/{} fixtures passed", fixtures.len());
    assert!(
        failures.is_empty(),
        "{} fixtures failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
