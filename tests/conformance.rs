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
    common::assert_fixtures_pass("conformance", &fixtures, run_fixture);
}
