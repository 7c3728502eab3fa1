//! [`Delivery`]: an item of the driver's delivery queue, what user code is told (in engine
//! order, with no borrow held).

use crate::client::engine::Event;
use crate::client::Error;
use crate::wasm::wire::ChannelEvent;
use wasm_bindgen::prelude::*;

/// An item of the delivery queue.
pub enum Delivery {
    /// An engine event (never a channel's, nor `Subscribed`).
    Event(Event),
    /// A channel event (never `Changed`: those become [`Delivery::Changed`]). Boxed: rare, and
    /// a 1.0 action makes it the largest item.
    Channel(Box<ChannelEvent>),
    /// A reconnection attempt failed.
    ReconnectFailed { attempt: u32, error: Error },
    /// One change notification of a channel (all its changes of one engine drain).
    Changed {
        channel: String,
        changed: Vec<&'static str>,
        pending: usize,
        /// The rejections of its pending actions, as JS `Rejection` objects.
        rejections: Vec<JsValue>,
    },
}
