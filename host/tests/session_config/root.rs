//! The host configuration in root state (`config`): the defaults a new session's config starts
//! from, changed by a client's `root/configChanged` (checked against its schema), and kept
//! across a restart.

use super::*;

/// Root `config.values` as JSON.
fn root_values(root: &RootState) -> Value {
    Value::Object(
        root.config
            .as_ref()
            .expect("root state has a config")
            .values
            .clone(),
    )
}

fn config_changed(config: Value, replace: Option<bool>) -> StateAction {
    StateAction::RootConfigChanged(RootConfigChangedAction {
        config: serde_json::from_value(config).unwrap(),
        replace,
        extra: Default::default(),
    })
}

/// The next root envelope that answers `seq` of this client: `Ok` echo or `Err` reason.
async fn outcome(c: &mut Client, seq: u64) -> Result<ActionEnvelope, String> {
    loop {
        let e = c.envelope().await;
        if e.channel != ROOT_CHANNEL || e.origin.as_ref().map(|o| o.client_seq) != Some(seq) {
            continue;
        }
        return match e.rejection_reason.clone() {
            Some(reason) => Err(reason),
            None => Ok(e),
        };
    }
}

async fn root_state(c: &mut Client) -> RootState {
    let snapshot = c.subscribe(ROOT_CHANNEL).await;
    serde_json::from_value(serde_json::to_value(snapshot.state).unwrap()).unwrap()
}

#[tokio::test]
async fn root_config_sets_new_sessions_defaults_is_checked_and_survives_a_restart() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let host = restart(data.path(), work.path()).await;
    let mut c = Client::ready(&host, "root-config").await;
    let root = root_state(&mut c).await;
    assert_eq!(
        root_values(&root),
        json!({"model": "echo", "mode": "agent"})
    );
    let schema = &root.config.as_ref().unwrap().schema;
    assert_eq!(
        schema.properties.keys().collect::<Vec<_>>(),
        ["mode", "model"],
        "one default per session config property"
    );

    // Refused: an unknown property, a value outside the enum, a replace that drops one.
    for (bad, says) in [
        (
            config_changed(json!({"colour": "red"}), None),
            "unknown property `colour`",
        ),
        (
            config_changed(json!({"mode": "edit"}), None),
            "`edit` is not one of",
        ),
        (config_changed(json!({"mode": 3}), None), "must be a string"),
        (
            config_changed(json!({"mode": "ask"}), Some(true)),
            "`model` is required",
        ),
    ] {
        let seq = c.dispatch(ROOT_CHANNEL, bad).await;
        let reason = outcome(&mut c, seq).await.expect_err("refused");
        assert!(reason.contains(says), "{reason}");
    }
    // Accepted: new sessions start in `ask` mode with `echo-lite` unless they say otherwise.
    let seq = c
        .dispatch(
            ROOT_CHANNEL,
            config_changed(json!({"mode": "ask", "model": "echo-lite"}), None),
        )
        .await;
    outcome(&mut c, seq).await.expect("applied");
    let resolved = on_root(&mut c, "resolveSessionConfig", json!({}))
        .await
        .unwrap();
    assert_eq!(
        resolved["values"],
        json!({"model": "echo-lite", "mode": "ask"})
    );
    create(&mut c, "ahp-session:/defaults", json!({}))
        .await
        .unwrap();
    let state: SessionState = serde_json::from_value(
        serde_json::to_value(c.subscribe("ahp-session:/defaults").await.state).unwrap(),
    )
    .unwrap();
    assert_eq!(values(&state), json!({"model": "echo-lite", "mode": "ask"}));
    assert_eq!(
        state.summary.model.as_ref().map(|m| m.id.as_str()),
        Some("echo-lite")
    );
    create(
        &mut c,
        "ahp-session:/own",
        json!({"config": {"mode": "agent"}}),
    )
    .await
    .unwrap();
    let own: SessionState = serde_json::from_value(
        serde_json::to_value(c.subscribe("ahp-session:/own").await.state).unwrap(),
    )
    .unwrap();
    assert_eq!(
        values(&own)["mode"],
        "agent",
        "what createSession says wins"
    );
    c.close().await;
    host.shutdown().await;

    // After a restart the host configuration is as it was.
    let host = restart(data.path(), work.path()).await;
    let mut c = Client::ready(&host, "root-config-2").await;
    let root = root_state(&mut c).await;
    assert_eq!(
        root_values(&root),
        json!({"model": "echo-lite", "mode": "ask"})
    );
    c.close().await;
    host.shutdown().await;
}
