//! [`Listeners`]: the user code a client calls: client-event listeners (`onEvent`), connection
//! state listeners (`onConnectionStateChange`) and server-request handlers
//! (`setRequestHandler`).
//!
//! Nothing here calls user code: a delivery takes a snapshot (clones of the functions), lets
//! the borrow go, then calls them (see the driver's `deliver`). So a listener may add or remove
//! listeners, and a listener removed during a delivery still gets that delivery.

use super::listener::Listener;
use super::registry::Registry;
use js_sys::Function;
use litemap::LiteMap;
use std::cell::{Cell, RefCell};

/// What the client calls back, by id (the ids of removers) or method. Exists so registration
/// (from API calls) and calling (from deliveries) meet in one place, never under a borrow.
pub struct Listeners {
    /// The next id (also the serials of `Subscription` objects).
    next_id: Cell<u32>,
    /// `onEvent` (and `MultiHostClient`'s fan-in).
    pub events: Registry<Listener>,
    /// `onConnectionStateChange`.
    pub states: Registry<Function>,
    /// Server→client request handlers by method.
    handlers: RefCell<LiteMap<String, Function>>,
}

impl Default for Listeners {
    fn default() -> Self {
        Listeners {
            next_id: Cell::new(1),
            events: Registry::default(),
            states: Registry::default(),
            handlers: RefCell::default(),
        }
    }
}

impl Listeners {
    /// A fresh id.
    pub fn next_id(&self) -> u32 {
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1));
        id
    }

    /// Sets (or replaces) the handler of server requests of `method`.
    pub fn set_handler(&self, method: String, handler: Function) {
        self.handlers.borrow_mut().insert(method, handler);
    }

    /// The handler of `method` (call it after this returns).
    pub fn handler(&self, method: &str) -> Option<Function> {
        self.handlers.borrow().get(method).cloned()
    }
}
