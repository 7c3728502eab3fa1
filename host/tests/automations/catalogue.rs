//! The catalogue: trigger definitions, automations created, updated and removed, malformed
//! definitions refused, the agent's lock.

use super::*;

#[tokio::test]
async fn trigger_definitions_and_capabilities_are_offered() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "caps").await;
    let init = v.init.clone();
    let caps = &init["result"]["automations"];
    for key in ["create", "schedules", "runCancellation"] {
        assert!(caps[key].is_object(), "{init}");
    }
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
async fn automations_are_updated_and_removed() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "editor").await;
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
    let mut v = V1::connect(&t.host, "bad").await;
    let mut other = V1::connect(&t.host, "bystander").await;
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
async fn a_locked_agent_runs_no_automation_for_a_client_that_did_not_unlock_it() {
    use ahp_host::agent_auth::{AgentAuthConfig, DEFAULT_RESOURCE};
    const TOKEN: &str = "automation-agent-token-0123456789";
    let secrets = tempfile::tempdir().unwrap();
    let file = secrets.path().join("agent-token");
    std::fs::write(&file, format!("{TOKEN}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let t = start_host_with(|c| {
        c.agent_auth = Some(AgentAuthConfig {
            token_file: file,
            resource: DEFAULT_RESOURCE.into(),
            ttl: Duration::from_secs(3600),
        })
    })
    .await;
    let mut owner = V1::connect(&t.host, "unlocked").await;
    let auth = owner
        .request(
            "authenticate",
            json!({"channel": ROOT_CHANNEL, "resource": DEFAULT_RESOURCE, "token": TOKEN}),
        )
        .await;
    assert!(auth.get("result").is_some(), "{auth}");
    owner.subscribe(CATALOGUE).await;
    let mut stranger = V1::connect(&t.host, "locked-out").await;
    let before = stranger.subscribe(CATALOGUE).await;
    let uri = "ahp-automation:/guarded";
    let seq = stranger
        .dispatch(
            CATALOGUE,
            create(uri, definition("Guarded", "hi", json!([]))),
        )
        .await;
    let refused = stranger.echo(seq).await;
    assert!(
        refused["rejectionReason"]
            .as_str()
            .is_some_and(|r| r.contains("authentication required")),
        "{refused}"
    );
    let seq = owner
        .dispatch(
            CATALOGUE,
            create(uri, definition("Guarded", "hi", json!([]))),
        )
        .await;
    assert!(owner.echo(seq).await.get("rejectionReason").is_none());
    let answer = stranger
        .request(
            "runAutomation",
            json!({"channel": ROOT_CHANNEL, "automation": uri, "requestId": "s"}),
        )
        .await;
    assert_eq!(answer["error"]["code"], errors::AUTH_REQUIRED, "{answer}");
    let answer = owner
        .request(
            "runAutomation",
            json!({"channel": ROOT_CHANNEL, "automation": uri, "requestId": "o"}),
        )
        .await;
    assert!(answer["result"]["resource"].is_string(), "{answer}");
    stranger
        .entry_until(uri, |e| statuses(e) == ["completed"])
        .await;
    let fresh = stranger.subscribe(CATALOGUE).await;
    assert_eq!(catalogue_mirror(&before, &stranger.log), fresh["state"]);
}
