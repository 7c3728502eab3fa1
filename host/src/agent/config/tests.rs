use super::*;
use serde_json::json;

fn provider_models() -> Vec<SessionModelInfo> {
    ["small", "large"]
        .iter()
        .map(|id| SessionModelInfo {
            id: (*id).into(),
            provider: "local".into(),
            name: id.to_uppercase(),
            ..Default::default()
        })
        .collect()
}

#[test]
fn a_model_agent_session_takes_its_own_models_not_the_builtin_default() {
    let defaults = root_config(None).values;
    let models = provider_models();
    let (state, model) = for_model_session(None, None, &defaults, &models).unwrap();
    assert_eq!(
        model.id, "small",
        "the agent's first model, not the host's `echo`"
    );
    assert_eq!(state.values[MODEL], "small");
    assert_eq!(state.values[MODE], "agent");
    let picked = ModelSelection {
        id: "large".into(),
        config: None,
        extra: Default::default(),
    };
    let (state, _) = for_model_session(None, Some(picked), &defaults, &models).unwrap();
    assert_eq!(state.values[MODEL], "large");
    let echo = ModelSelection {
        id: "echo".into(),
        config: None,
        extra: Default::default(),
    };
    let err = for_model_session(None, Some(echo), &defaults, &models).unwrap_err();
    assert!(
        err.contains("`echo` is not one of `small`, `large`"),
        "{err}"
    );
    let config = obj(json!({"model": "small"}));
    let other = ModelSelection {
        id: "large".into(),
        config: None,
        extra: Default::default(),
    };
    assert!(for_model_session(Some(&config), Some(other), &defaults, &models).is_err());
    // An agent that knows no model takes any, but one must be named.
    assert!(for_model_session(None, None, &defaults, &[]).is_err());
    let any = ModelSelection {
        id: "whatever:7b".into(),
        config: None,
        extra: Default::default(),
    };
    let (state, _) = for_model_session(None, Some(any), &defaults, &[]).unwrap();
    assert_eq!(state.values[MODEL], "whatever:7b");
    let items = value_items_in(&schema_for(&models), MODEL, "lar").unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].value, "large");
}

#[test]
fn model_changes_are_checked_against_the_sessions_agent() {
    let defaults = root_config(None).values;
    let (config, _) = for_model_session(None, None, &defaults, &provider_models()).unwrap();
    assert!(check_model_of("local", Some(&config), "large").is_ok());
    let err = check_model_of("local", Some(&config), "echo").unwrap_err();
    assert!(
        err.contains("the agent `local` has `small`, `large`"),
        "{err}"
    );
    let builtin = crate::agent::PROVIDER;
    assert!(check_model_of(builtin, None, "echo").is_ok());
    assert!(check_model_of(builtin, None, "large").is_err());
    let (any, _) = for_model_session(
        None,
        Some(ModelSelection {
            id: "m".into(),
            config: None,
            extra: Default::default(),
        }),
        &defaults,
        &[],
    )
    .unwrap();
    assert!(check_model_of("local", Some(&any), "anything").is_ok());
}

fn obj(v: Value) -> JsonObject {
    v.as_object().unwrap().clone()
}

#[test]
fn resolve_fills_defaults_and_refuses_bad_values() {
    assert_eq!(
        Value::Object(resolve(None, &JsonObject::new()).unwrap()),
        json!({"model": "echo", "mode": "agent"})
    );
    assert_eq!(
        resolve(Some(&obj(json!({"mode": "ask"}))), &JsonObject::new())
            .unwrap()
            .get(MODE),
        Some(&json!("ask"))
    );
    for (bad, says) in [
        (json!({"colour": "red"}), "unknown property `colour`"),
        (json!({"mode": 3}), "`mode` must be a string, not a number"),
        (json!({"mode": "edit"}), "`mode`: `edit` is not one of"),
        (
            json!({"model": "gpt"}),
            "`model`: `gpt` is not one of `echo`, `echo-lite`",
        ),
    ] {
        let e = resolve(Some(&obj(bad.clone())), &JsonObject::new()).unwrap_err();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

#[test]
fn new_sessions_agree_on_the_model() {
    let echo = ModelSelection {
        id: "echo".into(),
        ..Default::default()
    };
    let (state, model) = for_new_session(None, Some(echo.clone()), &JsonObject::new()).unwrap();
    assert_eq!(
        (state.values[MODEL].clone(), model.id),
        (json!("echo"), "echo".into())
    );
    let other = ModelSelection {
        id: "nope".into(),
        ..Default::default()
    };
    assert!(for_new_session(None, Some(other), &JsonObject::new())
        .unwrap_err()
        .contains("unknown model"));
    assert!(for_new_session(
        Some(&obj(json!({"model": "gpt"}))),
        Some(echo),
        &JsonObject::new()
    )
    .unwrap_err()
    .starts_with("config: "));
}

#[test]
fn changes_respect_session_mutable_and_required() {
    let (config, _) = for_new_session(None, None, &JsonObject::new()).unwrap();
    let change = |v: Value, replace: Option<bool>| SessionConfigChangedAction {
        config: obj(v),
        replace,
        extra: Default::default(),
    };
    assert!(check_change(&config, &change(json!({"mode": "ask"}), None)).is_ok());
    assert!(check_change(
        &config,
        &change(json!({"mode": "ask", "model": "echo"}), Some(true))
    )
    .is_ok());
    let e = check_change(&config, &change(json!({"mode": "ask"}), Some(true))).unwrap_err();
    assert!(e.contains("`model` is required"), "{e}");
    let e = check_change(&config, &change(json!({"model": "echo-lite"}), None)).unwrap_err();
    assert!(e.contains("session/modelChanged"), "{e}");
    assert!(check_change(&config, &change(json!({"mode": "edit"}), None)).is_err());
}

#[test]
fn root_config_defaults_new_sessions_and_checks_changes() {
    let root = root_config(None);
    assert_eq!(
        Value::Object(root.values.clone()),
        json!({"model": "echo", "mode": "agent"})
    );
    assert_eq!(
        root.schema
            .properties
            .get(MODE)
            .and_then(|p| p.r#enum.as_deref()),
        Some(&["agent".to_string(), "ask".to_string()][..])
    );
    // A stored value still valid is kept; one no longer valid falls back to the default.
    let kept = root_config(Some(&obj(json!({"mode": "ask", "model": "gone"}))));
    assert_eq!(
        Value::Object(kept.values.clone()),
        json!({"model": "echo", "mode": "ask"})
    );
    // New sessions start from the host's defaults; what createSession says wins.
    let (config, model) = for_new_session(None, None, &kept.values).unwrap();
    assert_eq!(config.values[MODE], "ask");
    assert_eq!(model.id, "echo");
    let own = obj(json!({"mode": "agent"}));
    let (config, _) = for_new_session(Some(&own), None, &kept.values).unwrap();
    assert_eq!(config.values[MODE], "agent");
    let change = |v: Value, replace: Option<bool>| RootConfigChangedAction {
        config: obj(v),
        replace,
        extra: Default::default(),
    };
    let next = check_root_change(&root.values, &change(json!({"model": "echo-lite"}), None));
    assert_eq!(
        Value::Object(next.unwrap()),
        json!({"model": "echo-lite", "mode": "agent"})
    );
    let e = check_root_change(&root.values, &change(json!({"mode": "edit"}), None)).unwrap_err();
    assert!(e.contains("`edit` is not one of"), "{e}");
    let e = check_root_change(&root.values, &change(json!({"color": "red"}), None)).unwrap_err();
    assert!(e.contains("unknown property"), "{e}");
    let e =
        check_root_change(&root.values, &change(json!({"mode": "ask"}), Some(true))).unwrap_err();
    assert!(e.contains("`model` is required"), "{e}");
}

#[test]
fn value_items_filter_by_query() {
    let values = |p: &str, q: &str| -> Vec<String> {
        value_items(p, q)
            .unwrap()
            .into_iter()
            .map(|i| i.value)
            .collect()
    };
    assert_eq!(values(MODE, ""), ["agent", "ask"]);
    assert_eq!(values(MODE, "AS"), ["ask"]);
    assert_eq!(values(MODE, "gen"), ["agent"]);
    assert_eq!(values(MODEL, "ec"), ["echo", "echo-lite"]);
    assert_eq!(values(MODEL, "lite"), ["echo-lite"]);
    assert!(values(MODEL, "zz").is_empty());
    assert!(value_items("colour", "").is_err());
    let p = string_enum("T", "", vec![("xa", "xa", ""), ("ax", "ax", "")], true);
    let found: Vec<String> = matching(&p, "a").into_iter().map(|i| i.value).collect();
    assert_eq!(found, ["ax", "xa"], "prefix matches first");
}
