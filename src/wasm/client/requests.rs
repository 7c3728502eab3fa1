//! [`Requests`]: the promises of requests in flight, settled when their responses are
//! delivered.
//!
//! A promise settles from the driver's delivery, in engine order with the other deliveries;
//! its waiter is taken out of the map first, so no borrow is held while it settles.

use super::waiter::Waiter;
use litemap::LiteMap;
use std::cell::RefCell;

/// The requests in flight by JSON-RPC id. Exists so a response, delivered later from the
/// queue, finds its promise (a closed client's engine answers each with `ClientClosedError`).
#[derive(Default)]
pub struct Requests {
    waiters: RefCell<LiteMap<u64, Waiter>>,
}

impl Requests {
    pub(super) fn insert(&self, id: u64, waiter: Waiter) {
        self.waiters.borrow_mut().insert(id, waiter);
    }

    /// The waiter of request `id` (settle it after this returns).
    pub(super) fn take(&self, id: u64) -> Option<Waiter> {
        self.waiters.borrow_mut().remove(&id)
    }
}
