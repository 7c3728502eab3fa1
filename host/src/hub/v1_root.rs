//! The root channel for AHP 1.0 clients (see `v1.rs`): the 1.0 root state and actions of the
//! 0.3.0 ones, and the root notifications (`root/sessionAdded`, `root/sessionRemoved`,
//! `root/sessionSummaryChanged`) in their 1.0 shape.

use super::annotations::summary_of as summary_of_annotations;
use super::base::Core;
use super::fanout;
use super::sessions::Session;
use super::v1_mirror::Mirror;
use crate::compat;
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::jsonrpc::{self, methods, ROOT_CHANNEL};
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::from_unix_millis;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The 1.0 root state of the 0.3.0 root (the same shape but integers, and 1.0's terminal
/// entries: `compat::root_v1`).
pub(super) fn root_state(root: &v03::RootState) -> Option<v1::RootState> {
    let mut json = serde_json::to_value(root).ok()?;
    compat::root_v1(&mut json);
    advertise_chats(&mut json);
    serde_json::from_value(json).ok()
}

/// Every agent of this host runs any number of chats in a session, forks and side chats
/// (`chat_views.rs`): its 1.0 `AgentInfo` says so (`capabilities.multipleChats`, without which
/// a client must not call `createChat`). 0.3.0 has no such member. `json` is the root state or
/// a `root/agentsChanged`.
fn advertise_chats(json: &mut Value) {
    let Some(agents) = json.get_mut("agents").and_then(Value::as_array_mut) else {
        return;
    };
    for agent in agents.iter_mut().filter_map(Value::as_object_mut) {
        let capabilities = agent.entry("capabilities").or_insert_with(|| json!({}));
        if let Some(capabilities) = capabilities.as_object_mut() {
            capabilities
                .entry("multipleChats")
                .or_insert_with(|| json!({ "fork": true, "sideChat": true }));
        }
    }
}

/// The 1.0 form of a 0.3.0 root action (the root actions are the same in both but for
/// integers and the terminal entries); `None` when the 1.0 types refuse it.
pub(super) fn root_action(action: &v03::StateAction) -> Option<Value> {
    let mut json = serde_json::to_value(action).ok()?;
    compat::root_v1(&mut json);
    advertise_chats(&mut json);
    let typed: v1::StateAction = serde_json::from_value(json.clone()).ok()?;
    (!matches!(typed, v1::StateAction::Unknown(_))).then_some(json)
}

/// The 1.0 `root/sessionSummaryChanged` changes of 0.3.0's: times as RFC 3339, the working
/// directory as the list of one; the model and agent left out (1.0 selects them per message).
fn summary_changes(old: &Value) -> Option<Value> {
    let old = old.as_object()?;
    let mut out = Map::new();
    for key in ["title", "status", "activity", "project", "changes"] {
        if let Some(value) = old.get(key).filter(|v| !v.is_null()) {
            out.insert(key.into(), value.clone());
        }
    }
    if let Some(millis) = old.get("modifiedAt").and_then(Value::as_f64) {
        out.insert("modifiedAt".into(), from_unix_millis(millis as i64)?.into());
    }
    if let Some(dir) = old.get("workingDirectory").filter(|d| d.is_string()) {
        out.insert("workingDirectories".into(), json!([dir]));
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// The activity bits of a 1.0 status (idle, error, in progress, input needed); the bits
/// above are flags (read, archived).
const ACTIVITY: u32 = (1 << 5) - 1;

/// Session `session`'s status as its 1.0 summary shows it: its own flags (read, archived) with
/// the activity of it and its chats, the most pressing first (input needed, then in progress), else
/// the default chat's (idle or error). No 1.0 action moves a session's own activity (its
/// chats have one each), so the host derives it for the summaries, as the 1.0 guide's
/// status table describes them: a session is in progress while a turn of it is active.
pub(super) fn summary_status(session: &v1::SessionState) -> u32 {
    let activity = |chat: &v1::ChatSummary| chat.status & ACTIVITY;
    let pressing = [
        v1::SessionStatus::InputNeeded,
        v1::SessionStatus::InProgress,
    ]
    .into_iter()
    .map(v1::SessionStatus::bits)
    .find(|&wanted| {
        session.status & ACTIVITY == wanted || session.chats.iter().any(|c| activity(c) == wanted)
    });
    let default = session
        .chats
        .iter()
        .find(|c| Some(&c.resource) == session.default_chat.as_ref())
        .map(activity)
        .filter(|&a| a != 0);
    let activity = pressing.or(default).unwrap_or(session.status & ACTIVITY);
    (session.status & !ACTIVITY) | activity
}

impl Core {
    /// Tells the 1.0 root subscribers that session `uri`'s 1.0 status is now `status` (a change
    /// only 1.0 has: its read or archived flag).
    pub(super) fn v1_notify_status(&mut self, uri: &str, status: u32) {
        self.v1_notify_summary(uri, json!({ "status": status }));
    }

    /// Tells the 1.0 root subscribers that session `uri`'s summary members `changes` (only
    /// 1.0 has them) changed.
    pub(super) fn v1_notify_summary(&mut self, uri: &str, changes: Value) {
        if self.root_subs_v1.is_empty() {
            return;
        }
        let params = json!({ "channel": ROOT_CHANNEL, "session": uri, "changes": changes });
        let frame: Arc<str> = Arc::from(jsonrpc::notification_text(
            methods::SESSION_SUMMARY_CHANGED,
            &params,
        ));
        fanout(&mut self.outbox, &self.root_subs_v1, &frame);
    }

    /// Sends the 1.0 form of a root notification (0.3.0 `params`) to the 1.0 root subscribers;
    /// a notification 1.0 has no form of is not sent.
    pub(super) fn v1_notify_root(&mut self, method: &str, params: Value) {
        if self.root_subs_v1.is_empty() {
            return;
        }
        let session = params.get("session").and_then(Value::as_str);
        let params = match method {
            methods::SESSION_ADDED => {
                let uri = params["summary"]["resource"].as_str().unwrap_or_default();
                // A new session has no annotations yet.
                let annotations = summary_of_annotations(uri, &[]);
                let Some(summary) = self
                    .sessions
                    .get(uri)
                    .and_then(|s| summary(s, &annotations))
                else {
                    return;
                };
                let out = json!({ "channel": ROOT_CHANNEL, "summary": summary });
                serde_json::from_value::<v1::SessionAddedParams>(out.clone()).map(|_| out)
            }
            methods::SESSION_REMOVED => {
                serde_json::from_value::<v1::SessionRemovedParams>(params.clone()).map(|_| params)
            }
            methods::SESSION_SUMMARY_CHANGED => {
                let Some(mut changes) = summary_changes(&params["changes"]) else {
                    return;
                };
                // The 1.0 status: its chats' activity, with the flags only 1.0 keeps.
                let mirror = session
                    .and_then(|uri| self.sessions.get(uri))
                    .map(|s| &s.v1);
                if let (Some(status), Some(mirror)) = (changes.get_mut("status"), mirror) {
                    *status = summary_status(&mirror.session).into();
                }
                let out =
                    json!({ "channel": ROOT_CHANNEL, "session": session, "changes": changes });
                serde_json::from_value::<v1::SessionSummaryChangedParams>(out.clone()).map(|_| out)
            }
            _ => return,
        };
        let Ok(params) = params else {
            return;
        };
        let frame: Arc<str> = Arc::from(jsonrpc::notification_text(method, &params));
        fanout(&mut self.outbox, &self.root_subs_v1, &frame);
    }

    /// Sends the 1.0 form of a root action applied at the current `serverSeq` to the 1.0 root
    /// subscribers.
    pub(super) fn v1_root_applied(
        &mut self,
        action: &v03::StateAction,
        origin: Option<&v03::ActionOrigin>,
    ) {
        // Made whether or not a 1.0 client subscribes now: one that reconnects is replayed it.
        if let Some(json) = root_action(action) {
            let frame =
                super::v1_mirror::envelope_frame(ROOT_CHANNEL, &json, self.seq, origin, None);
            fanout(&mut self.outbox, &self.root_subs_v1, &frame);
            self.keep_v1(self.root_uri.clone(), frame);
        }
    }
}

/// The 1.0 summary of a session (from its mirror) with its `annotations` member.
pub(super) fn summary(session: &Session, annotations: &v1::AnnotationsSummary) -> Option<Value> {
    summary_of(session, &session.v1, annotations)
}

fn summary_of(
    session: &Session,
    mirror: &Mirror,
    annotations: &v1::AnnotationsSummary,
) -> Option<Value> {
    let state = serde_json::to_value(&mirror.session).ok()?;
    let mut out = serde_json::Map::new();
    for key in [
        "provider",
        "title",
        "activity",
        "origin",
        "project",
        "workingDirectories",
        "_meta",
    ] {
        if let Some(v) = state.get(key).filter(|v| !v.is_null()) {
            out.insert(key.into(), v.clone());
        }
    }
    out.insert("status".into(), summary_status(&mirror.session).into());
    out.insert("resource".into(), session.uri.to_string().into());
    out.insert(
        "annotations".into(),
        serde_json::to_value(annotations).ok()?,
    );
    let created = from_unix_millis(mirror.host.created_at as i64)?;
    out.insert("createdAt".into(), created.into());
    out.insert("modifiedAt".into(), mirror.chat.modified_at.clone().into());
    if let Some(changes) = &mirror.chat.changes {
        out.insert("changes".into(), serde_json::to_value(changes).ok()?);
    }
    // The catalog's entries are 1.0's `SessionChatSummary`: of a chat's summary, only these.
    let catalog = |chat: &Value| {
        let mut entry = serde_json::Map::new();
        for key in [
            "resource",
            "title",
            "origin",
            "interactivity",
            "status",
            "changes",
        ] {
            if let Some(v) = chat.get(key).filter(|v| !v.is_null()) {
                entry.insert(key.into(), v.clone());
            }
        }
        Value::Object(entry)
    };
    let chats = state.get("chats").and_then(Value::as_array);
    out.insert(
        "chats".into(),
        chats.into_iter().flatten().map(catalog).collect(),
    );
    out.insert("defaultChat".into(), mirror.chat_uri.clone().into());
    Some(Value::Object(out))
}
