//! Requests from the host to a client (JSON-RPC requests the host sends on a connection and
//! whose responses the connection's reader hands back): `resourceList`/`resourceRead` of
//! client-published plugins.
//!
//! Bounded: each request has a timeout, a connection has at most [`MAX_IN_FLIGHT`] of them, a
//! response is at most the connection's frame limit (a larger one is refused by the reader and
//! the request times out), and a connection that closes fails its requests at once. Only the
//! connection a request went to can answer it.

use crate::bus::{ConnHandle, ConnId};
use ahp_wasm::protocol::jsonrpc::{self, ErrorObject, RequestId};
use ahp_wasm::protocol::RawJson;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// Requests one connection may have outstanding.
pub const MAX_IN_FLIGHT: usize = 32;

/// Why a request to a client failed.
#[derive(Debug, Clone, PartialEq)]
pub enum PeerError {
    /// The client answered with an error.
    Rpc(ErrorObject),
    /// No answer in time.
    Timeout(Duration),
    /// The connection closed (or could not take the request).
    Closed,
    /// Too many requests outstanding on that connection.
    Busy,
}

impl std::fmt::Display for PeerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PeerError::Rpc(e) => write!(f, "the client answered {} ({})", e.code, e.message),
            PeerError::Timeout(d) => {
                write!(f, "the client did not answer within {} ms", d.as_millis())
            }
            PeerError::Closed => f.write_str("the client's connection closed"),
            PeerError::Busy => f.write_str("too many requests to the client in flight"),
        }
    }
}

type Reply = Result<String, ErrorObject>;

/// The host's outstanding requests to clients, shared by the hub's tasks and the connections'
/// readers.
#[derive(Debug, Default)]
pub struct PeerRequests {
    next: AtomicI64,
    pending: Mutex<HashMap<i64, (ConnId, oneshot::Sender<Reply>)>>,
}

/// Removes a request from the table when its caller stops waiting (answered, timed out or
/// dropped).
struct Forget<'a>(&'a PeerRequests, i64);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.0.lock().remove(&self.1);
    }
}

impl PeerRequests {
    /// A shared, empty table.
    pub fn new() -> Arc<PeerRequests> {
        Arc::new(PeerRequests::default())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, (ConnId, oneshot::Sender<Reply>)>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `method` with `params` to connection `conn` and waits for its result (raw JSON
    /// text) at most `timeout`.
    pub async fn request<P: Serialize>(
        &self,
        conn: ConnId,
        handle: &ConnHandle,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<String, PeerError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = self.lock();
            if pending.values().filter(|(c, _)| *c == conn).count() >= MAX_IN_FLIGHT {
                return Err(PeerError::Busy);
            }
            pending.insert(id, (conn, tx));
        }
        let _forget = Forget(self, id);
        let frame = jsonrpc::request_text(RequestId::Number(id), method, params);
        if handle.queue(Arc::from(frame)).is_err() {
            return Err(PeerError::Closed);
        }
        match tokio::time::timeout(timeout, rx).await {
            Err(_) => Err(PeerError::Timeout(timeout)),
            Ok(Err(_)) => Err(PeerError::Closed),
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(error))) => Err(PeerError::Rpc(error)),
        }
    }

    /// A response arrived on connection `conn`. Answers to requests of another connection, or
    /// to none, are ignored.
    pub fn deliver(
        &self,
        conn: ConnId,
        id: Option<&RequestId>,
        outcome: Result<RawJson<'_>, ErrorObject>,
    ) {
        let Some(RequestId::Number(id)) = id else {
            return;
        };
        let mut pending = self.lock();
        if pending.get(id).is_some_and(|(c, _)| *c == conn) {
            if let Some((_, tx)) = pending.remove(id) {
                let _ = tx.send(outcome.map(|raw| raw.get().to_owned()));
            }
        }
    }

    /// Connection `conn` closed: its requests fail now.
    pub fn forget_conn(&self, conn: ConnId) {
        self.lock().retain(|_, (c, _)| *c != conn);
    }
}
