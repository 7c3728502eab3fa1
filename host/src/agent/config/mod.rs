//! The built-in agent's session configuration: the schema `resolveSessionConfig` answers, that
//! `createSession.config` and a client's `session/configChanged` are checked against, and whose
//! values `sessionConfigCompletions` completes.
//!
//! - `model` (string, one of [`MODELS`], default the first): the model the session starts
//!   with. Not `sessionMutable`: after creation the model changes with `session/modelChanged`
//!   (the summary's `model`), which the host mirrors into `config.values.model`.
//! - `mode` (string, one of [`Mode`], default `agent`, `sessionMutable`): `agent` runs every
//!   directive; `ask` answers without running tools (`/tool`, `/client-tool`, `/mcp`, `/write` are
//!   said, not run). A change applies from the next turn on.

use ahp_wasm::protocol::{
    ConfigPropertySchema, ConfigPropertySchemaType, ConfigSchema, JsonObject, ModelSelection,
    RootConfigChangedAction, RootConfigState, SessionConfigChangedAction,
    SessionConfigPropertySchema, SessionConfigPropertySchemaType, SessionConfigSchema,
    SessionConfigState, SessionConfigValueItem, SessionModelInfo, SessionState,
};
use serde_json::Value;

/// One model of the built-in agent.
#[derive(Debug, Clone, Copy)]
pub struct Model {
    /// Its id (`ModelSelection.id`).
    pub id: &'static str,
    /// Its display name.
    pub name: &'static str,
    /// What it does.
    pub description: &'static str,
    /// Whether a turn starts with a reasoning part.
    pub reasoning: bool,
}

/// The built-in agent's models: the one list behind `AgentInfo.models`, the `model` property
/// and the model checks. The first is the default.
pub const MODELS: &[Model] = &[
    Model {
        id: "echo",
        name: "Echo",
        description: "Reasons briefly, echoes the prose of your message and runs its directives",
        reasoning: true,
    },
    Model {
        id: "echo-lite",
        name: "Echo Lite",
        description: "Echo without the reasoning part",
        reasoning: false,
    },
];

/// The model `id`, if the agent has it.
pub fn model(id: &str) -> Option<&'static Model> {
    MODELS.iter().find(|m| m.id == id)
}

/// The `model` property.
pub const MODEL: &str = "model";
/// The `mode` property.
pub const MODE: &str = "mode";

/// How the agent treats tool directives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Every directive runs.
    Agent,
    /// Tool directives are not run (the reply says so); the others are.
    Ask,
}

/// The modes: (value, label, description). The first is the default.
const MODES: [(Mode, &str, &str, &str); 2] = [
    (
        Mode::Agent,
        "agent",
        "Agent",
        "Runs every directive, tools included",
    ),
    (
        Mode::Ask,
        "ask",
        "Ask",
        "Answers without tools: /tool, /client-tool and /mcp are not run",
    ),
];

/// The model list as root state shows it (`AgentInfo.models`).
pub fn model_infos(provider: &str) -> Vec<SessionModelInfo> {
    MODELS
        .iter()
        .map(|m| SessionModelInfo {
            id: m.id.into(),
            provider: provider.into(),
            name: m.name.into(),
            ..Default::default()
        })
        .collect()
}

/// Whether `id` is one of the agent's models.
pub fn is_model(id: &str) -> bool {
    model(id).is_some()
}

/// Why a model id is refused.
pub fn unknown_model(id: &str) -> String {
    let ids: Vec<&str> = MODELS.iter().map(|m| m.id).collect();
    format!(
        "unknown model `{}`; the built-in agent has {}",
        clip(id),
        list(&ids)
    )
}

fn string_enum(
    title: &str,
    description: &str,
    values: Vec<(&str, &str, &str)>,
    mutable: bool,
) -> SessionConfigPropertySchema {
    SessionConfigPropertySchema {
        r#type: SessionConfigPropertySchemaType::String,
        title: title.into(),
        description: Some(description.into()),
        default: values.first().map(|(v, _, _)| Value::from(*v)),
        r#enum: Some(values.iter().map(|(v, _, _)| v.to_string()).collect()),
        enum_labels: Some(values.iter().map(|(_, l, _)| l.to_string()).collect()),
        enum_descriptions: Some(values.iter().map(|(_, _, d)| d.to_string()).collect()),
        read_only: None,
        items: None,
        properties: None,
        required: None,
        enum_dynamic: None,
        session_mutable: Some(mutable),
        extra: Default::default(),
    }
}

/// The session config schema of the built-in agent.
pub fn schema() -> SessionConfigSchema {
    let models = MODELS
        .iter()
        .map(|m| (m.id, m.name, m.description))
        .collect();
    let modes = MODES.iter().map(|(_, v, l, d)| (*v, *l, *d)).collect();
    SessionConfigSchema {
        r#type: "object".into(),
        properties: [
            (
                MODEL.to_owned(),
                string_enum(
                    "Model",
                    "The model the session starts with (later: session/modelChanged)",
                    models,
                    false,
                ),
            ),
            (
                MODE.to_owned(),
                string_enum(
                    "Mode",
                    "How the agent treats tool directives (from the next turn on)",
                    modes,
                    true,
                ),
            ),
        ]
        .into_iter()
        .collect(),
        required: Some(vec![MODEL.into(), MODE.into()]),
        extra: Default::default(),
    }
}

fn clip(s: &str) -> &str {
    match s.char_indices().nth(64) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

fn list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    quoted.join(", ")
}

/// The property `key` of `schema`, or an error that lists the properties there are.
fn known_property<'a>(
    schema: &'a SessionConfigSchema,
    key: &str,
) -> Result<&'a SessionConfigPropertySchema, String> {
    schema.properties.get(key).ok_or_else(|| {
        let known: Vec<&str> = schema.properties.keys().map(String::as_str).collect();
        format!(
            "unknown property `{}` (the properties are {})",
            clip(key),
            list(&known)
        )
    })
}

/// Checks one value against its property of `schema`.
fn check_value(schema: &SessionConfigSchema, key: &str, value: &Value) -> Result<(), String> {
    let property = known_property(schema, key)?;
    use SessionConfigPropertySchemaType as T;
    let typed = match &property.r#type {
        T::String => value.is_string(),
        T::Number => value.is_number(),
        T::Boolean => value.is_boolean(),
        T::Array => value.is_array(),
        T::Object => value.is_object(),
        T::Other(_) => true,
    };
    if !typed {
        return Err(format!(
            "`{key}` must be a {}, not {}",
            property.r#type.as_str(),
            kind_of(value)
        ));
    }
    if let (Some(allowed), Some(s)) = (&property.r#enum, value.as_str()) {
        if !allowed.iter().any(|a| a == s) {
            let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
            return Err(format!(
                "`{key}`: `{}` is not one of {}",
                clip(s),
                list(&allowed)
            ));
        }
    }
    Ok(())
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks user-filled values and fills in the defaults: the values `resolveSessionConfig`
/// answers and a new session starts with. Every given key must be a property, of its type and
/// within its `enum`.
/// `defaults` (the host's, from root `config.values`) come before the schema's own.
pub fn resolve(config: Option<&JsonObject>, defaults: &JsonObject) -> Result<JsonObject, String> {
    resolve_in(&schema(), config, defaults)
}

/// [`resolve`] against `schema`.
fn resolve_in(
    schema: &SessionConfigSchema,
    config: Option<&JsonObject>,
    defaults: &JsonObject,
) -> Result<JsonObject, String> {
    let mut values = JsonObject::new();
    for (key, value) in config.into_iter().flatten() {
        check_value(schema, key, value)?;
        values.insert(key.clone(), value.clone());
    }
    for (key, property) in &schema.properties {
        let default = defaults.get(key).or(property.default.as_ref());
        if let (false, Some(default)) = (values.contains_key(key), default) {
            values.insert(key.clone(), default.clone());
        }
    }
    Ok(values)
}

/// The host configuration in root state (`config`): the defaults a new session's config
/// starts from, one per session config property (`model`, `mode`), with the same values
/// allowed. `stored`: the values kept from an earlier run, if any (checked again: a value
/// that is no longer valid falls back to the schema's default).
pub fn root_config(stored: Option<&JsonObject>) -> RootConfigState {
    let session = schema();
    let properties = session
        .properties
        .iter()
        .map(|(key, p)| {
            let property = ConfigPropertySchema {
                r#type: ConfigPropertySchemaType::String,
                title: format!("Default {}", p.title.to_lowercase()),
                description: Some(format!(
                    "What a new session's `{key}` is when createSession does not say"
                )),
                default: p.default.clone(),
                r#enum: p.r#enum.clone(),
                enum_labels: p.enum_labels.clone(),
                enum_descriptions: p.enum_descriptions.clone(),
                read_only: None,
                items: None,
                properties: None,
                required: None,
                extra: Default::default(),
            };
            (key.clone(), property)
        })
        .collect();
    let mut values = JsonObject::new();
    for (key, property) in &session.properties {
        let kept = stored
            .and_then(|s| s.get(key))
            .filter(|v| check_value(&session, key, v).is_ok());
        if let Some(value) = kept.or(property.default.as_ref()) {
            values.insert(key.clone(), value.clone());
        }
    }
    RootConfigState {
        schema: ConfigSchema {
            r#type: "object".into(),
            properties,
            required: session.required.clone(),
            extra: Default::default(),
        },
        values,
        extra: Default::default(),
    }
}

/// Checks a client's `root/configChanged` against the host configuration: every key is a
/// property with a valid value and the result keeps every property. Returns the new values.
pub fn check_root_change(
    current: &JsonObject,
    action: &RootConfigChangedAction,
) -> Result<JsonObject, String> {
    changed_values(&schema(), current, &action.config, action.replace)
}

/// The values after a `configChanged` of `config` (merged, or replacing with `replace`),
/// each checked against `schema`, with every required property still there.
fn changed_values(
    schema: &SessionConfigSchema,
    current: &JsonObject,
    config: &JsonObject,
    replace: Option<bool>,
) -> Result<JsonObject, String> {
    for (key, value) in config {
        check_value(schema, key, value)?;
    }
    let next = if replace == Some(true) {
        config.clone()
    } else {
        let mut next = current.clone();
        next.extend(config.clone());
        next
    };
    for key in schema.required.iter().flatten() {
        if !next.contains_key(key) {
            return Err(format!(
                "`{key}` is required (replace keeps only what it gives)"
            ));
        }
    }
    Ok(next)
}

/// The config and the model of a new session from `createSession`'s `config` and `model`:
/// the checked values with defaults, and `model` agreeing with `config.model` (either may be
/// given; both must then name the same model).
pub fn for_new_session(
    config: Option<&JsonObject>,
    model: Option<ModelSelection>,
    defaults: &JsonObject,
) -> Result<(SessionConfigState, ModelSelection), String> {
    let mut values = resolve(config, defaults).map_err(|e| format!("config: {e}"))?;
    let model = match model {
        Some(model) => {
            if !is_model(&model.id) {
                return Err(format!("model: {}", unknown_model(&model.id)));
            }
            let named = config.and_then(|c| c.get(MODEL)).and_then(Value::as_str);
            if let Some(named) = named.filter(|n| *n != model.id) {
                return Err(format!(
                    "config.model (`{}`) and model.id (`{}`) name different models",
                    clip(named),
                    clip(&model.id)
                ));
            }
            values.insert(MODEL.into(), Value::from(model.id.clone()));
            model
        }
        None => ModelSelection {
            id: values[MODEL].as_str().unwrap_or(MODELS[0].id).to_owned(),
            config: None,
            extra: Default::default(),
        },
    };
    let state = SessionConfigState {
        schema: schema(),
        values,
        extra: Default::default(),
    };
    Ok((state, model))
}

/// The session config schema of a model agent offering `models`: the built-in agent's `mode`,
/// and `model` one of `models` (any model id when the agent knows none).
pub fn schema_for(models: &[SessionModelInfo]) -> SessionConfigSchema {
    let mut schema = schema();
    let description = "The model the session starts with (later: session/modelChanged)";
    let mut property = string_enum(
        "Model",
        description,
        models
            .iter()
            .map(|m| (m.id.as_str(), m.name.as_str(), m.provider.as_str()))
            .collect(),
        false,
    );
    if models.is_empty() {
        property.r#enum = None;
        property.enum_labels = None;
        property.enum_descriptions = None;
    }
    schema.properties.insert(MODEL.into(), property);
    schema
}

/// [`for_new_session`] for a model agent offering `models` (see [`schema_for`]): the host's
/// default model is the built-in agent's, so the agent's first model is the default here.
pub fn for_model_session(
    config: Option<&JsonObject>,
    model: Option<ModelSelection>,
    defaults: &JsonObject,
    models: &[SessionModelInfo],
) -> Result<(SessionConfigState, ModelSelection), String> {
    let schema = schema_for(models);
    let mut defaults = defaults.clone();
    defaults.remove(MODEL);
    let mut values = resolve_in(&schema, config, &defaults).map_err(|e| format!("config: {e}"))?;
    let named = values.get(MODEL).and_then(Value::as_str).map(str::to_owned);
    let given = config.is_some_and(|c| c.contains_key(MODEL));
    let model = match (model, named) {
        (Some(model), named) => {
            check_value(&schema, MODEL, &Value::from(model.id.clone()))
                .map_err(|e| format!("model: {e}"))?;
            if let Some(named) = named.filter(|n| given && *n != model.id) {
                return Err(format!(
                    "config.model (`{}`) and model.id (`{}`) name different models",
                    clip(&named),
                    clip(&model.id)
                ));
            }
            model
        }
        (None, Some(id)) => ModelSelection {
            id,
            config: None,
            extra: Default::default(),
        },
        (None, None) => return Err("model: this agent lists no models; name one in `model`".into()),
    };
    values.insert(MODEL.into(), Value::from(model.id.clone()));
    let state = SessionConfigState {
        schema,
        values,
        extra: Default::default(),
    };
    Ok((state, model))
}

/// Whether a session may change to model `id`: one of its config's `model` values (a model
/// agent's session), else one of the built-in agent's.
pub fn check_model(state: &SessionState, id: &str) -> Result<(), String> {
    check_model_of(&state.summary.provider, state.config.as_ref(), id)
}

/// [`check_model`] for a session of agent `provider` with `config`.
fn check_model_of(
    provider: &str,
    config: Option<&SessionConfigState>,
    id: &str,
) -> Result<(), String> {
    match config.and_then(|c| c.schema.properties.get(MODEL)) {
        Some(p) if provider != super::PROVIDER => match &p.r#enum {
            Some(allowed) if !allowed.iter().any(|a| a == id) => {
                let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
                Err(format!(
                    "unknown model `{}`; the agent `{provider}` has {}",
                    clip(id),
                    list(&allowed)
                ))
            }
            _ => Ok(()),
        },
        _ if is_model(id) => Ok(()),
        _ => Err(unknown_model(id)),
    }
}

/// Checks a client's `session/configChanged` against the session's config: every key is a
/// property with a valid value, the result has every required property, and only
/// `sessionMutable` properties change.
pub fn check_change(
    config: &SessionConfigState,
    action: &SessionConfigChangedAction,
) -> Result<(), String> {
    let schema = &config.schema;
    let next = changed_values(schema, &config.values, &action.config, action.replace)?;
    for (key, property) in &schema.properties {
        if property.session_mutable != Some(true) && next.get(key) != config.values.get(key) {
            let hint = if key == MODEL {
                "; change the model with session/modelChanged"
            } else {
                ""
            };
            return Err(format!(
                "`{key}` cannot change after the session is created{hint}"
            ));
        }
    }
    Ok(())
}

/// The values of `property` matching `query` (ignoring case, in a value or its label;
/// prefix matches first), for `sessionConfigCompletions`.
pub fn value_items(property: &str, query: &str) -> Result<Vec<SessionConfigValueItem>, String> {
    value_items_in(&schema(), property, query)
}

/// [`value_items`] of `schema` (a model agent's: [`schema_for`]).
pub fn value_items_in(
    schema: &SessionConfigSchema,
    property: &str,
    query: &str,
) -> Result<Vec<SessionConfigValueItem>, String> {
    let p = known_property(schema, property)?;
    Ok(matching(p, query))
}

/// The `enum` values of `p` matching `query` (see [`value_items`]).
fn matching(p: &SessionConfigPropertySchema, query: &str) -> Vec<SessionConfigValueItem> {
    let query = query.to_lowercase();
    let mut items: Vec<(bool, SessionConfigValueItem)> = Vec::new();
    for (i, value) in p.r#enum.iter().flatten().enumerate() {
        let label = p
            .enum_labels
            .as_ref()
            .and_then(|l| l.get(i))
            .unwrap_or(value);
        let (v, l) = (value.to_lowercase(), label.to_lowercase());
        if !(v.contains(&query) || l.contains(&query)) {
            continue;
        }
        let prefix = v.starts_with(&query) || l.starts_with(&query);
        items.push((
            !prefix,
            SessionConfigValueItem {
                value: value.clone(),
                label: label.clone(),
                description: p.enum_descriptions.as_ref().and_then(|d| d.get(i)).cloned(),
                extra: Default::default(),
            },
        ));
    }
    // Stable: prefix matches first, each group in schema order.
    items.sort_by_key(|(later, _)| *later);
    items.into_iter().map(|(_, item)| item).collect()
}

/// The session's mode (`agent` when it has no config, or a value this host does not know).
pub fn mode_of(state: &SessionState) -> Mode {
    let value = state
        .config
        .as_ref()
        .and_then(|c| c.values.get(MODE))
        .and_then(Value::as_str);
    MODES
        .iter()
        .find(|(_, v, _, _)| Some(*v) == value)
        .map_or(Mode::Agent, |(m, _, _, _)| *m)
}

#[cfg(test)]
mod tests;
