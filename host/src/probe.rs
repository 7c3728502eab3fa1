//! Timestamps of a streamed text chunk at each stage of its way through the host (provider
//! socket → SSE event → agent task → hub → connection queue → WebSocket writer), so the per-chunk measurement
//! (`tests/chunk_latency.rs`) can say where time goes. Off unless a test turns it on: a mark
//! costs one relaxed atomic load then.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// A point on a text chunk's way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The provider's stream decoded a text delta (bytes read, SSE parsed, wire decoded).
    Decoded,
    /// The model agent's task took the delta from the stream.
    AgentGot,
    /// The agent handed its `session/delta` to the hub.
    AgentSent,
    /// The hub queued the `session/delta` frame for a connection (after it woke, applied the
    /// action and committed it to SQLite).
    Queued,
    /// The connection's writer task took the frame from its queue.
    WriterGot,
    /// The frame was flushed to the socket.
    Flushed,
}

static ON: AtomicBool = AtomicBool::new(false);
static MARKS: Mutex<Vec<(Stage, Instant)>> = Mutex::new(Vec::new());

/// Starts recording (and forgets earlier marks).
pub fn enable() {
    MARKS.lock().unwrap_or_else(|e| e.into_inner()).clear();
    ON.store(true, Ordering::Relaxed);
}

/// Whether marks are recorded.
#[inline]
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Records `stage` now, when on.
#[inline]
pub fn mark(stage: Stage) {
    if on() {
        let now = Instant::now();
        MARKS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((stage, now));
    }
}

/// Stops recording; answers the times of `stage`, in order, per stage asked.
pub fn take(stages: &[Stage]) -> Vec<Vec<Instant>> {
    ON.store(false, Ordering::Relaxed);
    let marks = std::mem::take(&mut *MARKS.lock().unwrap_or_else(|e| e.into_inner()));
    stages
        .iter()
        .map(|s| {
            marks
                .iter()
                .filter(|(m, _)| m == s)
                .map(|(_, t)| *t)
                .collect()
        })
        .collect()
}
