//! The engine against a scripted peer: frames in, frames and events out.

use super::*;
use crate::client::TransportErrorKind;
use crate::protocol::{errors, PingParams, TerminalState};
use serde_json::{json, Value};

pub(super) const TERM: &str = "ahp-terminal:/1";

pub(super) fn config() -> EngineConfig {
    let mut config = EngineConfig::new("me");
    config.locale = Some("en-US".into());
    config
}

pub(super) fn sent(engine: &mut Engine) -> Vec<Value> {
    std::iter::from_fn(|| engine.poll_transmit())
        .map(|t| serde_json::from_str(&t).expect("engine sends JSON"))
        .collect()
}

pub(super) fn events(engine: &mut Engine) -> Vec<Event> {
    std::iter::from_fn(|| engine.poll_event()).collect()
}

pub(super) fn terminal_state(title: &str) -> Value {
    json!({"title": title, "content": [], "claim": {"kind": "client", "clientId": "c"}})
}

pub(super) fn reply(engine: &mut Engine, id: &Value, result: Value, now: f64) {
    let frame = json!({"jsonrpc": "2.0", "id": id, "result": result});
    engine.handle_frame(&frame.to_string(), now);
}

/// Opens, answers `initialize` with a root and a terminal snapshot at serverSeq 10.
pub(super) fn connected(config: EngineConfig) -> Engine {
    let mut engine = Engine::new(config);
    engine.on_open(0.0);
    let init = sent(&mut engine).remove(0);
    reply(
        &mut engine,
        &init["id"],
        json!({"protocolVersion": "0.3.0", "serverSeq": 10, "snapshots": [
            {"resource": "ahp-root://", "state": {"agents": []}, "fromSeq": 10},
            {"resource": TERM, "state": terminal_state("t"), "fromSeq": 10},
        ]}),
        1.0,
    );
    events(&mut engine);
    engine
}

/// Opens and answers `initialize` with `result` (events left to read).
fn answered_initialize(result: Value) -> Engine {
    let mut engine = Engine::new(config());
    engine.on_open(0.0);
    let init = sent(&mut engine).remove(0);
    reply(&mut engine, &init["id"], result, 1.0);
    engine
}

pub(super) fn envelope(seq: u64, action: Value, origin: Option<(&str, u64)>) -> String {
    let mut params = json!({"channel": TERM, "serverSeq": seq, "action": action});
    if let Some((id, s)) = origin {
        params["origin"] = json!({"clientId": id, "clientSeq": s});
    }
    json!({"jsonrpc": "2.0", "method": "action", "params": params}).to_string()
}

pub(super) fn data(text: &str) -> Value {
    json!({"type": "terminal/data", "data": text})
}

pub(super) fn action(value: Value) -> StateAction {
    serde_json::from_value(value).unwrap()
}

pub(super) fn term(engine: &Engine) -> &Mirror<TerminalState> {
    engine
        .mirror_as::<TerminalState>(TERM)
        .expect("terminal mirror")
}

fn ping(engine: &mut Engine, now: f64) -> u64 {
    engine.request::<jsonrpc::Ping>(
        &PingParams {
            channel: ROOT_CHANNEL.into(),
            extra: Default::default(),
        },
        now,
    )
}

#[test]
fn handshake_offers_versions_and_installs_snapshots() {
    let mut config = config();
    config.initial_subscriptions.push(TERM.into());
    let mut engine = Engine::new(config);
    assert_eq!(engine.connection_state(), ConnectionState::Idle);
    engine.on_open(0.0);
    let init = sent(&mut engine).remove(0);
    assert_eq!(init["method"], "initialize");
    assert_eq!(init["params"]["protocolVersions"], json!(["0.3.0"]));
    assert_eq!(init["params"]["clientId"], "me");
    assert_eq!(init["params"]["locale"], "en-US");
    assert_eq!(
        init["params"]["initialSubscriptions"],
        json!(["ahp-root://", TERM])
    );
    assert_eq!(engine.connection_state(), ConnectionState::Connecting);
    reply(
        &mut engine,
        &init["id"],
        json!({"protocolVersion": "0.3.0", "serverSeq": 7, "defaultDirectory": "file:///h",
               "snapshots": [{"resource": "ahp-root://", "state": {"agents": []}, "fromSeq": 7}]}),
        1.0,
    );
    let evs = events(&mut engine);
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::Connected { info, resumed: false }
        if info.default_directory.as_deref() == Some("file:///h"))));
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::Subscribed { channel } if channel == "ahp-root://")));
    assert_eq!(engine.connection_state(), ConnectionState::Connected);
    assert_eq!(engine.last_seen_server_seq(), 7);
    assert!(engine.mirror("ahp-root://").is_some());
    // The terminal had no snapshot: it is a stateless subscription.
    assert!(engine.is_subscribed(TERM) && engine.mirror(TERM).is_none());
}

#[test]
fn a_secret_the_server_issues_is_kept_and_one_of_another_type_ignored() {
    let result = |secret: Value| json!({"protocolVersion": "0.3.0", "serverSeq": 1, "snapshots": [], "clientSecret": secret});
    let mut engine = answered_initialize(result(json!("s3cret")));
    assert!(events(&mut engine)
        .iter()
        .any(|e| matches!(e, Event::Connected { .. })));
    assert_eq!(engine.client_secret(), Some("s3cret"));
    // Not a string: the handshake still succeeds, and no secret is taken.
    let mut engine = answered_initialize(result(json!(5)));
    assert!(events(&mut engine)
        .iter()
        .any(|e| matches!(e, Event::Connected { .. })));
    assert_eq!(engine.client_secret(), None);
}

#[test]
fn version_mismatch_is_a_typed_error() {
    let mut engine = Engine::new(config());
    engine.on_open(0.0);
    let init = sent(&mut engine).remove(0);
    let frame = json!({"jsonrpc": "2.0", "id": init["id"], "error": {"code": -32005,
        "message": "unsupported", "data": {"supportedVersions": ["0.1.0", "0.2.0"]}}});
    engine.handle_frame(&frame.to_string(), 1.0);
    let failed = events(&mut engine)
        .into_iter()
        .find_map(|e| match e {
            Event::HandshakeFailed(e) => Some(e),
            _ => None,
        })
        .expect("handshake failed");
    match &failed {
        Error::UnsupportedProtocolVersion {
            offered,
            server_data: Some(data),
        } => {
            assert_eq!(offered, &vec!["0.3.0".to_string()]);
            assert_eq!(data.supported_versions, vec!["0.1.0", "0.2.0"]);
        }
        other => panic!("expected UnsupportedProtocolVersion, got {other:?}"),
    }
    assert_eq!(failed.code(), Some(errors::UNSUPPORTED_PROTOCOL_VERSION));
    assert_ne!(engine.connection_state(), ConnectionState::Connected);
}

/// Without feature `v1` the engine is 0.3.0 only: a host choosing 1.0.0, even offered, is
/// refused as a version this client does not implement, and nothing is mirrored.
#[cfg(not(feature = "v1"))]
#[test]
fn without_feature_v1_a_host_choosing_1_0_is_refused() {
    assert_eq!(IMPLEMENTED_PROTOCOL_VERSIONS, &["0.3.0"]);
    let mut config = config();
    config.protocol_versions = vec!["1.0.0".into(), "0.3.0".into()];
    config.initial_subscriptions = vec![TERM.into()];
    let mut engine = Engine::new(config);
    engine.on_open(0.0);
    let init = sent(&mut engine).remove(0);
    reply(
        &mut engine,
        &init["id"],
        json!({"protocolVersion": "1.0.0", "serverSeq": 0, "snapshots": [
            {"resource": TERM, "state": terminal_state("t"), "fromSeq": 0},
        ]}),
        1.0,
    );
    let failed = events(&mut engine)
        .into_iter()
        .find_map(|e| match e {
            Event::HandshakeFailed(e) => Some(e),
            _ => None,
        })
        .expect("handshake failed");
    assert!(
        matches!(&failed, Error::InvalidResponse { method, message } if method == "initialize"
            && message.contains("\"1.0.0\", which this client does not implement")
            && message.contains("(it implements 0.3.0)")),
        "{failed}"
    );
    assert_ne!(engine.connection_state(), ConnectionState::Connected);
    assert_eq!(engine.protocol_version(), "0.3.0");
    assert!(engine.mirror(TERM).is_none());
}

#[test]
fn a_version_we_did_not_offer_is_rejected() {
    let mut engine =
        answered_initialize(json!({"protocolVersion": "9.0.0", "serverSeq": 0, "snapshots": []}));
    assert!(events(&mut engine).iter().any(|e| matches!(e,
        Event::HandshakeFailed(Error::InvalidResponse { method, .. }) if method == "initialize")));
}

#[test]
fn requests_time_out_and_late_answers_are_ignored() {
    let mut engine = connected(config());
    let id = ping(&mut engine, 100.0);
    let frame = sent(&mut engine).remove(0);
    assert_eq!(frame["method"], "ping");
    assert_eq!(
        engine.next_deadline(),
        Some(100.0 + DEFAULT_REQUEST_TIMEOUT_MS)
    );
    engine.on_tick(100.0 + DEFAULT_REQUEST_TIMEOUT_MS - 1.0);
    assert!(events(&mut engine).is_empty());
    engine.on_tick(100.0 + DEFAULT_REQUEST_TIMEOUT_MS);
    let evs = events(&mut engine);
    assert!(
        matches!(&evs[..], [Event::Response { id: i, result: Err(Error::Timeout { method, .. }) }]
        if *i == id && method == "ping")
    );
    assert_eq!(engine.next_deadline(), None);
    reply(&mut engine, &frame["id"], json!({}), 40_000.0);
    assert!(
        events(&mut engine).is_empty(),
        "late answer: silently dropped"
    );
}

#[test]
fn responses_match_requests_by_id() {
    let mut engine = connected(config());
    let a = ping(&mut engine, 0.0);
    let b = engine.request_raw("listSessions", &json!({"channel": ROOT_CHANNEL}), 0.0);
    let frames = sent(&mut engine);
    reply(&mut engine, &frames[1]["id"], json!({"items": []}), 1.0);
    let err = json!({"jsonrpc": "2.0", "id": frames[0]["id"],
        "error": {"code": -32603, "message": "boom"}});
    engine.handle_frame(&err.to_string(), 1.0);
    let evs = events(&mut engine);
    assert!(matches!(&evs[0], Event::Response { id, result: Ok(raw) }
        if *id == b && raw.get() == r#"{"items":[]}"#));
    assert!(
        matches!(&evs[1], Event::Response { id, result: Err(Error::Rpc { code: -32603, message, .. }) }
        if *id == a && message == "boom")
    );
}

#[test]
fn an_answer_that_is_no_response_fails_its_request_at_once() {
    let mut engine = connected(config());
    let bad_answers = [
        json!({"code": "not a number", "message": "x"}),
        json!("just a string"),
        json!({"code": -32001, "message": 7}),
    ];
    let mut ids = Vec::new();
    for error in &bad_answers {
        let id = engine.request_raw("listSessions", &json!({"channel": ROOT_CHANNEL}), 0.0);
        let frame = sent(&mut engine).remove(0);
        let answer = json!({"jsonrpc": "2.0", "id": frame["id"], "error": error});
        engine.handle_frame(&answer.to_string(), 1.0);
        ids.push(id);
    }
    // Both `result` and `error`: no response either.
    let id = engine.request_raw("listSessions", &json!({"channel": ROOT_CHANNEL}), 0.0);
    let frame = sent(&mut engine).remove(0);
    let both = json!({"jsonrpc": "2.0", "id": frame["id"], "result": {},
        "error": {"code": 1, "message": "x"}});
    engine.handle_frame(&both.to_string(), 1.0);
    ids.push(id);
    let evs = events(&mut engine);
    for id in ids {
        assert!(
            evs.iter().any(|e| matches!(e, Event::Response { id: i,
                result: Err(Error::InvalidResponse { method, .. }) } if *i == id && method == "listSessions")),
            "{id}: {evs:?}"
        );
    }
    let malformed = evs
        .iter()
        .filter(|e| matches!(e, Event::Malformed { .. }))
        .count();
    assert_eq!(malformed, 4, "each is reported too");
    // A request of the server's with a bad member does not fail ours of the same id.
    let id = ping(&mut engine, 2.0);
    let frame = sent(&mut engine).remove(0);
    let request = json!({"jsonrpc": "1.0", "id": frame["id"], "method": "x"});
    engine.handle_frame(&request.to_string(), 2.0);
    assert!(!events(&mut engine)
        .iter()
        .any(|e| matches!(e, Event::Response { id: i, .. } if *i == id)));
    assert_eq!(engine.connection_state(), ConnectionState::Connected);
}

#[test]
fn requests_before_the_handshake_are_queued() {
    let mut engine = Engine::new(config());
    let id = ping(&mut engine, 0.0);
    assert!(sent(&mut engine).is_empty(), "no transport yet");
    engine.on_open(0.0);
    let frames = sent(&mut engine);
    assert_eq!(frames.len(), 1, "only initialize before the handshake");
    reply(
        &mut engine,
        &frames[0]["id"],
        json!({"protocolVersion": "0.3.0", "serverSeq": 0, "snapshots": []}),
        1.0,
    );
    let frames = sent(&mut engine);
    assert_eq!(frames[0]["method"], "ping");
    assert_eq!(frames[0]["id"], json!(id));
}

#[test]
fn server_requests_go_to_handlers_or_get_method_not_found() {
    let mut engine = connected(config());
    engine.handle_requests("resourceRead");
    let req = json!({"jsonrpc": "2.0", "id": "r1", "method": "resourceRead",
        "params": {"channel": ROOT_CHANNEL, "uri": "file:///a"}});
    engine.handle_frame(&req.to_string(), 1.0);
    let request = match events(&mut engine).remove(0) {
        Event::ServerRequest(r) => r,
        other => panic!("expected a server request, got {other:?}"),
    };
    assert_eq!(request.method, "resourceRead");
    let params = request.params::<jsonrpc::ResourceRead>().unwrap();
    assert_eq!(params.uri, "file:///a");
    engine.respond(
        &request.id,
        Ok(json!({"data": "aGk=", "encoding": "base64"})),
    );
    let answer = sent(&mut engine).remove(0);
    assert_eq!(answer["id"], "r1");
    assert_eq!(answer["result"]["data"], "aGk=");

    let unknown = json!({"jsonrpc": "2.0", "id": 9, "method": "resourceDelete",
        "params": {"channel": ROOT_CHANNEL, "uri": "file:///a"}});
    engine.handle_frame(&unknown.to_string(), 1.0);
    assert!(events(&mut engine).is_empty());
    let answer = sent(&mut engine).remove(0);
    assert_eq!(answer["id"], 9);
    assert_eq!(answer["error"]["code"], errors::METHOD_NOT_FOUND);
}

#[test]
fn answers_to_a_dropped_connection_are_not_sent() {
    let mut engine = connected(config());
    engine.handle_requests("resourceRead");
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "resourceRead",
        "params": {"channel": ROOT_CHANNEL, "uri": "file:///a"}});
    engine.handle_frame(&req.to_string(), 1.0);
    let Some(Event::ServerRequest(request)) = engine.poll_event() else {
        panic!("expected a server request")
    };
    engine.on_close("test", 2.0);
    engine.on_open(3.0);
    sent(&mut engine);
    engine.respond(&request.id, Ok(json!({})));
    assert!(sent(&mut engine).is_empty());
}

#[test]
fn malformed_frames_are_reported_and_skipped() {
    let mut engine = connected(config());
    let id = ping(&mut engine, 0.0);
    let ping_frame = sent(&mut engine).remove(0);
    let bad_envelope = json!({"jsonrpc": "2.0", "method": "action",
        "params": {"channel": TERM, "serverSeq": "x"}});
    let stray = json!({"jsonrpc": "2.0", "id": 999, "result": {}});
    let bad_added = json!({"jsonrpc": "2.0", "method": "root/sessionAdded", "params": {}});
    engine.handle_frames(
        [
            "{not json".to_string(),
            "[]".to_string(),
            bad_envelope.to_string(),
            stray.to_string(),
            bad_added.to_string(),
            json!({"jsonrpc": "2.0", "id": ping_frame["id"], "result": {}}).to_string(),
        ],
        1.0,
    );
    let evs = events(&mut engine);
    let malformed = evs
        .iter()
        .filter(|e| matches!(e, Event::Malformed { .. }))
        .count();
    assert_eq!(malformed, 5, "{evs:?}");
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::Response { id: i, result: Ok(_) } if *i == id)));
    assert_eq!(engine.connection_state(), ConnectionState::Connected);
    assert!(sent(&mut engine).is_empty(), "nothing answered to garbage");
}

#[test]
fn notifications_are_routed() {
    let mut engine = connected(config());
    let added = json!({"jsonrpc": "2.0", "method": "root/sessionAdded", "params": {
        "channel": ROOT_CHANNEL, "summary": {"resource": "ahp-session:/s", "provider": "p",
        "title": "T", "status": 1, "createdAt": 0, "modifiedAt": 0}}});
    let other =
        json!({"jsonrpc": "2.0", "method": "otlp/exportLogs", "params": {"channel": "ahp-otlp:x"}});
    let elsewhere = json!({"jsonrpc": "2.0", "method": "action", "params": {
        "channel": "ahp-terminal:/unsubscribed", "serverSeq": 11, "action": data("x")}});
    engine.handle_frames(
        [
            added.to_string(),
            other.to_string(),
            elsewhere.to_string(),
            envelope(12, data("hi"), None),
        ],
        1.0,
    );
    let evs = events(&mut engine);
    assert!(matches!(&evs[0], Event::Notification(n)
        if matches!(&**n, ServerNotification::SessionAdded(p) if p.summary.title == "T")));
    assert!(matches!(&evs[1], Event::Notification(n)
        if matches!(&**n, ServerNotification::Other { method, .. } if method == "otlp/exportLogs")));
    assert!(
        matches!(&evs[2], Event::ChannelChanged { channel, changed, .. }
        if channel == TERM && changed.names() == ["content"])
    );
    assert_eq!(evs.len(), 3);
    assert_eq!(engine.last_seen_server_seq(), 12);
}

#[test]
fn dispatch_is_optimistic_and_echoes_reconcile_in_one_event_per_batch() {
    let mut engine = connected(config());
    let s1 = engine.dispatch(TERM, action(data("a")), 1.0).unwrap();
    let s2 = engine.dispatch(TERM, action(data("b")), 1.0).unwrap();
    assert_eq!((s1, s2), (1, 2));
    let frames = sent(&mut engine);
    assert_eq!(frames[0]["method"], "dispatchAction");
    assert_eq!(frames[0]["params"]["clientSeq"], 1);
    assert_eq!(frames[1]["params"]["channel"], TERM);
    assert_eq!(term(&engine).pending_count(), 2);
    assert_eq!(events(&mut engine).len(), 2, "one change per dispatch");

    engine.handle_frames(
        [
            envelope(11, data("x"), Some(("other", 5))),
            envelope(12, data("a"), Some(("me", 1))),
            envelope(13, data("b"), Some(("me", 2))),
        ],
        2.0,
    );
    let evs = events(&mut engine);
    assert_eq!(evs.len(), 1, "{evs:?}");
    assert!(matches!(&evs[0], Event::ChannelChanged { pending: 0, .. }));
    let m = term(&engine);
    assert_eq!(m.state(), m.confirmed());
    let content = serde_json::to_string(&m.state().content).unwrap();
    assert!(content.contains("xab"), "{content}");
    // clientSeq is per client: another channel continues the sequence.
    let root = action(json!({"type": "root/activeSessionsChanged", "activeSessions": 1}));
    assert_eq!(engine.dispatch(ROOT_CHANNEL, root, 3.0).unwrap(), 3);
    assert!(matches!(
        engine.dispatch("ahp-session:/nope", action(data("z")), 3.0),
        Err(Error::NotSubscribed { .. })
    ));
}

#[test]
fn rejections_are_reported() {
    let mut engine = connected(config());
    engine.dispatch(TERM, action(data("a")), 1.0).unwrap();
    events(&mut engine);
    let mut frame: Value = serde_json::from_str(&envelope(11, data("a"), Some(("me", 1)))).unwrap();
    frame["params"]["rejectionReason"] = json!("read-only terminal");
    engine.handle_frame(&frame.to_string(), 2.0);
    let evs = events(&mut engine);
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::Rejected { rejection, .. }
        if rejection.reason == "read-only terminal" && rejection.client_seq == 1)));
    assert_eq!(term(&engine).pending_count(), 0);
    assert!(term(&engine).state().content.is_empty());
}

#[test]
fn a_rejected_echo_of_an_action_no_longer_pending_reports_the_echoed_action() {
    let mut engine = connected(config());
    engine.dispatch(TERM, action(data("a")), 1.0).unwrap();
    events(&mut engine);
    // The echo of clientSeq 1 resolves it; a second, rejected echo of the same seq (a server
    // repeating itself) finds nothing pending: the rejection carries the echoed action.
    engine.handle_frame(&envelope(11, data("a"), Some(("me", 1))), 2.0);
    let mut frame: Value = serde_json::from_str(&envelope(12, data("b"), Some(("me", 1)))).unwrap();
    frame["params"]["rejectionReason"] = json!("again");
    // In one batch with a foreign envelope of the same channel after it.
    let foreign = envelope(13, data("c"), Some(("other", 4)));
    engine.handle_frames(vec![frame.to_string(), foreign], 3.0);
    let rejected: Vec<_> = events(&mut engine)
        .into_iter()
        .filter_map(|e| match e {
            Event::Rejected { channel, rejection } => Some((channel, rejection)),
            _ => None,
        })
        .collect();
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    let (channel, rejection) = &rejected[0];
    assert_eq!(channel, TERM);
    assert_eq!(
        (rejection.client_seq, rejection.reason.as_str()),
        (1, "again")
    );
    assert_eq!(rejection.action, action(data("b")));
    let content = serde_json::to_string(&term(&engine).state().content).unwrap();
    assert!(
        content.contains("ac") && !content.contains('b'),
        "{content}"
    );
}

#[test]
fn divergence_triggers_a_resync_that_keeps_pending_actions() {
    let mut engine = connected(config());
    engine.dispatch(TERM, action(data("mine")), 1.0).unwrap();
    sent(&mut engine);
    events(&mut engine);
    engine.handle_frame(&envelope(11, data("?"), Some(("me", 42))), 2.0);
    let evs = events(&mut engine);
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::Resync { channel, .. } if channel == TERM)));
    let sub = sent(&mut engine).remove(0);
    assert_eq!(sub["method"], "subscribe");
    assert_eq!(sub["params"]["channel"], TERM);
    reply(
        &mut engine,
        &sub["id"],
        json!({"snapshot": {"resource": TERM, "state": terminal_state("fresh"), "fromSeq": 20}}),
        3.0,
    );
    let m = term(&engine);
    assert_eq!(m.confirmed().title, "fresh");
    assert!(m.confirmed().content.is_empty());
    assert_eq!(
        m.pending_count(),
        1,
        "the pending action survives the resync"
    );
    assert_eq!(m.last_server_seq(), 20);
}

#[test]
fn subscribe_installs_a_mirror_before_answering() {
    let mut engine = connected(config());
    let id = engine.subscribe("ahp-terminal:/2", 1.0);
    let sub = sent(&mut engine).remove(0);
    reply(
        &mut engine,
        &sub["id"],
        json!({"snapshot": {"resource": "ahp-terminal:/2", "state": terminal_state("two"), "fromSeq": 11}}),
        2.0,
    );
    let evs = events(&mut engine);
    assert!(matches!(&evs[0], Event::Subscribed { channel } if channel == "ahp-terminal:/2"));
    assert!(matches!(&evs[1], Event::Response { id: i, result: Ok(_) } if *i == id));
    // Subscribing again answers at once.
    let again = engine.subscribe("ahp-terminal:/2", 3.0);
    assert!(sent(&mut engine).is_empty());
    assert!(
        matches!(&events(&mut engine)[0], Event::Response { id, result: Ok(_) } if *id == again)
    );
    // Errors reach the caller; no mirror is created.
    let id = engine.subscribe("ahp-session:/gone", 4.0);
    let sub = sent(&mut engine).remove(0);
    let err =
        json!({"jsonrpc": "2.0", "id": sub["id"], "error": {"code": -32001, "message": "no"}});
    engine.handle_frame(&err.to_string(), 5.0);
    assert!(matches!(&events(&mut engine)[0],
        Event::Response { id: i, result: Err(Error::Rpc { code: -32001, .. }) } if *i == id));
    assert!(!engine.is_subscribed("ahp-session:/gone"));
    // Unsubscribe is a notification and drops the mirror.
    engine.unsubscribe("ahp-terminal:/2", 6.0);
    assert_eq!(sent(&mut engine)[0]["method"], "unsubscribe");
    assert!(engine.mirror("ahp-terminal:/2").is_none());
}

#[test]
fn a_lost_connection_fails_requests_but_keeps_subscribes() {
    let mut engine = connected(config());
    let p = ping(&mut engine, 0.0);
    let s = engine.subscribe("ahp-terminal:/2", 0.0);
    sent(&mut engine);
    engine.on_close("reset by peer", 1.0);
    let evs = events(&mut engine);
    assert!(evs.iter().any(
        |e| matches!(e, Event::Response { id, result: Err(Error::Transport {
        kind: TransportErrorKind::ConnectionLost, .. }) } if *id == p)
    ));
    assert!(!evs
        .iter()
        .any(|e| matches!(e, Event::Response { id, .. } if *id == s)));
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::StateChanged(ConnectionState::Reconnecting))));
    engine.on_open(2.0);
    let frames = sent(&mut engine);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["method"], "reconnect");
    reply(
        &mut engine,
        &frames[0]["id"],
        json!({"type": "replay", "actions": [], "missing": []}),
        3.0,
    );
    let frames = sent(&mut engine);
    assert_eq!(
        frames[0]["method"], "subscribe",
        "re-sent after the handshake"
    );
    assert_eq!(frames[0]["id"], json!(s));
}

#[test]
fn close_fails_everything_with_closed() {
    let mut engine = connected(config());
    let p = ping(&mut engine, 0.0);
    engine.close();
    let evs = events(&mut engine);
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::Response { id, result: Err(Error::Closed) } if *id == p)));
    assert_eq!(engine.connection_state(), ConnectionState::Closed);
    assert!(matches!(
        engine.dispatch(TERM, action(data("x")), 1.0),
        Err(Error::Closed)
    ));
    let late = ping(&mut engine, 1.0);
    assert!(matches!(&events(&mut engine)[0],
        Event::Response { id, result: Err(Error::Closed) } if *id == late));
}

#[test]
fn one_change_event_per_channel_per_batch() {
    let mut engine = connected(config());
    let root = |seq: u64, n: u64| {
        json!({"jsonrpc": "2.0", "method": "action", "params": {"channel": ROOT_CHANNEL,
            "serverSeq": seq, "action": {"type": "root/activeSessionsChanged", "activeSessions": n}}})
        .to_string()
    };
    engine.handle_frames(
        [
            envelope(11, data("a"), None),
            root(12, 1),
            envelope(13, data("b"), None),
            root(14, 2),
            envelope(15, data("c"), None),
        ],
        1.0,
    );
    let changed: Vec<String> = events(&mut engine)
        .into_iter()
        .filter_map(|e| match e {
            Event::ChannelChanged { channel, .. } => Some(channel),
            _ => None,
        })
        .collect();
    assert_eq!(changed, vec![TERM.to_string(), ROOT_CHANNEL.to_string()]);
}

#[test]
fn unsubscribing_reports_pending_actions_dropped() {
    let mut engine = connected(config());
    engine.dispatch(TERM, action(data("a")), 1.0).unwrap();
    events(&mut engine);
    engine.unsubscribe(TERM, 2.0);
    let evs = events(&mut engine);
    assert!(evs
        .iter()
        .any(|e| matches!(e, Event::PendingDropped { actions,
        reason: DropReason::Unsubscribed, .. } if actions.len() == 1)));
    // Late envelopes for the channel are ignored.
    engine.handle_frame(&envelope(11, data("x"), None), 3.0);
    assert!(events(&mut engine).is_empty());
}

#[test]
fn frames_over_the_servers_limit_are_refused_before_sending() {
    let mut engine = answered_initialize(
        json!({"protocolVersion": "0.3.0", "serverSeq": 10, "maxFrameBytes": 200, "snapshots": [
            {"resource": TERM, "state": terminal_state("t"), "fromSeq": 10},
        ]}),
    );
    events(&mut engine);
    let big = json!({"channel": ROOT_CHANNEL, "pad": "x".repeat(300)});
    let id = engine.request_raw("x/big", &big, 2.0);
    assert!(sent(&mut engine).is_empty(), "nothing is sent");
    let evs = events(&mut engine);
    assert!(
        matches!(&evs[..], [Event::Response { id: i, result: Err(Error::Transport { kind: TransportErrorKind::Send, message }) }]
            if *i == id && message.contains("at most 200 bytes")),
        "{evs:?}"
    );
    // An action that would not fit: refused, not applied, not pending.
    let e = engine.dispatch(TERM, action(data(&"y".repeat(300))), 3.0);
    assert!(
        matches!(
            e,
            Err(Error::Transport {
                kind: TransportErrorKind::Send,
                ..
            })
        ),
        "{e:?}"
    );
    assert_eq!(term(&engine).pending_count(), 0);
    assert!(sent(&mut engine).is_empty());
    // What fits goes out as before.
    ping(&mut engine, 4.0);
    assert_eq!(sent(&mut engine).len(), 1);
    engine.dispatch(TERM, action(data("ok")), 5.0).unwrap();
    assert_eq!(sent(&mut engine).len(), 1);
}

#[test]
fn resource_watch_changes_are_an_event_in_batch_order() {
    const WATCH: &str = "ahp-resource-watch:/w";
    let mut engine = connected(config());
    engine.subscribe(WATCH, 2.0);
    let request = sent(&mut engine).remove(0);
    let state = json!({"root": "file:///w", "recursive": true});
    let snapshot = json!({"snapshot": {"resource": WATCH, "state": state, "fromSeq": 10}});
    reply(&mut engine, &request["id"], snapshot, 3.0);
    events(&mut engine);
    let changed = |seq: u64, name: &str, kind: &str| {
        let items = json!([{"uri": format!("file:///w/{name}"), "type": kind}]);
        let action = json!({"type": "resourceWatch/changed", "changes": {"items": items}});
        let params = json!({"channel": WATCH, "serverSeq": seq, "action": action});
        json!({"jsonrpc": "2.0", "method": "action", "params": params}).to_string()
    };
    engine.handle_frames(
        &[changed(11, "a", "added"), changed(12, "b", "deleted")],
        4.0,
    );
    let evs = events(&mut engine);
    let got: Vec<(&str, Vec<&str>)> = evs
        .iter()
        .filter_map(|e| match e {
            Event::ResourceChanges { channel, changes } => Some((
                channel.as_str(),
                changes.iter().map(|c| c.uri.as_str()).collect(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        got,
        [(WATCH, vec!["file:///w/a", "file:///w/b"])],
        "{evs:?}"
    );
}
