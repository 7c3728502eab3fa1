//! [`Channel`]: one subscribed channel as the JS side sees it (its `Subscription` object,
//! renderings and change listeners), an entry of [`super::channels::Channels`].

use crate::wasm::render::RenderedState;
use js_sys::Function;
use wasm_bindgen::prelude::*;

/// One subscribed channel as the JS side sees it.
pub struct Channel {
    /// The `Subscription` object handed out (the same one every time).
    pub handle: JsValue,
    /// The serial of that object (tells it from an earlier subscription of the channel).
    pub serial: u32,
    /// The frozen optimistic state, built on first read, then patched.
    pub render: Option<RenderedState>,
    /// The frozen confirmed state, built on read, dropped when it changes.
    pub confirmed: Option<JsValue>,
    pub listeners: Vec<(u32, Function)>,
}

impl Channel {
    /// Drops both renderings (rebuilt in full on the next read).
    pub fn forget_renderings(&mut self) {
        self.render = None;
        self.confirmed = None;
    }
}
