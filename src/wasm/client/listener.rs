//! [`Listener`]: a client-event listener; and [`call`], how every user listener is called.

use js_sys::Function;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A client-event listener: a JS function, or the fan-in of a `MultiHostClient`.
#[derive(Clone)]
pub enum Listener {
    Js(Function),
    Rust(Rc<dyn Fn(&JsValue)>),
}

impl Listener {
    pub fn call(&self, event: &JsValue) {
        match self {
            Listener::Js(f) => call(f, std::slice::from_ref(event)),
            Listener::Rust(f) => f(event),
        }
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str, error: &JsValue);
}

/// Calls a user listener; an exception is reported on the console and does not stop the
/// delivery of the other listeners and events.
pub fn call(listener: &Function, args: &[JsValue]) {
    let result = match args {
        [] => listener.call0(&JsValue::UNDEFINED),
        [a] => listener.call1(&JsValue::UNDEFINED, a),
        [a, b] => listener.call2(&JsValue::UNDEFINED, a, b),
        [a, b, c, ..] => listener.call3(&JsValue::UNDEFINED, a, b, c),
    };
    if let Err(error) = result {
        console_error("ahp-wasm: a listener threw:", &error);
    }
}
