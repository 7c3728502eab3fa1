//! The async native client against the simulated server, over the in-memory transport and
//! over a real WebSocket on localhost.
#![cfg(feature = "native")]

mod sim;

use ahp_wasm::client::engine::{DropReason, Event};
use ahp_wasm::client::native::{
    AhpClient, ClientEvent, ConnectOptions, MultiHostClient, ReconnectPolicy, SubscriptionEvent,
};
use ahp_wasm::client::transport::memory::{self, MemoryListener};
use ahp_wasm::client::transport::{recv, Transport};
use ahp_wasm::client::{ConnectionState, Error};
use ahp_wasm::protocol::jsonrpc::{ErrorObject, ResourceRead};
use ahp_wasm::protocol::{errors, ResourceReadResult, TerminalState};
use serde_json::{json, Value};
use sim::{data, SimServer};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

const A: &str = "ahp-terminal:/a";
const B: &str = "ahp-terminal:/b";

/// A simulated host behind an in-memory listener, served by a task.
struct SimHost {
    server: Arc<Mutex<SimServer>>,
    kick: Arc<Notify>,
    cut: Arc<Notify>,
}

impl SimHost {
    fn start(listener: MemoryListener, window: usize) -> SimHost {
        let server = Arc::new(Mutex::new(SimServer::new(&[A, B], window)));
        let (kick, cut) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
        let host = SimHost {
            server: server.clone(),
            kick: kick.clone(),
            cut: cut.clone(),
        };
        tokio::spawn(async move {
            loop {
                let mut t = listener.accept().await;
                loop {
                    let frames: Vec<String> = server.lock().unwrap().outbox.drain(..).collect();
                    for f in frames {
                        let _ = t.send(f);
                    }
                    tokio::select! {
                        frame = recv(&mut t) => match frame {
                            Some(Ok(frame)) => server.lock().unwrap().handle(&frame),
                            _ => break,
                        },
                        _ = kick.notified() => {}
                        _ = cut.notified() => break,
                    }
                }
                t.close();
                server.lock().unwrap().disconnect();
            }
        });
        host
    }

    fn foreign(&self, channel: &str, text: &str, seq: u64) {
        self.server
            .lock()
            .unwrap()
            .foreign(channel, data(text), seq);
        self.kick.notify_one();
    }

    fn terminal(&self, channel: &str) -> TerminalState {
        self.server.lock().unwrap().channels[channel].clone()
    }
}

fn options(connector: memory::MemoryConnector) -> ConnectOptions {
    ConnectOptions {
        client_id: Some("me".into()),
        initial_subscriptions: vec![A.into()],
        reconnect: ReconnectPolicy {
            initial_delay: Duration::from_millis(5),
            max_delay: Duration::from_millis(50),
            multiplier: 2.0,
            max_attempts: Some(50),
        },
        ..Default::default()
    }
    .with_connector(connector)
}

async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..400 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("timed out waiting until {what}");
}

fn term_state(sub: &ahp_wasm::client::native::Subscription) -> TerminalState {
    sub.state_as::<TerminalState>().expect("terminal state")
}

#[tokio::test]
async fn subscribe_dispatch_and_converge() {
    let (connector, listener) = memory::listener();
    let host = SimHost::start(listener, 100);
    let client = AhpClient::connect("mem://host", options(connector))
        .await
        .unwrap();
    assert_eq!(client.connection_state(), ConnectionState::Connected);
    assert_eq!(client.server_info().unwrap().protocol_version, "0.3.0");
    client.ping().await.unwrap();

    let mut a = client.subscribe(A).await.unwrap();
    let seq = a.dispatch(data("mine ")).unwrap();
    assert_eq!(seq, 1);
    assert_eq!(a.pending_count(), 1, "applied before any echo");
    assert!(serde_json::to_string(&term_state(&a).content)
        .unwrap()
        .contains("mine"));
    match a.next_event().await.unwrap() {
        SubscriptionEvent::Changed { changed, .. } => assert_eq!(changed.names(), ["content"]),
        other => panic!("expected a change, got {other:?}"),
    }
    host.foreign(A, "theirs ", 1);
    wait_until("echo and foreign action applied", || {
        a.pending_count() == 0 && term_state(&a) == host.terminal(A)
    })
    .await;

    let mut b = client.subscribe(B).await.unwrap();
    assert_eq!(term_state(&b), host.terminal(B));
    b.dispatch(data("x!")).unwrap(); // the server rejects shouting
    let rejection = loop {
        match tokio::time::timeout(Duration::from_secs(2), b.next_event()).await {
            Ok(Some(SubscriptionEvent::Rejected(r))) => break r,
            Ok(Some(_)) => continue,
            other => panic!("no rejection: {other:?}"),
        }
    };
    assert_eq!(rejection.reason, "no shouting");
    wait_until("rejection reverted", || b.pending_count() == 0).await;
    assert_eq!(term_state(&b), host.terminal(B));
    b.unsubscribe();
    assert!(client.dispatch(B, data("z")).is_err());
    client.close();
    assert!(matches!(client.ping().await, Err(Error::Closed)));
}

#[tokio::test]
async fn version_mismatch_fails_connect() {
    let (connector, listener) = memory::listener();
    tokio::spawn(async move {
        let mut t = listener.accept().await;
        let Some(Ok(frame)) = recv(&mut t).await else {
            return;
        };
        let init: Value = serde_json::from_str(&frame).unwrap();
        let answer = json!({"jsonrpc": "2.0", "id": init["id"], "error": {"code": -32005,
            "message": "no", "data": {"supportedVersions": ["0.1.0"]}}});
        t.send(answer.to_string()).unwrap();
        let _ = recv(&mut t).await;
    });
    let err = AhpClient::connect("mem://old-host", options(connector))
        .await
        .unwrap_err();
    match err {
        Error::UnsupportedProtocolVersion {
            offered,
            server_data: Some(data),
        } => {
            assert_eq!(offered, vec!["0.3.0"]);
            assert_eq!(data.supported_versions, vec!["0.1.0"]);
        }
        other => panic!("expected UnsupportedProtocolVersion, got {other:?}"),
    }
}

#[tokio::test]
async fn timeouts_and_server_requests() {
    let (connector, listener) = memory::listener();
    let mut opts = options(connector).handle::<ResourceRead, _, _>(|params| async move {
        if params.uri == "file:///secret" {
            return Err(ErrorObject::new(errors::PERMISSION_DENIED, "no"));
        }
        Ok(ResourceReadResult {
            data: "aGk=".into(),
            ..serde_json::from_value(json!({"data": "", "encoding": "base64"})).unwrap()
        })
    });
    opts.request_timeout = Duration::from_millis(100);
    let (answers_tx, mut answers) = tokio::sync::mpsc::unbounded_channel::<Value>();
    tokio::spawn(async move {
        let mut t = listener.accept().await;
        while let Some(Ok(frame)) = recv(&mut t).await {
            let msg: Value = serde_json::from_str(&frame).unwrap();
            match msg["method"].as_str() {
                Some("initialize") => {
                    let ok = json!({"jsonrpc": "2.0", "id": msg["id"], "result":
                        {"protocolVersion": "0.3.0", "serverSeq": 0, "snapshots": []}});
                    t.send(ok.to_string()).unwrap();
                    for (id, method, uri) in [
                        (1, "resourceRead", "file:///a"),
                        (2, "resourceRead", "file:///secret"),
                        (3, "resourceWrite", "file:///a"),
                    ] {
                        let req = json!({"jsonrpc": "2.0", "id": id, "method": method,
                            "params": {"channel": "ahp-root://", "uri": uri, "data": ""}});
                        t.send(req.to_string()).unwrap();
                    }
                }
                Some(_) => {} // never answers anything else: requests time out
                None => answers_tx.send(msg).unwrap(),
            }
        }
    });
    let client = AhpClient::connect("mem://h", opts).await.unwrap();
    let mut got = Vec::new();
    for _ in 0..3 {
        got.push(answers.recv().await.unwrap());
    }
    got.sort_by_key(|a| a["id"].as_i64());
    assert_eq!(got[0]["result"]["data"], "aGk=");
    assert_eq!(got[1]["error"]["code"], errors::PERMISSION_DENIED);
    assert_eq!(got[2]["error"]["code"], errors::METHOD_NOT_FOUND);
    let started = std::time::Instant::now();
    let err = client.ping().await.unwrap_err();
    assert!(
        matches!(&err, Error::Timeout { method, .. } if method == "ping"),
        "{err}"
    );
    assert!(started.elapsed() >= Duration::from_millis(90));
}

#[tokio::test]
async fn reconnects_after_a_drop_and_ends_identical_to_the_server() {
    for window in [1000, 2] {
        let (connector, listener) = memory::listener();
        let host = SimHost::start(listener, window);
        let client = AhpClient::connect("mem://h", options(connector))
            .await
            .unwrap();
        let mut states = client.state_changes();
        let mut events = client.events();
        let a = client.subscribe(A).await.unwrap();
        for i in 0..30u64 {
            host.foreign(A, &format!("f{i} "), i);
            if i % 4 == 0 {
                a.dispatch(data(&format!("m{i} "))).unwrap();
            }
            if i == 15 {
                host.cut.notify_one(); // drop mid-stream
            }
            tokio::task::yield_now().await;
        }
        states
            .wait_for(|s| *s == ConnectionState::Reconnecting)
            .await
            .ok();
        wait_until("reconnected and converged", || {
            client.connection_state() == ConnectionState::Connected
                && a.pending_count() == 0
                && term_state(&a) == host.terminal(A)
        })
        .await;
        let (replays, snapshots) = {
            let s = host.server.lock().unwrap();
            (s.replays, s.snapshots)
        };
        assert_eq!(replays + snapshots, 1, "window {window}");
        let mut resumed = false;
        let mut dropped = 0;
        while let Ok(event) = events.try_recv() {
            match event {
                ClientEvent::Protocol(Event::Connected { resumed: true, .. }) => resumed = true,
                ClientEvent::Protocol(Event::PendingDropped {
                    reason: DropReason::ReconnectSnapshot,
                    actions,
                    ..
                }) => dropped += actions.len(),
                _ => {}
            }
        }
        assert!(resumed);
        if snapshots == 0 {
            assert_eq!(dropped, 0, "replay: nothing dropped");
        }
        client.close();
    }
}

#[tokio::test]
async fn gives_up_after_max_attempts() {
    let (connector, listener) = memory::listener();
    let control = listener.clone();
    let host = SimHost::start(listener, 10);
    let mut opts = options(connector);
    opts.reconnect.max_attempts = Some(2);
    let client = AhpClient::connect("mem://h", opts).await.unwrap();
    let mut events = client.events();
    control.set_refusing(true); // the host goes down
    host.cut.notify_one();
    wait_until("closed", || {
        client.connection_state() == ConnectionState::Closed
    })
    .await;
    let mut failures = 0;
    while let Ok(event) = events.try_recv() {
        if let ClientEvent::ReconnectFailed { attempt, error } = event {
            failures += 1;
            assert_eq!(attempt, failures);
            assert!(matches!(error, Error::Transport { .. }));
        }
    }
    assert_eq!(failures, 2);
    assert!(client.is_closed());
    assert!(matches!(client.ping().await, Err(Error::Closed)));
}

#[tokio::test]
async fn multi_host_fans_in_events() {
    let multi = MultiHostClient::new();
    let mut hosts = Vec::new();
    let mut events = multi.events();
    for name in ["one", "two"] {
        let (connector, listener) = memory::listener();
        hosts.push(SimHost::start(listener, 100));
        let client = multi
            .add_host(name, "mem://h", options(connector))
            .await
            .unwrap();
        client.subscribe(A).await.unwrap();
    }
    assert_eq!(multi.host_names(), ["one", "two"]);
    hosts[1].cut.notify_one();
    let mut seen_reconnect_of_two = false;
    for _ in 0..50 {
        let Ok(Ok((host, event))) =
            tokio::time::timeout(Duration::from_secs(2), events.recv()).await
        else {
            break;
        };
        if host == "two"
            && matches!(
                event,
                ClientEvent::Protocol(Event::Connected { resumed: true, .. })
            )
        {
            seen_reconnect_of_two = true;
            break;
        }
    }
    assert!(seen_reconnect_of_two);
    assert_eq!(
        multi.host("one").unwrap().connection_state(),
        ConnectionState::Connected
    );
    assert!(multi.remove_host("one"));
    assert_eq!(multi.host_names(), ["two"]);
    multi.close();
}

#[tokio::test]
#[allow(clippy::result_large_err)] // tungstenite's handshake callback signature
async fn websocket_end_to_end_with_token() {
    use ahp_wasm::client::transport::ws::WsTransport;
    use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = Arc::new(Mutex::new(SimServer::new(&[A, B], 100)));
    let sim = server.clone();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let check = |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
            match req.uri().query() {
                Some(q) if q.split('&').any(|kv| kv == "tkn=s%20cret") => Ok(resp),
                _ => Err(ErrorResponse::new(Some("bad token".into()))),
            }
        };
        let ws = tokio_tungstenite::accept_hdr_async(tcp, check)
            .await
            .unwrap();
        let mut t = WsTransport::new(ws);
        while let Some(Ok(frame)) = recv(&mut t).await {
            let frames: Vec<String> = {
                let mut s = sim.lock().unwrap();
                s.handle(&frame);
                s.outbox.drain(..).collect()
            };
            for f in frames {
                t.send(f).unwrap();
            }
        }
    });
    let options = ConnectOptions {
        client_id: Some("ws-client".into()),
        initial_subscriptions: vec![A.into()],
        token: Some("s cret".into()),
        reconnect: ReconnectPolicy::never(),
        ..Default::default()
    };
    let url = format!("ws://{addr}/ahp");
    let client = AhpClient::connect(&url, options).await.unwrap();
    assert_eq!(
        client.url(),
        url,
        "the token is not part of the displayed URL"
    );
    assert!(!format!("{client:?}").contains("cret"));
    let a = client.subscribe(A).await.unwrap();
    a.dispatch(data("over the wire")).unwrap();
    wait_until("echo over WebSocket", || a.pending_count() == 0).await;
    assert_eq!(term_state(&a), server.lock().unwrap().channels[A]);
    client.close();
}

#[tokio::test]
async fn websocket_connect_failure_is_a_transport_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener); // nothing listens there now
    let options = ConnectOptions {
        token: Some("hidden".into()),
        ..Default::default()
    };
    let err = AhpClient::connect(&format!("ws://{addr}/"), options)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Transport {
                kind: ahp_wasm::client::TransportErrorKind::Connect,
                ..
            }
        ),
        "{err}"
    );
    assert!(!err.to_string().contains("hidden"), "{err}");
}

#[tokio::test]
async fn dropping_the_last_handle_closes_the_connection() {
    let (connector, listener) = memory::listener();
    let control = listener.clone();
    let host = SimHost::start(listener, 10);
    let client = AhpClient::connect("mem://h", options(connector))
        .await
        .unwrap();
    let sub = client.subscribe(A).await.unwrap();
    let states = client.state_changes();
    drop(client);
    assert_eq!(
        *states.borrow(),
        ConnectionState::Connected,
        "the subscription keeps it"
    );
    control.set_refusing(true);
    drop(sub);
    assert_eq!(*states.borrow(), ConnectionState::Closed);
    drop(host);
}

#[tokio::test]
async fn an_unanswered_keepalive_reconnects() {
    let (connector, listener) = memory::listener();
    tokio::spawn(async move {
        for connection in 0.. {
            let mut t = listener.accept().await;
            tokio::spawn(async move {
                while let Some(Ok(frame)) = recv(&mut t).await {
                    let msg: Value = serde_json::from_str(&frame).unwrap();
                    let result = match msg["method"].as_str() {
                        Some("initialize") => json!({"protocolVersion": "0.3.0",
                            "serverSeq": 0, "snapshots": []}),
                        Some("reconnect") => {
                            json!({"type": "replay", "actions": [], "missing": []})
                        }
                        Some("ping") if connection > 0 => json!({}),
                        _ => continue, // the first connection goes silent after the handshake
                    };
                    let answer = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
                    let _ = t.send(answer.to_string());
                }
            });
        }
    });
    let mut opts = options(connector);
    opts.initial_subscriptions = vec![];
    opts.keepalive = Some(Duration::from_millis(30));
    opts.request_timeout = Duration::from_millis(30);
    let client = AhpClient::connect("mem://h", opts).await.unwrap();
    let mut events = client.events();
    let resumed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match events.recv().await {
                Ok(ClientEvent::Protocol(Event::Connected { resumed: true, .. })) => return true,
                Ok(_) => continue,
                Err(_) => return false,
            }
        }
    })
    .await;
    assert_eq!(resumed, Ok(true), "the stale connection was replaced");
    client.ping().await.unwrap();
}
