//! Reconnection: replay, snapshots, missing channels, pending-action policies, fallback.

use super::tests::{
    action, config, connected, data, envelope, events, reply, sent, term, terminal_state, TERM,
};
use super::*;
use crate::reduce::FixedClock;
use serde_json::{json, Value};

/// Connected, two own actions in flight, then the transport drops and reopens.
fn dropped_with_two_in_flight(config: EngineConfig) -> (Engine, Value) {
    let mut engine = connected(config);
    engine.dispatch(TERM, action(data("a")), 1.0).unwrap();
    engine.dispatch(TERM, action(data("b")), 1.0).unwrap();
    sent(&mut engine);
    engine.on_close("gone", 2.0);
    // Offline: applied locally, sent after the handshake whatever the policy.
    engine.dispatch(TERM, action(data("c")), 3.0).unwrap();
    assert!(sent(&mut engine).is_empty());
    events(&mut engine);
    engine.on_open(4.0);
    let reconnect = sent(&mut engine).remove(0);
    assert_eq!(reconnect["method"], "reconnect");
    assert_eq!(reconnect["params"]["clientId"], "me");
    assert_eq!(reconnect["params"]["lastSeenServerSeq"], 10);
    assert_eq!(
        reconnect["params"]["subscriptions"],
        json!(["ahp-root://", TERM])
    );
    (engine, reconnect)
}

fn dispatched_seqs(frames: &[Value]) -> Vec<u64> {
    frames
        .iter()
        .filter(|f| f["method"] == "dispatchAction")
        .map(|f| f["params"]["clientSeq"].as_u64().unwrap())
        .collect()
}

fn replay(actions: Vec<String>, missing: Vec<&str>) -> Value {
    let actions: Vec<Value> = actions
        .iter()
        .map(|f| serde_json::from_str::<Value>(f).unwrap()["params"].clone())
        .collect();
    json!({"type": "replay", "actions": actions, "missing": missing})
}

#[test]
fn replay_resolves_echoes_and_resends_what_the_server_never_saw() {
    let (mut engine, reconnect) = dropped_with_two_in_flight(config());
    let result = replay(
        vec![
            envelope(11, data("x"), Some(("other", 1))),
            envelope(12, data("a"), Some(("me", 1))),
        ],
        vec![],
    );
    reply(&mut engine, &reconnect["id"], result, 5.0);
    let frames = sent(&mut engine);
    assert_eq!(
        dispatched_seqs(&frames),
        vec![2, 3],
        "unseen actions re-sent in order"
    );
    let evs = events(&mut engine);
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::Connected { resumed: true, .. })));
    assert!(!evs
        .iter()
        .any(|e| matches!(e, Event::PendingDropped { .. })));
    let m = term(&engine);
    assert_eq!(m.pending_count(), 2);
    assert_eq!(m.last_server_seq(), 12);
    let content = serde_json::to_string(&m.state().content).unwrap();
    assert!(content.contains("xabc"), "{content}");
    assert_eq!(engine.last_seen_server_seq(), 12);
}

#[test]
fn drop_in_flight_policy_drops_and_reports_carried_actions() {
    let mut config = config();
    config.pending_policy = PendingPolicy::DropInFlight;
    let (mut engine, reconnect) = dropped_with_two_in_flight(config);
    reply(&mut engine, &reconnect["id"], replay(vec![], vec![]), 5.0);
    assert_eq!(dispatched_seqs(&sent(&mut engine)), vec![3]);
    let dropped = events(&mut engine)
        .into_iter()
        .find_map(|e| match e {
            Event::PendingDropped {
                actions,
                reason: DropReason::InFlightOnReconnect,
                ..
            } => Some(actions),
            _ => None,
        })
        .expect("dropped actions are reported");
    let seqs: Vec<u64> = dropped.iter().map(|p| p.client_seq).collect();
    assert_eq!(seqs, vec![1, 2]);
    assert_eq!(term(&engine).pending_count(), 1);
    assert_eq!(
        term(&engine).state(),
        &term(&engine).recompute(&FixedClock(5.0))
    );
}

#[test]
fn snapshot_reconnect_drops_in_flight_actions_and_resets_state() {
    let (mut engine, reconnect) = dropped_with_two_in_flight(config());
    let result = json!({"type": "snapshot", "snapshots": [
        {"resource": "ahp-root://", "state": {"agents": []}, "fromSeq": 50},
        {"resource": TERM, "state": terminal_state("after"), "fromSeq": 50},
    ]});
    reply(&mut engine, &reconnect["id"], result, 5.0);
    assert_eq!(dispatched_seqs(&sent(&mut engine)), vec![3]);
    let evs = events(&mut engine);
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::PendingDropped { actions,
        reason: DropReason::ReconnectSnapshot, .. } if actions.len() == 2)));
    let m = term(&engine);
    assert_eq!(m.confirmed().title, "after");
    assert_eq!(m.pending_count(), 1);
    assert_eq!(m.last_server_seq(), 50);
    assert_eq!(engine.last_seen_server_seq(), 50);
}

#[test]
fn missing_channels_are_lost_with_their_pending_actions() {
    let (mut engine, reconnect) = dropped_with_two_in_flight(config());
    reply(
        &mut engine,
        &reconnect["id"],
        replay(vec![], vec![TERM]),
        5.0,
    );
    let evs = events(&mut engine);
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::SubscriptionLost { channel, .. } if channel == TERM)));
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::PendingDropped { actions,
        reason: DropReason::ChannelLost, .. } if actions.len() == 3)));
    assert!(engine.mirror(TERM).is_none());
    assert!(dispatched_seqs(&sent(&mut engine)).is_empty());
}

#[test]
fn a_failed_reconnect_falls_back_to_initialize() {
    let (mut engine, reconnect) = dropped_with_two_in_flight(config());
    let err = json!({"jsonrpc": "2.0", "id": reconnect["id"],
        "error": {"code": -32603, "message": "unknown client"}});
    engine.handle_frame(&err.to_string(), 5.0);
    let init = sent(&mut engine).remove(0);
    assert_eq!(init["method"], "initialize");
    assert_eq!(
        init["params"]["initialSubscriptions"],
        json!(["ahp-root://", TERM])
    );
    reply(
        &mut engine,
        &init["id"],
        json!({"protocolVersion": "0.3.0", "serverSeq": 70, "snapshots": [
            {"resource": "ahp-root://", "state": {"agents": []}, "fromSeq": 70},
            {"resource": TERM, "state": terminal_state("fresh"), "fromSeq": 70}]}),
        6.0,
    );
    assert_eq!(dispatched_seqs(&sent(&mut engine)), vec![3]);
    let evs = events(&mut engine);
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::Connected { resumed: true, .. })));
    assert!(evs.iter().any(|e| matches!(
        e,
        Event::PendingDropped {
            reason: DropReason::ReconnectSnapshot,
            ..
        }
    )));
    assert_eq!(term(&engine).confirmed().title, "fresh");
}

#[test]
fn replayed_duplicates_are_ignored() {
    let mut engine = connected(config());
    engine.handle_frame(&envelope(11, data("x"), None), 1.0);
    engine.on_close("gone", 2.0);
    engine.on_open(3.0);
    let reconnect = sent(&mut engine).remove(0);
    assert_eq!(reconnect["params"]["lastSeenServerSeq"], 11);
    // A server that replays from too early: seq 11 again, then 12.
    let result = replay(
        vec![envelope(11, data("x"), None), envelope(12, data("y"), None)],
        vec![],
    );
    reply(&mut engine, &reconnect["id"], result, 4.0);
    let content = serde_json::to_string(&term(&engine).state().content).unwrap();
    assert!(
        content.contains("xy") && !content.contains("xxy"),
        "{content}"
    );
}
