//! Client identity: a `clientId` is bound to a secret, and held by one live connection.
//!
//! Every subscriber can read client ids from state (`origin`, `contributor`, `activeClient`), so
//! an id alone proves little. The first `initialize` with an id binds it to a random secret,
//! returned as `clientSecret` in the answer (an `ahp-host` extension of `InitializeResult`); a
//! later `initialize` or `reconnect` may present it as `clientSecret` in its params. Official
//! clients know nothing of it, and the spec's `reconnect` must work for them, so the rule is:
//!
//! - the right secret: accepted, and a live connection holding the id is replaced (a client's
//!   reconnect usually arrives before its old socket is noticed dead);
//! - a wrong secret: refused (`PermissionDenied`);
//! - no secret, from a client that once presented its secret (it keeps it: the SDK clients):
//!   refused, connected or not;
//! - no secret otherwise: accepted when no live connection holds the id; when one does, the
//!   handshake waits for it to answer a ping (refused) or to go (accepted; `id_claims.rs`).
//!
//! An `initialize` accepted without a secret is answered with a new one (the old one was never
//! presented). Refusals leave the holding connection alone. Only the secret's SHA-256 is kept
//! (in the database too, with whether it was ever presented, so bindings survive a restart).

use super::id_claims::WaitingClaims;
use super::{ConnId, Hub};
use crate::security::{constant_time_eq, hex, Token};
use crate::store::{ClientBinding, Op};
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ErrorObject;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// Bindings kept; past it, the least recently used id without a live connection is forgotten
/// (and may then be bound anew).
const MAX_BINDINGS: usize = 20_000;

/// Client ids bound to secrets.
#[derive(Debug, Default)]
pub(super) struct Bindings {
    by_id: HashMap<String, Bound>,
    /// A use counter: which binding was used least recently.
    clock: u64,
    /// Handshakes waiting for the connection that holds their id.
    pub(super) waiting: WaitingClaims,
}

#[derive(Debug)]
struct Bound {
    secret_sha256: String,
    used: u64,
    /// Its client presented the secret in a handshake: it keeps it, so a handshake without it
    /// is refused even while no connection holds the id.
    proven: bool,
    /// The client declared `capabilities.mcpApps` at its last `initialize` (kept for its
    /// `reconnect`s, which declare nothing; not persisted).
    mcp_apps: bool,
    /// Its last `initialize` chose AHP 1.0: its `reconnect`s, which name no version, are
    /// answered in 1.0 (persisted: a restarted host answers a 1.0 client in 1.0 too).
    v1: bool,
}

fn digest(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// Whether `presented` is `bound`'s secret.
fn proves(presented: &str, bound: &Bound) -> bool {
    constant_time_eq(digest(presented).as_bytes(), bound.secret_sha256.as_bytes())
}

impl Bindings {
    /// The bindings loaded from the database.
    pub fn loaded(stored: Vec<ClientBinding>) -> Bindings {
        let clock = stored.iter().map(|b| b.used).max().unwrap_or(0);
        let by_id = stored
            .into_iter()
            .map(|b| {
                let bound = Bound {
                    secret_sha256: b.secret_sha256,
                    used: b.used,
                    proven: b.proven,
                    mcp_apps: false,
                    v1: b.v1,
                };
                (b.client_id, bound)
            })
            .collect();
        Bindings {
            by_id,
            clock,
            waiting: WaitingClaims::default(),
        }
    }

    /// Whether `client_id` is bound and its client never presented the secret (so a handshake
    /// without one may be its client's).
    pub fn open(&self, client_id: &str) -> bool {
        self.by_id.get(client_id).is_some_and(|b| !b.proven)
    }

    /// Records whether `client_id` declared `capabilities.mcpApps` (at `initialize`).
    pub fn set_mcp_apps(&mut self, client_id: &str, declared: bool) {
        if let Some(b) = self.by_id.get_mut(client_id) {
            b.mcp_apps = declared;
        }
    }

    /// Whether `client_id` declared `capabilities.mcpApps` at its last `initialize`.
    pub fn mcp_apps(&self, client_id: &str) -> bool {
        self.by_id.get(client_id).is_some_and(|b| b.mcp_apps)
    }

    /// Whether `client_id`'s last `initialize` chose AHP 1.0.
    pub fn v1(&self, client_id: &str) -> bool {
        self.by_id.get(client_id).is_some_and(|b| b.v1)
    }
}

/// How a handshake claims its client id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Claim {
    /// `initialize`, choosing AHP 1.0 or not: an unbound id is bound now.
    Initialize { v1: bool },
    /// `reconnect`: the id must be bound already (a host that does not know it answers with an
    /// error, and the client initializes again).
    Reconnect,
}

impl Hub {
    /// Checks `presented` against `client_id`'s binding by the rule of the module docs
    /// (binding the id first when it is new and `claim` allows). Returns the secret to answer
    /// `initialize` with. (A handshake that must wait for the id's holder was parked before.)
    pub(super) fn claim_client_id(
        &mut self,
        conn: ConnId,
        client_id: &str,
        presented: Option<&str>,
        claim: Claim,
    ) -> Result<String, ErrorObject> {
        self.core.bindings.clock += 1;
        let now = self.core.bindings.clock;
        let held = self.holder_of(client_id, conn).is_some();
        let refused = |message: &str| Err(ErrorObject::new(errors::PERMISSION_DENIED, message));
        let secret = match self.core.bindings.by_id.get_mut(client_id) {
            Some(bound) => {
                let secret = match presented {
                    Some(p) if proves(p, bound) => {
                        bound.proven = true;
                        p.to_owned()
                    }
                    Some(_) => {
                        return refused(
                            "this clientId is bound to another client: present its \
                             clientSecret, or use a new clientId",
                        )
                    }
                    None if bound.proven => {
                        return refused(
                            "this clientId belongs to a client that keeps its clientSecret: \
                             present it, or use a new clientId",
                        )
                    }
                    None if held => {
                        return refused(
                            "this clientId is held by a live connection: present its \
                             clientSecret, or use a new clientId",
                        )
                    }
                    // Free, and its client never presented a secret: the spec's handshake.
                    None if matches!(claim, Claim::Initialize { .. }) => {
                        let secret = Token::generate().expose().to_owned();
                        bound.secret_sha256 = digest(&secret);
                        secret
                    }
                    None => String::new(),
                };
                bound.used = now;
                secret
            }
            None if claim == Claim::Reconnect => {
                return Err(ErrorObject::new(
                    errors::INVALID_REQUEST,
                    "unknown clientId: send `initialize`",
                ));
            }
            None => {
                self.forget_stale_bindings(conn);
                let secret = Token::generate().expose().to_owned();
                self.core.bindings.by_id.insert(
                    client_id.to_owned(),
                    Bound {
                        secret_sha256: digest(&secret),
                        used: now,
                        proven: false,
                        mcp_apps: false,
                        v1: false,
                    },
                );
                secret
            }
        };
        let bound = self
            .core
            .bindings
            .by_id
            .get_mut(client_id)
            .expect("bound above");
        if let Claim::Initialize { v1 } = claim {
            bound.v1 = v1;
        }
        self.core.ops.push(Op::BindClient {
            client_id: client_id.to_owned(),
            secret_sha256: bound.secret_sha256.clone(),
            used: now,
            proven: bound.proven,
            v1: bound.v1,
        });
        Ok(secret)
    }

    /// At capacity, forgets the least recently used binding whose id no live connection holds.
    fn forget_stale_bindings(&mut self, conn: ConnId) {
        if self.core.bindings.by_id.len() < MAX_BINDINGS {
            return;
        }
        let live: std::collections::HashSet<&str> = self
            .core
            .conns
            .iter()
            .filter(|(id, _)| **id != conn)
            .filter_map(|(_, c)| c.client_id.as_deref())
            .collect();
        let oldest = self
            .core
            .bindings
            .by_id
            .iter()
            .filter(|(id, _)| !live.contains(id.as_str()))
            .min_by_key(|(_, b)| b.used)
            .map(|(id, _)| id.clone());
        if let Some(id) = oldest {
            self.core.bindings.by_id.remove(&id);
            self.core.ops.push(Op::ForgetClient { client_id: id });
        }
    }
}
