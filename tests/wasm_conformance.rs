//! The 163 official reducer conformance fixtures through the JS API of the wasm build, in
//! headless Chromium:
//!
//! ```sh
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   cargo test --target wasm32-unknown-unknown --test wasm_conformance
//! ```
//!
//! Each fixture's JSON text is parsed with `JSON.parse` into plain JS objects, which go through
//! the exported `#[wasm_bindgen]` functions (`sessionReducer`, ...), with `Date.now` stubbed
//! to 9999; the final state is compared with nulls removed. Each fixture also runs through the
//! full-conversion path (a fresh copy of the state for every action), which must agree with the
//! cached path at every step. Natively this file is empty.
#![cfg(target_arch = "wasm32")]

mod common;
#[path = "wasm/fixed_now.rs"]
mod fixed_now;
#[path = "wasm/fixtures.rs"]
mod fixtures;

use ahp_wasm::wasm;
use fixed_now::FixedNow;
use js_sys::{Array, Reflect, JSON};
use serde_json::Value;
use tsify::Ts;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const FIXTURE_NOW: f64 = 9999.0;

#[wasm_bindgen(inline_js = "
export function isInstanceOf(value, ctor) { return value instanceof ctor; }
")]
extern "C" {
    #[wasm_bindgen(js_name = isInstanceOf)]
    fn is_instance_of(value: &JsValue, ctor: &JsValue) -> bool;
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// One action through the exported function for `reducer`.
fn apply(reducer: &str, state: JsValue, action: JsValue) -> Result<JsValue, JsValue> {
    let action = Ts::new_unchecked(action);
    match reducer {
        "root" => wasm::root_reducer(Ts::new_unchecked(state), action).map(JsValue::from),
        "session" => wasm::session_reducer(Ts::new_unchecked(state), action).map(JsValue::from),
        "terminal" => wasm::terminal_reducer(Ts::new_unchecked(state), action).map(JsValue::from),
        "changeset" => wasm::changeset_reducer(Ts::new_unchecked(state), action).map(JsValue::from),
        "resourceWatch" => {
            wasm::resource_watch_reducer(Ts::new_unchecked(state), action).map(JsValue::from)
        }
        other => Err(JsValue::from_str(&format!("unknown reducer {other:?}"))),
    }
}

fn describe(error: &JsValue) -> String {
    JSON::stringify(error)
        .ok()
        .and_then(|s| s.as_string())
        .map(|json| {
            format!(
                "{} {json}",
                String::from(js_sys::Error::from(error.clone()).message())
            )
        })
        .unwrap_or_else(|| format!("{error:?}"))
}

/// The JSON view of a JS value (what a peer would see on the wire).
fn to_json(value: &JsValue) -> Result<Value, String> {
    let text = JSON::stringify(value).map_err(|e| describe(&e))?;
    serde_json::from_str(&String::from(text)).map_err(|e| e.to_string())
}

fn run_fixture(name: &str, text: &str) -> Result<(), String> {
    let fixture = JSON::parse(text).map_err(|e| describe(&e))?;
    let reducer = get(&fixture, "reducer").as_string().ok_or("no reducer")?;
    let initial = get(&fixture, "initial");
    let initial_before = to_json(&initial)?;
    let actions: Array = get(&fixture, "actions")
        .dyn_into()
        .map_err(|_| "no actions array")?;
    // `state` chains the returned states (the cached path: only the top-level fields an action
    // reports as changed are rebuilt); `fresh` is converted in full every time from a new,
    // unfrozen copy. Both must agree after every action.
    let mut state = initial.clone();
    let mut fresh = initial.clone();
    for (i, action) in actions.iter().enumerate() {
        let step = |e: JsValue| format!("action {i}: {}", describe(&e));
        state = apply(&reducer, state, action.clone()).map_err(step)?;
        let copy =
            JSON::parse(&String::from(JSON::stringify(&fresh).map_err(step)?)).map_err(step)?;
        fresh = apply(&reducer, copy, action).map_err(step)?;
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
    if to_json(&initial)? != initial_before {
        return Err(format!("{name}: the input state was mutated"));
    }
    Ok(())
}

#[wasm_bindgen_test]
fn all_conformance_fixtures_pass_through_the_js_api() {
    assert_eq!(
        fixtures::FIXTURES.len(),
        163,
        "expected the 163 official fixtures"
    );
    let _now = FixedNow::new(FIXTURE_NOW);
    let mut failures = Vec::new();
    for (name, text) in fixtures::FIXTURES {
        if let Err(e) = run_fixture(name, text) {
            failures.push(format!("{name}: {e}"));
        }
    }
    let passed = fixtures::FIXTURES.len() - failures.len();
    wasm_bindgen_test::console_log!("wasm (browser) conformance: {passed}/163 fixtures passed");
    assert!(
        failures.is_empty(),
        "{} fixtures failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[wasm_bindgen_test]
fn the_stubbed_clock_is_what_reducers_read() {
    use ahp_wasm::reduce::{Clock, SystemClock};
    let now = FixedNow::new(FIXTURE_NOW);
    assert_eq!(SystemClock.now(), FIXTURE_NOW);
    drop(now);
    assert!(SystemClock.now() > 1.0e12, "the real clock is restored");
}

#[wasm_bindgen_test]
fn bad_input_throws_invalid_input_error_with_the_path() {
    let (_, text) = fixtures::FIXTURES
        .iter()
        .find(|(name, _)| name.starts_with("010-"))
        .expect("fixture 010");
    let fixture = JSON::parse(text).unwrap();
    let state = get(&fixture, "initial");
    let bad: JsValue =
        JSON::parse(r#"{"type":"session/delta","turnId":"turn-1","partId":7,"content":"x"}"#)
            .unwrap();
    let error = wasm::session_reducer(Ts::new_unchecked(state.clone()), Ts::new_unchecked(bad))
        .unwrap_err();

    let classes = wasm::error_classes_export();
    assert!(is_instance_of(&error, &get(&classes, "InvalidInputError")));
    assert!(is_instance_of(&error, &get(&classes, "AhpError")));
    assert!(error.is_instance_of::<js_sys::Error>());
    assert_eq!(
        get(&error, "kind").as_string().as_deref(),
        Some("invalid-input")
    );
    assert_eq!(
        get(&error, "argument").as_string().as_deref(),
        Some("action")
    );
    assert_eq!(get(&error, "path").as_string().as_deref(), Some("partId"));
    let message = String::from(js_sys::Error::from(error).message());
    assert!(message.contains("partId"), "{message}");

    // Unknown action types are no-ops: the very same object comes back.
    let unknown = JSON::parse(r#"{"type":"session/fromTheFuture"}"#).unwrap();
    let out = wasm::session_reducer(Ts::new_unchecked(state.clone()), Ts::new_unchecked(unknown))
        .unwrap();
    assert!(JsValue::from(out) == state);
}
