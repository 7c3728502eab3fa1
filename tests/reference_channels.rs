//! Our root, terminal, changeset and resource-watch reducers against the official ones, on
//! random action sequences over every action type of each channel, valid ones and ones that do
//! not apply (config changes without a config, finishing an unknown or finished command,
//! removing an unknown file, unknown action types, other channels' actions), with ids drawn
//! from small pools so they collide: command ids shared by several command parts, terminals
//! sharing a resource, agents sharing a provider, config keys rewritten, files and operations
//! sharing ids.
//!
//! The oracles (the driver is `differential::check_channel`): a model of the TypeScript
//! reducers (`differential/ts/mod.rs`) for every channel, and the official Rust reducers
//! (`ahp::reducers::apply_action_to_root` and `apply_action_to_terminal` of `ahp` 0.3.0 from
//! crates.io, over `ahp-types` 0.3.0; a test oracle only) for root and terminal. The Rust crate
//! has no changeset or resource-watch reducer (its `multi_host_state_mirror` seeds changesets
//! from snapshots only), so there the TypeScript model and the conformance fixtures are the
//! oracles.
//!
//! Checked after every action: ours equals the TypeScript model (JSON with nulls dropped and
//! numbers by value; none of these channels stamps a clock); ours equals the Rust reference
//! except on the listed disagreements of the two official implementations (`terminal/
//! commandFinished`: TypeScript finishes every command part with the id, Rust the first; ours
//! follows TypeScript); an action ours reports as a no-op leaves our state's JSON exactly as
//! it was.
//!
//! `AHP_PROPTEST_CASES=n` runs more cases.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod differential;

use ahp::reducers::{apply_action_to_root, apply_action_to_terminal};
use ahp_types::state::{RootState as RefRoot, TerminalState as RefTerminal};
use ahp_wasm::protocol::{ChangesetState, ResourceWatchState, RootState, TerminalState};
use ahp_wasm::reduce::{
    changeset_reducer, resource_watch_reducer, root_reducer, terminal_reducer, FixedClock,
};
use differential::strategies::{root_actions, root_state};
use differential::{
    assert_all_seen, cases, check_channel, foreign, pick, text, ts, with, Channel, Disagreement,
    Tally,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Longest action sequence per case.
const MAX_ACTIONS: usize = 32;

fn comparable(state: Value) -> Value {
    common::normalize(&state)
}

// ─── Root ─────────────────────────────────────────────────────────────

const ROOT: Channel<RootState, RefRoot> = Channel {
    ours: |state, action, now| root_reducer(state, action, &FixedClock(now)).is_applied(),
    reference: Some(|state, action| {
        apply_action_to_root(state, action);
    }),
    model: |state, action, _| ts::root(state, action),
    comparable,
    disagreements: &[],
};

fn claim() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => pick(&["c1", "c2"]).prop_map(|c| json!({"kind": "client", "clientId": c})),
        2 => pick(&["copilot:/s1", "copilot:/s2"]).prop_map(|s| json!({"kind": "session",
            "session": s, "turnId": "t1"})),
        1 => Just(json!({"kind": "agent", "agentId": "x"})),
    ]
    .boxed()
}

fn terminals() -> BoxedStrategy<Value> {
    let info = (
        pick(&["t:/1", "t:/2"]),
        text(),
        claim(),
        prop::option::of(0i64..3),
    )
        .prop_map(|(resource, title, claim, exit)| {
            json!({"resource": resource, "title": title, "claim": claim, "exitCode": exit})
        });
    prop::collection::vec(info, 0..3)
        .prop_map(Value::from)
        .boxed()
}

fn root_initial() -> BoxedStrategy<Value> {
    root_state(terminals())
}

fn root_action() -> BoxedStrategy<Value> {
    root_actions(terminals(), foreign("root"))
}

// ─── Terminal ─────────────────────────────────────────────────────────

/// Where the official Rust and TypeScript terminal reducers (0.3.0) disagree; ours follows
/// TypeScript.
const TERMINAL_DISAGREEMENTS: &[Disagreement] = &[(
    "terminal/commandFinished",
    "TS finishes every command part with the id; Rust the first",
)];

const TERMINAL: Channel<TerminalState, RefTerminal> = Channel {
    ours: |state, action, now| terminal_reducer(state, action, &FixedClock(now)).is_applied(),
    reference: Some(|state, action| {
        apply_action_to_terminal(state, action);
    }),
    model: |state, action, _| ts::terminal(state, action),
    comparable,
    disagreements: TERMINAL_DISAGREEMENTS,
};

/// Command ids collide: every command part and command action draws from this pool.
const COMMANDS: &[&str] = &["c1", "c1", "c2"];

fn content_part() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => text().prop_map(|v| json!({"type": "unclassified", "value": v})),
        3 => (
            pick(COMMANDS),
            text(),
            any::<bool>(),
            prop::option::of(0i64..3),
        )
            .prop_map(|(id, output, complete, exit)| {
                json!({"type": "command", "commandId": id, "commandLine": "ls", "output": output,
                    "timestamp": 1000, "isComplete": complete, "exitCode": exit,
                    "durationMs": exit.map(|_| 5)})
            }),
        1 => Just(json!({"type": "prompt", "text": "$ "})),
    ]
    .boxed()
}

fn terminal_initial() -> BoxedStrategy<Value> {
    (
        text(),
        prop::collection::vec(content_part(), 0..4),
        claim(),
        prop::option::of(pick(&["file:///a", "file:///b"])),
        prop::option::of((1i64..3, 1i64..3)),
        prop::option::of(0i64..2),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(title, content, claim, cwd, size, exit, detect)| {
            json!({"title": title, "content": content, "claim": claim, "cwd": cwd,
                "cols": size.map(|s| s.0 * 40), "rows": size.map(|s| s.1 * 10),
                "exitCode": exit, "supportsCommandDetection": detect})
        })
        .boxed()
}

fn terminal_action() -> BoxedStrategy<Value> {
    let finished = (
        pick(COMMANDS),
        prop::option::of(0i64..3),
        prop::option::of(prop_oneof![Just(5i64), Just(7)]),
    )
        .prop_map(|(id, exit, duration)| {
            json!({"type": "terminal/commandFinished", "commandId": id, "exitCode": exit,
                "durationMs": duration})
        });
    let simple = prop_oneof![
        Just(json!({"type": "terminal/cleared"})),
        Just(json!({"type": "terminal/commandDetectionAvailable"})),
        text().prop_map(|d| json!({"type": "terminal/input", "data": d})),
        (1i64..3, 1i64..3).prop_map(|(c, r)| json!({"type": "terminal/resized",
            "cols": c * 40, "rows": r * 10})),
        claim().prop_map(|c| json!({"type": "terminal/claimed", "claim": c})),
        text().prop_map(|t| json!({"type": "terminal/titleChanged", "title": t})),
        pick(&["file:///a", "file:///b"]).prop_map(|c| json!({"type": "terminal/cwdChanged",
            "cwd": c})),
        prop::option::of(0i64..2).prop_map(|e| json!({"type": "terminal/exited", "exitCode": e})),
    ];
    prop_oneof![
        6 => text().prop_map(|d| json!({"type": "terminal/data", "data": d})),
        3 => pick(COMMANDS).prop_map(|id| with(
            json!({"type": "terminal/commandExecuted", "commandId": id}),
            json!({"commandLine": "make", "timestamp": 2000}),
        )),
        3 => finished,
        4 => simple,
        1 => foreign("terminal"),
    ]
    .boxed()
}

// ─── Changeset and resource watch (TypeScript model only) ─────────────

const CHANGESET: Channel<ChangesetState, serde_json::Value> = Channel {
    ours: |state, action, now| changeset_reducer(state, action, &FixedClock(now)).is_applied(),
    reference: None,
    model: |state, action, _| ts::changeset(state, action),
    comparable,
    disagreements: &[],
};

const RESOURCE_WATCH: Channel<ResourceWatchState, serde_json::Value> = Channel {
    ours: |state, action, now| resource_watch_reducer(state, action, &FixedClock(now)).is_applied(),
    reference: None,
    model: |state, action, _| ts::resource_watch(state, action),
    comparable,
    disagreements: &[],
};

/// File and operation ids collide: every file, operation and action draws from these pools.
const FILES: &[&str] = &["file:///a", "file:///a", "file:///b"];
const OPERATIONS: &[&str] = &["stage", "stage", "revert"];

fn error_info() -> BoxedStrategy<Value> {
    pick(&["git", "io"])
        .prop_map(|t| json!({"errorType": t, "message": "failed"}))
        .boxed()
}

fn file() -> BoxedStrategy<Value> {
    (pick(FILES), 0u32..9)
        .prop_map(|(id, added)| {
            json!({"id": id, "edit": {"after": {"uri": id, "content": {"uri": "content:/x"}},
                "diff": {"added": added}}})
        })
        .boxed()
}

fn operation() -> BoxedStrategy<Value> {
    (
        pick(OPERATIONS),
        pick(&["idle", "running", "error"]),
        prop::option::of(error_info()),
    )
        .prop_map(|(id, status, error)| {
            json!({"id": id, "label": id, "scopes": ["changeset"], "status": status,
                "error": error})
        })
        .boxed()
}

fn changeset_initial() -> BoxedStrategy<Value> {
    (
        pick(&["computing", "ready", "error"]),
        prop::option::of(error_info()),
        prop::collection::vec(file(), 0..4),
        prop::option::of(prop::collection::vec(operation(), 0..3)),
    )
        .prop_map(|(status, error, files, operations)| {
            json!({"status": status, "error": error, "files": files, "operations": operations})
        })
        .boxed()
}

fn changeset_action() -> BoxedStrategy<Value> {
    prop_oneof![
        1 => (pick(&["computing", "ready", "error", "stale"]), prop::option::of(error_info()))
            .prop_map(|(s, e)| json!({"type": "changeset/statusChanged", "status": s, "error": e})),
        3 => file().prop_map(|f| json!({"type": "changeset/fileSet", "file": f})),
        3 => pick(FILES).prop_map(|id| json!({"type": "changeset/fileRemoved", "fileId": id})),
        1 => prop::option::of(prop::collection::vec(operation(), 0..3))
            .prop_map(|o| json!({"type": "changeset/operationsChanged", "operations": o})),
        2 => (pick(OPERATIONS), pick(&["idle", "running", "error", "paused"]),
            prop::option::of(error_info()))
            .prop_map(|(id, s, e)| json!({"type": "changeset/operationStatusChanged",
                "operationId": id, "status": s, "error": e})),
        1 => Just(json!({"type": "changeset/cleared"})),
        1 => foreign("changeset"),
    ]
    .boxed()
}

fn resource_watch_action() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => pick(&["added", "updated", "deleted"]).prop_map(|t| json!({
            "type": "resourceWatch/changed", "changes": {"items": [{"uri": "file:///w/a",
            "type": t}]}})),
        1 => foreign("resourceWatch"),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn root_reducer_matches_the_references(
        initial in root_initial(),
        actions in prop::collection::vec(root_action(), 0..MAX_ACTIONS),
    ) {
        check_channel(&ROOT, &initial, &actions, &mut Tally::new())?;
    }

    #[test]
    fn changeset_reducer_matches_the_typescript_model_on_colliding_ids(
        initial in changeset_initial(),
        actions in prop::collection::vec(changeset_action(), 0..MAX_ACTIONS),
    ) {
        check_channel(&CHANGESET, &initial, &actions, &mut Tally::new())?;
    }

    #[test]
    fn resource_watch_reducer_matches_the_typescript_model(
        recursive in any::<bool>(),
        actions in prop::collection::vec(resource_watch_action(), 0..8),
    ) {
        let initial = json!({"root": "file:///w", "recursive": recursive});
        check_channel(&RESOURCE_WATCH, &initial, &actions, &mut Tally::new())?;
    }

    #[test]
    fn terminal_reducer_matches_the_references_on_colliding_command_ids(
        initial in terminal_initial(),
        actions in prop::collection::vec(terminal_action(), 0..MAX_ACTIONS),
    ) {
        check_channel(&TERMINAL, &initial, &actions, &mut Tally::new())?;
    }
}

/// Fixed cases through both reducers, the former divergences among them: a smoke test of the
/// oracle itself.
#[test]
fn hand_made_terminal_cases_match_the_reference() {
    let command = |id: &str, complete: bool| {
        json!({"type": "command", "commandId": id, "commandLine": "ls", "output": "",
            "timestamp": 1, "isComplete": complete})
    };
    let state = |content: Vec<Value>| json!({"title": "t", "content": content, "claim": {"kind": "client", "clientId": "c"}});
    let finish = json!({"type": "terminal/commandFinished", "commandId": "c1", "exitCode": 3});
    let empty = json!({"type": "terminal/data", "data": ""});
    let cases = [
        (state(vec![]), empty.clone()),
        (state(vec![command("c1", true)]), empty.clone()),
        (state(vec![command("c1", false)]), empty),
        (state(vec![command("c1", true)]), finish.clone()),
        (
            state(vec![command("c1", true), command("c1", false)]),
            finish.clone(),
        ),
        (
            state(vec![command("c1", false), command("c1", false)]),
            finish,
        ),
    ];
    for (initial, action) in cases {
        check_channel(
            &TERMINAL,
            &initial,
            std::slice::from_ref(&action),
            &mut Tally::new(),
        )
        .unwrap_or_else(|e| panic!("{action} on {initial}: {e}"));
    }
}

#[test]
fn hand_made_root_cases_match_the_reference() {
    let cases = [
        (
            json!({"agents": []}),
            json!({"type": "root/configChanged", "config": {"a": 1}, "replace": true}),
        ),
        (
            json!({"agents": [], "config": {"schema": {"type": "object", "properties": {}},
                "values": {"a": 1, "b": 2}}}),
            json!({"type": "root/configChanged", "config": {"a": 2}}),
        ),
        (
            json!({"agents": [], "activeSessions": 1}),
            json!({"type": "root/activeSessionsChanged", "activeSessions": 1}),
        ),
    ];
    for (initial, action) in cases {
        check_channel(
            &ROOT,
            &initial,
            std::slice::from_ref(&action),
            &mut Tally::new(),
        )
        .unwrap_or_else(|e| panic!("{action} on {initial}: {e}"));
    }
}

#[test]
fn the_vocabulary_has_every_root_and_terminal_action_type() {
    differential::assert_covers(
        &[root_action()],
        &[
            "root/agentsChanged",
            "root/activeSessionsChanged",
            "root/terminalsChanged",
            "root/configChanged",
            "root/nonExistentAction",
        ],
    );
    differential::assert_covers(
        &[terminal_action()],
        &[
            "terminal/data",
            "terminal/input",
            "terminal/resized",
            "terminal/claimed",
            "terminal/titleChanged",
            "terminal/cwdChanged",
            "terminal/exited",
            "terminal/cleared",
            "terminal/commandDetectionAvailable",
            "terminal/commandExecuted",
            "terminal/commandFinished",
            "terminal/nonExistentAction",
        ],
    );
}

/// The terminal disagreement shows up in a fixed-seed run of the generators.
#[test]
fn the_terminal_disagreement_is_exercised() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[5; 32]),
    );
    let mut tally = Tally::new();
    let case = (
        terminal_initial(),
        prop::collection::vec(terminal_action(), 0..MAX_ACTIONS),
    );
    for _ in 0..200 {
        let (initial, actions) = case.new_tree(&mut runner).expect("a case").current();
        check_channel(&TERMINAL, &initial, &actions, &mut tally).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_all_seen(TERMINAL_DISAGREEMENTS, &tally);
}

#[test]
fn command_finished_finishes_every_command_part_with_the_id() {
    let command = |id: &str, complete: bool| {
        json!({"type": "command", "commandId": id, "commandLine": "ls", "output": "",
            "timestamp": 1, "isComplete": complete})
    };
    let initial = json!({"title": "t", "claim": {"kind": "client", "clientId": "c"},
        "content": [command("c1", false), command("c2", false), command("c1", false)]});
    let finish = json!({"type": "terminal/commandFinished", "commandId": "c1", "exitCode": 3});
    check_channel(
        &TERMINAL,
        &initial,
        std::slice::from_ref(&finish),
        &mut Tally::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut state: TerminalState = serde_json::from_value(initial).expect("state");
    let action = serde_json::from_value(finish).expect("action");
    terminal_reducer(&mut state, &action, &FixedClock(0.0));
    let content = serde_json::to_value(&state.content).expect("content");
    assert_eq!(content[0]["exitCode"], json!(3));
    assert_eq!(content[1]["isComplete"], json!(false));
    assert_eq!(content[2]["exitCode"], json!(3), "{content}");
}

#[test]
fn file_removed_removes_the_first_file_with_the_id() {
    let file = |added: u32| {
        json!({"id": "file:///a", "edit": {"after": {"uri": "file:///a",
        "content": {"uri": "content:/x"}}, "diff": {"added": added}}})
    };
    let initial = json!({"status": "ready", "files": [file(1), file(2)]});
    let removed = json!({"type": "changeset/fileRemoved", "fileId": "file:///a"});
    check_channel(
        &CHANGESET,
        &initial,
        std::slice::from_ref(&removed),
        &mut Tally::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut state: ChangesetState = serde_json::from_value(initial).expect("state");
    let action = serde_json::from_value(removed).expect("action");
    changeset_reducer(&mut state, &action, &FixedClock(0.0));
    let files = serde_json::to_value(&state.files).expect("files");
    assert_eq!(files, json!([file(2)]));
}

#[test]
fn the_vocabulary_has_every_changeset_and_resource_watch_action_type() {
    differential::assert_covers(
        &[changeset_action()],
        &[
            "changeset/statusChanged",
            "changeset/fileSet",
            "changeset/fileRemoved",
            "changeset/operationsChanged",
            "changeset/operationStatusChanged",
            "changeset/cleared",
            "changeset/nonExistentAction",
        ],
    );
    differential::assert_covers(
        &[resource_watch_action()],
        &["resourceWatch/changed", "resourceWatch/nonExistentAction"],
    );
}
