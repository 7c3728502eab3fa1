//! Our root and terminal reducers against the official reference reducers
//! (`ahp::reducers::apply_action_to_root` and `apply_action_to_terminal` of `ahp` 0.3.0 from
//! crates.io, over `ahp-types` 0.3.0; a test oracle only, never product code), on random action
//! sequences over every action type of each channel, valid ones and ones that do not apply
//! (config changes without a config, finishing an unknown or finished command, unknown action
//! types, other channels' actions), with ids drawn from small pools so they collide: command
//! ids shared by several command parts, terminals sharing a resource, agents sharing a
//! provider, config keys rewritten.
//!
//! Checked after every action: both reducers give the same state (JSON with nulls dropped and
//! numbers by value; neither channel stamps a clock), and an action ours reports as a no-op
//! leaves our state's JSON exactly as it was.
//!
//! The changeset channel is not covered: the official crate has no changeset reducer (its
//! `multi_host_state_mirror` seeds changesets from snapshots only and says so), so there is
//! nothing to compare against; the conformance fixtures remain its oracle. Nor is the
//! resource-watch channel, for the same reason.
//!
//! No deliberate differences: where the two used to disagree, ours was changed to the
//! reference's behaviour (documented at the handlers in `src/reduce/terminal.rs`):
//! `terminal/data` with empty data on a tail it cannot append to creates an empty
//! `unclassified` part (the terminals guide: "Otherwise, a new unclassified part is created"),
//! and `terminal/commandFinished` completes the first command part with its id, also one that
//! already finished (a repeated finish rewrites its exit code and duration).
//!
//! `AHP_PROPTEST_CASES=n` runs more cases.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod differential;

use ahp::reducers::{apply_action_to_root, apply_action_to_terminal};
use ahp_types::state::{RootState as RefRoot, TerminalState as RefTerminal};
use ahp_wasm::protocol::{RootState, TerminalState};
use ahp_wasm::reduce::{root_reducer, terminal_reducer, FixedClock};
use differential::{cases, check_pair, foreign, pick, text, with, Pair};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Longest action sequence per case.
const MAX_ACTIONS: usize = 32;

fn comparable(state: Value) -> Value {
    common::normalize(&state)
}

// ─── Root ─────────────────────────────────────────────────────────────

const ROOT: Pair<RootState, RefRoot> = Pair {
    ours: |state, action| root_reducer(state, action, &FixedClock(5_000.0)).is_applied(),
    reference: |state, action| {
        apply_action_to_root(state, action);
    },
    comparable,
};

fn agents() -> BoxedStrategy<Value> {
    prop::collection::vec(pick(&["copilot", "claude", "copilot"]), 0..3)
        .prop_map(|providers| {
            json!(providers
                .iter()
                .map(|p| json!({"provider": p, "displayName": p, "description": "", "models": []}))
                .collect::<Vec<_>>())
        })
        .boxed()
}

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

fn config_values() -> BoxedStrategy<Value> {
    let value = prop_oneof![
        (0i64..3).prop_map(Value::from),
        pick(&["x", "y"]).prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(json!({"nested": [1, 2]})),
    ];
    prop::collection::btree_map(pick(&["a", "b", "c"]), value, 0..3)
        .prop_map(|m| json!(m))
        .boxed()
}

fn root_initial() -> BoxedStrategy<Value> {
    (
        agents(),
        prop::option::of(0i64..3),
        prop::option::of(terminals()),
        prop::option::of(config_values()),
    )
        .prop_map(|(agents, active, terminals, values)| {
            let config = values.map(|v| {
                json!({"schema": {"type": "object", "properties": {}},
                "values": v})
            });
            json!({"agents": agents, "activeSessions": active, "terminals": terminals,
                "config": config})
        })
        .boxed()
}

fn root_action() -> BoxedStrategy<Value> {
    prop_oneof![
        2 => agents().prop_map(|a| json!({"type": "root/agentsChanged", "agents": a})),
        2 => (0i64..3).prop_map(|n| json!({"type": "root/activeSessionsChanged",
            "activeSessions": n})),
        2 => terminals().prop_map(|t| json!({"type": "root/terminalsChanged", "terminals": t})),
        3 => (config_values(), prop::option::of(any::<bool>())).prop_map(|(c, replace)| {
            json!({"type": "root/configChanged", "config": c, "replace": replace})
        }),
        1 => foreign("root"),
    ]
    .boxed()
}

// ─── Terminal ─────────────────────────────────────────────────────────

const TERMINAL: Pair<TerminalState, RefTerminal> = Pair {
    ours: |state, action| terminal_reducer(state, action, &FixedClock(5_000.0)).is_applied(),
    reference: |state, action| {
        apply_action_to_terminal(state, action);
    },
    comparable,
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn root_reducer_matches_the_reference(
        initial in root_initial(),
        actions in prop::collection::vec(root_action(), 0..MAX_ACTIONS),
    ) {
        check_pair(&ROOT, &initial, &actions)?;
    }

    #[test]
    fn terminal_reducer_matches_the_reference_on_colliding_command_ids(
        initial in terminal_initial(),
        actions in prop::collection::vec(terminal_action(), 0..MAX_ACTIONS),
    ) {
        check_pair(&TERMINAL, &initial, &actions)?;
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
        check_pair(&TERMINAL, &initial, std::slice::from_ref(&action))
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
        check_pair(&ROOT, &initial, std::slice::from_ref(&action))
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
