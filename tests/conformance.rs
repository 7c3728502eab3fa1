//! The 163 official reducer conformance fixtures, run through the native reducers.
//! Rules (as for the official clients): the clock reads 9999; states compare with nulls removed.

mod common;

use ahp_wasm::reduce::FixedClock;
use serde_json::Value;

const FIXTURE_NOW: f64 = 9999.0;

fn run_fixture(fixture: &Value) -> Result<Value, String> {
    let clock = FixedClock(FIXTURE_NOW);
    let initial = &fixture["initial"];
    let actions = fixture["actions"]
        .as_array()
        .ok_or("fixture has no actions array")?;
    let kind = fixture["reducer"]
        .as_str()
        .ok_or("fixture names no reducer")?;
    common::run_reducer(kind, initial, actions, &clock)
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
