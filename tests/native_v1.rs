//! The async native client against a 1.x host over a real WebSocket on localhost: the host
//! picks, from the client's offer, the highest version in `>=1.0.0 <2.0.0` or
//! `>=0.9.0 <0.10.0`, or answers `-32005` with its `supportedVersions`; on 1.0 the client
//! mirrors a 1.0 chat, and an own turn shows at once and is confirmed by the host's echo.
#![cfg(feature = "native")]

use ahp_wasm::client::engine::{ChannelEventV1, Event};
use ahp_wasm::client::native::{
    AhpClient, ClientEvent, ConnectOptions, ReconnectPolicy, SubscriptionEvent,
};
use ahp_wasm::client::transport::ws::WsTransport;
use ahp_wasm::client::transport::{recv, Transport};
use ahp_wasm::client::Error;
use ahp_wasm::protocol::v1::{ChatState, StateAction};
use ahp_wasm::sync::v1::AnyState;
use serde_json::{json, Value};
use std::time::Duration;

const CHAT: &str = "ahp-chat:/c";

/// The 1.x negotiation rule: the highest offered version inside `>=1.0.0 <2.0.0` or
/// `>=0.9.0 <0.10.0`.
fn choose(offered: &[String]) -> Option<String> {
    let parse = |v: &str| -> Option<(u64, u64, u64)> {
        let mut parts = v.split('.').map(|p| p.parse().ok());
        let version = (parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(version)
    };
    offered
        .iter()
        .filter_map(|v| Some((parse(v)?, v)))
        .filter(|((major, minor, _), _)| *major == 1 || (*major == 0 && *minor == 9))
        .max()
        .map(|(_, v)| v.clone())
}

fn idle_chat() -> Value {
    json!({"resource": CHAT, "title": "T", "status": 1,
        "modifiedAt": "1970-01-01T00:00:01.000Z", "turns": []})
}

/// Serves one connection as a 1.x host: negotiation, a chat snapshot, and every
/// `dispatchAction` echoed. Returns the WebSocket URL.
async fn start_host() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        let mut t = WsTransport::new(ws);
        let mut server_seq = 0;
        while let Some(Ok(frame)) = recv(&mut t).await {
            let frame: Value = serde_json::from_str(&frame).unwrap();
            let params = &frame["params"];
            match frame["method"].as_str() {
                Some("initialize") => {
                    let offered: Vec<String> =
                        serde_json::from_value(params["protocolVersions"].clone()).unwrap();
                    let Some(version) = choose(&offered) else {
                        let error = json!({"code": -32005, "message": "unsupported version",
                            "data": {"supportedVersions": ["1.0.0"]}});
                        let answer = json!({"jsonrpc": "2.0", "id": frame["id"], "error": error});
                        t.send(answer.to_string()).unwrap();
                        break; // and close
                    };
                    let result = json!({"protocolVersion": version, "serverSeq": server_seq,
                        "snapshots": [{"resource": CHAT, "state": idle_chat(), "fromSeq": 0}]});
                    let answer = json!({"jsonrpc": "2.0", "id": frame["id"], "result": result});
                    t.send(answer.to_string()).unwrap();
                }
                Some("subscribe") => {
                    let channel = params["channel"].clone();
                    let mut state = idle_chat();
                    state["resource"] = channel.clone();
                    let snapshot = json!({"resource": channel, "state": state,
                        "fromSeq": server_seq});
                    let answer = json!({"jsonrpc": "2.0", "id": frame["id"],
                        "result": {"snapshot": snapshot}});
                    t.send(answer.to_string()).unwrap();
                }
                Some("dispatchAction") => {
                    server_seq += 1;
                    let envelope = json!({"channel": params["channel"],
                        "action": params["action"], "serverSeq": server_seq,
                        "origin": {"clientId": "me", "clientSeq": params["clientSeq"]}});
                    let note = json!({"jsonrpc": "2.0", "method": "action", "params": envelope});
                    t.send(note.to_string()).unwrap();
                }
                _ if frame.get("id").is_some() => {
                    let answer = json!({"jsonrpc": "2.0", "id": frame["id"], "result": {}});
                    t.send(answer.to_string()).unwrap();
                }
                _ => {}
            }
        }
        t.close();
    });
    format!("ws://{addr}/ahp")
}

fn options(offer: &[&str]) -> ConnectOptions {
    ConnectOptions {
        client_id: Some("me".into()),
        initial_subscriptions: vec![CHAT.into()],
        protocol_versions: offer.iter().map(|v| v.to_string()).collect(),
        reconnect: ReconnectPolicy::never(),
        keepalive: None,
        ..Default::default()
    }
}

fn chat_state(client: &AhpClient) -> ChatState {
    match client.state_v1(CHAT) {
        Some(AnyState::Chat(chat)) => chat,
        other => panic!("a 1.0 chat state, got {other:?}"),
    }
}

async fn connect(offer: &[&str]) -> Result<AhpClient, Error> {
    let url = start_host().await;
    tokio::time::timeout(
        Duration::from_secs(10),
        AhpClient::connect(&url, options(offer)),
    )
    .await
    .expect("connect settles")
}

#[tokio::test]
async fn offering_1_0_only_or_both_speaks_1_0_and_confirms_an_own_turn() {
    for offer in [&["1.0.0"][..], &["1.0.0", "0.3.0"], &["0.3.0", "1.0.0"]] {
        let client = connect(offer).await.unwrap();
        assert_eq!(client.server_info().unwrap().protocol_version, "1.0.0");
        assert_eq!(chat_state(&client).title, "T");
        let mut events = client.events();
        let start: StateAction = serde_json::from_value(json!({"type": "chat/turnStarted",
            "turnId": "t1", "startedAt": "1970-01-01T00:00:02.000Z",
            "message": {"text": "hi", "origin": {"kind": "user"}}}))
        .unwrap();
        let seq = client.dispatch_v1(CHAT, start).unwrap();
        let active = |c: &ChatState| c.active_turn.as_ref().map(|t| t.message.text.clone());
        assert_eq!(active(&chat_state(&client)).as_deref(), Some("hi"));
        let confirmed = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                if let ClientEvent::Protocol(Event::ChannelV1(ChannelEventV1::Changed {
                    pending: 0,
                    confirmed_changed,
                    ..
                })) = events.recv().await.unwrap()
                {
                    break confirmed_changed;
                }
            }
        })
        .await
        .expect("the echo confirms the turn");
        assert!(confirmed.contains("activeTurn"), "{offer:?}");
        assert_eq!(seq, 1);
        assert_eq!(active(&chat_state(&client)).as_deref(), Some("hi"));
        client.close();
    }
}

#[tokio::test]
async fn offering_no_1_x_version_fails_with_the_hosts_versions() {
    for offer in [&["0.3.0"][..], &["2.0.0", "0.8.0"]] {
        let error = connect(offer).await.unwrap_err();
        let Error::UnsupportedProtocolVersion {
            offered,
            server_data: Some(data),
        } = &error
        else {
            panic!("expected UnsupportedProtocolVersion, got {error:?}");
        };
        assert_eq!(offered, offer);
        assert_eq!(data.supported_versions, ["1.0.0"]);
        assert!(error.to_string().contains("[1.0.0]"), "{error}");
    }
}

#[test]
fn the_hosts_rule_picks_the_highest_1_x_or_0_9() {
    let pick = |o: &[&str]| choose(&o.iter().map(|v| v.to_string()).collect::<Vec<_>>());
    assert_eq!(pick(&["0.3.0", "1.0.0", "1.2.0"]).as_deref(), Some("1.2.0"));
    assert_eq!(pick(&["0.9.1", "0.3.0"]).as_deref(), Some("0.9.1"));
    assert_eq!(pick(&["0.3.0", "2.0.0", "0.10.0"]), None);
}

#[tokio::test]
async fn an_action_of_0_3_0_on_a_1_0_connection_is_a_wrong_protocol_version_error() {
    let client = connect(&["1.0.0"]).await.unwrap();
    let before = chat_state(&client);
    let turn = json!({"type": "session/turnStarted", "turnId": "t1",
        "message": {"text": "hi", "origin": {"kind": "user"}}});
    let check = |error: Error| {
        let Error::WrongProtocolVersion {
            negotiated,
            version,
            attempted,
        } = &error
        else {
            panic!("expected WrongProtocolVersion, got {error:?}");
        };
        assert_eq!((negotiated.as_str(), version.as_str()), ("1.0.0", "0.3.0"));
        assert_eq!(
            attempted,
            &format!("the action `session/turnStarted` on `{CHAT}`")
        );
        assert_eq!(
            error.to_string(),
            format!(
                "the action `session/turnStarted` on `{CHAT}` is AHP 0.3.0, but this \
                 connection negotiated AHP 1.0.0: nothing was sent"
            )
        );
    };
    // The 0.3.0 action, typed as one (`dispatch` is 0.3.0's).
    let old: ahp_wasm::protocol::StateAction = serde_json::from_value(turn.clone()).unwrap();
    check(client.dispatch(CHAT, old).unwrap_err());
    // The same JSON read as a 1.0 action: an unknown type to 1.0, which 0.3.0 has.
    let unknown: StateAction = serde_json::from_value(turn).unwrap();
    check(client.dispatch_v1(CHAT, unknown).unwrap_err());
    assert_eq!(chat_state(&client), before, "nothing applied");
    // Nothing was sent and no client sequence number used: the next action is the first the
    // host echoes, and it confirms.
    let mut events = client.events();
    let draft: StateAction = serde_json::from_value(json!({"type": "chat/draftChanged",
        "draft": {"text": "New", "origin": {"kind": "user"}}}))
    .unwrap();
    assert_eq!(client.dispatch_v1(CHAT, draft).unwrap(), 1);
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let ClientEvent::Protocol(Event::ChannelV1(ChannelEventV1::Changed {
                pending: 0,
                ..
            })) = events.recv().await.unwrap()
            {
                break;
            }
        }
    })
    .await
    .expect("the echo confirms the draft");
    let text = chat_state(&client).draft.map(|d| d.text);
    assert_eq!(text.as_deref(), Some("New"));
    client.close();
}

#[tokio::test]
async fn a_subscription_handle_carries_its_1_0_channels_events_and_state() {
    const OTHER: &str = "ahp-chat:/d";
    let client = connect(&["1.0.0"]).await.unwrap();
    let mut sub = client.subscribe(OTHER).await.unwrap();
    let Some(AnyState::Chat(chat)) = sub.state_v1() else {
        panic!("a 1.0 chat state: {:?}", sub.state_v1());
    };
    assert_eq!((chat.resource.as_str(), chat.title.as_str()), (OTHER, "T"));
    assert!(sub.state().is_none(), "no 0.3.0 state on a 1.0 channel");
    // An action on the other chat reaches the client's stream, not this handle.
    let draft = |text: &str| -> StateAction {
        serde_json::from_value(json!({"type": "chat/draftChanged",
            "draft": {"text": text, "origin": {"kind": "user"}}}))
        .unwrap()
    };
    client.dispatch_v1(CHAT, draft("elsewhere")).unwrap();
    sub.dispatch_v1(draft("here")).unwrap();
    let text = |s: Option<AnyState>| match s {
        Some(AnyState::Chat(c)) => c.draft.map(|d| d.text),
        other => panic!("a 1.0 chat state: {other:?}"),
    };
    assert_eq!(
        text(sub.state_v1()).as_deref(),
        Some("here"),
        "applied at once"
    );
    let confirmed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let event = sub.next_event().await.expect("the subscription goes on");
            let SubscriptionEvent::V1(e) = event else {
                continue;
            };
            assert_eq!(e.channel(), OTHER, "only this channel's events: {e:?}");
            if let ChannelEventV1::Changed {
                pending: 0,
                confirmed_changed,
                ..
            } = *e
            {
                break confirmed_changed;
            }
        }
    })
    .await
    .expect("the echo confirms the draft");
    assert!(confirmed.contains("draft"), "{confirmed:?}");
    assert_eq!(sub.pending_count_v1(), 0);
    assert_eq!(text(sub.confirmed_state_v1()).as_deref(), Some("here"));
    assert_eq!(text(client.state_v1(CHAT)).as_deref(), Some("elsewhere"));
    client.close();
}
