//! The wasm client's JS surface (`AhpClient`, `Subscription`, called through JS as an app
//! would) over the browser's WebSocket, in headless Chromium, against a real `ahp-host`.
//!
//! The host's WebSocket URL and token are compiled in: `scripts/test-wasm-client.sh` starts
//! the host (allowing the test page's origin, `WASM_BINDGEN_TEST_ADDRESS`) and runs
//!
//! ```sh
//! AHP_TEST_HOST_URL=ws://127.0.0.1:PORT/ahp AHP_TEST_HOST_TOKEN=... \
//! WASM_BINDGEN_TEST_ADDRESS=127.0.0.1:RUNNER_PORT \
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   cargo test --target wasm32-unknown-unknown --test wasm_client
//! ```
//!
//! Without `AHP_TEST_HOST_URL` at compile time the tests say so and pass. Natively this file
//! is empty.
#![cfg(target_arch = "wasm32")]

use ahp_wasm::wasm::AhpClient;
use js_sys::{Array, Function, Object, Promise, Reflect, JSON};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const HOST_URL: Option<&str> = option_env!("AHP_TEST_HOST_URL");
const HOST_TOKEN: Option<&str> = option_env!("AHP_TEST_HOST_TOKEN");

fn host() -> Option<(&'static str, &'static str)> {
    match (HOST_URL, HOST_TOKEN) {
        (Some(url), Some(token)) => Some((url, token)),
        _ => {
            console_log!("AHP_TEST_HOST_URL/AHP_TEST_HOST_TOKEN not set at compile time: skipped");
            None
        }
    }
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(key)).expect("property")
}

/// Calls `target[method](...args)` as JS would; awaits a returned promise.
async fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = get(target, method).dyn_into().expect("a method");
    let args: Array = args.iter().collect();
    let value = f.apply(target, &args)?;
    match value.dyn_into::<Promise>() {
        Ok(promise) => JsFuture::from(promise).await,
        Err(value) => Ok(value),
    }
}

fn json(text: &str) -> JsValue {
    JSON::parse(text).expect("JSON")
}

fn options(token: &str) -> JsValue {
    let o = Object::new();
    Reflect::set(&o, &"token".into(), &token.into()).unwrap();
    o.into()
}

/// A JS value as JSON, `summary.modifiedAt` zeroed (the reducers stamp it with the local clock).
fn comparable(state: &JsValue) -> Value {
    let text = JSON::stringify(state).unwrap().as_string().unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value["summary"]["modifiedAt"] = Value::from(0);
    value
}

/// A new session, named `name` and the time, created and subscribed: (its URI, the subscription).
async fn new_session(client: &JsValue, name: &str) -> (String, JsValue) {
    let channel = format!("ahp-session:/{name}-{}", js_sys::Date::now());
    call(
        client,
        "createSession",
        &[json(&format!(r#"{{"channel":"{channel}"}}"#))],
    )
    .await
    .expect("createSession");
    let sub = call(client, "subscribe", &[channel.as_str().into()])
        .await
        .expect("subscribe");
    (channel, sub)
}

/// A second client, connected, and the state of its own subscription to `channel`.
async fn fresh_snapshot(url: &str, token: &str, channel: &str) -> (JsValue, JsValue) {
    let fresh = connect(url, token).await.expect("second client");
    let sub = call(&fresh, "subscribe", &[channel.into()])
        .await
        .expect("the second client subscribes");
    let state = get(&sub, "state");
    (fresh, state)
}

async fn connect(url: &str, token: &str) -> Result<JsValue, JsValue> {
    JsFuture::from(AhpClient::connect(url.into(), options(token))).await
}

#[wasm_bindgen_test]
async fn streams_a_turn_from_a_real_host_and_matches_a_fresh_snapshot() {
    let Some((url, token)) = host() else {
        return;
    };
    let client = connect(url, token).await.expect("connect");
    assert_eq!(get(&client, "connectionState"), "connected");
    let (channel, sub) = new_session(&client, "wasm-bindgen").await;
    assert_eq!(get(&get(&sub, "state"), "lifecycle"), "ready");

    // Resolve a promise from the change listener when the turn is over.
    let mut resolve_done = None;
    let done = Promise::new(&mut |resolve, _| resolve_done = Some(resolve));
    let resolve_done = resolve_done.unwrap();
    let changes = std::rc::Rc::new(std::cell::Cell::new(0u32));
    let counter = changes.clone();
    let listener = Closure::<dyn FnMut(JsValue, JsValue)>::new(move |state: JsValue, _info| {
        counter.set(counter.get() + 1);
        let turns: Array = get(&state, "turns").dyn_into().unwrap();
        if get(&state, "activeTurn").is_undefined() && turns.length() == 1 {
            let _ = resolve_done.call0(&JsValue::UNDEFINED);
        }
    });
    call(&sub, "onChange", &[listener.as_ref().clone()])
        .await
        .unwrap();
    let action = json(
        r#"{"type":"session/turnStarted","turnId":"w1",
            "message":{"text":"Hello from wasm-bindgen-test\n/long 3","origin":{"kind":"user"}}}"#,
    );
    let seq = call(&sub, "dispatch", &[action]).await.expect("dispatch");
    assert!(seq.as_f64().unwrap() >= 1.0);
    assert_eq!(get(&get(&get(&sub, "state"), "activeTurn"), "id"), "w1");
    JsFuture::from(done).await.unwrap();
    assert!(changes.get() > 2, "streamed in {} changes", changes.get());
    let state = get(&sub, "state");
    assert!(Object::is_frozen(state.unchecked_ref::<Object>()));

    let (fresh, snapshot) = fresh_snapshot(url, token, &channel).await;
    assert_eq!(comparable(&state), comparable(&snapshot));
    call(&client, "close", &[]).await.unwrap();
    call(&fresh, "close", &[]).await.unwrap();
    assert_eq!(get(&client, "connectionState"), "closed");
}

#[wasm_bindgen_test]
async fn a_wrong_token_is_a_transport_error() {
    let Some((url, _)) = host() else {
        return;
    };
    let error = connect(url, "not-the-token-0123456789")
        .await
        .expect_err("refused");
    assert!(error.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&error, "kind"), "transport");
    assert_eq!(get(&error, "transportKind"), "connect");
    assert_eq!(get(&error, "name"), "TransportError");
}

#[wasm_bindgen(
    inline_js = "export function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }"
)]
extern "C" {
    fn sleep(ms: u32) -> Promise;
}

/// Our extension's opt-in (`activeClient.systemMessageTransform`, with a newer peer's member
/// inside it) and an unknown top-level member
/// of an action survive the whole way: the subscription's optimistic state, the host's reducer
/// and echo (the confirmed state), and a fresh client's snapshot.
#[wasm_bindgen_test]
async fn unknown_members_survive_the_round_trip_through_a_real_host() {
    let Some((url, token)) = host() else {
        return;
    };
    let client = connect(url, token).await.expect("connect");
    let (channel, sub) = new_session(&client, "wasm-extras").await;
    let client_id = get(&client, "clientId").as_string().expect("clientId");
    let transform = r#"{"sections":["tone"],"zzExtMode":"replace"}"#;
    let action = json(&format!(
        r#"{{"type":"session/activeClientChanged","zzActionExt":1,
            "activeClient":{{"clientId":"{client_id}","tools":[],"systemMessageTransform":{transform}}}}}"#
    ));
    call(&sub, "dispatch", &[action]).await.expect("dispatch");
    let expected: Value = serde_json::from_str(transform).unwrap();
    let member = |state: &JsValue| -> Value {
        let text = JSON::stringify(state).unwrap().as_string().unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        value["activeClient"]["systemMessageTransform"].clone()
    };
    assert_eq!(member(&get(&sub, "state")), expected, "optimistic state");
    for _ in 0..200 {
        if get(&sub, "pendingCount").as_f64() == Some(0.0) {
            break;
        }
        JsFuture::from(sleep(10)).await.unwrap();
    }
    assert_eq!(get(&sub, "pendingCount").as_f64(), Some(0.0), "echoed");
    assert_eq!(
        member(&get(&sub, "confirmedState")),
        expected,
        "confirmed state"
    );
    assert_eq!(
        member(&get(&sub, "state")),
        expected,
        "state after the echo"
    );

    let (fresh, snapshot) = fresh_snapshot(url, token, &channel).await;
    assert_eq!(member(&snapshot), expected, "a fresh snapshot");
    call(&client, "close", &[]).await.unwrap();
    call(&fresh, "close", &[]).await.unwrap();
}
