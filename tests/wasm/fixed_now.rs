//! `Date.now()` held still for the reducers exported to JS, which stamp times from the JS clock.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = "
export function stubDateNow(now) { const real = Date.now; Date.now = () => now; return real; }
export function restoreDateNow(real) { Date.now = real; }
")]
extern "C" {
    #[wasm_bindgen(js_name = stubDateNow)]
    fn stub_date_now(now: f64) -> JsValue;
    #[wasm_bindgen(js_name = restoreDateNow)]
    fn restore_date_now(real: &JsValue);
}

/// `Date.now()` returns the given time until dropped.
pub struct FixedNow(JsValue);

impl FixedNow {
    pub fn new(now: f64) -> Self {
        FixedNow(stub_date_now(now))
    }
}

impl Drop for FixedNow {
    fn drop(&mut self) {
        restore_date_now(&self.0);
    }
}
