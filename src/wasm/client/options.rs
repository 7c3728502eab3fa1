//! `ConnectOptions` from JS: read property by property, each wrong type an
//! `InvalidInputError` naming the option.

use crate::client::engine::{EngineConfig, PendingPolicy};
use crate::client::ReconnectPolicy;
use crate::wasm::convert::from_js;
use crate::wasm::errors::invalid_input;
use crate::wasm::wire::ClientCapabilities;
use js_sys::{Function, Reflect};
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Parsed connect options.
pub struct Options {
    pub config: EngineConfig,
    pub token: Option<String>,
    /// `None`: never reconnect.
    pub reconnect: Option<ReconnectPolicy>,
    pub transport: Option<Function>,
}

const ARG: &str = "options";

fn get(options: &JsValue, key: &str) -> Result<Option<JsValue>, JsValue> {
    let value = Reflect::get(options, &JsValue::from_str(key))
        .map_err(|_| invalid_input(ARG, key, "reading the option threw"))?;
    Ok((!value.is_undefined()).then_some(value))
}

fn string(options: &JsValue, key: &str) -> Result<Option<String>, JsValue> {
    get(options, key)?
        .map(|v| {
            v.as_string()
                .ok_or_else(|| invalid_input(ARG, key, "expected a string"))
        })
        .transpose()
}

/// A finite number from `min` up (a whole `min`: written in messages without linking the
/// float formatter into the module).
fn number(options: &JsValue, key: &str, min: u32) -> Result<Option<f64>, JsValue> {
    get(options, key)?
        .map(|v| match v.as_f64() {
            Some(n) if n.is_finite() && n >= f64::from(min) => Ok(n),
            _ => Err(invalid_input(
                ARG,
                key,
                &format!("expected a finite number >= {min}"),
            )),
        })
        .transpose()
}

fn strings(options: &JsValue, key: &str) -> Result<Option<Vec<String>>, JsValue> {
    get(options, key)?
        .map(|v| {
            from_js(&v, ARG).map_err(|_| invalid_input(ARG, key, "expected an array of strings"))
        })
        .transpose()
}

/// Reads `options` (`undefined` or an object).
pub fn parse(options: &JsValue) -> Result<Options, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(Options {
            config: default_config(None),
            token: None,
            reconnect: Some(ReconnectPolicy::default()),
            transport: None,
        });
    }
    if !options.is_object() {
        return Err(invalid_input(ARG, "", "expected an object"));
    }
    let mut config = default_config(string(options, "clientId")?);
    config.client_secret = string(options, "clientSecret")?;
    if let Some(subs) = strings(options, "initialSubscriptions")? {
        config.initial_subscriptions = subs;
    }
    if let Some(versions) = strings(options, "protocolVersions")? {
        if versions.is_empty() {
            return Err(invalid_input(
                ARG,
                "protocolVersions",
                "offer at least one version",
            ));
        }
        config.protocol_versions = versions;
    }
    if let Some(caps) = get(options, "capabilities")? {
        config.capabilities = Some(from_js::<ClientCapabilities>(
            &caps,
            "options.capabilities",
        )?);
    }
    config.locale = string(options, "locale")?;
    if let Some(ms) = number(options, "requestTimeoutMs", 1)? {
        config.request_timeout_ms = ms;
    }
    if let Some(ms) = number(options, "keepaliveMs", 0)? {
        config.keepalive_ms = (ms > 0.0).then_some(ms);
    }
    config.pending_policy = match string(options, "pendingPolicy")?.as_deref() {
        None | Some("resendUnseen") => PendingPolicy::ResendUnseen,
        Some("dropInFlight") => PendingPolicy::DropInFlight,
        Some(_) => {
            return Err(invalid_input(
                ARG,
                "pendingPolicy",
                "expected 'resendUnseen' or 'dropInFlight'",
            ))
        }
    };
    let reconnect = match get(options, "reconnect")? {
        None => Some(ReconnectPolicy::default()),
        Some(v) if v.as_bool() == Some(false) => None,
        Some(v) if v.is_object() => Some(backoff(&v)?),
        Some(_) => {
            return Err(invalid_input(
                ARG,
                "reconnect",
                "expected an object or false",
            ))
        }
    };
    let transport = match get(options, "transport")? {
        None => None,
        Some(f) => Some(
            f.dyn_into::<Function>()
                .map_err(|_| invalid_input(ARG, "transport", "expected a function"))?,
        ),
    };
    Ok(Options {
        config,
        token: string(options, "token")?,
        reconnect,
        transport,
    })
}

fn backoff(v: &JsValue) -> Result<ReconnectPolicy, JsValue> {
    let mut b = ReconnectPolicy::default();
    let at = |key: &str| format!("reconnect.{key}");
    let num = |key: &str, min: u32| -> Result<Option<f64>, JsValue> {
        number(v, key, min).map_err(|_| {
            invalid_input(ARG, &at(key), &format!("expected a finite number >= {min}"))
        })
    };
    if let Some(ms) = num("initialDelayMs", 0)? {
        b.initial_delay = millis(ms);
    }
    if let Some(ms) = num("maxDelayMs", 0)? {
        b.max_delay = millis(ms);
    }
    if let Some(m) = num("multiplier", 1)? {
        b.multiplier = m;
    }
    if let Some(n) = num("maxAttempts", 0)? {
        b.max_attempts = Some(n.min(u32::MAX as f64) as u32);
    }
    Ok(b)
}

/// A duration of `ms` milliseconds (finite, >= 0), saturating.
fn millis(ms: f64) -> Duration {
    Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::MAX)
}

fn default_config(client_id: Option<String>) -> EngineConfig {
    let client_id = client_id.unwrap_or_else(random_client_id);
    let mut config = EngineConfig::new(client_id);
    config.keepalive_ms = Some(30_000.0);
    config
}

/// `ahp-` + 32 random hex digits (`Math.random`: an id, not a secret). The std hasher-based
/// generator has no entropy source on `wasm32-unknown-unknown`.
fn random_client_id() -> String {
    let mut id = String::from("ahp-");
    for _ in 0..4 {
        let word = (js_sys::Math::random() * 4_294_967_296.0) as u32;
        id.push_str(&format!("{word:08x}"));
    }
    id
}
