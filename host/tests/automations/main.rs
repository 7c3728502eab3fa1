//! AHP 1.0 automations over a real WebSocket (`hub/automations/`): the host's trigger
//! definitions, automations created, updated and removed by dispatch, runs from an interval
//! schedule and from `runAutomation` that create sessions whose turns complete, cancelled
//! runs, malformed definitions refused with nothing changed, and automations and runs kept
//! across a restart. Every client's mirror (the SDK's 1.0 reducers over the envelopes it
//! received) ends equal to a fresh snapshot.

#[path = "../common/mod.rs"]
mod common;
#[path = "../v1_raw/mod.rs"]
mod v1_raw;
#[path = "../v1_support/mod.rs"]
mod v1_support;

mod catalogue;
mod restart;
mod runs;

use ahp_types_v1::state::SnapshotState;
use ahp_v1::{Client as Official, ClientConfig, SubscriptionEvent};
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::{automation_reducer, automation_run_reducer};
use common::*;
use serde_json::{json, Value};
use std::time::Duration;
use v1_raw::V1;

const CATALOGUE: &str = "ahp-automations://";

/// What the automation tests ask of a raw 1.0 connection beyond `v1_raw`'s.
trait Entries {
    /// Waits for `automation/set` of `uri` whose entry satisfies `done`; the entry.
    async fn entry_until(&mut self, uri: &str, done: impl Fn(&Value) -> bool) -> Value;
}

impl Entries for V1 {
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
