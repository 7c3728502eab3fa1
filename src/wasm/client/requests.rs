//! [`Requests`]: the promises of requests in flight, settled when their responses are
//! delivered, and how each result becomes a JS value ([`Decode`]).
//!
//! A promise settles from [`super::delivery`], in engine order with the other deliveries; its
//! waiter is taken out of the map first, so no borrow is held while it settles.

use super::driver::Inner;
use super::errors::to_js_error_for;
use crate::client::engine::Engine;
use crate::client::Error;
use crate::protocol::{RawJson, RawJsonBuf};
use js_sys::Function;
use litemap::LiteMap;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// How a request's result becomes a JS value.
pub enum Decode {
    /// `JSON.parse` of the result; `void`: resolves `undefined`.
    Json { method: &'static str, void: bool },
    /// Any JSON (`request(method, params)`).
    Raw { method: String },
    /// `subscribe`: resolves the channel's `Subscription`.
    Subscribe { channel: String },
}

impl Decode {
    pub(super) fn method(&self) -> &str {
        match self {
            Decode::Json { method, .. } => method,
            Decode::Raw { method } => method,
            Decode::Subscribe { .. } => "subscribe",
        }
    }
}

/// The promise of one request in flight.
pub(super) struct Waiter {
    pub(super) resolve: Function,
    pub(super) reject: Function,
    pub(super) decode: Decode,
}

/// The requests in flight by JSON-RPC id. Exists so a response, delivered later from the
/// queue, finds its promise (a closed client's engine answers each with `ClientClosedError`).
#[derive(Default)]
pub struct Requests {
    waiters: RefCell<LiteMap<u64, Waiter>>,
}

impl Requests {
    fn insert(&self, id: u64, waiter: Waiter) {
        self.waiters.borrow_mut().insert(id, waiter);
    }

    /// The waiter of request `id` (settle it after this returns).
    pub(super) fn take(&self, id: u64) -> Option<Waiter> {
        self.waiters.borrow_mut().remove(&id)
    }
}

impl Inner {
    /// Starts a request and registers its promise; returns the promise.
    pub fn request(
        &self,
        start: impl FnOnce(&mut Engine, f64) -> u64,
        decode: Decode,
    ) -> js_sys::Promise {
        let mut slots = None;
        let promise = js_sys::Promise::new(&mut |resolve, reject| slots = Some((resolve, reject)));
        let (resolve, reject) = slots.expect("the executor runs synchronously");
        let id = self.with_engine(start);
        self.requests.insert(
            id,
            Waiter {
                resolve,
                reject,
                decode,
            },
        );
        self.run();
        promise
    }

    /// Settles a request's promise with its result.
    pub(super) fn settle(&self, waiter: Waiter, result: Result<RawJsonBuf, Error>) {
        let method = waiter.decode.method().to_string();
        let outcome = result
            .map_err(|e| to_js_error_for(&e, &method))
            .and_then(|raw| self.decode(&waiter.decode, raw.as_raw()));
        let _ = match outcome {
            Ok(value) => waiter.resolve.call1(&JsValue::UNDEFINED, &value),
            Err(error) => waiter.reject.call1(&JsValue::UNDEFINED, &error),
        };
    }

    fn decode(&self, decode: &Decode, raw: RawJson<'_>) -> Result<JsValue, JsValue> {
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
}
