//! The `mcp://` channels of ready MCP servers (spec/mcp-channel.md): MCP JSON-RPC that a
//! client sends with `params.channel` set to a server's `channel`, checked here and forwarded
//! to the server through its `rmcp` connection off the hub; the answer carries the channel as a
//! top-level `channel` beside `id`.
//!
//! Checked in this order: the channel exists (else `NotFound`); the connection's client
//! declared `capabilities.mcpApps` and is subscribed to the channel's session (else
//! `PermissionDenied`); the params are within `--mcp-channel-max-request-bytes` (else
//! `-32600`); the server is ready (else `NotFound`); the method is in the advertised
//! capability sets (else `-32601`; notifications too: none is served, `logging` is never
//! advertised); fewer than `--mcp-channel-max-inflight` requests of the connection are in
//! flight (else `-32600`). The request then has `--mcp-request-timeout-ms`, and its reply the
//! message limit (`--mcp-max-message-bytes`), as tool calls do. A server's JSON-RPC errors are
//! passed on as they are; the host's own failures are `-32603` with the reason.
//!
//! The server's `list_changed` notifications (when advertised with `listChanged: true`) go to
//! every connection subscribed to the session whose client declared `capabilities.mcpApps`,
//! with `params.channel`.

use crate::bus::{ChannelMessage, ConnShared};
use crate::hub::Hub;
use crate::mcp::{apps, CallError, McpConnection};
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{ErrorObject, RequestId};
use serde_json::{json, Map, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A response frame on `channel`.
fn response(id: Option<&RequestId>, channel: &str, outcome: Result<Value, Value>) -> String {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), Value::from("2.0"));
    m.insert("id".into(), json!(id));
    m.insert("channel".into(), Value::from(channel));
    match outcome {
        Ok(result) => m.insert("result".into(), result),
        Err(error) => m.insert("error".into(), error),
    };
    Value::Object(m).to_string()
}

fn error_value(code: i64, message: impl Into<String>) -> Value {
    serde_json::to_value(ErrorObject::new(code, message)).unwrap_or(Value::Null)
}

/// Counts one request in flight for as long as it lives.
struct InFlight(Arc<ConnShared>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.mcp_inflight.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Hub {
    /// A message on an `mcp://` channel: refused with the reason, or forwarded.
    pub(in crate::hub) fn on_mcp_channel(&mut self, m: ChannelMessage) {
        let Some(handle) = self.core.conns.get(&m.conn).map(|c| c.handle.clone()) else {
            return;
        };
        let conn = match self.check_channel(&m) {
            Ok(conn) => conn,
            Err(e) => {
                let text = response(m.id.as_ref(), &m.channel, Err(e));
                self.core.outbox.push((m.conn, Arc::from(text)));
                return;
            }
        };
        let Some(id) = m.id else {
            return;
        };
        handle.shared.mcp_inflight.fetch_add(1, Ordering::Relaxed);
        let in_flight = InFlight(handle.shared.clone());
        let max_reply = self.mcp.limits.max_message_bytes;
        self.core.rt.spawn(async move {
            let _in_flight = in_flight;
            let outcome = match conn.request(&m.method, m.params).await {
                Ok(result) => Ok(result),
                Err(CallError::Rpc(e)) => Err(serde_json::to_value(&e).unwrap_or(Value::Null)),
                Err(e @ (CallError::Host(_) | CallError::Denied(_))) => {
                    Err(error_value(errors::INTERNAL_ERROR, e.to_string()))
                }
            };
            let mut text = response(Some(&id), &m.channel, outcome);
            if text.len() > max_reply {
                let why = format!(
                    "the reply takes {} bytes, over the limit of {max_reply} bytes",
                    text.len()
                );
                let error = error_value(errors::INTERNAL_ERROR, why);
                text = response(Some(&id), &m.channel, Err(error));
            }
            // A peer that does not read is dropped by the queue; nothing else to do here.
            let _ = handle.queue(Arc::from(text));
        });
    }

    /// The connection to forward `m` to, or the error to answer it with.
    fn check_channel(&self, m: &ChannelMessage) -> Result<Arc<McpConnection>, Value> {
        let c = &self.core.conns[&m.conn];
        let Some((session, run)) = self.mcp.by_channel(&m.channel) else {
            return Err(error_value(
                errors::NOT_FOUND,
                "no such mcp:// channel on this host (read `channel` from the MCP server's \
                 customization again)",
            ));
        };
        if !c.mcp_apps {
            return Err(error_value(
                errors::PERMISSION_DENIED,
                "mcp:// channels are served to clients that declare `capabilities.mcpApps` at \
                 `initialize`",
            ));
        }
        // A 1.0 client subscribes to the session through its 1.0 list.
        if !c.subs.contains(session) && !c.v1_subs.contains(session) {
            return Err(error_value(
                errors::PERMISSION_DENIED,
                format!("subscribe to {session} to use the channels of its MCP servers"),
            ));
        }
        let max = self.mcp.limits.max_channel_request_bytes;
        if m.bytes > max {
            return Err(error_value(
                errors::INVALID_REQUEST,
                format!(
                    "the request's params take {} bytes, over the limit of {max} bytes for an \
                     mcp:// request",
                    m.bytes
                ),
            ));
        }
        let Some((conn, caps)) = run.channel() else {
            return Err(error_value(
                errors::NOT_FOUND,
                format!(
                    "the MCP server `{}` is not ready: its channel is unavailable",
                    run.name()
                ),
            ));
        };
        if m.id.is_none() || !apps::serves(caps, &m.method) {
            let what = if m.id.is_none() {
                "notification"
            } else {
                "method"
            };
            return Err(error_value(
                errors::METHOD_NOT_FOUND,
                format!(
                    "{what} `{}` is not served on this channel (outside its advertised \
                     capabilities)",
                    crate::mcp::clip(&m.method, 64)
                ),
            ));
        }
        let max = self.mcp.limits.max_channel_inflight;
        if c.handle.shared.mcp_inflight.load(Ordering::Relaxed) >= max {
            return Err(error_value(
                errors::INVALID_REQUEST,
                format!(
                    "{max} mcp:// requests of this connection are in flight (the limit); wait \
                     for their answers"
                ),
            ));
        }
        Ok(conn.clone())
    }

    /// Server `id` of session `channel` sent notification `method`: forwarded on its channel
    /// when advertised.
    pub(in crate::hub) fn mcp_channel_notify(&mut self, channel: &str, id: &str, method: &str) {
        let Some(run) = self.mcp.run(channel, id) else {
            return;
        };
        let Some((_, caps)) = run.channel() else {
            return;
        };
        if !apps::forwards(caps, method) {
            return;
        }
        let frame: Arc<str> = Arc::from(
            json!({"jsonrpc": "2.0", "method": method, "params": {"channel": run.channel_uri}})
                .to_string(),
        );
        let Some(session) = self.core.sessions.get(channel) else {
            return;
        };
        for sub in session.subscribers.iter().chain(&session.v1.session_subs) {
            if self.core.conns.get(sub).is_some_and(|c| c.mcp_apps) {
                self.core.outbox.push((*sub, frame.clone()));
            }
        }
    }
}
