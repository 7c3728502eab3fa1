//! AHP 1.0 automations over a real WebSocket (`hub/automations/`): the host's trigger
//! definitions, automations created, updated and removed by dispatch, runs from an interval
//! schedule and from `runAutomation` that create sessions whose turns complete, cancelled
//! runs, malformed definitions refused with nothing changed, and automations and runs kept
//! across a restart. Every client's mirror (the SDK's 1.0 reducers over the envelopes it
//! received) ends equal to a fresh snapshot.

#[path = "../common/mod.rs"]
mod common;
#[path = "../v1_support/mod.rs"]
mod v1_support;

mod catalogue;
mod restart;
mod runs;

use ahp_host::RunningHost;
use ahp_types_v1::actions::ActionEnvelope as OfficialEnvelope;
use ahp_types_v1::state::{Snapshot as OfficialSnapshot, SnapshotState};
use ahp_v1::{Client as Official, ClientConfig, SubscriptionEvent};
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::{automation_reducer, automation_run_reducer};
use common::*;
use serde_json::{json, Value};
use std::time::Duration;

const CATALOGUE: &str = "ahp-automations://";

/// A raw 1.0 connection that keeps every action envelope it receives.
struct V1 {
    c: Client,
    id: u64,
    seq: u64,
    log: Vec<Value>,
}

impl V1 {
    async fn connect(t: &TestHost, client_id: &str) -> V1 {
        V1::connect_to(&t.host, client_id).await
    }

    async fn connect_to(host: &RunningHost, client_id: &str) -> V1 {
        V1::connect_url(&url_with_token(host), client_id).await
    }

    async fn connect_url(url: &str, client_id: &str) -> V1 {
        let c = Client::connect_url(url, client_id).await;
        let mut v = V1 {
            c,
            id: 0,
            seq: 0,
            log: Vec::new(),
        };
        let init = v
            .request(
                "initialize",
                json!({"channel": ROOT_CHANNEL, "protocolVersions": ["1.0.0"],
                       "clientId": client_id}),
            )
            .await;
        assert_eq!(init["result"]["protocolVersion"], "1.0.0", "{init}");
        v
    }

    /// The next frame; action envelopes are logged, checked to decode as 1.0 actions.
    async fn frame(&mut self) -> Value {
        let frame = self.c.read_frame().await.expect("connection open");
        if frame["method"] == "action" {
            let envelope = frame["params"].clone();
            let action: v1::StateAction = serde_json::from_value(envelope["action"].clone())
                .unwrap_or_else(|e| panic!("a 1.0 action ({e}): {envelope}"));
            assert!(!matches!(action, v1::StateAction::Unknown(_)), "{envelope}");
            let _: OfficialEnvelope = serde_json::from_value(envelope.clone())
                .unwrap_or_else(|e| panic!("an official 1.0 envelope ({e}): {envelope}"));
            self.log.push(envelope);
        }
        if let Some(snapshot) = frame["result"].get("snapshot") {
            let _: OfficialSnapshot = serde_json::from_value(snapshot.clone())
                .unwrap_or_else(|e| panic!("an official 1.0 snapshot ({e}): {snapshot}"));
        }
        frame
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
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

    async fn subscribe(&mut self, channel: &str) -> Value {
        let answer = self.request("subscribe", json!({"channel": channel})).await;
        answer["result"]["snapshot"].clone()
    }

    async fn dispatch(&mut self, channel: &str, action: Value) -> u64 {
        self.seq += 1;
        let text = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
            "channel": channel, "clientSeq": self.seq, "action": action}});
        self.c.send_text(text.to_string()).await;
        self.seq
    }

    /// Envelopes until one satisfies `done`.
    async fn until(&mut self, what: &str, done: impl Fn(&Value) -> bool) -> Value {
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
    async fn echo(&mut self, seq: u64) -> Value {
        let me = self.c.client_id.clone();
        self.until("an echo", |e| {
            e["origin"]["clientId"] == me.as_str() && e["origin"]["clientSeq"] == seq
        })
        .await
    }

    /// Waits for `automation/set` of `uri` whose entry satisfies `done`; the entry.
    async fn entry_until(&mut self, uri: &str, done: impl Fn(&Value) -> bool) -> Value {
        let envelope = self
            .until(&format!("{uri} to change"), |e| {
                e["action"]["type"] == "automation/set"
                    && e["action"]["automation"]["resource"] == uri
                    && done(&e["action"]["automation"])
            })
            .await;
        envelope["action"]["automation"].clone()
    }

    /// Whether the connection still answers.
    async fn alive(&mut self) {
        let answer = self.request("ping", json!({"channel": ROOT_CHANNEL})).await;
        assert!(answer.get("error").is_none(), "{answer}");
    }
}

/// The catalogue reduced from `snapshot` over the logged envelopes after it.
fn catalogue_mirror(snapshot: &Value, log: &[Value]) -> Value {
    let mut state: v1::AutomationState =
        serde_json::from_value(snapshot["state"].clone()).expect("a catalogue");
    for envelope in after(snapshot, log, CATALOGUE) {
        let _ = automation_reducer(&mut state, &envelope);
    }
    serde_json::to_value(state).unwrap()
}

/// A run reduced from `snapshot` over the logged envelopes after it.
fn run_mirror(snapshot: &Value, log: &[Value]) -> Value {
    let channel = snapshot["resource"].as_str().unwrap();
    let mut state: v1::AutomationRunState =
        serde_json::from_value(snapshot["state"].clone()).expect("a run");
    for envelope in after(snapshot, log, channel) {
        let _ = automation_run_reducer(&mut state, &envelope);
    }
    serde_json::to_value(state).unwrap()
}

fn after(snapshot: &Value, log: &[Value], channel: &str) -> Vec<v1::StateAction> {
    let from = snapshot["fromSeq"].as_u64().unwrap();
    log.iter()
        .filter(|e| e["channel"] == channel && e["serverSeq"].as_u64().unwrap() > from)
        .filter(|e| e.get("rejectionReason").is_none())
        .map(|e| serde_json::from_value(e["action"].clone()).unwrap())
        .collect()
}

fn definition(title: &str, text: &str, triggers: Value) -> Value {
    json!({
        "title": title,
        "message": {"text": text, "origin": {"kind": "automation"}},
        "session": {},
        "enabled": true,
        "triggers": triggers,
    })
}

fn create(uri: &str, def: Value) -> Value {
    json!({"type": "automation/createRequested", "resource": uri, "definition": def})
}

fn interval(id: &str, seconds: u64) -> Value {
    json!({"kind": "event", "id": id, "type": "ahp-host.interval", "title": "Interval",
           "events": [{"id": "elapsed", "title": "Interval elapsed"}],
           "config": {"seconds": seconds}})
}

fn statuses(entry: &Value) -> Vec<String> {
    entry["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["lifecycle"]["status"].as_str().unwrap().to_owned())
        .collect()
}

/// Entry `uri` from fresh snapshots, once it satisfies `done`.
async fn settled(v: &mut V1, uri: &str, done: impl Fn(&Value) -> bool) -> Value {
    // Long enough for a cron schedule's next minute.
    for _ in 0..800 {
        let snapshot = v.subscribe(CATALOGUE).await;
        let entries = snapshot["state"]["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if let Some(entry) = entries.into_iter().find(|e| e["resource"] == uri) {
            if done(&entry) {
                return entry;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{uri} did not settle");
}

/// The turns of a run's session, from its default chat's 1.0 snapshot.
async fn session_turns(v: &mut V1, session: &str) -> Vec<Value> {
    let chat = session.replacen("ahp-session:/", "ahp-chat:/", 1) + "/default";
    let snapshot = v.subscribe(&chat).await;
    snapshot["state"]["turns"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}
