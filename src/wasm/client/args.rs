//! The checks of the JS client classes' arguments, and the removers they return.

use crate::wasm::errors::invalid_input;
use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/glue.js")]
extern "C" {
    fn remover(f: &JsValue, id: u32) -> JsValue;
}

/// A string argument, or an `InvalidInputError` naming it.
pub fn string_arg(value: &JsValue, argument: &str) -> Result<String, JsValue> {
    value
        .as_string()
        .ok_or_else(|| invalid_input(argument, "", "expected a string"))
}

/// A function argument, or an `InvalidInputError` naming it.
pub fn function_arg(value: JsValue, argument: &str) -> Result<Function, JsValue> {
    value
        .dyn_into::<Function>()
        .map_err(|_| invalid_input(argument, "", "expected a function"))
}

/// The function that removes a listener (idempotent).
pub fn remover_of(f: impl FnOnce(u32) + 'static, id: u32) -> JsValue {
    remover(&Closure::once_into_js(f), id)
}
