//! Delivery of the driver's queue: promises settled, listeners called, server requests
//! answered, with no `RefCell` borrowed while user code runs.

use super::driver::{then_both, Channel, Decode, Inner, Waiter};
use super::errors::to_js_error_for;
use super::events::{self, Delivery, Listener};
use crate::client::engine::Event;
use crate::client::Error;
use crate::sync::Rejection;
use crate::wasm::render::{confirmed_value, RenderedState};
use js_sys::Function;
use serde_json::value::RawValue;
use wasm_bindgen::prelude::*;

impl Inner {
    /// Delivers one queued item; no borrow is held while user code runs.
    pub(super) fn deliver(&self, delivery: Delivery) {
        match delivery {
            Delivery::Event(Event::Response { id, result }) => {
                let waiter = self.waiters.borrow_mut().remove(&id);
                if let Some(waiter) = waiter {
                    self.settle(waiter, result);
                }
            }
            Delivery::Event(Event::Connected { info, resumed }) => {
                self.ever_connected.set(true);
                self.attempt.set(0);
                let promise = self.connect_promise.borrow_mut().take();
                self.publish(&events::connected(&info, resumed));
                if let Some((resolve, _)) = promise {
                    let handle = self.client_handle();
                    let _ = resolve.call1(&JsValue::UNDEFINED, &handle);
                }
            }
            Delivery::Event(Event::HandshakeFailed(error)) => {
                if self.ever_connected.get() {
                    self.queue
                        .borrow_mut()
                        .push_front(Delivery::ReconnectFailed {
                            attempt: self.attempt.get(),
                            error: error.clone(),
                        });
                    self.connection_lost(&format!("handshake failed: {error}"));
                } else if !self.closed.get() {
                    self.fail_connect(&error);
                }
            }
            Delivery::Event(Event::ConnectionStale) => {
                self.connection_lost("keep-alive ping unanswered");
            }
            Delivery::Event(Event::StateChanged(state)) => {
                let name = events::state_name(state);
                let listeners: Vec<Function> = self
                    .state_listeners
                    .borrow()
                    .iter()
                    .map(|(_, f)| f.clone())
                    .collect();
                for listener in listeners {
                    events::call(&listener, &[JsValue::from_str(name)]);
                }
                self.publish(&events::connection_state(name));
            }
            Delivery::Event(Event::ServerRequest(request)) => self.serve_request(request),
            Delivery::Event(Event::SubscriptionLost { channel, reason }) => {
                self.channels.borrow_mut().remove(&channel);
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

    pub(super) fn settle(&self, waiter: Waiter, result: Result<Box<RawValue>, Error>) {
        let method = waiter.decode.method().to_string();
        let outcome = result
            .map_err(|e| to_js_error_for(&e, &method))
            .and_then(|raw| self.decode(&waiter.decode, &raw));
        let _ = match outcome {
            Ok(value) => waiter.resolve.call1(&JsValue::UNDEFINED, &value),
            Err(error) => waiter.reject.call1(&JsValue::UNDEFINED, &error),
        };
    }

    pub(super) fn decode(&self, decode: &Decode, raw: &RawValue) -> Result<JsValue, JsValue> {
        let invalid = |method: &str, message: String| {
            super::errors::to_js_error(&Error::InvalidResponse {
                method: method.to_string(),
                message,
            })
        };
        match decode {
            Decode::Json { method, void } => {
                if *void {
                    return Ok(JsValue::UNDEFINED);
                }
                js_sys::JSON::parse(raw.get()).map_err(|_| invalid(method, "not JSON".into()))
            }
            Decode::Raw { method } => {
                js_sys::JSON::parse(raw.get()).map_err(|_| invalid(method, "not JSON".into()))
            }
            Decode::Subscribe { channel } => Ok(self.subscription_handle(channel)),
        }
    }

    /// The channel's `Subscription` object (created on first use).
    pub fn subscription_handle(&self, channel: &str) -> JsValue {
        if let Some(entry) = self.channels.borrow().get(channel) {
            return entry.handle.clone();
        }
        let serial = self.listener_id();
        let handle: JsValue =
            super::subscription::Subscription::new(self.rc(), channel, serial).into();
        if !self.closed.get() {
            self.channels.borrow_mut().insert(
                channel.to_string(),
                Channel {
                    handle: handle.clone(),
                    serial,
                    render: None,
                    confirmed: None,
                    listeners: Vec::new(),
                },
            );
        }
        handle
    }

    /// The `AhpClient` object of this client.
    pub fn client_handle(&self) -> JsValue {
        if let Some(handle) = self.handle.borrow().as_ref() {
            return handle.clone();
        }
        let handle: JsValue = super::client::AhpClient::from_inner(self.rc()).into();
        if !self.closed.get() {
            *self.handle.borrow_mut() = Some(handle.clone());
        }
        handle
    }

    pub(super) fn notify_channel(
        &self,
        channel: &str,
        changed: &[&'static str],
        pending: usize,
        rejections: &[Rejection],
    ) {
        let listeners: Vec<Function> = match self.channels.borrow().get(channel) {
            Some(entry) if !entry.listeners.is_empty() => {
                entry.listeners.iter().map(|(_, f)| f.clone()).collect()
            }
            _ => return,
        };
        let state = self.state_of(channel);
        let info = events::change_info(changed, pending, rejections);
        for listener in listeners {
            events::call(&listener, &[state.clone(), info.clone()]);
        }
    }

    /// The frozen optimistic state of a channel (`undefined` without state).
    pub fn state_of(&self, channel: &str) -> JsValue {
        // The hot path (a UI reads `state` after every change): a rendering exists only while
        // the channel has a mirror (dropped with it), so no engine lookup is needed.
        if let Some(render) = self
            .channels
            .borrow()
            .get(channel)
            .and_then(|c| c.render.as_ref())
        {
            return render.value();
        }
        let mut channels = self.channels.borrow_mut();
        let engine = self.engine.borrow();
        let Some(mirror) = engine.mirror(channel) else {
            return JsValue::UNDEFINED;
        };
        if let Some(entry) = channels.get_mut(channel) {
            if entry.render.is_none() {
                match RenderedState::new(mirror) {
                    Ok(render) => entry.render = Some(render),
                    Err(error) => return error,
                }
            }
            return entry
                .render
                .as_ref()
                .map(RenderedState::value)
                .unwrap_or_default();
        }
        RenderedState::new(mirror)
            .map(|r| r.value())
            .unwrap_or_else(|e| e)
    }

    /// The frozen confirmed state of a channel (`undefined` without state).
    pub fn confirmed_of(&self, channel: &str) -> JsValue {
        let mut channels = self.channels.borrow_mut();
        let engine = self.engine.borrow();
        let Some(mirror) = engine.mirror(channel) else {
            return JsValue::UNDEFINED;
        };
        let entry = channels.get_mut(channel);
        if let Some(value) = entry.as_ref().and_then(|e| e.confirmed.clone()) {
            return value;
        }
        let value = confirmed_value(mirror).unwrap_or_else(|e| e);
        if let Some(entry) = entry {
            entry.confirmed = Some(value.clone());
        }
        value
    }

    /// Calls every client-event listener with `event`.
    pub fn publish(&self, event: &JsValue) {
        let listeners: Vec<Listener> = self
            .listeners
            .borrow()
            .iter()
            .map(|(_, l)| l.clone())
            .collect();
        for listener in listeners {
            listener.call(event);
        }
    }

    pub(super) fn serve_request(&self, request: crate::client::engine::ServerRequest) {
        let handler = self.handlers.borrow().get(&request.method).cloned();
        let Some(handler) = handler else {
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
