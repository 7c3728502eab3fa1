//! The 1.0 reducers' choices that the differential tests leave out of their comparison with
//! the official Rust reducers (they follow TypeScript there, or validate before mutating), and
//! the no-op rules, pinned.

use super::*;
use crate::protocol::v1::{ChatState, SessionState, StateAction};
use serde_json::{json, Value};

fn chat(value: Value) -> ChatState {
    serde_json::from_value(value).expect("chat state")
}

fn action(value: Value) -> StateAction {
    serde_json::from_value(value).expect("action")
}

fn queue_ids(state: &ChatState) -> Vec<&str> {
    state
        .queued_messages
        .iter()
        .flatten()
        .map(|m| m.id.as_str())
        .collect()
}

fn message(id: &str) -> Value {
    json!({"id": id, "message": {"text": id, "origin": {"kind": "user"}}})
}

#[test]
fn reordering_keeps_unnamed_queued_messages_in_their_order() {
    let mut state = chat(json!({"resource": "ahp-chat:/c", "title": "", "status": 1,
        "modifiedAt": "1970-01-01T00:00:00.000Z", "turns": [],
        "queuedMessages": [message("d"), message("b"), message("a"), message("c"), message("b")]}));
    let reorder = action(json!({"type": "chat/queuedMessagesReordered", "order": ["c", "z", "c"]}));
    assert!(chat_reducer(&mut state, &reorder).is_applied());
    assert_eq!(queue_ids(&state), ["c", "d", "b", "a", "b"]);
}

#[test]
fn a_turn_end_cancels_a_call_of_an_unknown_status_from_its_raw_members() {
    let mut state = chat(json!({"resource": "ahp-chat:/c", "title": "", "status": 8,
        "modifiedAt": "1970-01-01T00:00:00.000Z", "turns": [],
        "activeTurn": {"id": "t1", "startedAt": "1970-01-01T00:00:01.000Z",
            "message": {"text": "q", "origin": {"kind": "user"}},
            "responseParts": [{"kind": "toolCall", "toolCall": {"status": "paused",
                "toolCallId": "tc1", "toolName": "bash", "displayName": "Bash",
                "invocationMessage": "Run", "toolInput": "ls", "resumeAt": 5}}]}}));
    let end = action(json!({"type": "chat/turnComplete", "turnId": "t1", "duration": 1500}));
    assert!(chat_reducer(&mut state, &end).is_applied());
    let turn = serde_json::to_value(&*state.turns[0]).expect("turn");
    assert_eq!(
        turn["responseParts"][0]["toolCall"],
        json!({"status": "cancelled", "toolCallId": "tc1", "toolName": "bash",
            "displayName": "Bash", "invocationMessage": "Run", "toolInput": "ls",
            "reason": "skipped"})
    );
    assert_eq!(state.modified_at, "1970-01-01T00:00:02.500Z");
    assert_eq!(state.status, 1);
}

#[test]
fn a_turn_whose_start_is_not_a_timestamp_stays_active() {
    let mut state = chat(json!({"resource": "ahp-chat:/c", "title": "", "status": 8,
        "modifiedAt": "1970-01-01T00:00:00.000Z", "turns": [],
        "activeTurn": {"id": "t1", "startedAt": "yesterday",
            "message": {"text": "q", "origin": {"kind": "user"}}, "responseParts": []}}));
    let before = serde_json::to_value(&state).expect("state");
    let end = action(json!({"type": "chat/turnComplete", "turnId": "t1", "duration": 1}));
    assert_eq!(
        chat_reducer(&mut state, &end),
        Outcome::NoOp(NoOp::InvalidTransition)
    );
    assert_eq!(serde_json::to_value(&state).expect("state"), before);
}

#[test]
fn pending_messages_of_an_unknown_kind_are_not_taken() {
    let mut state = chat(json!({"resource": "ahp-chat:/c", "title": "", "status": 1,
        "modifiedAt": "1970-01-01T00:00:00.000Z", "turns": []}));
    let set = action(
        json!({"type": "chat/pendingMessageSet", "kind": "urgent", "id": "m",
        "message": {"text": "m", "origin": {"kind": "user"}}}),
    );
    assert_eq!(
        chat_reducer(&mut state, &set),
        Outcome::NoOp(NoOp::InvalidTransition)
    );
    assert!(state.queued_messages.is_none() && state.steering_message.is_none());
}

#[test]
fn an_unknown_customization_is_rejected_before_the_list_is_created() {
    let mut state: SessionState = serde_json::from_value(json!({"provider": "p", "title": "",
        "status": 1, "lifecycle": "ready", "activeClients": [], "chats": []}))
    .expect("session state");
    let update = action(json!({"type": "session/customizationUpdated",
        "customization": {"type": "futureKind", "id": "x"}}));
    assert!(!session_reducer(&mut state, &update).is_applied());
    assert!(state.customizations.is_none());
}

#[test]
fn every_reducer_leaves_unknown_actions_alone() {
    let unknown = action(json!({"type": "future/thing", "x": 1}));
    let mut state = chat(json!({"resource": "ahp-chat:/c", "title": "", "status": 1,
        "modifiedAt": "1970-01-01T00:00:00.000Z", "turns": []}));
    assert_eq!(
        chat_reducer(&mut state, &unknown),
        Outcome::NoOp(NoOp::NotForThisChannel)
    );
    let mut root = serde_json::from_value(json!({"agents": []})).expect("root");
    assert_eq!(
        root_reducer(&mut root, &unknown),
        Outcome::NoOp(NoOp::NotForThisChannel)
    );
}

#[test]
fn completed_turns_are_shared_between_copies_of_a_chat() {
    let mut state = chat(json!({"resource": "ahp-chat:/c", "title": "", "status": 1,
        "modifiedAt": "1970-01-01T00:00:00.000Z", "turns": [{"id": "t0",
            "message": {"text": "q", "origin": {"kind": "user"}}, "responseParts": [],
            "state": "complete"}]}));
    let copy = state.clone();
    assert!(std::sync::Arc::ptr_eq(&state.turns[0], &copy.turns[0]));
    let start = action(json!({"type": "chat/turnStarted", "turnId": "t1",
        "startedAt": "1970-01-01T00:00:05.000Z", "message": {"text": "n",
            "origin": {"kind": "user"}}}));
    assert_eq!(
        chat_reducer(&mut state, &start),
        Outcome::Applied(
            Changed::one(crate::protocol::v1::ChatStateField::ActiveTurn)
                .with(crate::protocol::v1::ChatStateField::Status)
                .with(crate::protocol::v1::ChatStateField::ModifiedAt)
        )
    );
    assert!(std::sync::Arc::ptr_eq(&state.turns[0], &copy.turns[0]));
}
