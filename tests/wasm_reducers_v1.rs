//! The AHP 1.0 reducers exported to JavaScript (the build with cargo feature `v1`: `rootReducer`,
//! `sessionReducer`, `chatReducer`, ..., `automationRunReducer`), called on JS values:
//!
//! ```sh
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=scripts/wasm-test-runner.sh \
//!   cargo test --target wasm32-unknown-unknown --features v1 --test wasm_reducers_v1
//! ```
//!
//! - the 299 official 1.0.0 reducer fixtures (`protocol/ahp-1.0.0/conformance/reducers/`,
//!   embedded by `tests/wasm/fixtures_v1.rs`), each parsed with `JSON.parse` and run through
//!   the exported function its `reducer` names, twice: chained (the cache and render path) and
//!   from a fresh copy of the state for every action (the full conversion), which must agree at
//!   every step; the final state must equal the fixture's (nulls dropped, numbers by value), the
//!   fixture's objects must not change, and every new state must be deeply frozen;
//! - the canvas and automation-run reducers (no fixture here covers them) chained against the
//!   Rust reducers;
//! - a no-op returns the input object itself; a chained call returns a frozen state that shares
//!   what the action did not change; bad input throws `InvalidInputError` with a path; values of
//!   any JS type are rejected or reduced, never a trap.
//!
//! Runs in headless Chromium (scripts/wasm-test-runner.sh); the same fixtures run in Node through
//! the built package's default entry `ahp-wasm` (tests/node/v1-entry.test.mjs). Natively, or without
//! feature `v1`, this file is empty.
#![cfg(all(target_arch = "wasm32", feature = "v1"))]

mod common;
#[path = "wasm/fixtures_v1.rs"]
mod fixtures_v1;

use ahp_wasm::protocol::v1::{AutomationRunState, CanvasState, StateAction};
use ahp_wasm::reduce::FixedClock;
use ahp_wasm::sync::MirrorState;
use ahp_wasm::wasm;
use js_sys::{Array, Reflect, JSON};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = "
export function isDeeplyFrozen(root) {
  const stack = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (!Object.isFrozen(value)) return false;
    for (const key of Object.keys(value)) stack.push(value[key]);
  }
  return true;
}
export function isInstanceOf(value, ctor) { return value instanceof ctor; }
export function strangeValues() {
  const cyclic = { type: 'chat/titleChanged' };
  cyclic.self = cyclic;
  let deep = {};
  for (let i = 0; i < 100000; i++) deep = { d: deep };
  const getter = {};
  Object.defineProperty(getter, 'type', { enumerable: true, get() { throw new Error('no'); } });
  return [undefined, null, 0, -1.5, NaN, Infinity, '', 'chat', true, false, Symbol('s'),
    10n, () => 1, [], [1, 2], {}, { type: 7 }, { type: null }, new Date(0), new Map(),
    new Uint8Array(2), cyclic, deep, getter, Object.create(null), new Proxy({}, {})];
}
")]
extern "C" {
    #[wasm_bindgen(js_name = isDeeplyFrozen)]
    fn is_deeply_frozen(value: &JsValue) -> bool;
    #[wasm_bindgen(js_name = isInstanceOf)]
    fn is_instance_of(value: &JsValue, ctor: &JsValue) -> bool;
    #[wasm_bindgen(js_name = strangeValues)]
    fn strange_values() -> Array;
}

type JsReducer = fn(JsValue, JsValue) -> Result<JsValue, JsValue>;

/// The exports, by the fixtures' `reducer` names.
const REDUCERS: [(&str, JsReducer); 10] = [
    ("root", wasm::root_reducer),
    ("session", wasm::session_reducer),
    ("chat", wasm::chat_reducer),
    ("terminal", wasm::terminal_reducer),
    ("changeset", wasm::changeset_reducer),
    ("resourceWatch", wasm::resource_watch_reducer),
    ("annotations", wasm::annotations_reducer),
    ("canvas", wasm::canvas_reducer),
    ("automation", wasm::automation_reducer),
    ("automationRun", wasm::automation_run_reducer),
];

fn reducer(name: &str) -> Result<JsReducer, String> {
    REDUCERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
        .ok_or_else(|| format!("unknown reducer {name:?}"))
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn describe(error: &JsValue) -> String {
    match error.dyn_ref::<js_sys::Error>() {
        Some(e) => format!(
            "{}: {} (path {:?})",
            String::from(e.name()),
            String::from(e.message()),
            get(error, "path").as_string()
        ),
        None => format!("{error:?}"),
    }
}

/// The JSON view of a JS value.
fn to_json(value: &JsValue) -> Result<Value, String> {
    let text = JSON::stringify(value).map_err(|e| describe(&e))?;
    serde_json::from_str(&String::from(text)).map_err(|e| e.to_string())
}

fn to_js(value: &Value) -> JsValue {
    JSON::parse(&value.to_string()).expect("JSON.parse")
}

/// A fresh, unfrozen copy of a JS value (the caller's own object).
fn fresh_copy(value: &JsValue) -> Result<JsValue, String> {
    let text = JSON::stringify(value).map_err(|e| describe(&e))?;
    JSON::parse(&String::from(text)).map_err(|e| describe(&e))
}

fn run_fixture(text: &str) -> Result<(), String> {
    let fixture = JSON::parse(text).map_err(|e| describe(&e))?;
    let name = get(&fixture, "reducer").as_string().ok_or("no reducer")?;
    let reduce = reducer(&name)?;
    let initial = get(&fixture, "initial");
    let actions: Array = get(&fixture, "actions")
        .dyn_into()
        .map_err(|_| "no actions array")?;
    let before = (to_json(&initial)?, to_json(&actions)?);
    // `state` chains the returned states (the cache and render path); `fresh` is converted in
    // full every time from a new, unfrozen copy. Both must agree after every action.
    let mut state = initial.clone();
    let mut fresh = initial.clone();
    for (i, action) in actions.iter().enumerate() {
        let step = |e: JsValue| format!("action {i}: {}", describe(&e));
        let input = state.clone();
        state = reduce(state, action.clone()).map_err(step)?;
        if state != input && !is_deeply_frozen(&state) {
            return Err(format!("action {i}: the new state is not deeply frozen"));
        }
        fresh = reduce(fresh_copy(&fresh)?, action).map_err(step)?;
        let cached = common::normalize(&to_json(&state)?);
        let full = common::normalize(&to_json(&fresh)?);
        if let Some(diff) = common::first_difference("state", &cached, &full) {
            return Err(format!(
                "after action {i}, the cached path differs from a full conversion: {diff}"
            ));
        }
    }
    let actual = common::normalize(&to_json(&state)?);
    let expected = common::normalize(&to_json(&get(&fixture, "expected"))?);
    if let Some(diff) = common::first_difference("state", &actual, &expected) {
        return Err(diff);
    }
    if (to_json(&initial)?, to_json(&actions)?) != before {
        return Err("the fixture's initial state or actions were mutated".into());
    }
    Ok(())
}

#[wasm_bindgen_test]
fn all_v1_conformance_fixtures_pass_through_the_js_functions() {
    assert_eq!(
        fixtures_v1::FIXTURES.len(),
        299,
        "expected the 299 official 1.0.0 fixtures"
    );
    let mut failures = Vec::new();
    for (name, text) in fixtures_v1::FIXTURES {
        if let Err(e) = run_fixture(text) {
            failures.push(format!("{name}: {e}"));
        }
    }
    let passed = fixtures_v1::FIXTURES.len() - failures.len();
    console_log!("wasm 1.0 conformance: {passed}/299 fixtures passed");
    assert!(
        failures.is_empty(),
        "{} fixtures failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A fixture's initial state and actions, by file name prefix.
fn fixture(prefix: &str) -> (JsValue, Vec<JsValue>) {
    let (_, text) = fixtures_v1::FIXTURES
        .iter()
        .find(|(name, _)| name.starts_with(prefix))
        .unwrap_or_else(|| panic!("no fixture {prefix}"));
    let fixture = JSON::parse(text).unwrap();
    let actions = Array::from(&get(&fixture, "actions")).iter().collect();
    (get(&fixture, "initial"), actions)
}

/// A chat fixture's initial state and its first action, which applies.
fn chat_case() -> (JsValue, JsValue) {
    for (name, text) in fixtures_v1::FIXTURES {
        let fixture = JSON::parse(text).unwrap();
        if get(&fixture, "reducer").as_string().as_deref() != Some("chat") {
            continue;
        }
        let initial = get(&fixture, "initial");
        let action = Array::from(&get(&fixture, "actions")).get(0);
        let out = wasm::chat_reducer(fresh_copy(&initial).unwrap(), action.clone())
            .unwrap_or_else(|e| panic!("{name}: {}", describe(&e)));
        if to_json(&out).unwrap() != to_json(&initial).unwrap() {
            return (initial, action);
        }
    }
    panic!("no chat fixture whose first action applies");
}

#[wasm_bindgen_test]
fn the_input_is_never_mutated() {
    let (initial, action) = chat_case();
    let (state_before, action_before) = (to_json(&initial).unwrap(), to_json(&action).unwrap());
    let out = wasm::chat_reducer(initial.clone(), action.clone()).expect("reduced");
    assert!(out != initial, "an applied action returns a new object");
    assert_eq!(
        to_json(&initial).unwrap(),
        state_before,
        "the state changed"
    );
    assert_eq!(
        to_json(&action).unwrap(),
        action_before,
        "the action changed"
    );
    assert!(
        !js_sys::Object::is_frozen(initial.unchecked_ref::<js_sys::Object>()),
        "the caller's object was frozen"
    );
    // The output shares no object with the caller's input.
    for key in js_sys::Object::keys(out.unchecked_ref::<js_sys::Object>()).iter() {
        let key = key.as_string().unwrap();
        let (old, new) = (get(&initial, &key), get(&out, &key));
        assert!(
            !(old.is_object() && old == new),
            "`{key}` is the caller's object"
        );
    }
}

#[wasm_bindgen_test]
fn a_no_op_returns_the_same_object() {
    let unknown = to_js(&json!({"type": "chat/fromTheFuture", "x": 1}));
    let foreign = to_js(&json!({"type": "terminal/cleared"}));
    let (initial, action) = chat_case();
    for no_op in [&unknown, &foreign] {
        let out = wasm::chat_reducer(initial.clone(), no_op.clone()).expect("no-op");
        assert!(out == initial, "the caller's own object comes back");
    }
    // Chained from a state the module returned (cached): the same frozen object comes back.
    let applied = wasm::chat_reducer(initial, action).expect("applied");
    for no_op in [&unknown, &foreign] {
        let out = wasm::chat_reducer(applied.clone(), no_op.clone()).expect("no-op");
        assert!(out == applied, "a cached state comes back as it is");
    }
    // Every other reducer too, on its fixtures' initial states.
    for (prefix, name) in [
        ("001-root-agentschanged", "root"),
        ("003-session-ready", "session"),
        ("072-terminal-data-appends", "terminal"),
        ("136-changeset-status-changed-to-ready", "changeset"),
        ("210-annotations-set-appends-new-annotation", "annotations"),
        ("270-automation-request-actions-noop", "automation"),
    ] {
        let (state, _) = fixture(prefix);
        let reduce = reducer(name).unwrap();
        let out = reduce(state.clone(), unknown.clone()).expect("no-op");
        assert!(out == state, "{name}: the caller's object comes back");
    }
}

#[wasm_bindgen_test]
fn a_chained_call_returns_a_frozen_state() {
    let (initial, action) = chat_case();
    let first = wasm::chat_reducer(initial, action).expect("applied");
    assert!(
        is_deeply_frozen(&first),
        "the first result is deeply frozen"
    );
    let movable = to_js(&json!({"type": "chat/movableChanged", "movable": true}));
    let draft = to_js(&json!({"type": "chat/draftChanged",
        "draft": {"text": "d", "origin": {"kind": "user"}}}));
    let mut state = first.clone();
    let mut applied = 0;
    for action in [movable, draft] {
        let next = wasm::chat_reducer(state.clone(), action).expect("chained");
        assert!(is_deeply_frozen(&next), "a chained result is deeply frozen");
        if next != state {
            applied += 1;
            // What the action did not change keeps its identity.
            let mut shared = 0;
            for key in js_sys::Object::keys(state.unchecked_ref::<js_sys::Object>()).iter() {
                let key = key.as_string().unwrap();
                let (old, new) = (get(&state, &key), get(&next, &key));
                if old.is_object() && old == new {
                    shared += 1;
                }
            }
            assert!(shared > 0, "no top-level object kept its identity");
        }
        state = next;
    }
    assert!(applied > 0, "no chained action applied");
    // The chain agrees with a full conversion of the caller's copy.
    let again = wasm::chat_reducer(
        fresh_copy(&first).unwrap(),
        to_js(&json!({"type": "chat/movableChanged", "movable": true})),
    )
    .unwrap();
    let again = wasm::chat_reducer(
        again,
        to_js(&json!({"type": "chat/draftChanged",
            "draft": {"text": "d", "origin": {"kind": "user"}}})),
    )
    .unwrap();
    assert_eq!(
        common::normalize(&to_json(&state).unwrap()),
        common::normalize(&to_json(&again).unwrap())
    );
}

/// The same call twice in a row (React `StrictMode`) gives the same object.
#[wasm_bindgen_test]
fn a_repeated_call_returns_the_first_result() {
    let (initial, action) = chat_case();
    let first = wasm::chat_reducer(initial.clone(), action.clone()).expect("applied");
    let second = wasm::chat_reducer(initial, fresh_copy(&action).unwrap()).expect("applied");
    assert!(first == second);
}

fn assert_invalid_input(error: &JsValue, argument: &str, path: &str) {
    let classes = wasm::error_classes_export();
    assert!(
        is_instance_of(error, &get(&classes, "InvalidInputError")),
        "not an InvalidInputError: {}",
        describe(error)
    );
    assert!(is_instance_of(error, &get(&classes, "AhpError")));
    assert_eq!(
        get(error, "kind").as_string().as_deref(),
        Some("invalid-input")
    );
    assert_eq!(
        get(error, "argument").as_string().as_deref(),
        Some(argument)
    );
    assert_eq!(get(error, "path").as_string().as_deref(), Some(path));
}

#[wasm_bindgen_test]
fn invalid_input_throws_invalid_input_error_with_a_path() {
    let (initial, _) = chat_case();
    let bad_action = to_js(&json!({"type": "chat/movableChanged", "movable": "yes"}));
    let error = wasm::chat_reducer(initial.clone(), bad_action).unwrap_err();
    assert_invalid_input(&error, "action", "movable");
    let message = String::from(js_sys::Error::from(error).message());
    assert!(message.contains("movable"), "{message}");

    let mut state = to_json(&initial).unwrap();
    state["turns"] = json!(5);
    let good_action = to_js(&json!({"type": "chat/movableChanged", "movable": true}));
    let error = wasm::chat_reducer(to_js(&state), good_action.clone()).unwrap_err();
    assert_invalid_input(&error, "state", "turns");

    let (root, _) = fixture("001-root-agentschanged");
    let mut root = to_json(&root).unwrap();
    root["agents"] = json!([{"provider": 1}]);
    let action = to_js(&json!({"type": "root/activeSessionsChanged", "activeSessions": 2}));
    let error = wasm::root_reducer(to_js(&root), action).unwrap_err();
    assert_invalid_input(&error, "state", "agents[0].provider");
}

/// Values of every JS type as state and as action: each call throws an `InvalidInputError` or
/// returns, and the module keeps working (a trap would leave it unusable).
#[wasm_bindgen_test]
fn wrong_type_values_never_trap() {
    let (initial, action) = chat_case();
    let values = strange_values();
    let classes = wasm::error_classes_export();
    let invalid = get(&classes, "InvalidInputError");
    let mut calls = 0;
    for (name, reduce) in REDUCERS {
        for value in values.iter() {
            for (state, action) in [
                (value.clone(), action.clone()),
                (initial.clone(), value.clone()),
            ] {
                calls += 1;
                if let Err(error) = reduce(state, action) {
                    assert!(
                        is_instance_of(&error, &invalid),
                        "{name}: not an InvalidInputError: {}",
                        describe(&error)
                    );
                }
            }
        }
    }
    assert!(calls >= 500, "{calls} calls");
    let out = wasm::chat_reducer(initial.clone(), action).expect("still works");
    assert!(out != initial && is_deeply_frozen(&out));
}

/// Runs `actions` from `initial` through the export and through the Rust reducer directly; the
/// JS state must equal the Rust one after every step, and a no-op must return its input.
fn chain_matches_rust<S>(reduce: JsReducer, initial: Value, actions: &[Value])
where
    S: MirrorState<Action = StateAction> + serde::de::DeserializeOwned,
{
    let mut rust: S = serde_json::from_value(initial.clone()).expect("state");
    let mut js = to_js(&initial);
    let mut applied = 0;
    for (i, action) in actions.iter().enumerate() {
        let typed: StateAction = serde_json::from_value(action.clone()).expect("action");
        let changed = !matches!(
            rust.reduce(&typed, &FixedClock(0.0)),
            ahp_wasm::reduce::Outcome::NoOp(_)
        );
        let next = reduce(js.clone(), to_js(action)).unwrap_or_else(|e| panic!("{}", describe(&e)));
        assert_eq!(next != js, changed, "action {i}: {action}");
        applied += usize::from(changed);
        js = next;
        assert!(
            applied == 0 || is_deeply_frozen(&js),
            "action {i}: not frozen"
        );
        assert_eq!(
            common::normalize(&to_json(&js).unwrap()),
            common::normalize(&serde_json::to_value(&rust).unwrap()),
            "action {i}: {action}"
        );
    }
    assert!(applied > 0, "no action applied");
}

#[wasm_bindgen_test]
fn canvas_reducer_chains_match_the_rust_reducer() {
    let canvas = |title: &str| {
        json!({"instanceId": "i1", "extensionId": "ext.a", "canvasId": "c1", "title": title,
            "status": "ready", "url": "https://x/1"})
    };
    chain_matches_rust::<CanvasState>(
        wasm::canvas_reducer,
        canvas("one"),
        &[
            json!({"type": "canvas/stateChanged", "canvas": canvas("two")}),
            json!({"type": "chat/movableChanged", "movable": true}),
            json!({"type": "canvas/stateChanged", "canvas": canvas("two")}),
            json!({"type": "canvas/stateChanged", "canvas": {"instanceId": "i1",
                "extensionId": "ext.b", "canvasId": "c1", "zzNewer": [1]}}),
            json!({"type": "canvas/fromTheFuture"}),
        ],
    );
}

#[wasm_bindgen_test]
fn automation_run_reducer_chains_match_the_rust_reducer() {
    let created = "2026-01-01T00:00:00Z";
    chain_matches_rust::<AutomationRunState>(
        wasm::automation_run_reducer,
        json!({"resource": "ahp-automation-run:/r1", "automation": "ahp-automation:/a1",
            "origin": {"kind": "manual"}, "lifecycle": {"status": "pending", "createdAt": created},
            "sessions": []}),
        &[
            json!({"type": "automationRun/sessionSet", "session": "ahp-session:/s1"}),
            json!({"type": "automationRun/sessionSet", "session": "ahp-session:/s1"}),
            json!({"type": "automationRun/primarySessionChanged",
                "primarySession": "ahp-session:/s1"}),
            json!({"type": "automationRun/lifecycleChanged", "lifecycle": {"status": "running",
                "createdAt": created, "startedAt": created}}),
            json!({"type": "automationRun/cancelRequested"}),
            json!({"type": "automationRun/sessionRemoved", "session": "ahp-session:/s1"}),
            json!({"type": "terminal/cleared"}),
        ],
    );
}
