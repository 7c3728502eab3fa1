//! [`Channels`]: the JS side of the subscribed channels: one `Subscription` object per channel,
//! its frozen renderings (the optimistic state patched in place after every change, the
//! confirmed state rebuilt on read) and its `onChange` listeners (a [`Channel`] each); the
//! [`Changes`] of each engine drain are applied here.
//!
//! Nothing here calls user code: renderings are brought up to date while the engine drains
//! (before any listener runs, so `state` is current inside every listener), and listeners
//! are handed out as a snapshot for the driver's delivery to call with no borrow held.

use super::changes::Changes;
use super::channel::Channel;
use super::delivery::Delivery;
use crate::client::engine::Engine;
use crate::wasm::render::{confirmed_value, RenderedState};
use crate::wasm::wire;
use js_sys::Function;
use litemap::LiteMap;
use std::cell::RefCell;
use std::collections::VecDeque;
use wasm_bindgen::prelude::*;

/// The last states of a channel whose subscription ended (unsubscribed or lost).
struct Retired {
    state: JsValue,
    confirmed: JsValue,
}

/// The handed-out objects of a closed client's channels, to drop with no borrow held.
pub type LetGo = Vec<(JsValue, Vec<(u32, Function)>)>;

/// The subscribed channels' objects, renderings and listeners. Exists so `state` reads are
/// cheap (a rendering, no engine lookup) and so renderings change only in [`Channels::apply`].
#[derive(Default)]
pub struct Channels {
    /// Few entries, looked up per frame and per `state` read: a sorted vector (`LiteMap`:
    /// binary search, no SipHash, and a fraction of a `BTreeMap`'s code in the wasm module).
    map: RefCell<LiteMap<String, Channel>>,
    /// [`Changes`] between drains (kept for its capacity: a drain runs per frame).
    scratch: RefCell<Changes>,
    /// The last states of ended subscriptions by channel and serial, so an ended
    /// `Subscription` keeps answering `state` with what it last showed; dropped with the object.
    /// (A list: few ended objects are alive at once.)
    retired: RefCell<Vec<(String, u32, Retired)>>,
}

impl Channels {
    /// The channel's `Subscription` object, if it has one.
    pub fn handle(&self, channel: &str) -> Option<JsValue> {
        self.map.borrow().get(channel).map(|c| c.handle.clone())
    }

    /// Registers the channel's `Subscription` object (`serial`: its serial).
    pub fn insert(&self, channel: &str, handle: JsValue, serial: u32) {
        crate::wasm::render::init_sink(&handle);
        let entry = Channel {
            handle,
            serial,
            render: None,
            confirmed: None,
            listeners: Vec::new(),
        };
        self.map.borrow_mut().insert(channel.to_string(), entry);
    }

    /// Forgets the channel (unsubscribed, or its subscription was lost), keeping its last
    /// states for its `Subscription` object: rendered now from the mirror when `engine` is
    /// given and the channel still has one, otherwise the renderings made so far.
    pub fn retire(&self, channel: &str, engine: Option<&RefCell<Engine>>) {
        let (state, confirmed) = match engine {
            Some(engine) => {
                // Its pending actions are dropped with it: what remains is the confirmed state.
                let confirmed = self.confirmed(channel, engine);
                let pending =
                    wire::mirror(&engine.borrow(), channel).map_or(0, |m| m.pending_count());
                let state = if pending == 0 {
                    self.state(channel, engine)
                } else {
                    confirmed.clone()
                };
                (state, confirmed)
            }
            None => self.map.borrow().get(channel).map_or_else(
                || (JsValue::UNDEFINED, JsValue::UNDEFINED),
                |c| {
                    (
                        c.render
                            .as_ref()
                            .map(RenderedState::value)
                            .unwrap_or_default(),
                        c.confirmed.clone().unwrap_or_default(),
                    )
                },
            ),
        };
        let removed = self.map.borrow_mut().remove(channel);
        if let Some(entry) = removed {
            let retired = Retired { state, confirmed };
            let mut list = self.retired.borrow_mut();
            list.retain(|(c, s, _)| !(c == channel && *s == entry.serial));
            list.push((channel.to_string(), entry.serial, retired));
        }
    }

    /// The last optimistic (`confirmed`: confirmed) state of an ended subscription.
    pub fn retired(&self, channel: &str, serial: u32, confirmed: bool) -> JsValue {
        self.retired
            .borrow()
            .iter()
            .find(|(c, s, _)| c == channel && *s == serial)
            .map(|(_, _, r)| if confirmed { &r.confirmed } else { &r.state })
            .cloned()
            .unwrap_or_default()
    }

    /// The `Subscription` object of an ended subscription is gone: so are its last states.
    pub fn drop_retired(&self, channel: &str, serial: u32) {
        if let Ok(mut retired) = self.retired.try_borrow_mut() {
            retired.retain(|(c, s, _)| !(c == channel && *s == serial));
        }
    }

    /// Whether the object of serial `serial` is still the channel's `Subscription`.
    pub fn is_current(&self, channel: &str, serial: u32) -> bool {
        self.map
            .borrow()
            .get(channel)
            .is_some_and(|c| c.serial == serial)
    }

    /// Adds a change listener of the object `serial` (ignored when it is not current).
    pub fn add_listener(&self, channel: &str, serial: u32, id: u32, listener: Function) {
        if let Some(entry) = self.map.borrow_mut().get_mut(channel) {
            if entry.serial == serial {
                entry.listeners.push((id, listener));
            }
        }
    }

    pub fn remove_listener(&self, channel: &str, id: u32) {
        if let Some(entry) = self.map.borrow_mut().get_mut(channel) {
            entry.listeners.retain(|(i, _)| *i != id);
        }
    }

    /// The channel's change listeners now (call them after this returns).
    pub fn listeners(&self, channel: &str) -> Vec<Function> {
        self.map.borrow().get(channel).map_or_else(Vec::new, |c| {
            c.listeners.iter().map(|(_, f)| f.clone()).collect()
        })
    }

    /// The client closed: lets the handed-out objects and listeners go (they hold the client:
    /// keeping them would keep it alive through the JS <-> Rust cycle). The channels keep
    /// their renderings, so subscriptions keep their last state.
    pub fn let_go(&self) -> LetGo {
        self.map
            .borrow_mut()
            .iter_mut()
            .map(|(_, c)| c)
            .map(|c| {
                if let Some(render) = c.render.as_mut() {
                    render.release_sink();
                }
                (
                    std::mem::take(&mut c.handle),
                    std::mem::take(&mut c.listeners),
                )
            })
            .collect()
    }

    /// The frozen optimistic state of a channel (`undefined` without state).
    pub fn state(&self, channel: &str, engine: &RefCell<Engine>) -> JsValue {
        // The hot path (a UI reads `state` after every change): a rendering exists only while
        // the channel has a mirror (dropped with it), so no engine lookup is needed.
        if let Some(render) = self
            .map
            .borrow()
            .get(channel)
            .and_then(|c| c.render.as_ref())
        {
            return render.value();
        }
        let mut channels = self.map.borrow_mut();
        let engine = engine.borrow();
        let Some(mirror) = wire::mirror(&engine, channel) else {
            return JsValue::UNDEFINED;
        };
        if let Some(entry) = channels.get_mut(channel) {
            if entry.render.is_none() {
                match RenderedState::new(mirror, entry.handle.clone()) {
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
        RenderedState::new(mirror, JsValue::UNDEFINED)
            .map(|r| r.value())
            .unwrap_or_else(|e| e)
    }

    /// The frozen confirmed state of a channel (`undefined` without state).
    pub fn confirmed(&self, channel: &str, engine: &RefCell<Engine>) -> JsValue {
        let mut channels = self.map.borrow_mut();
        let engine = engine.borrow();
        let Some(mirror) = wire::mirror(&engine, channel) else {
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

    /// Starts gathering the changes of one engine drain.
    pub fn gather(&self) -> Changes {
        std::mem::take(&mut *self.scratch.borrow_mut())
    }

    /// Brings the renderings up to date with `changes` and queues one `Changed` delivery per
    /// channel that has listeners. Runs no user code.
    pub fn apply(&self, changes: Changes, engine: &Engine, queue: &mut VecDeque<Delivery>) {
        *self.scratch.borrow_mut() = changes.apply(&self.map, engine, queue);
    }
}
