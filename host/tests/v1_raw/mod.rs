//! A raw JSON-RPC AHP 1.0 client for the host's 1.0 tests (annotations, canvases, automations,
//! durability): it logs every action envelope it receives (checked to decode with the SDK's and
//! the official 1.0 types) so a test can reduce them into a mirror.
#![allow(dead_code)]

use crate::common::{url_with_token, Client};
use ahp_host::RunningHost;
use ahp_types_v1::actions::ActionEnvelope as OfficialEnvelope;
use ahp_types_v1::state::Snapshot as OfficialSnapshot;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::v1;
use serde_json::{json, Value};
use std::time::Duration;

/// A raw 1.0 connection.
pub struct V1 {
    pub c: Client,
    id: u64,
    seq: u64,
    /// Every action envelope received, in order.
    pub log: Vec<Value>,
    /// Every other notification received (its `method` and `params`), in order.
    pub notes: Vec<Value>,
    /// The secret the host bound the client id to (for `reconnect`).
    pub secret: String,
    /// The answer to its handshake.
    pub init: Value,
}

impl V1 {
    pub async fn connect(host: &RunningHost, client_id: &str) -> V1 {
        V1::connect_url(&url_with_token(host), client_id).await
    }

    pub async fn connect_url(url: &str, client_id: &str) -> V1 {
        let c = Client::connect_url(url, client_id).await;
        let mut v = V1 {
            c,
            id: 0,
            seq: 0,
            log: Vec::new(),
            notes: Vec::new(),
            secret: String::new(),
            init: Value::Null,
        };
        let init = v
            .request(
                "initialize",
                json!({"channel": ROOT_CHANNEL, "protocolVersions": ["1.0.0"],
                       "clientId": client_id}),
            )
            .await;
        assert_eq!(init["result"]["protocolVersion"], "1.0.0", "{init}");
        v.secret = init["result"]["clientSecret"].as_str().unwrap().to_owned();
        v.init = init;
        v
    }

    /// A connection of `client_id` that `reconnect`s (with `secret`) instead of initializing;
    /// the answer.
    pub async fn reconnect(
        url: &str,
        client_id: &str,
        secret: &str,
        last_seen: u64,
        channels: &[&str],
    ) -> (V1, Value) {
        let mut v = V1 {
            c: Client::connect_url(url, client_id).await,
            id: 0,
            seq: 0,
            log: Vec::new(),
            notes: Vec::new(),
            secret: secret.to_owned(),
            init: Value::Null,
        };
        let answer = v
            .request(
                "reconnect",
                json!({"channel": ROOT_CHANNEL, "clientId": client_id, "clientSecret": secret,
                       "lastSeenServerSeq": last_seen, "subscriptions": channels}),
            )
            .await;
        v.init = answer.clone();
        (v, answer)
    }

    /// The next frame; action envelopes are checked and logged.
    pub async fn frame(&mut self) -> Value {
        let read = self.try_frame();
        tokio::time::timeout(Duration::from_secs(30), read)
            .await
            .expect("a frame within 30 s")
            .expect("connection open")
    }

    /// [`V1::frame`], or `None` once the connection closed.
    pub async fn try_frame(&mut self) -> Option<Value> {
        let frame = self.c.read_frame().await?;
        if frame["method"] == "action" {
            let envelope = frame["params"].clone();
            let action: v1::StateAction = serde_json::from_value(envelope["action"].clone())
                .unwrap_or_else(|e| panic!("a 1.0 action ({e}): {envelope}"));
            assert!(!matches!(action, v1::StateAction::Unknown(_)), "{envelope}");
            let _: OfficialEnvelope = serde_json::from_value(envelope.clone())
                .unwrap_or_else(|e| panic!("an official 1.0 envelope ({e}): {envelope}"));
            self.log.push(envelope);
        } else if frame.get("method").is_some() && frame.get("id").is_none() {
            self.notes.push(frame.clone());
        }
        if let Some(snapshot) = frame["result"].get("snapshot") {
            let _: OfficialSnapshot = serde_json::from_value(snapshot.clone())
                .unwrap_or_else(|e| panic!("an official 1.0 snapshot ({e}): {snapshot}"));
        }
        Some(frame)
    }

    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        let text = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.c.send_text(text.to_string()).await;
        loop {
            let frame = self.frame().await;
            if frame["id"] == id {
                return frame;
            }
        }
    }

    /// Subscribes; the snapshot (panics on an error).
    pub async fn subscribe(&mut self, channel: &str) -> Value {
        let answer = self.request("subscribe", json!({"channel": channel})).await;
        assert!(answer.get("error").is_none(), "{answer}");
        answer["result"]["snapshot"].clone()
    }

    /// Creates a session (panics on an error).
    pub async fn create_session(&mut self, uri: &str) {
        let created = self.request("createSession", json!({"channel": uri})).await;
        assert!(created.get("error").is_none(), "{created}");
    }

    /// Sends a dispatch; its `clientSeq`.
    pub async fn dispatch(&mut self, channel: &str, action: Value) -> u64 {
        self.seq += 1;
        let text = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
            "channel": channel, "clientSeq": self.seq, "action": action}});
        self.c.send_text(text.to_string()).await;
        self.seq
    }

    /// Envelopes until one satisfies `done`.
    pub async fn until(&mut self, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let read = async {
            loop {
                let frame = self.frame().await;
                if frame["method"] == "action" && done(&frame["params"]) {
                    return frame["params"].clone();
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(30), read)
            .await
            .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
    }

    /// The echo (or rejection) of this client's dispatch `seq`.
    pub async fn echo(&mut self, seq: u64) -> Value {
        let me = self.c.client_id.clone();
        self.until("an echo", |e| {
            e["origin"]["clientId"] == me.as_str() && e["origin"]["clientSeq"] == seq
        })
        .await
    }

    /// Dispatches and returns the echo, which must not be a rejection.
    pub async fn apply(&mut self, channel: &str, action: Value) -> Value {
        let seq = self.dispatch(channel, action).await;
        let echo = self.echo(seq).await;
        assert!(echo.get("rejectionReason").is_none(), "{echo}");
        echo
    }

    /// Dispatches and returns the rejection's reason (panics when it is applied).
    pub async fn refused(&mut self, channel: &str, action: Value) -> String {
        let seq = self.dispatch(channel, action).await;
        let echo = self.echo(seq).await;
        echo["rejectionReason"]
            .as_str()
            .unwrap_or_else(|| panic!("refused: {echo}"))
            .to_owned()
    }

    /// Whether the connection still answers.
    pub async fn alive(&mut self) {
        let answer = self.request("ping", json!({"channel": ROOT_CHANNEL})).await;
        assert!(answer.get("error").is_none(), "{answer}");
    }

    /// Runs a turn of the built-in agent with `text` in the default chat of `session`; the
    /// chat's snapshot once it completed.
    pub async fn turn(&mut self, session: &str, turn_id: &str, text: &str) -> Value {
        let chat = session.replacen("ahp-session:/", "ahp-chat:/", 1) + "/default";
        self.turn_in(&chat, turn_id, text).await
    }

    /// Runs a turn of the built-in agent with `text` in chat `chat`; the chat's snapshot once
    /// it completed.
    pub async fn turn_in(&mut self, chat: &str, turn_id: &str, text: &str) -> Value {
        self.subscribe(chat).await;
        let action = json!({"type": "chat/turnStarted", "turnId": turn_id,
            "startedAt": "2026-01-01T00:00:00.000Z",
            "message": {"text": text, "origin": {"kind": "user"}}});
        self.apply(chat, action).await;
        self.until("the turn to complete", |e| {
            e["channel"] == chat
                && e["action"]["type"] == "chat/turnComplete"
                && e["action"]["turnId"] == turn_id
        })
        .await;
        self.subscribe(chat).await
    }
}

/// The actions logged on `channel` after `snapshot` (rejections left out).
pub fn after(snapshot: &Value, log: &[Value]) -> Vec<v1::StateAction> {
    let channel = snapshot["resource"].as_str().unwrap();
    let from = snapshot["fromSeq"].as_u64().unwrap();
    log.iter()
        .filter(|e| e["channel"] == channel && e["serverSeq"].as_u64().unwrap() > from)
        .filter(|e| e.get("rejectionReason").is_none())
        .map(|e| serde_json::from_value(e["action"].clone()).unwrap())
        .collect()
}

/// The chat reduced by the SDK's 1.0 chat reducer from `snapshot` over the logged envelopes
/// after it.
pub fn chat_mirror(snapshot: &Value, log: &[Value]) -> Value {
    let mut state: v1::ChatState =
        serde_json::from_value(snapshot["state"].clone()).expect("a chat");
    for action in after(snapshot, log) {
        let _ = ahp_wasm::reduce::v1::chat_reducer(&mut state, &action);
    }
    serde_json::to_value(state).unwrap()
}
