//! [`Listeners`]: the user code a client calls: client-event listeners (`onEvent`), connection
//! state listeners (`onConnectionStateChange`) and server-request handlers
//! (`setRequestHandler`).
//!
//! Nothing here calls user code: a delivery takes a snapshot (clones of the functions), lets
//! the borrow go, then calls them (see [`super::delivery`]). So a listener may add or remove
//! listeners, and a listener removed during a delivery still gets that delivery.

use super::events::Listener;
use js_sys::Function;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

/// What the client calls back, by id (the ids of removers) or method. Exists so registration
/// (from API calls) and calling (from deliveries) meet in one place, never under a borrow.
pub struct Listeners {
    /// The next id (also the serials of `Subscription` objects).
    next_id: Cell<u32>,
    events: RefCell<Vec<(u32, Listener)>>,
    states: RefCell<Vec<(u32, Function)>>,
    /// Server→client request handlers by method.
    handlers: RefCell<BTreeMap<String, Function>>,
}

impl Default for Listeners {
    fn default() -> Self {
        Listeners {
            next_id: Cell::new(1),
            events: RefCell::default(),
            states: RefCell::default(),
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

    /// Adds a client-event listener; returns its id.
    pub fn add_event(&self, listener: Listener) -> u32 {
        let id = self.next_id();
        self.events.borrow_mut().push((id, listener));
        id
    }

    pub fn remove_event(&self, id: u32) {
        self.events.borrow_mut().retain(|(i, _)| *i != id);
    }

    /// The client-event listeners now (call them after this returns).
    pub fn event_listeners(&self) -> Vec<Listener> {
        self.events
            .borrow()
            .iter()
            .map(|(_, l)| l.clone())
            .collect()
    }

    /// Adds a connection state listener; returns its id.
    pub fn add_state(&self, listener: Function) -> u32 {
        let id = self.next_id();
        self.states.borrow_mut().push((id, listener));
        id
    }

    pub fn remove_state(&self, id: u32) {
        self.states.borrow_mut().retain(|(i, _)| *i != id);
    }

    /// The connection state listeners now (call them after this returns).
    pub fn state_listeners(&self) -> Vec<Function> {
        self.states
            .borrow()
            .iter()
            .map(|(_, f)| f.clone())
            .collect()
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
