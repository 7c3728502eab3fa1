//! AHP 1.0 automations over a real WebSocket (`hub/automations/`): the host's trigger
//! definitions, automations created, updated and removed by dispatch, runs from an interval
//! schedule and from `runAutomation` that create sessions whose turns complete, cancelled
//! runs, malformed definitions refused with nothing changed, and automations and runs kept
//! across a restart. Every client's mirror (the SDK's 1.0 reducers over the envelopes it
//! received) ends equal to a fresh snapshot.

mod common;
mod v1_support;

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
    for _ in 0..300 {
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

#[tokio::test]
async fn trigger_definitions_and_capabilities_are_offered() {
    let t = start_host().await;
    let mut c = Client::connect(&t.host, "caps").await;
    c.send_text(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "channel": ROOT_CHANNEL, "protocolVersions": ["1.0.0"], "clientId": "caps"}})
        .to_string(),
    )
    .await;
    let init = c.read_frame().await.unwrap();
    let caps = &init["result"]["automations"];
    for key in ["create", "schedules", "runCancellation"] {
        assert!(caps[key].is_object(), "{init}");
    }
    let mut v = V1 {
        c,
        id: 1,
        seq: 0,
        log: Vec::new(),
    };
    let listed = v
        .request(
            "listAutomationTriggerDefinitions",
            json!({"channel": ROOT_CHANNEL}),
        )
        .await;
    let result: v1::ListAutomationTriggerDefinitionsResult =
        serde_json::from_value(listed["result"].clone()).expect("a 1.0 result");
    assert_eq!(result.items.len(), 1, "{listed}");
    assert_eq!(result.items[0].r#type, "ahp-host.interval");
    assert_eq!(result.items[0].events[0].id, "elapsed");
    assert!(result.items[0].config_schema.is_some());
    // A 0.3.0 client never hears of automations.
    let mut old = Client::connect(&t.host, "old").await;
    let init = old.initialize(&[ROOT_CHANNEL]).await;
    let init = serde_json::to_value(&init).unwrap();
    assert!(init.get("automations").is_none(), "{init}");
    old.expect_error(
        "subscribe",
        json!({"channel": CATALOGUE}),
        errors::NOT_FOUND,
    )
    .await;
}

#[tokio::test]
async fn an_interval_schedule_runs_sessions_whose_turns_complete() {
    let t = start_host().await;
    let mut v = V1::connect(&t, "sched").await;
    let snapshot = v.subscribe(CATALOGUE).await;
    assert_eq!(snapshot["state"]["entries"], json!([]), "{snapshot}");
    let uri = "ahp-automation:/every-second";
    let mut def = definition(
        "Every second",
        "hello from a schedule",
        json!([interval("tick", 1)]),
    );
    def["disableConditions"] = json!([{"kind": "afterRuns", "max": 2}]);
    let seq = v.dispatch(CATALOGUE, create(uri, def)).await;
    let echo = v.echo(seq).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    let entry = v
        .entry_until(uri, |e| e["runCount"] == 0 && e["nextRunAt"].is_string())
        .await;
    assert_eq!(entry["definition"]["enabled"], true, "{entry}");
    // Two scheduled runs, then the automation disables itself; both runs complete.
    let entry = v
        .entry_until(uri, |e| {
            e["definition"]["enabled"] == false && statuses(e) == ["completed", "completed"]
        })
        .await;
    assert_eq!(entry["runCount"], 2, "{entry}");
    assert!(entry.get("nextRunAt").is_none(), "{entry}");
    for run in entry["runs"].as_array().unwrap() {
        assert_eq!(run["origin"]["kind"], "trigger", "{run}");
        assert_eq!(run["origin"]["triggerId"], "tick", "{run}");
        assert_eq!(run["sessionCount"], 1, "{run}");
        let session = run["primarySession"].as_str().unwrap().to_owned();
        let turns = session_turns(&mut v, &session).await;
        assert_eq!(turns.len(), 1, "{turns:?}");
        assert_eq!(turns[0]["message"]["text"], "hello from a schedule");
        assert_eq!(turns[0]["message"]["origin"]["kind"], "automation");
        assert_eq!(turns[0]["state"], "complete", "{:?}", turns[0]);
    }
    // No third run comes.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let fresh = v.subscribe(CATALOGUE).await;
    assert_eq!(statuses(&fresh["state"]["entries"][0]).len(), 2, "{fresh}");
    assert_eq!(catalogue_mirror(&snapshot, &v.log), fresh["state"]);
}

#[tokio::test]
async fn manual_runs_complete_and_cancelled_runs_end_cancelled() {
    let t = start_host().await;
    let mut v = V1::connect(&t, "manual").await;
    let mut other = V1::connect(&t, "watcher").await;
    let snapshot = other.subscribe(CATALOGUE).await;
    v.subscribe(CATALOGUE).await;
    let quick = "ahp-automation:/quick";
    let slow = "ahp-automation:/slow";
    let seq = v
        .dispatch(
            CATALOGUE,
            create(quick, definition("Quick", "say hi", json!([]))),
        )
        .await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    let seq = v
        .dispatch(
            CATALOGUE,
            create(slow, definition("Slow", "/slow\n/long 400", json!([]))),
        )
        .await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    assert!(other.entry_until(slow, |_| true).await["nextRunAt"].is_null());

    // A manual run; the same requestId gives the same run.
    let params = json!({"channel": ROOT_CHANNEL, "automation": quick, "requestId": "r1"});
    let run = v.request("runAutomation", params.clone()).await;
    let run = run["result"]["resource"].as_str().unwrap().to_owned();
    assert!(run.starts_with("ahp-automation-run:/"), "{run}");
    let again = v.request("runAutomation", params).await;
    assert_eq!(again["result"]["resource"], run.as_str());
    let entry = other
        .entry_until(quick, |e| statuses(e) == ["completed"])
        .await;
    assert_eq!(entry["runs"][0]["origin"]["kind"], "manual", "{entry}");
    let run_snapshot = v.subscribe(&run).await;
    let session = run_snapshot["state"]["primarySession"].as_str().unwrap();
    assert_eq!(run_snapshot["state"]["sessions"], json!([session]));
    let turns = session_turns(&mut v, session).await;
    assert_eq!(turns[0]["state"], "complete", "{turns:?}");
    // The session knows the run that made it.
    let origin = json!({"kind": "automation", "automation": quick, "run": run});
    let session_snapshot = v.subscribe(session).await;
    assert_eq!(
        session_snapshot["state"]["origin"], origin,
        "{session_snapshot}"
    );
    let listed = v
        .request("listSessions", json!({"channel": ROOT_CHANNEL}))
        .await;
    let summary = listed["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["resource"] == session)
        .cloned()
        .unwrap();
    assert_eq!(summary["origin"], origin, "{summary}");
    // A 0.3.0 client sees the session as any other (the origin an unknown member, kept).
    let mut old = Client::ready(&t.host, "old-client").await;
    let listed = old.list_sessions().await;
    let seen = listed
        .items
        .iter()
        .find(|s| s.resource == session)
        .expect("listed");
    assert_eq!(seen.extra.get("origin"), Some(&origin));

    // A run cancelled while its turn streams.
    let params = json!({"channel": ROOT_CHANNEL, "automation": slow, "requestId": "r2"});
    let answer = v.request("runAutomation", params).await;
    let run = answer["result"]["resource"].as_str().unwrap().to_owned();
    let run_snapshot = v.subscribe(&run).await;
    assert_eq!(
        run_snapshot["state"]["lifecycle"]["status"], "running",
        "{run_snapshot}"
    );
    let seq = v
        .dispatch(&run, json!({"type": "automationRun/cancelRequested"}))
        .await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    let ended = v
        .until("the run cancelled", |e| {
            e["channel"] == run.as_str()
                && e["action"]["type"] == "automationRun/lifecycleChanged"
                && e["action"]["lifecycle"]["status"] != "running"
        })
        .await;
    assert_eq!(
        ended["action"]["lifecycle"]["status"], "cancelled",
        "{ended}"
    );
    let session = run_snapshot["state"]["primarySession"].as_str().unwrap();
    let turns = session_turns(&mut v, session).await;
    assert_eq!(turns[0]["state"], "cancelled", "{turns:?}");
    // A cancel of a run that is over is refused.
    let seq = v
        .dispatch(&run, json!({"type": "automationRun/cancelRequested"}))
        .await;
    let refused = v.echo(seq).await;
    assert!(
        refused["rejectionReason"]
            .as_str()
            .is_some_and(|r| r.contains("cancelled")),
        "{refused}"
    );
    let fresh = v.subscribe(&run).await;
    assert_eq!(run_mirror(&run_snapshot, &v.log), fresh["state"]);
    other
        .entry_until(slow, |e| statuses(e) == ["cancelled"])
        .await;
    let fresh = other.subscribe(CATALOGUE).await;
    assert_eq!(catalogue_mirror(&snapshot, &other.log), fresh["state"]);
}

#[tokio::test]
async fn automations_are_updated_and_removed() {
    let t = start_host().await;
    let mut v = V1::connect(&t, "editor").await;
    let snapshot = v.subscribe(CATALOGUE).await;
    let uri = "ahp-automation:/edited";
    let seq = v
        .dispatch(
            CATALOGUE,
            create(uri, definition("Before", "hi", json!([]))),
        )
        .await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    let update = json!({"type": "automation/updateRequested", "resource": uri, "changes": {
        "title": "After",
        "triggers": [{"kind": "schedule", "id": "morning",
                      "schedule": {"expression": "30 9 * * MON-FRI", "timeZone": "Europe/Berlin"},
                      "misfirePolicy": "skip"}]}});
    let seq = v.dispatch(CATALOGUE, update).await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    let entry = v
        .entry_until(uri, |e| e["definition"]["title"] == "After")
        .await;
    assert_eq!(entry["definition"]["message"]["text"], "hi", "{entry}");
    let next = entry["nextRunAt"].as_str().expect("a next run");
    assert!(next.ends_with(":30:00Z"), "{next}");
    // Disabled: no next run.
    let disable = json!({"type": "automation/updateRequested", "resource": uri,
                         "changes": {"enabled": false}});
    v.dispatch(CATALOGUE, disable).await;
    v.entry_until(uri, |e| e.get("nextRunAt").is_none()).await;
    let seq = v
        .dispatch(
            CATALOGUE,
            json!({"type": "automation/removed", "resource": uri}),
        )
        .await;
    let echo = v.echo(seq).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    let fresh = v.subscribe(CATALOGUE).await;
    assert_eq!(fresh["state"]["entries"], json!([]), "{fresh}");
    assert_eq!(catalogue_mirror(&snapshot, &v.log), fresh["state"]);
    // Gone: a run of it is refused.
    let answer = v
        .request(
            "runAutomation",
            json!({"channel": ROOT_CHANNEL, "automation": uri, "requestId": "x"}),
        )
        .await;
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("no automation"));
}

#[tokio::test]
async fn malformed_definitions_are_refused_and_change_nothing() {
    let t = start_host().await;
    let mut v = V1::connect(&t, "bad").await;
    let mut other = V1::connect(&t, "bystander").await;
    let before = other.subscribe(CATALOGUE).await;
    v.subscribe(CATALOGUE).await;
    let uri = "ahp-automation:/good";
    let seq = v
        .dispatch(CATALOGUE, create(uri, definition("Good", "hi", json!([]))))
        .await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    let settled = other.subscribe(CATALOGUE).await;
    let schedule = |expression: &str, tz: &str| {
        json!([{"kind": "schedule", "id": "s",
                "schedule": {"expression": expression, "timeZone": tz}}])
    };
    let cases = [
        (
            create(
                "ahp-automation:/x",
                definition("X", "hi", schedule("61 * * * *", "UTC")),
            ),
            "schedule of trigger `s`",
        ),
        (
            create(
                "ahp-automation:/x",
                definition("X", "hi", schedule("@daily", "UTC")),
            ),
            "exactly five",
        ),
        (
            create(
                "ahp-automation:/x",
                definition("X", "hi", schedule("0 0 L * *", "UTC")),
            ),
            "field 3",
        ),
        (
            create(
                "ahp-automation:/x",
                definition("X", "hi", schedule("* * * * *", "Nowhere/City")),
            ),
            "IANA",
        ),
        (
            create(
                "ahp-automation:/x",
                definition("X", "hi", json!([interval("i", 0)])),
            ),
            "config.seconds",
        ),
        (
            create(uri, definition("Again", "hi", json!([]))),
            "exists already",
        ),
        (
            create("not-an-automation", definition("X", "hi", json!([]))),
            "not an automation",
        ),
        (
            json!({"type": "automation/updateRequested", "resource": uri,
                   "changes": {"triggers": schedule("* * *", "UTC")}}),
            "exactly five",
        ),
        (
            json!({"type": "automation/updateRequested", "resource": uri,
                   "changes": {"disableConditions": [{"kind": "afterRuns", "max": 1},
                                                     {"kind": "afterRuns", "max": 2}]}}),
            "appears twice",
        ),
        (
            json!({"type": "automation/removed", "resource": "ahp-automation:/none"}),
            "no automation",
        ),
        (
            json!({"type": "automation/set", "automation": settled["state"]["entries"][0]}),
            "takes",
        ),
    ];
    for (action, reason) in cases {
        let seq = v.dispatch(CATALOGUE, action.clone()).await;
        let echo = v.echo(seq).await;
        let got = echo["rejectionReason"].as_str().unwrap_or_default();
        assert!(got.contains(reason), "{action}: {echo}");
    }
    let mut message = definition("X", "hi", json!([]));
    message["message"]["origin"]["kind"] = "user".into();
    let seq = v
        .dispatch(CATALOGUE, create("ahp-automation:/y", message))
        .await;
    assert!(v.echo(seq).await["rejectionReason"].is_string());
    v.alive().await;
    other.alive().await;
    let after = other.subscribe(CATALOGUE).await;
    assert_eq!(after["state"], settled["state"]);
    assert_eq!(catalogue_mirror(&before, &other.log), after["state"]);
    // Commands with unknown targets or bad params get typed errors.
    let answer = v
        .request(
            "runAutomation",
            json!({"channel": ROOT_CHANNEL, "automation": "ahp-automation:/none", "requestId": "x"}),
        )
        .await;
    assert_eq!(answer["error"]["code"], errors::NOT_FOUND, "{answer}");
    let answer = v
        .request(
            "fetchAutomationRuns",
            json!({"channel": ROOT_CHANNEL, "automation": uri, "cursor": "999"}),
        )
        .await;
    assert_eq!(answer["error"]["code"], errors::INVALID_PARAMS, "{answer}");
    let answer = v
        .request("runAutomation", json!({"channel": ROOT_CHANNEL}))
        .await;
    assert_eq!(answer["error"]["code"], errors::INVALID_PARAMS, "{answer}");
    v.alive().await;
}

#[tokio::test]
async fn automations_and_runs_survive_a_restart() {
    let t = start_host().await;
    let mut v = V1::connect(&t, "keeper").await;
    v.subscribe(CATALOGUE).await;
    let uri = "ahp-automation:/kept";
    let mut def = definition("Kept", "remember me", json!([interval("tick", 3600)]));
    def["disableConditions"] = json!([{"kind": "afterRuns", "max": 5}]);
    let seq = v.dispatch(CATALOGUE, create(uri, def)).await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    let run = v
        .request(
            "runAutomation",
            json!({"channel": ROOT_CHANNEL, "automation": uri, "requestId": "k1"}),
        )
        .await;
    let run = run["result"]["resource"].as_str().unwrap().to_owned();
    v.entry_until(uri, |e| statuses(e) == ["completed"]).await;
    let catalogue = v.subscribe(CATALOGUE).await;
    let run_state = v.subscribe(&run).await;
    v.c.close().await;
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut v = V1::connect_to(&host, "keeper").await;
    let after = v.subscribe(CATALOGUE).await;
    assert_eq!(after["state"], catalogue["state"]);
    let after_run = v.subscribe(&run).await;
    assert_eq!(after_run["state"], run_state["state"]);
    // The same requestId still names the same run.
    let again = v
        .request(
            "runAutomation",
            json!({"channel": ROOT_CHANNEL, "automation": uri, "requestId": "k1"}),
        )
        .await;
    assert_eq!(again["result"]["resource"], run.as_str());
    // Its session is there too, turn and all.
    let session = after_run["state"]["primarySession"].as_str().unwrap();
    let turns = session_turns(&mut v, session).await;
    assert_eq!(turns[0]["message"]["text"], "remember me");
    host.shutdown().await;
}

#[tokio::test]
async fn older_runs_are_paged_in_by_fetch_automation_runs() {
    let t = start_host().await;
    let mut v = V1::connect(&t, "pager").await;
    let snapshot = v.subscribe(CATALOGUE).await;
    let uri = "ahp-automation:/busy";
    let seq = v
        .dispatch(CATALOGUE, create(uri, definition("Busy", "hi", json!([]))))
        .await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    for n in 0..23 {
        let params =
            json!({"channel": ROOT_CHANNEL, "automation": uri, "requestId": format!("p{n}")});
        let answer = v.request("runAutomation", params).await;
        assert!(answer["result"]["resource"].is_string(), "{answer}");
    }
    // Every run over: the entry shows the newest 20 and a cursor to the others.
    let entry = settled(&mut v, uri, |e| {
        statuses(e).iter().all(|s| s == "completed")
    })
    .await;
    assert_eq!(entry["runs"].as_array().unwrap().len(), 20, "{entry}");
    assert!(entry["runsNextCursor"].is_string(), "{entry}");
    let cursor = entry["runsNextCursor"].clone();
    let answer = v
        .request(
            "fetchAutomationRuns",
            json!({"channel": ROOT_CHANNEL, "automation": uri, "cursor": cursor}),
        )
        .await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    // The page arrives as `automation/set`, before the answer.
    let entry = v
        .log
        .iter()
        .rev()
        .find(|e| e["action"]["type"] == "automation/set")
        .expect("the entry republished")["action"]["automation"]
        .clone();
    assert_eq!(entry["runs"].as_array().unwrap().len(), 23, "{entry}");
    assert!(entry.get("runsNextCursor").is_none(), "{entry}");
    let runs: Vec<&str> = entry["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["resource"].as_str().unwrap())
        .collect();
    let unique: std::collections::HashSet<&&str> = runs.iter().collect();
    assert_eq!(unique.len(), 23, "{runs:?}");
    let fresh = v.subscribe(CATALOGUE).await;
    assert_eq!(catalogue_mirror(&snapshot, &v.log), fresh["state"]);
}

/// Sets the stored next occurrence of every trigger of `uri` to an hour ago, as if the host
/// had been down when they were due.
fn miss_occurrences(data: &std::path::Path, uri: &str) {
    let db = rusqlite::Connection::open(data.join("ahp-host.sqlite3")).unwrap();
    let json: String = db
        .query_row("SELECT json FROM automations WHERE uri = ?1", [uri], |r| {
            r.get(0)
        })
        .unwrap();
    let mut stored: Value = serde_json::from_str(&json).unwrap();
    let past = jiff::Timestamp::now()
        .checked_sub(jiff::SignedDuration::from_hours(1))
        .unwrap()
        .to_string();
    for (_, due) in stored["due"].as_object_mut().unwrap() {
        *due = past.clone().into();
    }
    db.execute(
        "UPDATE automations SET json = ?1 WHERE uri = ?2",
        [stored.to_string(), uri.to_owned()],
    )
    .unwrap();
}

#[tokio::test]
async fn missed_occurrences_are_made_up_once_or_skipped_as_the_policy_says() {
    let t = start_host().await;
    let mut v = V1::connect(&t, "misfire").await;
    v.subscribe(CATALOGUE).await;
    let trigger = |policy: &str| {
        json!([{"kind": "schedule", "id": "hourly", "misfirePolicy": policy,
                "schedule": {"expression": "0 * * * *", "timeZone": "UTC"}}])
    };
    let once = "ahp-automation:/catch-up";
    let skip = "ahp-automation:/skip";
    for (uri, policy) in [(once, "runOnce"), (skip, "skip")] {
        let seq = v
            .dispatch(
                CATALOGUE,
                create(uri, definition("Hourly", "catch up", trigger(policy))),
            )
            .await;
        assert!(v.echo(seq).await.get("rejectionReason").is_none());
    }
    v.c.close().await;
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    miss_occurrences(data.path(), once);
    miss_occurrences(data.path(), skip);
    let host = restart(data.path(), work.path()).await;
    let mut v = V1::connect_to(&host, "misfire").await;
    v.subscribe(CATALOGUE).await;
    // The catch-up run may be over before this client subscribes: polled.
    let entry = settled(&mut v, once, |e| statuses(e) == ["completed"]).await;
    let origin = &entry["runs"][0]["origin"];
    assert_eq!(origin["kind"], "trigger", "{entry}");
    assert_eq!(origin["catchUp"], true, "{entry}");
    assert!(origin["scheduledFor"].is_string(), "{entry}");
    let next = entry["nextRunAt"]
        .as_str()
        .unwrap()
        .parse::<jiff::Timestamp>()
        .unwrap();
    assert!(next > jiff::Timestamp::now(), "{entry}");
    let fresh = v.subscribe(CATALOGUE).await;
    let skipped = fresh["state"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["resource"] == skip)
        .unwrap()
        .clone();
    assert_eq!(skipped["runs"], json!([]), "{skipped}");
    let next = skipped["nextRunAt"]
        .as_str()
        .unwrap()
        .parse::<jiff::Timestamp>()
        .unwrap();
    assert!(next > jiff::Timestamp::now(), "{skipped}");
    host.shutdown().await;
}

#[tokio::test]
async fn the_official_1_0_client_mirrors_the_catalogue_and_a_run() {
    let t = start_host().await;
    let (ws, _) = tokio_tungstenite::connect_async(url_with_token(&t.host))
        .await
        .unwrap();
    let client = Official::connect(v1_support::WsTransport(ws), ClientConfig::default())
        .await
        .expect("connected");
    let init = client
        .initialize("official-auto".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    assert!(init.automations.is_some_and(|a| a.create.is_some()));
    let mut events = client.events();
    let (sub, _) = client.subscribe(CATALOGUE.into()).await.expect("subscribe");
    let snapshot = sub.snapshot.expect("a snapshot");
    let SnapshotState::Automations(catalogue) = snapshot.state else {
        panic!("a catalogue snapshot expected");
    };
    let mut catalogue = *catalogue;
    let uri = "ahp-automation:/official";
    let action =
        serde_json::from_value(create(uri, definition("Official", "hi there", json!([])))).unwrap();
    client
        .dispatch(CATALOGUE.into(), action)
        .await
        .expect("dispatch");
    let run: Value = client
        .request(
            "runAutomation",
            json!({"channel": ROOT_CHANNEL, "automation": uri, "requestId": "o1"}),
        )
        .await
        .expect("runAutomation");
    let run = run["resource"].as_str().unwrap().to_owned();
    let (run_sub, _) = client.subscribe(run.clone()).await.expect("subscribe run");
    let run_snapshot = run_sub.snapshot.expect("a snapshot");
    let run_from = u64::try_from(run_snapshot.from_seq).unwrap();
    let SnapshotState::AutomationRun(run_state) = run_snapshot.state else {
        panic!("a run snapshot expected");
    };
    let mut run_state = *run_state;
    let from = u64::try_from(snapshot.from_seq).unwrap();
    let done = |state: &ahp_types_v1::state::AutomationRunState| {
        serde_json::to_value(&state.lifecycle).unwrap()["status"] == "completed"
    };
    while !done(&run_state) {
        let event = tokio::time::timeout(WAIT, events.recv())
            .await
            .expect("the run completes")
            .expect("connected");
        let SubscriptionEvent::Action(envelope) = event.event else {
            continue;
        };
        assert!(envelope.rejection_reason.is_none(), "{envelope:?}");
        if envelope.channel == CATALOGUE && envelope.server_seq > from {
            ahp_v1::reducers::apply_action_to_automation(&mut catalogue, &envelope.action);
        }
        if envelope.channel == run && envelope.server_seq > run_from {
            ahp_v1::reducers::apply_action_to_automation_run(&mut run_state, &envelope.action);
        }
    }
    // The entry's summary follows the run's lifecycle in the same batch.
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(300), events.recv()).await
    {
        if let SubscriptionEvent::Action(envelope) = event.event {
            if envelope.channel == CATALOGUE {
                ahp_v1::reducers::apply_action_to_automation(&mut catalogue, &envelope.action);
            }
        }
    }
    let (fresh, _) = client.subscribe(CATALOGUE.into()).await.expect("again");
    let SnapshotState::Automations(fresh) = fresh.snapshot.unwrap().state else {
        panic!("a catalogue snapshot expected");
    };
    assert_eq!(
        serde_json::to_value(&catalogue).unwrap(),
        serde_json::to_value(&*fresh).unwrap()
    );
    let (fresh_run, _) = client.subscribe(run.clone()).await.expect("again");
    let SnapshotState::AutomationRun(fresh_run) = fresh_run.snapshot.unwrap().state else {
        panic!("a run snapshot expected");
    };
    assert_eq!(
        serde_json::to_value(&run_state).unwrap(),
        serde_json::to_value(&*fresh_run).unwrap()
    );
    client.shutdown().await;
}

#[tokio::test]
async fn a_killed_host_fails_its_runs_under_way_and_reuses_no_server_seq() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let token = "automations-kill-token-0123456789";
    let host = HostProcess::spawn(data.path(), work.path(), token, &[]);
    let mut v = V1::connect_url(&host.url(), "before-kill").await;
    let before = v.subscribe(CATALOGUE).await;
    let slow = "ahp-automation:/long";
    let seq = v
        .dispatch(
            CATALOGUE,
            create(slow, definition("Long", "/slow\n/long 400", json!([]))),
        )
        .await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    let answer = v
        .request(
            "runAutomation",
            json!({"channel": ROOT_CHANNEL, "automation": slow, "requestId": "k"}),
        )
        .await;
    let run = answer["result"]["resource"].as_str().unwrap().to_owned();
    let running = v.subscribe(&run).await;
    assert_eq!(
        running["state"]["lifecycle"]["status"], "running",
        "{running}"
    );
    let session = running["state"]["primarySession"]
        .as_str()
        .unwrap()
        .to_owned();
    let chat = session.replacen("ahp-session:/", "ahp-chat:/", 1) + "/default";
    v.subscribe(&chat).await;
    // Some of the turn streamed: the kill lands mid-run.
    v.until("the turn to stream", |e| e["channel"] == chat.as_str())
        .await;
    let mut seen = before["fromSeq"].as_u64().unwrap();
    for e in &v.log {
        seen = seen.max(e["serverSeq"].as_u64().unwrap());
    }
    host.kill_9();

    let host = HostProcess::spawn(data.path(), work.path(), token, &[]);
    let mut v = V1::connect_url(&host.url(), "after-kill").await;
    let catalogue = v.subscribe(CATALOGUE).await;
    assert!(
        catalogue["fromSeq"].as_u64().unwrap() >= seen,
        "{catalogue}"
    );
    let ended = v.subscribe(&run).await;
    let lifecycle = &ended["state"]["lifecycle"];
    assert_eq!(lifecycle["status"], "failed", "{ended}");
    assert_eq!(lifecycle["error"]["errorType"], "HostRestarted", "{ended}");
    assert!(lifecycle["startedAt"].is_string(), "{ended}");
    assert_eq!(ended["state"]["sessions"], json!([session]));
    let entry = &catalogue["state"]["entries"][0];
    assert_eq!(statuses(entry), ["failed"], "{entry}");
    // The host goes on: a new run completes, with numbers above every one seen before.
    let quick = json!({"type": "automation/updateRequested", "resource": slow,
                       "changes": {"message": {"text": "done now", "origin": {"kind": "automation"}}}});
    let seq = v.dispatch(CATALOGUE, quick).await;
    let echo = v.echo(seq).await;
    assert!(echo["serverSeq"].as_u64().unwrap() > seen, "{echo}");
    let answer = v
        .request(
            "runAutomation",
            json!({"channel": ROOT_CHANNEL, "automation": slow, "requestId": "k2"}),
        )
        .await;
    assert_ne!(answer["result"]["resource"], run.as_str());
    let entry = v
        .entry_until(slow, |e| statuses(e) == ["completed", "failed"])
        .await;
    assert_eq!(entry["runs"][1]["resource"], run.as_str());
    let fresh = v.subscribe(CATALOGUE).await;
    assert_eq!(catalogue_mirror(&catalogue, &v.log), fresh["state"]);
    host.kill_9();
}
