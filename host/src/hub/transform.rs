//! The transform feature: where the agent's rendered system prompt goes to be transformed by
//! the session's active client (`systemMessageTransform`, see `crate::agent::transform`).

use super::base::Core;
use super::features::Feature;
use ahp_wasm::protocol::SessionState;
use std::time::Duration;

/// The transform's settings.
pub(super) struct Transform {
    /// `--transform-timeout-ms`: how long the agent waits for the client's answer.
    pub(super) timeout: Duration,
    /// `--debug`: the transform's exchange is logged.
    pub(super) audit: bool,
}

impl Transform {
    /// Where a render's `systemMessageTransform` goes: the active client now (its connection
    /// now), when it opted into a rendered, unrestricted section and is connected.
    pub(super) fn target(
        &self,
        core: &Core,
        state: &SessionState,
        rendered: &[crate::agent::prompt::Section],
    ) -> Option<crate::agent::transform::Target> {
        let client = state.active_client.as_ref()?;
        let ids = crate::agent::transform::asked(client, rendered);
        if ids.is_empty() {
            return None;
        }
        let (conn, c) = core
            .conns
            .iter()
            .find(|(_, c)| c.client_id.as_deref() == Some(client.client_id.as_str()))?;
        Some(crate::agent::transform::Target {
            client_id: client.client_id.clone(),
            conn: *conn,
            handle: c.handle.clone(),
            peer: core.peer.clone(),
            timeout: self.timeout,
            ids,
            audit: self.audit,
        })
    }
}

/// The transform has no lifecycle of its own: it reads the core when a turn starts.
impl Feature for Transform {}
