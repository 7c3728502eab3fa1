//! `createSession.config`, `session/configChanged`, `session/modelChanged`, and the config
//! across a restart.

use super::*;

fn config_changed(config: Value, replace: Option<bool>) -> StateAction {
    let mut action = json!({"type": "session/configChanged", "config": config});
    if let Some(r) = replace {
        action["replace"] = json!(r);
    }
    serde_json::from_value(action).unwrap()
}

fn model_changed(id: &str) -> StateAction {
    serde_json::from_value(json!({"type": "session/modelChanged", "model": {"id": id}})).unwrap()
}

/// What a turn of `text` produced: its envelopes, approving any tool call on the way.
async fn turn(c: &mut Client, s: &str, id: &str, text: &str) -> Vec<ActionEnvelope> {
    c.send_message(s, id, text).await;
    let mut out = Vec::new();
    loop {
        let e = c.envelope().await;
        if e.channel != s {
            continue;
        }
        if let StateAction::SessionToolCallReady(r) = &e.action {
            let call = r.tool_call_id.clone();
            c.dispatch(s, approve(id, &call)).await;
        }
        let done = ends_turn(&e, id);
        out.push(e);
        if done {
            return out;
        }
    }
}

/// The next envelope on session `s` (root envelopes skipped).
async fn next_on(c: &mut Client, s: &str) -> ActionEnvelope {
    loop {
        let e = c.envelope().await;
        if e.channel == s {
            return e;
        }
    }
}

fn has(envs: &[ActionEnvelope], pred: impl Fn(&StateAction) -> bool) -> bool {
    envs.iter().any(|e| pred(&e.action))
}

fn tool_started(a: &StateAction) -> bool {
    matches!(a, StateAction::SessionToolCallStart(_))
}

fn reasoned(a: &StateAction) -> bool {
    matches!(a, StateAction::SessionReasoning(_))
}

/// The text the agent streamed in `envs`.
fn said(envs: &[ActionEnvelope]) -> String {
    envs.iter()
        .filter_map(|e| match &e.action {
            StateAction::SessionDelta(d) => Some(d.content.as_str()),
            _ => None,
        })
        .collect()
}

fn usage_model(envs: &[ActionEnvelope]) -> Option<String> {
    envs.iter().find_map(|e| match &e.action {
        StateAction::SessionUsage(u) => u.usage.model.clone(),
        _ => None,
    })
}

#[tokio::test]
async fn create_session_stores_the_resolved_config_and_the_agent_follows_it() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "creator").await;
    let resolved = on_root(
        &mut c,
        "resolveSessionConfig",
        json!({"config": {"mode": "ask"}}),
    )
    .await
    .unwrap();
    let (ask, plain, lite) = (
        "ahp-session:/ask",
        "ahp-session:/plain",
        "ahp-session:/lite",
    );
    // What `resolveSessionConfig` answered is what `createSession` takes.
    create(&mut c, ask, json!({"config": resolved["values"]}))
        .await
        .unwrap();
    create(&mut c, plain, json!({})).await.unwrap();
    create(&mut c, lite, json!({"model": {"id": "echo-lite"}}))
        .await
        .unwrap();

    let state = session_state(&c.subscribe(ask).await);
    let config = state.config.as_ref().unwrap();
    assert_eq!(
        serde_json::to_value(&config.schema).unwrap(),
        resolved["schema"]
    );
    assert_eq!(values(&state), json!({"model": "echo", "mode": "ask"}));
    assert_eq!(state.summary.model.as_ref().unwrap().id, "echo");
    let state = session_state(&c.subscribe(plain).await);
    assert_eq!(values(&state), json!({"model": "echo", "mode": "agent"}));
    let state = session_state(&c.subscribe(lite).await);
    assert_eq!(
        values(&state),
        json!({"model": "echo-lite", "mode": "agent"})
    );
    assert_eq!(state.summary.model.as_ref().unwrap().id, "echo-lite");
    // `config.model` alone picks the model too, and both may name the same one.
    for (uri, params) in [
        (
            "ahp-session:/by-config",
            json!({"config": {"model": "echo-lite"}}),
        ),
        (
            "ahp-session:/by-both",
            json!({"config": {"model": "echo-lite"}, "model": {"id": "echo-lite"}}),
        ),
    ] {
        create(&mut c, uri, params).await.unwrap();
        let state = host_state(&t.host, uri).await;
        assert_eq!(
            state.summary.model.as_ref().unwrap().id,
            "echo-lite",
            "{uri}"
        );
        assert_eq!(values(&state)["model"], json!("echo-lite"), "{uri}");
    }

    // `ask` mode: the tool directive is said, not run; `agent` mode runs it.
    let envs = turn(&mut c, ask, "t-ask", "/tool list\nhello").await;
    assert!(!has(&envs, tool_started), "no tool call in ask mode");
    assert!(said(&envs).contains("`ask` mode"), "{}", said(&envs));
    let envs = turn(&mut c, plain, "t-plain", "/tool list\nhello").await;
    assert!(has(&envs, tool_started), "agent mode runs the tool");
    assert!(has(&envs, reasoned));
    assert_eq!(usage_model(&envs).as_deref(), Some("echo"));
    // `echo-lite`: no reasoning part.
    let envs = turn(&mut c, lite, "t-lite", "hello").await;
    assert!(!has(&envs, reasoned));
    assert!(said(&envs).contains("hello"));
    assert_eq!(usage_model(&envs).as_deref(), Some("echo-lite"));
}

#[tokio::test]
async fn create_session_with_an_invalid_config_creates_nothing() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "refused").await;
    let s = "ahp-session:/refused";
    let cases = [
        (
            json!({"config": {"colour": "red"}}),
            "config: unknown property `colour`",
        ),
        (
            json!({"config": {"mode": 1}}),
            "config: `mode` must be a string, not a number",
        ),
        (
            json!({"config": {"mode": null}}),
            "`mode` must be a string, not null",
        ),
        (
            json!({"config": {"mode": "edit"}}),
            "config: `mode`: `edit` is not one of `agent`, `ask`",
        ),
        (
            json!({"config": {"model": "gpt-9"}}),
            "`model`: `gpt-9` is not one of",
        ),
        (
            json!({"config": {"model": "echo"}, "model": {"id": "echo-lite"}}),
            "config.model (`echo`) and model.id (`echo-lite`) name different models",
        ),
        (
            json!({"model": {"id": "gpt-9"}}),
            "model: unknown model `gpt-9`",
        ),
        (json!({"config": "ask"}), "invalid params"),
        (
            json!({"config": {"mode": "ask", "extra": {}}}),
            "unknown property `extra`",
        ),
    ];
    for (params, says) in cases {
        let e = create(&mut c, s, params.clone())
            .await
            .expect_err(&format!("{params} is refused"));
        assert_eq!(e.code, errors::INVALID_PARAMS, "{params}: {e:?}");
        assert!(e.message.contains(says), "{params}: {}", e.message);
        assert!(session_uris(&mut c).await.is_empty(), "{params}");
        c.expect_error(
            "subscribe",
            json!({"channel": s}),
            errors::SESSION_NOT_FOUND,
        )
        .await;
    }
    // No `root/sessionAdded` went out for them: the first is for the session created now.
    create(&mut c, s, json!({"config": {"mode": "ask"}}))
        .await
        .unwrap();
    let added = c.notification_named("root/sessionAdded").await;
    assert_eq!(added["params"]["summary"]["resource"], json!(s));
    assert_eq!(session_uris(&mut c).await, [s]);
}

#[tokio::test]
async fn config_changed_is_checked_against_the_schema() {
    let t = start_host().await;
    let s = "ahp-session:/changes";
    let (mut a, mut b) = two_clients_on(&t.host, s).await;

    // Valid: applied and broadcast.
    let seq = a
        .dispatch(s, config_changed(json!({"mode": "ask"}), None))
        .await;
    let e = next_on(&mut a, s).await;
    assert!(e.rejection_reason.is_none(), "{e:?}");
    assert_eq!(e.origin.as_ref().unwrap().client_seq, seq);
    let seen = next_on(&mut b, s).await;
    assert!(matches!(seen.action, StateAction::SessionConfigChanged(_)));
    assert_eq!(
        values(&host_state(&t.host, s).await),
        json!({"model": "echo", "mode": "ask"})
    );

    // Invalid: rejected to the dispatcher only, nothing changes.
    let before = comparable(&host_state(&t.host, s).await);
    let refused = [
        (config_changed(json!({"mode": "edit"}), None), "`mode`: `edit` is not one of"),
        (config_changed(json!({"mode": 2}), None), "`mode` must be a string"),
        (config_changed(json!({"colour": "red"}), None), "unknown property `colour`"),
        (
            config_changed(json!({"model": "echo-lite"}), None),
            "`model` cannot change after the session is created; change the model with session/modelChanged",
        ),
        (config_changed(json!({"mode": "agent"}), Some(true)), "`model` is required"),
        (model_changed("gpt-9"), "unknown model `gpt-9`"),
    ];
    for (action, says) in refused {
        let seq = a.dispatch(s, action.clone()).await;
        let e = next_on(&mut a, s).await;
        assert_eq!(e.origin.as_ref().unwrap().client_seq, seq);
        let reason = e
            .rejection_reason
            .unwrap_or_else(|| panic!("{action:?} applied"));
        assert!(reason.contains(says), "{action:?}: {reason}");
    }
    assert_eq!(comparable(&host_state(&t.host, s).await), before);

    // `replace` with every property, and an unchanged `model`, are fine.
    a.dispatch(
        s,
        config_changed(json!({"model": "echo", "mode": "agent"}), Some(true)),
    )
    .await;
    assert!(next_on(&mut a, s).await.rejection_reason.is_none());
    a.dispatch(
        s,
        config_changed(json!({"model": "echo", "mode": "ask"}), None),
    )
    .await;
    assert!(next_on(&mut a, s).await.rejection_reason.is_none());

    // A model change moves `config.values.model` with it: a server `configChanged` follows.
    a.dispatch(s, model_changed("echo-lite")).await;
    let e = next_on(&mut a, s).await;
    assert!(e.rejection_reason.is_none(), "{e:?}");
    assert!(matches!(e.action, StateAction::SessionModelChanged(_)));
    let e = next_on(&mut a, s).await;
    assert!(e.origin.is_none(), "the host's own action");
    let StateAction::SessionConfigChanged(mirror) = &e.action else {
        panic!("expected the mirrored config, got {e:?}");
    };
    assert_eq!(
        Value::Object(mirror.config.clone()),
        json!({"model": "echo-lite"})
    );
    let state = host_state(&t.host, s).await;
    assert_eq!(values(&state), json!({"model": "echo-lite", "mode": "ask"}));
    assert_eq!(state.summary.model.as_ref().unwrap().id, "echo-lite");
}

#[tokio::test]
async fn the_config_survives_a_restart() {
    let t = start_host().await;
    let s = "ahp-session:/kept";
    let mut c = Client::ready(&t.host, "keeper").await;
    create(&mut c, s, json!({})).await.unwrap();
    c.subscribe(s).await;
    // Both changes are log entries after the session's head: the restart replays them.
    c.dispatch(s, config_changed(json!({"mode": "ask"}), None))
        .await;
    c.dispatch(s, model_changed("echo-lite")).await;
    c.envelopes_until(|e| {
        e.origin.is_none() && matches!(e.action, StateAction::SessionConfigChanged(_))
    })
    .await;
    let before = host_state(&t.host, s).await;
    assert_eq!(
        values(&before),
        json!({"model": "echo-lite", "mode": "ask"})
    );
    c.close().await;

    let TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let after = host_state(&host, s).await;
    assert_eq!(after.config, before.config);
    assert_eq!(after.summary.model, before.summary.model);

    // And the agent still follows it: ask mode, no reasoning.
    let mut c = Client::ready(&host, "keeper").await;
    c.subscribe(s).await;
    let envs = turn(&mut c, s, "after", "/tool list").await;
    assert!(!has(&envs, tool_started));
    assert!(!has(&envs, reasoned));
    // Still checked after the restart.
    c.dispatch(s, config_changed(json!({"mode": "edit"}), None))
        .await;
    assert!(next_on(&mut c, s).await.rejection_reason.is_some());
    host.shutdown().await;
}
