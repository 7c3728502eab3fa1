//! Client errors thrown to JavaScript: instances of the classes in `js/errors.js` (the class
//! of each [`Error::kind`], see [`crate::client::ERROR_CLASSES`]), all subclasses of `AhpError`
//! with `kind` and `code`, so `instanceof` works for callers.

use crate::client::Error;
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = clientError)]
    fn client_error(kind: &str, message: &str, options: &JsValue) -> JsValue;
}

/// Sets `key` on a JS object (ignoring failures: the object is a fresh plain object).
pub(crate) fn set(object: &Object, key: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(object, &JsValue::from_str(key), &value.into());
}

/// A JS array of strings.
pub(crate) fn string_array<S: AsRef<str>>(items: &[S]) -> js_sys::Array {
    items
        .iter()
        .map(|s| JsValue::from_str(s.as_ref()))
        .collect()
}

/// The JS error for a client error.
pub fn to_js_error(error: &Error) -> JsValue {
    let options = Object::new();
    match error {
        Error::Rpc { code, data, .. } => {
            set(&options, "code", *code as f64);
            if let Some(data) = data {
                if let Ok(value) = super::super::convert::to_js(data) {
                    set(&options, "data", value);
                }
            }
        }
        Error::Timeout { method, timeout_ms } => {
            set(&options, "method", method.as_str());
            set(&options, "timeoutMs", *timeout_ms);
        }
        Error::InvalidResponse { method, .. } => set(&options, "method", method.as_str()),
        Error::Transport { kind, .. } => set(&options, "transportKind", kind.name()),
        Error::Closed => {}
        Error::UnsupportedProtocolVersion {
            offered,
            server_data,
        } => {
            set(&options, "offered", string_array(offered));
            if let Some(data) = server_data {
                set(
                    &options,
                    "supported",
                    string_array(&data.supported_versions),
                );
            }
        }
        Error::NotSubscribed { channel } => set(&options, "channel", channel.as_str()),
        Error::WrongProtocolVersion {
            negotiated,
            version,
            attempted,
        } => {
            set(&options, "negotiated", negotiated.as_str());
            set(&options, "version", version.as_str());
            set(&options, "attempted", attempted.as_str());
        }
    }
    client_error(error.kind(), &error.to_string(), &options)
}

/// An `RpcError` for a request of `method` (the engine's error does not carry the method).
pub fn to_js_error_for(error: &Error, method: &str) -> JsValue {
    let value = to_js_error(error);
    if matches!(error, Error::Rpc { .. }) {
        let _ = Reflect::set(&value, &"method".into(), &method.into());
    }
    value
}
