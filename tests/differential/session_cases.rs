//! Hand-made session cases for `tests/reference_reducers.rs`: one per known difference between
//! the official Rust and TypeScript reducers (ours follows TypeScript) and per place where we
//! used to differ from both, each through all oracles (or, where the Rust types cannot hold the
//! input, the TypeScript model only) and with the members that matter checked by value; the
//! former collision cases; every tool-call status meeting every ending.

use super::*;

fn session_with(extra: Value) -> Value {
    let mut s = json!({"summary": {"resource": "copilot:/s", "provider": "copilot", "title": "S",
        "status": 8, "createdAt": 1000, "modifiedAt": 1000}, "lifecycle": "ready", "turns": []});
    if let (Value::Object(s), Value::Object(extra)) = (&mut s, extra) {
        s.extend(extra);
    }
    s
}

/// A session whose active turn `t1` holds `parts`.
fn busy(parts: Vec<Value>) -> Value {
    session_with(json!({"activeTurn": {"id": "t1", "message": USER("x"), "responseParts": parts}}))
}

fn call(status: &str, id: &str, extra: Value) -> Value {
    let mut call = json!({"status": status, "toolCallId": id, "toolName": "bash",
        "displayName": "Bash", "invocationMessage": "run"});
    match status {
        "running" => call["confirmed"] = json!("not-needed"),
        "completed" => {
            call["confirmed"] = json!("not-needed");
            call["success"] = json!(true);
            call["pastTenseMessage"] = json!("ran");
        }
        _ => {}
    }
    json!({"kind": "toolCall", "toolCall": differential::with(call, extra)})
}

fn md(id: &str) -> Value {
    json!({"kind": "markdown", "id": id, "content": ""})
}

/// Our state after `actions` from `initial`.
fn ours_after(initial: &Value, actions: &[Value]) -> Value {
    let mut state: SessionState = serde_json::from_value(initial.clone()).expect("state");
    for (i, action) in actions.iter().enumerate() {
        let action: StateAction = serde_json::from_value(action.clone()).expect("action");
        session_reducer(&mut state, &action, &FixedClock(10_000.0 + i as f64));
    }
    common::normalize(&to_json(&state))
}

/// Runs a hand-made case through [`check`] (or, with `rust: false`, against the TypeScript
/// model only), then checks members of our final state: `(JSON pointer, value)`, `null` for
/// "absent".
fn case_expect(rust: bool, initial: Value, actions: &[Value], expect: &[(&str, Value)]) {
    let mut tally = Tally::new();
    run(&initial, actions, rust.then_some(&mut tally))
        .unwrap_or_else(|e| panic!("{actions:?} on {initial}: {e}"));
    let after = ours_after(&initial, actions);
    for (pointer, want) in expect {
        let got = after.pointer(pointer).cloned().unwrap_or(Value::Null);
        assert_eq!(&got, want, "{pointer} after {actions:?} on {initial}");
    }
}

const PART0: &str = "/activeTurn/responseParts/0/toolCall";

#[test]
fn tool_call_ready_takes_the_actions_input_and_drops_the_old_selection() {
    let ready = json!({"type": "session/toolCallReady", "turnId": "t1", "toolCallId": "x",
        "invocationMessage": "again"});
    let running = call(
        "running",
        "x",
        json!({"toolInput": "ls",
        "selectedOption": {"id": "o1", "label": "Allow", "kind": "approve"}}),
    );
    case_expect(
        true,
        busy(vec![running.clone()]),
        std::slice::from_ref(&ready),
        &[
            (
                "/activeTurn/responseParts/0/toolCall/status",
                json!("pending-confirmation"),
            ),
            (
                "/activeTurn/responseParts/0/toolCall/toolInput",
                Value::Null,
            ),
        ],
    );
    let auto = differential::with(ready, json!({"confirmed": "setting", "toolInput": "pwd"}));
    case_expect(
        true,
        busy(vec![running]),
        &[auto],
        &[
            (
                "/activeTurn/responseParts/0/toolCall/toolInput",
                json!("pwd"),
            ),
            (
                "/activeTurn/responseParts/0/toolCall/selectedOption",
                Value::Null,
            ),
        ],
    );
}

#[test]
fn a_response_part_waiting_for_the_user_leaves_the_status_alone() {
    let part = call("pending-confirmation", "x", json!({}));
    let action = json!({"type": "session/responsePart", "turnId": "t1", "part": part});
    case_expect(
        true,
        busy(vec![]),
        &[action],
        &[("/summary/status", json!(8))],
    );
}

#[test]
fn ending_a_turn_cancels_a_call_of_an_unknown_status_from_its_fields() {
    let unknown = call(
        "paused-for-lunch",
        "x",
        json!({"toolInput": "ls", "somethingNew": 1}),
    );
    for end in [
        "session/turnComplete",
        "session/turnCancelled",
        "session/error",
    ] {
        let action = json!({"type": end, "turnId": "t1",
            "error": {"errorType": "e", "message": "m"}});
        case_expect(
            true,
            busy(vec![unknown.clone()]),
            &[action],
            &[(
                "/turns/0/responseParts/0/toolCall",
                json!({"status": "cancelled", "toolCallId": "x",
                "toolName": "bash", "displayName": "Bash", "invocationMessage": "run",
                "toolInput": "ls", "reason": "skipped"}),
            )],
        );
    }
    // A known call loses its selection when skipped, as in both references.
    let running = call(
        "running",
        "y",
        json!({"selectedOption": {"id": "o1", "label": "A",
        "kind": "approve"}}),
    );
    let end = json!({"type": "session/turnComplete", "turnId": "t1"});
    case_expect(
        true,
        busy(vec![running]),
        &[end],
        &[(
            "/turns/0/responseParts/0/toolCall/selectedOption",
            Value::Null,
        )],
    );
}

#[test]
fn ending_a_turn_keeps_no_unknown_members_of_the_turn_or_its_skipped_calls() {
    let mut state = busy(vec![call("running", "x", json!({"zzNew": 1}))]);
    state["activeTurn"]["zzTurn"] = json!(2);
    let end = json!({"type": "session/turnComplete", "turnId": "t1"});
    case_expect(
        false,
        state,
        &[end],
        &[
            ("/turns/0/zzTurn", Value::Null),
            ("/turns/0/responseParts/0/toolCall/zzNew", Value::Null),
        ],
    );
}

#[test]
fn tool_call_transitions_keep_no_unknown_members_but_take_the_results() {
    let running = call("running", "x", json!({"zzNew": 1}));
    let complete = json!({"type": "session/toolCallComplete", "turnId": "t1", "toolCallId": "x",
        "result": {"success": true, "pastTenseMessage": "did", "zzResult": 2}});
    case_expect(
        false,
        busy(vec![running.clone()]),
        &[complete],
        &[
            ("/activeTurn/responseParts/0/toolCall/zzNew", Value::Null),
            ("/activeTurn/responseParts/0/toolCall/zzResult", json!(2)),
        ],
    );
    // Streamed content keeps them (the call is spread, not rebuilt).
    let changed = json!({"type": "session/toolCallContentChanged", "turnId": "t1",
        "toolCallId": "x", "content": [{"type": "text", "text": "out"}]});
    case_expect(
        false,
        busy(vec![running]),
        &[changed],
        &[("/activeTurn/responseParts/0/toolCall/zzNew", json!(1))],
    );
}

#[test]
fn tool_call_actions_update_every_call_with_the_id() {
    let complete = json!({"type": "session/toolCallComplete", "turnId": "t1", "toolCallId": "x",
        "result": {"success": true, "pastTenseMessage": "did"}});
    let parts = vec![
        call("running", "x", json!({})),
        md("x"),
        call("running", "x", json!({})),
    ];
    case_expect(
        true,
        busy(parts),
        &[complete],
        &[
            (&format!("{PART0}/status"), json!("completed")),
            (
                "/activeTurn/responseParts/2/toolCall/status",
                json!("completed"),
            ),
        ],
    );
    let changed = json!({"type": "session/toolCallContentChanged", "turnId": "t1",
        "toolCallId": "x", "content": [{"type": "text", "text": "out"}]});
    let parts = vec![
        call("completed", "x", json!({})),
        call("running", "x", json!({})),
    ];
    case_expect(
        true,
        busy(parts),
        &[changed],
        &[(
            "/activeTurn/responseParts/1/toolCall/content/0/text",
            json!("out"),
        )],
    );
    let delta = json!({"type": "session/toolCallDelta", "turnId": "t1", "toolCallId": "x",
        "content": "ls"});
    let parts = vec![
        call("streaming", "x", json!({})),
        call("streaming", "x", json!({})),
    ];
    case_expect(
        true,
        busy(parts),
        &[delta],
        &[
            (&format!("{PART0}/partialInput"), json!("ls")),
            (
                "/activeTurn/responseParts/1/toolCall/partialInput",
                json!("ls"),
            ),
        ],
    );
}

#[test]
fn a_delta_stops_at_the_first_part_with_the_id_whatever_it_is() {
    let delta = json!({"type": "session/delta", "turnId": "t1", "partId": "x", "content": "+"});
    let future = json!({"kind": "futurePart", "id": "x"});
    case_expect(
        true,
        busy(vec![future, md("x")]),
        std::slice::from_ref(&delta),
        &[("/activeTurn/responseParts/1/content", json!(""))],
    );
    let unknown = call("paused-for-lunch", "x", json!({}));
    case_expect(
        true,
        busy(vec![unknown, md("x")]),
        &[delta],
        &[("/activeTurn/responseParts/1/content", json!(""))],
    );
    // An unknown-status call no longer answers to the empty id.
    let empty = json!({"type": "session/delta", "turnId": "t1", "partId": "", "content": "+"});
    case_expect(
        true,
        busy(vec![call("paused-for-lunch", "x", json!({})), md("")]),
        &[empty],
        &[("/activeTurn/responseParts/1/content", json!("+"))],
    );
}

#[test]
fn tool_call_actions_recompute_the_status_even_when_nothing_matches() {
    let ready = json!({"type": "session/toolCallReady", "turnId": "t9", "toolCallId": "x",
        "invocationMessage": "go"});
    let mut errored = session_with(json!({}));
    errored["summary"]["status"] = json!(2 | 32);
    case_expect(
        true,
        errored,
        std::slice::from_ref(&ready),
        &[("/summary/status", json!(1 | 32))],
    );
    let mut stale = busy(vec![]);
    stale["summary"]["status"] = json!(1);
    case_expect(true, stale, &[ready], &[("/summary/status", json!(8))]);
}

#[test]
fn an_error_outcome_is_recomputed_like_any_other_activity() {
    let request = json!({"id": "r1", "message": "?"});
    let mut state = session_with(json!({"inputRequests": [request]}));
    state["summary"]["status"] = json!(2);
    let completed = json!({"type": "session/inputCompleted", "requestId": "r1",
        "response": "accept"});
    case_expect(true, state, &[completed], &[("/summary/status", json!(1))]);
}

#[test]
fn answering_and_completing_input_stamp_modified_at() {
    let state = session_with(json!({"inputRequests": [{"id": "r1", "message": "?"}]}));
    let answer = json!({"type": "session/inputAnswerChanged", "requestId": "r1",
        "questionId": "a", "answer": {"state": "draft", "value": {"kind": "text", "value": "v"}}});
    let completed = json!({"type": "session/inputCompleted", "requestId": "r1",
        "response": "accept"});
    case_expect(
        true,
        state.clone(),
        &[answer],
        &[("/summary/modifiedAt", json!(10_000))],
    );
    case_expect(
        true,
        state,
        &[completed],
        &[("/summary/modifiedAt", json!(10_000))],
    );
}

#[test]
fn reordering_keeps_unnamed_messages_in_order_and_the_last_of_a_duplicate_id() {
    let queued = |id: &str, text: &str| json!({"id": id, "message": USER(text)});
    let reordered = |queue: Value, order: Value, expected: Value| {
        let reorder = json!({"type": "session/queuedMessagesReordered", "order": order});
        let state = session_with(json!({ "queuedMessages": queue }));
        case_expect(true, state, &[reorder], &[("/queuedMessages", expected)]);
    };
    reordered(
        json!([queued("q3", "3"), queued("q1", "1"), queued("q2", "2")]),
        json!(["q2"]),
        json!([queued("q2", "2"), queued("q3", "3"), queued("q1", "1")]),
    );
    reordered(
        json!([queued("q1", "A"), queued("q2", "2"), queued("q1", "B")]),
        json!(["q1"]),
        json!([queued("q1", "B"), queued("q2", "2")]),
    );
}

#[test]
fn empty_ids_name_nothing_where_typescript_tests_them_for_truth() {
    let state = session_with(json!({"queuedMessages": [{"id": "", "message": USER("q")}]}));
    let started = json!({"type": "session/turnStarted", "turnId": "t1", "message": USER("q"),
        "queuedMessageId": ""});
    case_expect(
        true,
        state,
        &[started],
        &[("/queuedMessages/0/id", json!(""))],
    );
    let options = json!([{"id": "", "label": "Allow", "kind": "approve"}]);
    let pending = call("pending-confirmation", "x", json!({"options": options}));
    let confirmed = json!({"type": "session/toolCallConfirmed", "turnId": "t1", "toolCallId": "x",
        "approved": true, "confirmed": "user-action", "selectedOptionId": ""});
    case_expect(
        true,
        busy(vec![pending]),
        &[confirmed],
        &[(&format!("{PART0}/selectedOption"), Value::Null)],
    );
    // An empty `confirmed` is no confirmation: the call waits for the user.
    let ready = json!({"type": "session/toolCallReady", "turnId": "t1", "toolCallId": "x",
        "invocationMessage": "go", "confirmed": ""});
    case_expect(
        false,
        busy(vec![call("streaming", "x", json!({}))]),
        &[ready],
        &[(&format!("{PART0}/status"), json!("pending-confirmation"))],
    );
}

#[test]
fn pending_messages_of_an_unknown_kind_go_to_the_queue_and_replace_whole_entries() {
    let state = session_with(json!({"queuedMessages": [{"id": "q1", "message": USER("a"),
        "zzOld": 1}]}));
    let set = json!({"type": "session/pendingMessageSet", "kind": "queued", "id": "q1",
        "message": USER("b")});
    case_expect(
        false,
        state.clone(),
        &[set],
        &[("/queuedMessages/0/zzOld", Value::Null)],
    );
    let set = json!({"type": "session/pendingMessageSet", "kind": "urgent", "id": "q2",
        "message": USER("c")});
    let removed = json!({"type": "session/pendingMessageRemoved", "kind": "urgent", "id": "q1"});
    case_expect(
        false,
        state,
        &[set, removed],
        &[("/queuedMessages/0/id", json!("q2"))],
    );
}

#[test]
fn customizations_of_unknown_types_match_by_raw_id_and_children_in_every_container() {
    let agent = |id: &str| json!({"type": "agent", "id": id, "uri": "file:///a", "name": "A"});
    let mcp = |id: &str| {
        json!({"type": "mcpServer", "id": id, "uri": "file:///m", "name": "M",
        "enabled": true, "state": {"kind": "starting"}})
    };
    let plugin = |id: &str, children: Value| {
        json!({"type": "plugin", "id": id,
        "uri": "https://p", "name": "P", "enabled": true, "children": children})
    };
    let future = |extra: Value| {
        differential::with(
            json!({"type": "futureThing", "name": "F",
        "enabled": false}),
            extra,
        )
    };
    let state = |list: Value| session_with(json!({"customizations": list}));

    let toggle = json!({"type": "session/customizationToggled", "id": "p", "enabled": true});
    case_expect(
        true,
        state(json!([future(json!({"id": "p"})), plugin("p", json!([]))])),
        &[toggle],
        &[("/customizations/0/enabled", json!(true))],
    );
    let update = json!({"type": "session/customizationUpdated",
        "customization": future(json!({"name": "G"}))});
    case_expect(
        true,
        state(json!([future(json!({})), plugin("p", json!([]))])),
        &[update],
        &[
            ("/customizations/0/name", json!("G")),
            ("/customizations/2", Value::Null),
        ],
    );
    let remove = json!({"type": "session/customizationRemoved", "id": "m"});
    case_expect(
        true,
        state(json!([
            plugin("p", json!([agent("m")])),
            future(json!({"id": "f", "children": [agent("m")]}))
        ])),
        &[remove],
        &[
            ("/customizations/0/children", json!([])),
            ("/customizations/1/children", json!([])),
        ],
    );
    let mcp_state = json!({"type": "session/mcpServerStateChanged", "id": "m",
        "state": {"kind": "ready"}});
    case_expect(
        true,
        state(json!([
            plugin("p", json!([agent("m"), mcp("m")])),
            plugin("q", json!([mcp("m")]))
        ])),
        &[mcp_state],
        &[
            ("/customizations/0/children/1/state/kind", json!("starting")),
            ("/customizations/1/children/0/state/kind", json!("ready")),
        ],
    );
}

/// The former hand-made collision cases (first part with an id, first turn, every queued
/// message or input request with an id, an empty answer map dropped), through all oracles.
#[test]
fn hand_made_collisions_match_the_references() {
    let reasoning = |id: &str| json!({"kind": "reasoning", "id": id, "content": ""});
    let delta = json!({"type": "session/delta", "turnId": "t1", "partId": "x", "content": "+"});
    let turn = |id: &str| {
        json!({"id": id, "message": USER(id), "responseParts": [],
        "state": "complete"})
    };
    let queued = |id: &str| json!({"id": id, "message": USER(id)});
    let request = |answers: Value| json!({"id": "r1", "message": "?", "answers": answers});
    let cases = [
        (busy(vec![md("x"), md("x")]), delta.clone()),
        (busy(vec![reasoning("x"), md("x")]), delta.clone()),
        (busy(vec![call("running", "x", json!({})), md("x")]), delta),
        (
            session_with(json!({"turns": [turn("t0"), turn("t1"), turn("t0")]})),
            json!({"type": "session/truncated", "turnId": "t0"}),
        ),
        (
            session_with(json!({"queuedMessages": [queued("q1"), queued("q2"), queued("q1")]})),
            json!({"type": "session/pendingMessageRemoved", "kind": "queued", "id": "q1"}),
        ),
        (
            session_with(json!({"inputRequests": [request(json!(null)), request(json!(null))]})),
            json!({"type": "session/inputCompleted", "requestId": "r1", "response": "accept"}),
        ),
        (
            session_with(json!({"inputRequests": [request(json!({}))]})),
            json!({"type": "session/inputAnswerChanged", "requestId": "r1", "questionId": "a"}),
        ),
    ];
    for (initial, action) in cases {
        case_expect(true, initial, &[action], &[]);
    }
}

#[test]
fn the_vocabulary_has_every_session_action_type() {
    let types = [
        "ready",
        "creationFailed",
        "turnStarted",
        "delta",
        "responsePart",
        "toolCallStart",
        "toolCallDelta",
        "toolCallReady",
        "toolCallConfirmed",
        "toolCallComplete",
        "toolCallResultConfirmed",
        "toolCallContentChanged",
        "turnComplete",
        "turnCancelled",
        "error",
        "titleChanged",
        "usage",
        "reasoning",
        "modelChanged",
        "agentChanged",
        "isReadChanged",
        "isArchivedChanged",
        "activityChanged",
        "changesetsChanged",
        "configChanged",
        "metaChanged",
        "serverToolsChanged",
        "activeClientChanged",
        "activeClientToolsChanged",
        "pendingMessageSet",
        "pendingMessageRemoved",
        "queuedMessagesReordered",
        "inputRequested",
        "inputAnswerChanged",
        "inputCompleted",
        "customizationsChanged",
        "customizationToggled",
        "customizationUpdated",
        "customizationRemoved",
        "mcpServerStateChanged",
        "truncated",
        "nonExistentAction",
    ]
    .map(|t| format!("session/{t}"));
    let expected: Vec<&str> = types.iter().map(String::as_str).collect();
    differential::assert_covers(&[action()], &expected);
}

/// Every tool-call status meets every way a call can end, with the optional fields of the
/// ending present and absent, through all oracles.
#[test]
fn every_status_meets_every_ending() {
    let endings = [
        json!({"type": "session/toolCallComplete", "turnId": "t1", "toolCallId": "x",
            "result": {"success": true, "pastTenseMessage": "did"}}),
        json!({"type": "session/toolCallComplete", "turnId": "t1", "toolCallId": "x",
            "result": {"success": false, "pastTenseMessage": "did", "error": {"message": "e"}},
            "requiresResultConfirmation": true}),
        json!({"type": "session/toolCallConfirmed", "turnId": "t1", "toolCallId": "x",
            "approved": false, "reason": "denied"}),
        json!({"type": "session/toolCallConfirmed", "turnId": "t1", "toolCallId": "x",
            "approved": false, "reason": "skipped", "reasonMessage": "no",
            "userSuggestion": USER("do y"), "selectedOptionId": "o2"}),
        json!({"type": "session/toolCallResultConfirmed", "turnId": "t1", "toolCallId": "x",
            "approved": false}),
        json!({"type": "session/toolCallResultConfirmed", "turnId": "t1", "toolCallId": "x",
            "approved": true}),
        json!({"type": "session/turnComplete", "turnId": "t1"}),
        json!({"type": "session/turnCancelled", "turnId": "t1"}),
        json!({"type": "session/error", "turnId": "t1", "error": {"errorType": "e",
            "message": "m"}}),
    ];
    let options = json!([{"id": "o1", "label": "A", "kind": "approve"},
        {"id": "o2", "label": "D", "kind": "deny"}]);
    for status in turn::STATUSES {
        for extra in [
            json!({}),
            json!({"toolInput": "ls", "options": options,
            "selectedOption": options[0], "confirmed": "user-action", "success": true,
            "pastTenseMessage": "ran", "reason": "denied", "partialInput": "l"}),
        ] {
            // Only the fields the status has (the Rust reference rejects the others).
            let keep: &[&str] = match *status {
                "streaming" => &["partialInput"],
                "pending-confirmation" => &["toolInput", "options"],
                "running" => &["toolInput", "selectedOption"],
                "pending-result-confirmation" | "completed" => &[
                    "toolInput",
                    "selectedOption",
                    "confirmed",
                    "success",
                    "pastTenseMessage",
                ],
                "cancelled" => &["toolInput", "selectedOption", "reason"],
                _ => &["toolInput"],
            };
            let fields: serde_json::Map<String, Value> = extra
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| keep.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let mut required = json!({});
            match *status {
                "running" => required = json!({"confirmed": "not-needed"}),
                "pending-result-confirmation" | "completed" => {
                    required = json!({"confirmed": "setting", "success": true,
                        "pastTenseMessage": "ran"})
                }
                "cancelled" => required = json!({"reason": "skipped"}),
                _ => {}
            }
            let part = call(
                status,
                "x",
                differential::with(required, Value::Object(fields)),
            );
            for ending in &endings {
                case_expect(
                    true,
                    busy(vec![part.clone()]),
                    std::slice::from_ref(ending),
                    &[],
                );
            }
        }
    }
}
