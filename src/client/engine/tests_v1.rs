//! The engine speaking AHP 1.0 with a scripted 1.x host: negotiation, 1.0 snapshots and
//! envelopes into 1.0 mirrors, optimistic 1.0 dispatch.

use super::tests::{config, events, reply, sent, terminal_state, TERM};
use super::*;
use crate::protocol::v1::{self as wire1, ChatState};
use crate::protocol::{errors, TerminalState};
use serde_json::{json, Value};

const SESSION: &str = "ahp-session:/s";
const CHAT: &str = "ahp-chat:/c";
const BOTH: [&str; 2] = ["1.0.0", "0.3.0"];

fn offering(versions: &[&str]) -> EngineConfig {
    let mut config = config();
    config.protocol_versions = versions.iter().map(|v| v.to_string()).collect();
    config.initial_subscriptions = vec![SESSION.into(), CHAT.into()];
    config
}

fn session_state() -> Value {
    json!({"provider": "copilot", "title": "S", "status": 1, "lifecycle": "ready",
        "activeClients": [], "chats": []})
}

fn idle_chat() -> Value {
    json!({"resource": CHAT, "title": "T", "status": 1,
        "modifiedAt": "1970-01-01T00:00:01.000Z", "turns": []})
}

/// A chat with an active turn streaming into markdown part `md-1`.
fn streaming_chat() -> Value {
    let mut chat = idle_chat();
    chat["activeTurn"] = json!({"id": "turn-1", "startedAt": "1970-01-01T00:00:01.000Z",
        "message": {"text": "Hello", "origin": {"kind": "user"}},
        "responseParts": [{"kind": "markdown", "id": "md-1", "content": ""}], "usage": null});
    chat
}

/// Opens with `config` and answers `initialize` with `result`; returns the engine, the
/// `initialize` frame sent, and the events.
fn handshake(config: EngineConfig, result: Value) -> (Engine, Value, Vec<Event>) {
    let mut engine = Engine::new(config);
    engine.on_open(0.0);
    let init = sent(&mut engine).remove(0);
    reply(&mut engine, &init["id"], result, 1.0);
    let events = events(&mut engine);
    (engine, init, events)
}

/// Connected over 1.0 with a session and `chat` as the chat's snapshot, at serverSeq 10.
fn connected_v1(chat: Value) -> Engine {
    let (mut engine, _, events) = handshake(
        offering(&BOTH),
        json!({"protocolVersion": "1.0.0", "serverSeq": 10, "snapshots": [
            {"resource": SESSION, "state": session_state(), "fromSeq": 10},
            {"resource": CHAT, "state": chat, "fromSeq": 10},
        ]}),
    );
    assert!(events.iter().any(|e| matches!(e, Event::Connected { .. })));
    sent(&mut engine);
    engine
}

fn action_frame(seq: u64, action: Value, origin: Option<u64>, rejection: Option<&str>) -> String {
    let mut params = json!({"channel": CHAT, "serverSeq": seq, "action": action});
    if let Some(s) = origin {
        params["origin"] = json!({"clientId": "me", "clientSeq": s});
    }
    if let Some(reason) = rejection {
        params["rejectionReason"] = json!(reason);
    }
    json!({"jsonrpc": "2.0", "method": "action", "params": params}).to_string()
}

fn turn_started(text: &str) -> Value {
    json!({"type": "chat/turnStarted", "turnId": "t1", "startedAt": "1970-01-01T00:00:02.000Z",
        "message": {"text": text, "origin": {"kind": "user"}}})
}

fn chat(engine: &Engine) -> &crate::sync::Mirror<ChatState> {
    engine
        .mirror_v1_as::<ChatState>(CHAT)
        .expect("a 1.0 chat mirror")
}

fn active_text(state: &ChatState) -> Option<&str> {
    state.active_turn.as_ref().map(|t| t.message.text.as_str())
}

fn v1_events(events: &[Event]) -> Vec<&ChannelEventV1> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ChannelV1(e) => Some(e),
            _ => None,
        })
        .collect()
}

fn handshake_error(events: &[Event]) -> &Error {
    events
        .iter()
        .find_map(|e| match e {
            Event::HandshakeFailed(e) => Some(e),
            _ => None,
        })
        .expect("the handshake failed")
}

#[test]
fn the_host_choosing_1_0_from_both_gives_1_0_mirrors() {
    let engine = connected_v1(idle_chat());
    assert_eq!(engine.protocol_version(), "1.0.0");
    assert_eq!(engine.server_info().unwrap().protocol_version, "1.0.0");
    let session = engine
        .mirror_v1_as::<wire1::SessionState>(SESSION)
        .expect("a 1.0 session mirror");
    assert_eq!(session.state().title, "S");
    assert_eq!(chat(&engine).state().title, "T");
    assert!(engine.mirror(SESSION).is_none(), "no 0.3.0 mirror");
    assert_eq!(
        engine.subscriptions(),
        vec![CHAT.to_string(), SESSION.into()]
    );
    assert_eq!(engine.last_seen_server_seq(), 10);
}

#[test]
fn the_offer_is_sent_in_order_and_0_3_is_taken_when_the_host_picks_it() {
    let mut config = offering(&BOTH);
    config.initial_subscriptions = vec![TERM.into()];
    let (engine, init, events) = handshake(
        config,
        json!({"protocolVersion": "0.3.0", "serverSeq": 3, "snapshots": [
            {"resource": TERM, "state": terminal_state("t"), "fromSeq": 3}]}),
    );
    assert_eq!(init["params"]["protocolVersions"], json!(BOTH));
    assert!(events.iter().any(|e| matches!(e, Event::Connected { .. })));
    assert_eq!(engine.protocol_version(), "0.3.0");
    assert!(engine.mirror_as::<TerminalState>(TERM).is_some());
    assert!(engine.mirror_v1(TERM).is_none());
}

#[test]
fn the_default_offer_is_0_3_only() {
    assert_eq!(EngineConfig::new("c").protocol_versions, vec!["0.3.0"]);
    assert_eq!(IMPLEMENTED_PROTOCOL_VERSIONS, &["1.0.0", "0.3.0"]);
}

#[test]
fn a_version_not_offered_or_not_implemented_is_refused() {
    let cases: [(&[&str], &str, &str); 2] = [
        (&["0.3.0"], "1.0.0", "not offered"),
        (&["1.0.1", "0.3.0"], "1.0.1", "does not implement"),
    ];
    for (offer, chosen, why) in cases {
        let (engine, _, events) = handshake(
            offering(offer),
            json!({"protocolVersion": chosen, "serverSeq": 0, "snapshots": []}),
        );
        let error = handshake_error(&events);
        assert!(
            matches!(error, Error::InvalidResponse { method, message }
                if method == "initialize" && message.contains(why) && message.contains(chosen)),
            "{error}"
        );
        assert_ne!(engine.connection_state(), ConnectionState::Connected);
        assert!(engine.server_info().is_none());
    }
}

#[test]
fn unsupported_protocol_version_is_a_typed_error_naming_the_hosts_versions() {
    let mut engine = Engine::new(offering(&BOTH));
    engine.on_open(0.0);
    let init = sent(&mut engine).remove(0);
    let frame = json!({"jsonrpc": "2.0", "id": init["id"], "error": {"code": -32005,
        "message": "unsupported", "data": {"supportedVersions": ["2.0.0", "0.9.1"]}}});
    engine.handle_frame(&frame.to_string(), 1.0);
    let events = events(&mut engine);
    let error = handshake_error(&events);
    let Error::UnsupportedProtocolVersion {
        offered,
        server_data: Some(data),
    } = error
    else {
        panic!("expected UnsupportedProtocolVersion, got {error:?}");
    };
    assert_eq!(offered, &BOTH.map(String::from).to_vec());
    assert_eq!(data.supported_versions, vec!["2.0.0", "0.9.1"]);
    assert_eq!(error.code(), Some(errors::UNSUPPORTED_PROTOCOL_VERSION));
    let message = error.to_string();
    assert!(message.contains("[1.0.0, 0.3.0]") && message.contains("[2.0.0, 0.9.1]"));
    assert_ne!(engine.connection_state(), ConnectionState::Connected);
}

#[test]
fn streamed_deltas_are_applied_in_one_event_per_batch() {
    let mut engine = connected_v1(streaming_chat());
    let delta = |seq, text| {
        let action = json!({"type": "chat/delta", "turnId": "turn-1", "partId": "md-1",
            "content": text});
        action_frame(seq, action, None, None)
    };
    engine.handle_frames([delta(11, "Hello "), delta(12, "world")], 2.0);
    let events = events(&mut engine);
    let changes = v1_events(&events);
    assert_eq!(changes.len(), 1, "{events:?}");
    let ChannelEventV1::Changed {
        channel,
        changed,
        confirmed_changed,
        pending,
        ..
    } = changes[0]
    else {
        panic!("a change: {changes:?}");
    };
    assert_eq!(channel, CHAT);
    assert!(changed.contains("activeTurn") && confirmed_changed.contains("activeTurn"));
    assert_eq!(*pending, 0);
    let turn = chat(&engine).state().active_turn.clone().unwrap();
    assert_eq!(
        serde_json::to_value(&turn.response_parts).unwrap()[0]["content"],
        "Hello world"
    );
    assert_eq!(engine.last_seen_server_seq(), 12);
    assert_eq!(chat(&engine).last_server_seq(), 12);
}

#[test]
fn an_own_turn_shows_at_once_and_its_echo_confirms_it() {
    let mut engine = connected_v1(idle_chat());
    let start: wire1::StateAction = serde_json::from_value(turn_started("hi")).unwrap();
    let seq = engine.dispatch_v1(CHAT, start, 2.0).unwrap();
    assert_eq!(active_text(chat(&engine).state()), Some("hi"));
    assert_eq!(active_text(chat(&engine).confirmed()), None);
    let frames = sent(&mut engine);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["method"], "dispatchAction");
    assert_eq!(frames[0]["params"]["clientSeq"], json!(seq));
    assert_eq!(frames[0]["params"]["action"], turn_started("hi"));
    let events_now = events(&mut engine);
    assert!(matches!(v1_events(&events_now)[..],
        [ChannelEventV1::Changed { changed, pending: 1, .. }] if changed.contains("activeTurn")));

    engine.handle_frame(&action_frame(11, turn_started("hi"), Some(seq), None), 3.0);
    assert_eq!(chat(&engine).pending_count(), 0);
    assert_eq!(active_text(chat(&engine).confirmed()), Some("hi"));
    let events = events(&mut engine);
    assert!(matches!(v1_events(&events)[..],
        [ChannelEventV1::Changed { confirmed_changed, pending: 0, .. }]
            if confirmed_changed.contains("activeTurn")));
}

#[test]
fn a_rejected_turn_is_rolled_back_and_reported() {
    let mut engine = connected_v1(idle_chat());
    let start: wire1::StateAction = serde_json::from_value(turn_started("hi")).unwrap();
    let seq = engine.dispatch_v1(CHAT, start.clone(), 2.0).unwrap();
    events(&mut engine);
    let echo = action_frame(11, turn_started("hi"), Some(seq), Some("busy"));
    engine.handle_frame(&echo, 3.0);
    assert_eq!(active_text(chat(&engine).state()), None);
    assert_eq!(chat(&engine).pending_count(), 0);
    let idle: ChatState = serde_json::from_value(idle_chat()).unwrap();
    assert_eq!(chat(&engine).state(), &idle);
    let events = events(&mut engine);
    let rejection = v1_events(&events)
        .into_iter()
        .find_map(|e| match e {
            ChannelEventV1::Rejected { channel, rejection } if channel == CHAT => Some(rejection),
            _ => None,
        })
        .expect("a rejection");
    assert_eq!(
        (
            rejection.client_seq,
            &rejection.action,
            rejection.reason.as_str()
        ),
        (seq, &start, "busy")
    );
}

#[test]
fn dispatch_in_the_other_version_is_refused_and_changes_nothing() {
    let mut engine = connected_v1(idle_chat());
    let old: StateAction =
        serde_json::from_value(json!({"type": "session/titleChanged", "title": "x"})).unwrap();
    let error = engine.dispatch(CHAT, old, 2.0).unwrap_err();
    assert!(
        matches!(&error, Error::WrongProtocolVersion { negotiated, version, attempted }
            if negotiated == "1.0.0" && version == "0.3.0"
                && attempted.contains("session/titleChanged")),
        "{error}"
    );
    // A 1.0 action of a type only 0.3.0 has (read as an unknown 1.0 action): the same.
    let unknown: wire1::StateAction = serde_json::from_value(
        json!({"type": "session/delta", "turnId": "t", "partId": "p",
            "content": "x"}),
    )
    .unwrap();
    assert!(matches!(
        engine.dispatch_v1(CHAT, unknown, 2.0),
        Err(Error::WrongProtocolVersion { .. })
    ));
    assert!(sent(&mut engine).is_empty() && events(&mut engine).is_empty());

    let mut engine03 = super::tests::connected(config());
    let new: wire1::StateAction = serde_json::from_value(turn_started("hi")).unwrap();
    assert!(matches!(
        engine03.dispatch_v1(TERM, new.clone(), 2.0),
        Err(Error::WrongProtocolVersion { negotiated, .. }) if negotiated == "0.3.0"
    ));
    assert!(matches!(
        engine.dispatch_v1("ahp-chat:/other", new, 2.0),
        Err(Error::NotSubscribed { .. })
    ));
    assert!(sent(&mut engine03).is_empty());
}

#[test]
fn bad_frames_are_no_ops_or_reported_and_the_mirrors_survive() {
    let mut engine = connected_v1(streaming_chat());
    let before = chat(&engine).state().clone();
    let frames = [
        // An action type 1.0 does not have: kept as unknown, a no-op.
        action_frame(11, json!({"type": "chat/nonsense", "x": 1}), None, None),
        // A known type with members of the wrong types: a malformed frame.
        action_frame(
            12,
            json!({"type": "chat/delta", "turnId": 5, "partId": [], "content": "x"}),
            None,
            None,
        ),
        // An envelope whose serverSeq is a string.
        r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-chat:/c","serverSeq":"13","action":{"type":"chat/usage"}}}"#.to_string(),
    ];
    engine.handle_frames(&frames, 2.0);
    let events = events(&mut engine);
    let malformed = events
        .iter()
        .filter(|e| matches!(e, Event::Malformed { message, .. } if message.contains("bad action envelope")))
        .count();
    assert_eq!(malformed, 2, "{events:?}");
    assert!(v1_events(&events).is_empty(), "{events:?}");
    assert_eq!(chat(&engine).state(), &before);
    assert_eq!(engine.connection_state(), ConnectionState::Connected);

    // And the channel still takes good frames.
    let delta = json!({"type": "chat/delta", "turnId": "turn-1", "partId": "md-1",
        "content": "ok"});
    engine.handle_frame(&action_frame(14, delta, None, None), 3.0);
    let parts = serde_json::to_value(
        &chat(&engine)
            .state()
            .active_turn
            .as_ref()
            .unwrap()
            .response_parts,
    );
    assert_eq!(parts.unwrap()[0]["content"], "ok");
}

#[test]
fn a_replay_reconnect_resolves_1_0_echoes_and_resends_the_rest() {
    let mut engine = connected_v1(idle_chat());
    let start: wire1::StateAction = serde_json::from_value(turn_started("hi")).unwrap();
    let seq = engine.dispatch_v1(CHAT, start, 2.0).unwrap();
    sent(&mut engine);
    engine.on_close("gone", 3.0);
    engine.on_open(4.0);
    let reconnect = sent(&mut engine).remove(0);
    assert_eq!(reconnect["method"], "reconnect");
    assert_eq!(reconnect["params"]["lastSeenServerSeq"], 10);
    // The host never saw the turn: a replay without its echo sends it again.
    let other = json!({"type": "chat/movableChanged", "movable": true});
    let replayed: Value = serde_json::from_str(&action_frame(11, other, None, None)).unwrap();
    reply(
        &mut engine,
        &reconnect["id"],
        json!({"type": "replay", "actions": [replayed["params"]], "missing": []}),
        5.0,
    );
    let resent = sent(&mut engine);
    assert_eq!(resent.len(), 1, "{resent:?}");
    assert_eq!(resent[0]["params"]["clientSeq"], json!(seq));
    assert_eq!(chat(&engine).confirmed().movable, Some(true));
    assert_eq!(active_text(chat(&engine).state()), Some("hi"));
    assert_eq!(engine.last_seen_server_seq(), 11);
}

#[test]
fn notifications_of_a_1_0_host_are_typed_as_1_0s() {
    use super::ServerNotificationV1;
    let mut engine = connected_v1(idle_chat());
    // 1.0's `auth/required` names a resource by its metadata object (0.3.0: a string).
    let params = json!({"channel": "ahp-root://",
        "resource": {"resource": "https://api.example", "authorization_servers": []}});
    let frame = json!({"jsonrpc": "2.0", "method": "auth/required", "params": params});
    engine.handle_frame(&frame.to_string(), 2.0);
    // `progress` is new in 1.0; an MCP notification is not the protocol's.
    let progress = json!({"jsonrpc": "2.0", "method": "progress",
        "params": {"channel": "ahp-root://", "progressToken": "t1", "progress": 3, "total": 10}});
    engine.handle_frame(&progress.to_string(), 2.0);
    let other = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"x": 1}});
    engine.handle_frame(&other.to_string(), 2.0);
    let events = events(&mut engine);
    let typed: Vec<&ServerNotificationV1> = events
        .iter()
        .filter_map(|e| match e {
            Event::NotificationV1 { notification, .. } => Some(&**notification),
            _ => None,
        })
        .collect();
    let [auth, progress, other] = typed[..] else {
        panic!("three 1.0 notifications: {events:?}");
    };
    let Event::NotificationV1 {
        params: Some(sent), ..
    } = &events[0]
    else {
        panic!("params kept as sent: {events:?}");
    };
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(sent.get()).unwrap(),
        params
    );
    let ServerNotificationV1::AuthRequired(p) = auth else {
        panic!("typed auth/required: {auth:?}");
    };
    assert_eq!(p.resource.resource, "https://api.example");
    assert!(
        matches!(progress, ServerNotificationV1::Progress(_)),
        "{progress:?}"
    );
    assert!(auth.is_protocol() && progress.is_protocol());
    assert!(!other.is_protocol());
    assert_eq!(other.method(), "notifications/message");
}

#[test]
fn a_1_0_notification_that_does_not_fit_its_type_is_malformed() {
    let mut engine = connected_v1(idle_chat());
    // 0.3.0's `auth/required` shape (a string resource) is not 1.0's.
    let frame = json!({"jsonrpc": "2.0", "method": "auth/required",
        "params": {"channel": "ahp-root://", "resource": "https://api.example"}});
    engine.handle_frame(&frame.to_string(), 2.0);
    let events = events(&mut engine);
    let [Event::Malformed { message, .. }] = &events[..] else {
        panic!("one malformed frame: {events:?}");
    };
    assert!(message.contains("auth/required"), "{message}");
}

#[test]
fn a_1_0_watchs_changes_are_an_event_in_batch_order() {
    const WATCH: &str = "ahp-resource-watch:/w";
    let mut config = offering(&BOTH);
    config.initial_subscriptions = vec![WATCH.into()];
    let (mut engine, _, _) = handshake(
        config,
        json!({"protocolVersion": "1.0.0", "serverSeq": 1, "snapshots": [
            {"resource": WATCH, "state": {"root": "file:///r", "recursive": true}, "fromSeq": 1}]}),
    );
    let changed = |seq: u64, path: &str| {
        let action = json!({"type": "resourceWatch/changed", "changes": [{"path": path}]});
        json!({"jsonrpc": "2.0", "method": "action",
            "params": {"channel": WATCH, "serverSeq": seq, "action": action}})
        .to_string()
    };
    engine.handle_frames([changed(2, "a"), changed(3, "b")], 2.0);
    let events = events(&mut engine);
    let [ChannelEventV1::ResourceChanges { channel, changes }] = &v1_events(&events)[..] else {
        panic!("one ResourceChanges: {events:?}");
    };
    assert_eq!(channel, WATCH);
    let paths: Vec<Value> = changes
        .iter()
        .map(|c| serde_json::to_value(c).unwrap())
        .collect();
    assert_eq!(paths, [json!([{"path": "a"}]), json!([{"path": "b"}])]);
    assert_eq!(engine.last_seen_server_seq(), 3);
}

#[test]
fn subscribe_installs_a_1_0_mirror_and_a_snapshot_reconnect_resets_it() {
    let mut engine = connected_v1(idle_chat());
    const OTHER: &str = "ahp-chat:/d";
    let id = engine.subscribe(OTHER, 2.0);
    let request = sent(&mut engine).remove(0);
    assert_eq!(request["method"], "subscribe");
    let mut other_chat = idle_chat();
    other_chat["resource"] = json!(OTHER);
    other_chat["title"] = json!("D");
    let snapshot = json!({"resource": OTHER, "state": other_chat, "fromSeq": 12});
    reply(
        &mut engine,
        &request["id"],
        json!({"snapshot": snapshot}),
        3.0,
    );
    let events_now = events(&mut engine);
    assert!(events_now
        .iter()
        .any(|e| matches!(e, Event::Response { id: got, result: Ok(_) } if *got == id)));
    let other = engine.mirror_v1_as::<ChatState>(OTHER).expect("subscribed");
    assert_eq!(other.state().title, "D");
    assert_eq!(engine.last_seen_server_seq(), 12);

    // A dispatched turn, the connection drops, the host answers `reconnect` with snapshots:
    // the turn's fate is unknowable, so it is dropped and reported; the state is the host's.
    let start: wire1::StateAction = serde_json::from_value(turn_started("hi")).unwrap();
    let seq = engine.dispatch_v1(CHAT, start, 4.0).unwrap();
    sent(&mut engine);
    engine.on_close("gone", 5.0);
    engine.on_open(6.0);
    let reconnect = sent(&mut engine).remove(0);
    let mut renamed = idle_chat();
    renamed["title"] = json!("T2");
    reply(
        &mut engine,
        &reconnect["id"],
        json!({"type": "snapshot", "snapshots": [
            {"resource": CHAT, "state": renamed, "fromSeq": 20},
            {"resource": OTHER, "state": other_chat, "fromSeq": 20}]}),
        7.0,
    );
    let events = events(&mut engine);
    assert!(
        v1_events(&events).iter().any(|e| matches!(e,
            ChannelEventV1::PendingDropped { channel, actions, reason: DropReason::ReconnectSnapshot }
                if channel == CHAT && actions.len() == 1 && actions[0].client_seq == seq)),
        "{events:?}"
    );
    assert_eq!(chat(&engine).state().title, "T2");
    assert_eq!(chat(&engine).pending_count(), 0);
    assert_eq!(active_text(chat(&engine).state()), None);
    assert_eq!(engine.last_seen_server_seq(), 20);
    assert_eq!(engine.connection_state(), ConnectionState::Connected);
}

#[test]
fn a_re_initialize_in_another_version_replaces_the_mirrors() {
    let mut engine = connected_v1(idle_chat());
    let start: wire1::StateAction = serde_json::from_value(turn_started("hi")).unwrap();
    engine.dispatch_v1(CHAT, start, 2.0).unwrap();
    sent(&mut engine);
    engine.on_close("gone", 3.0);
    engine.on_open(4.0);
    let reconnect = sent(&mut engine).remove(0);
    let refused = json!({"jsonrpc": "2.0", "id": reconnect["id"],
        "error": {"code": -32603, "message": "restarted"}});
    engine.handle_frame(&refused.to_string(), 5.0);
    let init = sent(&mut engine).remove(0);
    assert_eq!(init["method"], "initialize");
    // The restarted host speaks 0.3.0 now, and serves a terminal.
    reply(
        &mut engine,
        &init["id"],
        json!({"protocolVersion": "0.3.0", "serverSeq": 1, "snapshots": [
            {"resource": TERM, "state": terminal_state("t"), "fromSeq": 1}]}),
        6.0,
    );
    let events = events(&mut engine);
    assert!(
        v1_events(&events).iter().any(|e| matches!(e,
            ChannelEventV1::PendingDropped { channel, .. } if channel == CHAT)),
        "{events:?}"
    );
    let lost: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::SubscriptionLost { channel, reason } if reason.contains("0.3.0") => {
                Some(channel.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(lost, [CHAT, SESSION]);
    assert_eq!(engine.protocol_version(), "0.3.0");
    assert!(engine.mirror_v1(CHAT).is_none());
    assert!(engine.mirror_as::<TerminalState>(TERM).is_some());
    assert_eq!(engine.connection_state(), ConnectionState::Connected);
}
