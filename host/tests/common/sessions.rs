//! Session helpers of the test client: a new session with its state, a session in a working
//! directory, pages of turns, the connection's end, and actions and results tests build or read.

use super::*;
use ahp_host::resources::file_uri;

impl Client {
    /// [`Client::in_new_session`], and the session's state in the snapshot.
    pub async fn with_new_session(
        host: &RunningHost,
        client_id: &str,
        uri: &str,
    ) -> (Client, SessionState) {
        let mut c = Client::ready(host, client_id).await;
        c.create_session(uri).await;
        let state = session_state(&c.subscribe(uri).await);
        (c, state)
    }

    /// Creates session `uri` working in `dir` and subscribes to it: the session's state in the
    /// snapshot.
    pub async fn create_session_in(&mut self, uri: &str, dir: &Path) -> SessionState {
        self.call(
            "createSession",
            serde_json::json!({"channel": uri, "workingDirectory": file_uri(dir)}),
        )
        .await
        .expect("createSession");
        session_state(&self.subscribe(uri).await)
    }

    /// `fetchTurns` on `channel`: at most `limit` turns before the turn `before` (the newest
    /// ones without it).
    pub async fn fetch_turns(
        &mut self,
        channel: &str,
        before: Option<&str>,
        limit: f64,
    ) -> FetchTurnsResult {
        self.request::<jsonrpc::FetchTurns>(FetchTurnsParams {
            channel: channel.into(),
            before: before.map(Into::into),
            limit: Some(limit),
            extra: Default::default(),
        })
        .await
        .expect("fetchTurns")
    }

    /// Asserts that the host closes the connection (no frame comes before the end); `why` is
    /// the failure message.
    pub async fn assert_closed(&mut self, why: &str) {
        assert!(self.read_frame().await.is_none(), "{why}");
    }
}

/// `session/pendingMessageSet`: the user's message `text` as the steering message or a queued
/// one, with `id`.
pub fn pending_message(kind: PendingMessageKind, id: &str, text: &str) -> StateAction {
    StateAction::SessionPendingMessageSet(Box::new(SessionPendingMessageSetAction {
        kind,
        id: id.into(),
        message: Message::user(text),
        extra: Default::default(),
    }))
}

/// The text parts of a tool result, joined.
pub fn result_text(result: &ToolCallResult) -> String {
    result
        .content
        .iter()
        .flatten()
        .filter_map(|c| match c {
            ToolResultContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect()
}
