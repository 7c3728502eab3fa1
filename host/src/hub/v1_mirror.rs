//! The 1.0 state of a session ([`Mirror`]: the 1.0 session and its default chat, always
//! present; the one state the hub changes and the store keeps, of which 0.3.0 clients are
//! shown a view, [`Mirror::v03_state`]) and the 1.0 frames: the low layer of the hub's AHP 1.0 part
//! (`v1.rs`), which the core and the sessions hold without depending on the rest of it.

use super::input_needed;
use crate::bus::ConnId;
use crate::compat::{self, Target};
use crate::replay::action_frame;
use crate::store::{HostFields, LoadedV1, Op};
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::{chat_reducer, from_unix_millis, session_reducer};
use ahp_wasm::reduce::{NoOp, Outcome};
use serde_json::Value;
use std::sync::Arc;

/// The version string of AHP 1.0.
pub(super) const V1: &str = v1::PROTOCOL_VERSION;

pub(super) const CHAT_PREFIX: &str = "ahp-chat:/";

/// Whether session key `uri` is a non-default chat's view (`chat_views.rs`): the core and the
/// features tell them from sessions without depending on that module.
pub(super) fn is_chat_view(uri: &str) -> bool {
    uri.starts_with(CHAT_PREFIX)
}

/// The URI of a session's default chat.
pub(super) fn default_chat_uri(session: &str) -> String {
    compat::default_chat_uri(session)
}

/// The session whose default chat `chat` is.
pub(super) fn session_of_chat(chat: &str) -> Option<String> {
    compat::session_of_chat(chat)
}

/// A session as 1.0 clients see it, with their subscriptions; or, for a non-default chat's
/// view (`parent`), that chat beside a session state of its own that only gives the
/// translation its context (the chat's entry in the real session goes to `parent`).
pub(super) struct Mirror {
    pub session: v1::SessionState,
    pub chat: v1::ChatState,
    pub chat_uri: String,
    /// The session whose non-default chat this is (the chat's view; set by `chat_views.rs`).
    pub parent: Option<String>,
    /// 1.0 connections subscribed to the session channel.
    pub session_subs: Vec<ConnId>,
    /// 1.0 connections subscribed to the default chat.
    pub chat_subs: Vec<ConnId>,
    /// The JSON size of each completed turn of the chat written to the `chat_turns` table.
    turn_bytes: Vec<usize>,
    /// 1.0 log entries since the last head, and their bytes.
    since_head: usize,
    since_head_bytes: usize,
    /// Not stored as it is now (lifted from a 0.3.0 state, or loaded without its
    /// [`HostFields`], or those changed): the next [`Mirror::record_all`] writes it.
    pub needs_head: bool,
    /// The session's creation time and the model and custom agent a 0.3.0 client last chose
    /// (`session/modelChanged`, `session/agentChanged`), for its 0.3.0 view. Host-side data
    /// kept beside the 1.0 state, not in it: 1.0 has no creation time in the session state and
    /// no session-level selection (a model is per message, and a message's model is the one
    /// that answered, not the one chosen for what comes next), so these actions have no 1.0
    /// counterpart (`compat::to_v1`), and inventing 1.0 state fields would show 1.0 clients
    /// members the spec does not have. Stored in the 1.0 head.
    pub host: HostFields,
}

/// A fresh 1.0 head is written at least this often (log entries), or every this many bytes of
/// log, so a restart replays a bounded log.
const HEAD_EVERY: usize = 512;
const HEAD_EVERY_BYTES: usize = 4 << 20;

/// A head as written: the chats without their completed turns (borrowed, not cloned).
#[derive(serde::Serialize)]
struct HeadRef<'a> {
    session: &'a v1::SessionState,
    chats: [&'a v1::ChatState; 1],
    host: &'a HostFields,
}

impl Mirror {
    /// The 1.0 state of a 0.3.0 session; `None` (logged) when the lifted state does not
    /// decode, a bug of the lift: the session is then refused (`Session::new`) or not loaded.
    pub fn lift(state: &v03::SessionState) -> Option<Mirror> {
        // A non-default chat's view is keyed by the chat's URI (`chat_views.rs`).
        let resource = &state.summary.resource;
        let chat_uri = match resource.starts_with(CHAT_PREFIX) {
            true => resource.clone(),
            false => default_chat_uri(resource),
        };
        let (session, chat) = compat::lift(state, &chat_uri);
        let decoded = serde_json::from_value::<v1::SessionState>(session)
            .and_then(|s| Ok((s, serde_json::from_value::<v1::ChatState>(chat)?)));
        match decoded {
            Ok((mut session, chat)) => {
                // Applied as lifted: nobody has been sent this state yet.
                input_needed::sync(&mut session, &chat_uri, &chat);
                Some(Mirror {
                    session,
                    chat,
                    chat_uri,
                    parent: None,
                    session_subs: Vec::new(),
                    chat_subs: Vec::new(),
                    turn_bytes: Vec::new(),
                    since_head: 0,
                    since_head_bytes: 0,
                    needs_head: true,
                    host: HostFields::of(state),
                })
            }
            Err(e) => {
                eprintln!(
                    "ahp-host: session {} has no AHP 1.0 state ({e})",
                    state.summary.resource
                );
                None
            }
        }
    }

    /// The stored 1.0 state of session `uri`; `None` (logged) when it has no default chat (the
    /// caller lifts it again from the 0.3.0 state, if an older host stored one). A head without
    /// [`HostFields`] gets default ones and [`Mirror::needs_head`]: the caller fills them in.
    pub fn loaded(uri: &str, loaded: LoadedV1) -> Option<Mirror> {
        let LoadedV1 {
            head,
            mut turn_bytes,
            since_head,
        } = loaded;
        let chat_uri = head
            .session
            .default_chat
            .clone()
            .unwrap_or_else(|| default_chat_uri(uri));
        let Some(i) = head.chats.iter().position(|c| c.resource == chat_uri) else {
            eprintln!("ahp-host: the stored AHP 1.0 state of {uri} lacks its default chat");
            return None;
        };
        let turn_bytes = std::mem::take(turn_bytes.get_mut(i)?);
        let needs_head = head.host.is_none();
        let host = head.host.unwrap_or_default();
        let mut chat = head.chats.into_iter().nth(i)?;
        // Its background work ran in processes of the host that stored it, gone now.
        chat.background_work = None;
        Some(Mirror {
            session: head.session,
            chat,
            chat_uri,
            parent: None,
            session_subs: Vec::new(),
            chat_subs: Vec::new(),
            turn_bytes,
            since_head,
            since_head_bytes: 0,
            needs_head,
            host,
        })
    }

    /// The 0.3.0 state of this session (or chat's view) on channel `resource`: its default
    /// chat alone (`compat::session_state`), with the host's fields.
    pub fn v03_state(&self, resource: &str) -> Result<v03::SessionState, String> {
        let typed = compat::typed_state(self.v03_json(resource)).map_err(|e| e.to_string())?;
        Ok(self.with_host_fields(typed))
    }

    /// [`Mirror::v03_state`] without its completed turns (not built): the session's members
    /// and the chat's active turn, input requests, steering and queued messages.
    pub fn v03_head(&self, resource: &str) -> Result<v03::SessionState, String> {
        let mut json = self.members_json(resource);
        compat::conversation_into(&mut json, &self.chat, false);
        let typed = compat::typed_state(json).map_err(|e| e.to_string())?;
        Ok(self.with_host_fields(typed))
    }

    /// [`Mirror::v03_state`] without the conversation (`compat::session_members`): what
    /// `Session::members` keeps.
    pub fn v03_members(&self, resource: &str) -> Result<v03::SessionState, String> {
        let typed = compat::typed_state(self.members_json(resource)).map_err(|e| e.to_string())?;
        Ok(self.with_host_fields(typed))
    }

    fn members_json(&self, resource: &str) -> Value {
        compat::session_members(resource, &self.created(), &self.session, Some(&self.chat))
    }

    /// The JSON of the 0.3.0 view without the host's fields ([`Mirror::v03_state`]).
    pub fn v03_json(&self, resource: &str) -> Value {
        compat::session_state(resource, &self.created(), &self.session, Some(&self.chat))
    }

    /// The creation time as 1.0 writes times (RFC 3339).
    fn created(&self) -> String {
        from_unix_millis(self.host.created_at as i64).unwrap_or_default()
    }

    /// The completed turns of [`Mirror::v03_state`] from `range` (the chat's, as 0.3.0 has
    /// them), without building the rest of the view.
    pub fn v03_turns(&self, range: std::ops::Range<usize>) -> Result<Vec<v03::Turn>, String> {
        let turns = self.chat.turns.get(range).unwrap_or_default();
        turns
            .iter()
            .map(|t| serde_json::to_value(&**t).map_err(|e| e.to_string()))
            .map(|json| compat::typed_turn(compat::turn(&json?)).map_err(|e| e.to_string()))
            .collect()
    }

    /// The summary of [`Mirror::v03_state`] alone (its turns not built).
    pub fn v03_summary(&self, resource: &str) -> Result<v03::SessionSummary, String> {
        let view =
            compat::session_summary(resource, &self.created(), &self.session, Some(&self.chat));
        let mut summary = compat::typed_summary(view).map_err(|e| e.to_string())?;
        self.host_fields_into(&mut summary);
        Ok(summary)
    }

    /// `state` with the host's fields (creation time, 0.3.0 selection).
    pub fn with_host_fields(&self, mut state: v03::SessionState) -> v03::SessionState {
        self.host_fields_into(&mut state.summary);
        state
    }

    fn host_fields_into(&self, summary: &mut v03::SessionSummary) {
        summary.created_at = self.host.created_at;
        summary.model = self.host.model.clone();
        summary.agent = self.host.agent.clone();
    }

    /// Bytes of the chat's completed turns on disk (the session size limit counts them).
    pub fn stored_turn_bytes(&self) -> usize {
        self.turn_bytes.iter().sum()
    }

    /// Queues the writes for 1.0 actions applied at `first_seq` and on, one number each
    /// (`applied`: channel and action): the log entries, completed or truncated turns, and a new
    /// head when the turns changed or the log grew long.
    pub(super) fn record(
        &mut self,
        uri: &Arc<str>,
        first_seq: u64,
        applied: &[(String, Value)],
        ops: &mut Vec<Op>,
    ) {
        for (i, (channel, action)) in applied.iter().enumerate() {
            let action = action.to_string();
            self.since_head += 1;
            self.since_head_bytes += action.len();
            ops.push(Op::V1Action {
                session: uri.clone(),
                seq: first_seq + i as u64,
                channel: channel.clone(),
                action,
            });
        }
        let seq = first_seq + applied.len().saturating_sub(1) as u64;
        let turns_changed = self.chat.turns.len() != self.turn_bytes.len();
        if turns_changed || self.needs_head {
            self.record_all(uri, seq, ops);
        } else if self.since_head >= HEAD_EVERY || self.since_head_bytes >= HEAD_EVERY_BYTES {
            self.record_head(uri, seq, ops);
        }
    }

    /// Queues the completed turns not written yet and a head at `seq`.
    pub(super) fn record_all(&mut self, uri: &Arc<str>, seq: u64, ops: &mut Vec<Op>) {
        let len = self.chat.turns.len();
        if len < self.turn_bytes.len() {
            ops.push(Op::TruncateChatTurns {
                chat: self.chat_uri.clone(),
                from_idx: len,
            });
            self.turn_bytes.truncate(len);
        }
        for idx in self.turn_bytes.len()..len {
            let turn = &self.chat.turns[idx];
            let json = serde_json::to_string(&**turn).expect("turns always serialize");
            self.turn_bytes.push(json.len());
            ops.push(Op::ChatTurn {
                chat: self.chat_uri.clone(),
                session: uri.clone(),
                idx,
                turn_id: turn.id.clone(),
                json,
            });
        }
        self.record_head(uri, seq, ops);
    }

    /// Queues the 1.0 state without the chat's completed turns as the head at `seq`.
    fn record_head(&mut self, uri: &Arc<str>, seq: u64, ops: &mut Vec<Op>) {
        let turns = std::mem::take(&mut self.chat.turns);
        let head = HeadRef {
            session: &self.session,
            chats: [&self.chat],
            host: &self.host,
        };
        let json = serde_json::to_string(&head).expect("1.0 states always serialize");
        self.chat.turns = turns;
        ops.push(Op::V1Head {
            session: uri.clone(),
            json,
            seq,
        });
        self.since_head = 0;
        self.since_head_bytes = 0;
        self.needs_head = false;
    }

    /// Applies a 1.0 action a client dispatched on the session (`on_session`) or the chat:
    /// the channels and actions that applied (a chat change of the session's `chats` entry is
    /// followed by `session/chatUpdated`), or why it did not.
    pub(super) fn apply(
        &mut self,
        uri: &str,
        on_session: bool,
        action: &v1::StateAction,
        json: Value,
    ) -> Result<Vec<(String, Value)>, NoOp> {
        if on_session {
            judged(session_reducer(&mut self.session, action))?;
            return Ok(vec![(uri.to_owned(), json)]);
        }
        judged(chat_reducer(&mut self.chat, action))?;
        let mut out = vec![(self.chat_uri.clone(), json)];
        self.session_follows_chat(uri, &mut out);
        Ok(out)
    }

    /// Applies a 0.3.0 action to the session `uri` at `now` (milliseconds): the 1.0 channels and
    /// actions with the same effect, or why it changes nothing. The 1.0 reducers judge (the
    /// 0.3.0 view follows what they accept). A change of the chat's summary members is
    /// followed by `session/chatUpdated` on the session (its `chats` entry of the chat). The
    /// model and agent a 0.3.0 client chooses change the host's fields alone (`host`).
    pub(super) fn follow(
        &mut self,
        uri: &str,
        action: &v03::StateAction,
        now: f64,
    ) -> Result<Vec<(String, Value)>, NoOp> {
        let mut out = Vec::new();
        // No 1.0 counterpart: kept by the host (see [`Mirror::host`]), stored with a new head.
        match action {
            v03::StateAction::SessionModelChanged(a) => {
                self.host.model = Some(a.model.clone());
                self.needs_head = true;
                return Ok(out);
            }
            v03::StateAction::SessionAgentChanged(a) => {
                self.host.agent.clone_from(&a.agent);
                self.needs_head = true;
                return Ok(out);
            }
            _ => {}
        }
        let translated = serde_json::to_value(action)
            .ok()
            .and_then(|json| compat::to_v1(&json, &self.session, &self.chat, now as i64));
        // A change 1.0 does not make (a call waiting for confirmation made ready), which
        // 0.3.0 does not make either.
        let Some((target, new)) = translated else {
            return Err(NoOp::InvalidTransition);
        };
        let typed = serde_json::from_value::<v1::StateAction>(new.clone()).map_err(|e| {
            // A bug of the translation.
            eprintln!("ahp-host: {uri}: a translated action does not decode ({e}): {new}");
            NoOp::NotForThisChannel
        })?;
        match target {
            // A chat's view has no session of its own to show; the title the agent gives it
            // is the chat's, in its entry of the session's `chats` (no chat action has one).
            Target::Session if self.parent.is_some() => {
                // Kept in the view's own session all the same: the view's 0.3.0 members are
                // derived from it.
                judged(session_reducer(&mut self.session, &typed))?;
                self.needs_head = true;
                if let v1::StateAction::SessionTitleChanged(a) = &typed {
                    let action = serde_json::json!({"type": "session/chatUpdated",
                        "chat": self.chat_uri, "changes": {"title": a.title}});
                    out.push((self.session_channel(uri), action));
                }
            }
            Target::Session => {
                judged(session_reducer(&mut self.session, &typed))?;
                let changesets = matches!(typed, v1::StateAction::SessionChangesetsChanged(_));
                out.push((uri.to_owned(), new));
                if changesets {
                    out.extend(self.chat_changesets(self.session.changesets.clone()));
                }
            }
            Target::DefaultChat => {
                judged(chat_reducer(&mut self.chat, &typed))?;
                out.push((self.chat_uri.clone(), new));
                self.session_follows_chat(uri, &mut out);
            }
        }
        Ok(out)
    }

    /// After a change of the chat: the session's `chats` entry of it (`session/chatUpdated`),
    /// its `inputNeeded` entries (`input_needed.rs`) and the session's activity, applied to the mirror's session and
    /// appended to `out` for the session the chat is in.
    fn session_follows_chat(&mut self, uri: &str, out: &mut Vec<(String, Value)>) {
        let to = self.session_channel(uri);
        out.extend(self.chat_updated().map(|a| (to.clone(), a)));
        let needed = input_needed::sync(&mut self.session, &self.chat_uri, &self.chat);
        out.extend(needed.into_iter().map(|a| (to.clone(), a)));
        // A chat's view has no session of its own: its parent follows (`v1_to_parent`).
        if self.parent.is_none() {
            if let Some(action) = activity_changed(&self.session) {
                let typed: Option<v1::StateAction> = serde_json::from_value(action.clone()).ok();
                if typed.is_some_and(|t| session_reducer(&mut self.session, &t).is_applied()) {
                    out.push((to, action));
                }
            }
        }
    }

    /// Gives the chat the changesets catalogue `changesets` (its session's: every chat here
    /// works in its session's one directory, so the session's changeset is each chat's view
    /// of its working directories too): the chat action applied, if it changed anything.
    pub(super) fn chat_changesets(
        &mut self,
        changesets: Option<Vec<v1::Changeset>>,
    ) -> Option<(String, Value)> {
        if self.chat.changesets == changesets {
            return None;
        }
        let mut action = serde_json::json!({ "type": "chat/changesetsChanged" });
        if let Some(list) = &changesets {
            action["changesets"] = serde_json::to_value(list).ok()?;
        }
        let typed: v1::StateAction = serde_json::from_value(action.clone()).ok()?;
        chat_reducer(&mut self.chat, &typed)
            .is_applied()
            .then(|| (self.chat_uri.clone(), action))
    }

    /// The channel of the session the chat's `chats` entry is in.
    fn session_channel(&self, uri: &str) -> String {
        self.parent.clone().unwrap_or_else(|| uri.to_owned())
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

/// Whether a reducer applied the action, or why not.
fn judged<F>(outcome: Outcome<F>) -> Result<(), NoOp> {
    match outcome {
        Outcome::Applied(_) => Ok(()),
        Outcome::NoOp(why) => Err(why),
    }
}

/// `session/activityChanged` when session `session`'s activity is not the one its chats give
/// it (the spec's chat aggregation): the activity of the chat that contributes the session's
/// activity bits, a chat needing input first, then one in error, else the default chat.
pub(super) fn activity_changed(session: &v1::SessionState) -> Option<Value> {
    let input_needed = v1::SessionStatus::InputNeeded.bits();
    let error = v1::SessionStatus::Error.bits();
    let chats = &session.chats;
    let winner = chats
        .iter()
        .find(|c| c.status & input_needed == input_needed)
        .or_else(|| chats.iter().find(|c| c.status & error != 0))
        .or_else(|| {
            let default = session.default_chat.as_ref()?;
            chats.iter().find(|c| &c.resource == default)
        })?;
    if winner.activity == session.activity {
        return None;
    }
    let mut action = serde_json::json!({ "type": "session/activityChanged" });
    if let Some(activity) = &winner.activity {
        action["activity"] = activity.clone().into();
    }
    Some(action)
}

/// A 1.0 client's dispatch being applied through the 0.3.0 path: a rejection goes back to it
/// as this 1.0 action on this channel.
pub(super) struct PendingV1 {
    pub conn: ConnId,
    pub channel: String,
    pub action: Value,
    /// The dispatched action itself, when it is one 0.3.0 action's worth: the 1.0 state takes
    /// it as the client sent it (with what 0.3.0 has no place for), not the translation of
    /// that 0.3.0 action back (`Core::apply`).
    pub direct: Option<Direct>,
}

/// A 1.0 action a client dispatched, applied as it is ([`PendingV1::direct`]).
pub(super) struct Direct {
    /// The session key (a session, or a chat's view) and whether the action is on the session
    /// channel (else on the chat).
    pub key: String,
    pub on_session: bool,
    pub action: v1::StateAction,
    pub json: Value,
    /// Whose dispatch it is: the 0.3.0 action applied with this origin is its translation.
    pub client_id: String,
    pub client_seq: u64,
}

impl PendingV1 {
    /// The direct action, when the 0.3.0 action applied now on `key` with `origin` is its
    /// translation (taken: it applies once).
    pub fn take_direct(&mut self, key: &str, origin: Option<&v03::ActionOrigin>) -> Option<Direct> {
        let origin = origin?;
        let direct = self.direct.as_ref()?;
        let same = direct.key == key
            && direct.client_id == origin.client_id
            && direct.client_seq == origin.client_seq;
        same.then(|| self.direct.take()).flatten()
    }
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
