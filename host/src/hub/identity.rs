//! Client identity: a `clientId` is bound to the connection that first used it.
//!
//! Every subscriber can read client ids from state (`origin`, `contributor`, `activeClient`), so
//! an id alone proves nothing. The first `initialize` with an id binds it to a random secret,
//! returned as `clientSecret` in the answer (an `ahp-host` extension of `InitializeResult`).
//! Any later `initialize` or `reconnect` with that id must present the secret as
//! `clientSecret` in its params; without it the handshake is refused with `PermissionDenied`,
//! and the connection holding the id is left alone. Only the secret's SHA-256 is kept (in the
//! database too, so bindings survive a restart).

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
}

#[derive(Debug)]
struct Bound {
    secret_sha256: String,
    used: u64,
    /// The client declared `capabilities.mcpApps` at its last `initialize` (kept for its
    /// `reconnect`s, which declare nothing; not persisted).
    mcp_apps: bool,
}

fn digest(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
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
                    mcp_apps: false,
                };
                (b.client_id, bound)
            })
            .collect();
        Bindings { by_id, clock }
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
}

/// How a handshake claims its client id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Claim {
    /// `initialize`: an unbound id is bound now.
    Initialize,
    /// `reconnect`: the id must be bound already (a host that does not know it answers with an
    /// error, and the client initializes again).
    Reconnect,
}

impl Hub {
    /// Checks that `presented` proves ownership of `client_id` (binding it first when it is
    /// new and `claim` allows). Returns the secret to answer `initialize` with.
    pub(super) fn claim_client_id(
        &mut self,
        conn: ConnId,
        client_id: &str,
        presented: Option<&str>,
        claim: Claim,
    ) -> Result<String, ErrorObject> {
        self.bindings.clock += 1;
        let now = self.bindings.clock;
        let secret = match self.bindings.by_id.get_mut(client_id) {
            Some(bound) => {
                let proven = presented.is_some_and(|p| {
                    constant_time_eq(digest(p).as_bytes(), bound.secret_sha256.as_bytes())
                });
                if !proven {
                    return Err(ErrorObject::new(
                        errors::PERMISSION_DENIED,
                        "this clientId is bound to another client: present its clientSecret, \
                         or use a new clientId",
                    ));
                }
                bound.used = now;
                presented.unwrap_or_default().to_owned()
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
                self.bindings.by_id.insert(
                    client_id.to_owned(),
                    Bound {
                        secret_sha256: digest(&secret),
                        used: now,
                        mcp_apps: false,
                    },
                );
                secret
            }
        };
        self.ops.push(Op::BindClient {
            client_id: client_id.to_owned(),
            secret_sha256: self.bindings.by_id[client_id].secret_sha256.clone(),
            used: now,
        });
        Ok(secret)
    }

    /// At capacity, forgets the least recently used binding whose id no live connection holds.
    fn forget_stale_bindings(&mut self, conn: ConnId) {
        if self.bindings.by_id.len() < MAX_BINDINGS {
            return;
        }
        let live: std::collections::HashSet<&str> = self
            .conns
            .iter()
            .filter(|(id, _)| **id != conn)
            .filter_map(|(_, c)| c.client_id.as_deref())
            .collect();
        let oldest = self
            .bindings
            .by_id
            .iter()
            .filter(|(id, _)| !live.contains(id.as_str()))
            .min_by_key(|(_, b)| b.used)
            .map(|(id, _)| id.clone());
        if let Some(id) = oldest {
            self.bindings.by_id.remove(&id);
            self.ops.push(Op::ForgetClient { client_id: id });
        }
    }
}
