//! The exported JS reducers (`sessionReducer`, `rootReducer`, `terminalReducer`,
//! `changesetReducer`, `resourceWatchReducer`) chained over random action sequences, in headless
//! Chromium, against the Rust reducers run directly on Rust states:
//!
//! ```sh
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   cargo test --target wasm32-unknown-unknown --test wasm_reducers
//! ```
//!
//! The sessions' ids collide on purpose (several markdown, reasoning and tool-call parts with
//! one id, ids shared across kinds, tool calls of unknown statuses), so the render path must find
//! the part the reducer changed. After every step:
//! 1. the JS output deep-equals the Rust state converted whole (JSON, nulls dropped, numbers by
//!    value);
//! 2. a no-op returns the input object itself; an applied action returns a new object;
//! 3. the output is deeply frozen (unless it is the caller's own object back from a no-op);
//! 4. chained from our own output: every top-level field the action did not change keeps its
//!    identity, and inside the active turn only the part a streamed or tool-call action hit is
//!    new (old parts and old turns keep their identity when parts or turns are pushed);
//! 5. from the caller's own object (the first step, and now and then a fresh copy): the input is
//!    not mutated, and the output shares no top-level object with it.
//!
//! Sequences come from a small seeded PRNG. The seed is `Date.now()` at the start, printed with
//! every run and in any failure; `AHP_WASM_REDUCERS_SEED=<seed>` at compile time replays one.
//! Natively this file is empty.
#![cfg(target_arch = "wasm32")]

mod common;
#[path = "wasm/fixed_now.rs"]
mod fixed_now;
#[path = "support/split_mix.rs"]
mod split_mix;

use ahp_wasm::protocol::{
    ChangesetState, ResourceWatchState, RootState, SessionState, StateAction, TerminalState,
};
use ahp_wasm::reduce::{FixedClock, Outcome};
use ahp_wasm::sync::{field_names, ChannelState, MirrorState};
use ahp_wasm::wasm;
use fixed_now::FixedNow;
use js_sys::{Reflect, JSON};
use serde_json::{json, Value};
use split_mix::SplitMix64;
use tsify::Ts;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// What `Date.now()` returns during the runs (the Rust side uses the same fixed clock).
const NOW: f64 = 7777.0;

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
export function isFrozen(value) { return Object.isFrozen(value); }
export function ownKeys(value) { return Object.keys(value); }
")]
extern "C" {
    #[wasm_bindgen(js_name = isDeeplyFrozen)]
    fn is_deeply_frozen(value: &JsValue) -> bool;
    #[wasm_bindgen(js_name = isFrozen)]
    fn is_frozen(value: &JsValue) -> bool;
    #[wasm_bindgen(js_name = ownKeys)]
    fn own_keys(value: &JsValue) -> Vec<String>;
}

/// Test-case draws over [`SplitMix64`].
struct Rng(SplitMix64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// True with probability `1 / n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn text(&mut self) -> String {
        let alphabet = ["a", "b", " ", "é", "\n", "𝄞", "\"", "z"];
        (0..self.below(4)).map(|_| *self.pick(&alphabet)).collect()
    }

    /// An id from a pool every addressable part shares (`""` is what a tool call of an unknown
    /// status answers to).
    fn id(&mut self) -> &'static str {
        const IDS: [&str; 5] = ["a", "a", "b", "b", ""];
        IDS[self.below(IDS.len())]
    }

    fn turn(&mut self) -> &'static str {
        const TURNS: [&str; 4] = ["t1", "t1", "t1", "t2"];
        TURNS[self.below(TURNS.len())]
    }
}

fn the_seed() -> u64 {
    match option_env!("AHP_WASM_REDUCERS_SEED") {
        Some(seed) => seed.parse().expect("AHP_WASM_REDUCERS_SEED is a number"),
        None => js_sys::Date::now() as u64,
    }
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn to_json(value: &JsValue) -> Value {
    let text = JSON::stringify(value).expect("stringify");
    serde_json::from_str(&String::from(text)).expect("JSON")
}

fn to_js(value: &Value) -> JsValue {
    JSON::parse(&value.to_string()).expect("JSON.parse")
}

/// A fresh, unfrozen copy of a JS value (the caller's own object).
fn fresh_copy(value: &JsValue) -> JsValue {
    JSON::parse(&String::from(JSON::stringify(value).expect("stringify"))).expect("parse")
}

type JsReducer = fn(JsValue, JsValue) -> Result<JsValue, JsValue>;

fn session_js(state: JsValue, action: JsValue) -> Result<JsValue, JsValue> {
    wasm::session_reducer(Ts::new_unchecked(state), Ts::new_unchecked(action)).map(JsValue::from)
}
fn root_js(state: JsValue, action: JsValue) -> Result<JsValue, JsValue> {
    wasm::root_reducer(Ts::new_unchecked(state), Ts::new_unchecked(action)).map(JsValue::from)
}
fn terminal_js(state: JsValue, action: JsValue) -> Result<JsValue, JsValue> {
    wasm::terminal_reducer(Ts::new_unchecked(state), Ts::new_unchecked(action)).map(JsValue::from)
}
fn changeset_js(state: JsValue, action: JsValue) -> Result<JsValue, JsValue> {
    wasm::changeset_reducer(Ts::new_unchecked(state), Ts::new_unchecked(action)).map(JsValue::from)
}
fn resource_watch_js(state: JsValue, action: JsValue) -> Result<JsValue, JsValue> {
    wasm::resource_watch_reducer(Ts::new_unchecked(state), Ts::new_unchecked(action))
        .map(JsValue::from)
}

/// Property 4 inside a session: after an action that hits one part or appends, only that part is
/// new (a tool-call action hits every call with its id); after a turn ends, the earlier turns
/// are the same objects.
fn check_session_sharing(input: &JsValue, out: &JsValue, action: &Value) -> Result<(), String> {
    let ty = action["type"].as_str().unwrap_or_default();
    let (old_turn, new_turn) = (get(input, "activeTurn"), get(out, "activeTurn"));
    if old_turn.is_object() && new_turn.is_object() && get(&old_turn, "id") == get(&new_turn, "id")
    {
        let old = js_sys::Array::from(&get(&old_turn, "responseParts"));
        let new = js_sys::Array::from(&get(&new_turn, "responseParts"));
        let streams = ty == "session/delta" || ty == "session/reasoning" || ty.contains("toolCall");
        let pushes = ty == "session/responsePart" || ty == "session/toolCallStart";
        if streams || pushes {
            let renewed = (0..old.length().min(new.length()))
                .filter(|&i| old.get(i) != new.get(i))
                .count();
            // A tool-call update changes every call with its id (as the TypeScript reducers do).
            let calls_with_id = (0..old.length())
                .filter(|&i| {
                    let call = get(&old.get(i), "toolCall");
                    call.is_object()
                        && get(&call, "toolCallId").as_string().as_deref()
                            == action["toolCallId"].as_str()
                })
                .count();
            let allowed = if new.length() > old.length() {
                0
            } else if ty.contains("toolCall") {
                calls_with_id.max(1)
            } else {
                1
            };
            if renewed > allowed {
                return Err(format!(
                    "{renewed} old response parts are new objects after {ty} (at most {allowed})"
                ));
            }
        }
    }
    let (old_turns, new_turns) = (get(input, "turns"), get(out, "turns"));
    if !js_sys::Array::is_array(&old_turns) || !js_sys::Array::is_array(&new_turns) {
        return Ok(());
    }
    let (old_turns, new_turns) = (
        js_sys::Array::from(&old_turns),
        js_sys::Array::from(&new_turns),
    );
    if new_turns.length() == old_turns.length() + 1 {
        if let Some(i) = (0..old_turns.length()).find(|&i| old_turns.get(i) != new_turns.get(i)) {
            return Err(format!(
                "turn {i} is a new object after {ty} appended a turn"
            ));
        }
    }
    Ok(())
}

/// Chains `actions` through the JS reducer and the Rust one, checking properties 1-5 after every
/// step. `fresh_every`: how often (1 in n) the input is a fresh copy instead of our last output.
fn run_sequence<S: ChannelState>(
    js_reducer: JsReducer,
    initial: &Value,
    actions: &[Value],
    rng: &mut Rng,
    fresh_every: usize,
) -> Result<(), String> {
    let clock = FixedClock(NOW);
    let mut rust: S =
        ahp_wasm::protocol::decode::from_text(&initial.to_string()).map_err(|e| e.to_string())?;
    let mut js = to_js(initial);
    let mut from_caller = true; // the first input is the caller's own object
    for (i, value) in actions.iter().enumerate() {
        let fail = |what: String| format!("action {i} {value}: {what}");
        let input = if from_caller {
            js.clone()
        } else if rng.one_in(fresh_every) {
            from_caller = true;
            fresh_copy(&js)
        } else {
            js.clone()
        };
        let input_text = JSON::stringify(&input).map(String::from).ok();
        let action: StateAction =
            serde_json::from_value(value.clone()).map_err(|e| fail(e.to_string()))?;
        let outcome = rust.reduce(&action, &clock);
        let out = js_reducer(input.clone(), to_js(value)).map_err(|e| fail(format!("{e:?}")))?;

        // 1. The same state as the Rust reducer's, converted whole.
        let expected = common::normalize(&serde_json::to_value(&rust).map_err(|e| e.to_string())?);
        if let Some(diff) =
            common::first_difference("state", &common::normalize(&to_json(&out)), &expected)
        {
            return Err(fail(format!(
                "the JS output differs from the Rust state: {diff}"
            )));
        }
        // 2., 3., 4., 5.
        match outcome {
            Outcome::NoOp(_) => {
                if out != input {
                    return Err(fail("a no-op did not return the input object".into()));
                }
            }
            Outcome::Applied(changed) => {
                if out == input {
                    return Err(fail("an applied action returned the input object".into()));
                }
                if !is_deeply_frozen(&out) {
                    return Err(fail("the output is not deeply frozen".into()));
                }
                if from_caller {
                    for key in own_keys(&out) {
                        let value = get(&out, &key);
                        if value.is_object() && value == get(&input, &key) {
                            return Err(fail(format!(
                                "`{key}` is shared with the caller's object"
                            )));
                        }
                    }
                } else {
                    let changed = field_names::<S>(changed);
                    for &field in S::fields() {
                        let name = S::field_name(field);
                        if !changed.contains(&name) && get(&out, name) != get(&input, name) {
                            return Err(fail(format!("unchanged `{name}` lost its identity")));
                        }
                    }
                    check_session_sharing(&input, &out, value).map_err(fail)?;
                }
            }
        }
        if from_caller {
            if is_frozen(&input) || JSON::stringify(&input).map(String::from).ok() != input_text {
                return Err(fail("the caller's object was changed".into()));
            }
        } else if !is_deeply_frozen(&out) {
            return Err(fail("a state we returned is not deeply frozen".into()));
        }
        from_caller = from_caller && out == input;
        js = out;
    }
    Ok(())
}

/// Runs `count` sequences from `case`, reporting the seed of a failing one.
fn run_many<S: ChannelState>(
    name: &str,
    js_reducer: JsReducer,
    count: usize,
    seed: u64,
    case: impl Fn(&mut Rng) -> (Value, Vec<Value>),
) {
    let _now = FixedNow::new(NOW);
    let mut steps = 0;
    for n in 0..count {
        let case_seed = seed.wrapping_add(n as u64);
        let mut rng = Rng(SplitMix64(case_seed));
        let (initial, actions) = case(&mut rng);
        steps += actions.len();
        if let Err(e) = run_sequence::<S>(js_reducer, &initial, &actions, &mut rng, 8) {
            panic!(
                "{name}: sequence {n} failed (AHP_WASM_REDUCERS_SEED={seed}, case seed \
                 {case_seed}): {e}\ninitial: {initial}\nactions: {}",
                Value::Array(actions)
            );
        }
    }
    console_log!("{name}: {count} sequences, {steps} actions (seed {seed})");
}

// ---------------------------------------------------------------------------------------------
// Sessions, with colliding ids
// ---------------------------------------------------------------------------------------------

fn tool_call(status: &str, id: &str) -> Value {
    let mut call = json!({"status": status, "toolCallId": id, "toolName": "bash",
        "displayName": "Bash", "invocationMessage": "run"});
    match status {
        "running" => {
            call["toolInput"] = json!("ls");
            call["confirmed"] = json!("not-needed");
        }
        "pending-confirmation" => call["toolInput"] = json!("ls"),
        "completed" => {
            call["confirmed"] = json!("user-action");
            call["success"] = json!(true);
            call["pastTenseMessage"] = json!("ran");
        }
        "streaming" => {}
        _ => call["somethingNew"] = json!({"x": [1]}),
    }
    json!({"kind": "toolCall", "toolCall": call})
}

fn part(rng: &mut Rng) -> Value {
    let id = rng.id();
    match rng.below(9) {
        0..=2 => json!({"kind": "markdown", "id": id, "content": rng.text()}),
        3 | 4 => json!({"kind": "reasoning", "id": id, "content": rng.text()}),
        5 | 6 => {
            let status = *rng.pick(&[
                "streaming",
                "running",
                "pending-confirmation",
                "completed",
                "paused-for-lunch",
            ]);
            tool_call(status, id)
        }
        7 => json!({"kind": "systemNotification", "content": rng.text()}),
        _ => json!({"kind": "futurePart", "id": id}),
    }
}

fn session_initial(rng: &mut Rng) -> Value {
    let summary = json!({"resource": "copilot:/s", "provider": "copilot", "title": "S",
        "status": 1, "createdAt": 1000, "modifiedAt": 1000});
    let user = |t: &str| json!({"text": t, "origin": {"kind": "user"}});
    if rng.one_in(5) {
        return json!({"summary": summary, "lifecycle": "ready", "turns": []});
    }
    let parts: Vec<Value> = (0..rng.below(6)).map(|_| part(rng)).collect();
    let mut state = json!({"summary": summary, "lifecycle": "ready",
        "turns": [{"id": "t0", "message": user("first"), "responseParts": [part(rng)],
            "state": "complete"}],
        "activeTurn": {"id": "t1", "message": user("second"), "responseParts": parts}});
    state["summary"]["status"] = json!(8);
    state
}

fn session_action(rng: &mut Rng) -> Value {
    let (t, id) = (rng.turn(), rng.id());
    let call = |ty: &str| json!({"type": ty, "turnId": t, "toolCallId": id});
    let with = |mut base: Value, extra: Value| {
        if let (Value::Object(b), Value::Object(e)) = (&mut base, extra) {
            b.extend(e);
        }
        base
    };
    match rng.below(40) {
        0..=9 => json!({"type": "session/delta", "turnId": t, "partId": id, "content": rng.text()}),
        10..=12 => {
            json!({"type": "session/reasoning", "turnId": t, "partId": id, "content": rng.text()})
        }
        13..=15 => json!({"type": "session/responsePart", "turnId": t, "part": part(rng)}),
        16 | 17 => with(
            call("session/toolCallStart"),
            json!({"toolName": "bash", "displayName": "Bash"}),
        ),
        18 | 19 => with(
            call("session/toolCallDelta"),
            json!({"content": rng.text()}),
        ),
        20 | 21 => {
            let confirmed = rng.one_in(2).then_some("not-needed");
            let input = rng.one_in(2).then(|| rng.text());
            with(
                call("session/toolCallReady"),
                json!({"invocationMessage": "go", "toolInput": input, "confirmed": confirmed}),
            )
        }
        22 => with(
            call("session/toolCallConfirmed"),
            json!({"approved": true, "confirmed": "user-action"}),
        ),
        23 => with(
            call("session/toolCallConfirmed"),
            json!({"approved": false, "reason": "denied"}),
        ),
        24 | 25 => with(
            call("session/toolCallComplete"),
            json!({"result": {"success": true, "pastTenseMessage": "did"},
                "requiresResultConfirmation": rng.one_in(3)}),
        ),
        26 => with(
            call("session/toolCallResultConfirmed"),
            json!({"approved": rng.one_in(2)}),
        ),
        27 => with(
            call("session/toolCallContentChanged"),
            json!({"content": [{"type": "text", "text": rng.text()}]}),
        ),
        28 => {
            json!({"type": "session/usage", "turnId": t, "usage": {"outputTokens": rng.below(99)}})
        }
        29 => json!({"type": "session/titleChanged", "title": rng.text()}),
        30 => json!({"type": "session/turnStarted", "turnId": t,
            "message": {"text": "go", "origin": {"kind": "user"}}}),
        31 => json!({"type": "session/turnComplete", "turnId": t}),
        32 => json!({"type": "session/turnCancelled", "turnId": t}),
        33 => {
            json!({"type": "session/error", "turnId": t, "error": {"errorType": "e", "message": "m"}})
        }
        34 => json!({"type": "session/truncated", "turnId": rng.one_in(2).then_some("t0")}),
        35 => json!({"type": "session/pendingMessageSet", "kind": "queued", "id": id,
            "message": {"text": "later", "origin": {"kind": "user"}}}),
        36 => json!({"type": "session/inputRequested", "request": {"id": id, "message": "?"}}),
        37 => json!({"type": "session/inputCompleted", "requestId": id, "response": "accept"}),
        38 => json!({"type": "session/isReadChanged", "isRead": rng.one_in(2)}),
        _ => json!({"type": "session/fromTheFuture", "partId": id}),
    }
}

#[wasm_bindgen_test]
fn session_reducer_chains_match_the_rust_reducer() {
    run_many::<SessionState>("sessionReducer", session_js, 150, the_seed(), |rng| {
        let initial = session_initial(rng);
        let actions = (0..rng.below(60)).map(|_| session_action(rng)).collect();
        (initial, actions)
    });
}

/// The hand-made colliding-id cases of the native regression test, through `sessionReducer`:
/// a delta hits the first part with its id, a tool-call action every call with its id (as the
/// official TypeScript reducers do).
#[wasm_bindgen_test]
fn colliding_ids_resolve_as_the_typescript_reducers_do_in_js() {
    let md = |id: &str, content: &str| json!({"kind": "markdown", "id": id, "content": content});
    let initial = json!({"summary": {"resource": "copilot:/s", "provider": "copilot", "title": "S",
        "status": 8, "createdAt": 1000, "modifiedAt": 1000}, "lifecycle": "ready", "turns": [],
        "activeTurn": {"id": "t1", "message": {"text": "x", "origin": {"kind": "user"}},
            "responseParts": [
                {"kind": "reasoning", "id": "r", "content": ""}, md("r", "-"),
                md("x", "1"), md("x", "2"),
                tool_call("streaming", "c"), tool_call("streaming", "c")]}});
    let actions = [
        json!({"type": "session/delta", "turnId": "t1", "partId": "x", "content": "+"}),
        json!({"type": "session/delta", "turnId": "t1", "partId": "r", "content": "+"}),
        json!({"type": "session/toolCallDelta", "turnId": "t1", "toolCallId": "c", "content": "p"}),
    ];
    let _now = FixedNow::new(NOW);
    let mut state = to_js(&initial);
    for action in &actions {
        state = session_js(state, to_js(action)).expect("reduced");
    }
    let parts = &to_json(&state)["activeTurn"]["responseParts"];
    assert_eq!(
        parts[1]["content"], "-",
        "a delta to `r` hits the reasoning part first: no-op"
    );
    assert_eq!(parts[2]["content"], "1+");
    assert_eq!(parts[3]["content"], "2");
    assert_eq!(parts[4]["toolCall"]["partialInput"], "p");
    assert_eq!(parts[5]["toolCall"]["partialInput"], "p");
    drop(_now);
    run_many::<SessionState>("sessionReducer (hand-made)", session_js, 1, 0, |_| {
        (initial.clone(), actions.to_vec())
    });
}

// ---------------------------------------------------------------------------------------------
// The other channels: a few sequences each
// ---------------------------------------------------------------------------------------------

#[wasm_bindgen_test]
fn root_reducer_chains_match_the_rust_reducer() {
    run_many::<RootState>("rootReducer", root_js, 10, the_seed(), |rng| {
        let initial = json!({"agents": [], "activeSessions": 1,
            "config": {"schema": {"type": "object", "properties": {}}, "values": {"n": 1}}});
        let actions = (0..rng.below(25))
            .map(|_| match rng.below(5) {
                0 => json!({"type": "root/agentsChanged", "agents": [{"provider": rng.id(),
                    "displayName": "A", "description": "", "models": []}]}),
                1 => json!({"type": "root/activeSessionsChanged", "activeSessions": rng.below(4)}),
                2 => json!({"type": "root/terminalsChanged", "terminals": [{"resource": "t:/1",
                    "title": rng.text(), "claim": {"kind": "client", "clientId": "c"}}]}),
                3 => json!({"type": "root/configChanged", "config": {"n": rng.below(3)},
                    "replace": rng.one_in(2)}),
                _ => json!({"type": "session/titleChanged", "title": "not for root"}),
            })
            .collect();
        (initial, actions)
    });
}

#[wasm_bindgen_test]
fn terminal_reducer_chains_match_the_rust_reducer() {
    run_many::<TerminalState>("terminalReducer", terminal_js, 10, the_seed(), |rng| {
        let initial = json!({"title": "bash", "content": [{"type": "unclassified", "value": "$ "}],
            "claim": {"kind": "client", "clientId": "c"}, "supportsCommandDetection": true});
        let actions = (0..rng.below(25))
            .map(|_| match rng.below(8) {
                0..=2 => json!({"type": "terminal/data", "data": rng.text()}),
                3 => json!({"type": "terminal/resized", "cols": 80 + rng.below(2), "rows": 24}),
                4 => json!({"type": "terminal/titleChanged", "title": rng.text()}),
                5 => json!({"type": "terminal/commandExecuted", "commandId": rng.id(),
                    "commandLine": "make", "timestamp": 1}),
                6 => json!({"type": "terminal/commandFinished", "commandId": rng.id(), "exitCode": 0}),
                _ => json!({"type": "terminal/cleared"}),
            })
            .collect();
        (initial, actions)
    });
}

#[wasm_bindgen_test]
fn changeset_reducer_chains_match_the_rust_reducer() {
    run_many::<ChangesetState>("changesetReducer", changeset_js, 10, the_seed(), |rng| {
        let initial = json!({"status": "computing", "files": []});
        let file = |rng: &mut Rng| {
            let uri = *rng.pick(&["file:///a", "file:///b"]);
            json!({"id": uri, "edit": {"after": {"uri": uri, "content": {"uri": "content:/x"}},
                "diff": {"added": rng.below(3)}}})
        };
        let actions = (0..rng.below(25))
            .map(|_| match rng.below(6) {
                0 => json!({"type": "changeset/statusChanged",
                    "status": *rng.pick(&["computing", "ready", "stale"])}),
                1 | 2 => json!({"type": "changeset/fileSet", "file": file(rng)}),
                3 => json!({"type": "changeset/fileRemoved",
                    "fileId": *rng.pick(&["file:///a", "file:///b"])}),
                4 => json!({"type": "changeset/operationsChanged", "operations": [{"id": "stage",
                    "label": "Stage", "scopes": ["changeset"], "status": "idle"}]}),
                _ => json!({"type": "changeset/cleared"}),
            })
            .collect();
        (initial, actions)
    });
}

#[wasm_bindgen_test]
fn resource_watch_reducer_returns_its_input() {
    run_many::<ResourceWatchState>(
        "resourceWatchReducer",
        resource_watch_js,
        3,
        the_seed(),
        |rng| {
            let initial = json!({"root": "file:///w", "recursive": true});
            let actions = (0..1 + rng.below(5))
                .map(|_| {
                    json!({"type": "resourceWatch/changed",
                    "changes": {"items": [{"uri": "file:///w/a", "type": "added"}]}})
                })
                .collect();
            (initial, actions)
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Unknown members (a newer peer's fields) survive the JS conversion
// ---------------------------------------------------------------------------------------------

/// `session/activeClientChanged` whose `activeClient` carries our extension's
/// `systemMessageTransform` with a newer peer's member inside it: `sessionReducer` keeps it, from the caller's own object (full
/// conversion) and chained from its own output (the render path), and keeps top-level and
/// nested unknown members of the state.
#[wasm_bindgen_test]
fn session_reducer_keeps_unknown_members() {
    let transform = json!({"sections": ["tone"], "zzExtMode": "replace"});
    let initial = json!({"summary": {"resource": "copilot:/s", "provider": "copilot", "title": "S",
        "status": 1, "createdAt": 1000, "modifiedAt": 1000, "zzSummaryExt": [1, {"a": null}]},
        "lifecycle": "ready", "turns": [], "zzStateExt": {"nested": true},
        "activeTurn": {"id": "t1", "message": {"text": "x", "origin": {"kind": "user"}, "zzMsgExt": 1},
            "responseParts": [{"kind": "markdown", "id": "m", "content": "", "zzPartExt": "p"}],
            "zzTurnExt": "t"}});
    let claim = json!({"type": "session/activeClientChanged", "activeClient": {
        "clientId": "c1", "tools": [], "systemMessageTransform": transform}});
    let delta = json!({"type": "session/delta", "turnId": "t1", "partId": "m", "content": "hi"});
    let title = json!({"type": "session/titleChanged", "title": "T"});
    let other = json!({"type": "session/activeClientChanged", "activeClient": {
        "clientId": "c2", "tools": [], "zzOther": 2}});

    // Date.now() is stubbed only while the reducers run (a failed assertion aborts: the stub
    // would stay and stall the browser test harness).
    let (first, third, third_frozen, fourth) = {
        let _now = FixedNow::new(NOW);
        // From the caller's own object: converted whole.
        let first = session_js(to_js(&initial), to_js(&claim)).expect("reduced");
        // Chained: the cached Rust state and the render path (a fine delta step, whole fields).
        let second = session_js(first.clone(), to_js(&delta)).expect("delta");
        let third = session_js(second, to_js(&title)).expect("title");
        // Replacing the active client brings the new one's members, not the old one's.
        let fourth = session_js(third.clone(), to_js(&other)).expect("reduced");
        (
            to_json(&first),
            to_json(&third),
            is_deeply_frozen(&third),
            to_json(&fourth),
        )
    };

    let out = first;
    assert_eq!(out["activeClient"]["systemMessageTransform"], transform);
    assert_eq!(out["zzStateExt"], json!({"nested": true}));
    assert_eq!(out["summary"]["zzSummaryExt"], json!([1, {"a": null}]));
    assert_eq!(out["activeTurn"]["zzTurnExt"], "t");
    assert_eq!(out["activeTurn"]["message"]["zzMsgExt"], 1);
    assert_eq!(out["activeTurn"]["responseParts"][0]["zzPartExt"], "p");

    let out = third;
    assert_eq!(out["activeClient"]["systemMessageTransform"], transform);
    assert_eq!(out["activeTurn"]["responseParts"][0]["content"], "hi");
    assert_eq!(out["activeTurn"]["responseParts"][0]["zzPartExt"], "p");
    assert_eq!(out["summary"]["title"], "T");
    assert_eq!(out["summary"]["zzSummaryExt"], json!([1, {"a": null}]));
    assert_eq!(out["zzStateExt"], json!({"nested": true}));
    assert!(third_frozen);

    // The same as the Rust reducer, member for member.
    let mut rust: SessionState = serde_json::from_value(initial).expect("state");
    for action in [&claim, &delta, &title] {
        let action: StateAction = serde_json::from_value(action.clone()).expect("action");
        rust.reduce(&action, &FixedClock(NOW));
    }
    assert_eq!(
        common::normalize(&out),
        common::normalize(&serde_json::to_value(&rust).unwrap())
    );

    assert_eq!(
        fourth["activeClient"],
        json!({"clientId": "c2", "tools": [], "zzOther": 2})
    );
}
