//! Runs: from an interval schedule and `runAutomation`, cancelled, paged in, and the official
//! 1.0 client's mirror of them.

use super::*;

#[tokio::test]
async fn an_interval_schedule_runs_sessions_whose_turns_complete() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "sched").await;
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
    let mut v = V1::connect(&t.host, "manual").await;
    let mut other = V1::connect(&t.host, "watcher").await;
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
async fn older_runs_are_paged_in_by_fetch_automation_runs() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "pager").await;
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

#[tokio::test]
async fn a_cron_schedule_fires_on_the_minute() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "cron").await;
    v.subscribe(CATALOGUE).await;
    let uri = "ahp-automation:/every-minute";
    let trigger = json!([{"kind": "schedule", "id": "minute",
                          "schedule": {"expression": "* * * * *", "timeZone": "Asia/Kolkata"}}]);
    let mut def = definition("Every minute", "tick", trigger);
    def["disableConditions"] = json!([{"kind": "afterRuns", "max": 1}]);
    let seq = v.dispatch(CATALOGUE, create(uri, def)).await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    let entry = v.entry_until(uri, |e| e["nextRunAt"].is_string()).await;
    let next: jiff::Timestamp = entry["nextRunAt"].as_str().unwrap().parse().unwrap();
    assert_eq!(next.as_second() % 60, 0, "{entry}");
    // Polled: nothing else arrives while the minute passes.
    let entry = settled(&mut v, uri, |e| statuses(e) == ["completed"]).await;
    let run = &entry["runs"][0];
    assert_eq!(run["origin"]["scheduledFor"], next.to_string(), "{entry}");
    let created: jiff::Timestamp = run["lifecycle"]["createdAt"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let late = created.duration_since(next);
    assert!(
        late >= jiff::SignedDuration::ZERO && late < jiff::SignedDuration::from_secs(5),
        "{entry}"
    );
    assert_eq!(entry["definition"]["enabled"], false, "{entry}");
}

#[tokio::test]
async fn the_oldest_runs_beyond_the_kept_history_go_with_their_sessions() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "history").await;
    v.subscribe(CATALOGUE).await;
    let uri = "ahp-automation:/many";
    let seq = v
        .dispatch(CATALOGUE, create(uri, definition("Many", "hi", json!([]))))
        .await;
    assert!(v.echo(seq).await.get("rejectionReason").is_none());
    let kept = 200;
    let mut first = None;
    for n in 0..=kept {
        let params =
            json!({"channel": ROOT_CHANNEL, "automation": uri, "requestId": format!("h{n}")});
        let answer = v.request("runAutomation", params).await;
        let run = answer["result"]["resource"].as_str().unwrap().to_owned();
        first.get_or_insert(run);
        // One at a time: the oldest is over when the last starts.
        let run = answer["result"]["resource"].clone();
        settled(&mut v, uri, |e| {
            e["runs"][0]["resource"] == run && statuses(e)[0] == "completed"
        })
        .await;
    }
    let first = first.unwrap();
    let gone = v.request("subscribe", json!({"channel": first})).await;
    assert_eq!(gone["error"]["code"], errors::NOT_FOUND, "{gone}");
    let listed = v
        .request("listSessions", json!({"channel": ROOT_CHANNEL}))
        .await;
    let sessions = listed["result"]["items"].as_array().unwrap().len();
    assert_eq!(sessions, kept, "{sessions}");
    let mut cursor = Value::Null;
    let seen = loop {
        let entry = settled(&mut v, uri, |_| true).await;
        let seen = entry["runs"].as_array().unwrap().len();
        if entry["runsNextCursor"].is_null() || entry["runsNextCursor"] == cursor {
            break seen;
        }
        cursor = entry["runsNextCursor"].clone();
        let params = json!({"channel": ROOT_CHANNEL, "automation": uri, "cursor": cursor});
        assert!(v
            .request("fetchAutomationRuns", params)
            .await
            .get("result")
            .is_some());
    };
    assert_eq!(seen, kept);
}
