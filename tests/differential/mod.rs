//! Shared pieces of the differential tests against the official reducers: the Rust ones (`ahp`
//! 0.3.0 from crates.io over `ahp-types` 0.3.0, a test oracle only) and a model of the
//! TypeScript ones ([`ts`]). The case count, small string strategies, parsing into both type
//! worlds, and a driver that runs one action sequence through our reducer and the oracles,
//! comparing the states after every action.
//!
//! The policy the driver checks (README, "Reducers: matching the official references"): where
//! the official Rust and TypeScript reducers agree, ours equals both; where they disagree, ours
//! follows TypeScript. So after every action ours must equal the TypeScript model, and must
//! equal the Rust reference unless the action's type is one the channel lists as a known
//! disagreement of the two official implementations (then the Rust side continues from our
//! state). A model that strays from the Rust reference on any other action type fails too,
//! which keeps the model honest.
#![allow(dead_code)]

#[path = "../support/strategies.rs"]
pub mod strategies;

use crate::common;
use ahp_types::actions::StateAction as RefAction;
use ahp_wasm::protocol::StateAction;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value};
pub use strategies::{cases, parse, pick, text, to_json, unhandled, Json};

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
    unhandled(channel, others)
}

/// A channel's reducers, as the driver calls them.
pub struct Channel<O, R> {
    /// Ours: applies the action at time `now`, reports whether it applied.
    pub ours: fn(&mut O, &StateAction, f64) -> bool,
    /// The official Rust reducer, if the crate has one for the channel.
    pub reference: Option<fn(&mut R, &RefAction)>,
    /// The TypeScript model ([`ts`]).
    pub model: fn(&mut Value, &Value, f64),
    /// The comparison form of a state's JSON (nulls dropped, numbers by value, plus whatever
    /// the channel normalizes).
    pub comparable: fn(Value) -> Value,
    /// The action types on which the official Rust and TypeScript reducers disagree.
    pub disagreements: &'static [Disagreement],
}

/// Runs `actions` from `initial` through ours, the TypeScript model and (if any) the Rust
/// reference (see the module docs). An action ours reports as a no-op must leave our state's
/// JSON exactly as it was.
pub fn check_channel<O: Json, R: Json>(
    channel: &Channel<O, R>,
    initial: &Value,
    actions: &[Value],
    tally: &mut Tally,
) -> Result<(), TestCaseError> {
    let initial = strip_nulls(initial.clone());
    let mut ours: O = parse("initial state", &initial)?;
    let mut model = initial.clone();
    let mut theirs: Option<R> = match channel.reference {
        Some(_) => Some(parse("initial state (reference)", &initial)?),
        None => None,
    };
    if let Some(theirs) = &theirs {
        let start = (channel.comparable)(to_json(&ours));
        if let Some(diff) =
            common::first_difference("state", &start, &(channel.comparable)(to_json(theirs)))
        {
            return Err(TestCaseError::fail(format!(
                "the initial states differ: {diff}\n{initial}"
            )));
        }
    }
    for (i, value) in actions.iter().enumerate() {
        let value = &strip_nulls(value.clone());
        let now = 10_000.0 + i as f64;
        let action: StateAction = parse("action", value)?;
        let before = to_json(&ours);
        let applied = (channel.ours)(&mut ours, &action, now);
        (channel.model)(&mut model, value, now);
        let after = to_json(&ours);
        if let Some(diff) = common::first_difference(
            "state",
            &(channel.comparable)(after.clone()),
            &(channel.comparable)(model.clone()),
        ) {
            return Err(TestCaseError::fail(format!(
                "action {i} {value}: ours differs from the TypeScript model: {diff}\nbefore: {before}"
            )));
        }
        prop_assert!(
            applied || before == after,
            "action {} {}: a no-op changed the state",
            i,
            value
        );
        if let (Some(reference), Some(state)) = (channel.reference, theirs.as_mut()) {
            let ref_action: RefAction = parse("action (reference)", value)?;
            reference(state, &ref_action);
            if let Some(diff) = common::first_difference(
                "state",
                &(channel.comparable)(after.clone()),
                &(channel.comparable)(to_json(&*state)),
            ) {
                disagreement(channel.disagreements, value, &diff, tally)?;
                *state = parse("our state (reference)", &after)?;
            }
        }
    }
    Ok(())
}

/// Asserts that every listed disagreement showed at least once in `tally`, so the list names
/// no case the generators never reach (and none that no longer differs).
pub fn assert_all_seen(listed: &[Disagreement], tally: &Tally) {
    let unseen: Vec<&str> = listed
        .iter()
        .map(|(ty, _)| *ty)
        .filter(|ty| !tally.contains_key(*ty))
        .collect();
    assert!(
        unseen.is_empty(),
        "listed disagreements never seen: {unseen:?} (seen: {tally:?})"
    );
}

pub mod session;
pub mod ts;
pub mod turn;

/// `value` without any `null` member, recursively (null and absent are the same on the wire;
/// the generators write `null` for "absent").
pub fn strip_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_nulls).collect()),
        other => other,
    }
}

/// The action type, for messages and the disagreement tally.
pub fn action_type(action: &Value) -> &str {
    action["type"].as_str().unwrap_or("")
}

/// A known disagreement of the official Rust and TypeScript reducers: an action type and why.
pub type Disagreement = (&'static str, &'static str);

/// How often each listed disagreement showed, for [`assert_all_seen`].
pub type Tally = std::collections::BTreeMap<String, usize>;

/// Counts a step where the Rust reference differs from ours (and so from the TypeScript
/// model); fails unless the action type is a listed disagreement.
pub fn disagreement(
    listed: &[Disagreement],
    action: &Value,
    diff: &str,
    tally: &mut Tally,
) -> Result<(), TestCaseError> {
    let ty = action_type(action);
    if !listed.iter().any(|(t, _)| *t == ty) {
        return Err(TestCaseError::fail(format!(
            "the Rust reference differs from ours and from the TypeScript model on {action}, \
             an action type where the official implementations are not known to disagree: {diff}"
        )));
    }
    *tally.entry(ty.to_owned()).or_default() += 1;
    Ok(())
}

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
