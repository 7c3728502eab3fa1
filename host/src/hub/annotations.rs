//! AHP 1.0 annotations, for 1.0 clients only: each session's `ahp-session:/<id>/annotations`
//! channel (`AnnotationsState`), its subscribers, and the `annotations/*` actions clients
//! dispatch on it and the built-in agent's `/annotate` adds.
//!
//! Like automations, this state has no 0.3.0 form: every change is a 1.0 action reduced by the
//! SDK's `annotations_reducer` and sent as that very envelope, so a mirror equals a fresh
//! snapshot. A client's action is first reduced on a copy of the one annotation it touches and
//! checked against the bounds below; only then is it applied, so a refused action (a rejection
//! envelope with the reason, to its dispatcher only) changes nothing. Annotations are kept in
//! SQLite, one row per annotation (`annotations`), and removed with their session.

use super::base::Core;
use super::features::{snapshot_json, Feature};
use super::v1_mirror::{default_chat_uri, envelope_frame};
use super::{fanout, ConnId, Hub};
use crate::bus::{PanelAsk, PanelRequest};
use crate::store::Op;
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::annotations_reducer;
use ahp_wasm::reduce::Outcome;
use serde_json::Value;
use std::collections::HashMap;

/// What a session URI is followed by in its annotations channel.
const SUFFIX: &str = "/annotations";
/// Annotations one session keeps.
pub(super) const MAX_ANNOTATIONS: usize = 256;
/// Entries one annotation keeps.
pub(super) const MAX_ENTRIES: usize = 64;
/// Bytes of an entry's text (as JSON: a string, or `{ markdown }`).
pub(super) const MAX_TEXT_BYTES: usize = 8 * 1024;
/// Bytes of one annotation as JSON (ids, resource, range, entries, `_meta`).
pub(super) const MAX_ANNOTATION_BYTES: usize = 64 * 1024;
/// Bytes of an id (annotation or entry).
const MAX_ID_BYTES: usize = 128;
/// Bytes of an annotation's `resource`.
const MAX_RESOURCE_BYTES: usize = 2048;

/// The annotations channel of session `session`.
pub(super) fn channel_of(session: &str) -> String {
    format!("{session}{SUFFIX}")
}

/// The `annotations` member of a session's 1.0 state and summary (its channel and counts).
///
/// 1.0 has no action that changes it: the host sets it whenever it builds the session's
/// state for a client (snapshots, `listSessions`, `root/sessionAdded`) and, as the spec has
/// hosts keep summaries in sync, sends each change as `root/sessionSummaryChanged` (the
/// official client applies its `annotations`). A session channel's subscriber keeps the counts
/// of its snapshot; live counts are on the root or the annotations channel itself. It is not
/// stored with the 1.0 state (the annotations are), so it is never stale after a restart.
pub(super) fn summary_of(session: &str, annotations: &[v1::Annotation]) -> v1::AnnotationsSummary {
    v1::AnnotationsSummary {
        resource: channel_of(session),
        annotation_count: annotations.len() as i64,
        entry_count: annotations.iter().map(|a| a.entries.len() as i64).sum(),
        extra: Default::default(),
    }
}

/// The session whose annotations channel `channel` would be (whether or not it exists).
fn session_of(channel: &str) -> Option<&str> {
    channel
        .strip_suffix(SUFFIX)
        .filter(|s| s.starts_with("ahp-session:/"))
}

/// One session's annotations and the 1.0 connections subscribed to them.
#[derive(Default)]
struct Channel {
    state: v1::AnnotationsState,
    subs: Vec<ConnId>,
}

/// Every session's annotations channel that has annotations or subscribers.
#[derive(Default)]
pub(super) struct Annotations {
    channels: HashMap<String, Channel>,
    /// Numbers the annotations the agent adds.
    next_agent_id: u64,
}

impl Annotations {
    /// The annotations the store kept (`session`, JSON), in order; unreadable ones are
    /// skipped (logged).
    pub(super) fn restored(rows: Vec<(String, String)>) -> Annotations {
        let mut out = Annotations::default();
        for (session, json) in rows {
            match serde_json::from_str::<v1::Annotation>(&json) {
                Ok(annotation) => out
                    .channels
                    .entry(session)
                    .or_default()
                    .state
                    .annotations
                    .push(annotation),
                Err(e) => eprintln!("ahp-host: an annotation of {session} is unreadable ({e})"),
            }
        }
        out
    }

    /// The session whose annotations channel `channel` is, when that session exists.
    pub(super) fn session_of_channel<'a>(core: &Core, channel: &'a str) -> Option<&'a str> {
        session_of(channel).filter(|s| core.sessions.contains_key(*s))
    }

    /// Whether `channel` names an annotations channel (of an existing session or not).
    pub(super) fn names_channel(channel: &str) -> bool {
        session_of(channel).is_some()
    }

    /// The snapshot of the annotations channel of session `session`.
    pub(super) fn snapshot(&self, session: &str, seq: u64) -> Option<String> {
        let channel = channel_of(session);
        match self.channels.get(session) {
            Some(c) => snapshot_json(&channel, &c.state, seq),
            None => snapshot_json(&channel, &v1::AnnotationsState::default(), seq),
        }
    }

    /// The subscribers of the annotations channel of session `session`.
    pub(super) fn subscribers_mut(&mut self, session: &str) -> &mut Vec<ConnId> {
        &mut self.channels.entry(session.to_owned()).or_default().subs
    }

    /// The `annotations` member of session `session`'s 1.0 state and summary.
    pub(super) fn summary(&self, session: &str) -> v1::AnnotationsSummary {
        let annotations = self
            .channels
            .get(session)
            .map_or(&[][..], |c| &c.state.annotations[..]);
        summary_of(session, annotations)
    }

    /// A 1.0 client's action on the annotations channel of `session` (which exists): checked,
    /// applied, stored and sent to the subscribers; or refused to its dispatcher alone.
    pub(super) fn dispatch(
        &mut self,
        core: &mut Core,
        conn: ConnId,
        session: &str,
        (action, json): (v1::StateAction, Value),
        origin: &v03::ActionOrigin,
    ) {
        let channel = channel_of(session);
        let empty = v1::AnnotationsState::default();
        let state = self.channels.get(session).map_or(&empty, |c| &c.state);
        if let Err(reason) = check(state, session, &action) {
            core.seq += 1;
            let frame = envelope_frame(&channel, &json, core.seq, Some(origin), Some(&reason));
            core.outbox.push((conn, frame));
            return;
        }
        self.apply(core, session, &action, &json, Some(origin));
    }

    /// Applies a checked action, stores what it changed and sends its envelope.
    fn apply(
        &mut self,
        core: &mut Core,
        session: &str,
        action: &v1::StateAction,
        json: &Value,
        origin: Option<&v03::ActionOrigin>,
    ) {
        let c = self.channels.entry(session.to_owned()).or_default();
        if !matches!(
            annotations_reducer(&mut c.state, action),
            Outcome::Applied(_)
        ) {
            return;
        }
        let id = target(action).unwrap_or_default();
        let json_now = c
            .state
            .annotations
            .iter()
            .find(|a| a.id == id)
            .and_then(|a| serde_json::to_string(a).ok());
        core.ops.push(Op::Annotation {
            session: session.to_owned(),
            id: id.to_owned(),
            json: json_now,
        });
        core.seq += 1;
        let channel = channel_of(session);
        let frame = envelope_frame(&channel, json, core.seq, origin, None);
        fanout(&mut core.outbox, &c.subs, &frame);
        core.keep_v1(channel.into(), frame);
        let summary = summary_of(session, &c.state.annotations);
        if let Ok(summary) = serde_json::to_value(summary) {
            core.v1_notify_summary(session, serde_json::json!({ "annotations": summary }));
        }
    }

    /// The agent's `/annotate`: an annotation of the whole line `line` of `resource` with one
    /// entry in `session`'s channel, anchored to the agent's turn in `chat`.
    fn add_by_agent(
        &mut self,
        core: &mut Core,
        (session, chat): (&str, &str),
        turn_id: &str,
        (resource, line, text): (String, u32, String),
    ) -> Result<String, String> {
        self.next_agent_id += 1;
        let id = format!("agent-{}-{}", turn_id, self.next_agent_id);
        let annotation = serde_json::json!({
            "id": id,
            "origin": {"session": session, "chat": chat, "turnId": turn_id},
            "resource": resource,
            "range": {"start": {"line": line, "character": 0},
                      "end": {"line": line + 1, "character": 0}},
            "resolved": false,
            "entries": [{"id": "1", "text": text}],
        });
        let json = serde_json::json!({"type": "annotations/set", "annotation": annotation});
        let action: v1::StateAction =
            serde_json::from_value(json.clone()).map_err(|e| e.to_string())?;
        let empty = v1::AnnotationsState::default();
        let state = self.channels.get(session).map_or(&empty, |c| &c.state);
        check(state, session, &action)?;
        self.apply(core, session, &action, &json, None);
        Ok(format!(
            "Annotated line {} of `{resource}` ({}).",
            line + 1,
            channel_of(session)
        ))
    }
}

/// The annotation `action` names.
fn target(action: &v1::StateAction) -> Option<&str> {
    use v1::StateAction as A;
    Some(match action {
        A::AnnotationsSet(a) => &a.annotation.id,
        A::AnnotationsUpdated(a) => &a.annotation_id,
        A::AnnotationsRemoved(a) => &a.annotation_id,
        A::AnnotationsEntrySet(a) => &a.annotation_id,
        A::AnnotationsEntryRemoved(a) => &a.annotation_id,
        _ => return None,
    })
}

/// Whether `action` may be applied to `state`, the annotations of `session`: it is an
/// `annotations/*` action the reducer applies, and the annotation it leaves is within bounds.
/// Reduced on a copy of the one annotation it names.
fn check(
    state: &v1::AnnotationsState,
    session: &str,
    action: &v1::StateAction,
) -> Result<(), String> {
    let id = target(action).ok_or("only annotations/* actions apply to an annotations channel")?;
    let existing = state.annotations.iter().find(|a| a.id == id);
    if let v1::StateAction::AnnotationsEntryRemoved(a) = action {
        if existing.is_some_and(|e| e.entries.len() == 1 && e.entries[0].id == a.entry_id) {
            return Err(
                "an annotation keeps at least one entry: remove the annotation instead".into(),
            );
        }
    }
    if existing.is_none() && state.annotations.len() >= MAX_ANNOTATIONS {
        if let v1::StateAction::AnnotationsSet(_) = action {
            return Err(format!(
                "this session has {MAX_ANNOTATIONS} annotations, the most it keeps"
            ));
        }
    }
    let mut copy = v1::AnnotationsState {
        annotations: existing.into_iter().cloned().collect(),
        extra: Default::default(),
    };
    if let Outcome::NoOp(why) = annotations_reducer(&mut copy, action) {
        return Err(match why {
            ahp_wasm::reduce::NoOp::UnknownTarget => match existing {
                None => format!("no annotation {}", short(id)),
                Some(_) => "no such entry in this annotation".into(),
            },
            other => other.reason().into(),
        });
    }
    match copy.annotations.first() {
        Some(annotation) => check_annotation(annotation, session),
        None => Ok(()),
    }
}

/// An annotation within the bounds, anchored in its own session.
fn check_annotation(a: &v1::Annotation, session: &str) -> Result<(), String> {
    if a.id.is_empty() || a.id.len() > MAX_ID_BYTES {
        return Err(format!("an annotation id has 1 to {MAX_ID_BYTES} bytes"));
    }
    if a.origin.session != session {
        return Err(format!(
            "the annotation's origin.session must be this channel's session ({})",
            short(session)
        ));
    }
    if a.resource.is_empty() || a.resource.len() > MAX_RESOURCE_BYTES {
        return Err(format!("`resource` has 1 to {MAX_RESOURCE_BYTES} bytes"));
    }
    if a.entries.is_empty() || a.entries.len() > MAX_ENTRIES {
        return Err(format!("an annotation has 1 to {MAX_ENTRIES} entries"));
    }
    for entry in &a.entries {
        if entry.id.is_empty() || entry.id.len() > MAX_ID_BYTES {
            return Err(format!("an entry id has 1 to {MAX_ID_BYTES} bytes"));
        }
        let text = serde_json::to_string(&entry.text).map_or(usize::MAX, |t| t.len());
        if text > MAX_TEXT_BYTES {
            return Err(format!(
                "an entry's text is {text} bytes, more than {MAX_TEXT_BYTES}"
            ));
        }
    }
    let bytes = serde_json::to_string(a).map_or(usize::MAX, |t| t.len());
    if bytes > MAX_ANNOTATION_BYTES {
        return Err(format!(
            "the annotation would be {bytes} bytes, more than {MAX_ANNOTATION_BYTES}"
        ));
    }
    Ok(())
}

/// At most 120 characters of `s`, for a reason.
fn short(s: &str) -> &str {
    match s.char_indices().nth(120) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

impl Feature for Annotations {
    /// The session's annotations go with it, and its channel's subscriptions.
    fn session_disposed(&mut self, core: &mut Core, session: &str) {
        let Some(c) = self.channels.remove(session) else {
            return;
        };
        let channel = channel_of(session);
        for conn in c.subs {
            if let Some(conn) = core.conns.get_mut(&conn) {
                conn.v1_subs.remove(&channel);
            }
        }
        core.ops.push(Op::DeleteAnnotations {
            session: session.to_owned(),
        });
    }
}

impl Hub {
    /// The agent's `/annotate` and `/canvas`.
    pub(super) fn on_panel(&mut self, msg: PanelRequest) {
        let PanelRequest {
            session,
            turn_id,
            ask,
            reply,
        } = msg;
        let answer = if !self.core.sessions.contains_key(&session) {
            Err("the session is gone".to_owned())
        } else {
            match ask {
                PanelAsk::Annotate {
                    resource,
                    line,
                    text,
                } => {
                    // A chat's view annotates in the channel of the session it belongs to.
                    let (owner, chat) = match self.core.chat_parent(&session).map(str::to_owned) {
                        Some(parent) => (parent, session.clone()),
                        None => (session.clone(), default_chat_uri(&session)),
                    };
                    self.annotations.add_by_agent(
                        &mut self.core,
                        (&owner, &chat),
                        &turn_id,
                        (resource, line, text),
                    )
                }
                PanelAsk::Canvas { title, html, kind } => {
                    self.open_canvas(&session, (title, html, kind))
                }
            }
        };
        let _ = reply.send(answer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> v1::AnnotationEntry {
        serde_json::from_value(serde_json::json!({"id": id, "text": "t"})).unwrap()
    }

    #[test]
    fn the_summary_counts_annotations_and_entries() {
        let s = "ahp-session:/s";
        let mut annotations = Annotations::default();
        assert_eq!(annotations.summary(s).annotation_count, 0);
        let mut state = v1::AnnotationsState::default();
        for (id, entries) in [("a", 2), ("b", 3)] {
            let mut a: v1::Annotation = serde_json::from_value(serde_json::json!({
                "id": id, "origin": {"session": s}, "resource": "file:///f",
                "resolved": false, "entries": []}))
            .unwrap();
            a.entries = (0..entries).map(|i| entry(&i.to_string())).collect();
            state.annotations.push(a);
        }
        annotations.channels.entry(s.into()).or_default().state = state;
        let summary = annotations.summary(s);
        assert_eq!(summary.resource, "ahp-session:/s/annotations");
        assert_eq!((summary.annotation_count, summary.entry_count), (2, 5));
    }
}
