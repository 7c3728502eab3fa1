//! Delivery of the driver's queue: promises settled, listeners called, server requests
//! answered. Most user code runs from here (the rest: a custom transport's `send` and `close`,
//! and `connect()`'s rejection, in [`Inner::run`] and [`super::connection`]). Every function
//! to call is cloned out of its part of [`Inner`] first, so no `RefCell` is borrowed while
//! user code runs, and user code may call back into the client (its work is queued and
//! delivered after the current item, in engine order).

use super::driver::{then_both, Inner};
use super::events::{self, Delivery};
use crate::client::engine::Event;
use wasm_bindgen::prelude::*;

impl Inner {
    /// Delivers one queued item; no borrow is held while user code runs.
    pub(super) fn deliver(&self, delivery: Delivery) {
        match delivery {
            Delivery::Event(Event::Response { id, result }) => {
                if let Some(waiter) = self.requests.take(id) {
                    self.settle(waiter, result);
                }
            }
            Delivery::Event(Event::Connected { info, resumed }) => {
                self.connection.handshake_done();
                let promise = self.connection.take_connect_promise();
                self.publish(&events::connected(&info, resumed));
                if let Some((resolve, _)) = promise {
                    let handle = self.client_handle();
                    let _ = resolve.call1(&JsValue::UNDEFINED, &handle);
                }
            }
            Delivery::Event(Event::HandshakeFailed(error)) => {
                if self.connection.ever_connected() {
                    self.mailbox.push_front(Delivery::ReconnectFailed {
                        attempt: self.connection.attempt(),
                        error: error.clone(),
                    });
                    self.connection_lost(&format!("handshake failed: {error}"));
                } else if !self.is_closed() {
                    self.fail_connect(&error);
                }
            }
            Delivery::Event(Event::ConnectionStale) => {
                self.connection_lost("keep-alive ping unanswered");
            }
            Delivery::Event(Event::StateChanged(state)) => {
                let name = state.name();
                for listener in self.listeners.states.snapshot() {
                    events::call(&listener, &[JsValue::from_str(name)]);
                }
                self.publish(&events::connection_state(name));
            }
            Delivery::Event(Event::ServerRequest(request)) => self.serve_request(request),
            Delivery::Event(Event::SubscriptionLost { channel, reason }) => {
                // Its `Subscription` keeps the last rendering as its `state`.
                self.channels.retire(&channel, None);
                self.publish(&events::subscription_lost(&channel, &reason));
            }
            Delivery::Event(event) => {
                if let Some(value) = events::client_event(&event) {
                    self.publish(&value);
                }
            }
            Delivery::ReconnectFailed { attempt, error } => {
                self.publish(&events::reconnect_failed(attempt, &error));
            }
            Delivery::Changed {
                channel,
                changed,
                pending,
                rejections,
            } => self.notify_channel(&channel, &changed, pending, &rejections),
        }
    }

    fn notify_channel(
        &self,
        channel: &str,
        changed: &[&'static str],
        pending: usize,
        rejections: &[JsValue],
    ) {
        let listeners = self.channels.listeners(channel);
        if listeners.is_empty() {
            return;
        }
        let state = self.channels.state(channel, &self.engine);
        let info = events::change_info(changed, pending, rejections);
        for listener in listeners {
            events::call(&listener, &[state.clone(), info.clone()]);
        }
    }

    /// Calls every client-event listener with `event`.
    pub fn publish(&self, event: &JsValue) {
        for listener in self.listeners.events.snapshot() {
            listener.call(event);
        }
    }

    fn serve_request(&self, request: crate::client::engine::ServerRequest) {
        let Some(handler) = self.listeners.handler(&request.method) else {
            let error = crate::protocol::jsonrpc::ErrorObject::new(
                crate::protocol::errors::METHOD_NOT_FOUND,
                format!("no handler for `{}`", request.method),
            );
            self.with_engine(|e, _| e.respond(&request.id, Err(error)));
            return;
        };
        let params = request
            .params
            .as_ref()
            .and_then(|p| js_sys::JSON::parse(p.get()).ok())
            .unwrap_or(JsValue::UNDEFINED);
        let returned = handler.call1(&JsValue::UNDEFINED, &params);
        let promise = match returned {
            Ok(value) => js_sys::Promise::resolve(&value),
            Err(thrown) => js_sys::Promise::reject(&thrown),
        };
        let (ok, err) = (self.me.clone(), self.me.clone());
        let (id_ok, id_err) = (request.id.clone(), request.id);
        let on_ok = Closure::once_into_js(move |value: JsValue| {
            if let Some(inner) = ok.upgrade() {
                let result = events::to_json(&value).map_err(|m| {
                    crate::protocol::jsonrpc::ErrorObject::new(
                        crate::protocol::errors::INTERNAL_ERROR,
                        format!("the handler's result is not JSON: {m}"),
                    )
                });
                inner.with_engine(|e, _| e.respond(&id_ok, result));
                inner.run();
            }
        });
        let on_err = Closure::once_into_js(move |thrown: JsValue| {
            if let Some(inner) = err.upgrade() {
                let error = events::error_object(&thrown);
                inner.with_engine(|e, _| e.respond(&id_err, Err(error)));
                inner.run();
            }
        });
        let _ = then_both(&promise, &on_ok, &on_err);
    }
}
