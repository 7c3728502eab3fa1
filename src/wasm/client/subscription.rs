//! `Subscription`: the live mirror of one channel (see `js/index.d.ts`).

use super::args::{function_arg, remover_of};
use super::driver::Inner;
use crate::wasm::wire;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A subscribed channel: its render-ready optimistic state, confirmed state, pending count
/// and change listeners. One object per channel and client.
#[wasm_bindgen(skip_typescript)]
pub struct Subscription {
    inner: Rc<Inner>,
    uri: String,
    /// Tells this object from an earlier subscription of the same channel.
    serial: u32,
}

impl Subscription {
    pub(crate) fn new(inner: Rc<Inner>, uri: &str, serial: u32) -> Subscription {
        Subscription {
            inner,
            uri: uri.to_string(),
            serial,
        }
    }
}

#[wasm_bindgen]
impl Subscription {
    /// Subscriptions come from `client.subscribe(uri)`: say so to `new Subscription()`.
    #[wasm_bindgen(constructor)]
    pub fn no_constructor() -> Result<Subscription, JsValue> {
        Err(crate::wasm::errors::usage(
            "ahp-wasm: Subscription has no public constructor: use `await client.subscribe(uri)`",
        ))
    }

    #[wasm_bindgen(getter)]
    pub fn uri(&self) -> String {
        self.uri.clone()
    }

    /// The optimistic state: deeply frozen, structurally shared across updates. Once the
    /// subscription has ended, the last one it had.
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> JsValue {
        if !self.is_current() {
            return self.inner.channels.retired(&self.uri, self.serial, false);
        }
        self.inner.channels.state(&self.uri, &self.inner.engine)
    }

    /// The last server-acknowledged state (frozen); once ended, the last one it had.
    #[wasm_bindgen(getter, js_name = confirmedState)]
    pub fn confirmed_state(&self) -> JsValue {
        if !self.is_current() {
            return self.inner.channels.retired(&self.uri, self.serial, true);
        }
        self.inner.channels.confirmed(&self.uri, &self.inner.engine)
    }

    #[wasm_bindgen(getter, js_name = pendingCount)]
    pub fn pending_count(&self) -> u32 {
        wire::mirror(&self.inner.engine.borrow(), &self.uri).map_or(0, |m| m.pending_count() as u32)
    }

    /// Whether the subscription is still live.
    #[wasm_bindgen(getter)]
    pub fn active(&self) -> bool {
        !self.inner.is_closed()
            && self.inner.engine.borrow().is_subscribed(&self.uri)
            && self.is_current()
    }

    /// Called once per incoming batch (and per own dispatch), after reconciliation.
    #[wasm_bindgen(js_name = onChange)]
    pub fn on_change(&self, listener: JsValue) -> Result<JsValue, JsValue> {
        let f = function_arg(listener, "listener")?;
        let id = self.inner.listener_id();
        self.inner
            .channels
            .add_listener(&self.uri, self.serial, id, f);
        let (weak, uri) = (Rc::downgrade(&self.inner), self.uri.clone());
        Ok(remover_of(
            move |id| {
                if let Some(inner) = weak.upgrade() {
                    inner.channels.remove_listener(&uri, id);
                }
            },
            id,
        ))
    }

    /// Same as `client.dispatch(this.uri, action)`.
    pub fn dispatch(&self, action: JsValue) -> Result<f64, JsValue> {
        self.inner.dispatch(&self.uri, &action)
    }

    /// Unsubscribes the channel.
    pub fn unsubscribe(&self) {
        if !self.is_current() {
            return;
        }
        self.inner
            .channels
            .retire(&self.uri, Some(&self.inner.engine));
        let uri = self.uri.clone();
        self.inner.with_engine(|e, now| e.unsubscribe(&uri, now));
        self.inner.run();
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.inner.channels.drop_retired(&self.uri, self.serial);
    }
}

impl Subscription {
    /// Whether this object is still the channel's subscription (not an unsubscribed one).
    fn is_current(&self) -> bool {
        self.inner.channels.is_current(&self.uri, self.serial)
    }
}
