//! Property tests for the reducers: random but plausible action sequences (ids drawn from small
//! pools so actions often hit existing targets, plus unknown action objects and unknown extra
//! fields) applied to plausible initial states.
//!
//! Properties, checked after every step of every sequence:
//! 1. reducers never panic;
//! 2. replaying the sequence on the same initial state gives the same states and outcomes;
//! 3. a `NoOp` outcome leaves the state equal to before;
//! 4. the state survives a JSON round trip unchanged;
//! 5. an `Applied` outcome lists every top-level field whose JSON changed.
//!
//! Actions are generated as wire JSON and parsed, so the wire shapes are exercised too.

use ahp_wasm::protocol::{
    ActionEnvelope, ActionOrigin, ChangesetState, ChangesetStateField, RootState, RootStateField,
    SessionState, SessionStateField, StateAction, TerminalState, TerminalStateField,
};
use ahp_wasm::reduce::{self, Changed, Clock, FixedClock, Outcome};
use ahp_wasm::sync::{ChannelKind, ChannelState, Mirror};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::TestCaseError;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Map, Value};
use std::fmt::Debug;

/// The clock every run reads: fixed, so replays are comparable.
const NOW: f64 = 5_000.0;
/// Cases per channel: enough to cover the action mix, small enough to run in a few seconds.
/// `AHP_PROPTEST_CASES=n` runs more (a longer search after a change to reducers or patches).
fn cases() -> u32 {
    std::env::var("AHP_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64)
}
/// Longest action sequence per case.
const MAX_ACTIONS: usize = 40;

// ---------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------

/// A reducer and its state's top-level fields.
struct Channel<S: 'static, F: 'static> {
    reduce: fn(&mut S, &StateAction, &dyn Clock) -> Outcome<F>,
    fields: &'static [F],
    wire_name: fn(F) -> &'static str,
}

const ROOT: Channel<RootState, RootStateField> = Channel {
    reduce: reduce::root_reducer,
    fields: RootStateField::ALL,
    wire_name: RootStateField::wire_name,
};
const SESSION: Channel<SessionState, SessionStateField> = Channel {
    reduce: reduce::session_reducer,
    fields: SessionStateField::ALL,
    wire_name: SessionStateField::wire_name,
};
const TERMINAL: Channel<TerminalState, TerminalStateField> = Channel {
    reduce: reduce::terminal_reducer,
    fields: TerminalStateField::ALL,
    wire_name: TerminalStateField::wire_name,
};
const CHANGESET: Channel<ChangesetState, ChangesetStateField> = Channel {
    reduce: reduce::changeset_reducer,
    fields: ChangesetStateField::ALL,
    wire_name: ChangesetStateField::wire_name,
};

fn parse<T: DeserializeOwned>(what: &str, value: &Value) -> Result<T, TestCaseError> {
    serde_json::from_value(value.clone())
        .map_err(|e| TestCaseError::fail(format!("generated {what} does not parse: {e}\n{value}")))
}

fn to_json<S: Serialize>(state: &S) -> Result<Value, TestCaseError> {
    serde_json::to_value(state).map_err(|e| TestCaseError::fail(format!("serialize: {e}")))
}

/// Applies `actions` to a copy of `initial`, checking properties 3-5 after each step; returns
/// every intermediate state and outcome for the determinism check.
fn run<S, F>(
    channel: &Channel<S, F>,
    initial: &S,
    actions: &[StateAction],
) -> Result<(Vec<S>, Vec<Outcome<F>>), TestCaseError>
where
    S: Clone + PartialEq + Debug + Serialize + DeserializeOwned,
    F: Copy + Into<u8> + Debug,
{
    let clock = FixedClock(NOW);
    let mut state = initial.clone();
    let mut states = Vec::with_capacity(actions.len());
    let mut outcomes = Vec::with_capacity(actions.len());
    for action in actions {
        let before = state.clone();
        let outcome = (channel.reduce)(&mut state, action, &clock);
        match outcome {
            Outcome::NoOp(why) => {
                prop_assert_eq!(
                    &state,
                    &before,
                    "NoOp({:?}) changed the state on {:?}",
                    why,
                    action
                );
            }
            Outcome::Applied(changed) => check_changed(channel, &before, &state, changed, action)?,
        }
        let text = serde_json::to_string(&state).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back: S = serde_json::from_str(&text)
            .map_err(|e| TestCaseError::fail(format!("state does not parse back: {e}\n{text}")))?;
        prop_assert_eq!(&back, &state, "JSON round trip changed the state: {}", text);
        states.push(state.clone());
        outcomes.push(outcome);
    }
    Ok((states, outcomes))
}

/// Property 5: no field outside `changed` differs on the wire.
fn check_changed<S: Serialize, F: Copy + Into<u8> + Debug>(
    channel: &Channel<S, F>,
    before: &S,
    after: &S,
    changed: Changed<F>,
    action: &StateAction,
) -> Result<(), TestCaseError> {
    let (before, after) = (to_json(before)?, to_json(after)?);
    for &field in channel.fields {
        if changed.contains(field) {
            continue;
        }
        let name = (channel.wire_name)(field);
        prop_assert_eq!(
            before.get(name),
            after.get(name),
            "{:?} changed but is not in {:?} (action {:?})",
            field,
            changed,
            action
        );
    }
    Ok(())
}

/// All properties for one generated case.
fn check<S, F>(
    channel: &Channel<S, F>,
    initial: &Value,
    actions: &[Value],
) -> Result<(), TestCaseError>
where
    S: Clone + PartialEq + Debug + Serialize + DeserializeOwned,
    F: Copy + Into<u8> + Debug,
{
    let initial: S = parse("initial state", initial)?;
    let actions = actions
        .iter()
        .map(|a| parse::<StateAction>("action", a))
        .collect::<Result<Vec<_>, _>>()?;
    let first = run(channel, &initial, &actions)?;
    let second = run(channel, &initial, &actions)?;
    prop_assert_eq!(&first.0, &second.0, "replay produced different states");
    prop_assert_eq!(&first.1, &second.1, "replay produced different outcomes");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Shared generators
// ---------------------------------------------------------------------------------------------

fn pick(pool: &'static [&'static str]) -> BoxedStrategy<String> {
    select(pool).prop_map(str::to_owned).boxed()
}

/// Short text: mostly ASCII, sometimes arbitrary Unicode (control characters included).
fn text() -> BoxedStrategy<String> {
    prop_oneof![
        3 => "[a-z ]{0,8}",
        1 => "[\\x00-\\x7f]{0,8}",
        1 => any::<String>().prop_map(|s| s.chars().take(6).collect()),
    ]
    .boxed()
}

/// Any small JSON value.
fn json_value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        "[a-z]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,5}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// An action of a type no version defines, for any channel, with arbitrary members (and the
/// `type` member not always first, to take the slow parsing path).
fn unknown_action() -> BoxedStrategy<Value> {
    (
        pick(&[
            "root",
            "session",
            "terminal",
            "changeset",
            "resourceWatch",
            "x",
        ]),
        "[a-zA-Z]{1,8}",
        prop::collection::btree_map("[a-z]{1,6}", json_value(), 0..4),
        any::<bool>(),
    )
        .prop_map(|(channel, name, members, type_first)| {
            let ty = Value::from(format!("{channel}/future{name}"));
            let mut object = Map::new();
            if type_first {
                object.insert("type".into(), ty.clone());
            }
            object.extend(members.into_iter().filter(|(k, _)| k != "type"));
            object.insert("type".into(), ty);
            Value::Object(object)
        })
        .boxed()
}

/// Sometimes adds a member a newer protocol version might send; parsers must ignore it.
fn with_future_member(action: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (action, prop::option::weighted(0.15, json_value()))
        .prop_map(|(mut action, extra)| {
            if let (Value::Object(object), Some(extra)) = (&mut action, extra) {
                object.insert("futureMember".into(), extra);
            }
            action
        })
        .boxed()
}

fn error_info() -> BoxedStrategy<Value> {
    (pick(&["git", "runtime", "init"]), text())
        .prop_map(|(t, m)| json!({"errorType": t, "message": m}))
        .boxed()
}

fn message() -> BoxedStrategy<Value> {
    text()
        .prop_map(|t| json!({"text": t, "origin": {"kind": "user"}}))
        .boxed()
}

/// Sequences of one channel's actions, with unknown ones mixed in.
fn actions(known: BoxedStrategy<Value>) -> BoxedStrategy<Vec<Value>> {
    let one = prop_oneof![12 => with_future_member(known), 1 => unknown_action()];
    prop::collection::vec(one, 0..MAX_ACTIONS).boxed()
}

// ---------------------------------------------------------------------------------------------
// Session
// ---------------------------------------------------------------------------------------------

const TURNS: &[&str] = &["t1", "t2", "t3"];
// Tool calls and text parts share the id `p1` (and every pool repeats ids), so parts with
// colliding ids, within a kind and across kinds, are common.
const TOOL_CALLS: &[&str] = &["tc1", "tc2", "p1"];
const PARTS: &[&str] = &["p1", "p2", "p3"];
const MESSAGES: &[&str] = &["m1", "m2", "m3"];
const REQUESTS: &[&str] = &["r1", "r2"];
const QUESTIONS: &[&str] = &["q1", "q2"];

fn session_initial() -> BoxedStrategy<Value> {
    let summary = json!({"resource": "copilot:/s", "provider": "copilot", "title": "S",
        "status": 1, "createdAt": 1000, "modifiedAt": 1000});
    let user = |text: &str| json!({"text": text, "origin": {"kind": "user"}});
    let idle = json!({"summary": summary, "lifecycle": "ready", "turns": []});
    let creating = json!({"summary": summary, "lifecycle": "creating", "turns": []});
    let mut busy = json!({
        "summary": summary, "lifecycle": "ready",
        "turns": [{"id": "t1", "message": user("first"), "responseParts": [], "state": "complete"}],
        "activeTurn": {"id": "t2", "message": user("second"), "responseParts": [
            {"kind": "markdown", "id": "p1", "content": "hi"},
            {"kind": "futurePart", "id": "p2", "x": 1}
        ]},
        "queuedMessages": [{"id": "m1", "message": user("later")}],
    });
    busy["summary"]["status"] = json!(8);
    prop_oneof![Just(idle), Just(creating), Just(busy)].boxed()
}

fn session_action() -> BoxedStrategy<Value> {
    let turn = || pick(TURNS);
    let call = || pick(TOOL_CALLS);
    let tool_call = |ty: &'static str| {
        (turn(), call()).prop_map(move |(t, c)| json!({"type": ty, "turnId": t, "toolCallId": c}))
    };
    let merge = |base: Value, extra: Value| {
        let mut base = base;
        if let (Value::Object(b), Value::Object(e)) = (&mut base, extra) {
            b.extend(e);
        }
        base
    };
    let response_part = prop_oneof![
        (pick(PARTS), text())
            .prop_map(|(id, c)| json!({"kind": "markdown", "id": id, "content": c})),
        (pick(PARTS), text())
            .prop_map(|(id, c)| json!({"kind": "reasoning", "id": id, "content": c})),
        text().prop_map(|c| json!({"kind": "systemNotification", "content": c})),
        pick(PARTS).prop_map(|id| json!({"kind": "futurePart", "id": id})),
    ];
    let question = (pick(QUESTIONS), text())
        .prop_map(|(id, m)| json!({"id": id, "kind": "text", "message": m}));
    prop_oneof![
        Just(json!({"type": "session/ready"})),
        error_info().prop_map(|e| json!({"type": "session/creationFailed", "error": e})),
        (turn(), message(), prop::option::of(pick(MESSAGES))).prop_map(|(t, m, q)| {
            json!({"type": "session/turnStarted", "turnId": t, "message": m, "queuedMessageId": q})
        }),
        (turn(), pick(PARTS), text()).prop_map(|(t, p, c)| {
            json!({"type": "session/delta", "turnId": t, "partId": p, "content": c})
        }),
        (turn(), pick(PARTS), text()).prop_map(|(t, p, c)| {
            json!({"type": "session/reasoning", "turnId": t, "partId": p, "content": c})
        }),
        (turn(), response_part)
            .prop_map(|(t, p)| json!({"type": "session/responsePart", "turnId": t, "part": p})),
        (tool_call("session/toolCallStart"), pick(&["bash", "edit"]))
            .prop_map(move |(a, n)| { merge(a, json!({"toolName": n, "displayName": n})) }),
        (
            tool_call("session/toolCallDelta"),
            text(),
            prop::option::of(text())
        )
            .prop_map(move |(a, c, m)| merge(a, json!({"content": c, "invocationMessage": m}))),
        (
            tool_call("session/toolCallReady"),
            text(),
            prop::option::of(text()),
            prop::option::of(pick(&["not-needed", "user-action", "setting"]))
        )
            .prop_map(move |(a, m, input, confirmed)| merge(
                a,
                json!({"invocationMessage": m, "toolInput": input, "confirmed": confirmed})
            )),
        (
            tool_call("session/toolCallConfirmed"),
            pick(&["user-action", "setting"])
        )
            .prop_map(move |(a, c)| merge(a, json!({"approved": true, "confirmed": c}))),
        (
            tool_call("session/toolCallConfirmed"),
            pick(&["denied", "skipped"])
        )
            .prop_map(move |(a, r)| merge(a, json!({"approved": false, "reason": r}))),
        (
            tool_call("session/toolCallComplete"),
            any::<bool>(),
            text(),
            prop::option::of(any::<bool>())
        )
            .prop_map(move |(a, ok, m, confirm)| merge(
                a,
                json!({"result": {"success": ok, "pastTenseMessage": m},
                    "requiresResultConfirmation": confirm})
            )),
        (tool_call("session/toolCallResultConfirmed"), any::<bool>())
            .prop_map(move |(a, ok)| merge(a, json!({"approved": ok}))),
        (tool_call("session/toolCallContentChanged"), text()).prop_map(move |(a, t)| {
            merge(a, json!({"content": [{"type": "text", "text": t}]}))
        }),
        turn().prop_map(|t| json!({"type": "session/turnComplete", "turnId": t})),
        turn().prop_map(|t| json!({"type": "session/turnCancelled", "turnId": t})),
        (turn(), error_info())
            .prop_map(|(t, e)| json!({"type": "session/error", "turnId": t, "error": e})),
        text().prop_map(|t| json!({"type": "session/titleChanged", "title": t})),
        (turn(), 0u32..1000).prop_map(|(t, n)| {
            json!({"type": "session/usage", "turnId": t,
                "usage": {"inputTokens": n, "outputTokens": n / 2}})
        }),
        (pick(&["steering", "queued"]), pick(MESSAGES), message()).prop_map(|(k, id, m)| {
            json!({"type": "session/pendingMessageSet", "kind": k, "id": id, "message": m})
        }),
        (pick(&["steering", "queued"]), pick(MESSAGES)).prop_map(|(k, id)| {
            json!({"type": "session/pendingMessageRemoved", "kind": k, "id": id})
        }),
        prop::collection::vec(pick(MESSAGES), 0..4)
            .prop_map(|order| json!({"type": "session/queuedMessagesReordered", "order": order})),
        (pick(REQUESTS), prop::collection::vec(question, 0..3)).prop_map(|(id, qs)| {
            json!({"type": "session/inputRequested",
                "request": {"id": id, "message": "?", "questions": qs}})
        }),
        (pick(REQUESTS), pick(QUESTIONS), prop::option::of(text())).prop_map(|(r, q, a)| {
            let answer =
                a.map(|v| json!({"state": "draft", "value": {"kind": "text", "value": v}}));
            json!({"type": "session/inputAnswerChanged", "requestId": r, "questionId": q,
                "answer": answer})
        }),
        (pick(REQUESTS), pick(&["accept", "decline", "cancel"])).prop_map(|(r, k)| {
            json!({"type": "session/inputCompleted", "requestId": r, "response": k})
        }),
        prop::option::of(turn()).prop_map(|t| json!({"type": "session/truncated", "turnId": t})),
        any::<bool>().prop_map(|b| json!({"type": "session/isReadChanged", "isRead": b})),
        prop::option::of(text())
            .prop_map(|a| json!({"type": "session/activityChanged", "activity": a})),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// Terminal
// ---------------------------------------------------------------------------------------------

const COMMANDS: &[&str] = &["c1", "c2", "c3"];

fn terminal_initial() -> BoxedStrategy<Value> {
    let client = json!({"kind": "client", "clientId": "c"});
    prop_oneof![
        Just(json!({"title": "bash", "content": [], "claim": client})),
        Just(
            json!({"title": "bash", "cols": 80, "rows": 24, "claim": client,
            "content": [{"type": "unclassified", "value": "$ "}]})
        ),
        Just(json!({"title": "zsh", "supportsCommandDetection": true,
        "claim": {"kind": "session", "session": "s:/1", "turnId": "t1"},
        "content": [
            {"type": "unclassified", "value": "$ "},
            {"type": "command", "commandId": "c1", "commandLine": "make", "output": "ok",
                "timestamp": 1, "isComplete": false}
        ]})),
        Just(
            json!({"title": "sh", "exitCode": 1, "claim": {"kind": "future", "x": 1},
            "content": [{"type": "futurePart", "blob": [1, 2]}]})
        ),
    ]
    .boxed()
}

fn terminal_action() -> BoxedStrategy<Value> {
    let claim = prop_oneof![
        pick(&["c", "d"]).prop_map(|id| json!({"kind": "client", "clientId": id})),
        (
            prop::option::of(pick(TURNS)),
            prop::option::of(pick(TOOL_CALLS))
        )
            .prop_map(|(t, c)| {
                json!({"kind": "session", "session": "s:/1", "turnId": t, "toolCallId": c})
            }),
        Just(json!({"kind": "future", "x": 1})),
    ];
    prop_oneof![
        6 => text().prop_map(|d| json!({"type": "terminal/data", "data": d})),
        1 => text().prop_map(|d| json!({"type": "terminal/input", "data": d})),
        1 => (1u16..300, 1u16..100)
            .prop_map(|(c, r)| json!({"type": "terminal/resized", "cols": c, "rows": r})),
        1 => claim.prop_map(|c| json!({"type": "terminal/claimed", "claim": c})),
        1 => text().prop_map(|t| json!({"type": "terminal/titleChanged", "title": t})),
        1 => pick(&["file:///a", "file:///b"])
            .prop_map(|c| json!({"type": "terminal/cwdChanged", "cwd": c})),
        1 => prop::option::of(-2i32..3)
            .prop_map(|c| json!({"type": "terminal/exited", "exitCode": c})),
        1 => Just(json!({"type": "terminal/cleared"})),
        1 => Just(json!({"type": "terminal/commandDetectionAvailable"})),
        2 => (pick(COMMANDS), text(), 0u64..10_000_000_000_000).prop_map(|(id, l, ts)| {
            json!({"type": "terminal/commandExecuted", "commandId": id, "commandLine": l,
                "timestamp": ts})
        }),
        2 => (pick(COMMANDS), prop::option::of(-1i32..3), prop::option::of(0u32..100_000))
            .prop_map(|(id, code, ms)| {
                json!({"type": "terminal/commandFinished", "commandId": id, "exitCode": code,
                    "durationMs": ms})
            }),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// Root
// ---------------------------------------------------------------------------------------------

fn root_initial() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(json!({"agents": []})),
        Just(json!({
            "agents": [{"provider": "copilot", "displayName": "Copilot", "description": "AI",
                "models": [{"id": "m", "provider": "copilot", "name": "M"}]}],
            "activeSessions": 2,
            "terminals": [{"resource": "t:/1", "title": "bash",
                "claim": {"kind": "client", "clientId": "c"}}],
            "config": {"schema": {"type": "object", "properties": {}},
                "values": {"theme": "light", "n": 1}}
        })),
    ]
    .boxed()
}

fn root_action() -> BoxedStrategy<Value> {
    let agent = pick(&["copilot", "claude"])
        .prop_map(|p| json!({"provider": p, "displayName": p, "description": "", "models": []}));
    let terminal =
        (pick(&["t:/1", "t:/2"]), text(), prop::option::of(0i32..3)).prop_map(|(r, t, code)| {
            json!({"resource": r, "title": t, "claim": {"kind": "client", "clientId": "c"},
                "exitCode": code})
        });
    let values = prop::collection::btree_map(pick(&["theme", "n", "x"]), json_value(), 0..3)
        .prop_map(|m| Value::Object(m.into_iter().collect()));
    prop_oneof![
        prop::collection::vec(agent, 0..3)
            .prop_map(|a| json!({"type": "root/agentsChanged", "agents": a})),
        (0u32..5).prop_map(|n| json!({"type": "root/activeSessionsChanged", "activeSessions": n})),
        prop::collection::vec(terminal, 0..3)
            .prop_map(|t| json!({"type": "root/terminalsChanged", "terminals": t})),
        (values, prop::option::of(any::<bool>())).prop_map(|(c, r)| {
            json!({"type": "root/configChanged", "config": c, "replace": r})
        }),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// Changeset
// ---------------------------------------------------------------------------------------------

const FILES: &[&str] = &["file:///a", "file:///b", "file:///c"];
const OPERATIONS: &[&str] = &["stage", "revert"];

fn changeset_file() -> BoxedStrategy<Value> {
    (pick(FILES), 0u32..20, 0u32..20)
        .prop_map(|(id, added, removed)| {
            json!({"id": id, "edit": {"after": {"uri": id, "content": {"uri": "content:/x"}},
                "diff": {"added": added, "removed": removed}}})
        })
        .boxed()
}

fn operation_status() -> BoxedStrategy<String> {
    pick(&["idle", "running", "error", "paused"])
}

fn changeset_initial() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(json!({"status": "computing", "files": []})),
        Just(json!({"status": "ready",
            "files": [{"id": "file:///a", "edit": {"after": {"uri": "file:///a",
                "content": {"uri": "content:/a"}}, "diff": {"added": 1}}}],
            "operations": [{"id": "stage", "label": "Stage", "scopes": ["resource"],
                "status": "idle"}]})),
    ]
    .boxed()
}

fn changeset_action() -> BoxedStrategy<Value> {
    let operation = (pick(OPERATIONS), operation_status()).prop_map(
        |(id, s)| json!({"id": id, "label": id, "scopes": ["changeset", "resource"], "status": s}),
    );
    prop_oneof![
        (
            pick(&["computing", "ready", "error", "stale"]),
            prop::option::of(error_info())
        )
            .prop_map(|(s, e)| json!({"type": "changeset/statusChanged", "status": s, "error": e})),
        changeset_file().prop_map(|f| json!({"type": "changeset/fileSet", "file": f})),
        pick(FILES).prop_map(|id| json!({"type": "changeset/fileRemoved", "fileId": id})),
        prop::option::of(prop::collection::vec(operation, 0..3))
            .prop_map(|o| json!({"type": "changeset/operationsChanged", "operations": o})),
        (
            pick(OPERATIONS),
            operation_status(),
            prop::option::of(error_info())
        )
            .prop_map(|(id, s, e)| {
                json!({"type": "changeset/operationStatusChanged", "operationId": id,
                    "status": s, "error": e})
            }),
        Just(json!({"type": "changeset/cleared"})),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn session_reducer_properties(
        initial in session_initial(),
        actions in actions(session_action()),
    ) {
        check(&SESSION, &initial, &actions)?;
    }

    #[test]
    fn terminal_reducer_properties(
        initial in terminal_initial(),
        actions in actions(terminal_action()),
    ) {
        check(&TERMINAL, &initial, &actions)?;
    }

    #[test]
    fn root_reducer_properties(
        initial in root_initial(),
        actions in actions(root_action()),
    ) {
        check(&ROOT, &initial, &actions)?;
    }

    #[test]
    fn changeset_reducer_properties(
        initial in changeset_initial(),
        actions in actions(changeset_action()),
    ) {
        check(&CHANGESET, &initial, &actions)?;
    }

    /// Any channel's reducer given any other channel's actions: never a panic, never a change.
    #[test]
    fn reducers_ignore_other_channels(
        session in session_initial(),
        terminal in terminal_initial(),
        actions in prop::collection::vec(
            prop_oneof![root_action(), changeset_action(), terminal_action(), session_action()],
            0..MAX_ACTIONS,
        ),
    ) {
        let mut session: SessionState = parse("session", &session)?;
        let mut terminal: TerminalState = parse("terminal", &terminal)?;
        let (session0, terminal0) = (session.clone(), terminal.clone());
        let clock = FixedClock(NOW);
        for value in &actions {
            let action: StateAction = parse("action", value)?;
            let ty = value["type"].as_str().unwrap_or_default();
            if !ty.starts_with("session/") {
                prop_assert!(!reduce::session_reducer(&mut session, &action, &clock).is_applied());
            }
            if !ty.starts_with("terminal/") {
                prop_assert!(!reduce::terminal_reducer(&mut terminal, &action, &clock).is_applied());
            }
        }
        prop_assert_eq!(session, session0);
        prop_assert_eq!(terminal, terminal0);
    }
}

/// One batch of the mirror patch test: own actions are dispatched first (applied
/// optimistically), then the batch's envelopes (foreign ones and the echoes) arrive together.
fn mirror_batch<S: ChannelState>(
    mirror: &mut Mirror<S>,
    rendered: &mut Value,
    batch: &[(StateAction, bool)],
    server_seq: &mut u64,
    client_seq: &mut u64,
) -> Result<(), TestCaseError> {
    let channel = match S::KIND {
        ChannelKind::Terminal => "ahp-terminal:/t",
        _ => "ahp-session:/s",
    };
    let clock = FixedClock(NOW);
    let mut envelopes = Vec::new();
    for (action, own) in batch {
        *server_seq += 1;
        let origin = own.then(|| {
            *client_seq += 1;
            ActionOrigin {
                client_id: "me".into(),
                client_seq: *client_seq,
                extra: Default::default(),
            }
        });
        if let Some(origin) = &origin {
            let (_, patch) = mirror.dispatch_patched(origin.client_seq, action.clone(), &clock);
            patch.apply_to_json(rendered, &to_json(mirror.state())?);
            prop_assert_eq!(
                &*rendered,
                &to_json(mirror.state())?,
                "after dispatch {:?}",
                patch
            );
        }
        envelopes.push(ActionEnvelope {
            channel: channel.into(),
            action: action.clone(),
            server_seq: *server_seq,
            origin,
            rejection_reason: None,
            extra: Default::default(),
        });
    }
    let out = mirror.apply_batch(&envelopes, "me", &clock);
    out.patch.apply_to_json(rendered, &to_json(mirror.state())?);
    prop_assert_eq!(
        &*rendered,
        &to_json(mirror.state())?,
        "after batch {:?}",
        out.patch
    );
    prop_assert_eq!(mirror.state(), &mirror.recompute(&clock));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// The patches a mirror reports turn the previous rendering into the new state, for any
    /// batching of foreign and own actions (and the optimistic copy, brought up to date field
    /// by field, always equals confirmed + pending replayed).
    #[test]
    fn mirror_patches_rebuild_the_state(
        initial in session_initial(),
        actions in actions(session_action()),
        own in prop::collection::vec(prop::bool::weighted(0.2), MAX_ACTIONS * 2),
        sizes in prop::collection::vec(1usize..6, MAX_ACTIONS * 2),
    ) {
        let initial: SessionState = parse("session", &initial)?;
        mirror_batches(initial, &actions, own, sizes)?;
    }

    /// The same for terminals, whose output is appended in place (`terminal/data` on the tail
    /// part) rather than replacing `content` whole.
    #[test]
    fn terminal_mirror_patches_rebuild_the_state(
        initial in terminal_initial(),
        actions in actions(terminal_action()),
        own in prop::collection::vec(prop::bool::weighted(0.2), MAX_ACTIONS * 2),
        sizes in prop::collection::vec(1usize..6, MAX_ACTIONS * 2),
    ) {
        let initial: TerminalState = parse("terminal", &initial)?;
        mirror_batches(initial, &actions, own, sizes)?;
    }
}

/// Feeds `actions` (each own or foreign as `own` says) to a mirror of `initial` in batches of
/// `sizes`, checking each patch with [`mirror_batch`].
fn mirror_batches<S: ChannelState>(
    initial: S,
    actions: &[Value],
    own: Vec<bool>,
    sizes: Vec<usize>,
) -> Result<(), TestCaseError> {
    let actions: Vec<StateAction> = actions
        .iter()
        .map(|a| parse("action", a))
        .collect::<Result<_, _>>()?;
    let mut rendered = to_json(&initial)?;
    let mut mirror = Mirror::new(initial, 0);
    let tagged: Vec<(StateAction, bool)> = actions.into_iter().zip(own).collect();
    let (mut server_seq, mut client_seq) = (0, 0);
    let mut rest = &tagged[..];
    for size in sizes {
        if rest.is_empty() {
            break;
        }
        let (batch, tail) = rest.split_at(size.min(rest.len()));
        mirror_batch(
            &mut mirror,
            &mut rendered,
            batch,
            &mut server_seq,
            &mut client_seq,
        )?;
        rest = tail;
    }
    prop_assert_eq!(mirror.pending_count(), 0);
    Ok(())
}
