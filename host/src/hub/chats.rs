//! AHP 1.0 state that has no 0.3.0 form: 1.0-only actions clients dispatch on a session or
//! its default chat, reduced into the session's 1.0 state alone (0.3.0 clients, whose view does
//! not show them, are sent nothing).

use super::v1_mirror::envelope_frame;
use super::v1_root::summary_status;
use super::{fanout, ConnId, Hub};
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::v1;
use serde_json::Value;

/// The 1.0 actions without a 0.3.0 form that clients may dispatch (the spec's
/// client-dispatchable actions, `guide/actions.md`), with where they go: the session channel
/// (`true`) or a chat.
const CLIENT_V1_ONLY: &[(&str, bool)] = &[
    ("chat/draftChanged", false),
    ("session/isReadChanged", true),
    ("session/isArchivedChanged", true),
];

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
        let Some(mirror) = session.v1.as_mut() else {
            return;
        };
        let status = summary_status(&mirror.session);
        let mut applied = match mirror.apply(uri, on_session, &action, json.clone()) {
            Ok(applied) => applied,
            Err(reason) => return self.reject_v1(conn, channel, &json, &origin, reason),
        };
        let parent = mirror.parent.clone();
        let to_parent = super::chat_views::split_parent(parent.as_deref(), &mut applied);
        // Each envelope its own `serverSeq`.
        let first = self.core.seq + 1;
        self.core.seq += applied.len() as u64;
        mirror.record(&session.uri, first, &applied, &mut self.core.ops);
        for (i, (to, action)) in applied.iter().enumerate() {
            let seq = first + i as u64;
            let subs = if *to == mirror.chat_uri {
                &mirror.chat_subs
            } else {
                &mirror.session_subs
            };
            // The first is the dispatcher's echo; a `session/chatUpdated` after it is the host's.
            let origin = Some(&origin).filter(|_| i == 0);
            let frame = envelope_frame(to, action, seq, origin, None);
            fanout(&mut self.core.outbox, subs, &frame);
        }
        let now = summary_status(&mirror.session);
        if now != status && parent.is_none() {
            self.core.v1_notify_status(uri, now);
        }
        if let Some(parent) = parent {
            self.core.v1_to_parent(&parent, to_parent);
        }
    }
}
