//! The 1.0 mirror of a session ([`Mirror`]: the 1.0 session and its default chat) and the
//! 1.0 frames: the low layer of the hub's AHP 1.0 part (`v1.rs`), which the core and the
//! sessions hold without depending on the rest of it.

use crate::bus::ConnId;
use crate::compat::{self, Target};
use crate::replay::action_frame;
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::{chat_reducer, session_reducer};
use serde_json::Value;
use std::sync::Arc;

/// The version string of AHP 1.0.
pub(super) const V1: &str = v1::PROTOCOL_VERSION;

pub(super) const CHAT_PREFIX: &str = "ahp-chat:/";

/// The URI of a session's default chat.
pub(super) fn default_chat_uri(session: &str) -> String {
    compat::default_chat_uri(session)
}

/// The session whose default chat `chat` is.
pub(super) fn session_of_chat(chat: &str) -> Option<String> {
    compat::session_of_chat(chat)
}

/// A session as 1.0 clients see it, with their subscriptions.
pub(super) struct Mirror {
    pub session: v1::SessionState,
    pub chat: v1::ChatState,
    pub chat_uri: String,
    /// 1.0 connections subscribed to the session channel.
    pub session_subs: Vec<ConnId>,
    /// 1.0 connections subscribed to the default chat.
    pub chat_subs: Vec<ConnId>,
}

impl Mirror {
    /// The 1.0 view of a 0.3.0 session; `None` (logged) when the lifted state does not decode,
    /// a bug of the lift: the session is then not served to 1.0 clients.
    pub fn lift(state: &v03::SessionState) -> Option<Mirror> {
        let chat_uri = default_chat_uri(&state.summary.resource);
        let (session, chat) = compat::lift(state, &chat_uri);
        let decoded = serde_json::from_value::<v1::SessionState>(session)
            .and_then(|s| Ok((s, serde_json::from_value::<v1::ChatState>(chat)?)));
        match decoded {
            Ok((session, chat)) => Some(Mirror {
                session,
                chat,
                chat_uri,
                session_subs: Vec::new(),
                chat_subs: Vec::new(),
            }),
            Err(e) => {
                eprintln!(
                    "ahp-host: session {} has no AHP 1.0 view ({e})",
                    state.summary.resource
                );
                None
            }
        }
    }

    /// Keeps the mirror in step with a 0.3.0 action applied to the session `uri` at `now`
    /// (milliseconds): the 1.0 channels and actions with the same effect, if any applied. A
    /// change of the chat's summary members is followed by `session/chatUpdated` on the session
    /// (the session's `chats` entry of its default chat).
    pub(super) fn follow(
        &mut self,
        uri: &str,
        action: &v03::StateAction,
        now: f64,
    ) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        let Some(json) = serde_json::to_value(action).ok() else {
            return out;
        };
        let Some((target, new)) = compat::to_v1(&json, &self.session, &self.chat, now as i64)
        else {
            return out;
        };
        let Ok(typed) = serde_json::from_value::<v1::StateAction>(new.clone()) else {
            return out;
        };
        match target {
            Target::Session => {
                if session_reducer(&mut self.session, &typed).is_applied() {
                    out.push((uri.to_owned(), new));
                }
            }
            Target::DefaultChat => {
                if chat_reducer(&mut self.chat, &typed).is_applied() {
                    out.push((self.chat_uri.clone(), new));
                    out.extend(self.chat_updated().map(|a| (uri.to_owned(), a)));
                }
            }
        }
        out
    }

    /// `session/chatUpdated` for the members of the default chat's summary that differ from the
    /// session's `chats` entry (applied to the mirror), if any.
    fn chat_updated(&mut self) -> Option<Value> {
        let entry = self
            .session
            .chats
            .iter()
            .find(|c| c.resource == self.chat_uri)?;
        let chat = &self.chat;
        let mut changes = serde_json::Map::new();
        if entry.title != chat.title {
            changes.insert("title".into(), chat.title.clone().into());
        }
        if entry.status != chat.status {
            changes.insert("status".into(), chat.status.into());
        }
        if entry.activity != chat.activity {
            if let Some(activity) = &chat.activity {
                changes.insert("activity".into(), activity.clone().into());
            }
        }
        if entry.modified_at != chat.modified_at {
            changes.insert("modifiedAt".into(), chat.modified_at.clone().into());
        }
        if entry.changes != chat.changes {
            if let Some(summary) = &chat.changes {
                changes.insert("changes".into(), serde_json::to_value(summary).ok()?);
            }
        }
        if changes.is_empty() {
            return None;
        }
        let action = serde_json::json!({
            "type": "session/chatUpdated",
            "chat": self.chat_uri,
            "changes": changes,
        });
        let typed: v1::StateAction = serde_json::from_value(action.clone()).ok()?;
        session_reducer(&mut self.session, &typed)
            .is_applied()
            .then_some(action)
    }
}

/// A 1.0 client's dispatch being applied through the 0.3.0 path: a rejection goes back to it
/// as this 1.0 action on this channel.
pub(super) struct PendingV1 {
    pub conn: ConnId,
    pub channel: String,
    pub action: Value,
}

/// The `action` notification of a 1.0 envelope.
pub(super) fn envelope_frame(
    channel: &str,
    action: &Value,
    seq: u64,
    origin: Option<&v03::ActionOrigin>,
    rejection: Option<&str>,
) -> Arc<str> {
    let mut envelope = serde_json::json!({
        "channel": channel,
        "action": action,
        "serverSeq": seq,
    });
    if let Some(origin) = origin {
        envelope["origin"] = serde_json::json!({
            "clientId": origin.client_id,
            "clientSeq": origin.client_seq as i64,
        });
    }
    if let Some(reason) = rejection {
        envelope["rejectionReason"] = reason.into();
    }
    action_frame(&envelope.to_string())
}
