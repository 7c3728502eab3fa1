//! An in-memory transport: a connected pair of endpoints, and a connector/listener for tests
//! that reconnect. No runtime needed; works with any executor (and synchronously, through
//! [`MemoryTransport::try_recv`]).
//!
//! ```
//! use ahp_wasm::client::transport::{memory, Transport};
//!
//! let (mut client, mut server) = memory::pair();
//! client.send("hello".into()).unwrap();
//! assert_eq!(server.try_recv().as_deref(), Some("hello"));
//! server.close();
//! assert!(client.is_closed());
//! ```

use super::Transport;
use crate::client::{Error, TransportErrorKind};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct Queue {
    frames: VecDeque<String>,
    closed: bool,
    waker: Option<Waker>,
}

type Shared = Arc<Mutex<Queue>>;

fn lock(queue: &Shared) -> MutexGuard<'_, Queue> {
    queue
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One end of an in-memory connection.
pub struct MemoryTransport {
    inbox: Shared,
    outbox: Shared,
}

/// A connected pair: what one sends, the other receives, in order.
pub fn pair() -> (MemoryTransport, MemoryTransport) {
    let (a, b) = (Shared::default(), Shared::default());
    (
        MemoryTransport {
            inbox: a.clone(),
            outbox: b.clone(),
        },
        MemoryTransport {
            inbox: b,
            outbox: a,
        },
    )
}

impl MemoryTransport {
    /// The next received frame, if one is waiting (never blocks).
    pub fn try_recv(&mut self) -> Option<String> {
        lock(&self.inbox).frames.pop_front()
    }

    /// Whether either end closed the connection.
    pub fn is_closed(&self) -> bool {
        lock(&self.inbox).closed
    }
}

impl Transport for MemoryTransport {
    fn send(&mut self, frame: String) -> Result<(), Error> {
        let mut out = lock(&self.outbox);
        if out.closed {
            return Err(Error::transport(
                TransportErrorKind::Send,
                "the in-memory connection is closed",
            ));
        }
        out.frames.push_back(frame);
        if let Some(waker) = out.waker.take() {
            waker.wake();
        }
        Ok(())
    }

    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<String, Error>>> {
        let mut inbox = lock(&self.inbox);
        if let Some(frame) = inbox.frames.pop_front() {
            return Poll::Ready(Some(Ok(frame)));
        }
        if inbox.closed {
            return Poll::Ready(None);
        }
        inbox.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    fn close(&mut self) {
        // Frames already sent stay readable by the peer, then it sees the end.
        for queue in [&self.inbox, &self.outbox] {
            let mut q = lock(queue);
            q.closed = true;
            if let Some(waker) = q.waker.take() {
                waker.wake();
            }
        }
        lock(&self.inbox).frames.clear();
    }
}

impl Drop for MemoryTransport {
    fn drop(&mut self) {
        self.close();
    }
}

#[derive(Default)]
struct Accept {
    pending: VecDeque<MemoryTransport>,
    refusing: bool,
    waker: Option<Waker>,
}

/// Opens in-memory connections to a [`MemoryListener`].
#[derive(Clone)]
pub struct MemoryConnector {
    shared: Arc<Mutex<Accept>>,
}

/// Accepts the server ends of a [`MemoryConnector`]'s connections (clones share them).
#[derive(Clone)]
pub struct MemoryListener {
    shared: Arc<Mutex<Accept>>,
}

/// A connector and the listener it connects to.
pub fn listener() -> (MemoryConnector, MemoryListener) {
    let shared = Arc::new(Mutex::new(Accept::default()));
    (
        MemoryConnector {
            shared: shared.clone(),
        },
        MemoryListener { shared },
    )
}

fn lock_accept(shared: &Mutex<Accept>) -> MutexGuard<'_, Accept> {
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl MemoryConnector {
    /// Opens a connection (fails while the listener refuses connections).
    pub fn connect(&self) -> Result<MemoryTransport, Error> {
        let mut accept = lock_accept(&self.shared);
        if accept.refusing {
            return Err(Error::transport(
                TransportErrorKind::Connect,
                "connection refused (in-memory listener)",
            ));
        }
        let (client, server) = pair();
        accept.pending.push_back(server);
        if let Some(waker) = accept.waker.take() {
            waker.wake();
        }
        Ok(client)
    }
}

impl MemoryListener {
    /// Refuse (or accept again) new connections: simulates a host that is down.
    pub fn set_refusing(&self, refusing: bool) {
        lock_accept(&self.shared).refusing = refusing;
    }

    /// The server end of the next connection, if one is waiting.
    pub fn try_accept(&self) -> Option<MemoryTransport> {
        lock_accept(&self.shared).pending.pop_front()
    }

    /// Polls for the next connection.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<MemoryTransport> {
        let mut accept = lock_accept(&self.shared);
        match accept.pending.pop_front() {
            Some(t) => Poll::Ready(t),
            None => {
                accept.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    /// Awaits the next connection.
    pub async fn accept(&self) -> MemoryTransport {
        std::future::poll_fn(|cx| self.poll_accept(cx)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::transport::try_recv;

    #[test]
    fn frames_flow_in_order_both_ways_and_close_ends_both() {
        let (mut a, mut b) = pair();
        a.send("1".into()).unwrap();
        a.send("2".into()).unwrap();
        b.send("x".into()).unwrap();
        assert_eq!(try_recv(&mut b).unwrap().unwrap().unwrap(), "1");
        assert_eq!(b.try_recv().as_deref(), Some("2"));
        assert_eq!(a.try_recv().as_deref(), Some("x"));
        assert!(try_recv(&mut a).is_none(), "nothing there: pending");
        b.close();
        assert!(
            matches!(try_recv(&mut a), Some(None)),
            "closed: end of stream"
        );
        assert!(a.send("late".into()).is_err());
    }

    #[test]
    fn listener_accepts_and_refuses() {
        let (connector, listener) = listener();
        let mut client = connector.connect().unwrap();
        let mut server = listener.try_accept().unwrap();
        client.send("hi".into()).unwrap();
        assert_eq!(server.try_recv().as_deref(), Some("hi"));
        listener.set_refusing(true);
        assert!(matches!(
            connector.connect(),
            Err(Error::Transport {
                kind: TransportErrorKind::Connect,
                ..
            })
        ));
        drop(server);
        assert!(client.is_closed(), "dropping an end closes the connection");
    }
}
