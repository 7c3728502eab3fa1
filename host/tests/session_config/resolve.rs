//! `resolveSessionConfig` and `sessionConfigCompletions`.

use super::*;

#[tokio::test]
async fn resolve_answers_the_schema_and_the_values_with_defaults() {
    let t = start_host().await;
    let mut c = Client::connect(&t.host, "resolve").await;
    let init = c.initialize(&[ROOT_CHANNEL]).await;
    assert_eq!(
        init.completion_trigger_characters,
        Some(vec!["@".to_owned(), "/".to_owned()])
    );
    let SnapshotState::Root(root) = &init.snapshots[0].state else {
        panic!("root snapshot first");
    };

    let r = on_root(&mut c, "resolveSessionConfig", json!({}))
        .await
        .unwrap();
    assert_eq!(r["values"], json!({"model": "echo", "mode": "agent"}));
    let schema: SessionConfigSchema = serde_json::from_value(r["schema"].clone()).unwrap();
    assert_eq!(schema.r#type, "object");
    assert_eq!(
        schema.required,
        Some(vec!["model".to_owned(), "mode".to_owned()])
    );
    let model = schema.properties.get("model").expect("model");
    // One list: the models of the agent in root state are the enum of `model`.
    let ids: Vec<String> = root.agents[0].models.iter().map(|m| m.id.clone()).collect();
    assert_eq!(model.r#enum.as_ref(), Some(&ids));
    assert_eq!(ids, ["echo", "echo-lite"]);
    let names: Vec<String> = root.agents[0]
        .models
        .iter()
        .map(|m| m.name.clone())
        .collect();
    assert_eq!(model.enum_labels.as_ref(), Some(&names));
    assert_eq!(model.default, Some(json!("echo")));
    assert_eq!(model.session_mutable, Some(false));
    let mode = schema.properties.get("mode").expect("mode");
    assert_eq!(
        mode.r#enum.as_deref(),
        Some(&["agent".to_owned(), "ask".to_owned()][..])
    );
    assert_eq!(mode.enum_descriptions.as_ref().map(Vec::len), Some(2));
    assert_eq!(mode.session_mutable, Some(true));
    assert_eq!(schema.properties.len(), 2);

    // Given values are kept, the rest defaulted; provider and a directory inside are fine.
    let sub = ahp_host::resources::file_uri(&t.work.path().canonicalize().unwrap().join("sub"));
    let r = on_root(
        &mut c,
        "resolveSessionConfig",
        json!({"provider": "builtin", "workingDirectory": sub, "config": {"mode": "ask"}}),
    )
    .await
    .unwrap();
    assert_eq!(r["values"], json!({"model": "echo", "mode": "ask"}));
    let r = on_root(
        &mut c,
        "resolveSessionConfig",
        json!({"config": {"model": "echo-lite"}}),
    )
    .await
    .unwrap();
    assert_eq!(r["values"], json!({"model": "echo-lite", "mode": "agent"}));
}

#[tokio::test]
async fn resolve_refuses_what_create_session_would_refuse() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "resolve-bad").await;
    let outside = tempfile::tempdir().unwrap();
    let outside = ahp_host::resources::file_uri(outside.path());
    let cases = [
        (
            json!({"config": {"colour": "red"}}),
            errors::INVALID_PARAMS,
            "unknown property `colour`",
        ),
        (
            json!({"config": {"mode": true}}),
            errors::INVALID_PARAMS,
            "`mode` must be a string, not a boolean",
        ),
        (
            json!({"config": {"mode": "edit"}}),
            errors::INVALID_PARAMS,
            "`mode`: `edit` is not one of `agent`, `ask`",
        ),
        (
            json!({"config": {"model": "gpt-9"}}),
            errors::INVALID_PARAMS,
            "`gpt-9` is not one of `echo`, `echo-lite`",
        ),
        (
            json!({"config": [1]}),
            errors::INVALID_PARAMS,
            "invalid params",
        ),
        (
            json!({"provider": "other"}),
            errors::PROVIDER_NOT_FOUND,
            "unknown provider",
        ),
        (
            json!({"workingDirectory": outside}),
            errors::PERMISSION_DENIED,
            "outside",
        ),
    ];
    for (params, code, says) in cases {
        let e = on_root(&mut c, "resolveSessionConfig", params.clone())
            .await
            .expect_err(&format!("{params} is refused"));
        assert_eq!(e.code, code, "{params}: {e:?}");
        assert!(e.message.contains(says), "{params}: {}", e.message);
    }
    let e = c
        .expect_error(
            "resolveSessionConfig",
            json!({"channel": "ahp-session:/x"}),
            errors::INVALID_PARAMS,
        )
        .await;
    assert!(e.message.contains("`channel`"), "{}", e.message);
}

/// The items of `sessionConfigCompletions` for `property` and `query`, as (value, label).
async fn value_items(c: &mut Client, property: &str, query: Option<&str>) -> Vec<(String, String)> {
    let mut params = json!({"property": property});
    if let Some(q) = query {
        params["query"] = json!(q);
    }
    let r = on_root(c, "sessionConfigCompletions", params)
        .await
        .unwrap();
    let r: SessionConfigCompletionsResult = serde_json::from_value(r).unwrap();
    r.items.into_iter().map(|i| (i.value, i.label)).collect()
}

#[tokio::test]
async fn session_config_completions_filter_a_property_s_values() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "values").await;
    let pair = |v: &str, l: &str| (v.to_owned(), l.to_owned());
    assert_eq!(
        value_items(&mut c, "model", None).await,
        [pair("echo", "Echo"), pair("echo-lite", "Echo Lite")]
    );
    assert_eq!(
        value_items(&mut c, "model", Some("ECHO-")).await,
        [pair("echo-lite", "Echo Lite")]
    );
    // In the label too; prefix matches first.
    assert_eq!(
        value_items(&mut c, "model", Some("lite")).await,
        [pair("echo-lite", "Echo Lite")]
    );
    assert!(value_items(&mut c, "model", Some("gpt")).await.is_empty());
    assert_eq!(
        value_items(&mut c, "mode", Some("")).await,
        [pair("agent", "Agent"), pair("ask", "Ask")]
    );
    assert_eq!(
        value_items(&mut c, "mode", Some("as")).await,
        [pair("ask", "Ask")]
    );
    let r = on_root(
        &mut c,
        "sessionConfigCompletions",
        json!({"property": "mode"}),
    )
    .await
    .unwrap();
    assert!(r["items"][1]["description"]
        .as_str()
        .unwrap()
        .contains("without tools"));

    for (params, code) in [
        (json!({"property": "colour"}), errors::INVALID_PARAMS),
        (json!({}), errors::INVALID_PARAMS),
        (
            json!({"property": "mode", "provider": "x"}),
            errors::PROVIDER_NOT_FOUND,
        ),
    ] {
        let e = on_root(&mut c, "sessionConfigCompletions", params.clone())
            .await
            .expect_err(&format!("{params} is refused"));
        assert_eq!(e.code, code, "{params}: {e:?}");
    }
    c.expect_error(
        "sessionConfigCompletions",
        json!({"channel": "ahp-session:/x", "property": "mode"}),
        errors::INVALID_PARAMS,
    )
    .await;
}
