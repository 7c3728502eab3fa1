//! AHP 1.0 state that has no 0.3.0 form: 1.0-only actions clients dispatch on a session or
//! its default chat, reduced into the session's 1.0 state alone (0.3.0 clients, whose view does
//! not show them, are sent nothing).

use super::base::Core;
use super::chat_views::split_parent;
use super::v1_mirror::envelope_frame;
use super::v1_root::summary_status;
use super::{fanout, ConnId, Hub};
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::v1;
use serde_json::Value;
use std::sync::Arc;

/// The 1.0 actions without a 0.3.0 form that clients may dispatch (the spec's
/// client-dispatchable actions, `guide/actions.md`), with where they go: the session channel
/// (`true`) or a chat.
const CLIENT_V1_ONLY: &[(&str, bool)] = &[
    ("chat/draftChanged", false),
    ("session/isReadChanged", true),
    ("session/isArchivedChanged", true),
];

impl Core {
    /// Applies a 1.0-only action the host originates (`chat/canvasesChanged`) to the chat of
    /// session key `key` (a session: its default chat; a chat's view: that chat) through the
    /// same path as a client's: reduced into the stored 1.0 chat, one `serverSeq` each, logged
    /// and sent to the chat's 1.0 subscribers. Whether it applied.
    pub(super) fn v1_chat_action(&mut self, key: &str, json: Value) -> bool {
        let Ok(action) = serde_json::from_value::<v1::StateAction>(json.clone()) else {
            return false;
        };
        let Some(mirror) = self.sessions.get_mut(key).map(|s| &mut s.v1) else {
            return false;
        };
        let Ok(applied) = mirror.apply(key, false, &action, json) else {
            return false;
        };
        self.v1_publish(key, applied, None);
        true
    }

    /// Stores the 1.0 actions `applied` to session key `key`'s mirror, each its own new
    /// `serverSeq`, and sends them (see [`Core::v1_publish_at`]).
    fn v1_publish(
        &mut self,
        key: &str,
        applied: Vec<(String, Value)>,
        origin: Option<&v03::ActionOrigin>,
    ) {
        let first = self.seq + 1;
        self.v1_publish_at(key, first, applied, origin);
    }

    /// Stores the 1.0 actions `applied` to session key `key`'s mirror, numbered from `first`
    /// on (`serverSeq` moves up to the last), and sends them to the 1.0 subscribers of their
    /// channels; the first carries `origin` (the dispatcher's echo). Actions for a chat's
    /// session go to that session ([`Core::v1_to_parent`]).
    pub(super) fn v1_publish_at(
        &mut self,
        key: &str,
        first: u64,
        mut applied: Vec<(String, Value)>,
        origin: Option<&v03::ActionOrigin>,
    ) {
        let Some(session) = self.sessions.get_mut(key) else {
            return;
        };
        // The 0.3.0 members follow a change of the session's state or the host's fields (not
        // one of the chat alone: they show the chat's summary, which `session/chatUpdated`
        // carries).
        let members =
            session.v1.needs_head || applied.iter().any(|(to, _)| *to != session.v1.chat_uri);
        if members {
            session.refresh_members();
        }
        let mirror = &mut session.v1;
        let parent = mirror.parent.clone();
        let to_parent = split_parent(parent.as_deref(), &mut applied);
        if !applied.is_empty() {
            self.seq = first + applied.len() as u64 - 1;
            mirror.record(&session.uri, first, &applied, &mut self.ops);
        } else if mirror.needs_head {
            // Only the host's fields changed (a 0.3.0 selection): a head keeps them.
            mirror.record_all(&session.uri, self.seq, &mut self.ops);
        }
        for (i, (to, action)) in applied.iter().enumerate() {
            let subs = if *to == mirror.chat_uri {
                &mirror.chat_subs
            } else {
                &mirror.session_subs
            };
            // A `session/chatUpdated` after the first is the host's. Made whether or not a
            // 1.0 client subscribes now: one that reconnects is replayed it.
            let origin = origin.filter(|_| i == 0);
            let seq = first + i as u64;
            let frame = envelope_frame(to, action, seq, origin, None);
            fanout(&mut self.outbox, subs, &frame);
            // (The ring itself: the mirror is still borrowed.)
            self.replay_v1
                .push(seq, Arc::from(to.as_str()), frame, None);
        }
        if let Some(parent) = parent {
            self.v1_to_parent(&parent, to_parent);
        }
    }
}

impl Hub {
    /// Applies a 1.0-only action `conn` dispatched on `channel` (session `uri` or its default
    /// chat) to the 1.0 state: echoed with its `origin` to the channel's 1.0 subscribers under
    /// a new `serverSeq`, and stored; rejected to the dispatcher with the reason otherwise.
    pub(super) fn apply_v1_only(
        &mut self,
        conn: ConnId,
        uri: &str,
        channel: &str,
        action: v1::StateAction,
        json: Value,
        origin: v03::ActionOrigin,
    ) {
        let on_session = channel == uri && !channel.starts_with(super::v1_mirror::CHAT_PREFIX);
        let kind = json.get("type").and_then(Value::as_str).unwrap_or("");
        if !CLIENT_V1_ONLY.contains(&(kind, on_session)) {
            let reason = "this action has no AHP 0.3.0 form and clients may not dispatch it \
                          on this channel";
            return self.reject_v1(conn, channel, &json, &origin, reason);
        }
        let Some(session) = self.core.sessions.get_mut(uri) else {
            return;
        };
        let mirror = &mut session.v1;
        let status = summary_status(&mirror.session);
        let applied = match mirror.apply(uri, on_session, &action, json.clone()) {
            Ok(applied) => applied,
            Err(why) => return self.reject_v1(conn, channel, &json, &origin, why.reason()),
        };
        let now = summary_status(&mirror.session);
        let parent = mirror.parent.is_some();
        self.core.v1_publish(uri, applied, Some(&origin));
        if now != status && !parent {
            self.core.v1_notify_status(uri, now);
        }
    }
}
