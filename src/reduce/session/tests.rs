//! Behaviour the conformance fixtures do not pin down: no-op reasons and untouched state, the
//! accuracy of the reported `Changed` set, clock use, unknown variants, and status edge cases.

use super::session_reducer;
use crate::protocol::{SessionState, SessionStateField as F, StateAction};
use crate::reduce::{Changed, Clock, FixedClock, NoOp, Outcome};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::cell::Cell;

fn session(extra: Value) -> SessionState {
    let mut state = json!({
        "summary": {"resource": "ahp-session:/s", "provider": "p", "title": "T", "status": 1,
                    "createdAt": 1000, "modifiedAt": 1000},
        "lifecycle": "ready",
        "turns": [],
    });
    if let (Some(state), Value::Object(extra)) = (state.as_object_mut(), extra) {
        state.extend(extra);
    }
    serde_json::from_value(state).expect("test state")
}

/// A session with an active turn `t1` holding one markdown part `md`.
fn streaming(extra_parts: Value) -> SessionState {
    let mut parts = vec![json!({"kind": "markdown", "id": "md", "content": "a"})];
    if let Value::Array(extra) = extra_parts {
        parts.extend(extra);
    }
    let mut state = session(json!({
        "activeTurn": {"id": "t1", "message": {"text": "hi", "origin": {"kind": "user"}},
                       "responseParts": parts},
    }));
    state.summary.status = 8;
    state
}

fn action(value: Value) -> StateAction {
    serde_json::from_value(value).expect("test action")
}

fn apply(state: &mut SessionState, value: Value) -> Outcome<F> {
    session_reducer(state, &action(value), &FixedClock(9999.0))
}

fn changed(fields: &[F]) -> Outcome<F> {
    Outcome::Applied(
        fields
            .iter()
            .fold(Changed::none(), |set, field| set.with(*field)),
    )
}

/// Asserts that `value` is a no-op for `reason` and leaves `state` exactly as it was.
fn assert_noop(state: &SessionState, value: Value, reason: NoOp) {
    let mut after = state.clone();
    assert_eq!(apply(&mut after, value), Outcome::NoOp(reason));
    assert_eq!(&after, state);
}

fn tool_call(status: &str, id: &str) -> Value {
    let mut call = json!({"status": status, "toolCallId": id, "toolName": "bash",
                          "displayName": "Bash", "invocationMessage": "run", "toolInput": "ls"});
    match status {
        "running" => call["confirmed"] = json!("user-action"),
        "pending-result-confirmation" | "completed" => {
            call["confirmed"] = json!("user-action");
            call["success"] = json!(true);
            call["pastTenseMessage"] = json!("ran");
        }
        _ => {}
    }
    json!({"kind": "toolCall", "toolCall": call})
}

#[test]
fn noops_leave_the_state_untouched_with_the_right_reason() {
    let state = streaming(json!([tool_call("running", "tc")]));
    let delta = |turn: &str, part: &str| json!({"type": "session/delta", "turnId": turn, "partId": part, "content": "x"});
    assert_noop(&state, delta("t0", "md"), NoOp::WrongTurn);
    assert_noop(&state, delta("t1", "nope"), NoOp::UnknownTarget);
    assert_noop(&state, delta("t1", "tc"), NoOp::UnknownTarget);
    assert_noop(
        &state,
        json!({"type": "session/toolCallConfirmed", "turnId": "t1", "toolCallId": "tc",
               "approved": true, "confirmed": "user-action"}),
        NoOp::InvalidTransition,
    );
    assert_noop(
        &state,
        json!({"type": "session/toolCallDelta", "turnId": "t1", "toolCallId": "missing",
               "content": "x"}),
        NoOp::UnknownTarget,
    );
    assert_noop(
        &state,
        json!({"type": "session/truncated", "turnId": "gone"}),
        NoOp::UnknownTarget,
    );
    assert_noop(
        &state,
        json!({"type": "session/configChanged", "config": {"a": 1}}),
        NoOp::NothingToChange,
    );
    assert_noop(
        &state,
        json!({"type": "session/isReadChanged", "isRead": false}),
        NoOp::NothingToChange,
    );
    assert_noop(
        &state,
        json!({"type": "session/ready"}),
        NoOp::NothingToChange,
    );
    assert_noop(
        &state,
        json!({"type": "session/futureAction", "x": 1}),
        NoOp::NotForThisChannel,
    );
    assert_noop(
        &state,
        json!({"type": "terminal/titleChanged", "title": "x"}),
        NoOp::NotForThisChannel,
    );
    assert_noop(
        &state,
        json!({"type": "root/activeSessionsChanged", "activeSessions": 2}),
        NoOp::NotForThisChannel,
    );
    assert_noop(
        &state,
        json!({"type": "session/pendingMessageRemoved", "kind": "someday", "id": "x"}),
        NoOp::UnknownTarget,
    );
    // A tool-call action that matches nothing still settles a status that says otherwise (as
    // the TypeScript reducers do): here it was "idle" with a turn in progress.
    let mut stale = state.clone();
    stale.summary.status = 1;
    let ready = json!({"type": "session/toolCallReady", "turnId": "t0", "toolCallId": "tc",
                       "invocationMessage": "go"});
    assert_eq!(apply(&mut stale, ready), changed(&[F::Summary]));
    assert_eq!(stale.summary.status, 8);
}

#[test]
fn changed_sets_name_exactly_the_touched_fields() {
    let mut state = streaming(json!([]));
    let delta = json!({"type": "session/delta", "turnId": "t1", "partId": "md", "content": "b"});
    assert_eq!(apply(&mut state, delta), changed(&[F::ActiveTurn]));

    let ready = |id: &str, confirmed: Option<&str>| {
        let mut ready = json!({"type": "session/toolCallReady", "turnId": "t1", "toolCallId": id,
                               "invocationMessage": "run"});
        if let Some(confirmed) = confirmed {
            ready["confirmed"] = json!(confirmed);
        }
        ready
    };
    for id in ["a", "b", "c"] {
        let start = json!({"type": "session/toolCallStart", "turnId": "t1", "toolCallId": id,
                           "toolName": "bash", "displayName": "Bash"});
        assert_eq!(apply(&mut state, start), changed(&[F::ActiveTurn]));
    }
    // Auto-confirmed: straight to running, the session does not wait.
    assert_eq!(
        apply(&mut state, ready("a", Some("not-needed"))),
        changed(&[F::ActiveTurn])
    );
    // Awaiting confirmation: the status becomes input-needed.
    assert_eq!(
        apply(&mut state, ready("b", None)),
        changed(&[F::ActiveTurn, F::Summary])
    );
    assert_eq!(
        apply(&mut state, ready("c", None)),
        changed(&[F::ActiveTurn])
    );
    let approve = |id: &str| {
        json!({"type": "session/toolCallConfirmed", "turnId": "t1", "toolCallId": id,
               "approved": true, "confirmed": "user-action"})
    };
    // `c` still waits, so the status stays input-needed.
    assert_eq!(apply(&mut state, approve("b")), changed(&[F::ActiveTurn]));
    assert_eq!(state.summary.status, 24);
    assert_eq!(
        apply(&mut state, approve("c")),
        changed(&[F::ActiveTurn, F::Summary])
    );
    assert_eq!(state.summary.status, 8);

    let request = json!({"type": "session/inputRequested", "request": {"id": "r", "message": "?"}});
    assert_eq!(
        apply(&mut state, request),
        changed(&[F::InputRequests, F::Summary])
    );
    let answer = json!({"type": "session/inputAnswerChanged", "requestId": "r", "questionId": "q",
                        "answer": {"state": "skipped"}});
    // Answering stamps `modifiedAt`, as both official reducers do.
    assert_eq!(
        apply(&mut state, answer),
        changed(&[F::InputRequests, F::Summary])
    );
    let end = json!({"type": "session/turnComplete", "turnId": "t1"});
    assert_eq!(
        apply(&mut state, end),
        changed(&[F::Turns, F::ActiveTurn, F::Summary, F::InputRequests])
    );

    let mut state = session(json!({"queuedMessages": [
        {"id": "q1", "message": {"text": "q", "origin": {"kind": "user"}}}]}));
    let start = json!({"type": "session/turnStarted", "turnId": "t2", "queuedMessageId": "q1",
                       "message": {"text": "q", "origin": {"kind": "user"}}});
    assert_eq!(
        apply(&mut state, start),
        changed(&[F::ActiveTurn, F::Summary, F::QueuedMessages])
    );
    let read = json!({"type": "session/isReadChanged", "isRead": true});
    assert_eq!(apply(&mut state, read), changed(&[F::Summary]));
}

/// Counts `now()` calls, so tests can check the clock is read only when a time is stamped.
struct CountingClock(Cell<u32>);

impl Clock for CountingClock {
    fn now(&self) -> f64 {
        self.0.set(self.0.get() + 1);
        f64::from(self.0.get())
    }
}

#[test]
fn the_clock_is_read_only_to_stamp_modified_at() {
    let clock = CountingClock(Cell::new(0));
    let mut state = streaming(json!([]));
    let mut run = |value: Value| {
        session_reducer(&mut state, &action(value), &clock);
        clock.0.get()
    };
    assert_eq!(
        run(json!({"type": "session/delta", "turnId": "t1", "partId": "md", "content": "b"})),
        0
    );
    assert_eq!(
        run(json!({"type": "session/usage", "turnId": "t1", "usage": {"inputTokens": 1}})),
        0
    );
    assert_eq!(
        run(json!({"type": "session/isArchivedChanged", "isArchived": true})),
        0
    );
    assert_eq!(
        run(json!({"type": "session/titleChanged", "title": "New"})),
        1
    );
    assert_eq!(
        run(json!({"type": "session/turnCancelled", "turnId": "nope"})),
        1
    );
    assert_eq!(
        run(json!({"type": "session/turnCancelled", "turnId": "t1"})),
        2
    );
    assert_eq!(state.summary.modified_at, 2.0);
}

#[test]
fn unknown_tool_call_states_wait_for_the_turn_end() {
    let future = json!({"kind": "toolCall", "toolCall": {"status": "paused-for-lunch",
                        "toolCallId": "tc", "toolName": "bash", "displayName": "Bash",
                        "invocationMessage": "run", "toolInput": "ls", "zzNew": 1}});
    let state = streaming(json!([future]));
    // As in the TypeScript reducers, a call of an unknown status answers to its own id, but no
    // tool-call action changes it.
    assert_noop(
        &state,
        json!({"type": "session/toolCallComplete", "turnId": "t1", "toolCallId": "tc",
               "result": {"success": true, "pastTenseMessage": "done"}}),
        NoOp::InvalidTransition,
    );
    assert_noop(
        &state,
        json!({"type": "session/toolCallReady", "turnId": "t1", "toolCallId": "",
               "invocationMessage": "run", "confirmed": "not-needed"}),
        NoOp::UnknownTarget,
    );
    // Ending the turn cancels it (as skipped) from its base fields, message and input.
    let mut state = state;
    apply(
        &mut state,
        json!({"type": "session/turnComplete", "turnId": "t1"}),
    );
    let parts = serde_json::to_value(&state.turns[0].response_parts).expect("serialize");
    assert_eq!(
        parts[1]["toolCall"],
        json!({"status": "cancelled", "toolCallId": "tc", "toolName": "bash",
               "displayName": "Bash", "invocationMessage": "run", "toolInput": "ls",
               "reason": "skipped"})
    );
}

#[test]
fn turn_end_cancels_unfinished_tool_calls_without_their_selected_option() {
    let mut running = tool_call("running", "run");
    running["toolCall"]["selectedOption"] = json!({"id": "o", "label": "Ok", "kind": "approve"});
    let mut state = streaming(json!([
        tool_call("streaming", "s"),
        running,
        tool_call("completed", "done")
    ]));
    apply(
        &mut state,
        json!({"type": "session/error", "turnId": "t1",
                             "error": {"errorType": "x", "message": "boom"}}),
    );
    let turn = serde_json::to_value(&state.turns[0]).expect("serialize");
    assert_eq!(turn["state"], "error");
    assert_eq!(turn["responseParts"][1]["toolCall"]["reason"], "skipped");
    assert_eq!(turn["responseParts"][2]["toolCall"]["reason"], "skipped");
    // Both official reducers build the skipped call from its base fields, message and input.
    assert_eq!(
        turn["responseParts"][2]["toolCall"]["selectedOption"],
        Value::Null
    );
    assert_eq!(turn["responseParts"][2]["toolCall"]["toolInput"], "ls");
    assert_eq!(turn["responseParts"][3]["toolCall"]["status"], "completed");
    assert_eq!(state.summary.status, 2);
}

#[test]
fn status_keeps_metadata_flags_and_follows_input_requests_without_a_turn() {
    let mut state = session(json!({}));
    state.summary.status = 2 | 64; // error, archived
    let request = json!({"type": "session/inputRequested", "request": {"id": "r"}});
    apply(&mut state, request);
    assert_eq!(state.summary.status, 24 | 64);
    apply(
        &mut state,
        json!({"type": "session/inputCompleted", "requestId": "r", "response": "cancel"}),
    );
    assert_eq!(state.summary.status, 1 | 64);
    assert_eq!(state.input_requests, None);

    // A new turn clears "read" but keeps "archived"; truncation returns to idle.
    state.summary.status |= 32;
    apply(
        &mut state,
        json!({"type": "session/turnStarted", "turnId": "t",
                             "message": {"text": "go", "origin": {"kind": "user"}}}),
    );
    assert_eq!(state.summary.status, 8 | 64);
    apply(&mut state, json!({"type": "session/truncated"}));
    assert_eq!(state.summary.status, 1 | 64);
}

#[test]
fn delta_and_reasoning_only_append_to_their_own_part_kind() {
    let state = streaming(json!([{"kind": "reasoning", "id": "r", "content": ""}]));
    assert_noop(
        &state,
        json!({"type": "session/delta", "turnId": "t1", "partId": "r", "content": "x"}),
        NoOp::UnknownTarget,
    );
    let mut state = state;
    apply(
        &mut state,
        json!({"type": "session/reasoning", "turnId": "t1", "partId": "r", "content": "hm"}),
    );
    apply(
        &mut state,
        json!({"type": "session/delta", "turnId": "t1", "partId": "md", "content": "b"}),
    );
    let parts = serde_json::to_value(state.active_turn.as_ref().map(|t| &t.response_parts))
        .expect("serialize");
    assert_eq!(
        parts,
        json!([{"kind": "markdown", "id": "md", "content": "ab"},
                             {"kind": "reasoning", "id": "r", "content": "hm"}])
    );
}

/// Colliding ids resolve as in the TypeScript reducers (0.3.0): `session/delta` and
/// `session/reasoning` hit the FIRST part whose id matches, whatever its kind, and apply only if
/// that part is of their kind; a tool-call action hits EVERY tool call with that id.
#[test]
fn colliding_ids_resolve_as_the_typescript_reducers_do() {
    let md = |id: &str, content: &str| json!({"kind": "markdown", "id": id, "content": content});
    let reasoning = |id: &str| json!({"kind": "reasoning", "id": id, "content": ""});
    let parts = |state: &SessionState| {
        serde_json::to_value(
            &state
                .active_turn
                .as_ref()
                .expect("active turn")
                .response_parts,
        )
        .expect("serialize")
    };
    let delta = |part: &str| json!({"type": "session/delta", "turnId": "t1", "partId": part, "content": "+"});

    // Two markdown parts `x`: the first one grows (not the newest).
    let mut state = streaming(json!([md("x", "1"), md("x", "2")]));
    assert_eq!(apply(&mut state, delta("x")), changed(&[F::ActiveTurn]));
    assert_eq!(parts(&state)[1]["content"], "1+");
    assert_eq!(parts(&state)[2]["content"], "2");

    // The first part `x` is reasoning: a markdown delta to `x` does nothing, even though the
    // newest part is a markdown part `x`.
    let state = streaming(json!([reasoning("x"), md("x", "2")]));
    assert_noop(&state, delta("x"), NoOp::UnknownTarget);
    // The same when the first `x` is a tool call.
    let state = streaming(json!([tool_call("running", "x"), md("x", "2")]));
    assert_noop(&state, delta("x"), NoOp::UnknownTarget);
    assert_noop(
        &state,
        json!({"type": "session/reasoning", "turnId": "t1", "partId": "x", "content": "+"}),
        NoOp::UnknownTarget,
    );

    // Two tool calls `x`: as in the TypeScript reducers, both move on.
    let mut state = streaming(json!([
        tool_call("streaming", "x"),
        tool_call("streaming", "x")
    ]));
    apply(
        &mut state,
        json!({"type": "session/toolCallDelta", "turnId": "t1", "toolCallId": "x", "content": "p"}),
    );
    assert_eq!(parts(&state)[1]["toolCall"]["partialInput"], "p");
    assert_eq!(parts(&state)[2]["toolCall"]["partialInput"], "p");

    // Every tool call `x` that can take the action does; one that cannot is left alone, and a
    // markdown part `x` does not get in the way.
    let complete = json!({"type": "session/toolCallComplete", "turnId": "t1", "toolCallId": "x",
                          "result": {"success": true, "pastTenseMessage": "done"}});
    let mut state = streaming(json!([
        md("x", ""),
        tool_call("completed", "x"),
        tool_call("running", "x"),
        tool_call("running", "x")
    ]));
    assert_eq!(
        apply(&mut state, complete.clone()),
        changed(&[F::ActiveTurn])
    );
    assert_eq!(parts(&state)[2]["toolCall"]["pastTenseMessage"], "ran");
    assert_eq!(parts(&state)[3]["toolCall"]["status"], "completed");
    assert_eq!(parts(&state)[4]["toolCall"]["status"], "completed");
    let state = streaming(json!([md("x", ""), tool_call("completed", "x")]));
    assert_noop(&state, complete, NoOp::InvalidTransition);
}

#[test]
fn reorder_ignores_duplicates_and_reports_an_unchanged_order() {
    let queued = |ids: &[&str]| -> Value {
        ids.iter()
            .map(|id| json!({"id": id, "message": {"text": id, "origin": {"kind": "user"}}}))
            .collect()
    };
    let state = session(json!({"queuedMessages": queued(&["a", "b", "c"])}));
    assert_noop(
        &state,
        json!({"type": "session/queuedMessagesReordered", "order": ["a", "zzz", "b"]}),
        NoOp::NothingToChange,
    );
    let mut state = state;
    apply(
        &mut state,
        json!({"type": "session/queuedMessagesReordered", "order": ["c", "c", "b"]}),
    );
    let ids: Vec<_> = state
        .queued_messages
        .iter()
        .flatten()
        .map(|m| m.id.as_str())
        .collect();
    assert_eq!(ids, ["c", "b", "a"]);
}

#[test]
fn customizations_find_children_and_unknown_entries() {
    let mut state = session(json!({"customizations": [
        {"type": "plugin", "id": "p", "uri": "u", "name": "P", "enabled": true, "children": [
            {"type": "mcpServer", "id": "m", "uri": "u", "name": "M", "enabled": true,
             "state": {"kind": "starting"}}]},
        {"type": "someFutureThing", "id": "f", "enabled": true},
    ]}));
    let before = state.clone();
    // An entry of an unknown type is toggled by its raw id (its raw `enabled` member), as in
    // the TypeScript reducers.
    let mut toggled = before.clone();
    assert_eq!(
        apply(
            &mut toggled,
            json!({"type": "session/customizationToggled", "id": "f", "enabled": false})
        ),
        changed(&[F::Customizations])
    );
    let list = serde_json::to_value(&toggled.customizations).expect("serialize");
    assert_eq!(list[1]["enabled"], false);
    assert_noop(
        &before,
        json!({"type": "session/customizationToggled", "id": "p", "enabled": true}),
        NoOp::NothingToChange,
    );
    let ready = json!({"type": "session/mcpServerStateChanged", "id": "m", "state": {"kind": "ready"},
                       "channel": "mcp://m"});
    assert_eq!(apply(&mut state, ready), changed(&[F::Customizations]));
    let list = serde_json::to_value(&state.customizations).expect("serialize");
    assert_eq!(list[0]["children"][0]["state"]["kind"], "ready");
    assert_eq!(list[0]["children"][0]["channel"], "mcp://m");
    apply(
        &mut state,
        json!({"type": "session/customizationRemoved", "id": "f"}),
    );
    apply(
        &mut state,
        json!({"type": "session/customizationRemoved", "id": "m"}),
    );
    let list = serde_json::to_value(&state.customizations).expect("serialize");
    assert_eq!(
        list,
        json!([{"type": "plugin", "id": "p", "uri": "u", "name": "P", "enabled": true,
                             "children": []}])
    );
}

/// A small vocabulary of session actions over a few ids, so that random sequences hit both the
/// applying and the no-op branches of every handler.
fn random_action(kind: u8, a: u8, b: u8, flag: bool) -> Value {
    // Mostly the active turn and two ids, tool-call actions drawn more often and turn endings
    // less often, so that random sequences walk deep into the tool-call lifecycle.
    let turn = if a % 8 == 0 { "t2" } else { "t1" };
    let id = ["x", "y"][usize::from(b % 2)];
    let message = json!({"text": id, "origin": {"kind": "user"}});
    let kind = match kind % 64 {
        12..=14 if a % 4 != 0 => 4 + b % 8,
        kind @ 0..=25 => kind,
        kind => 4 + (kind - 26) % 8,
    };
    match kind {
        0 => json!({"type": "session/turnStarted", "turnId": turn, "message": message,
                    "queuedMessageId": id}),
        1 => json!({"type": "session/delta", "turnId": turn, "partId": id, "content": "d"}),
        2 => json!({"type": "session/reasoning", "turnId": turn, "partId": id, "content": "r"}),
        3 => json!({"type": "session/responsePart", "turnId": turn,
                    "part": {"kind": if flag { "markdown" } else { "reasoning" }, "id": id, "content": ""}}),
        4 => json!({"type": "session/toolCallStart", "turnId": turn, "toolCallId": id,
                    "toolName": "n", "displayName": "N"}),
        5 => {
            json!({"type": "session/toolCallDelta", "turnId": turn, "toolCallId": id, "content": "p"})
        }
        6 => {
            let mut ready = json!({"type": "session/toolCallReady", "turnId": turn,
                                   "toolCallId": id, "invocationMessage": "go"});
            if flag {
                ready["confirmed"] = json!("setting");
            }
            ready
        }
        7 => json!({"type": "session/toolCallConfirmed", "turnId": turn, "toolCallId": id,
                    "approved": true, "confirmed": "user-action"}),
        8 => json!({"type": "session/toolCallConfirmed", "turnId": turn, "toolCallId": id,
                    "approved": false, "reason": "denied"}),
        9 => json!({"type": "session/toolCallComplete", "turnId": turn, "toolCallId": id,
                    "result": {"success": flag, "pastTenseMessage": "did"},
                    "requiresResultConfirmation": !flag}),
        10 => json!({"type": "session/toolCallResultConfirmed", "turnId": turn, "toolCallId": id,
                     "approved": flag}),
        11 => json!({"type": "session/toolCallContentChanged", "turnId": turn, "toolCallId": id,
                     "content": [{"type": "text", "text": "out"}]}),
        12 => json!({"type": "session/turnComplete", "turnId": turn}),
        13 => json!({"type": "session/error", "turnId": turn,
                     "error": {"errorType": "e", "message": "m"}}),
        14 => json!({"type": "session/truncated", "turnId": if flag { Some(turn) } else { None }}),
        15 => json!({"type": "session/pendingMessageSet",
                     "kind": if flag { "queued" } else { "steering" }, "id": id, "message": message}),
        16 => json!({"type": "session/pendingMessageRemoved",
                     "kind": if flag { "queued" } else { "steering" }, "id": id}),
        17 => json!({"type": "session/queuedMessagesReordered", "order": [id, "x"]}),
        18 => json!({"type": "session/inputRequested", "request": {"id": id, "message": "?"}}),
        19 => json!({"type": "session/inputAnswerChanged", "requestId": id, "questionId": turn,
                     "answer": if flag { Some(json!({"state": "skipped"})) } else { None }}),
        20 => json!({"type": "session/inputCompleted", "requestId": id, "response": "accept"}),
        21 => json!({"type": "session/customizationUpdated", "customization":
                     {"type": "plugin", "id": id, "uri": "u", "name": turn, "enabled": flag}}),
        22 => json!({"type": "session/customizationToggled", "id": id, "enabled": flag}),
        23 => json!({"type": "session/customizationRemoved", "id": id}),
        24 => json!({"type": "session/isReadChanged", "isRead": flag}),
        _ => json!({"type": "session/usage", "turnId": turn, "usage": {"outputTokens": b}}),
    }
}

proptest! {
    /// Over random action sequences: the reducer never panics, a no-op leaves the state
    /// untouched, and every top-level field that changed is reported in `Changed`.
    #[test]
    fn outcomes_describe_the_state_change(
        steps in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), any::<bool>()), 1..60)
    ) {
        let mut state = streaming(json!([]));
        for (kind, a, b, flag) in steps {
            let action = action(random_action(kind, a, b, flag));
            let before = state.clone();
            let before_json = serde_json::to_value(&before).expect("serialize");
            let outcome = session_reducer(&mut state, &action, &FixedClock(9999.0));
            let after_json = serde_json::to_value(&state).expect("serialize");
            match outcome {
                Outcome::NoOp(_) => prop_assert_eq!(&state, &before),
                Outcome::Applied(fields) => {
                    for field in F::ALL {
                        let name = field.wire_name();
                        if before_json.get(name) != after_json.get(name) {
                            prop_assert!(fields.contains(*field), "{name} changed but was not reported");
                        }
                    }
                }
            }
        }
    }
}
