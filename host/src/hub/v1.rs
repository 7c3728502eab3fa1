//! AHP 1.0 clients, beside the 0.3.0 ones.
//!
//! Each session's one state is its 1.0 state ([`Mirror`]): the 1.0 session and its default chat
//! (`ahp-chat:/<session id>/default`), lifted from the 0.3.0 description of a new session
//! (`compat::lift`, as from the database of an older host), changed by
//! [`super::base::Core::apply`]: each 0.3.0 action (the agents', a 0.3.0 client's) is translated
//! (`compat::to_v1`) and applied by the 1.0 reducers, which judge it; and persisted
//! (`store.rs`). 0.3.0 clients are sent the 0.3.0 action as its envelope, and shown the view of
//! the 1.0 state in snapshots (`compat::session_state`); the hub's features read the 0.3.0 view
//! of the session's members (`Session::members`). 1.0-only actions clients dispatch (drafts, the
//! session's read and archived flags) change it without a 0.3.0 envelope (`chats.rs`). The 1.0
//! envelope carries the `serverSeq` of the 0.3.0 envelope it comes from; a 0.3.0 action with
//! no 1.0 form (a 0.3.0 model or agent choice, kept as host fields) sends nothing to 1.0
//! clients, so 1.0 `serverSeq`s have gaps.
//!
//! The 1.0 envelopes sent to 1.0 subscribers (session, chat, root, annotations, canvas,
//! automation and feature channels) are kept as sent in a bounded ring of their own
//! (`Core::replay_v1`, the limits of 0.3.0's), so a 1.0 client's `reconnect` is answered with a
//! replay when every 1.0 envelope after its `lastSeenServerSeq` is still held, and with fresh
//! snapshots otherwise (after a restart, or when it was away too long).
//!
//! 1.0 clients subscribe through their own lists (`Conn::v1_subs`, the mirror's and the root's
//! 1.0 subscribers), so no feature ever sends them a 0.3.0 frame. What they dispatch on the
//! default chat or the session is translated into 0.3.0 (`compat::action`) and goes through the
//! 0.3.0 authorization and apply path (`dispatch.rs`), so the agent reacts to it as to a 0.3.0
//! client's, and 0.3.0 subscribers are sent the translation; the 1.0 state takes the action as
//! the client sent it when it is one 0.3.0 action's worth (`Direct`: with what 0.3.0 has no
//! place for, e.g. a message's model and agent), else each translation's 1.0 form. Its
//! rejections reach the dispatcher as 1.0 envelopes ([`PendingV1`]). A chat beyond
//! the default one is a session-like view of its own (`chat_views.rs`), served the same way.
//!
//! The 1.0 requests come from the 1.0 command table (`bus/requests_v1.rs`), which expands here
//! into the dispatch to their handlers.

use super::annotations::Annotations;
use super::automations;
use super::base::Core;
use super::canvases;
use super::commands::{
    insert_subscription, invalid, session_not_found, InitializeOut, ReconnectSnapshotOut,
};
use super::features::snapshot_json;
use super::identity::Claim;
use super::sessions::Session;
use super::v1_channels::limit_reached;
use super::v1_mirror::is_chat_view;
use super::v1_mirror::{envelope_frame, session_of_chat, Direct, PendingV1, CHAT_PREFIX};
use super::v1_root::{root_state, summary};
use super::{ConnId, Hub};
use crate::bus::requests_v1::{for_each_host_command_v1, Optional, Shared};
use crate::bus::RequestV1;
use crate::compat::{self, SessionChange, Source, View};
use crate::resources::file_uri;
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{ErrorObject, RequestId, ROOT_CHANNEL};
use ahp_wasm::protocol::v1;
use ahp_wasm::protocol::RawJsonBuf;
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The dispatch of a 1.0 request to the handler of its row in the 1.0 command table.
macro_rules! dispatch_requests_v1 {
    ($($kind:ident $variant:ident($marker:ident) = $params:ty => $handler:ident;)*) => {
        impl Hub {
            /// Answers a 1.0 request with the handler of its row.
            fn dispatch_v1(
                &mut self,
                conn: ConnId,
                id: &RequestId,
                request: RequestV1,
            ) -> Result<(), ErrorObject> {
                match request {
                    $(RequestV1::$variant(params) => self.$handler(conn, id, params),)*
                }
            }
        }
    };
}

for_each_host_command_v1!(dispatch_requests_v1);

impl Core {
    /// Sends a rejection of the 1.0 dispatch in progress to its dispatcher (see [`PendingV1`]);
    /// whether there was one for `conn`.
    pub(super) fn v1_reject(
        &mut self,
        conn: ConnId,
        origin: &v03::ActionOrigin,
        reason: &str,
    ) -> bool {
        let Some(pending) = self.v1_pending.as_ref().filter(|p| p.conn == conn) else {
            return false;
        };
        let frame = envelope_frame(
            &pending.channel,
            &pending.action,
            self.seq,
            Some(origin),
            Some(reason),
        );
        self.outbox.push((conn, frame));
        true
    }

    /// Whether `conn` speaks 1.0.
    pub(super) fn is_v1(&self, conn: ConnId) -> bool {
        self.conns.get(&conn).is_some_and(|c| c.v1)
    }
}

#[derive(serde::Serialize)]
struct SubscribeOut {
    snapshot: RawJsonBuf,
}

/// What a channel name means to a 1.0 client on this host, resolved once for both
/// [`Hub::snapshot_v1`] and [`Hub::has_channel_v1`] (existence without building a snapshot).
enum ChannelV1<'a> {
    Root,
    /// The annotations channel of this session.
    Annotations(&'a str),
    Canvas,
    Automations,
    /// A session, or a non-default chat's view (keyed by the chat's URI).
    Session(&'a Session),
    Feature,
    /// The default chat of this session.
    DefaultChat(&'a Session),
}

impl Hub {
    /// The kind of 1.0 channel `channel` is, when it exists here.
    fn resolve_v1<'a>(&'a self, channel: &'a str) -> Option<ChannelV1<'a>> {
        Some(if channel == ROOT_CHANNEL {
            ChannelV1::Root
        } else if let Some(session) = Annotations::session_of_channel(&self.core, channel) {
            ChannelV1::Annotations(session)
        } else if canvases::is_channel(channel) {
            self.canvases.has(channel).then_some(ChannelV1::Canvas)?
        } else if automations::is_channel(channel) {
            self.automations
                .has(channel)
                .then_some(ChannelV1::Automations)?
        } else if let Some(session) = self.core.sessions.get(channel) {
            ChannelV1::Session(session)
        } else if self.feature_has_channel(channel) {
            ChannelV1::Feature
        } else {
            let session = self.core.sessions.get(&session_of_chat(channel)?)?;
            ChannelV1::DefaultChat(session)
        })
    }

    /// Whether 1.0 clients may subscribe to `channel` (it exists); no snapshot is built.
    pub(super) fn has_channel_v1(&self, channel: &str) -> bool {
        self.resolve_v1(channel).is_some()
    }

    /// The 1.0 snapshot of a channel 1.0 clients may subscribe to.
    pub(super) fn snapshot_v1(&self, channel: &str) -> Option<RawJsonBuf> {
        let seq = self.core.seq;
        let json = match self.resolve_v1(channel)? {
            ChannelV1::Root => snapshot_json(channel, &root_state(&self.core.root)?, seq)?,
            ChannelV1::Annotations(session) => self.annotations.snapshot(session, seq)?,
            ChannelV1::Canvas => self.canvases.snapshot(channel, seq)?,
            ChannelV1::Automations => self.automations.snapshot(channel, seq)?,
            ChannelV1::Session(session) => {
                // A session's `annotations` summary is set as it is built (`annotations.rs`).
                let m = &session.v1;
                match m.parent {
                    Some(_) => snapshot_json(channel, &m.chat, seq)?,
                    None => {
                        let mut state = m.session.clone();
                        state.annotations = Some(self.annotations.summary(channel));
                        snapshot_json(channel, &state, seq)?
                    }
                }
            }
            ChannelV1::Feature => self.feature_snapshot_v1(channel)?,
            ChannelV1::DefaultChat(session) => snapshot_json(channel, &session.v1.chat, seq)?,
        };
        RawJsonBuf::from_string(json).ok()
    }

    fn subscribable_v1(&self, channel: &str) -> Result<RawJsonBuf, ErrorObject> {
        self.snapshot_v1(channel).ok_or_else(|| {
            if channel.starts_with("ahp-session:") || channel.starts_with(CHAT_PREFIX) {
                session_not_found(channel)
            } else {
                ErrorObject::new(
                    errors::NOT_FOUND,
                    "no such channel for AHP 1.0 clients on this host (served: the root, \
                     sessions and their default chats and annotations, terminals, changesets, \
                     resource watches, the automations and their runs, canvases)",
                )
            }
        })
    }

    /// The 1.0 subscriber list of a channel.
    fn subscribers_v1(&mut self, channel: &str) -> Option<&mut Vec<ConnId>> {
        if channel == ROOT_CHANNEL {
            return Some(&mut self.core.root_subs_v1);
        }
        if let Some(session) = Annotations::session_of_channel(&self.core, channel) {
            return Some(self.annotations.subscribers_mut(session));
        }
        if canvases::is_channel(channel) {
            return self.canvases.subscribers_mut(channel);
        }
        if automations::is_channel(channel) {
            return self.automations.subscribers_mut(channel);
        }
        if self.core.sessions.contains_key(channel) {
            let m = &mut self.core.sessions.get_mut(channel)?.v1;
            return Some(match m.parent {
                Some(_) => &mut m.chat_subs,
                None => &mut m.session_subs,
            });
        }
        let session = self.core.sessions.get_mut(&session_of_chat(channel)?)?;
        Some(&mut session.v1.chat_subs)
    }

    /// Subscribes a 1.0 connection (idempotent) and returns the channel's 1.0 snapshot.
    pub(super) fn subscribe_v1(
        &mut self,
        conn: ConnId,
        channel: &str,
    ) -> Result<RawJsonBuf, ErrorObject> {
        if self.feature_has_channel(channel) {
            return self.subscribe_feature_v1(conn, channel);
        }
        self.subscribe_v1_to(conn, channel)
    }

    fn subscribe_v1_to(&mut self, conn: ConnId, channel: &str) -> Result<RawJsonBuf, ErrorObject> {
        let snapshot = self.subscribable_v1(channel)?;
        self.within_response_budget(snapshot.get().len())?;
        let max = self.core.limits.max_subscriptions;
        let Some(c) = self.core.conns.get_mut(&conn) else {
            return Ok(snapshot);
        };
        // One limit for both lists of a 1.0 connection (feature channels are in `subs`).
        if !c.v1_subs.contains(channel) && c.v1_subs.len() + c.subs.len() >= max {
            return Err(limit_reached(max));
        }
        if insert_subscription(&mut c.v1_subs, channel, max)? {
            if let Some(subs) = self.subscribers_v1(channel) {
                subs.push(conn);
            }
        }
        Ok(snapshot)
    }

    /// Drops a 1.0 subscription; whether there was one.
    pub(super) fn unsubscribe_v1(&mut self, conn: ConnId, channel: &str) -> bool {
        let removed = self
            .core
            .conns
            .get_mut(&conn)
            .is_some_and(|c| c.v1_subs.remove(channel));
        if removed {
            if let Some(subs) = self.subscribers_v1(channel) {
                subs.retain(|&x| x != conn);
            }
        }
        removed
    }

    /// Forgets every 1.0 subscription of a closed connection.
    pub(super) fn drop_conn_v1(&mut self, conn: ConnId, channels: &[String]) {
        for channel in channels {
            if let Some(subs) = self.subscribers_v1(channel) {
                subs.retain(|&x| x != conn);
            }
        }
    }

    /// The 1.0 snapshots of the existing channels among `channels`, within the response budget,
    /// and those channels.
    pub(super) fn handshake_snapshots_v1(
        &self,
        channels: Vec<String>,
    ) -> Result<(Vec<String>, Vec<RawJsonBuf>), ErrorObject> {
        let mut bytes = 0;
        let mut kept = Vec::new();
        let mut out = Vec::new();
        for channel in channels {
            if let Some(snapshot) = self.snapshot_v1(&channel) {
                bytes += snapshot.get().len();
                self.within_response_budget(bytes)?;
                kept.push(channel);
                out.push(snapshot);
            }
        }
        Ok((kept, out))
    }

    /// Subscribes a 1.0 connection to channels whose snapshots it was just given.
    pub(super) fn add_subscriptions_v1(&mut self, conn: ConnId, channels: &[String]) {
        for channel in channels {
            let _ = self.subscribe_v1(conn, channel);
        }
    }

    /// Marks a connection as speaking 1.0 (before it is marked initialized: its reader decodes
    /// with the 1.0 types from then on).
    fn mark_v1(&mut self, conn: ConnId) {
        if !self.core.v1_in_run {
            // The 1.0 ring has no feature-channel envelopes before this (see `Core::publish`).
            self.core.v1_in_run = true;
            self.core.replay_v1.raise_floor(self.core.seq);
        }
        if let Some(c) = self.core.conns.get_mut(&conn) {
            c.v1 = true;
            c.handle.shared.v1.store(true, Ordering::Release);
        }
    }

    /// `initialize` of a client that chose 1.0: 1.0 snapshots of the initial subscriptions
    /// that exist. `capabilities.mcpApps` (`apps`) opens the `mcp://` channels to it; the 1.0
    /// mirrors, one per session for every 1.0 client, show MCP Apps and channels to all.
    pub(super) fn initialize_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        (client_id, secret): (String, Option<String>),
        version: String,
        channels: Vec<String>,
        apps: bool,
    ) -> Result<(), ErrorObject> {
        let (channels, snapshots) = self.handshake_snapshots_v1(channels)?;
        let client_secret = self.claim_client_id(
            conn,
            &client_id,
            secret.as_deref(),
            Claim::Initialize { v1: true },
        )?;
        self.core.bindings.set_mcp_apps(&client_id, apps);
        self.mark_v1(conn);
        self.mark_initialized(conn, client_id);
        self.add_subscriptions_v1(conn, &channels);
        let out = InitializeOut {
            protocol_version: version,
            server_seq: self.core.seq,
            snapshots,
            default_directory: file_uri(self.core.sandbox.root()),
            completion_trigger_characters: ["@", "/"],
            client_secret,
            max_frame_bytes: self.core.limits.max_frame_bytes,
            automations: Some(automations::capabilities()),
        };
        self.core.respond(conn, id, &out);
        Ok(())
    }

    /// `reconnect` of a client whose last `initialize` chose 1.0. When every 1.0 envelope
    /// after `last_seen` is still held (the 1.0 ring's floor is at most `last_seen`; nothing
    /// from before a restart is), a replay: the held envelopes after it on the channels that
    /// still exist, as they were sent (a client's own with their `origin`, which settle its
    /// pending actions), and the others as `missing`. Otherwise, or when the replay would not
    /// fit in a response, fresh 1.0 snapshots of the channels that still exist; the others are
    /// left out, which tells the client they are gone.
    pub(super) fn reconnect_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        (client_id, secret): (String, Option<String>),
        channels: Vec<String>,
        last_seen: u64,
    ) -> Result<(), ErrorObject> {
        let replay = self
            .core
            .replay_v1
            .covers(last_seen, self.core.seq)
            .then(|| {
                let (resumed, missing): (Vec<String>, Vec<String>) = channels
                    .iter()
                    .cloned()
                    .partition(|c| self.has_channel_v1(c));
                let ring = &self.core.replay_v1;
                let text = ring.response(id, last_seen, &resumed, &missing, true);
                (resumed, text)
            })
            .filter(|(_, text)| text.len() <= self.core.limits.max_response_bytes);
        let (channels, answer) = match replay {
            Some((resumed, text)) => (resumed, Ok(Arc::from(text))),
            None => {
                let (kept, snapshots) = self.handshake_snapshots_v1(channels)?;
                (kept, Err(snapshots))
            }
        };
        self.claim_client_id(conn, &client_id, secret.as_deref(), Claim::Reconnect)?;
        self.mark_v1(conn);
        self.mark_initialized(conn, client_id);
        self.add_subscriptions_v1(conn, &channels);
        match answer {
            Ok(text) => self.core.outbox.push((conn, text)),
            Err(snapshots) => {
                let out = ReconnectSnapshotOut {
                    r#type: "snapshot",
                    snapshots,
                };
                self.core.respond(conn, id, &out);
            }
        }
        Ok(())
    }

    /// A request of a 1.0 client.
    pub(super) fn on_request_v1(&mut self, conn: ConnId, id: RequestId, request: RequestV1) {
        if let Err(error) = self.dispatch_v1(conn, &id, request) {
            self.core.respond_error(conn, &id, error);
        }
    }

    /// `subscribe` of a 1.0 client: its 1.0 snapshot.
    fn on_subscribe_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: v1::SubscribeParams,
    ) -> Result<(), ErrorObject> {
        let snapshot = self.subscribe_v1(conn, &p.channel)?;
        self.core.respond(conn, id, &SubscribeOut { snapshot });
        Ok(())
    }

    /// `createSession` of a 1.0 client, answered by 0.3.0's (its mirror is lifted then).
    fn create_session_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: v1::CreateSessionParams,
    ) -> Result<(), ErrorObject> {
        let old = create_params(p)?;
        self.create_session(conn, id, old)
    }

    /// `disposeSession` of a 1.0 client, answered by 0.3.0's.
    fn dispose_session_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: v1::DisposeSessionParams,
    ) -> Result<(), ErrorObject> {
        let old = v03::DisposeSessionParams {
            channel: p.channel,
            extra: Default::default(),
        };
        self.dispose_session(conn, id, old)
    }

    /// `fetchTurns` of a 1.0 client: a mirror holds every turn of its chat, so there are no
    /// older ones to load.
    fn fetch_turns_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: v1::FetchTurnsParams,
    ) -> Result<(), ErrorObject> {
        let chat_view = is_chat_view(&p.channel) && self.core.sessions.contains_key(&p.channel);
        if !chat_view {
            session_of_chat(&p.channel)
                .filter(|s| self.core.sessions.contains_key(s))
                .ok_or_else(|| session_not_found(&p.channel))?;
        }
        self.core
            .respond(conn, id, &v1::FetchTurnsResult::default());
        Ok(())
    }

    /// `listAutomationTriggerDefinitions`.
    fn list_triggers_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        _: v1::ListAutomationTriggerDefinitionsParams,
    ) -> Result<(), ErrorObject> {
        self.list_automation_triggers_v1(conn, id);
        Ok(())
    }

    /// A command 1.0 shares with 0.3.0, answered by its 0.3.0 handler.
    fn shared_v1<P>(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: Shared<P>,
    ) -> Result<(), ErrorObject> {
        self.shared_request_v1(conn, id, p.request);
        Ok(())
    }

    /// `listSessions` for 1.0: every session's 1.0 summary, oldest first; `limit` and `cursor`
    /// (an offset this host hands out) page through them.
    fn list_sessions_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        Optional(p): Optional<v1::ListSessionsParams>,
    ) -> Result<(), ErrorObject> {
        let mut sessions: Vec<&Session> = self
            .core
            .sessions
            .values()
            .filter(|s| !is_chat_view(&s.uri))
            .collect();
        sessions.sort_by(|a, b| {
            a.members
                .summary
                .created_at
                .total_cmp(&b.members.summary.created_at)
        });
        let start = match &p.cursor {
            Some(cursor) => cursor
                .parse::<usize>()
                .map_err(|_| invalid("`cursor` is not one this host handed out"))?,
            None => 0,
        };
        let limit = match p.limit {
            Some(n) if n < 1 => return Err(invalid("`limit` must be at least 1")),
            Some(n) => n as usize,
            None => usize::MAX,
        };
        let items: Vec<Value> = sessions
            .iter()
            .skip(start)
            .take(limit)
            .filter_map(|s| summary(s, &self.annotations.summary(&s.uri)))
            .collect();
        let end = start.saturating_add(limit);
        let next_cursor = (end < sessions.len()).then(|| end.to_string());
        let mut result = serde_json::json!({ "items": items });
        if let Some(cursor) = next_cursor {
            result["nextCursor"] = cursor.into();
        }
        self.core.respond(conn, id, &result);
        Ok(())
    }

    /// `dispatchAction` of a 1.0 client: on the default chat or the session, translated into
    /// 0.3.0 and applied through the 0.3.0 path; a 1.0 action without a 0.3.0 form is
    /// rejected.
    pub(super) fn on_dispatch_v1(&mut self, conn: ConnId, p: v1::DispatchActionParams) {
        let Some(client_id) = self.core.conn_client_id(conn).map(str::to_owned) else {
            return;
        };
        let origin = v03::ActionOrigin {
            client_id,
            client_seq: u64::try_from(p.client_seq).unwrap_or(0),
            extra: Default::default(),
        };
        let Ok(json) = serde_json::to_value(&p.action) else {
            return;
        };
        self.dispatch_v1_on(conn, &p.channel, p.action, json, origin);
    }

    fn dispatch_v1_on(
        &mut self,
        conn: ConnId,
        channel: &str,
        action: v1::StateAction,
        json: Value,
        origin: v03::ActionOrigin,
    ) {
        let channel = channel.to_owned();
        if let Some(session) = Annotations::session_of_channel(&self.core, &channel) {
            let session = session.to_owned();
            let action = (action, json);
            return self
                .annotations
                .dispatch(&mut self.core, conn, &session, action, &origin);
        }
        if Annotations::names_channel(&channel) && !self.core.sessions.contains_key(&channel) {
            let reason = format!("no session {}", channel.trim_end_matches("/annotations"));
            return self.reject_v1(conn, &channel, &json, &origin, &reason);
        }
        if self.canvases.has(&channel) {
            let action = (action, json);
            return self
                .canvases
                .dispatch(&mut self.core, conn, &channel, action, &origin);
        }
        let (uri, view) = if let Some(mirror) = self
            .core
            .sessions
            .get(&channel)
            .map(|s| &s.v1)
            .filter(|m| m.parent.is_some())
        {
            let source = Source::DefaultChat {
                before: &mirror.chat,
            };
            (channel.clone(), compat::action(source, &json))
        } else if let Some(session) = self.core.sessions.get(&channel) {
            let mirror = &session.v1;
            let view = match compat::dispatched_on_session(&json) {
                Some(toggle) => View::Actions(vec![toggle]),
                None => {
                    let change = SessionChange::of(&mirror.session, &action);
                    compat::action(Source::Session(&change), &json)
                }
            };
            (channel.clone(), view)
        } else if let Some(uri) = session_of_chat(&channel) {
            let Some(mirror) = self.core.sessions.get(&uri).map(|s| &s.v1) else {
                // Actions for a channel that does not exist are ignored (as on 0.3.0).
                return;
            };
            let source = Source::DefaultChat {
                before: &mirror.chat,
            };
            (uri, compat::action(source, &json))
        } else if automations::is_channel(&channel) {
            return self.dispatch_automation_v1(conn, &channel, action, json, origin);
        } else if self.feature_has_channel(&channel) {
            return self.dispatch_feature_v1(conn, &channel, json, origin);
        } else {
            self.core.seq += 1;
            let frame = envelope_frame(
                &channel,
                &json,
                self.core.seq,
                Some(&origin),
                Some(
                    "this host serves AHP 1.0 dispatches on sessions, their default chats, \
                     terminals, annotations, canvases, the automations and their runs only",
                ),
            );
            self.core.outbox.push((conn, frame));
            return;
        };
        let actions = match view {
            View::Actions(actions) if !actions.is_empty() => actions,
            View::Actions(_) => vec![],
            View::Resync(why) => {
                let reason = format!("no AHP 0.3.0 form on this host: {why}");
                return self.reject_v1(conn, &channel, &json, &origin, &reason);
            }
        };
        if actions.is_empty() {
            // 1.0-only state: it lives in the 1.0 state alone (`chats.rs`).
            return self.apply_v1_only(conn, &uri, &channel, action, json, origin);
        }
        // One 0.3.0 action's worth: the 1.0 state takes the action as the client sent it.
        let direct = (actions.len() == 1).then(|| {
            let (action, json) = stamped(action, json.clone());
            Direct {
                key: uri.clone(),
                on_session: channel == uri && !channel.starts_with(CHAT_PREFIX),
                action,
                json,
                client_id: origin.client_id.clone(),
                client_seq: origin.client_seq,
            }
        });
        self.core.v1_pending = Some(PendingV1 {
            conn,
            channel: channel.clone(),
            action: json.clone(),
            direct,
        });
        for action in actions {
            match compat::typed_action(action) {
                Ok(action) => self.on_dispatch(
                    conn,
                    v03::DispatchActionParams {
                        channel: uri.clone(),
                        client_seq: origin.client_seq,
                        action,
                        extra: Default::default(),
                    },
                ),
                Err(e) => {
                    self.core.v1_pending = None;
                    return self.reject_v1(conn, &channel, &json, &origin, &e.to_string());
                }
            }
        }
        self.core.v1_pending = None;
    }

    pub(super) fn reject_v1(
        &mut self,
        conn: ConnId,
        channel: &str,
        action: &Value,
        origin: &v03::ActionOrigin,
        reason: &str,
    ) {
        self.core.seq += 1;
        let frame = envelope_frame(channel, action, self.core.seq, Some(origin), Some(reason));
        self.core.outbox.push((conn, frame));
    }
}

/// A 1.0 `createSession` as 0.3.0's: its first working directory is the session's.
fn create_params(p: v1::CreateSessionParams) -> Result<v03::CreateSessionParams, ErrorObject> {
    if p.working_directories.as_ref().is_some_and(|d| d.len() > 1) {
        return Err(invalid("this host gives a session one working directory"));
    }
    let mut json = serde_json::json!({ "channel": p.channel });
    if let Some(provider) = p.provider {
        json["provider"] = provider.into();
    }
    if let Some(dir) = p.working_directories.and_then(|d| d.into_iter().next()) {
        json["workingDirectory"] = dir.into();
    }
    if let Some(config) = p.config {
        json["config"] = serde_json::to_value(config).unwrap_or_default();
    }
    if let Some(client) = p.active_client {
        json["activeClient"] = serde_json::to_value(client).unwrap_or_default();
    }
    serde_json::from_value(json).map_err(|e| invalid(format!("createSession: {e}")))
}

/// A dispatched 1.0 action with the host's times: a turn starts when the host starts it (as a
/// 0.3.0 client's turn, `compat::to_v1`), whatever clock the client stamped it by.
fn stamped(mut action: v1::StateAction, mut json: Value) -> (v1::StateAction, Value) {
    if let v1::StateAction::ChatTurnStarted(started) = &mut action {
        use ahp_wasm::reduce::Clock;
        let now = ahp_wasm::reduce::SystemClock.now() as i64;
        if let Some(at) = ahp_wasm::reduce::v1::from_unix_millis(now) {
            json["startedAt"] = Value::from(at.as_str());
            started.started_at = at;
        }
    }
    (action, json)
}
