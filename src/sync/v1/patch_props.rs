//! The 1.0 chat and terminal patches on random action sequences: a mirror of a random state
//! fed random actions (own, echoed or rejected, and foreign, in random batches); after every
//! dispatch and every batch, the patch applied to the previous rendering gives the state's
//! JSON. Ids collide on purpose (parts and tool calls share a pool, requests and calls repeat),
//! so a step that names the wrong part shows. Each property also checks that the cases produced
//! every fine step, so a description that fell back to whole fields would fail.
//! `AHP_PROPTEST_CASES=n` runs more cases.

use super::patch_tests::{action, apply, envelope, op_kind, to_json, CLOCK, ME};
use super::{ChannelState, ChatState, TerminalState};
use crate::sync::Mirror;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::collections::BTreeSet;

fn cases() -> u32 {
    std::env::var("AHP_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// An object of the members that are present.
fn obj(members: Vec<(&str, Option<Value>)>) -> Value {
    let map: Map<String, Value> = members
        .into_iter()
        .filter_map(|(k, v)| Some((k.to_owned(), v?)))
        .collect();
    Value::Object(map)
}

fn pick(pool: &'static [&'static str]) -> BoxedStrategy<String> {
    prop::sample::select(pool).prop_map(str::to_owned).boxed()
}

/// Short text, sometimes of multi-byte characters (the appended ranges are in bytes).
fn text() -> BoxedStrategy<String> {
    prop_oneof![4 => "[a-z]{0,3}", 1 => "[é√𝄞]{1,2}"].boxed()
}

/// Part ids and tool call ids share one pool, so a delta can name a tool call.
const IDS: &[&str] = &["p1", "p2", "c1", "c2"];
const CALLS: &[&str] = &["c1", "c2", "c1", "p1"];
const TURNS: &[&str] = &["t1", "t1", "t1", "t2"];
const REQUESTS: &[&str] = &["in1", "in2", "in1"];
const START: &str = "1970-01-01T00:00:01.000Z";

fn tool_call() -> BoxedStrategy<Value> {
    let status = pick(&[
        "streaming",
        "streaming",
        "pending-confirmation",
        "running",
        "completed",
        "cancelled",
        "paused",
    ]);
    (status, pick(CALLS), prop::option::of(text()))
        .prop_map(|(status, id, input)| {
            let mut call = json!({"status": status, "toolCallId": id, "toolName": "t",
                "displayName": "T"});
            let more = match status.as_str() {
                "streaming" => obj(vec![("partialInput", input.map(Value::from))]),
                "pending-confirmation" => json!({"invocationMessage": "run?"}),
                "running" => json!({"invocationMessage": "run", "confirmed": "not-needed"}),
                "completed" => json!({"invocationMessage": "run", "success": true,
                    "pastTenseMessage": "ran", "confirmed": "not-needed"}),
                "cancelled" => json!({"invocationMessage": "run", "reason": "denied"}),
                _ => json!({"invocationMessage": "paused"}),
            };
            if let (Value::Object(call), Value::Object(more)) = (&mut call, more) {
                call.extend(more);
            }
            json!({"kind": "toolCall", "toolCall": call})
        })
        .boxed()
}

fn request(id: String, message: String) -> Value {
    json!({"id": id, "message": message, "questions": [{"id": "q1", "kind": "single-select",
        "message": "Which?", "options": [{"id": "node", "label": "Node"}]}]})
}

fn part() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => (pick(IDS), text()).prop_map(|(id, c)| json!({"kind": "markdown", "id": id,
            "content": c})),
        2 => (pick(IDS), text()).prop_map(|(id, c)| json!({"kind": "reasoning", "id": id,
            "content": c})),
        3 => tool_call(),
        2 => (pick(REQUESTS), text(), any::<bool>()).prop_map(|(id, m, answered)| obj(vec![
            ("kind", Some(json!("inputRequest"))),
            ("request", Some(request(id, m))),
            ("response", answered.then(|| json!("accept"))),
        ])),
        1 => Just(json!({"kind": "systemNotification", "content": "note"})),
        1 => pick(IDS).prop_map(|id| json!({"kind": "futurePart", "id": id})),
    ]
    .boxed()
}

fn chat_initial() -> BoxedStrategy<Value> {
    let turn = json!({"id": "t0", "startedAt": START, "duration": 1,
        "message": {"text": "m", "origin": {"kind": "user"}}, "responseParts": [],
        "state": "complete"});
    (
        prop::collection::vec(part(), 0..6),
        prop::bool::weighted(0.85),
        0usize..3,
    )
        .prop_map(move |(parts, active, turns)| {
            let active_turn = active.then(|| {
                json!({"id": "t1", "startedAt": START, "responseParts": parts,
                    "message": {"text": "q", "origin": {"kind": "user"}}})
            });
            obj(vec![
                ("resource", Some(json!("ahp-chat:/c"))),
                ("title", Some(json!("C"))),
                ("status", Some(json!(if active { 8 } else { 1 }))),
                ("modifiedAt", Some(json!(START))),
                ("turns", Some(json!(vec![turn.clone(); turns]))),
                ("activeTurn", active_turn),
            ])
        })
        .boxed()
}

fn chat_action() -> BoxedStrategy<Value> {
    let turn = || pick(TURNS);
    let call = || pick(CALLS);
    let meta = || prop::option::of(Just(json!({"k": 1})));
    prop_oneof![
        8 => (turn(), pick(IDS), text()).prop_map(|(t, p, c)| json!({"type": "chat/delta",
            "turnId": t, "partId": p, "content": c})),
        4 => (turn(), pick(IDS), text()).prop_map(|(t, p, c)| json!({"type": "chat/reasoning",
            "turnId": t, "partId": p, "content": c})),
        3 => (turn(), part()).prop_map(|(t, p)| json!({"type": "chat/responsePart",
            "turnId": t, "part": p})),
        2 => (turn(), call()).prop_map(|(t, c)| json!({"type": "chat/toolCallStart",
            "turnId": t, "toolCallId": c, "toolName": "t", "displayName": "T"})),
        6 => (turn(), call(), prop::option::of(text()), prop::option::weighted(0.2, text()),
            meta())
            .prop_map(|(t, c, content, message, meta)| obj(vec![
                ("type", Some(json!("chat/toolCallDelta"))), ("turnId", Some(json!(t))),
                ("toolCallId", Some(json!(c))), ("content", content.map(Value::from)),
                ("invocationMessage", message.map(Value::from)), ("_meta", meta),
            ])),
        2 => (turn(), call(), any::<bool>()).prop_map(|(t, c, auto)| obj(vec![
            ("type", Some(json!("chat/toolCallReady"))), ("turnId", Some(json!(t))),
            ("toolCallId", Some(json!(c))), ("invocationMessage", Some(json!("ready"))),
            ("confirmed", auto.then(|| json!("not-needed"))),
        ])),
        1 => (turn(), call(), any::<bool>()).prop_map(|(t, c, approved)| json!({
            "type": "chat/toolCallConfirmed", "turnId": t, "toolCallId": c,
            "approved": approved})),
        1 => (turn(), call(), any::<bool>()).prop_map(|(t, c, success)| json!({
            "type": "chat/toolCallComplete", "turnId": t, "toolCallId": c,
            "result": {"success": success, "pastTenseMessage": "done"}})),
        1 => (turn(), call()).prop_map(|(t, c)| json!({"type": "chat/toolCallContentChanged",
            "turnId": t, "toolCallId": c, "content": []})),
        2 => (pick(REQUESTS), text()).prop_map(|(id, m)| json!({"type": "chat/inputRequested",
            "request": request(id, m)})),
        1 => (pick(REQUESTS), any::<bool>()).prop_map(|(r, set)| obj(vec![
            ("type", Some(json!("chat/inputAnswerChanged"))), ("requestId", Some(json!(r))),
            ("questionId", Some(json!("q1"))),
            ("answer", set.then(|| json!({"state": "draft",
                "value": {"kind": "selected", "value": "node"}}))),
        ])),
        1 => pick(REQUESTS).prop_map(|r| json!({"type": "chat/inputCompleted",
            "requestId": r, "response": "accept"})),
        1 => turn().prop_map(|t| json!({"type": "chat/turnComplete", "turnId": t,
            "duration": 5})),
        1 => turn().prop_map(|t| json!({"type": "chat/error", "turnId": t, "duration": 5,
            "part": {"kind": "error", "error": {"errorType": "quota", "message": "m"},
                "resumable": true}})),
        1 => turn().prop_map(|t| json!({"type": "chat/turnResume", "turnId": t})),
        1 => turn().prop_map(|t| json!({"type": "chat/turnStarted", "turnId": t,
            "startedAt": START, "message": {"text": "q", "origin": {"kind": "user"}}})),
        1 => turn().prop_map(|t| json!({"type": "chat/usage", "turnId": t,
            "usage": {"inputTokens": 1, "outputTokens": 2}})),
        1 => text().prop_map(|a| json!({"type": "chat/activityChanged", "activity": a})),
    ]
    .boxed()
}

fn terminal_initial() -> BoxedStrategy<Value> {
    let content_part = prop_oneof![
        text().prop_map(|v| json!({"type": "unclassified", "value": v})),
        (pick(&["c1", "c2"]), text(), any::<bool>()).prop_map(|(id, out, done)| json!({
            "type": "command", "commandId": id, "commandLine": "ls", "output": out,
            "timestamp": 1, "isComplete": done})),
    ];
    prop::collection::vec(content_part, 0..4)
        .prop_map(|content| {
            json!({"title": "t", "content": content, "lifecycle": {"status": "running"},
                "claim": {"kind": "client", "clientId": "c"}})
        })
        .boxed()
}

fn terminal_action() -> BoxedStrategy<Value> {
    prop_oneof![
        8 => text().prop_map(|d| json!({"type": "terminal/data", "data": d})),
        2 => pick(&["c1", "c2", "c3"]).prop_map(|id| json!({
            "type": "terminal/commandExecuted", "commandId": id, "commandLine": "ls",
            "timestamp": 2})),
        2 => pick(&["c1", "c2", "c3"]).prop_map(|id| json!({
            "type": "terminal/commandFinished", "commandId": id, "exitCode": 0})),
        1 => Just(json!({"type": "terminal/cleared"})),
        1 => text().prop_map(|t| json!({"type": "terminal/titleChanged", "title": t})),
        1 => Just(json!({"type": "terminal/resized", "cols": 80, "rows": 24})),
    ]
    .boxed()
}

/// What happens to an action: foreign, own and echoed, or own and rejected.
#[derive(Debug, Clone, Copy)]
enum Origin {
    Foreign,
    Echoed,
    Rejected,
}

fn origin() -> BoxedStrategy<Origin> {
    prop_oneof![6 => Just(Origin::Foreign), 3 => Just(Origin::Echoed),
        1 => Just(Origin::Rejected)]
    .boxed()
}

/// A run: the initial state, the actions with their origins, and the batch sizes.
type Run = (Value, Vec<(Value, Origin)>, Vec<usize>);

fn run_strategy(initial: BoxedStrategy<Value>, action: BoxedStrategy<Value>) -> BoxedStrategy<Run> {
    (
        initial,
        prop::collection::vec((action, origin()), 1..40),
        prop::collection::vec(1usize..6, 40),
    )
        .boxed()
}

/// Feeds a run to a mirror, checking every patch; adds the kinds of the steps to `seen`.
fn check_run<S: ChannelState + serde::de::DeserializeOwned>(
    channel: &str,
    (initial, actions, sizes): Run,
    seen: &mut BTreeSet<&'static str>,
) -> Result<(), TestCaseError> {
    let initial: S =
        serde_json::from_value(initial).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut rendered = to_json(&initial);
    let mut mirror = Mirror::new(initial, 0);
    let (mut server_seq, mut client_seq) = (0u64, 0u64);
    let mut rest = &actions[..];
    for size in sizes {
        if rest.is_empty() {
            break;
        }
        let (batch, tail) = rest.split_at(size.min(rest.len()));
        rest = tail;
        let mut envelopes = Vec::new();
        for (value, origin) in batch {
            let a = action(value.clone());
            server_seq += 1;
            let (own, rejection) = match origin {
                Origin::Foreign => (None, None),
                Origin::Echoed => (Some(client_seq + 1), None),
                Origin::Rejected => (Some(client_seq + 1), Some("no")),
            };
            if let Some(seq) = own {
                client_seq = seq;
                let (_, patch) = mirror.dispatch_patched(seq, a.clone(), &CLOCK);
                apply(&mut rendered, &mirror, &patch).map_err(TestCaseError::fail)?;
                seen.extend(patch.ops.iter().map(op_kind));
            }
            let origin = own.map(|seq| (ME, seq as i64));
            envelopes.push(envelope(channel, server_seq, a, origin, rejection));
        }
        let out = mirror.apply_batch(&envelopes, ME, &CLOCK);
        apply(&mut rendered, &mirror, &out.patch).map_err(TestCaseError::fail)?;
        seen.extend(out.patch.ops.iter().map(op_kind));
        prop_assert_eq!(mirror.pending_count(), 0);
    }
    Ok(())
}

/// Runs the property over `cases()` runs and returns the step kinds the patches used.
fn run_property<S: ChannelState + serde::de::DeserializeOwned>(
    channel: &'static str,
    strategy: BoxedStrategy<Run>,
) -> BTreeSet<&'static str> {
    let seen = RefCell::new(BTreeSet::new());
    let mut runner = TestRunner::new(Config::with_cases(cases()));
    let result = runner.run(&strategy, |run| {
        check_run::<S>(channel, run, &mut seen.borrow_mut())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    seen.into_inner()
}

#[test]
fn chat_patches_rebuild_the_state() {
    let seen =
        run_property::<ChatState>("ahp-chat:/c", run_strategy(chat_initial(), chat_action()));
    let fine = [
        "AppendPartText",
        "AppendToolInput",
        "PushParts",
        "PushTurns",
        "ReplacePart",
    ];
    for step in fine {
        assert!(seen.contains(step), "no {step} in {seen:?}");
    }
}

#[test]
fn terminal_patches_rebuild_the_state() {
    let seen = run_property::<TerminalState>(
        "ahp-terminal:/t",
        run_strategy(terminal_initial(), terminal_action()),
    );
    assert!(seen.contains("AppendTerminalText"), "{seen:?}");
}
