//! The native client offering both versions to hosts of one, the other, both or neither (the
//! host's choice wins; neither: a typed error with the host's versions), and typing a 1.0
//! host's notifications as 1.0 defines them (`ClientEvent::NotificationV1`), as it types
//! 0.3.0's (`ClientEvent::Protocol(Event::Notification(..))`): over a real WebSocket on
//! localhost, a scripted host sends every typed 1.0 notification, one with params of 0.3.0's
//! shape (a malformed frame, the connection goes on) and MCP traffic (kept as sent); a 0.3.0
//! host's stay 0.3.0's.
#![cfg(feature = "native")]

use ahp_wasm::client::engine::{Event, ServerNotification, ServerNotificationV1};
use ahp_wasm::client::native::{AhpClient, ClientEvent, ConnectOptions, ReconnectPolicy};
use ahp_wasm::client::transport::ws::WsTransport;
use ahp_wasm::client::transport::{recv, Transport};
use ahp_wasm::client::Error;
use ahp_wasm::protocol::v1::ListSessionsParams;
use serde_json::{json, Value};
use std::time::Duration;

const T0: &str = "1970-01-01T00:00:01.000Z";

fn note(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

/// What the host sends before answering `listSessions`, in order.
fn notifications() -> Vec<String> {
    let summary = json!({"resource": "ahp-session:/n", "provider": "p", "title": "New",
        "status": 1, "createdAt": T0, "modifiedAt": T0});
    let metadata = json!({"resource": "https://api.test", "authorization_servers": []});
    vec![
        note(
            "root/sessionAdded",
            json!({"channel": "ahp-root://", "summary": summary}),
        ),
        note(
            "root/sessionSummaryChanged",
            json!({"channel": "ahp-root://", "session": "ahp-session:/n",
                "changes": {"title": "Renamed"}}),
        ),
        note(
            "progress",
            json!({"channel": "ahp-root://", "progressToken": "tok", "progress": 5, "total": 10}),
        ),
        // 0.3.0's shape: the resource as a URL string. Malformed in 1.0.
        note(
            "auth/required",
            json!({"channel": "ahp-root://", "resource": "https://api.test"}),
        ),
        note(
            "auth/required",
            json!({"channel": "ahp-root://", "resource": metadata, "reason": "expired"}),
        ),
        note(
            "notifications/message",
            json!({"channel": "mcp://s/1", "level": "info", "data": "x"}),
        ),
        note(
            "root/sessionRemoved",
            json!({"channel": "ahp-root://", "session": "ahp-session:/n"}),
        ),
    ]
}

/// Serves one connection as a host of the versions `supported` (its preference first): the
/// handshake, then [`notifications`] before the answer to `listSessions`. Returns the
/// WebSocket URL.
async fn start_host(supported: &'static [&'static str]) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        let mut t = WsTransport::new(ws);
        while let Some(Ok(frame)) = recv(&mut t).await {
            let frame: Value = serde_json::from_str(&frame).unwrap();
            let result = match frame["method"].as_str() {
                Some("initialize") => {
                    let offered = &frame["params"]["protocolVersions"];
                    let offered: Vec<&str> = offered
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter_map(Value::as_str)
                        .collect();
                    let Some(version) = supported.iter().find(|v| offered.contains(v)) else {
                        let error = json!({"code": -32005, "message": "unsupported version",
                            "data": {"supportedVersions": supported}});
                        let answer = json!({"jsonrpc": "2.0", "id": frame["id"], "error": error});
                        t.send(answer.to_string()).unwrap();
                        break;
                    };
                    json!({"protocolVersion": version, "serverSeq": 0, "snapshots": []})
                }
                Some("listSessions") => {
                    for n in notifications() {
                        t.send(n).unwrap();
                    }
                    json!({"items": []})
                }
                _ if frame.get("id").is_some() => json!({}),
                _ => continue,
            };
            let answer = json!({"jsonrpc": "2.0", "id": frame["id"], "result": result});
            t.send(answer.to_string()).unwrap();
        }
        t.close();
    });
    format!("ws://{addr}/ahp")
}

/// A client offering 1.0.0 and 0.3.0 (in that order) to a host of `supported`.
async fn connect(supported: &'static [&'static str]) -> Result<AhpClient, Error> {
    let url = start_host(supported).await;
    let options = ConnectOptions {
        client_id: Some("me".into()),
        initial_subscriptions: vec![],
        protocol_versions: vec!["1.0.0".into(), "0.3.0".into()],
        reconnect: ReconnectPolicy::never(),
        keepalive: None,
        ..Default::default()
    };
    tokio::time::timeout(Duration::from_secs(10), AhpClient::connect(&url, options))
        .await
        .expect("connect settles")
}

#[tokio::test]
async fn offering_both_versions_the_host_chooses_and_neither_is_a_typed_error() {
    for (supported, chosen) in [
        (&["1.0.0"][..], "1.0.0"),
        (&["0.3.0"], "0.3.0"),
        (&["1.0.0", "0.3.0"], "1.0.0"),
        (&["0.3.0", "1.0.0"], "0.3.0"),
    ] {
        let client = connect(supported).await.unwrap();
        let info = client.server_info().unwrap();
        assert_eq!(info.protocol_version, chosen, "{supported:?}");
        client.close();
    }
    let error = connect(&["2.0.0", "0.9.0"]).await.unwrap_err();
    let Error::UnsupportedProtocolVersion {
        offered,
        server_data: Some(data),
    } = &error
    else {
        panic!("expected UnsupportedProtocolVersion, got {error:?}");
    };
    assert_eq!(offered, &["1.0.0", "0.3.0"]);
    assert_eq!(data.supported_versions, ["2.0.0", "0.9.0"]);
    assert!(error.to_string().contains("2.0.0"), "{error}");
}

/// The notification and malformed-frame events queued on `events` so far.
fn drained(events: &mut tokio::sync::broadcast::Receiver<ClientEvent>) -> Vec<ClientEvent> {
    std::iter::from_fn(|| events.try_recv().ok())
        .filter(|e| {
            matches!(
                e,
                ClientEvent::NotificationV1(_)
                    | ClientEvent::Protocol(Event::Notification(_) | Event::Malformed { .. })
            )
        })
        .collect()
}

#[tokio::test]
async fn a_1_0_hosts_notifications_are_typed_as_1_0s() {
    let client = connect(&["1.0.0"]).await.unwrap();
    let mut events = client.events();
    client
        .v1()
        .list_sessions(ListSessionsParams::default())
        .await
        .unwrap();
    let got = drained(&mut events);
    let typed: Vec<&ServerNotificationV1> = got
        .iter()
        .filter_map(|e| match e {
            ClientEvent::NotificationV1(n) => Some(&**n),
            _ => None,
        })
        .collect();
    assert_eq!(
        typed.iter().map(|n| n.method()).collect::<Vec<_>>(),
        [
            "root/sessionAdded",
            "root/sessionSummaryChanged",
            "progress",
            "auth/required",
            "notifications/message",
            "root/sessionRemoved"
        ],
        "{got:?}"
    );
    let ServerNotificationV1::SessionAdded(added) = typed[0] else {
        panic!("{:?}", typed[0]);
    };
    assert_eq!(added.summary.title, "New");
    assert_eq!(
        added.summary.created_at, T0,
        "1.0's timestamps are ISO strings"
    );
    let ServerNotificationV1::SessionSummaryChanged(changed) = typed[1] else {
        panic!("{:?}", typed[1]);
    };
    assert_eq!(changed.session, "ahp-session:/n");
    assert_eq!(changed.changes.title.as_deref(), Some("Renamed"));
    let ServerNotificationV1::Progress(progress) = typed[2] else {
        panic!("{:?}", typed[2]);
    };
    assert_eq!(
        (
            progress.progress_token.as_str(),
            progress.progress,
            progress.total
        ),
        ("tok", 5, Some(10))
    );
    let ServerNotificationV1::AuthRequired(auth) = typed[3] else {
        panic!("{:?}", typed[3]);
    };
    assert_eq!(auth.resource.resource, "https://api.test");
    assert_eq!(auth.reason.as_ref().map(|r| r.as_str()), Some("expired"));
    let ServerNotificationV1::Other { method, params } = typed[4] else {
        panic!("{:?}", typed[4]);
    };
    assert_eq!(method, "notifications/message");
    assert_eq!(
        serde_json::to_value(params).unwrap(),
        json!({"channel": "mcp://s/1", "level": "info", "data": "x"})
    );
    let ServerNotificationV1::SessionRemoved(removed) = typed[5] else {
        panic!("{:?}", typed[5]);
    };
    assert_eq!(removed.session, "ahp-session:/n");

    // 0.3.0's `auth/required` (a URL for the resource) is reported, not passed on as 1.0's.
    let malformed: Vec<(&str, &str)> = got
        .iter()
        .filter_map(|e| match e {
            ClientEvent::Protocol(Event::Malformed { message, frame }) => {
                Some((message.as_str(), frame.as_str()))
            }
            _ => None,
        })
        .collect();
    let [(message, frame)] = malformed[..] else {
        panic!("one malformed frame: {got:?}");
    };
    assert!(
        message.starts_with("bad `auth/required`: invalid params at `resource`"),
        "{message}"
    );
    assert!(
        frame.contains(r#""resource":"https://api.test""#),
        "{frame}"
    );
    assert!(
        !got.iter()
            .any(|e| matches!(e, ClientEvent::Protocol(Event::Notification(_)))),
        "no untyped 0.3.0 form on a 1.0 connection: {got:?}"
    );
    client.close();
}

#[tokio::test]
async fn a_0_3_0_hosts_notifications_stay_0_3_0s() {
    let client = connect(&["0.3.0"]).await.unwrap();
    let mut events = client.events();
    client
        .list_sessions(ahp_wasm::protocol::ListSessionsParams::default())
        .await
        .unwrap();
    let got = drained(&mut events);
    assert!(
        !got.iter()
            .any(|e| matches!(e, ClientEvent::NotificationV1(_))),
        "{got:?}"
    );
    let methods: Vec<&str> = got
        .iter()
        .filter_map(|e| match e {
            ClientEvent::Protocol(Event::Notification(n)) => Some(n.method()),
            _ => None,
        })
        .collect();
    // 1.0's `progress` is no 0.3.0 notification: kept as sent; 1.0's `auth/required` and
    // summaries (ISO timestamps) do not fit 0.3.0's types.
    assert!(methods.contains(&"progress"), "{got:?}");
    assert!(got.iter().any(|e| matches!(
        e,
        ClientEvent::Protocol(Event::Notification(n))
            if matches!(&**n, ServerNotification::Other { method, .. } if method == "progress")
    )));
    client.close();
}
