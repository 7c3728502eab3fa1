//! Automations and runs across a restart, missed occurrences, and a kill -9 mid-run.

use super::*;

#[tokio::test]
async fn automations_and_runs_survive_a_restart() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "keeper").await;
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
    let mut v = V1::connect(&host, "keeper").await;
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
    let mut v = V1::connect(&t.host, "misfire").await;
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
    let mut v = V1::connect(&host, "misfire").await;
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
