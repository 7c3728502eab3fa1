//! Shared pieces of the differential tests against the official reducers (`ahp` 0.3.0 from
//! crates.io over `ahp-types` 0.3.0, a test oracle only): the case count, small string
//! strategies, parsing into both type worlds, and a driver that runs one action sequence
//! through our reducer and the reference one, comparing the states after every action.
#![allow(dead_code)]

use crate::common;
use ahp_types::actions::StateAction as RefAction;
use ahp_wasm::protocol::StateAction;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::TestCaseError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

/// The default number of cases per property; `AHP_PROPTEST_CASES=n` runs more.
pub fn cases() -> u32 {
    std::env::var("AHP_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// Short text: mostly lowercase, sometimes control characters or multi-byte characters.
pub fn text() -> BoxedStrategy<String> {
    prop_oneof![4 => "[a-z]{0,3}", 1 => "[\\x00-\\x7f]{0,3}", 1 => "[é√𝄞]{1,2}"].boxed()
}

/// One string of a small pool: pools are what make ids collide.
pub fn pick(pool: &'static [&'static str]) -> BoxedStrategy<String> {
    select(pool).prop_map(str::to_owned).boxed()
}

/// `base` with the members of `extra` added (both objects).
pub fn with(mut base: Value, extra: Value) -> Value {
    if let (Value::Object(b), Value::Object(e)) = (&mut base, extra) {
        b.extend(e);
    }
    base
}

/// Actions no reducer of `channel` handles: unknown types of that channel and of a newer one,
/// and one well-formed action of every other channel.
pub fn foreign(channel: &'static str) -> BoxedStrategy<Value> {
    let others: Vec<Value> = [
        json!({"type": "root/activeSessionsChanged", "activeSessions": 7}),
        json!({"type": "session/titleChanged", "title": "foreign"}),
        json!({"type": "terminal/cleared"}),
        json!({"type": "changeset/cleared"}),
        json!({"type": "resourceWatch/changed", "changes": {"items": []}}),
    ]
    .into_iter()
    .filter(|a| !a["type"].as_str().unwrap_or("").starts_with(channel))
    .collect();
    prop_oneof![
        Just(json!({"type": format!("{channel}/nonExistentAction"), "x": 1})),
        Just(json!({"type": "future/thing"})),
        select(others),
    ]
    .boxed()
}

pub fn parse<T: DeserializeOwned>(what: &str, value: &Value) -> Result<T, TestCaseError> {
    serde_json::from_value(value.clone())
        .map_err(|e| TestCaseError::fail(format!("{what} does not parse: {e}\n{value}")))
}

pub fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serialize")
}

/// A channel's two reducers, as the driver calls them.
pub struct Pair<O, R> {
    /// Ours: applies the action, reports whether it applied.
    pub ours: fn(&mut O, &StateAction) -> bool,
    /// The reference's.
    pub reference: fn(&mut R, &RefAction),
    /// The comparison form of a state's JSON (nulls dropped, numbers by value, plus whatever
    /// the channel normalizes).
    pub comparable: fn(Value) -> Value,
}

/// Runs `actions` from `initial` through both reducers. After every action both states must be
/// equal in comparison form, and an action ours reports as a no-op must leave our state's JSON
/// exactly as it was.
pub fn check_pair<O, R>(
    pair: &Pair<O, R>,
    initial: &Value,
    actions: &[Value],
) -> Result<(), TestCaseError>
where
    O: DeserializeOwned + Serialize,
    R: DeserializeOwned + Serialize,
{
    let mut ours: O = parse("initial state", initial)?;
    let mut theirs: R = parse("initial state (reference)", initial)?;
    let start = (pair.comparable)(to_json(&ours));
    if let Some(diff) =
        common::first_difference("state", &start, &(pair.comparable)(to_json(&theirs)))
    {
        return Err(TestCaseError::fail(format!(
            "the initial states differ: {diff}\n{initial}"
        )));
    }
    for (i, value) in actions.iter().enumerate() {
        let action: StateAction = parse("action", value)?;
        let reference: RefAction = parse("action (reference)", value)?;
        let before = to_json(&ours);
        let applied = (pair.ours)(&mut ours, &action);
        (pair.reference)(&mut theirs, &reference);
        let after = to_json(&ours);
        if let Some(diff) = common::first_difference(
            "state",
            &(pair.comparable)(after.clone()),
            &(pair.comparable)(to_json(&theirs)),
        ) {
            return Err(TestCaseError::fail(format!(
                "action {i} {value}: ours differs from the reference: {diff}\nbefore: {before}"
            )));
        }
        prop_assert!(
            applied || before == after,
            "action {} {}: a no-op changed the state",
            i,
            value
        );
    }
    Ok(())
}
pub mod session;

/// Asserts that `strategy` generates every action type in `expected` (a sample of 4,000 from a
/// fixed seed), so the vocabulary cannot silently lose an action type.
pub fn assert_covers(strategies: &[BoxedStrategy<Value>], expected: &[&str]) {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let mut seen = std::collections::BTreeSet::new();
    for strategy in strategies {
        for _ in 0..4_000 {
            let tree = strategy.new_tree(&mut runner).expect("a value");
            if let Some(ty) = tree.current()["type"].as_str() {
                seen.insert(ty.to_owned());
            }
        }
    }
    let missing: Vec<&&str> = expected.iter().filter(|t| !seen.contains(**t)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}
