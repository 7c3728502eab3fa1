//! Chats beyond a session's default one (`createChat`, `disposeChat`).
//!
//! Decision: a non-default chat is a conversation of its own, driven exactly as a session is
//! today. Its *view* is a 0.3.0 session state kept in `Core::sessions` under the chat's URI
//! (`ahp-chat:/<session id>/<name>`): the agent, the turn logic and the stores work on it by
//! channel as on any session, so the built-in agent runs per chat and a turn in one chat never
//! waits on another's. Its 1.0 state is a [`Mirror`](super::v1_mirror::Mirror) with a `parent`:
//! the chat (translated by `compat::to_v1` as a default chat is), while what would change a
//! session (the chat's `chats` entry, `session/chatUpdated`) goes to the parent session's 1.0
//! state instead ([`Core::v1_to_parent`]); what changes the view's session (its config, say) is
//! kept in the mirror's own session, unseen. The mirror is stored under the chat's URI as a
//! session's is, so a restart restores it and derives the view from it; the parent's `chats[]`
//! is stored with the parent.
//!
//! 0.3.0 clients never see a view: it is not listed, not subscribable, counts in no root
//! summary and takes no 0.3.0 dispatch (a 0.3.0 session is its default chat only).

use super::base::Core;
use super::commands::{invalid, session_not_found};
use super::input_needed;
use super::sessions::Session;
use super::turns::{new_id, new_turn_id};
use super::v1_mirror::{activity_changed, envelope_frame, is_chat_view, CHAT_PREFIX};
use super::v1_root::summary_status;
use super::{fanout, ConnId, Hub};
use crate::compat::{self, Source, View};
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{EmptyResult, ErrorObject, RequestId};
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::{chat_reducer, session_reducer};
use ahp_wasm::reduce::{Clock, SystemClock};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Longest chat URI accepted.
const MAX_CHAT_URI: usize = 256;

/// What a new chat starts with: none for a plain one; a fork's or side chat's, its source's
/// turns and its `origin`.
#[derive(Default)]
struct Seed {
    turns: Vec<Arc<v1::Turn>>,
    origin: Option<v1::ChatOrigin>,
}

/// Longest selected text a side chat keeps (`createChat`'s `source.selection.text`), bytes.
const MAX_SELECTION: usize = 64 * 1024;

/// Gives each chat view loaded from the database its session (the one whose 1.0 `chats`
/// names it); the views no session names (none should be: both are written in one
/// transaction) are removed and returned.
pub(super) fn link_parents(sessions: &mut HashMap<String, Session>) -> Vec<String> {
    let links: Vec<(String, String)> = sessions
        .iter()
        .filter(|(uri, _)| !is_chat_view(uri))
        .map(|(uri, s)| (uri, &s.v1))
        .flat_map(|(uri, m)| {
            m.session
                .chats
                .iter()
                .filter(|c| is_chat_view(&c.resource) && c.resource != m.chat_uri)
                .map(move |c| (c.resource.clone(), uri.clone()))
        })
        .collect();
    for (chat, parent) in links {
        if let Some(session) = sessions.get_mut(&chat) {
            session.v1.parent = Some(parent);
        }
    }
    let orphans: Vec<String> = sessions
        .iter()
        .filter(|(uri, s)| is_chat_view(uri) && s.v1.parent.is_none())
        .map(|(uri, _)| uri.clone())
        .collect();
    for orphan in &orphans {
        sessions.remove(orphan);
    }
    orphans
}

/// Whether `chat` may be a new chat of session `session`: `ahp-chat:/<session id>/<name>`
/// (the name not `default`), or one opaque segment (the spec's `ahp-chat:/<uuid>`); printable,
/// bounded. A URI under another session is not.
fn chat_uri_ok(chat: &str, session: &str) -> bool {
    let Some(rest) = chat.strip_prefix(CHAT_PREFIX) else {
        return false;
    };
    let id = session.strip_prefix("ahp-session:/").unwrap_or(session);
    let shaped = match rest.rsplit_once('/') {
        Some((of, name)) => of == id && !name.is_empty() && name != "default",
        None => !rest.is_empty(),
    };
    shaped && chat.len() <= MAX_CHAT_URI && !chat.chars().any(char::is_control)
}

/// Takes out of `applied` the actions for the session `parent` (of a chat's view).
pub(super) fn split_parent(parent: Option<&str>, applied: &mut Vec<(String, Value)>) -> Vec<Value> {
    let Some(parent) = parent else {
        return Vec::new();
    };
    let (to, mine): (Vec<_>, Vec<_>) = std::mem::take(applied)
        .into_iter()
        .partition(|(channel, _)| channel == parent);
    *applied = mine;
    to.into_iter().map(|(_, action)| action).collect()
}

impl Core {
    /// The session chat view `chat` belongs to (`None` for anything else).
    pub(super) fn chat_parent(&self, chat: &str) -> Option<&str> {
        self.sessions.get(chat)?.v1.parent.as_deref()
    }

    /// Gives the chat views of session `uri` that work in its directory the session's
    /// changesets catalogue (`Mirror::chat_changesets`), each change its own envelope on the
    /// chat. A chat moved here from another session still works in that one's directory, so
    /// it keeps the catalogue it had (the changeset of its directory).
    pub(super) fn v1_views_take_changesets(&mut self, uri: &str) {
        let Some(session) = self.sessions.get(uri) else {
            return;
        };
        let changesets = session.v1.session.changesets.clone();
        let directory = &session.members.summary.working_directory;
        let views: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.v1.parent.as_deref() == Some(uri))
            .filter(|(_, s)| &s.members.summary.working_directory == directory)
            .map(|(key, _)| key.clone())
            .collect();
        for view in views {
            let Some(session) = self.sessions.get_mut(&view) else {
                continue;
            };
            if let Some(applied) = session.v1.chat_changesets(changesets.clone()) {
                let first = self.seq + 1;
                self.v1_publish_at(&view, first, vec![applied], None);
            }
        }
    }

    /// The actions that take chat `chat`'s `inputNeeded` entries out of session `parent` (the
    /// chat is leaving it).
    pub(super) fn input_needed_gone(&self, parent: &str, chat: &str) -> Vec<Value> {
        let session = self.sessions.get(parent).map(|s| &s.v1);
        session.map_or_else(Vec::new, |m| input_needed::changes(&m.session, chat, None))
    }

    /// Applies session actions about one of its chats to session `parent`'s 1.0 state: each
    /// its own `serverSeq`, stored, sent to the session's 1.0 subscribers.
    pub(super) fn v1_to_parent(&mut self, parent: &str, actions: Vec<Value>) {
        let status = |core: &Self| Some(summary_status(&core.sessions.get(parent)?.v1.session));
        let before = status(self);
        let mut actions = std::collections::VecDeque::from(actions);
        let mut activity_checked = false;
        loop {
            let json = match actions.pop_front() {
                Some(json) => json,
                // Then the session's activity, when its chats now give it another one.
                None if !activity_checked => {
                    activity_checked = true;
                    let session = self.sessions.get(parent).map(|s| &s.v1);
                    match session.and_then(|m| activity_changed(&m.session)) {
                        Some(json) => json,
                        None => break,
                    }
                }
                None => break,
            };
            let Ok(typed) = serde_json::from_value::<v1::StateAction>(json.clone()) else {
                continue;
            };
            let Some(session) = self.sessions.get_mut(parent) else {
                return;
            };
            let mirror = &mut session.v1;
            if !session_reducer(&mut mirror.session, &typed).is_applied() {
                continue;
            }
            self.seq += 1;
            let frame = envelope_frame(parent, &json, self.seq, None, None);
            mirror.record(
                &session.uri,
                self.seq,
                &[(parent.to_owned(), json)],
                &mut self.ops,
            );
            fanout(&mut self.outbox, &mirror.session_subs, &frame);
            self.keep_v1(Arc::from(parent), frame);
        }
        // A chat's activity is its session's too (`summary_status`).
        if let Some(now) = status(self).filter(|&now| Some(now) != before) {
            self.v1_notify_status(parent, now);
        }
    }
}

impl Hub {
    /// `createChat`: a new chat of session `channel` at the client's URI under it, with the
    /// session's agent and settings and no turns (a fork's or side chat's, its source's through
    /// `source.turnId`); `initialMessage` starts its first turn.
    pub(super) fn create_chat_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: v1::CreateChatParams,
    ) -> Result<(), ErrorObject> {
        let parent = p.channel;
        if is_chat_view(&parent) || !self.core.sessions.contains_key(&parent) {
            return Err(session_not_found(&parent));
        }
        if !chat_uri_ok(&p.chat, &parent) {
            return Err(invalid(format!(
                "`chat` must be ahp-chat:/<session id>/<name> of this session (the name not \
                 `default`) or ahp-chat:/<id>, printable, at most {MAX_CHAT_URI} bytes"
            )));
        }
        if self.core.sessions.contains_key(&p.chat) {
            return Err(ErrorObject::new(
                errors::ALREADY_EXISTS,
                "a chat with this URI exists",
            ));
        }
        let seed = match &p.source {
            Some(source) => self.chat_source(&parent, source)?,
            None => Seed::default(),
        };
        let session = &self.core.sessions[&parent];
        // The spec: every entry MUST be one of the session's working directories.
        if let Some(dirs) = &p.working_directories {
            let of_session = session
                .v1
                .session
                .working_directories
                .as_deref()
                .unwrap_or_default();
            if let Some(stray) = dirs.iter().find(|d| !of_session.contains(d)) {
                let shown: String = stray.chars().take(120).collect();
                return Err(invalid(format!(
                    "`workingDirectories`: {shown} is not a working directory of the session"
                )));
            }
        }
        let max = self.core.limits.max_sessions;
        if self.core.sessions.len() >= max {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                format!("this host keeps at most {max} sessions and chats; dispose of one first"),
            ));
        }
        let started = match &p.initial_message {
            Some(message) => Some(first_turn(message, &session.v1.chat)?),
            None => None,
        };
        let now = SystemClock.now();
        let mut state = session.members.clone();
        state.summary.resource = p.chat.clone();
        state.summary.title = "New Chat".into();
        // SessionStatus.Idle.
        state.summary.status = 1;
        state.summary.created_at = now;
        state.summary.modified_at = now;
        state.summary.extra.remove("origin");
        state.lifecycle = v03::SessionLifecycle::Creating;
        state.creation_error = None;
        state.active_turn = None;
        state.steering_message = None;
        state.queued_messages = None;
        state.input_requests = None;
        state.changesets = None;
        let changesets = session.v1.session.changesets.clone();
        let mut view = Session::new(state).ok_or_else(super::commands::no_v1_state)?;
        view.seed_turns(seed.turns);
        // A non-default chat may move to another session (`moveChat`).
        let m = &mut view.v1;
        let entry = {
            m.parent = Some(parent.clone());
            m.chat.movable = Some(true);
            m.chat.changesets = changesets;
            m.chat
                .working_directories
                .clone_from(&p.working_directories);
            m.chat.origin.clone_from(&seed.origin);
            let entry = m.session.chats.iter_mut().find(|c| c.resource == p.chat);
            let entry = entry.ok_or_else(super::commands::no_v1_state)?;
            entry.movable = Some(true);
            entry.origin = seed.origin;
            entry.working_directories.clone_from(&p.working_directories);
            entry.clone()
        };
        let uri = view.uri.clone();
        view.v1.record_all(&uri, self.core.seq, &mut self.core.ops);
        self.core.sessions.insert(p.chat.clone(), view);
        self.apply_server(
            &p.chat,
            v03::StateAction::SessionReady(v03::SessionReadyAction {
                extra: Default::default(),
            }),
        );
        // Its features (changeset, customizations, MCP servers) as a session's: the agent
        // works in it as in a session (and so they are restored after a restart).
        self.each_feature(|f, core| f.session_opened(core, &p.chat));
        let added = json!({ "type": "session/chatAdded", "summary": entry });
        self.core.v1_to_parent(&parent, vec![added]);
        // After `session/chatAdded`: a client subscribed to the session lists the chat by the
        // time its `createChat` resolves, and can open it at once.
        self.core.respond(conn, id, &EmptyResult);
        if let Some(started) = started {
            self.apply_server(&p.chat, started);
        }
        Ok(())
    }

    /// `disposeChat`: a non-default chat and all it holds, gone (the default chat goes with its
    /// session only).
    pub(super) fn dispose_chat_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: v1::DisposeChatParams,
    ) -> Result<(), ErrorObject> {
        let chat = p.channel;
        if compat::session_of_chat(&chat).is_some_and(|s| self.core.sessions.contains_key(&s)) {
            return Err(invalid(
                "the default chat of a session is disposed of with the session only",
            ));
        }
        let parent = self
            .core
            .sessions
            .get(&chat)
            .and_then(|s| s.v1.parent.clone())
            .ok_or_else(|| ErrorObject::new(errors::NOT_FOUND, "no such chat"))?;
        self.close_chat(&chat);
        self.core.respond(conn, id, &EmptyResult);
        let mut actions = self.core.input_needed_gone(&parent, &chat);
        actions.push(json!({ "type": "session/chatRemoved", "chat": chat }));
        self.core.v1_to_parent(&parent, actions);
        Ok(())
    }

    /// What `createChat`'s `source` gives the new chat: the source chat's turns through
    /// `turnId` and the chat's `origin`. A fork takes a completed turn; a side chat may also
    /// take the source's active turn, as far as it went (each state's reducer ends a copy of it
    /// as cancelled, so it is kept as a finished turn), and keeps the selected text it names.
    fn chat_source(&self, parent: &str, source: &v1::ChatSource) -> Result<Seed, ErrorObject> {
        let (chat, turn_id, fork, origin) = match source {
            v1::ChatSource::Fork(f) => {
                let origin = v1::ChatOrigin::Fork(v1::ChatOriginFork {
                    chat: f.chat.clone(),
                    turn_id: f.turn_id.clone(),
                    extra: Default::default(),
                });
                (&f.chat, &f.turn_id, true, origin)
            }
            v1::ChatSource::SideChat(s) => {
                let text = s.selection.as_ref().map(|selection| selection.text.len());
                if text.is_some_and(|len| len == 0 || len > MAX_SELECTION) {
                    return Err(invalid(format!(
                        "`source.selection.text` must be 1 to {MAX_SELECTION} bytes"
                    )));
                }
                let origin = v1::ChatOrigin::SideChat(v1::ChatOriginSideChat {
                    chat: s.chat.clone(),
                    turn_id: s.turn_id.clone(),
                    selection: s.selection.clone(),
                    extra: Default::default(),
                });
                (&s.chat, &s.turn_id, false, origin)
            }
            v1::ChatSource::Unknown(other) => {
                return Err(invalid(format!(
                    "unknown chat source kind {:?} (this host knows fork and sideChat)",
                    other.tag()
                )))
            }
        };
        // A session's default chat is the session's own state here; another chat, its view.
        let of_session = if compat::default_chat_uri(parent) == *chat {
            self.core.sessions.get(parent)
        } else {
            self.core
                .sessions
                .get(chat)
                .filter(|view| view.v1.parent.as_deref() == Some(parent))
        }
        .ok_or_else(|| invalid("`source.chat` names no chat of this session"))?;
        let chat_state = &of_session.v1.chat;
        let completed = chat_state.turns.iter().any(|t| &t.id == turn_id);
        if fork && !completed {
            return Err(invalid(
                "`source.turnId` names no completed turn of the source chat (a fork starts \
                 from a completed turn)",
            ));
        }
        let turns = turns_through(chat_state, turn_id)
            .ok_or_else(|| invalid("`source.turnId` names no turn of the source chat"))?;
        Ok(Seed {
            turns,
            origin: Some(origin),
        })
    }

    /// `moveChat`: the chat keeps its URI, state and agent; its entry leaves the source
    /// session's `chats` and joins the destination's (placed first, or after `after`); to its
    /// own session, only its entry moves (`session/chatsReordered`).
    ///
    /// To a new session: the host creates one as `createSession` would, with the source
    /// session's provider, model, agent, working directory and config, and moves the chat in
    /// first. That session has its own default chat (`<session>/default`, as every session
    /// here): the moved chat keeps its URI, so it cannot become the default one, and the spec
    /// lets the default chat be any chat of the session. Every check runs before the session
    /// is created, so a refused move leaves nothing behind.
    pub(super) fn move_chat_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: v1::MoveChatParams,
    ) -> Result<(), ErrorObject> {
        let chat = p.channel;
        let from = self
            .core
            .sessions
            .get(&chat)
            .and_then(|s| s.v1.parent.clone())
            .ok_or_else(|| {
                if compat::session_of_chat(&chat).is_some() {
                    invalid("a session's default chat is not movable")
                } else {
                    ErrorObject::new(errors::NOT_FOUND, "no such chat")
                }
            })?;
        let to = match p.destination {
            v1::ChatMoveDestination::Session(to) => to,
            v1::ChatMoveDestination::NewSession(_) => self.session_for_moved_chat(conn, &from)?,
            v1::ChatMoveDestination::Unknown(other) => {
                return Err(invalid(format!(
                    "unknown move destination kind {:?} (this host knows session and newSession)",
                    other.tag()
                )))
            }
        };
        let target = self
            .core
            .sessions
            .get(&to.session)
            .filter(|_| !is_chat_view(&to.session))
            .map(|s| &s.v1)
            .ok_or_else(|| session_not_found(&to.session))?;
        if let Some(after) = &to.after {
            if after == &chat {
                return Err(invalid("`after` must be another chat than the one moved"));
            }
            if !target.session.chats.iter().any(|c| &c.resource == after) {
                return Err(invalid("`after` names no chat of the destination"));
            }
        }
        let mut order: Vec<String> = target
            .session
            .chats
            .iter()
            .map(|c| c.resource.clone())
            .filter(|c| c != &chat)
            .collect();
        let at = match &to.after {
            Some(after) => order.iter().position(|c| c == after).map_or(0, |i| i + 1),
            None => 0,
        };
        order.insert(at, chat.clone());
        if to.session == from {
            let reordered = json!({ "type": "session/chatsReordered", "chats": order });
            self.core.v1_to_parent(&from, vec![reordered]);
            self.core.respond(conn, id, &json!({ "session": from }));
            return Ok(());
        }
        let entry = self.core.sessions[&from]
            .v1
            .session
            .chats
            .iter()
            .find(|c| c.resource == chat)
            .cloned()
            .ok_or_else(|| ErrorObject::new(errors::NOT_FOUND, "no such chat"))?;
        if let Some(view) = self.core.sessions.get_mut(&chat) {
            view.v1.parent = Some(to.session.clone());
        }
        self.chat_moved(&chat);
        // Its `inputNeeded` entries go with it (the chat's view holds them too).
        let mut left = self.core.input_needed_gone(&from, &chat);
        left.push(json!({ "type": "session/chatRemoved", "chat": chat }));
        self.core.v1_to_parent(&from, left);
        let added = json!({ "type": "session/chatAdded", "summary": entry });
        let reordered = json!({ "type": "session/chatsReordered", "chats": order });
        let mut joined = vec![added, reordered];
        joined.extend(input_needed::sets(
            &self.core.sessions[&chat].v1.session,
            &chat,
        ));
        self.core.v1_to_parent(&to.session, joined);
        self.core
            .respond(conn, id, &json!({ "session": to.session }));
        Ok(())
    }

    /// `moveChat`'s `newSession` destination: a session created as `createSession` would (the
    /// requester's right to the built-in agent checked), like the chat's session `from`.
    fn session_for_moved_chat(
        &mut self,
        conn: ConnId,
        from: &str,
    ) -> Result<v1::ChatMoveToSessionDestination, ErrorObject> {
        let source = &self
            .core
            .sessions
            .get(from)
            .ok_or_else(|| session_not_found(from))?
            .members;
        let summary = &source.summary;
        if self.model_agent(&summary.provider).is_none() {
            self.agent_usable(conn)?;
        }
        let session = format!("ahp-session:/{}", new_id());
        let params = v03::CreateSessionParams {
            channel: session.clone(),
            provider: Some(summary.provider.clone()),
            model: summary.model.clone(),
            agent: summary.agent.clone(),
            working_directory: summary.working_directory.clone(),
            fork: None,
            config: source.config.as_ref().map(|c| c.values.clone()),
            active_client: None,
            extra: Default::default(),
        };
        self.open_session(None, params, None)?;
        Ok(v1::ChatMoveToSessionDestination {
            session,
            after: None,
            extra: Default::default(),
        })
    }

    /// Drops chat view `chat`: its agent stopped, its subscribers let go, its stored state
    /// deleted.
    pub(super) fn close_chat(&mut self, chat: &str) {
        let Some(mut view) = self.core.sessions.remove(chat) else {
            return;
        };
        view.stop_agent();
        self.each_feature(|f, core| f.session_disposed(core, chat));
        let mirror = &view.v1;
        for sub in mirror.chat_subs.iter().chain(&mirror.session_subs) {
            if let Some(c) = self.core.conns.get_mut(sub) {
                c.v1_subs.remove(chat);
            }
        }
        self.core
            .ops
            .push(crate::store::Op::DeleteSession { uri: view.uri });
    }

    /// The chat views of session `uri`.
    pub(super) fn chats_of(&self, uri: &str) -> Vec<String> {
        self.core
            .sessions
            .iter()
            .filter(|(_, s)| s.v1.parent.as_deref() == Some(uri))
            .map(|(k, _)| k.clone())
            .collect()
    }
}

/// The 0.3.0 `session/turnStarted` of a chat's `initialMessage` (checked before anything
/// changes).
fn first_turn(
    message: &v1::Message,
    before: &v1::ChatState,
) -> Result<v03::StateAction, ErrorObject> {
    let started = json!({
        "type": "chat/turnStarted",
        "turnId": new_turn_id(),
        "startedAt": "1970-01-01T00:00:00.000Z",
        "message": message,
    });
    let bad = |why: String| invalid(format!("`initialMessage`: {why}"));
    match compat::action(Source::DefaultChat { before }, &started) {
        View::Actions(actions) if actions.len() == 1 => {
            let action = actions.into_iter().next().unwrap_or_default();
            compat::typed_action(action).map_err(|e| bad(e.to_string()))
        }
        View::Actions(_) => Err(bad("no turn to start".into())),
        View::Resync(why) => Err(bad(why.into())),
    }
}

/// The 1.0 turns of `chat` through `turn_id`: the completed ones up to it, or all of them and
/// the active turn `turn_id` ended as cancelled (a copy: the chat goes on).
fn turns_through(chat: &v1::ChatState, turn_id: &String) -> Option<Vec<Arc<v1::Turn>>> {
    if let Some(end) = chat.turns.iter().position(|t| &t.id == turn_id) {
        return Some(chat.turns[..=end].to_vec());
    }
    let started = chat.active_turn.as_ref().filter(|t| &t.id == turn_id)?;
    let duration = started
        .started_at
        .parse::<jiff::Timestamp>()
        .map_or(0, |at| (jiff::Timestamp::now() - at).get_milliseconds());
    let end = v1::StateAction::ChatTurnCancelled(v1::ChatTurnCancelledAction {
        turn_id: turn_id.clone(),
        duration: duration.max(0),
        meta: None,
        extra: Default::default(),
    });
    let mut copy = chat.clone();
    chat_reducer(&mut copy, &end)
        .is_applied()
        .then_some(copy.turns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_chat_uri_is_under_its_session_or_opaque() {
        let s = "ahp-session:/s1";
        assert!(chat_uri_ok("ahp-chat:/s1/second", s));
        assert!(chat_uri_ok("ahp-chat:/0b5e7c1a-uuid", s));
        for bad in [
            "ahp-chat:/s1/default",
            "ahp-chat:/s2/second",
            "ahp-chat:/s1/",
            "ahp-chat:/",
            "ahp-session:/s1",
            "ahp-chat:/s1/a\u{7}",
        ] {
            assert!(!chat_uri_ok(bad, s), "{bad}");
        }
        let long = format!("ahp-chat:/s1/{}", "x".repeat(MAX_CHAT_URI));
        assert!(!chat_uri_ok(&long, s));
    }

    #[test]
    fn a_views_session_actions_are_split_off_for_its_session() {
        let mut applied = vec![
            ("ahp-chat:/c".to_owned(), json!(1)),
            ("ahp-session:/s".to_owned(), json!(2)),
        ];
        assert_eq!(
            split_parent(Some("ahp-session:/s"), &mut applied),
            [json!(2)]
        );
        assert_eq!(applied, [("ahp-chat:/c".to_owned(), json!(1))]);
        assert!(split_parent(None, &mut applied).is_empty());
        assert_eq!(applied.len(), 1);
    }
}
