//! AHP 1.0 canvases, for 1.0 clients only: the `ahp-canvas:/<instance id>` channels the
//! built-in agent opens with `/canvas` (`CanvasState`), their subscribers, and the
//! `canvas/stateChanged` actions clients dispatch on them.
//!
//! A canvas's page is served by the host on its own origin (`crate::canvas_pages`), so its
//! `url` is always the host's: a client's `canvas/stateChanged` is reduced by the SDK's
//! `canvas_reducer` only after its identity (instance, extension, canvas id) is unchanged,
//! its texts are bounded and its `url` is one of this host's canvas pages ([`CanvasError`]).
//! Canvases live as long as the host and their session: their URLs must not outlive a
//! restart (the protocol says so), so they are not stored.
//!
//! The chat a canvas is opened in lists it: each open sends that chat a `chat/canvasesChanged`
//! with all of its canvases, reduced into the stored 1.0 chat like any chat action
//! (`Core::v1_chat_action`). A canvas goes away only with its session or chat, so no chat is
//! left listing it; after a restart, a stored chat that still lists canvases gets a
//! `chat/canvasesChanged` clearing them ([`Hub::forget_canvases`]), logged like the others.

use super::base::Core;
use super::features::{snapshot_json, Feature};
use super::v1_mirror::{default_chat_uri, envelope_frame, is_chat_view};
use super::{fanout, ConnId, Hub};
use crate::canvas_pages::CanvasPages;
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::canvas_reducer;
use ahp_wasm::reduce::Outcome;
use serde_json::Value;
use std::collections::HashMap;

/// The prefix of canvas channels.
pub(super) const PREFIX: &str = "ahp-canvas:/";
/// The path of canvas pages on the host's origin.
const PAGE_PATH: &str = "/canvas/";
/// The `extensionId` of the host's canvases.
const EXTENSION: &str = "ahp-host";
/// Canvases one session keeps open.
pub(super) const MAX_PER_SESSION: usize = 16;
/// Canvases the host keeps open.
const MAX_CANVASES: usize = 256;
/// Bytes of a title or status.
const MAX_TEXT_BYTES: usize = 512;
/// Bytes of a canvas page.
pub(crate) const MAX_PAGE_BYTES: usize = 1024 * 1024;

/// Why a client's canvas state was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum CanvasError {
    /// Only `canvas/stateChanged` applies to a canvas channel.
    NotACanvasAction,
    /// The action changes who the canvas is (`instanceId`, `extensionId`, `canvasId`).
    IdentityChanged(&'static str),
    /// A title or status over [`MAX_TEXT_BYTES`].
    TooLong(&'static str),
    /// A `url` that is not one of this host's canvas pages.
    UrlOffOrigin,
}

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CanvasError::NotACanvasAction => {
                f.write_str("only canvas/stateChanged applies to a canvas channel")
            }
            CanvasError::IdentityChanged(member) => {
                write!(f, "a canvas keeps its `{member}`")
            }
            CanvasError::TooLong(member) => {
                write!(f, "`{member}` has at most {MAX_TEXT_BYTES} bytes")
            }
            CanvasError::UrlOffOrigin => f.write_str(
                "canvasUrlOffOrigin: a canvas URL must be one of this host's canvas pages \
                 (its own origin, /canvas/<instance id>/)",
            ),
        }
    }
}

/// One open canvas.
struct Canvas {
    state: v1::CanvasState,
    subs: Vec<ConnId>,
    /// The session it was opened in (a chat's view for a chat other than the default one).
    session: String,
    /// Its place in the order of opening.
    opened: u64,
}

/// The open canvases, their pages and the host's origins.
#[derive(Default)]
pub(super) struct Canvases {
    canvases: HashMap<String, Canvas>,
    /// What the HTTP server serves.
    pages: CanvasPages,
    /// The origins the host is reached at (the first one is put in URLs); none until the
    /// server tells the hub ([`Hub::serve_canvases`]): canvases cannot be opened before.
    origins: Vec<String>,
    /// Counts the canvases opened.
    opened: u64,
}

/// The chat that session key `key` runs the agent in: a session's default chat, or the chat
/// whose view `key` is.
pub(super) fn chat_of(key: &str) -> String {
    match is_chat_view(key) {
        true => key.to_owned(),
        false => default_chat_uri(key),
    }
}

/// Whether `channel` names a canvas channel.
pub(super) fn is_channel(channel: &str) -> bool {
    channel.starts_with(PREFIX)
}

impl Canvases {
    /// The snapshot of canvas channel `channel`.
    pub(super) fn snapshot(&self, channel: &str, seq: u64) -> Option<String> {
        snapshot_json(channel, &self.canvases.get(channel)?.state, seq)
    }

    /// Whether canvas channel `channel` is open.
    pub(super) fn has(&self, channel: &str) -> bool {
        self.canvases.contains_key(channel)
    }

    /// The subscribers of canvas channel `channel`.
    pub(super) fn subscribers_mut(&mut self, channel: &str) -> Option<&mut Vec<ConnId>> {
        self.canvases.get_mut(channel).map(|c| &mut c.subs)
    }

    /// The canvases of chat `chat` as its `canvases` member lists them, oldest first; `None`
    /// when it has none (the member is then absent, as `chat/canvasesChanged` clears it).
    pub(super) fn references(&self, chat: &str) -> Option<Vec<v1::CanvasReference>> {
        let mut open: Vec<(&String, &Canvas)> = self
            .canvases
            .iter()
            .filter(|(_, c)| chat_of(&c.session) == chat)
            .collect();
        open.sort_by_key(|(_, c)| c.opened);
        let refs: Vec<v1::CanvasReference> = open
            .into_iter()
            .map(|(uri, _)| v1::CanvasReference {
                resource: uri.clone(),
                extra: Default::default(),
            })
            .collect();
        (!refs.is_empty()).then_some(refs)
    }

    /// Opens a canvas in `session` serving `html`; what to tell the user.
    pub(super) fn open(
        &mut self,
        session: &str,
        (title, html, kind): (String, String, &'static str),
    ) -> Result<String, String> {
        let Some(base) = self.origins.first() else {
            return Err("this host serves no canvas pages".into());
        };
        if self.canvases.len() >= MAX_CANVASES {
            return Err(format!("the host has {MAX_CANVASES} canvases open already"));
        }
        if self
            .canvases
            .values()
            .filter(|c| c.session == session)
            .count()
            >= MAX_PER_SESSION
        {
            return Err(format!(
                "this session has {MAX_PER_SESSION} canvases open already"
            ));
        }
        if html.len() > MAX_PAGE_BYTES {
            return Err(format!("a canvas page has at most {MAX_PAGE_BYTES} bytes"));
        }
        let title: String = title.chars().take(200).collect();
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| format!("no random instance id: {e}"))?;
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let uri = format!("{PREFIX}{id}");
        let url = format!("{base}{PAGE_PATH}{id}/");
        let state = v1::CanvasState {
            instance_id: id.clone(),
            extension_id: EXTENSION.into(),
            extension_name: Some("ahp-host".into()),
            canvas_id: kind.into(),
            title: Some(title.clone()),
            status: Some("open".into()),
            url: Some(url.clone()),
            extra: Default::default(),
        };
        self.pages.insert(&id, html);
        self.opened += 1;
        self.canvases.insert(
            uri.clone(),
            Canvas {
                state,
                subs: Vec::new(),
                session: session.to_owned(),
                opened: self.opened,
            },
        );
        Ok(format!("Opened the canvas **{title}**: `{uri}` ({url})."))
    }

    /// A 1.0 client's action on canvas channel `channel` (which exists): checked, applied and
    /// sent to the subscribers; or refused to its dispatcher alone.
    pub(super) fn dispatch(
        &mut self,
        core: &mut Core,
        conn: ConnId,
        channel: &str,
        (action, json): (v1::StateAction, Value),
        origin: &v03::ActionOrigin,
    ) {
        let origins = &self.origins;
        let Some(canvas) = self.canvases.get_mut(channel) else {
            return;
        };
        if let Err(e) = check(&canvas.state, &action, origins) {
            core.seq += 1;
            let reason = e.to_string();
            let frame = envelope_frame(channel, &json, core.seq, Some(origin), Some(&reason));
            core.outbox.push((conn, frame));
            return;
        }
        // Checked above: a `canvas/stateChanged`, which the reducer always applies.
        let applied = canvas_reducer(&mut canvas.state, &action);
        debug_assert!(matches!(applied, Outcome::Applied(_)));
        core.seq += 1;
        let frame = envelope_frame(channel, &json, core.seq, Some(origin), None);
        fanout(&mut core.outbox, &canvas.subs, &frame);
        core.keep_v1(channel.into(), frame);
    }
}

/// Whether `action` may replace canvas state `now`.
fn check(
    now: &v1::CanvasState,
    action: &v1::StateAction,
    origins: &[String],
) -> Result<(), CanvasError> {
    let v1::StateAction::CanvasStateChanged(a) = action else {
        return Err(CanvasError::NotACanvasAction);
    };
    let new = &a.canvas;
    if new.instance_id != now.instance_id {
        return Err(CanvasError::IdentityChanged("instanceId"));
    }
    if new.extension_id != now.extension_id {
        return Err(CanvasError::IdentityChanged("extensionId"));
    }
    if new.canvas_id != now.canvas_id {
        return Err(CanvasError::IdentityChanged("canvasId"));
    }
    for (member, text) in [
        ("title", &new.title),
        ("status", &new.status),
        ("extensionName", &new.extension_name),
    ] {
        if text.as_ref().is_some_and(|t| t.len() > MAX_TEXT_BYTES) {
            return Err(CanvasError::TooLong(member));
        }
    }
    if let Some(url) = &new.url {
        if !is_host_page(url, origins) {
            return Err(CanvasError::UrlOffOrigin);
        }
    }
    Ok(())
}

/// Whether `url` is a canvas page of this host: one of its origins, then `/canvas/<hex id>/`
/// and nothing that could leave it (no `..`, no other authority).
fn is_host_page(url: &str, origins: &[String]) -> bool {
    origins.iter().any(|origin| {
        url.strip_prefix(origin.as_str())
            .and_then(|rest| rest.strip_prefix(PAGE_PATH))
            .and_then(|rest| rest.split_once('/'))
            .is_some_and(|(id, rest)| {
                !id.is_empty()
                    && id.bytes().all(|b| b.is_ascii_hexdigit())
                    && !rest.contains("..")
                    && !rest.contains('\\')
            })
    })
}

impl Feature for Canvases {
    /// The session's canvases close with it: their pages are no longer served.
    fn session_disposed(&mut self, core: &mut Core, session: &str) {
        let gone: Vec<String> = self
            .canvases
            .iter()
            .filter(|(_, c)| c.session == session)
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in gone {
            if let Some(canvas) = self.canvases.remove(&uri) {
                self.pages.remove(&canvas.state.instance_id);
                for conn in canvas.subs {
                    if let Some(c) = core.conns.get_mut(&conn) {
                        c.v1_subs.remove(&uri);
                    }
                }
            }
        }
    }
}

impl Hub {
    /// The agent's `/canvas` in session key `session`: the canvas opened and its chat told
    /// (`chat/canvasesChanged`); what to tell the user.
    pub(super) fn open_canvas(
        &mut self,
        session: &str,
        canvas: (String, String, &'static str),
    ) -> Result<String, String> {
        let answer = self.canvases.open(session, canvas)?;
        let chat = chat_of(session);
        let changed = serde_json::json!({
            "type": "chat/canvasesChanged",
            "canvases": self.canvases.references(&chat),
        });
        self.core.v1_chat_action(session, changed);
        Ok(answer)
    }

    /// After a restart: every stored chat that lists canvases (none is open any more) gets a
    /// `chat/canvasesChanged` clearing them.
    pub(super) fn forget_canvases(&mut self) {
        let stale: Vec<String> = self
            .core
            .sessions
            .iter()
            .filter(|(_, s)| s.v1.chat.canvases.is_some())
            .map(|(key, _)| key.clone())
            .collect();
        for key in stale {
            let cleared = serde_json::json!({ "type": "chat/canvasesChanged" });
            self.core.v1_chat_action(&key, cleared);
        }
    }

    /// Where canvas pages are served (`pages`, by the HTTP server) and the origins the host is
    /// reached at (the first one goes into canvas URLs).
    pub fn serve_canvases(&mut self, pages: CanvasPages, origins: Vec<String>) {
        self.canvases.pages = pages;
        self.canvases.origins = origins;
    }
}

#[cfg(test)]
mod tests {
    use super::is_host_page;

    #[test]
    fn only_the_hosts_canvas_pages_are_canvas_urls() {
        let origins = ["http://127.0.0.1:8080".to_owned()];
        for ok in [
            "http://127.0.0.1:8080/canvas/ab12/",
            "http://127.0.0.1:8080/canvas/ab12/page.html",
        ] {
            assert!(is_host_page(ok, &origins), "{ok}");
        }
        for off in [
            "https://example.com/canvas/ab12/",
            "http://127.0.0.1:8080.evil.com/canvas/ab12/",
            "http://127.0.0.1:8080@evil.com/canvas/ab12/",
            "http://127.0.0.1:8080/canvas/",
            "http://127.0.0.1:8080/canvas/x y/",
            "http://127.0.0.1:8080/canvas/ab12/../../ahp",
            "http://127.0.0.1:8080/other/ab12/",
            "javascript:alert(1)",
        ] {
            assert!(!is_host_page(off, &origins), "{off}");
        }
    }
}
