//! The host's other channels for AHP 1.0 clients (see `v1.rs`): terminals, changesets and
//! resource watches, and the commands 1.0 shares with 0.3.0 (`RequestV1::Shared`).
//!
//! Their state stays the features' own (0.3.0): a 1.0 client subscribes to such a channel as
//! a 0.3.0 client does (`Conn::subs`, the feature's subscribers), so the features' lifecycles
//! (dispose, a closed connection, a watch nobody reads) treat both alike; what differs is the
//! text: its snapshots and envelopes are sent in their 1.0 form (`compat::channel_state_v1`,
//! `Core::fanout_channel`). Its dispatches are translated into 0.3.0 and go through the
//! features' authorization, like 0.3.0 clients' (rejections reach it in 1.0: `PendingV1`).

use super::v1_mirror::PendingV1;
use super::{ConnId, Hub};
use crate::bus::Request;
use crate::compat;
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{ErrorObject, RequestId};
use ahp_wasm::protocol::RawJsonBuf;
use serde_json::Value;

/// The prefix of terminal channels.
const TERMINAL_PREFIX: &str = "ahp-terminal:";

impl Hub {
    /// The 1.0 snapshot of a feature's channel (terminal, changeset, resource watch).
    pub(super) fn feature_snapshot_v1(&self, channel: &str) -> Option<String> {
        let json = self.feature_snapshot(channel)?;
        let mut snapshot: Value = serde_json::from_str(&json).ok()?;
        let terminal = channel.starts_with(TERMINAL_PREFIX);
        compat::channel_state_v1(snapshot.get_mut("state")?, terminal);
        Some(snapshot.to_string())
    }

    /// Subscribes a 1.0 connection to a feature's channel (idempotent) and returns its 1.0
    /// snapshot.
    pub(super) fn subscribe_feature_v1(
        &mut self,
        conn: ConnId,
        channel: &str,
    ) -> Result<RawJsonBuf, ErrorObject> {
        let snapshot = self
            .feature_snapshot_v1(channel)
            .and_then(|json| RawJsonBuf::from_string(json).ok())
            .ok_or_else(|| ErrorObject::new(errors::NOT_FOUND, "no such channel on this host"))?;
        self.within_response_budget(snapshot.get().len())?;
        let Some(c) = self.core.conns.get(&conn) else {
            return Ok(snapshot);
        };
        // One limit for both lists of a 1.0 connection.
        let max = self.core.limits.max_subscriptions;
        if !c.subs.contains(channel) && c.subs.len() + c.v1_subs.len() >= max {
            return Err(limit_reached(max));
        }
        self.add_subscription(conn, channel)?;
        Ok(snapshot)
    }

    /// A 1.0 client's action on a feature's channel: translated into 0.3.0 and authorized and
    /// applied as a 0.3.0 client's (only terminals take client actions).
    pub(super) fn dispatch_feature_v1(
        &mut self,
        conn: ConnId,
        channel: &str,
        action: Value,
        origin: v03::ActionOrigin,
    ) {
        if !channel.starts_with(TERMINAL_PREFIX) {
            let reason = "this host's changesets and resource watches take no client actions";
            return self.reject_v1(conn, channel, &action, &origin, reason);
        }
        let mut old = action.clone();
        let typed = compat::channel_action_v03(&mut old)
            .and_then(|()| compat::typed_action(old).map_err(|e| e.to_string()));
        let typed = match typed {
            Ok(v03::StateAction::Unknown(_)) => {
                let reason = "this action has no AHP 0.3.0 form: this host does not apply it yet";
                return self.reject_v1(conn, channel, &action, &origin, reason);
            }
            Ok(typed) => typed,
            Err(reason) => {
                let reason = format!("no AHP 0.3.0 form on this host: {reason}");
                return self.reject_v1(conn, channel, &action, &origin, &reason);
            }
        };
        self.core.v1_pending = Some(PendingV1 {
            conn,
            channel: channel.to_owned(),
            action,
            direct: None,
        });
        self.on_dispatch(
            conn,
            v03::DispatchActionParams {
                channel: channel.to_owned(),
                client_seq: origin.client_seq,
                action: typed,
                extra: Default::default(),
            },
        );
        self.core.v1_pending = None;
    }

    /// A command 1.0 shares with 0.3.0, answered by its 0.3.0 handler: results with 1.0's
    /// integers.
    pub(super) fn shared_request_v1(&mut self, conn: ConnId, id: &RequestId, request: Request) {
        self.core.respond_v1 = true;
        self.on_request(conn, id.clone(), request);
        self.core.respond_v1 = false;
    }
}

/// The error of a subscription over the connection's limit.
pub(super) fn limit_reached(max: usize) -> ErrorObject {
    ErrorObject::new(
        errors::INVALID_REQUEST,
        format!("subscription limit ({max}) reached"),
    )
}
