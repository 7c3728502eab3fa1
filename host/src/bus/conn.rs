//! A connection as the hub and the workers see it: its id, its bounded outbound queue and the
//! flags its tasks share.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Identifies one WebSocket connection.
pub type ConnId = u64;

/// State a connection's tasks share with the hub.
#[derive(Debug, Default)]
pub struct ConnShared {
    /// Set once `initialize` or `reconnect` succeeded.
    pub initialized: AtomicBool,
    /// Set (before `initialized`) when the handshake chose AHP 1.0: requests and dispatches
    /// are decoded with the 1.0 types.
    pub v1: AtomicBool,
    /// Cancelled to drop the connection at once (slow consumer, takeover, shutdown).
    pub kill: CancellationToken,
    /// Set when the connection is dropped because it does not read what it is sent.
    pub slow: AtomicBool,
    /// Set when the connection is dropped for a frame over the WebSocket layer's bound.
    pub too_big: AtomicBool,
    /// Bytes of frames queued and not yet handed to the socket.
    pub queued_bytes: AtomicUsize,
    /// The most `queued_bytes` may reach.
    pub max_queued_bytes: usize,
    /// Requests of this connection in flight on `mcp://` channels (see `mcp_channel.rs`).
    pub mcp_inflight: AtomicUsize,
    /// `completions` of this connection being answered (see `session_config.rs`).
    pub completions_inflight: AtomicUsize,
    /// Asks the writer to send a WebSocket ping (see `id_claims.rs`).
    pub ping: tokio::sync::Notify,
    /// Set while the hub waits for a pong: the reader reports the next one.
    pub awaiting_pong: AtomicBool,
}

impl ConnShared {
    /// Shared state for a connection whose queue holds at most `max_queued_bytes`.
    pub fn new(max_queued_bytes: usize) -> ConnShared {
        ConnShared {
            max_queued_bytes,
            ..ConnShared::default()
        }
    }

    /// Drops the connection as a slow consumer.
    pub fn drop_slow(&self) {
        self.slow.store(true, Ordering::Relaxed);
        self.kill.cancel();
    }

    /// Drops the connection for a frame over the WebSocket layer's bound (close code 1009).
    pub fn drop_too_big(&self) {
        self.too_big.store(true, Ordering::Relaxed);
        self.kill.cancel();
    }

    /// The writer handed a frame of `len` bytes to the socket.
    pub fn written(&self, len: usize) {
        self.queued_bytes.fetch_sub(len, Ordering::Relaxed);
    }
}

/// Why a frame could not be queued.
#[derive(Debug, PartialEq, Eq)]
pub enum QueueError {
    /// The peer does not read fast enough: the connection has been dropped.
    Slow,
    /// The connection is gone.
    Closed,
}

/// The hub's handle on a connection: its bounded outbound queue. An empty frame asks the
/// writer to close the connection after everything queued before it.
#[derive(Debug, Clone)]
pub struct ConnHandle {
    /// Outbound frames.
    pub tx: mpsc::Sender<Arc<str>>,
    /// Shared flags.
    pub shared: Arc<ConnShared>,
}

impl ConnHandle {
    /// Queues a frame, bounded by count (the channel) and by bytes; a peer over either bound
    /// is dropped as a slow consumer.
    pub fn queue(&self, frame: Arc<str>) -> Result<(), QueueError> {
        let len = frame.len();
        let before = self.shared.queued_bytes.fetch_add(len, Ordering::Relaxed);
        // One frame alone may exceed the budget (it was checked against the response limit).
        if before > 0 && before + len > self.shared.max_queued_bytes {
            self.shared.written(len);
            self.shared.drop_slow();
            return Err(QueueError::Slow);
        }
        if crate::probe::on() && frame.contains("\"session/delta\"") {
            crate::probe::mark(crate::probe::Stage::Queued);
        }
        match self.tx.try_send(frame) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.shared.written(len);
                match e {
                    mpsc::error::TrySendError::Full(_) => {
                        self.shared.drop_slow();
                        Err(QueueError::Slow)
                    }
                    mpsc::error::TrySendError::Closed(_) => Err(QueueError::Closed),
                }
            }
        }
    }
}
