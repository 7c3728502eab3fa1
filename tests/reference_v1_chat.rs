//! Our 1.0 chat reducer (`reduce::v1::chat_reducer`) against the official Rust one
//! (`ahp_v1::reducers::apply_action_to_chat`, `ahp` 1.0.0; a test oracle only), on random
//! action sequences over every `chat/*` action type.
//!
//! The vocabulary: an idle chat or one with an active turn of random parts (markdown,
//! reasoning, tool calls in every status and one of an unknown status, open and answered input
//! requests, content references, notifications, error parts, parts of an unknown kind); a
//! history with resumable and other error turns, turns with and without a start; ids that
//! collide (parts and tool calls share a pool, turns repeat); starts that are RFC 3339 in
//! several forms, and one that is not; negative, zero and large durations; pending messages
//! with colliding ids; any status bits; and actions that do not apply (wrong turns, unknown
//! targets, statuses that do not allow the transition, unknown action types, other channels'
//! actions). The driver and the policy are in `differential_v1/mod.rs`.
//!
//! Named divergences, left out of the comparison exactly where they show (ours follows the
//! TypeScript reducers, see `reduce/v1/chat`):
//! - `chat/queuedMessagesReordered` when the messages the order does not name are not in id
//!   order, or the queue holds one id twice: the Rust reducer puts the unnamed ones in id
//!   order and keeps one message per id (its own comment says "in their original iteration
//!   order"); ours keeps their order and every message.
//! - a turn that ends (`chat/turnComplete`, `chat/turnCancelled`, `chat/error`) with a tool
//!   call of an unknown status: the Rust reducer cancels it as an empty call (no id, no
//!   names); ours cancels it from its raw members, as TypeScript reads them.
//!
//! Not generated: tool calls waiting for authentication, in states and in actions. The
//! reference crate cannot read one (`ahp-types` 1.0.0's `ToolCallAuthRequiredState` has a
//! `status` member that the union's `status` tag consumes, so it reads the call as one of an
//! unknown status); they arise through `chat/toolCallAuthRequired` on a running call of an
//! MCP server instead, which the reference builds in memory. After a divergence the reference
//! continues from our state only if that state has none ([`faithful`]).
//!
//! `AHP_PROPTEST_CASES=n` runs more cases.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod differential_v1;

use ahp_types_v1::state::ChatState as RefState;
use ahp_v1::reducers::apply_action_to_chat;
use ahp_wasm::protocol::v1::ChatState;
use ahp_wasm::reduce::v1::chat_reducer;
use differential_v1::{
    action_types, assert_coverage, cases, foreign, meta, pick, run_cases, text, Channel,
};
use proptest::prelude::*;
use serde_json::{json, Value};

const MAX_ACTIONS: usize = 40;

const REORDER: &str = "queuedMessagesReordered: unnamed messages out of id order, or ids twice";
const UNKNOWN_CALL_AT_END: &str = "turn end with a tool call of an unknown status";

const KNOWN_CALL_STATUSES: &[&str] = &[
    "streaming",
    "pending-confirmation",
    "running",
    "auth-required",
    "pending-result-confirmation",
    "completed",
    "cancelled",
];

/// The named divergence the step hits, if any (see the module docs).
fn divergence(before: &Value, action: &Value) -> Option<&'static str> {
    match action["type"].as_str().unwrap_or("") {
        "chat/queuedMessagesReordered" => {
            let queue: Vec<&str> = before["queuedMessages"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m["id"].as_str())
                .collect();
            let order: Vec<&str> = action["order"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let twice = queue
                .iter()
                .enumerate()
                .any(|(i, id)| queue[..i].contains(id));
            let unnamed: Vec<&str> = queue
                .iter()
                .copied()
                .filter(|id| !order.contains(id))
                .collect();
            let sorted = unnamed.windows(2).all(|w| w[0] <= w[1]);
            (twice || !sorted).then_some(REORDER)
        }
        "chat/turnComplete" | "chat/turnCancelled" | "chat/error" => {
            let turn = &before["activeTurn"];
            let unknown_call = turn["responseParts"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|p| {
                    p["kind"] == "toolCall"
                        && !KNOWN_CALL_STATUSES
                            .contains(&p["toolCall"]["status"].as_str().unwrap_or(""))
                });
            (turn["id"] == action["turnId"] && unknown_call).then_some(UNKNOWN_CALL_AT_END)
        }
        _ => None,
    }
}

/// Whether the reference crate reads `state` as it is: no tool call waiting for
/// authentication (see the module docs).
fn faithful(state: &Value) -> bool {
    !state.to_string().contains("\"auth-required\"")
}

/// A turn id: mostly the one of the generated active turn and of the last completed turn.
fn turn_id() -> BoxedStrategy<String> {
    prop_oneof![6 => Just("t1"), 1 => Just("t2"), 1 => Just("t3")]
        .prop_map(str::to_owned)
        .boxed()
}
/// Part ids and tool call ids share one pool, so a delta can name a tool call.
const IDS: &[&str] = &["p1", "p2", "tc1", "tc2"];
const CALLS: &[&str] = &["tc1", "tc2", "tc1", "p1"];
const STARTS: &[&str] = &[
    "1970-01-01T00:00:01.000Z",
    "2026-10-02T10:00:00+02:00",
    "2026-10-02T09:30:00.25Z",
    "2024-02-28T23:59:59Z",
    "yesterday",
];

fn message() -> BoxedStrategy<Value> {
    text()
        .prop_map(|t| json!({"text": t, "origin": {"kind": "user"}}))
        .boxed()
}

fn contributor() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        pick(&["c1", "c2"]).prop_map(|c| json!({"kind": "client", "clientId": c})),
        Just(json!({"kind": "mcp", "customizationId": "m1"})),
    ]
    .boxed()
}

fn tool_input() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        pick(&["{}", "{\"a\":1}"]).prop_map(Value::from),
        Just(json!({"uri": "file:///tool-inputs/x.json"})),
    ]
    .boxed()
}

fn options() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!([{"id": "o1", "label": "Yes", "kind": "approve"},
            {"id": "o2", "label": "No", "kind": "deny", "group": 1}])),
    ]
    .boxed()
}

fn content() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        pick(&["agenthost:/terminal/1", "agenthost:/terminal/2"])
            .prop_map(|r| json!([{"type": "terminal", "resource": r, "title": "bash"}])),
    ]
    .boxed()
}

fn auth() -> Value {
    json!({"reason": "insufficientScope", "resource": {"resource": "https://mcp.example.com"},
        "requiredScopes": ["repo:read"]})
}

fn confirmed() -> BoxedStrategy<String> {
    pick(&["not-needed", "user-action", "setting"])
}

fn tool_call() -> BoxedStrategy<Value> {
    let status = pick(&[
        "streaming",
        "pending-confirmation",
        "running",
        "running",
        "pending-result-confirmation",
        "completed",
        "cancelled",
        "paused",
        "paused",
    ]);
    (
        status,
        pick(CALLS),
        contributor(),
        meta(),
        tool_input(),
        options(),
        content(),
        confirmed(),
        (
            any::<bool>(),
            prop::option::of(text()),
            prop::option::of(text()),
        ),
        any::<bool>(),
    )
        .prop_map(
            |(
                status,
                id,
                contributor,
                meta,
                input,
                options,
                content,
                confirmed,
                (flag, msg, intention),
                mcp,
            )| {
                // Half the running calls are an MCP server's, which can wait for authentication.
                let contributor = if status == "running" && mcp {
                    json!({"kind": "mcp", "customizationId": "m1"})
                } else {
                    contributor
                };
                let mut call = json!({"status": status, "toolCallId": id, "toolName": "t",
                    "displayName": "T", "contributor": contributor, "_meta": meta,
                    "intention": intention});
                let more = match status.as_str() {
                    "streaming" => json!({"partialInput": msg, "invocationMessage": msg}),
                    "pending-confirmation" => json!({"invocationMessage": "run?",
                        "toolInput": input, "options": options, "editable": flag,
                        "confirmationTitle": msg}),
                    "running" => json!({"invocationMessage": "run", "toolInput": input,
                        "confirmed": confirmed, "content": content,
                        "selectedOption": if flag { json!({"id": "o1", "label": "Yes",
                            "kind": "approve"}) } else { Value::Null }}),
                    "pending-result-confirmation" | "completed" => json!({
                        "invocationMessage": "run", "toolInput": input, "success": flag,
                        "pastTenseMessage": "ran", "content": content,
                        "confirmed": confirmed}),
                    "cancelled" => json!({"invocationMessage": "run", "reason": "denied"}),
                    _ => json!({"invocationMessage": "paused", "toolInput": input,
                        "resumeAt": 5}),
                };
                if let (Value::Object(call), Value::Object(more)) = (&mut call, more) {
                    call.extend(more);
                }
                call
            },
        )
        .boxed()
}

fn answer() -> BoxedStrategy<Value> {
    pick(&["node", "deno"])
        .prop_map(|v| json!({"state": "draft", "value": {"kind": "selected", "value": v}}))
        .boxed()
}

fn answers() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        prop::collection::btree_map(pick(&["q1", "q2"]), answer(), 0..3).prop_map(|m| json!(m)),
    ]
    .boxed()
}

fn input_request() -> BoxedStrategy<Value> {
    (
        pick(&["in1", "in2", "in1"]),
        prop::option::of(text()),
        answers(),
    )
        .prop_map(|(id, message, answers)| {
            json!({"id": id, "message": message, "questions": [{"id": "q1",
                "kind": "single-select", "message": "Which?", "options": [
                    {"id": "node", "label": "Node"}, {"id": "deno", "label": "Deno"}]}],
                "answers": answers})
        })
        .boxed()
}

fn error_part() -> BoxedStrategy<Value> {
    prop_oneof![2 => Just(Some(true)), 1 => Just(Some(false)), 1 => Just(None)]
        .prop_map(|resumable| {
            json!({"kind": "error", "error": {"errorType": "runtime", "message": "broke"},
                "resumable": resumable})
        })
        .boxed()
}

fn part() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => (pick(IDS), text()).prop_map(|(id, c)| json!({"kind": "markdown", "id": id,
            "content": c})),
        2 => (pick(IDS), text()).prop_map(|(id, c)| json!({"kind": "reasoning", "id": id,
            "content": c})),
        4 => tool_call().prop_map(|c| json!({"kind": "toolCall", "toolCall": c})),
        2 => (input_request(), prop::option::of(pick(&["accept", "decline", "cancel"])))
            .prop_map(|(r, response)| json!({"kind": "inputRequest", "request": r,
                "response": response})),
        1 => Just(json!({"kind": "contentRef", "uri": "content:/x", "contentType": "text/plain"})),
        1 => Just(json!({"kind": "systemNotification", "content": "note"})),
        1 => error_part(),
        1 => pick(IDS).prop_map(|id| json!({"kind": "futurePart", "id": id})),
    ]
    .boxed()
}

fn turn() -> BoxedStrategy<Value> {
    (
        turn_id(),
        prop::option::of(pick(STARTS)),
        prop::collection::vec(part(), 0..3),
        pick(&["complete", "cancelled", "error"]),
        error_part(),
        any::<bool>(),
    )
        .prop_map(|(id, started, mut parts, state, error, with_error)| {
            // Mostly resumable, so `chat/turnResume` has turns to resume.
            if state == "error" && with_error {
                parts.push(error);
            }
            json!({"id": id, "startedAt": started, "duration": started.as_ref().map(|_| 10),
                "message": {"text": "m", "origin": {"kind": "user"}}, "responseParts": parts,
                "state": state})
        })
        .boxed()
}

fn pending(ids: &'static [&'static str]) -> BoxedStrategy<Value> {
    (pick(ids), message())
        .prop_map(|(id, message)| json!({"id": id, "message": message}))
        .boxed()
}

const QUEUE_IDS: &[&str] = &["a", "b", "c", "d"];

fn initial() -> BoxedStrategy<Value> {
    let active = (
        turn_id(),
        pick(STARTS),
        prop::collection::vec(part(), 0..6),
        any::<bool>(),
    )
        .prop_map(|(id, started, parts, usage)| {
            json!({"id": id, "startedAt": started, "message": {"text": "q",
                "origin": {"kind": "user"}}, "responseParts": parts,
                "usage": if usage { json!({"inputTokens": 1, "outputTokens": 2}) }
                    else { Value::Null }})
        });
    (
        (
            prop::sample::select(&[1u32, 2, 8, 24, 33, 40, 56, 65, 97, 200][..]),
            prop::collection::vec(turn(), 0..4),
            prop_oneof![4 => active.prop_map(Some), 1 => Just(None)],
            prop::option::of(pending(QUEUE_IDS)),
            prop::option::of(prop::collection::vec(pending(QUEUE_IDS), 0..5)),
        ),
        (
            prop::option::of(pick(&["cursor-1"])),
            prop::option::of(prop::collection::vec(
                pick(&["file:///a", "file:///b"]),
                0..3,
            )),
            prop::option::of(prop::collection::vec(background_work(), 0..3)),
            prop::option::of(any::<bool>()),
            meta(),
        ),
    )
        .prop_map(
            |((status, turns, active, steering, queued), (cursor, dirs, work, movable, meta))| {
                json!({"resource": "ahp-chat:/c1", "title": "C", "status": status,
                    "modifiedAt": "1970-01-01T00:00:01.000Z", "turns": turns,
                    "turnsNextCursor": cursor, "activeTurn": active,
                    "steeringMessage": steering, "queuedMessages": queued,
                    "workingDirectories": dirs, "backgroundWork": work, "movable": movable,
                    "_meta": meta})
            },
        )
        .boxed()
}

fn background_work() -> BoxedStrategy<Value> {
    let id = || pick(&["w1", "w2", "w1"]);
    prop_oneof![
        id().prop_map(
            |id| json!({"kind": "shell", "id": id, "label": "L", "command": "make",
            "startedAt": "2026-09-25T00:00:00.000Z"})
        ),
        id().prop_map(|id| json!({"kind": "subagent", "id": id, "label": "L",
            "chat": "ahp-chat:/sub", "startedAt": "2026-09-25T00:00:00.000Z"})),
        id().prop_map(|id| json!({"kind": "futureWork", "id": id})),
        Just(json!({"kind": "futureWork"})),
    ]
    .boxed()
}

fn duration() -> BoxedStrategy<i64> {
    prop_oneof![
        Just(-5i64),
        Just(0),
        Just(1500),
        Just(86_400_000),
        0i64..100
    ]
    .boxed()
}

fn turn_actions() -> BoxedStrategy<Value> {
    let turn = turn_id;
    prop_oneof![
        2 => (turn(), pick(STARTS), message(), prop::option::of(pick(QUEUE_IDS)))
            .prop_map(|(t, s, m, q)| json!({"type": "chat/turnStarted", "turnId": t,
                "startedAt": s, "message": m, "queuedMessageId": q})),
        6 => (turn(), pick(IDS), text()).prop_map(|(t, p, c)| json!({"type": "chat/delta",
            "turnId": t, "partId": p, "content": c})),
        3 => (turn(), pick(IDS), text()).prop_map(|(t, p, c)| json!({"type": "chat/reasoning",
            "turnId": t, "partId": p, "content": c})),
        3 => (turn(), part()).prop_map(|(t, p)| json!({"type": "chat/responsePart",
            "turnId": t, "part": p})),
        1 => (turn(), 0i64..9).prop_map(|(t, n)| json!({"type": "chat/usage", "turnId": t,
            "usage": {"inputTokens": n, "outputTokens": 1}})),
        1 => (turn(), duration()).prop_map(|(t, d)| json!({"type": "chat/turnComplete",
            "turnId": t, "duration": d})),
        1 => (turn(), duration()).prop_map(|(t, d)| json!({"type": "chat/turnCancelled",
            "turnId": t, "duration": d})),
        1 => (turn(), duration(), error_part()).prop_map(|(t, d, p)| json!({
            "type": "chat/error", "turnId": t, "duration": d, "part": p})),
        3 => turn().prop_map(|t| json!({"type": "chat/turnResume", "turnId": t})),
        1 => prop::option::of(turn()).prop_map(|t| json!({"type": "chat/truncated",
            "turnId": t})),
        1 => (prop::collection::vec(super_turn(), 0..3), prop::option::of(pick(&["cursor-2"])))
            .prop_map(|(turns, c)| json!({"type": "chat/turnsLoaded", "turns": turns,
                "turnsNextCursor": c})),
    ]
    .boxed()
}

/// A completed turn, as `chat/turnsLoaded` brings them.
fn super_turn() -> BoxedStrategy<Value> {
    turn()
}

fn tool_call_actions() -> BoxedStrategy<Value> {
    let turn = turn_id;
    let call = || pick(CALLS);
    prop_oneof![
        2 => (turn(), call(), contributor(), prop::option::of(text()), meta())
            .prop_map(|(t, c, contributor, intention, meta)| json!({
                "type": "chat/toolCallStart", "turnId": t, "toolCallId": c, "toolName": "t",
                "displayName": "T", "contributor": contributor, "intention": intention,
                "_meta": meta})),
        2 => (turn(), call(), prop::option::of(text()), prop::option::of(text()), meta())
            .prop_map(|(t, c, content, msg, meta)| json!({"type": "chat/toolCallDelta",
                "turnId": t, "toolCallId": c, "content": content, "invocationMessage": msg,
                "_meta": meta})),
        3 => (turn(), call(), contributor(), tool_input(), options(),
            prop::option::of(confirmed()), (meta(), prop::option::of(any::<bool>()),
            prop::option::of(text())))
            .prop_map(|(t, c, contributor, input, options, confirmed, (meta, editable, title))| {
                json!({"type": "chat/toolCallReady", "turnId": t, "toolCallId": c,
                    "invocationMessage": "ready", "contributor": contributor,
                    "toolInput": input, "options": options, "confirmed": confirmed,
                    "_meta": meta, "editable": editable, "confirmationTitle": title,
                    "intention": title})
            }),
        3 => (turn(), call(), any::<bool>(), prop::option::of(confirmed()),
            prop::option::of(pick(&["denied", "skipped"])),
            (prop::option::of(pick(&["{\"b\":2}"])), prop::option::of(pick(&["o1", "o2", "o9"])),
            meta(), prop::option::of(text())))
            .prop_map(|(t, c, approved, confirmed, reason, (edited, option, meta, why))| {
                json!({"type": "chat/toolCallConfirmed", "turnId": t, "toolCallId": c,
                    "approved": approved, "confirmed": confirmed, "reason": reason,
                    "editedToolInput": edited, "selectedOptionId": option, "_meta": meta,
                    "reasonMessage": why,
                    "userSuggestion": why.as_ref().map(|w| json!({"text": w,
                        "origin": {"kind": "user"}}))})
            }),
        3 => (turn(), call(), any::<bool>(), content(), prop::option::of(any::<bool>()), meta())
            .prop_map(|(t, c, success, content, review, meta)| json!({
                "type": "chat/toolCallComplete", "turnId": t, "toolCallId": c,
                "result": {"success": success, "pastTenseMessage": "done",
                    "content": content, "error": if success { Value::Null }
                        else { json!({"message": "x"}) }},
                "requiresResultConfirmation": review, "_meta": meta})),
        2 => (turn(), call(), any::<bool>(), meta()).prop_map(|(t, c, approved, meta)| json!({
            "type": "chat/toolCallResultConfirmed", "turnId": t, "toolCallId": c,
            "approved": approved, "_meta": meta})),
        3 => (turn(), call(), content(), meta()).prop_map(|(t, c, content, meta)| json!({
            "type": "chat/toolCallContentChanged", "turnId": t, "toolCallId": c,
            "content": if content.is_null() { json!([]) } else { content }, "_meta": meta})),
        3 => (turn(), call(), meta()).prop_map(|(t, c, meta)| json!({
            "type": "chat/toolCallAuthRequired", "turnId": t, "toolCallId": c,
            "auth": auth(), "_meta": meta})),
        2 => (turn(), call(), meta()).prop_map(|(t, c, meta)| json!({
            "type": "chat/toolCallAuthResolved", "turnId": t, "toolCallId": c, "_meta": meta})),
    ]
    .boxed()
}

fn other_actions() -> BoxedStrategy<Value> {
    let request_id = || pick(&["in1", "in2", "in9"]);
    prop_oneof![
        2 => input_request().prop_map(|r| json!({"type": "chat/inputRequested", "request": r})),
        2 => (request_id(), pick(&["q1", "q2"]), prop::option::of(answer()))
            .prop_map(|(r, q, a)| json!({"type": "chat/inputAnswerChanged", "requestId": r,
                "questionId": q, "answer": a})),
        2 => (request_id(), pick(&["accept", "decline", "cancel"]), answers())
            .prop_map(|(r, response, a)| json!({"type": "chat/inputCompleted",
                "requestId": r, "response": response, "answers": a})),
        2 => (pick(&["steering", "queued"]), pick(QUEUE_IDS), message())
            .prop_map(|(k, id, m)| json!({"type": "chat/pendingMessageSet", "kind": k,
                "id": id, "message": m})),
        2 => (pick(&["steering", "queued"]), pick(QUEUE_IDS))
            .prop_map(|(k, id)| json!({"type": "chat/pendingMessageRemoved", "kind": k,
                "id": id})),
        2 => prop::collection::vec(pick(&["a", "b", "c", "d", "z"]), 0..5)
            .prop_map(|o| json!({"type": "chat/queuedMessagesReordered", "order": o})),
        1 => prop::option::of(message()).prop_map(|d| json!({"type": "chat/draftChanged",
            "draft": d})),
        1 => any::<bool>().prop_map(|b| json!({"type": "chat/isReadChanged", "isRead": b})),
        1 => any::<bool>().prop_map(|b| json!({"type": "chat/isArchivedChanged",
            "isArchived": b})),
        1 => prop::option::of(text()).prop_map(|a| json!({"type": "chat/activityChanged",
            "activity": a})),
        2 => background_work().prop_map(|w| json!({"type": "chat/backgroundWorkSet",
            "work": w})),
        1 => pick(&["w1", "w2", "w9"]).prop_map(|id| json!({
            "type": "chat/backgroundWorkRemoved", "id": id})),
        1 => any::<bool>().prop_map(|b| json!({"type": "chat/movableChanged", "movable": b})),
        1 => prop::option::of(Just(json!([{"label": "B", "uriTemplate": "ahp-changeset:/x",
            "changeKind": "branch"}])))
            .prop_map(|c| json!({"type": "chat/changesetsChanged", "changesets": c})),
        1 => prop::option::of(Just(json!([{"resource": "ahp-canvas:/p"}])))
            .prop_map(|c| json!({"type": "chat/canvasesChanged", "canvases": c})),
        1 => pick(&["file:///a", "file:///b"]).prop_map(|d| json!({
            "type": "chat/workingDirectorySet", "directory": d})),
        1 => pick(&["file:///a", "file:///b"]).prop_map(|d| json!({
            "type": "chat/workingDirectoryRemoved", "directory": d})),
    ]
    .boxed()
}

fn action() -> BoxedStrategy<Value> {
    prop_oneof![
        5 => turn_actions(),
        6 => tool_call_actions(),
        4 => other_actions(),
        1 => foreign("chat"),
    ]
    .boxed()
}

/// Ours and the official chat reducer, with the divergences this file names.
fn chat_channel() -> Channel<ChatState, RefState> {
    Channel {
        ours: |s, a| chat_reducer(s, a).is_applied(),
        reference: |s, a| {
            apply_action_to_chat(s, a);
        },
        divergence,
        faithful,
    }
}

#[test]
fn chat_matches_the_official_reducer() {
    // Twice the default cases: the chat has the most action types, and a turn-scoped action
    // applies only when its turn, target and status line up.
    let tally = run_cases(
        "chat",
        &chat_channel(),
        (initial(), action()),
        MAX_ACTIONS,
        cases() * 2,
    );
    assert_coverage(
        &tally,
        &action_types("chat"),
        &[],
        &[REORDER, UNKNOWN_CALL_AT_END],
    );
}

/// The tool-call state machine in depth: an active turn `t1` holding only tool calls (every
/// status, colliding ids), and tool-call actions with now and then a turn end.
#[test]
fn tool_calls_match_the_official_reducer() {
    let initial = (
        prop::collection::vec(tool_call(), 1..5),
        pick(STARTS),
        1u32..100,
    )
        .prop_map(|(calls, started, status)| {
            let parts: Vec<Value> = calls
                .into_iter()
                .map(|c| json!({"kind": "toolCall", "toolCall": c}))
                .collect();
            json!({"resource": "ahp-chat:/c1", "title": "C", "status": status,
                "modifiedAt": "1970-01-01T00:00:01.000Z", "turns": [],
                "activeTurn": {"id": "t1", "startedAt": started,
                    "message": {"text": "q", "origin": {"kind": "user"}},
                    "responseParts": parts}})
        })
        .boxed();
    let end = prop_oneof![
        duration().prop_map(|d| json!({"type": "chat/turnComplete", "turnId": "t1",
            "duration": d})),
        (duration(), error_part()).prop_map(|(d, p)| json!({"type": "chat/error",
            "turnId": "t1", "duration": d, "part": p})),
    ];
    let action = prop_oneof![12 => tool_call_actions(), 1 => end].boxed();
    let tally = run_cases(
        "tool calls",
        &chat_channel(),
        (initial, action),
        24,
        cases(),
    );
    let calls: Vec<&str> = action_types("chat")
        .into_iter()
        .filter(|t| t.starts_with("chat/toolCall"))
        .collect();
    assert_coverage(&tally, &calls, &[], &[UNKNOWN_CALL_AT_END]);
}
