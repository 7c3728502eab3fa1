//! [`TransportEvents`]: what a connection reports to the client that opened it, each report
//! tagged with the connection's generation (a stale connection's late reports are ignored).
//!
//! A trait so the transports ([`super::transport`], [`super::frame_sink`]) need not know the
//! client's driver, which opens them: the driver implements it.

use wasm_bindgen::prelude::*;

/// The reports of a connection, in the order they may come: open, frames (or a value that is
/// not a frame), closed.
pub trait TransportEvents {
    /// The connection opened.
    fn transport_open(&self, generation: u64);

    /// Frames arrived (parsed by the next run).
    fn transport_frames(&self, generation: u64, frames: Vec<String>);

    /// The transport delivered a value that is not a text frame.
    fn transport_bad_frame(&self, generation: u64, value: &JsValue);

    /// The connection closed (or failed to open) for `reason`.
    fn transport_closed(&self, generation: u64, reason: &str);

    /// Takes one frame without running user code (`now`: when it arrived); whether the caller
    /// should [`TransportEvents::run`] now (false: a stale connection's frame, ignored).
    fn accept_frame(&self, generation: u64, text: &str, now: f64) -> bool;

    /// Reports a frame the transport could not hand over (`why`); whether to run.
    fn reject_frame(&self, generation: u64, why: &str) -> bool;

    /// Sends what is queued and delivers to user code (after [`TransportEvents::accept_frame`]).
    fn run(&self);
}
