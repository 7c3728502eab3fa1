//! Handshakes that wait for the connection holding their `clientId` (see `identity.rs`).
//!
//! A spec-following client cannot prove its id: its `initialize` or `reconnect` carries no
//! `clientSecret`. When such a handshake names an id that a live connection holds, it may be the
//! client itself coming back before the host noticed its old socket die (a dropped TCP
//! connection, a network that went away without a close), or someone who read the id from
//! state. The host asks the holding connection: it sends it a WebSocket ping and parks the
//! handshake. A pong means the holder is alive, and the handshake is refused. The holder going
//! away, or no pong within [`PING_WAIT`], means it is gone: the silent connection is dropped and
//! the handshake goes on as if the id were free.

use super::{ConnId, Hub, HubMsg, Request};
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{ErrorObject, RequestId};
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::task::AbortHandle;

/// How long a holding connection has to answer the ping. Any WebSocket peer that is reading
/// answers at once; one that has not answered in this long is not reading any more.
pub const PING_WAIT: Duration = Duration::from_secs(5);

/// Handshakes waiting for the connection that holds their id.
#[derive(Debug, Default)]
pub(super) struct WaitingClaims {
    claims: Vec<WaitingClaim>,
}

#[derive(Debug)]
struct WaitingClaim {
    claimant: ConnId,
    id: RequestId,
    request: Request,
    holder: ConnId,
    /// Tells this wait's [`HubMsg::ClaimWaitOver`] from an older one's.
    timer: u64,
    deadline: AbortHandle,
}

impl Hub {
    /// The live connection other than `conn` that holds `client_id`, if any.
    pub(super) fn holder_of(&self, client_id: &str, conn: ConnId) -> Option<ConnId> {
        self.core
            .conns
            .iter()
            .find(|(id, c)| **id != conn && c.client_id.as_deref() == Some(client_id))
            .map(|(id, _)| *id)
    }

    /// The connection a handshake from `conn` claiming `client_id` with `presented` must wait
    /// for: the id's live holder, when the handshake carries no secret and the id's client never
    /// presented one (with a secret, or for a client that keeps one, the answer is immediate).
    pub(super) fn holder_to_ask(
        &self,
        conn: ConnId,
        client_id: &str,
        presented: Option<&str>,
    ) -> Result<Option<ConnId>, ErrorObject> {
        if self
            .core
            .bindings
            .waiting
            .claims
            .iter()
            .any(|w| w.claimant == conn)
        {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                "a handshake of this connection is already waiting",
            ));
        }
        if presented.is_some() || !self.core.bindings.open(client_id) {
            return Ok(None);
        }
        Ok(self.holder_of(client_id, conn))
    }

    /// Parks `request` (a handshake from `claimant`) until `holder` answers a ping or goes.
    pub(super) fn wait_for_holder(
        &mut self,
        claimant: ConnId,
        holder: ConnId,
        id: RequestId,
        request: Request,
    ) {
        if let Some(c) = self.core.conns.get(&holder) {
            c.handle.shared.ping_for_pong();
        }
        self.core.next_timer += 1;
        let timer = self.core.next_timer;
        let deadline = self.claim_wait_over(claimant, timer, PING_WAIT);
        self.core.bindings.waiting.claims.push(WaitingClaim {
            claimant,
            id,
            request,
            holder,
            timer,
            deadline,
        });
    }

    /// Sends [`HubMsg::ClaimWaitOver`] for `claimant`'s wait `timer` after `after`.
    fn claim_wait_over(&self, claimant: ConnId, timer: u64, after: Duration) -> AbortHandle {
        let hub = self.core.tx.clone();
        let task = self.core.rt.spawn(async move {
            tokio::time::sleep(after).await;
            let _ = hub.send(HubMsg::ClaimWaitOver { claimant, timer }).await;
        });
        task.abort_handle()
    }

    /// `conn` answered a ping: it is alive, and the handshakes waiting for it are refused.
    pub(super) fn on_pong(&mut self, conn: ConnId) {
        let (answered, rest): (Vec<WaitingClaim>, Vec<WaitingClaim>) =
            std::mem::take(&mut self.core.bindings.waiting.claims)
                .into_iter()
                .partition(|w| w.holder == conn);
        self.core.bindings.waiting.claims = rest;
        for w in answered {
            w.deadline.abort();
            let error = ErrorObject::new(
                errors::PERMISSION_DENIED,
                "this clientId is held by a live connection: present its clientSecret, or use \
                 a new clientId",
            );
            self.core.respond_error(w.claimant, &w.id, error);
        }
    }

    /// A wait is over: its holder went, or did not answer the ping in time (and is dropped
    /// now). The handshake goes on.
    pub(super) fn on_claim_wait_over(&mut self, claimant: ConnId, timer: u64) {
        let claims = &mut self.core.bindings.waiting.claims;
        let Some(i) = claims
            .iter()
            .position(|w| w.claimant == claimant && w.timer == timer)
        else {
            return;
        };
        let w = claims.swap_remove(i);
        if self.core.conns.contains_key(&w.holder) {
            eprintln!(
                "ahp-host: connection {} dropped (no pong within {PING_WAIT:?} while another \
                 connection claimed its clientId)",
                w.holder
            );
            if let Some(c) = self.core.conns.get(&w.holder) {
                c.handle.shared.kill.cancel();
            }
            self.drop_conn(w.holder);
        }
        if self.core.conns.contains_key(&claimant) {
            self.on_request(claimant, w.id, w.request);
        }
    }

    /// `conn` closed: its own waiting handshake is forgotten, and those waiting for it go on
    /// (from the hub's queue, not from within whatever dropped it).
    pub(super) fn claims_conn_closed(&mut self, conn: ConnId) {
        let mut wake = Vec::new();
        self.core.bindings.waiting.claims.retain(|w| {
            if w.claimant == conn {
                w.deadline.abort();
                return false;
            }
            if w.holder == conn {
                w.deadline.abort();
                wake.push((w.claimant, w.timer));
            }
            true
        });
        for (claimant, timer) in wake {
            let _ = self.claim_wait_over(claimant, timer, Duration::ZERO);
        }
    }
}

impl super::ConnShared {
    /// Asks the writer for a WebSocket ping, and the reader to report the next pong.
    fn ping_for_pong(&self) {
        self.awaiting_pong.store(true, Ordering::Release);
        self.ping.notify_one();
    }
}
