//! Our session reducer against the official reducers, on random action sequences over every
//! session action type (`differential/turn.rs` for the turn and its tool calls,
//! `differential/session.rs` for the rest): the Rust reference (`ahp::reducers::
//! apply_action_to_session` of `ahp` 0.3.0 over `ahp-types` 0.3.0; a test oracle only, never
//! product code) and a model of the TypeScript reference (`differential/ts/session.rs`).
//!
//! The vocabulary covers every tool-call status (the six of 0.3.0 and a newer one) with every
//! ending (complete, denied, result denied, turn complete, turn cancelled, error), every
//! optional field present and absent, ids that collide within and across kinds (parts, tool
//! calls, turns, containers and their children, MCP servers, pending messages, input
//! requests), entries and parts of unknown (newer) kinds, any session status (consistent with
//! the rest of the state or not), and actions that do not apply (wrong turns, unknown targets,
//! invalid transitions, unknown action types, other channels' actions).
//!
//! Properties, checked after every action:
//! 1. ours equals the TypeScript model (JSON with nulls dropped, numbers by value; both read
//!    the same clock, so `summary.modifiedAt` too);
//! 2. ours equals the Rust reference, `summary.modifiedAt` compared as "stamped by this action
//!    or not" (the reference reads the system clock), unless the action's type is one of
//!    [`DISAGREEMENTS`], where the official Rust and TypeScript reducers differ and ours follows
//!    TypeScript; the reference then continues from our state;
//! 3. the patch `describe_session` reports, applied to the JSON of the state before
//!    (`StatePatch::apply_to_json`), gives the JSON of the state after;
//! 4. an action ours reports as a no-op leaves our state's JSON exactly as it was.
//!
//! Malformed actions are not generated: the reference parses them as unknown actions (a
//! no-op) where ours rejects them before any reducer runs. Values of unknown enum members are
//! not generated either (the Rust reference cannot parse them).
//!
//! `AHP_PROPTEST_CASES=n` runs more cases.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod differential;

use ahp::reducers::apply_action_to_session;
use ahp_types::actions::StateAction as RefAction;
use ahp_types::state::SessionState as RefState;
use ahp_wasm::protocol::{SessionState, StateAction};
use ahp_wasm::reduce::{session_reducer, FixedClock, Outcome};
use ahp_wasm::sync::{describe_session, PatchBuilder, Probe};
use differential::{
    assert_all_seen, cases, disagreement, parse, pick, strip_nulls, to_json, ts, turn,
    Disagreement, Tally,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value};

/// Longest action sequence per case.
const MAX_ACTIONS: usize = 48;

/// Where the official Rust and TypeScript session reducers (0.3.0) disagree, read from their
/// source; ours follows TypeScript in each (see the handlers).
const DISAGREEMENTS: &[Disagreement] = &[
    (
        "session/delta",
        "TS reads any part's raw `id` (unknown kinds, unknown-status calls)",
    ),
    ("session/reasoning", "as session/delta"),
    (
        "session/toolCallDelta",
        "TS updates every tool call with the id; Rust the first",
    ),
    ("session/toolCallContentChanged", "as session/toolCallDelta"),
    (
        "session/toolCallReady",
        "every call with the id; TS recomputes the status even on a miss",
    ),
    (
        "session/toolCallConfirmed",
        "as toolCallReady; an empty selectedOptionId names nothing",
    ),
    ("session/toolCallComplete", "as session/toolCallReady"),
    (
        "session/toolCallResultConfirmed",
        "as session/toolCallReady",
    ),
    (
        "session/turnComplete",
        "TS cancels an unknown-status call from its raw fields",
    ),
    ("session/turnCancelled", "as session/turnComplete"),
    ("session/error", "as session/turnComplete"),
    (
        "session/queuedMessagesReordered",
        "Rust sorts unnamed messages by id, merges duplicates",
    ),
    (
        "session/customizationToggled",
        "TS matches entries of unknown types by raw id",
    ),
    (
        "session/customizationUpdated",
        "as customizationToggled; absent id matches absent id",
    ),
    (
        "session/customizationRemoved",
        "as customizationToggled; a child in every container",
    ),
    ("session/mcpServerStateChanged", "as customizationRemoved"),
    (
        "session/turnStarted",
        "an empty queuedMessageId names nothing in TS",
    ),
];

const USER: fn(&str) -> Value = |t| json!({"text": t, "origin": {"kind": "user"}});

/// An initial state: idle or with an active turn of random parts, history whose turn ids
/// collide, maybe the session-level fields, and any status (activity and flags).
fn initial() -> BoxedStrategy<Value> {
    let summary = json!({"resource": "copilot:/s", "provider": "copilot", "title": "S",
        "status": 1, "createdAt": 1000, "modifiedAt": 1000});
    let idle = json!({"summary": summary, "lifecycle": "ready", "turns": []});
    let busy = (prop::collection::vec(turn::part(), 0..6), any::<bool>()).prop_map(
        move |(parts, usage)| {
            let mut s = json!({"summary": summary, "lifecycle": "ready",
                "turns": [{"id": "t0", "message": USER("first"), "responseParts": [],
                    "state": "complete"}],
                "activeTurn": {"id": "t1", "message": USER("second"), "responseParts": parts}});
            if usage {
                s["activeTurn"]["usage"] = json!({"outputTokens": 3});
            }
            s
        },
    );
    let base = prop_oneof![1 => Just(idle), 4 => busy];
    let history = prop::collection::vec(pick(&["t0", "t1", "t0"]), 0..4);
    let status = (prop::sample::select(&[1u32, 2, 8, 24][..]), 0u32..4);
    (
        base,
        history,
        prop::option::of(differential::session::extras()),
        status,
    )
        .prop_map(|(mut s, history, extras, (activity, flags))| {
            if let Some(turns) = s["turns"].as_array_mut() {
                turns.extend(history.iter().map(|id| {
                    json!({"id": id, "message": USER(id), "responseParts": [], "state": "complete"})
                }));
            }
            if let (Value::Object(state), Some(Value::Object(extras))) = (&mut s, extras) {
                state.extend(extras);
            }
            s["summary"]["status"] = json!(activity | flags << 5);
            strip_nulls(s)
        })
        .boxed()
}

/// A session action of the whole vocabulary.
fn action() -> BoxedStrategy<Value> {
    prop_oneof![23 => turn::action(), 6 => differential::session::action()].boxed()
}

fn case() -> BoxedStrategy<(Value, Vec<Value>)> {
    (initial(), prop::collection::vec(action(), 0..MAX_ACTIONS)).boxed()
}

/// The comparison form against the Rust reference (its clock is its own).
fn without_clock(state: &Value) -> Value {
    let mut state = common::normalize(state);
    state["summary"]["modifiedAt"] = json!(0);
    state
}

/// Runs `actions` from `initial` through ours, the TypeScript model and the Rust reference,
/// checking the properties of the module docs; counts the listed disagreements in `tally`.
fn check(initial: &Value, actions: &[Value], tally: &mut Tally) -> Result<(), TestCaseError> {
    run(initial, actions, Some(tally))
}

/// [`check`], with the Rust reference only when `tally` is given (it cannot hold the unknown
/// members or enum values some hand-made cases carry).
fn run(
    initial: &Value,
    actions: &[Value],
    mut tally: Option<&mut Tally>,
) -> Result<(), TestCaseError> {
    let initial = strip_nulls(initial.clone());
    let mut ours: SessionState = parse("initial state", &initial)?;
    let mut model = initial.clone();
    let mut theirs: Option<RefState> = match tally {
        Some(_) => Some(parse("initial state (reference)", &initial)?),
        None => None,
    };
    if let Some(theirs) = &theirs {
        prop_assert_eq!(
            without_clock(&to_json(&ours)),
            without_clock(&to_json(theirs))
        );
    }
    for (i, value) in actions.iter().enumerate() {
        let value = &strip_nulls(value.clone());
        let now = 10_000.0 + i as f64;
        let action: StateAction = parse("action", value)?;
        let before = to_json(&ours);
        let probe = Probe::session(&ours);
        let outcome = session_reducer(&mut ours, &action, &FixedClock(now));
        let after = to_json(&ours);

        ts::session::session(&mut model, value, now);
        if let Some(diff) = common::first_difference(
            "state",
            &common::normalize(&after),
            &common::normalize(&model),
        ) {
            return Err(TestCaseError::fail(format!(
                "action {i} {value}: ours differs from the TypeScript model: {diff}\nbefore: {before}"
            )));
        }

        if let (Some(theirs), Some(tally)) = (theirs.as_mut(), tally.as_deref_mut()) {
            let reference: RefAction = parse("action (reference)", value)?;
            theirs.summary.modified_at = 1;
            apply_action_to_session(theirs, &reference);
            let stamped = (
                after["summary"]["modifiedAt"].as_f64() == Some(now),
                theirs.summary.modified_at != 1,
            );
            let diff = if stamped.0 != stamped.1 {
                Some(format!(
                    "modifiedAt stamped: ours {}, Rust {}",
                    stamped.0, stamped.1
                ))
            } else {
                let rust = without_clock(&to_json(&*theirs));
                common::first_difference("state", &without_clock(&after), &rust)
            };
            if let Some(diff) = diff {
                disagreement(DISAGREEMENTS, value, &diff, tally)?;
                *theirs = parse("our state (reference)", &after)?;
            }
        }

        let mut rendered = before;
        if let Outcome::Applied(changed) = outcome {
            let mut patch = PatchBuilder::default();
            describe_session(&ours, probe, &action, changed, &mut patch);
            let patch = patch.finish();
            patch.apply_to_json(&mut rendered, &after);
            prop_assert_eq!(
                &rendered,
                &after,
                "action {} {}: patch {:?}",
                i,
                value,
                patch
            );
        } else {
            prop_assert_eq!(
                &rendered,
                &after,
                "action {} {}: a no-op changed the state",
                i,
                value
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn session_reducer_matches_the_official_reducers((initial, actions) in case()) {
        check(&initial, &actions, &mut Tally::new())?;
    }
}

/// Every listed disagreement shows up in a fixed-seed run of the generators: the list holds no
/// case they never reach, and the generators reach every known difference.
#[test]
fn every_listed_disagreement_is_exercised() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[11; 32]),
    );
    let mut tally = Tally::new();
    for _ in 0..1200 {
        let (initial, actions) = case().new_tree(&mut runner).expect("a case").current();
        check(&initial, &actions, &mut tally).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_all_seen(DISAGREEMENTS, &tally);
}

/// The TypeScript model reproduces every official conformance fixture (the TypeScript
/// reducers produce them), for every channel: a check of the model itself.
#[test]
fn ts_model_passes_the_fixtures() {
    let fixtures = common::fixtures();
    assert_eq!(fixtures.len(), 163);
    let mut failures = Vec::new();
    for (name, fixture) in &fixtures {
        let mut state = fixture["initial"].clone();
        for action in fixture["actions"].as_array().into_iter().flatten() {
            match fixture["reducer"].as_str().unwrap_or("") {
                "root" => ts::root(&mut state, action),
                "session" => ts::session::session(&mut state, action, 9999.0),
                "terminal" => ts::terminal(&mut state, action),
                "changeset" => ts::changeset(&mut state, action),
                _ => ts::resource_watch(&mut state, action),
            }
        }
        let expected = common::normalize(&fixture["expected"]);
        if let Some(diff) = common::first_difference("state", &common::normalize(&state), &expected)
        {
            failures.push(format!("{name}: {diff}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[path = "differential/session_cases.rs"]
mod session_cases;
