//! Errors thrown to JavaScript: instances of the classes defined in `js/errors.js`, which the
//! package entry re-exports, so `err instanceof InvalidInputError` works for callers.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    /// `AhpError`: base class of every error the SDK throws (`kind`, `code`).
    #[wasm_bindgen(extends = js_sys::Error)]
    pub type AhpError;

    /// `InvalidInputError`: a value does not have the shape the protocol requires
    /// (`kind: 'invalid-input'`, `argument`, `path`).
    #[wasm_bindgen(extends = AhpError, extends = js_sys::Error)]
    pub type InvalidInputError;

    #[wasm_bindgen(constructor, js_class = "AhpError")]
    fn new_ahp_error(message: &str, options: &JsValue) -> AhpError;

    #[wasm_bindgen(constructor, js_class = "InvalidInputError")]
    fn new_invalid_input(message: &str, argument: &str, path: &str) -> InvalidInputError;

    #[wasm_bindgen(js_name = errorClasses)]
    fn error_classes() -> js_sys::Object;
}

/// Builds an `InvalidInputError` for `argument` (`"state"`, `"action"`) at `path`
/// (`""` when the value itself is wrong). The message names the argument and the path.
pub fn invalid_input(argument: &str, path: &str, reason: &str) -> JsValue {
    let message = if path.is_empty() {
        format!("invalid {argument}: {reason}")
    } else {
        format!("invalid {argument} at {path}: {reason}")
    };
    InvalidInputError::new_invalid_input(&message, argument, path).into()
}

/// An `AhpError` of `kind`.
fn ahp_error(kind: &str, message: &str) -> JsValue {
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"kind".into(), &kind.into());
    AhpError::new_ahp_error(message, &options).into()
}

/// Builds an `AhpError` with `kind: 'internal'`: a failure that is not the caller's fault.
pub fn internal(reason: &str) -> JsValue {
    ahp_error("internal", &format!("internal error: {reason}"))
}

/// Builds an `AhpError` with `kind: 'usage'`: an API used in a way it cannot work (a class
/// constructed with `new` that only factories make).
pub fn usage(message: &str) -> JsValue {
    ahp_error("usage", message)
}

/// A short text for a thrown JS value.
pub fn describe(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    // `String(value)`, as JS would write it (not Rust's `Debug`, which links its formatter).
    value
        .as_string()
        .unwrap_or_else(|| String::from(js_sys::JsString::from(value.clone())))
}

/// The error classes, for the package entries to re-export (`{ AhpError, InvalidInputError }`).
/// Internal: not part of the public API.
#[wasm_bindgen(js_name = "__errorClasses", skip_typescript)]
pub fn error_classes_export() -> js_sys::Object {
    error_classes()
}
