//! [`Timer`]: a re-armable `setTimeout`, and the clock the driver reads ([`now`]).

use js_sys::Function;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

/// Milliseconds since the epoch (the engine's clock, also the reducers' `modifiedAt`).
pub fn now() -> f64 {
    js_sys::Date::now()
}

/// A re-armable `setTimeout`. Its callback runs from the JS event loop, never from inside a
/// borrow of the client.
pub struct Timer {
    callback: Function,
    armed: RefCell<Option<(JsValue, f64)>>,
    /// Keeps the Rust closure alive as long as the timer.
    _closure: Closure<dyn FnMut()>,
}

impl Timer {
    pub fn new(f: impl FnMut() + 'static) -> Timer {
        let closure = Closure::<dyn FnMut()>::new(f);
        Timer {
            callback: closure.as_ref().unchecked_ref::<Function>().clone(),
            armed: RefCell::new(None),
            _closure: closure,
        }
    }

    /// Fires at `at` (ms since the epoch) or earlier: an armed timer that fires no later is
    /// kept (firing early is harmless: the handler re-arms).
    pub fn arm_by(&self, at: f64) {
        if matches!(&*self.armed.borrow(), Some((_, when)) if *when <= at) {
            return;
        }
        self.arm_at(at);
    }

    pub fn arm_at(&self, at: f64) {
        self.clear();
        let id = set_timeout(&self.callback, (at - now()).max(0.0) + 1.0);
        *self.armed.borrow_mut() = Some((id, at));
    }

    /// The timer fired: it is no longer armed.
    pub fn fired(&self) {
        self.armed.borrow_mut().take();
    }

    pub fn clear(&self) {
        if let Some((id, _)) = self.armed.borrow_mut().take() {
            clear_timeout(&id);
        }
    }
}
