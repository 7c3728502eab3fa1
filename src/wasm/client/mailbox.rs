//! [`Mailbox`]: the work between the engine and the outside world, queued so that no user code
//! runs while the client's state is borrowed.
//!
//! The engine is called from many places (transport callbacks, timers, API calls, listeners
//! calling back in); what it produces waits here: frames to send in the outbox, items to
//! deliver to user code in the queue, frames that arrived during a delivery in the inbox.
//! [`Inner::run`](super::driver::Inner::run) empties it, and only one run is under way at a
//! time (the `busy` guard): a re-entrant call leaves its work here for the outer run.
//!
//! Nothing here calls user code.

use super::delivery::Delivery;
use crate::client::engine::Engine;
use std::cell::{Cell, RefCell, RefMut};
use std::collections::VecDeque;

/// The driver's queues and its re-entrancy guard. Exists so that state changes (engine calls,
/// renderings patched) always finish before any notification runs, and notifications run in
/// engine order, one at a time.
#[derive(Default)]
pub struct Mailbox {
    /// [`Inner::run`](super::driver::Inner::run) is under way (it may be calling user code).
    busy: Cell<bool>,
    /// Frames received during a run, parsed by that run (in one batch).
    inbox: RefCell<Vec<String>>,
    /// Frames the engine wrote, sent by the run while the connection is open.
    outbox: RefCell<VecDeque<String>>,
    /// What to deliver to user code, in engine order.
    queue: RefCell<VecDeque<Delivery>>,
}

impl Mailbox {
    /// Starts a run; false when one is already under way (the caller returns at once).
    pub fn enter(&self) -> bool {
        !self.busy.replace(true)
    }

    /// Ends the run started by [`Mailbox::enter`].
    pub fn leave(&self) {
        self.busy.set(false);
    }

    /// A run is under way: a frame received now waits in the inbox.
    pub fn is_busy(&self) -> bool {
        self.busy.get()
    }

    /// Frames from the transport, parsed by the next run.
    pub fn receive(&self, frames: impl IntoIterator<Item = String>) {
        self.inbox.borrow_mut().extend(frames);
    }

    /// The received frames, oldest first (empty when none).
    pub fn take_received(&self) -> Vec<String> {
        std::mem::take(&mut *self.inbox.borrow_mut())
    }

    /// Drops frames of a transport that was let go.
    pub fn clear_received(&self) {
        self.inbox.borrow_mut().clear();
    }

    /// Moves the frames the engine wrote to the outbox.
    pub fn collect_outgoing(&self, engine: &mut Engine) {
        let mut outbox = self.outbox.borrow_mut();
        while let Some(frame) = engine.poll_transmit() {
            outbox.push_back(frame);
        }
    }

    pub fn has_outgoing(&self) -> bool {
        !self.outbox.borrow().is_empty()
    }

    pub fn next_outgoing(&self) -> Option<String> {
        self.outbox.borrow_mut().pop_front()
    }

    /// Drops unsent frames (the connection they were for is gone; the engine resends).
    pub fn clear_outgoing(&self) {
        self.outbox.borrow_mut().clear();
    }

    /// Queues a delivery after those already queued.
    pub fn push(&self, delivery: Delivery) {
        self.queue.borrow_mut().push_back(delivery);
    }

    /// Queues a delivery before those already queued.
    pub fn push_front(&self, delivery: Delivery) {
        self.queue.borrow_mut().push_front(delivery);
    }

    /// The queue, for [`Inner::sync`](super::driver::Inner::sync) to fill (release it before
    /// any user code runs).
    pub fn queue(&self) -> RefMut<'_, VecDeque<Delivery>> {
        self.queue.borrow_mut()
    }

    /// The next delivery; the borrow ends before the caller delivers it.
    pub fn next_delivery(&self) -> Option<Delivery> {
        self.queue.borrow_mut().pop_front()
    }
}
