//! Request handlers: handshake, subscriptions and the session commands.

use super::features::snapshot_json;
use super::identity::Claim;
use super::sessions::Session;
use super::v1_mirror::is_chat_view;
use super::v1_mirror::V1;
use super::{ConnId, Hub, Request};
use crate::bus::requests::{for_each_host_command, Handshake};
use crate::bus::{Authenticate, SessionFilter};
use crate::params::{whole_number, MAX_EXACT};
use crate::resources::file_uri;
use crate::store::Op;
use ahp_wasm::protocol::jsonrpc::{methods, EmptyResult, ErrorObject, RequestId, ROOT_CHANNEL};
use ahp_wasm::protocol::RawJsonBuf;
use ahp_wasm::protocol::{
    errors, CreateSessionParams, DisposeSessionParams, DisposeTerminalParams, FetchTurnsParams,
    FetchTurnsResult, InitializeParams, ListSessionsResult, ReconnectParams,
    RootActiveSessionsChangedAction, SessionAddedParams, SessionLifecycle, SessionReadyAction,
    SessionRemovedParams, SessionState, SessionSummary, StateAction, SubscribeParams,
    UnsupportedProtocolVersionErrorData, SUPPORTED_PROTOCOL_VERSIONS,
};
use ahp_wasm::reduce::{Clock, SystemClock};
use serde::Serialize;
use std::collections::HashSet;
use std::sync::Arc;

/// The `SessionStatus.Idle` bit.
const STATUS_IDLE: u32 = 1;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct InitializeOut {
    pub protocol_version: String,
    pub server_seq: u64,
    pub snapshots: Vec<RawJsonBuf>,
    pub default_directory: String,
    /// `@` (files of the working directory) and `/` (the agent's directives).
    pub completion_trigger_characters: [&'static str; 2],
    /// Proves ownership of `clientId` on later handshakes (see `identity.rs`).
    pub client_secret: String,
    /// The largest frame this host reads (`--max-frame-bytes`; an `ahp-host` extension): a
    /// client can refuse a larger request itself instead of sending it for nothing.
    pub max_frame_bytes: usize,
    /// AHP 1.0's automation capabilities (1.0 clients only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub automations: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct SubscribeOut {
    snapshot: RawJsonBuf,
}

#[derive(Serialize)]
pub(super) struct ReconnectSnapshotOut {
    pub r#type: &'static str,
    pub snapshots: Vec<RawJsonBuf>,
}

pub(super) fn invalid(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(errors::INVALID_PARAMS, message)
}

pub(super) fn session_not_found(channel: &str) -> ErrorObject {
    ErrorObject::new(
        errors::SESSION_NOT_FOUND,
        format!("no session {}", truncate(channel, 120)),
    )
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Whether `uri` is an acceptable session URI: `ahp-session:/` plus a short printable id.
fn valid_session_uri(uri: &str) -> bool {
    valid_channel_uri(uri, "ahp-session:/")
}

/// A client-chosen channel URI: `prefix` then a non-empty printable id, at most 256 bytes in all.
pub(super) fn valid_channel_uri(uri: &str, prefix: &str) -> bool {
    uri.strip_prefix(prefix).is_some_and(|id| {
        !id.is_empty() && uri.len() <= 256 && id.chars().all(|c| c.is_ascii_graphic())
    })
}

/// The dispatch of a [`Request`] to its handler, from the command table
/// (`bus/requests.rs`).
macro_rules! dispatch_requests {
    ($($kind:ident $variant:ident($marker:ident) = $params:ty => $handler:ident;)*) => {
        impl Hub {
            /// Answers a request with the handler of its row in the command table.
            fn dispatch(
                &mut self,
                conn: ConnId,
                id: &RequestId,
                request: Request,
            ) -> Result<(), ErrorObject> {
                match request {
                    $(Request::$variant(params) => self.$handler(conn, id, params),)*
                }
            }
        }
    };
}

for_each_host_command!(dispatch_requests);

impl Hub {
    pub(super) fn on_request(&mut self, conn: ConnId, id: RequestId, request: Request) {
        if let Err(error) = self.dispatch(conn, &id, request) {
            self.core.respond_error(conn, &id, error);
        }
        for channel in std::mem::take(&mut self.core.to_wake) {
            self.each_feature(|f, core| f.session_used(core, &channel));
        }
    }

    /// `subscribe`: subscribes and answers the channel's snapshot.
    fn on_subscribe(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: SubscribeParams,
    ) -> Result<(), ErrorObject> {
        let snapshot = self.subscribe(conn, &p.channel)?;
        self.core.respond(conn, id, &SubscribeOut { snapshot });
        Ok(())
    }

    /// `listSessions`: the summaries `filter` matches, oldest first.
    fn list_sessions(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        filter: SessionFilter,
    ) -> Result<(), ErrorObject> {
        // Each the summary of the view of the session's 1.0 state, as its snapshot shows it.
        let mut items: Vec<SessionSummary> = self
            .core
            .sessions
            .values()
            .filter(|s| !is_chat_view(&s.uri))
            .map(|s| {
                let summary = s.v1.v03_summary(&s.uri).unwrap_or_else(|e| {
                    eprintln!("ahp-host: session {} has no 0.3.0 view ({e})", s.uri);
                    s.members.summary.clone()
                });
                #[cfg(debug_assertions)]
                super::v03_view::check_summary(&s.uri, &s.members.summary, &summary);
                summary
            })
            .filter(|summary| filter.matches(summary))
            .map(|summary| self.listed_summary(&summary))
            .collect();
        items.sort_by(|a, b| a.created_at.total_cmp(&b.created_at));
        let result = ListSessionsResult {
            items,
            extra: Default::default(),
        };
        self.core.respond(conn, id, &result);
        Ok(())
    }

    /// `authenticate`: the protected built-in agent's resource, a model agent's, or an MCP
    /// server's.
    fn authenticate(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        a: Authenticate,
    ) -> Result<(), ErrorObject> {
        if self.is_agent_resource(&a.resource) {
            self.agent_authenticate(conn, id, a)
        } else if self.is_model_resource(&a.resource) {
            self.model_authenticate(conn, id, a)
        } else {
            self.mcp_authenticate(conn, id, a)
        }
    }

    /// `disposeTerminal`.
    fn on_dispose_terminal(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: DisposeTerminalParams,
    ) -> Result<(), ErrorObject> {
        self.dispose_terminal(conn, id, &p.channel)
    }

    /// The serialized snapshot of a state-bearing channel, as a client that declared
    /// `capabilities.mcpApps` (`apps`) or not sees it.
    pub(super) fn snapshot(&self, channel: &str, apps: bool) -> Option<RawJsonBuf> {
        let json = if channel == ROOT_CHANNEL {
            snapshot_json(channel, &self.core.root, self.core.seq)?
        } else if self.feature_has_channel(channel) {
            self.feature_snapshot(channel)?
        } else if is_chat_view(channel) {
            // A chat's view is not shown to 0.3.0 clients (`chat_views.rs`).
            return None;
        } else {
            let session = self.core.sessions.get(channel)?;
            #[cfg(debug_assertions)]
            session.check_view();
            // What a 0.3.0 client is shown: the view of the session's 1.0 state (its default
            // chat alone), the one state the host keeps.
            let view = match session.v1.v03_state(channel) {
                Ok(view) => view,
                Err(e) => {
                    // A bug of the view (the debug check above panics on any difference):
                    // no snapshot rather than a wrong one.
                    eprintln!("ahp-host: session {channel} has no 0.3.0 view ({e})");
                    return None;
                }
            };
            let plain = (!apps)
                .then(|| crate::mcp::apps::plain_state(&view))
                .flatten();
            snapshot_json(channel, plain.as_ref().unwrap_or(&view), self.core.seq)?
        };
        RawJsonBuf::from_string(json).ok()
    }

    /// The snapshot of a channel a client may subscribe to.
    fn subscribable(&self, channel: &str, apps: bool) -> Result<RawJsonBuf, ErrorObject> {
        self.snapshot(channel, apps).ok_or_else(|| {
            if channel.starts_with("ahp-session:") {
                session_not_found(channel)
            } else {
                ErrorObject::new(errors::NOT_FOUND, "no such channel on this host")
            }
        })
    }

    /// Subscribes a connection (idempotent) and returns the channel's snapshot. A repeated
    /// subscribe answers a fresh snapshot (a client may resync); what it costs is bounded by the
    /// connection's outbound byte budget.
    pub(super) fn subscribe(
        &mut self,
        conn: ConnId,
        channel: &str,
    ) -> Result<RawJsonBuf, ErrorObject> {
        let apps = self.core.conns.get(&conn).is_some_and(|c| c.mcp_apps);
        let snapshot = self.subscribable(channel, apps)?;
        self.within_response_budget(snapshot.get().len())?;
        self.add_subscription(conn, channel)?;
        Ok(snapshot)
    }

    /// Registers a subscription, counted against the per-connection limit.
    pub(super) fn add_subscription(
        &mut self,
        conn: ConnId,
        channel: &str,
    ) -> Result<(), ErrorObject> {
        let max = self.core.limits.max_subscriptions;
        let c = self
            .core
            .conns
            .get_mut(&conn)
            .expect("caller checked the connection");
        if insert_subscription(&mut c.subs, channel, max)? {
            if let Some(subs) = self.subscribers_mut(channel) {
                subs.push(conn);
            }
            // After the answer carrying the snapshot (see `on_request`).
            self.core.to_wake.push(channel.to_owned());
        }
        Ok(())
    }

    pub(super) fn within_response_budget(&self, bytes: usize) -> Result<(), ErrorObject> {
        let max = self.core.limits.max_response_bytes;
        if bytes > max {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                format!(
                    "the snapshots asked for take {bytes} bytes, over the limit of {max} bytes \
                     for one response; subscribe to fewer channels at once"
                ),
            ));
        }
        Ok(())
    }

    /// A handshake's channel list, checked before anything is registered: duplicates count
    /// once, and every distinct channel counts against the subscription limit.
    fn handshake_channels(&self, channels: Vec<String>) -> Result<Vec<String>, ErrorObject> {
        let mut seen = HashSet::new();
        let channels: Vec<String> = channels
            .into_iter()
            .filter(|c| seen.insert(c.clone()))
            .collect();
        let max = self.core.limits.max_subscriptions;
        if channels.len() > max {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                format!(
                    "{} channels asked for; the subscription limit is {max}",
                    channels.len()
                ),
            ));
        }
        Ok(channels)
    }

    /// Whether a state-bearing channel exists.
    fn has_channel(&self, channel: &str) -> bool {
        channel == ROOT_CHANNEL
            || self.core.sessions.contains_key(channel)
            || self.feature_has_channel(channel)
    }

    /// The snapshots of existing channels, all together within the response budget.
    fn snapshots_within_budget(
        &self,
        channels: &[String],
        apps: bool,
    ) -> Result<Vec<RawJsonBuf>, ErrorObject> {
        let mut bytes = 0;
        let mut out = Vec::with_capacity(channels.len());
        for channel in channels {
            let snapshot = self.subscribable(channel, apps)?;
            bytes += snapshot.get().len();
            self.within_response_budget(bytes)?;
            out.push(snapshot);
        }
        Ok(out)
    }

    pub(super) fn unsubscribe(&mut self, conn: ConnId, channel: &str) {
        if self.unsubscribe_v1(conn, channel) {
            return;
        }
        let Some(c) = self.core.conns.get_mut(&conn) else {
            return;
        };
        if c.subs.remove(channel) {
            if let Some(subs) = self.subscribers_mut(channel) {
                subs.retain(|&x| x != conn);
            }
            self.watches.unsubscribed(channel);
        }
    }

    fn initialize(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        handshake: Handshake<InitializeParams>,
    ) -> Result<(), ErrorObject> {
        let Handshake {
            params: p,
            client_secret: secret,
        } = handshake;
        if self.core.conn_client_id(conn).is_some() {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                "already initialized",
            ));
        }
        // The highest offered version of a range this host serves (`v1.rs` for 1.x).
        let Some((version, v1)) = crate::compat::negotiate(&p.protocol_versions) else {
            let data = UnsupportedProtocolVersionErrorData {
                supported_versions: [V1]
                    .into_iter()
                    .chain(SUPPORTED_PROTOCOL_VERSIONS.iter().copied())
                    .map(|v| v.to_string())
                    .collect(),
                extra: Default::default(),
            };
            let mut error = ErrorObject::new(
                errors::UNSUPPORTED_PROTOCOL_VERSION,
                "none of the offered protocol versions is supported",
            );
            error.data = serde_json::to_value(data).ok();
            self.core.respond_error(conn, id, error);
            // The spec says to close the connection after this error: an empty frame asks the
            // writer to close once the error is out.
            self.core.outbox.push((conn, Arc::from("")));
            return Ok(());
        };
        check_client_id(&p.client_id)?;
        if let Some(holder) = self.holder_to_ask(conn, &p.client_id, secret.as_deref())? {
            self.wait_for_holder(
                conn,
                holder,
                id.clone(),
                Request::Initialize(Handshake {
                    params: p,
                    client_secret: secret,
                }),
            );
            return Ok(());
        }
        let channels = self.handshake_channels(p.initial_subscriptions.unwrap_or_default())?;
        // Channels that do not exist are left out of the answer (stateless ones included:
        // this host has none).
        let channels: Vec<String> = channels
            .into_iter()
            .filter(|c| v1 || self.has_channel(c))
            .collect();
        let apps = p
            .capabilities
            .as_ref()
            .is_some_and(|c| c.mcp_apps.is_some());
        if v1 {
            return self.initialize_v1(conn, id, (p.client_id, secret), version, channels, apps);
        }
        let snapshots = self.snapshots_within_budget(&channels, apps)?;
        let client_secret = self.claim_client_id(
            conn,
            &p.client_id,
            secret.as_deref(),
            Claim::Initialize { v1: false },
        )?;
        self.core.bindings.set_mcp_apps(&p.client_id, apps);
        self.mark_initialized(conn, p.client_id);
        for channel in &channels {
            self.add_subscription(conn, channel)?;
        }
        let out = InitializeOut {
            protocol_version: version,
            server_seq: self.core.seq,
            snapshots,
            default_directory: file_uri(self.core.sandbox.root()),
            completion_trigger_characters: ["@", "/"],
            client_secret,
            max_frame_bytes: self.core.limits.max_frame_bytes,
            automations: None,
        };
        self.core.respond(conn, id, &out);
        Ok(())
    }

    fn reconnect(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        handshake: Handshake<ReconnectParams>,
    ) -> Result<(), ErrorObject> {
        let Handshake {
            params: p,
            client_secret: secret,
        } = handshake;
        if self.core.conn_client_id(conn).is_some() {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                "already initialized",
            ));
        }
        check_client_id(&p.client_id)?;
        if let Some(holder) = self.holder_to_ask(conn, &p.client_id, secret.as_deref())? {
            self.wait_for_holder(
                conn,
                holder,
                id.clone(),
                Request::Reconnect(Handshake {
                    params: p,
                    client_secret: secret,
                }),
            );
            return Ok(());
        }
        let channels = self.handshake_channels(p.subscriptions)?;
        if self.core.bindings.v1(&p.client_id) {
            let client = (p.client_id, secret);
            return self.reconnect_v1(conn, id, client, channels, p.last_seen_server_seq);
        }
        let (resumed, missing): (Vec<String>, Vec<String>) =
            channels.into_iter().partition(|c| self.has_channel(c));
        // (Only a client that proves its id below gets what it declared at `initialize`.)
        let apps = self.core.bindings.mcp_apps(&p.client_id);
        // Within the buffer: the missed envelopes of the resumed channels, copied as sent;
        // a replay over the response budget falls back to snapshots.
        let replay = self
            .core
            .replay
            .covers(p.last_seen_server_seq, self.core.seq)
            .then(|| {
                let ring = &self.core.replay;
                ring.response(id, p.last_seen_server_seq, &resumed, &missing, apps)
            })
            .filter(|text| text.len() <= self.core.limits.max_response_bytes);
        let snapshots = match replay {
            Some(_) => Vec::new(),
            None => self.snapshots_within_budget(&resumed, apps)?,
        };
        self.claim_client_id(conn, &p.client_id, secret.as_deref(), Claim::Reconnect)?;
        self.mark_initialized(conn, p.client_id);
        for channel in &resumed {
            self.add_subscription(conn, channel)?;
        }
        match replay {
            Some(text) => self.core.outbox.push((conn, Arc::from(text))),
            None => {
                let out = ReconnectSnapshotOut {
                    r#type: "snapshot",
                    snapshots,
                };
                self.core.respond(conn, id, &out);
            }
        }
        Ok(())
    }

    pub(super) fn create_session(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: CreateSessionParams,
    ) -> Result<(), ErrorObject> {
        self.open_session(Some((conn, id)), p, None)
    }

    /// Creates a session: for a client's `createSession` (`creator`, answered here), or for
    /// the host itself (an automation run, whose 1.0 `origin` the summary keeps as a member
    /// 0.3.0 does not know), with the same checks but the client's own.
    pub(super) fn open_session(
        &mut self,
        creator: Option<(ConnId, &RequestId)>,
        p: CreateSessionParams,
        origin: Option<serde_json::Value>,
    ) -> Result<(), ErrorObject> {
        let uri = p.channel;
        if !valid_session_uri(&uri) {
            return Err(invalid(
                "the session URI must be ahp-session:/<id> (printable, <= 256)",
            ));
        }
        if self.core.sessions.contains_key(&uri) {
            return Err(ErrorObject::new(
                errors::SESSION_ALREADY_EXISTS,
                "a session with this URI exists",
            ));
        }
        let max = self.core.limits.max_sessions;
        if self.core.sessions.len() >= max {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                format!("this host keeps at most {max} sessions; dispose of one first"),
            ));
        }
        let provider = self.check_provider(p.provider.as_deref())?;
        let model_agent = self.model_agent(&provider).map(|a| a.model_infos());
        // The built-in agent's lock applies to it alone; a model agent's key is per client.
        if let (Some((conn, _)), None) = (creator, &model_agent) {
            self.agent_usable(conn)?;
        }
        let workdir = match &p.working_directory {
            Some(dir) => self.check_workdir(dir)?,
            None => self.core.sandbox.root().to_path_buf(),
        };
        let (config, model) = match &model_agent {
            Some(models) => crate::agent::config::for_model_session(
                p.config.as_ref(),
                p.model,
                self.root_config_values(),
                models,
            ),
            None => crate::agent::config::for_new_session(
                p.config.as_ref(),
                p.model,
                self.root_config_values(),
            ),
        }
        .map_err(invalid)?;
        if let Some(active) = &p.active_client {
            let creator_id = creator.and_then(|(conn, _)| self.core.conn_client_id(conn));
            if Some(active.client_id.as_str()) != creator_id {
                return Err(invalid(
                    "activeClient.clientId must be the creating client's id",
                ));
            }
        }
        let turns = match &p.fork {
            Some(fork) => {
                let source = self
                    .core
                    .sessions
                    .get(&fork.session)
                    .ok_or_else(|| session_not_found(&fork.session))?;
                let turns = &source.v1.chat.turns;
                let end = turns
                    .iter()
                    .position(|t| t.id == fork.turn_id)
                    .ok_or_else(|| ErrorObject::new(errors::NOT_FOUND, "no such turn to fork"))?;
                turns[..=end].to_vec()
            }
            None => Vec::new(),
        };
        let now = SystemClock.now();
        let state = SessionState {
            summary: SessionSummary {
                resource: uri.clone(),
                provider,
                title: "New Session".into(),
                status: STATUS_IDLE,
                created_at: now,
                modified_at: now,
                model: Some(model),
                agent: p.agent,
                working_directory: Some(file_uri(&workdir)),
                ..Default::default()
            },
            lifecycle: SessionLifecycle::Creating,
            creation_error: None,
            server_tools: Some(crate::agent::tools::definitions()),
            active_client: p.active_client,
            turns: Vec::new(),
            active_turn: None,
            steering_message: None,
            queued_messages: None,
            input_requests: None,
            config: Some(config),
            customizations: None,
            changesets: None,
            meta: None,
            extra: Default::default(),
        };
        let mut state = state;
        if let Some(origin) = origin {
            state.summary.extra.insert("origin".into(), origin);
        }
        let mut session = Session::new(state).ok_or_else(no_v1_state)?;
        session.seed_turns(turns);
        let session_uri = session.uri.clone();
        session
            .v1
            .record_all(&session_uri, self.core.seq, &mut self.core.ops);
        self.core.sessions.insert(uri.clone(), session);
        if let Some((conn, id)) = creator {
            self.core.respond(conn, id, &EmptyResult);
        }
        // The backend needs no initialisation: the session is ready at once.
        self.apply_server(
            &uri,
            StateAction::SessionReady(SessionReadyAction {
                extra: Default::default(),
            }),
        );
        self.each_feature(|f, core| f.session_opened(core, &uri));
        let summary = self.core.sessions[&uri].members.summary.clone();
        self.core.notify_root(
            methods::SESSION_ADDED,
            &SessionAddedParams {
                channel: ROOT_CHANNEL.into(),
                summary,
                extra: Default::default(),
            },
        );
        self.update_active_sessions();
        Ok(())
    }

    pub(super) fn dispose_session(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: DisposeSessionParams,
    ) -> Result<(), ErrorObject> {
        self.close_session(&p.channel, Some((conn, id)))
    }

    /// Disposes of a session: for a client's `disposeSession` (`requester`, answered here), or
    /// for the host itself (an automation run dropped from its history).
    pub(super) fn close_session(
        &mut self,
        uri: &str,
        requester: Option<(ConnId, &RequestId)>,
    ) -> Result<(), ErrorObject> {
        if is_chat_view(uri) || !self.core.sessions.contains_key(uri) {
            return Err(session_not_found(uri));
        }
        for chat in self.chats_of(uri) {
            self.close_chat(&chat);
        }
        let mut session = self
            .core
            .sessions
            .remove(uri)
            .ok_or_else(|| session_not_found(uri))?;
        session.stop_agent();
        self.each_feature(|f, core| f.session_disposed(core, uri));
        for sub in &session.subscribers {
            if let Some(c) = self.core.conns.get_mut(sub) {
                c.subs.remove(uri);
            }
        }
        let mirror = &session.v1;
        for sub in &mirror.session_subs {
            if let Some(c) = self.core.conns.get_mut(sub) {
                c.v1_subs.remove(uri);
            }
        }
        for sub in &mirror.chat_subs {
            if let Some(c) = self.core.conns.get_mut(sub) {
                c.v1_subs.remove(&mirror.chat_uri);
            }
        }
        self.core.ops.push(Op::DeleteSession {
            uri: session.uri.clone(),
        });
        if let Some((conn, id)) = requester {
            self.core.respond(conn, id, &EmptyResult);
        }
        self.core.notify_root(
            methods::SESSION_REMOVED,
            &SessionRemovedParams {
                channel: ROOT_CHANNEL.into(),
                session: uri.to_owned(),
                extra: Default::default(),
            },
        );
        self.update_active_sessions();
        Ok(())
    }

    fn update_active_sessions(&mut self) {
        let count = self
            .core
            .sessions
            .keys()
            .filter(|uri| !is_chat_view(uri))
            .count() as f64;
        let action = StateAction::RootActiveSessionsChanged(RootActiveSessionsChangedAction {
            active_sessions: count,
            extra: Default::default(),
        });
        let _ = self.apply(ROOT_CHANNEL, action, None);
    }

    fn fetch_turns(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: FetchTurnsParams,
    ) -> Result<(), ErrorObject> {
        let session = self
            .core
            .sessions
            .get(&p.channel)
            .filter(|_| !is_chat_view(&p.channel))
            .ok_or_else(|| session_not_found(&p.channel))?;
        // Up to 500 turns a page: a larger limit is a request for "as many as you give".
        let limit = whole_number(p.limit.unwrap_or(50.0), "limit", 1, MAX_EXACT)
            .map_err(invalid)?
            .min(500) as usize;
        // The view of the 1.0 chat's completed turns, as the session's snapshot shows them.
        let all = &session.v1.chat.turns;
        let end = match p.before.as_deref() {
            Some(before) => all
                .iter()
                .position(|t| t.id == before)
                .ok_or_else(|| ErrorObject::new(errors::NOT_FOUND, "no turn with that id"))?,
            None => all.len(),
        };
        let start = end.saturating_sub(limit);
        let turns = session.v1.v03_turns(start..end).map_err(|e| {
            // A bug of the view (the debug check of the session's turns panics on it).
            eprintln!("ahp-host: session {} has no 0.3.0 view ({e})", p.channel);
            ErrorObject::new(errors::INTERNAL_ERROR, "the turns have no 0.3.0 view")
        })?;
        let has_more = start > 0;
        self.core.respond(
            conn,
            id,
            &FetchTurnsResult {
                turns,
                has_more,
                extra: Default::default(),
            },
        );
        Ok(())
    }
}

/// A session or chat whose state does not lift to AHP 1.0 (`Session::new`): a bug of the host.
pub(super) fn no_v1_state() -> ErrorObject {
    ErrorObject::new(
        errors::INTERNAL_ERROR,
        "the session has no AHP 1.0 state (a bug of the host)",
    )
}

fn check_client_id(client_id: &str) -> Result<(), ErrorObject> {
    if client_id.is_empty() || client_id.len() > 256 || client_id.chars().any(char::is_control) {
        return Err(invalid("clientId must be 1-256 printable characters"));
    }
    Ok(())
}

/// Adds `channel` to a connection's subscriptions (`subs`), counted against the limit `max`;
/// whether it is new. Both versions' subscriptions go through it.
pub(super) fn insert_subscription(
    subs: &mut HashSet<String>,
    channel: &str,
    max: usize,
) -> Result<bool, ErrorObject> {
    if subs.contains(channel) {
        return Ok(false);
    }
    if subs.len() >= max {
        return Err(ErrorObject::new(
            errors::INVALID_REQUEST,
            format!("subscription limit ({max}) reached"),
        ));
    }
    subs.insert(channel.to_owned());
    Ok(true)
}
