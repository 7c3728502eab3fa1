//! Interop with the official Rust client (`ahp` 0.3.0 from crates.io) as a test peer: it
//! connects through a small tokio-tungstenite transport, initializes, creates a session,
//! dispatches a turn, approves a tool call, and reduces the streamed envelopes with its own
//! reducers to the same state the host holds.

mod common;

use ahp::{
    Client as OfficialClient, ClientConfig, SubscriptionEvent, Transport, TransportError,
    TransportMessage,
};
use ahp_types::actions::StateAction as OfficialAction;
use ahp_types::state::{SessionState as OfficialSession, SnapshotState as OfficialSnapshot};
use common::*;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message as WsMessage;

/// A WebSocket transport for the official client.
struct WsTransport(Ws);

impl Transport for WsTransport {
    async fn send(&mut self, msg: TransportMessage) -> Result<(), TransportError> {
        let text = match msg {
            TransportMessage::Text(t) => t,
            TransportMessage::Binary(b) => {
                String::from_utf8(b).map_err(|e| TransportError::Protocol(e.to_string()))?
            }
            TransportMessage::Parsed(m) => {
                serde_json::to_string(&m).map_err(|e| TransportError::Protocol(e.to_string()))?
            }
        };
        self.0
            .send(WsMessage::text(text))
            .await
            .map_err(|e| TransportError::Protocol(e.to_string()))
    }

    async fn recv(&mut self) -> Result<Option<TransportMessage>, TransportError> {
        loop {
            match self.0.next().await {
                Some(Ok(WsMessage::Text(t))) => {
                    return Ok(Some(TransportMessage::Text(t.to_string())))
                }
                Some(Ok(WsMessage::Close(_))) | None => return Ok(None),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(TransportError::Protocol(e.to_string())),
            }
        }
    }

    async fn close(&mut self) -> Result<(), TransportError> {
        let _ = self.0.close(None).await;
        Ok(())
    }
}

/// JSON without nulls, with the clock-stamped `summary.modifiedAt` zeroed (each peer stamps it
/// with its own clock).
fn normalized(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.retain(|_, x| !x.is_null());
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v["summary"]["modifiedAt"] = json!(0);
    v
}

fn official_action(v: Value) -> OfficialAction {
    serde_json::from_value(v).expect("the official types parse the action")
}

#[tokio::test]
async fn the_official_client_reduces_to_the_hosts_state() {
    let t = start_host().await;
    let (ws, _) = tokio_tungstenite::connect_async(url_with_token(&t.host))
        .await
        .unwrap();
    let client = OfficialClient::connect(WsTransport(ws), ClientConfig::default())
        .await
        .unwrap();
    let init = client
        .initialize(
            "official".into(),
            vec!["0.3.0".into()],
            vec!["ahp-root://".into()],
        )
        .await
        .expect("initialize");
    assert_eq!(init.protocol_version, "0.3.0");
    assert_eq!(init.snapshots.len(), 1);

    let s = "ahp-session:/interop";
    let _: Value = client
        .request("createSession", json!({"channel": s}))
        .await
        .expect("createSession");
    let (result, mut sub) = client.subscribe(s.into()).await.expect("subscribe");
    let mut state: OfficialSession = match result.snapshot.expect("snapshot").state {
        OfficialSnapshot::Session(state) => *state,
        other => panic!("session snapshot expected, got {other:?}"),
    };

    client
        .dispatch(
            s.into(),
            official_action(json!({"type": "session/turnStarted", "turnId": "t1",
                "message": {"text": "Hi from the official client\n/title Interop\n/tool list",
                            "origin": {"kind": "user"}}})),
        )
        .await
        .unwrap();

    let mut applied = 0;
    let mut own_echo = false;
    loop {
        let event = tokio::time::timeout(WAIT, sub.recv())
            .await
            .expect("event")
            .expect("open");
        let SubscriptionEvent::Action(env) = event else {
            continue;
        };
        assert!(env.rejection_reason.is_none(), "{env:?}");
        let action_json = serde_json::to_value(&env.action).unwrap();
        if env
            .origin
            .as_ref()
            .is_some_and(|o| o.client_id == "official")
        {
            own_echo = true;
        }
        ahp::apply_action_to_session(&mut state, &env.action);
        applied += 1;
        if action_json["type"] == "session/toolCallReady" {
            client
                .dispatch(
                    s.into(),
                    official_action(json!({"type": "session/toolCallConfirmed", "turnId": "t1",
                        "toolCallId": action_json["toolCallId"], "approved": true,
                        "confirmed": "user-action"})),
                )
                .await
                .unwrap();
        }
        if action_json["type"] == "session/turnComplete" {
            break;
        }
    }
    assert!(own_echo, "the official client saw its own echo");
    assert!(applied > 10);

    let host = host_state(&t.host, s).await;
    let ours = normalized(serde_json::to_value(&host).unwrap());
    let theirs = normalized(serde_json::to_value(&state).unwrap());
    assert_eq!(ours["summary"]["title"], "Interop");
    assert_eq!(theirs, ours, "official reducers disagree with the host");
    client.shutdown().await;
}
