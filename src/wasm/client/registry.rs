//! [`Registry`]: listeners of one kind (client events, connection states), by id.

use std::cell::RefCell;

/// Listeners of one kind, by id, in the order they were added.
pub struct Registry<T>(RefCell<Vec<(u32, T)>>);

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry(RefCell::default())
    }
}

impl<T: Clone> Registry<T> {
    pub fn add(&self, id: u32, listener: T) {
        self.0.borrow_mut().push((id, listener));
    }

    pub fn remove(&self, id: u32) {
        self.0.borrow_mut().retain(|(i, _)| *i != id);
    }

    /// The listeners now (call them after this returns).
    pub fn snapshot(&self) -> Vec<T> {
        self.0.borrow().iter().map(|(_, l)| l.clone()).collect()
    }
}
