//! [`Waiter`]: the promise of one request in flight.

use super::decode::Decode;
use js_sys::Function;

/// The promise of one request in flight.
pub(super) struct Waiter {
    pub(super) resolve: Function,
    pub(super) reject: Function,
    pub(super) decode: Decode,
}
