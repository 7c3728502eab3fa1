//! The driver of the 1.0 differential tests (`tests/reference_v1_*.rs`): our 1.0 reducers
//! (`ahp_wasm::reduce::v1`) against the official Rust ones (`ahp::reducers` of `ahp` 1.0.0
//! over `ahp-types` 1.0.0, renamed `ahp_v1` and `ahp_types_v1`; test oracles only).
//!
//! Policy (as for 0.3.0, `tests/differential/mod.rs`): mirrors must equal what hosts compute.
//! The conformance fixtures come from the official TypeScript reducers, and the official Rust
//! reducers pass every one of them, so where they say the same ours says it too; where the
//! Rust reducer departs from TypeScript, ours follows TypeScript and the test names that exact
//! divergence as a predicate on the step (state before, action), so only the steps that hit
//! it are left out of the comparison, never a whole action type. After every action: ours
//! equals the reference (JSON, nulls dropped, numbers by value), unless the step is a named
//! divergence (then the reference continues from our state); an action ours reports as a
//! no-op leaves our state's JSON exactly as it was.
#![allow(dead_code)]

#[path = "../support/strategies.rs"]
pub mod strategies;

use crate::common;
use ahp_types_v1::actions::StateAction as RefAction;
use ahp_wasm::protocol::v1::StateAction;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Mutex;
pub use strategies::{cases, parse, pick, text, to_json, unhandled, Json};

/// An optional `_meta` object.
pub fn meta() -> BoxedStrategy<Value> {
    prop_oneof![
        2 => Just(Value::Null),
        1 => pick(&["a", "b"]).prop_map(|k| json!({ k: 1 })),
    ]
    .boxed()
}

/// Actions this channel does not handle: an unknown type of the channel, one of a newer
/// channel, and one well-formed action of each other channel.
pub fn foreign(channel: &'static str) -> BoxedStrategy<Value> {
    let others: Vec<Value> = [
        json!({"type": "root/activeSessionsChanged", "activeSessions": 7}),
        json!({"type": "session/titleChanged", "title": "foreign"}),
        json!({"type": "chat/draftChanged", "draft": {"text": "d", "origin": {"kind": "user"}}}),
        json!({"type": "chat/movableChanged", "movable": true}),
        json!({"type": "terminal/cleared"}),
        json!({"type": "changeset/cleared"}),
        json!({"type": "annotations/removed", "annotationId": "a1"}),
        json!({"type": "resourceWatch/changed", "changes": {"items": []}}),
        json!({"type": "automation/removed", "resource": "ahp-automation:/a1"}),
        json!({"type": "automationRun/sessionSet", "session": "ahp-session:/s1"}),
        json!({"type": "canvas/stateChanged", "canvas": {"instanceId": "i", "extensionId": "e",
            "canvasId": "c"}}),
    ]
    .into_iter()
    .filter(|a| {
        let ty = a["type"].as_str().unwrap_or("");
        !ty.starts_with(&format!("{channel}/"))
    })
    .collect();
    unhandled(channel, others)
}

/// `value` without `null` members, recursively (the generators write `null` for "absent").
pub fn strip_nulls(value: Value) -> Value {
    common::normalize(&value)
}

/// One channel's reducers, as the driver calls them.
pub struct Channel<O, R> {
    /// Ours: applies the action, reports whether it applied.
    pub ours: fn(&mut O, &StateAction) -> bool,
    /// The official Rust reducer.
    pub reference: fn(&mut R, &RefAction),
    /// The named divergence this step hits, if any (state JSON before, action JSON): where
    /// the Rust reducer departs from the TypeScript ones that ours follows.
    pub divergence: fn(&Value, &Value) -> Option<&'static str>,
    /// Whether the reference crate reads this state (JSON) faithfully, so it can continue
    /// from our state after a divergence; if not, the rest of the sequence runs through ours
    /// alone (the no-op property is still checked).
    pub faithful: fn(&Value) -> bool,
}

impl<O, R> Channel<O, R> {
    /// A channel where ours and the Rust reducer agree everywhere: no named divergence, and
    /// the reference reads every state.
    pub fn agreeing(
        ours: fn(&mut O, &StateAction) -> bool,
        reference: fn(&mut R, &RefAction),
    ) -> Self {
        Channel {
            ours,
            reference,
            divergence: |_, _| None,
            faithful: always,
        }
    }
}

/// For [`Channel::faithful`]: every state of the channel.
pub fn always(_: &Value) -> bool {
    true
}

/// What a run saw: per action type, how often ours applied it, and per divergence, how often
/// it showed.
#[derive(Default, Debug)]
pub struct Tally {
    pub applied: BTreeMap<String, usize>,
    pub generated: BTreeMap<String, usize>,
    pub divergences: BTreeMap<&'static str, usize>,
}

/// Runs `actions` from `initial` through ours and the reference (see the module docs).
pub fn check<O: Json, R: Json>(
    channel: &Channel<O, R>,
    initial: &Value,
    actions: &[Value],
    tally: &Mutex<Tally>,
) -> Result<(), TestCaseError> {
    let initial = strip_nulls(initial.clone());
    let mut ours: O = parse("initial state", &initial)?;
    let mut theirs: R = parse("initial state (reference)", &initial)?;
    if let Some(diff) = common::first_difference(
        "state",
        &common::normalize(&to_json(&ours)),
        &common::normalize(&to_json(&theirs)),
    ) {
        return Err(TestCaseError::fail(format!(
            "the initial states differ: {diff}\n{initial}"
        )));
    }
    let mut compare = true;
    for (i, value) in actions.iter().enumerate() {
        let value = &strip_nulls(value.clone());
        let ty = value["type"].as_str().unwrap_or("").to_owned();
        let action: StateAction = parse("action", value)?;
        let ref_action: RefAction = parse("action (reference)", value)?;
        let before = to_json(&ours);
        let applied = (channel.ours)(&mut ours, &action);
        let after = to_json(&ours);
        prop_assert!(
            applied || before == after,
            "action {} {}: a no-op changed the state",
            i,
            value
        );
        let mut tally = tally.lock().expect("tally");
        *tally.generated.entry(ty.clone()).or_default() += 1;
        if applied {
            *tally.applied.entry(ty).or_default() += 1;
        }
        if !compare {
            continue;
        }
        (channel.reference)(&mut theirs, &ref_action);
        if let Some(diff) = common::first_difference(
            "state",
            &common::normalize(&after),
            &common::normalize(&to_json(&theirs)),
        ) {
            match (channel.divergence)(&before, value) {
                Some(name) => {
                    *tally.divergences.entry(name).or_default() += 1;
                    compare = (channel.faithful)(&after);
                    if compare {
                        theirs = parse("our state (reference)", &after)?;
                    }
                }
                None => {
                    return Err(TestCaseError::fail(format!(
                        "action {i} {value}: ours differs from the official Rust reducer: \
                         {diff}\nbefore: {before}"
                    )))
                }
            }
        }
    }
    Ok(())
}

/// Runs [`check`] on `cases` random sequences of `initial` and 1 to `max_actions - 1` of
/// `action` (`name` says which property failed); answers what the runs saw.
pub fn run_cases<O: Json, R: Json>(
    name: &str,
    channel: &Channel<O, R>,
    (initial, action): (BoxedStrategy<Value>, BoxedStrategy<Value>),
    max_actions: usize,
    cases: u32,
) -> Mutex<Tally> {
    let tally = Mutex::new(Tally::default());
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(cases));
    let strategy = (initial, prop::collection::vec(action, 1..max_actions));
    runner
        .run(&strategy, |(initial, actions)| {
            check(channel, &initial, &actions, &tally)
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    tally
}

/// Asserts the run generated every action type of `types` and that ours applied each one of
/// `types` but those in `never_apply` at least once, and that each named divergence showed.
pub fn assert_coverage(
    tally: &Mutex<Tally>,
    types: &[&str],
    never_apply: &[&str],
    divergences: &[&str],
) {
    let tally = tally.lock().expect("tally");
    println!("applied (by ours): {:?}", tally.applied);
    println!("divergences: {:?}", tally.divergences);
    let missing: Vec<&&str> = types
        .iter()
        .filter(|t| !tally.generated.contains_key(**t))
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    let never: Vec<&&str> = types
        .iter()
        .filter(|t| !never_apply.contains(t) && !tally.applied.contains_key(**t))
        .collect();
    assert!(never.is_empty(), "never applied: {never:?} ({tally:?})");
    let unseen: Vec<&&str> = divergences
        .iter()
        .filter(|d| !tally.divergences.contains_key(**d))
        .collect();
    assert!(
        unseen.is_empty(),
        "named divergences never seen: {unseen:?}"
    );
}

/// The channel's action types, from the 1.0.0 action list.
pub fn action_types(channel: &str) -> Vec<&'static str> {
    const ALL: &str = include_str!("../../protocol/ahp-1.0.0/action-types-1.0.0.txt");
    ALL.lines()
        .filter(|t| t.split('/').next() == Some(channel))
        .collect()
}
