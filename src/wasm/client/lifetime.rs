//! [`Lifetime`]: whether a client is open, and the references that tie it to JS (generic over
//! the client, which holds its `Lifetime`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Whether the client is open, and the references that tie it to JS. Exists because the
/// client and the JS objects it hands out refer to each other: while open it holds itself
/// (its transport and timers refer to it weakly, so nothing else would), and `close()` lets
/// go of it all, breaking the JS <-> Rust cycles.
pub struct Lifetime<T> {
    closed: Cell<bool>,
    /// The client itself, while open.
    alive: RefCell<Option<Rc<T>>>,
    /// The `AhpClient` object (one per client, so `multi.host(name) === client`).
    handle: RefCell<Option<JsValue>>,
}

impl<T> Default for Lifetime<T> {
    fn default() -> Self {
        Lifetime {
            closed: Cell::new(false),
            alive: RefCell::new(None),
            handle: RefCell::new(None),
        }
    }
}

impl<T> Lifetime<T> {
    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }

    /// Keeps the client alive until [`Lifetime::let_go`].
    pub fn hold(&self, client: Rc<T>) {
        *self.alive.borrow_mut() = Some(client);
    }

    pub fn close(&self) {
        self.closed.set(true);
    }

    /// The `AhpClient` object, or `make`'s (kept while open).
    pub fn handle_or(&self, make: impl FnOnce() -> JsValue) -> JsValue {
        if let Some(handle) = self.handle.borrow().as_ref() {
            return handle.clone();
        }
        let handle = make();
        if !self.is_closed() {
            *self.handle.borrow_mut() = Some(handle.clone());
        }
        handle
    }

    /// The `AhpClient` object and the client itself, to drop with no borrow held.
    pub fn let_go(&self) -> (Option<JsValue>, Option<Rc<T>>) {
        (
            self.handle.borrow_mut().take(),
            self.alive.borrow_mut().take(),
        )
    }
}
