//! Client tool calls in flight: a tool call the agent delegated to a client (contributor
//! `client`) must not hold the turn forever. Each one has a deadline (`--client-tool-timeout-ms`);
//! when the client that provides it is gone (no connection with its id) a grace period
//! (`--client-tool-grace-ms`) starts, and a reconnect within it cancels the grace timer. When a
//! timer fires first, the host completes the call itself with `success: false` and an error
//! (`ClientToolTimeout` / `ClientDisconnected`), as guide/customizations.md asks, and the agent
//! continues the turn with that result.
//!
//! Timers are tokio tasks that send [`HubMsg::ClientToolExpired`] back to the hub; every timer
//! has a unique id, so a timer that fired just before it was cancelled is recognised as stale.

use crate::agent::AgentEvent;
use crate::bus::{HubMsg, ToolExpiry};
use crate::hub::base::Core;
use crate::hub::Hub;
use ahp_wasm::protocol::{
    SessionToolCallCompleteAction, StateAction, StringOrMarkdown, ToolCallResult,
    ToolCallResultError,
};
use std::collections::HashMap;
use std::time::Duration;
use tokio::task::AbortHandle;

/// A timer task and its id.
struct Timer {
    id: u64,
    handle: AbortHandle,
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.handle.abort();
    }
}

/// One client tool call the agent waits on.
pub(in crate::hub) struct ClientToolWait {
    turn_id: String,
    tool_name: String,
    client_id: String,
    timeout: Timer,
    /// Running while the client is disconnected.
    grace: Option<Timer>,
}

/// The client tool calls in flight and their bounds.
#[derive(Default)]
pub(in crate::hub) struct ClientTools {
    /// By (session, tool call id).
    pub(in crate::hub) waits: HashMap<(String, String), ClientToolWait>,
    /// `--client-tool-timeout-ms`.
    pub(in crate::hub) timeout: Duration,
    /// `--client-tool-grace-ms`.
    pub(in crate::hub) grace: Duration,
}

impl ClientTools {
    /// Removes and returns the wait at `key` when `meant` holds for it (a live timer, the
    /// call's owner); `None` leaves the table as it was.
    fn take_if(
        &mut self,
        key: &(String, String),
        meant: impl FnOnce(&ClientToolWait) -> bool,
    ) -> Option<ClientToolWait> {
        if self.waits.get(key).is_some_and(meant) {
            self.waits.remove(key)
        } else {
            None
        }
    }

    /// The session's turn ended or the session went away: stop watching its calls.
    pub(in crate::hub) fn forget(&mut self, channel: &str) {
        self.waits.retain(|(c, _), _| c != channel);
    }

    /// The last connection of `client_id` closed: its calls get a grace period.
    pub(in crate::hub) fn client_left(&mut self, core: &mut Core, client_id: &str) {
        let keys: Vec<(String, String)> = self
            .waits
            .iter()
            .filter(|(_, w)| w.client_id == client_id && w.grace.is_none())
            .map(|(k, _)| k.clone())
            .collect();
        for (channel, tool_call_id) in keys {
            let turn_id = self.waits[&(channel.clone(), tool_call_id.clone())]
                .turn_id
                .clone();
            let grace = timer(
                core,
                self.grace,
                &channel,
                &turn_id,
                &tool_call_id,
                ToolExpiry::Disconnected,
            );
            if let Some(w) = self.waits.get_mut(&(channel, tool_call_id)) {
                w.grace = Some(grace);
            }
        }
    }

    /// `client_id` is back (initialize or reconnect): its calls are no longer in grace.
    pub(in crate::hub) fn client_returned(&mut self, client_id: &str) {
        for w in self.waits.values_mut() {
            if w.client_id == client_id {
                w.grace = None;
            }
        }
    }
}

fn client_connected(core: &Core, client_id: &str) -> bool {
    core.conns
        .values()
        .any(|c| c.client_id.as_deref() == Some(client_id))
}

fn timer(
    core: &mut Core,
    after: Duration,
    channel: &str,
    turn_id: &str,
    tool_call_id: &str,
    reason: ToolExpiry,
) -> Timer {
    core.next_timer += 1;
    let id = core.next_timer;
    let msg = HubMsg::ClientToolExpired {
        channel: channel.to_owned(),
        turn_id: turn_id.to_owned(),
        tool_call_id: tool_call_id.to_owned(),
        timer: id,
        reason,
    };
    let hub = core.tx.clone();
    let task = core.rt.spawn(async move {
        tokio::time::sleep(after).await;
        let _ = hub.send(msg).await;
    });
    Timer {
        id,
        handle: task.abort_handle(),
    }
}

impl Hub {
    /// A client tool call started: arm its deadline, and its grace period if its client is
    /// not connected.
    pub(in crate::hub) fn watch_client_tool(
        &mut self,
        channel: &str,
        turn_id: &str,
        tool_call_id: &str,
        tool_name: &str,
        client_id: &str,
    ) {
        let timeout = timer(
            &mut self.core,
            self.customs.client_tools.timeout,
            channel,
            turn_id,
            tool_call_id,
            ToolExpiry::Timeout,
        );
        let grace = (!client_connected(&self.core, client_id)).then(|| {
            timer(
                &mut self.core,
                self.customs.client_tools.grace,
                channel,
                turn_id,
                tool_call_id,
                ToolExpiry::Disconnected,
            )
        });
        self.customs.client_tools.waits.insert(
            (channel.to_owned(), tool_call_id.to_owned()),
            ClientToolWait {
                turn_id: turn_id.to_owned(),
                tool_name: tool_name.to_owned(),
                client_id: client_id.to_owned(),
                timeout,
                grace,
            },
        );
    }

    /// A tool call completed (by anyone): stop watching it.
    pub(in crate::hub) fn client_tool_done(&mut self, channel: &str, tool_call_id: &str) {
        self.customs
            .client_tools
            .waits
            .remove(&(channel.to_owned(), tool_call_id.to_owned()));
    }

    /// A timer fired: unless it is stale, fail the call and let the agent go on.
    pub(in crate::hub) fn on_client_tool_expired(
        &mut self,
        channel: String,
        turn_id: String,
        tool_call_id: String,
        timer: u64,
        reason: ToolExpiry,
    ) {
        let key = (channel, tool_call_id);
        let live = self.customs.client_tools.take_if(&key, |w| {
            w.turn_id == turn_id
                && (w.timeout.id == timer || w.grace.as_ref().is_some_and(|g| g.id == timer))
        });
        let Some(wait) = live else {
            return;
        };
        let (channel, tool_call_id) = key;
        self.fail_client_tool(channel, turn_id, tool_call_id, wait, reason);
    }

    /// A client denied a running call: when it is the call's owner, the call ends now (with
    /// `ClientDenied`) instead of at its deadline.
    pub(in crate::hub) fn client_tool_denied(
        &mut self,
        channel: &str,
        tool_call_id: &str,
        by: &str,
    ) {
        let key = (channel.to_owned(), tool_call_id.to_owned());
        let Some(wait) = self
            .customs
            .client_tools
            .take_if(&key, |w| w.client_id == by)
        else {
            return;
        };
        let turn_id = wait.turn_id.clone();
        self.fail_client_tool(key.0, turn_id, key.1, wait, ToolExpiry::Denied);
    }

    /// Completes a client tool call with `success: false` for `reason` and lets the agent go on.
    fn fail_client_tool(
        &mut self,
        channel: String,
        turn_id: String,
        tool_call_id: String,
        wait: ClientToolWait,
        reason: ToolExpiry,
    ) {
        let message = match reason {
            ToolExpiry::Timeout => format!(
                "client `{}` did not complete `{}` within {} ms",
                wait.client_id,
                wait.tool_name,
                self.customs.client_tools.timeout.as_millis()
            ),
            ToolExpiry::Disconnected => format!(
                "client `{}` disconnected and did not reconnect within {} ms",
                wait.client_id,
                self.customs.client_tools.grace.as_millis()
            ),
            ToolExpiry::Denied => format!(
                "client `{}` denied `{}` (it has no such tool, or refused to run it)",
                wait.client_id, wait.tool_name
            ),
        };
        let result = ToolCallResult {
            success: false,
            past_tense_message: StringOrMarkdown::Plain(format!(
                "`{}` did not complete",
                wait.tool_name
            )),
            content: None,
            structured_content: None,
            error: Some(ToolCallResultError {
                message,
                code: Some(reason.code().to_owned()),
                extra: Default::default(),
            }),
            extra: Default::default(),
        };
        let action =
            StateAction::SessionToolCallComplete(Box::new(SessionToolCallCompleteAction {
                turn_id,
                tool_call_id: tool_call_id.clone(),
                meta: None,
                result: result.clone(),
                requires_result_confirmation: None,
                extra: Default::default(),
            }));
        if self.apply_server(&channel, action) {
            self.core.tell_agent(
                &channel,
                AgentEvent::ToolCompleted {
                    tool_call_id,
                    result: Box::new(result),
                },
            );
        }
    }
}
