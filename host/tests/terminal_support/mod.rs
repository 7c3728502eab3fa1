//! Helpers of the terminal tests that read a terminal through snapshots (`subscribe`) and
//! dispatch with the echo awaited, so one client can act and check without a mirror.
#![allow(dead_code)]

use crate::common::*;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// `createTerminal` params for `uri`, claimed by `client_id`, 80×24.
pub fn create_params(uri: &str, client_id: &str) -> Value {
    json!({
        "channel": uri,
        "claim": { "kind": "client", "clientId": client_id },
        "cols": 80,
        "rows": 24,
    })
}

/// `createTerminal` params for `uri`, claimed by `session`.
pub fn create_for_session(uri: &str, session: &str) -> Value {
    json!({
        "channel": uri,
        "claim": { "kind": "session", "session": session },
    })
}

/// The terminal's output, commands included.
pub fn text(state: &TerminalState) -> String {
    ahp_wasm::reduce::terminal_text(&state.content)
}

/// The terminal's command parts.
pub fn commands(state: &TerminalState) -> Vec<&TerminalCommandPart> {
    state
        .content
        .iter()
        .filter_map(|p| match p {
            TerminalContentPart::Command(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// `terminal/input` of `data`.
pub fn input(data: &str) -> StateAction {
    StateAction::TerminalInput(TerminalInputAction {
        data: data.into(),
        extra: Default::default(),
    })
}

/// `terminal/claimed` for the client `client_id`.
pub fn claim_for_client(client_id: &str) -> StateAction {
    StateAction::TerminalClaimed(TerminalClaimedAction {
        claim: TerminalClaim::Client(TerminalClientClaim {
            client_id: client_id.into(),
            extra: Default::default(),
        }),
        extra: Default::default(),
    })
}

/// `terminal/claimed` for `session` (backgrounded: no turn, no tool call).
pub fn claim_for_session(session: &str) -> StateAction {
    StateAction::TerminalClaimed(TerminalClaimedAction {
        claim: TerminalClaim::Session(TerminalSessionClaim {
            session: session.into(),
            turn_id: None,
            tool_call_id: None,
            extra: Default::default(),
        }),
        extra: Default::default(),
    })
}

/// `session/activeClientChanged` making `client_id` the active client.
pub fn become_active(client_id: &str) -> StateAction {
    serde_json::from_value(json!({"type": "session/activeClientChanged",
        "activeClient": {"clientId": client_id, "tools": []}}))
    .unwrap()
}

/// Dispatches `action` (subscribed to `channel` first, so an applied one is echoed too) and
/// returns its rejection reason; panics when the host applied it.
pub async fn rejected(c: &mut Client, channel: &str, action: StateAction, what: &str) -> String {
    watch(c, channel).await;
    let seq = c.dispatch(channel, action).await;
    let e = c.echo_of(seq).await;
    e.rejection_reason
        .unwrap_or_else(|| panic!("{what}: the host applied it: {:?}", e.action))
}

/// Dispatches `action` (subscribed to `channel` first: applied actions are echoed to its
/// subscribers); panics when the host rejected it.
pub async fn applied(c: &mut Client, channel: &str, action: StateAction, what: &str) {
    watch(c, channel).await;
    let seq = c.dispatch(channel, action).await;
    let e = c.echo_of(seq).await;
    if let Some(why) = e.rejection_reason {
        panic!("{what}: rejected: {why}");
    }
}

/// Subscribes `c` to `channel` (again: the host answers with a snapshot all the same).
pub async fn watch(c: &mut Client, channel: &str) {
    c.call("subscribe", json!({ "channel": channel }))
        .await
        .unwrap_or_else(|e| panic!("subscribe to {channel}: {e:?}"));
}

/// The terminal's state now (a `subscribe` snapshot).
pub async fn snapshot(c: &mut Client, uri: &str) -> TerminalState {
    let r = c
        .call("subscribe", json!({ "channel": uri }))
        .await
        .unwrap_or_else(|e| panic!("subscribe to {uri}: {e:?}"));
    serde_json::from_value(r["snapshot"]["state"].clone()).unwrap()
}

/// Polls the terminal's state until `done` holds; fails after [`WAIT`].
pub async fn wait_state(
    c: &mut Client,
    uri: &str,
    what: &str,
    done: impl Fn(&TerminalState) -> bool,
) -> TerminalState {
    let deadline = Instant::now() + WAIT;
    loop {
        let state = snapshot(c, uri).await;
        if done(&state) {
            return state;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; terminal text: {:?}",
            text(&state)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Types `line` (plus a newline) as `c` and waits for `expect` in the output.
pub async fn run_line(c: &mut Client, uri: &str, line: &str, expect: &str) -> TerminalState {
    applied(c, uri, input(&format!("{line}\n")), "typing").await;
    wait_state(c, uri, &format!("`{expect}`"), |s| text(s).contains(expect)).await
}

/// The tool call `run_in_terminal` of a turn: its terminal and its result.
pub fn run_result(envelopes: &[ActionEnvelope]) -> (String, ToolCallResult) {
    for e in envelopes {
        if let StateAction::SessionToolCallComplete(a) = &e.action {
            match a.result.content.as_deref() {
                Some([ToolResultContent::Terminal(t), ..]) => {
                    return (t.resource.clone(), a.result.clone())
                }
                other => panic!("no terminal link in the result: {other:?}"),
            }
        }
    }
    panic!("no run_in_terminal result");
}

/// The terminal a running `/run` of the subscribed session linked (its first
/// `session/toolCallContentChanged`).
pub async fn run_terminal(c: &mut Client) -> String {
    let linked = c
        .envelopes_until(|e| matches!(&e.action, StateAction::SessionToolCallContentChanged(_)))
        .await;
    match &linked.last().unwrap().action {
        StateAction::SessionToolCallContentChanged(a) => match &a.content[0] {
            ToolResultContent::Terminal(t) => t.resource.clone(),
            other => panic!("{other:?}"),
        },
        _ => unreachable!(),
    }
}

/// The URIs of root `terminals`.
pub async fn root_terminals(c: &mut Client) -> Vec<String> {
    let r = c
        .call("subscribe", json!({ "channel": ROOT_CHANNEL }))
        .await
        .unwrap();
    let state: RootState = serde_json::from_value(r["snapshot"]["state"].clone()).unwrap();
    state
        .terminals
        .unwrap_or_default()
        .into_iter()
        .map(|t| t.resource)
        .collect()
}
