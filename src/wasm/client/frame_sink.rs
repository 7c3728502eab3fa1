//! [`FrameSink`]: the hot path of custom transports' frames into wasm memory.

use super::transport_events::TransportEvents;
use std::cell::RefCell;
use std::rc::Weak;
use wasm_bindgen::prelude::*;

/// Frames up to this many UTF-8 bytes reach wasm through a reused buffer (JS
/// `TextEncoder.encodeInto` straight into wasm memory: no allocation, no per-character copy
/// loop); longer ones go as strings, so the buffer never keeps a huge frame's size.
const FRAME_BUFFER_MAX_BYTES: u32 = 256 * 1024;

/// The hot path of custom transports, a class so that JS calls it as an exported method
/// (a direct call; a `Closure` goes through wasm-bindgen's generic wrapper on every frame):
/// `reserve(n) => ptr` lends JS a buffer of at least `n` bytes in wasm memory (0 when it
/// cannot: JS then passes the frame as a string), and `take(len, now)` takes the UTF-8 frame JS
/// wrote there. The bytes are read (parsed or copied) before any user code runs, so a
/// re-entrant frame cannot overwrite them in use. Not part of the package's API.
#[wasm_bindgen(skip_typescript)]
pub struct FrameSink {
    inner: Weak<dyn TransportEvents>,
    generation: u64,
    buffer: RefCell<Vec<u8>>,
}

#[wasm_bindgen]
impl FrameSink {
    pub fn reserve(&self, bytes: u32) -> u32 {
        let Ok(mut buffer) = self.buffer.try_borrow_mut() else {
            return 0;
        };
        if bytes > FRAME_BUFFER_MAX_BYTES {
            return 0;
        }
        if buffer.len() < bytes as usize {
            // Zero-filled, so reading what JS wrote is plain safe slicing.
            *buffer = vec![0; (bytes as usize).next_power_of_two().max(1024)];
        }
        buffer.as_mut_ptr() as u32
    }

    /// `now`: `Date.now()` when the frame arrived (read in JS: cheaper than a call out of wasm
    /// for it).
    pub fn take(&self, len: u32, now: f64) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        let accepted = match self.buffer.try_borrow() {
            Ok(bytes) => match bytes.get(..len as usize).map(std::str::from_utf8) {
                Some(Ok(text)) => inner.accept_frame(self.generation, text, now),
                _ => inner.reject_frame(self.generation, "a frame that is not UTF-8 text"),
            },
            Err(_) => {
                inner.reject_frame(self.generation, "a frame while the previous one was read")
            }
        };
        if accepted {
            inner.run();
        }
    }
}

impl FrameSink {
    /// The sink of the connection of `generation`, reporting to `inner`.
    pub fn new(inner: Weak<dyn TransportEvents>, generation: u64) -> FrameSink {
        FrameSink {
            inner,
            generation,
            buffer: RefCell::new(Vec::new()),
        }
    }
}
