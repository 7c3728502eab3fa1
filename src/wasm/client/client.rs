//! `AhpClient`: one connection to an agent host (see `js/index.d.ts` for the contract).

use super::args::{function_arg, remover_of, string_arg};
use super::decode::Decode;
use super::driver::Inner;
use super::errors::to_js_error;
use super::events;
use super::listener::Listener;
use super::options;
use super::subscription::Subscription;
use crate::wasm::convert::from_js;
use js_sys::Promise;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A connection to one agent host. Typed in `js/index.d.ts`.
#[wasm_bindgen(skip_typescript)]
pub struct AhpClient {
    pub(crate) inner: Rc<Inner>,
}

/// The `AhpClient` object of a client (for the driver, which is below this file).
fn client_object(inner: Rc<Inner>) -> JsValue {
    AhpClient { inner }.into()
}

/// The `Subscription` object of a channel (for the driver).
fn subscription_object(inner: Rc<Inner>, channel: &str, serial: u32) -> JsValue {
    Subscription::new(inner, channel, serial).into()
}

impl AhpClient {
    /// Starts connecting; the promise settles after the handshake.
    pub(crate) fn connect_inner(
        url: &JsValue,
        options: &JsValue,
    ) -> Result<(Rc<Inner>, Promise), JsValue> {
        let url = string_arg(url, "url")?;
        let options = options::parse(options)?;
        let inner = Inner::new(url, options, client_object, subscription_object);
        let mut slots = None;
        let promise = Promise::new(&mut |resolve, reject| slots = Some((resolve, reject)));
        let (resolve, reject) = slots.expect("the executor runs synchronously");
        inner.start(resolve, reject);
        Ok((inner, promise))
    }
}

#[wasm_bindgen]
impl AhpClient {
    /// `new AhpClient()` cannot make a connected client: say what does.
    #[wasm_bindgen(constructor)]
    pub fn no_constructor() -> Result<AhpClient, JsValue> {
        Err(crate::wasm::errors::usage(
            "ahp-wasm: AhpClient has no public constructor: use `await AhpClient.connect(url, options)`",
        ))
    }

    /// Opens the connection and performs `initialize`.
    pub fn connect(url: JsValue, options: JsValue) -> Promise {
        match Self::connect_inner(&url, &options) {
            Ok((_, promise)) => promise,
            Err(error) => Promise::reject(&error),
        }
    }

    /// The URL connected to (without the token).
    #[wasm_bindgen(getter)]
    pub fn url(&self) -> String {
        self.inner.connection.url.clone()
    }

    #[wasm_bindgen(getter, js_name = clientId)]
    pub fn client_id(&self) -> String {
        self.inner.engine.borrow().client_id().to_string()
    }

    /// The secret the host bound `clientId` to, once connected (`undefined` for hosts that
    /// issue none). Store it with the id to resume that id after the app restarts.
    #[wasm_bindgen(getter, js_name = clientSecret)]
    pub fn client_secret(&self) -> Option<String> {
        self.inner
            .engine
            .borrow()
            .client_secret()
            .map(str::to_owned)
    }

    #[wasm_bindgen(getter, js_name = connectionState)]
    pub fn connection_state(&self) -> String {
        self.inner
            .engine
            .borrow()
            .connection_state()
            .name()
            .to_string()
    }

    #[wasm_bindgen(getter, js_name = serverInfo)]
    pub fn server_info(&self) -> JsValue {
        match self.inner.engine.borrow().server_info() {
            Some(info) => events::server_info(info),
            None => JsValue::UNDEFINED,
        }
    }

    /// Subscribes (or returns the live subscription) to a channel.
    pub fn subscribe(&self, uri: JsValue) -> Promise {
        let channel = match string_arg(&uri, "uri") {
            Ok(c) => c,
            Err(e) => return Promise::reject(&e),
        };
        let decode = Decode::Subscribe {
            channel: channel.clone(),
        };
        self.inner
            .request(move |e, now| e.subscribe(&channel, now), decode)
    }

    /// The live subscription of `uri`, if any.
    pub fn subscription(&self, uri: JsValue) -> JsValue {
        let Some(channel) = uri.as_string() else {
            return JsValue::UNDEFINED;
        };
        if !self.inner.engine.borrow().is_subscribed(&channel) {
            return JsValue::UNDEFINED;
        }
        self.inner.subscription_handle(&channel)
    }

    /// Applies `action` optimistically and sends it; returns its `clientSeq`.
    pub fn dispatch(&self, uri: JsValue, action: JsValue) -> Result<f64, JsValue> {
        let channel = string_arg(&uri, "uri")?;
        self.inner.dispatch(&channel, &action)
    }

    /// Listens to client events; returns the remover.
    #[wasm_bindgen(js_name = onEvent)]
    pub fn on_event(&self, listener: JsValue) -> Result<JsValue, JsValue> {
        let f = function_arg(listener, "listener")?;
        Ok(add_listener(&self.inner, Listener::Js(f)))
    }

    /// Listens to connection state changes; returns the remover.
    #[wasm_bindgen(js_name = onConnectionStateChange)]
    pub fn on_connection_state_change(&self, listener: JsValue) -> Result<JsValue, JsValue> {
        let f = function_arg(listener, "listener")?;
        let id = self.inner.listener_id();
        self.inner.listeners.states.add(id, f);
        let weak = Rc::downgrade(&self.inner);
        Ok(remover_of(
            move |id| {
                if let Some(inner) = weak.upgrade() {
                    inner.listeners.states.remove(id);
                }
            },
            id,
        ))
    }

    /// Answers server→client requests of `method`.
    #[wasm_bindgen(js_name = setRequestHandler)]
    pub fn set_request_handler(&self, method: JsValue, handler: JsValue) -> Result<(), JsValue> {
        let method = string_arg(&method, "method")?;
        let handler = function_arg(handler, "handler")?;
        self.inner.listeners.set_handler(method.clone(), handler);
        self.inner.with_engine(|e, _| e.handle_requests(method));
        Ok(())
    }

    /// Sends any request by method name.
    pub fn request(&self, method: JsValue, params: JsValue) -> Promise {
        let method = match string_arg(&method, "method") {
            Ok(m) => m,
            Err(e) => return Promise::reject(&e),
        };
        let params = if params.is_undefined() {
            Ok(serde_json::Value::Object(Default::default()))
        } else {
            from_js::<serde_json::Value>(&params, "params")
        };
        let params = match params {
            Ok(p) => p,
            Err(e) => return Promise::reject(&e),
        };
        let decode = Decode::Raw {
            method: method.clone(),
        };
        self.inner
            .request(move |e, now| e.request_raw(&method, &params, now), decode)
    }

    /// Sends a notification by method name (no answer). Throws `TransportError` when not
    /// connected, `ClientClosedError` after `close()`.
    pub fn notify(&self, method: JsValue, params: JsValue) -> Result<(), JsValue> {
        let method = string_arg(&method, "method")?;
        let params = if params.is_undefined() {
            serde_json::Value::Object(Default::default())
        } else {
            from_js::<serde_json::Value>(&params, "params")?
        };
        self.inner
            .with_engine(|e, _| e.notify_raw(&method, &params))
            .map_err(|e| to_js_error(&e))?;
        self.inner.run();
        Ok(())
    }

    /// Closes for good.
    pub fn close(&self) {
        self.inner.close();
    }

    /// Stops reconnecting for a failure retrying cannot fix (the package's entry found it out,
    /// js/websocket.js): publishes `{ type: 'reconnectAborted', error }`, then closes.
    #[wasm_bindgen(js_name = __abortReconnect)]
    pub fn abort_reconnect(&self, error: JsValue) {
        if self.inner.is_closed() {
            return;
        }
        self.inner.publish(&events::reconnect_aborted(error));
        self.inner.close();
    }
}

/// Adds a client-event listener to `inner`; returns its remover.
pub(crate) fn add_listener(inner: &Rc<Inner>, listener: Listener) -> JsValue {
    let id = inner.listener_id();
    inner.listeners.events.add(id, listener);
    let weak = Rc::downgrade(inner);
    remover_of(
        move |id| {
            if let Some(inner) = weak.upgrade() {
                inner.listeners.events.remove(id);
            }
        },
        id,
    )
}
