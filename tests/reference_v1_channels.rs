//! Our 1.0 root, canvas, terminal, changeset, annotations, resource-watch, automation and
//! automation-run reducers against the official Rust ones (`ahp_v1::reducers::
//! apply_action_to_*`, `ahp` 1.0.0; a test oracle only), one property per channel, on random
//! action sequences over every action type of the channel: valid ones and ones that do not
//! apply (config changes without a config, unknown ids, finished commands, requests the host
//! answers, unknown action types, other channels' actions), with ids from small pools so they
//! collide. The driver and the policy are in `differential_v1/mod.rs`. No divergence of the
//! Rust reducer from the fixtures or from TypeScript is known on these channels, so none is
//! left out. Canvas, automation and automation run have few or no fixtures (0, 3 of 7, 0 of
//! 2): these properties are their main check.
//!
//! `AHP_PROPTEST_CASES=n` runs more cases.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod differential_v1;

use ahp_types_v1::state as reference;
use ahp_v1::reducers as official;
use ahp_wasm::protocol::v1::{
    AnnotationsState, AutomationRunState, AutomationState, CanvasState, ChangesetState,
    ResourceWatchState, RootState, TerminalState,
};
use ahp_wasm::reduce::v1;
use differential_v1::strategies::{root_actions, root_state};
use differential_v1::{
    action_types, assert_coverage, cases, foreign, meta, pick, run_cases, text, Channel, Json,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Longest action sequence per case.
const MAX_ACTIONS: usize = 24;

/// Runs the property for one channel and checks its coverage.
fn run<O: Json, R: Json>(
    channel: Channel<O, R>,
    initial: BoxedStrategy<Value>,
    action: BoxedStrategy<Value>,
    name: &str,
    never_apply: &[&str],
) {
    let tally = run_cases(name, &channel, (initial, action), MAX_ACTIONS, cases());
    assert_coverage(&tally, &action_types(name), never_apply, &[]);
}

// ─── Root ─────────────────────────────────────────────────────────────

fn claim() -> BoxedStrategy<Value> {
    prop_oneof![
        pick(&["c1", "c2"]).prop_map(|c| json!({"kind": "client", "clientId": c})),
        (
            pick(&["ahp-session:/s1", "ahp-session:/s2"]),
            prop::option::of(pick(&["t1"]))
        )
            .prop_map(|(s, turn)| json!({"kind": "session", "session": s,
                "chat": "ahp-chat:/c1", "turnId": turn})),
    ]
    .boxed()
}

fn terminals() -> BoxedStrategy<Value> {
    let info = (pick(&["t:/1", "t:/2"]), text(), claim(), lifecycle()).prop_map(
        |(resource, title, claim, lifecycle)| {
            json!({"resource": resource, "title": title, "claim": claim, "lifecycle": lifecycle})
        },
    );
    prop::collection::vec(info, 0..3)
        .prop_map(Value::from)
        .boxed()
}

#[test]
fn root_matches_the_official_reducer() {
    let initial = root_state(terminals());
    let action = root_actions(terminals(), foreign("root"));
    let channel = Channel::<RootState, reference::RootState>::agreeing(
        |s, a| v1::root_reducer(s, a).is_applied(),
        |s, a| {
            official::apply_action_to_root(s, a);
        },
    );
    run(channel, initial, action, "root", &[]);
}

// ─── Canvas ───────────────────────────────────────────────────────────

fn canvas() -> BoxedStrategy<Value> {
    (
        pick(&["i1", "i2"]),
        pick(&["ext.a", "ext.b"]),
        prop::option::of(text()),
        pick(&["c1", "c2"]),
        prop::option::of(text()),
        prop::option::of(pick(&["loading", "ready", "error", "futureStatus"])),
        prop::option::of(pick(&["https://x/1", "http://localhost:3000/"])),
    )
        .prop_map(|(instance, extension, name, canvas, title, status, url)| {
            json!({"instanceId": instance, "extensionId": extension, "extensionName": name,
                "canvasId": canvas, "title": title, "status": status, "url": url})
        })
        .boxed()
}

#[test]
fn canvas_matches_the_official_reducer() {
    let action = prop_oneof![
        4 => canvas().prop_map(|c| json!({"type": "canvas/stateChanged", "canvas": c})),
        1 => foreign("canvas"),
    ]
    .boxed();
    let channel = Channel::<CanvasState, reference::CanvasState>::agreeing(
        |s, a| v1::canvas_reducer(s, a).is_applied(),
        |s, a| {
            official::apply_action_to_canvas(s, a);
        },
    );
    run(channel, canvas(), action, "canvas", &[]);
}

// ─── Terminal ─────────────────────────────────────────────────────────

fn terminal_part() -> BoxedStrategy<Value> {
    prop_oneof![
        text().prop_map(|v| json!({"type": "unclassified", "value": v})),
        (
            pick(&["k1", "k2"]),
            text(),
            any::<bool>(),
            prop::option::of(0i64..3)
        )
            .prop_map(
                |(id, output, complete, exit)| json!({"type": "command", "commandId": id,
                "commandLine": "ls", "output": output, "timestamp": 5, "isComplete": complete,
                "exitCode": exit})
            ),
    ]
    .boxed()
}

fn lifecycle() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(json!({"status": "running"})),
        prop::option::of(0i64..3).prop_map(|c| json!({"status": "exited", "exitCode": c})),
    ]
    .boxed()
}

#[test]
fn terminal_matches_the_official_reducer() {
    let initial = (
        text(),
        prop::option::of(pick(&["/", "/home"])),
        prop::option::of((1i64..200, 1i64..60)),
        prop::collection::vec(terminal_part(), 0..4),
        lifecycle(),
        claim(),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(title, cwd, size, content, lifecycle, claim, detection)| {
            json!({"title": title, "cwd": cwd, "cols": size.map(|s| s.0),
                "rows": size.map(|s| s.1), "content": content, "lifecycle": lifecycle,
                "claim": claim, "supportsCommandDetection": detection})
        })
        .boxed();
    let action = prop_oneof![
        4 => text().prop_map(|d| json!({"type": "terminal/data", "data": d})),
        1 => text().prop_map(|d| json!({"type": "terminal/input", "data": d})),
        1 => (1i64..200, 1i64..60).prop_map(|(c, r)| json!({"type": "terminal/resized",
            "cols": c, "rows": r})),
        1 => claim().prop_map(|c| json!({"type": "terminal/claimed", "claim": c})),
        1 => text().prop_map(|t| json!({"type": "terminal/titleChanged", "title": t})),
        1 => pick(&["/", "/tmp"]).prop_map(|c| json!({"type": "terminal/cwdChanged", "cwd": c})),
        1 => prop::option::of(0i64..3).prop_map(|c| json!({"type": "terminal/exited",
            "exitCode": c})),
        1 => Just(json!({"type": "terminal/cleared"})),
        1 => Just(json!({"type": "terminal/commandDetectionAvailable"})),
        2 => (pick(&["k1", "k2", "k3"]), text(), 0i64..9).prop_map(|(id, line, ts)| {
            json!({"type": "terminal/commandExecuted", "commandId": id, "commandLine": line,
                "timestamp": ts})
        }),
        2 => (pick(&["k1", "k2", "k3"]), prop::option::of(0i64..3),
            prop::option::of(0i64..500)).prop_map(|(id, exit, ms)| {
            json!({"type": "terminal/commandFinished", "commandId": id, "exitCode": exit,
                "durationMs": ms})
        }),
        1 => foreign("terminal"),
    ]
    .boxed();
    let channel = Channel::<TerminalState, reference::TerminalState>::agreeing(
        |s, a| v1::terminal_reducer(s, a).is_applied(),
        |s, a| {
            official::apply_action_to_terminal(s, a);
        },
    );
    run(channel, initial, action, "terminal", &["terminal/input"]);
}

// ─── Changeset ────────────────────────────────────────────────────────

fn file() -> BoxedStrategy<Value> {
    (
        pick(&["file:///a", "file:///b", "file:///c"]),
        prop::option::of(any::<bool>()),
        0i64..9,
        meta(),
    )
        .prop_map(|(id, reviewed, added, meta)| {
            json!({"id": id, "edit": {"after": {"uri": id, "content": {"uri": "content:/x"}},
                "diff": {"added": added}}, "reviewed": reviewed, "_meta": meta})
        })
        .boxed()
}

fn operation_status() -> BoxedStrategy<String> {
    pick(&["idle", "running", "error"])
}

fn error_info() -> BoxedStrategy<Value> {
    pick(&["boom", "late"])
        .prop_map(|m| json!({"errorType": "e", "message": m}))
        .boxed()
}

fn operations() -> BoxedStrategy<Value> {
    let operation = (
        pick(&["stage", "pr", "stage"]),
        operation_status(),
        prop::option::of(error_info()),
    )
        .prop_map(|(id, status, error)| {
            json!({"id": id, "label": id, "scopes": ["changeset"], "status": status,
                "error": error})
        });
    prop::collection::vec(operation, 0..3)
        .prop_map(Value::from)
        .boxed()
}

#[test]
fn changeset_matches_the_official_reducer() {
    let status = pick(&["computing", "recomputing", "ready", "error"]);
    let initial = (
        status.clone(),
        prop::option::of(error_info()),
        prop::collection::vec(file(), 0..4),
        prop::option::of(operations()),
    )
        .prop_map(|(status, error, files, operations)| {
            json!({"status": status, "error": error, "files": files, "operations": operations})
        })
        .boxed();
    let action = prop_oneof![
        2 => (status, prop::option::of(error_info())).prop_map(|(s, e)| {
            json!({"type": "changeset/statusChanged", "status": s, "error": e})
        }),
        3 => file().prop_map(|f| json!({"type": "changeset/fileSet", "file": f})),
        2 => pick(&["file:///a", "file:///b", "file:///z"])
            .prop_map(|id| json!({"type": "changeset/fileRemoved", "fileId": id})),
        2 => (prop::collection::vec(pick(&["file:///a", "file:///b", "file:///z"]), 0..3),
            any::<bool>()).prop_map(|(files, reviewed)| {
            json!({"type": "changeset/filesReviewChanged", "files": files, "reviewed": reviewed})
        }),
        1 => (prop::collection::vec(file(), 0..3), prop::option::of(operations()))
            .prop_map(|(files, ops)| json!({"type": "changeset/contentChanged", "files": files,
                "operations": ops})),
        1 => prop::option::of(operations()).prop_map(|ops| {
            json!({"type": "changeset/operationsChanged", "operations": ops})
        }),
        2 => (pick(&["stage", "pr", "none"]), operation_status(), prop::option::of(error_info()))
            .prop_map(|(id, status, error)| json!({"type": "changeset/operationStatusChanged",
                "operationId": id, "status": status, "error": error})),
        1 => Just(json!({"type": "changeset/cleared"})),
        1 => foreign("changeset"),
    ]
    .boxed();
    let channel = Channel::<ChangesetState, reference::ChangesetState>::agreeing(
        |s, a| v1::changeset_reducer(s, a).is_applied(),
        |s, a| {
            official::apply_action_to_changeset(s, a);
        },
    );
    run(channel, initial, action, "changeset", &[]);
}

// ─── Annotations ──────────────────────────────────────────────────────

fn origin() -> BoxedStrategy<Value> {
    (
        pick(&["ahp-session:/s1", "ahp-session:/s2"]),
        prop::option::of(pick(&["ahp-chat:/c1"])),
        prop::option::of(pick(&["t1", "t2"])),
    )
        .prop_map(|(session, chat, turn)| json!({"session": session, "chat": chat, "turnId": turn}))
        .boxed()
}

fn range() -> BoxedStrategy<Value> {
    (0i64..3, 0i64..9)
        .prop_map(|(line, character)| {
            json!({"start": {"line": line, "character": 0},
                "end": {"line": line, "character": character}})
        })
        .boxed()
}

fn entry() -> BoxedStrategy<Value> {
    (pick(&["e1", "e2", "e3"]), text(), meta())
        .prop_map(|(id, text, meta)| json!({"id": id, "text": text, "_meta": meta}))
        .boxed()
}

fn annotation() -> BoxedStrategy<Value> {
    (
        pick(&["a1", "a2", "a1"]),
        origin(),
        pick(&["file:///x", "file:///y"]),
        prop::option::of(range()),
        any::<bool>(),
        prop::collection::vec(entry(), 0..3),
    )
        .prop_map(|(id, origin, resource, range, resolved, entries)| {
            json!({"id": id, "origin": origin, "resource": resource, "range": range,
                "resolved": resolved, "entries": entries})
        })
        .boxed()
}

#[test]
fn annotations_match_the_official_reducer() {
    let initial = prop::collection::vec(annotation(), 0..4)
        .prop_map(|a| json!({"annotations": a}))
        .boxed();
    let id = || pick(&["a1", "a2", "a3"]);
    let action = prop_oneof![
        2 => annotation().prop_map(|a| json!({"type": "annotations/set", "annotation": a})),
        2 => (id(), prop::option::of(origin()), prop::option::of(pick(&["file:///z"])),
            prop::option::of(range()), prop::option::of(any::<bool>()))
            .prop_map(|(id, origin, resource, range, resolved)| {
                json!({"type": "annotations/updated", "annotationId": id, "origin": origin,
                    "resource": resource, "range": range, "resolved": resolved})
            }),
        1 => id().prop_map(|id| json!({"type": "annotations/removed", "annotationId": id})),
        2 => (id(), entry()).prop_map(|(id, e)| json!({"type": "annotations/entrySet",
            "annotationId": id, "entry": e})),
        2 => (id(), pick(&["e1", "e2", "e9"])).prop_map(|(id, e)| {
            json!({"type": "annotations/entryRemoved", "annotationId": id, "entryId": e})
        }),
        1 => foreign("annotations"),
    ]
    .boxed();
    let channel = Channel::<AnnotationsState, reference::AnnotationsState>::agreeing(
        |s, a| v1::annotations_reducer(s, a).is_applied(),
        |s, a| {
            official::apply_action_to_annotations(s, a);
        },
    );
    run(channel, initial, action, "annotations", &[]);
}

// ─── Resource watch ───────────────────────────────────────────────────

#[test]
fn resource_watch_matches_the_official_reducer() {
    let initial = (pick(&["file:///w", "file:///v"]), any::<bool>())
        .prop_map(|(root, recursive)| {
            json!({"root": root, "recursive": recursive, "excludes": ["**/node_modules"]})
        })
        .boxed();
    let action = prop_oneof![
        3 => pick(&["file:///w/a", "file:///w/b"]).prop_map(|uri| {
            json!({"type": "resourceWatch/changed", "changes": [{"uri": uri, "kind": "changed"}]})
        }),
        1 => foreign("resourceWatch"),
    ]
    .boxed();
    let channel = Channel::<ResourceWatchState, reference::ResourceWatchState>::agreeing(
        |s, a| v1::resource_watch_reducer(s, a).is_applied(),
        |s, a| {
            official::apply_action_to_resource_watch(s, a);
        },
    );
    run(
        channel,
        initial,
        action,
        "resourceWatch",
        &["resourceWatch/changed"],
    );
}

// ─── Automation ───────────────────────────────────────────────────────

fn definition() -> BoxedStrategy<Value> {
    (text(), any::<bool>(), 0i64..4)
        .prop_map(|(title, enabled, max)| {
            json!({"title": title, "message": {"text": "go", "origin": {"kind": "automation"}},
                "session": {}, "enabled": enabled, "triggers": [],
                "disableConditions": [{"kind": "afterRuns", "max": max}]})
        })
        .boxed()
}

fn automation_entry() -> BoxedStrategy<Value> {
    (
        pick(&[
            "ahp-automation:/a1",
            "ahp-automation:/a2",
            "ahp-automation:/a1",
        ]),
        definition(),
        prop::option::of(0i64..5),
        prop::option::of(pick(&["2026-01-02T00:00:00Z"])),
        meta(),
    )
        .prop_map(|(resource, definition, runs, next, meta)| {
            json!({"resource": resource, "definition": definition, "runCount": runs,
                "nextRunAt": next, "runs": [], "operations": ["update", "remove", "run"],
                "createdAt": "2025-01-01T00:00:00Z", "modifiedAt": "2025-01-01T00:00:00Z",
                "_meta": meta})
        })
        .boxed()
}

#[test]
fn automation_matches_the_official_reducer() {
    let initial = (prop::collection::vec(automation_entry(), 0..4), meta())
        .prop_map(|(entries, meta)| json!({"entries": entries, "_meta": meta}))
        .boxed();
    let resource = || {
        pick(&[
            "ahp-automation:/a1",
            "ahp-automation:/a2",
            "ahp-automation:/a3",
        ])
    };
    let action = prop_oneof![
        3 => automation_entry().prop_map(|a| json!({"type": "automation/set", "automation": a})),
        2 => resource().prop_map(|r| json!({"type": "automation/removed", "resource": r})),
        1 => (resource(), definition()).prop_map(|(r, d)| {
            json!({"type": "automation/createRequested", "resource": r, "definition": d})
        }),
        1 => (resource(), text()).prop_map(|(r, t)| {
            json!({"type": "automation/updateRequested", "resource": r, "changes": {"title": t}})
        }),
        1 => foreign("automation"),
    ]
    .boxed();
    let channel = Channel::<AutomationState, reference::AutomationState>::agreeing(
        |s, a| v1::automation_reducer(s, a).is_applied(),
        |s, a| {
            official::apply_action_to_automation(s, a);
        },
    );
    run(
        channel,
        initial,
        action,
        "automation",
        &["automation/createRequested", "automation/updateRequested"],
    );
}

// ─── Automation run ───────────────────────────────────────────────────

fn run_lifecycle() -> BoxedStrategy<Value> {
    let created = "2026-01-01T00:00:00Z";
    prop_oneof![
        Just(json!({"status": "pending", "createdAt": created})),
        Just(json!({"status": "running", "createdAt": created, "startedAt": created})),
        Just(
            json!({"status": "completed", "createdAt": created, "startedAt": created,
            "completedAt": created})
        ),
        prop::option::of(Just(created)).prop_map(move |started| json!({"status": "failed",
            "createdAt": created, "startedAt": started, "completedAt": created,
            "error": {"errorType": "e", "message": "m"}})),
        prop::option::of(Just(created)).prop_map(move |started| json!({"status": "cancelled",
            "createdAt": created, "startedAt": started, "completedAt": created})),
    ]
    .boxed()
}

fn session() -> BoxedStrategy<String> {
    pick(&["ahp-session:/s1", "ahp-session:/s2", "ahp-session:/s3"])
}

#[test]
fn automation_run_matches_the_official_reducer() {
    let origin = prop_oneof![
        Just(json!({"kind": "manual"})),
        Just(json!({"kind": "trigger", "triggerId": "tr1"})),
    ];
    let initial = (
        origin,
        run_lifecycle(),
        prop::collection::vec(session(), 0..3),
        prop::option::of(session()),
        meta(),
    )
        .prop_map(|(origin, lifecycle, sessions, primary, meta)| {
            json!({"resource": "ahp-automation-run:/r1", "automation": "ahp-automation:/a1",
                "origin": origin, "lifecycle": lifecycle, "sessions": sessions,
                "primarySession": primary, "_meta": meta})
        })
        .boxed();
    let action = prop_oneof![
        2 => run_lifecycle().prop_map(|l| json!({"type": "automationRun/lifecycleChanged",
            "lifecycle": l})),
        3 => session().prop_map(|s| json!({"type": "automationRun/sessionSet", "session": s})),
        3 => session().prop_map(|s| json!({"type": "automationRun/sessionRemoved",
            "session": s})),
        2 => prop::option::of(session()).prop_map(|s| {
            json!({"type": "automationRun/primarySessionChanged", "primarySession": s})
        }),
        1 => Just(json!({"type": "automationRun/cancelRequested"})),
        1 => foreign("automationRun"),
    ]
    .boxed();
    let channel = Channel::<AutomationRunState, reference::AutomationRunState>::agreeing(
        |s, a| v1::automation_run_reducer(s, a).is_applied(),
        |s, a| {
            official::apply_action_to_automation_run(s, a);
        },
    );
    run(
        channel,
        initial,
        action,
        "automationRun",
        &["automationRun/cancelRequested"],
    );
}
