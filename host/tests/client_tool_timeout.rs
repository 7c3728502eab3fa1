//! A client tool call (`/client-tool`) never holds the turn forever: the host fails it after
//! `--client-tool-timeout-ms`, or when its client stays disconnected longer than
//! `--client-tool-grace-ms`; a client back within the grace period still completes it.

mod common;

use ahp_wasm::protocol::jsonrpc::ReconnectResult;
use ahp_wasm::protocol::*;
use common::*;
use serde_json::json;
use std::time::{Duration, Instant};

const S: &str = "ahp-session:/client-tools";
const TOOL: &str = "pick_color";

/// A host with the given timeout and grace period; `owner` creates the session, subscribes and
/// claims the active role with the tool; `other` subscribes too.
async fn setup(timeout_ms: u64, grace_ms: u64) -> (TestHost, Client, Client) {
    let t = start_host_with(|c| {
        c.client_tool_timeout = Duration::from_millis(timeout_ms);
        c.client_tool_grace = Duration::from_millis(grace_ms);
    })
    .await;
    let mut owner = Client::ready(&t.host, "owner").await;
    let mut other = Client::ready(&t.host, "other").await;
    owner.create_session(S).await;
    owner.subscribe(S).await;
    other.subscribe(S).await;
    let claim: StateAction = serde_json::from_value(json!({"type": "session/activeClientChanged",
        "activeClient": {"clientId": "owner", "tools": [{"name": TOOL}]}}))
    .unwrap();
    owner.dispatch(S, claim).await;
    other
        .envelopes_until(|e| matches!(&e.action, StateAction::SessionActiveClientChanged(_)))
        .await;
    (t, owner, other)
}

/// Sends the message calling the tool and waits for the call to run; returns its id.
async fn call_tool(c: &mut Client) -> String {
    let text = format!("/client-tool {TOOL} {{\"palette\":\"warm\"}}");
    c.send_message(S, "t1", &text).await;
    let (_, ready) = c.until_tool_call_ready().await;
    assert_eq!(ready.confirmed, Some(ToolCallConfirmationReason::NotNeeded));
    ready.tool_call_id.clone()
}

fn complete(tool_call_id: &str, text: &str) -> StateAction {
    serde_json::from_value(json!({"type": "session/toolCallComplete", "turnId": "t1",
        "toolCallId": tool_call_id,
        "result": {"success": true, "pastTenseMessage": "Picked",
                   "content": [{"type": "text", "text": text}]}}))
    .unwrap()
}

/// The `session/toolCallComplete` envelopes of a tool call among `envs`.
fn completions<'a>(
    envs: &'a [ActionEnvelope],
    id: &str,
) -> Vec<(&'a ActionEnvelope, &'a ToolCallResult)> {
    envs.iter()
        .filter_map(|e| match &e.action {
            StateAction::SessionToolCallComplete(c)
                if c.tool_call_id == id && e.rejection_reason.is_none() =>
            {
                Some((e, &c.result))
            }
            _ => None,
        })
        .collect()
}

fn completed_state<'a>(state: &'a SessionState, id: &str) -> &'a ToolCallCompletedState {
    state.turns[0]
        .response_parts
        .iter()
        .find_map(|p| match p {
            ResponsePart::ToolCall(part) => match &part.tool_call {
                ToolCallState::Completed(c) if c.tool_call_id == id => Some(c),
                _ => None,
            },
            _ => None,
        })
        .expect("the tool call completed")
}

/// The turn ended normally (not with `session/error`).
fn ended_normally(envs: &[ActionEnvelope]) {
    assert!(
        matches!(
            envs.last().unwrap().action,
            StateAction::SessionTurnComplete(_)
        ),
        "the turn completes: {:?}",
        envs.last().unwrap().action
    );
}

#[tokio::test]
async fn an_unanswered_client_tool_times_out_and_the_turn_goes_on() {
    let (t, mut owner, _other) = setup(400, 60_000).await;
    let id = call_tool(&mut owner).await;
    let ready_at = Instant::now();
    // The owner stays connected and never answers.
    let envs = owner.until_turn_end("t1").await;
    let done = completions(&envs, &id);
    assert_eq!(done.len(), 1, "exactly one completion");
    let (envelope, result) = done[0];
    assert!(
        ready_at.elapsed() >= Duration::from_millis(300),
        "not before the timeout"
    );
    assert!(envelope.origin.is_none(), "completed by the host");
    assert!(!result.success);
    let error = result.error.as_ref().expect("an error");
    assert_eq!(error.code.as_deref(), Some("ClientToolTimeout"));
    assert!(error.message.contains("400 ms"), "{}", error.message);
    ended_normally(&envs);

    let host = host_state(&t.host, S).await;
    let state = completed_state(&host, &id);
    assert!(!state.success);
    assert_eq!(
        state.error.as_ref().and_then(|e| e.code.as_deref()),
        Some("ClientToolTimeout")
    );
    let reply = markdown(&host.turns[0].response_parts);
    assert!(
        reply.contains(&format!(
            "Client tool `{TOOL}` returned: (failed: ClientToolTimeout"
        )),
        "the agent reports the failure: {reply}"
    );

    // A late answer is refused: the call is no longer running.
    let seq = owner.dispatch(S, complete(&id, "too late")).await;
    let late = owner
        .envelopes_until(|e| e.origin.as_ref().is_some_and(|o| o.client_seq == seq))
        .await;
    assert!(late.last().unwrap().rejection_reason.is_some());
}

#[tokio::test]
async fn a_disconnected_client_tool_fails_after_the_grace_period() {
    let (t, owner, mut other) = setup(60_000, 300).await;
    let id = call_tool(&mut other).await;
    let closed_at = Instant::now();
    owner.close().await;
    let envs = other.until_turn_end("t1").await;
    let waited = closed_at.elapsed();
    // The role is released at once; the call is failed only after the grace period.
    let released = envs
        .iter()
        .position(|e| matches!(&e.action, StateAction::SessionActiveClientChanged(a) if a.active_client.is_none()))
        .expect("the active role is released");
    let done = completions(&envs, &id);
    assert_eq!(done.len(), 1);
    let (envelope, result) = done[0];
    assert!(
        envs.iter().position(|e| std::ptr::eq(e, envelope)).unwrap() > released,
        "the release comes first"
    );
    assert!(
        waited >= Duration::from_millis(250),
        "not before the grace period"
    );
    assert!(waited < Duration::from_secs(10), "long before the timeout");
    assert!(envelope.origin.is_none());
    assert!(!result.success);
    let error = result.error.as_ref().expect("an error");
    assert_eq!(error.code.as_deref(), Some("ClientDisconnected"));
    assert!(error.message.contains("owner"), "{}", error.message);
    ended_normally(&envs);
    let host = host_state(&t.host, S).await;
    assert_eq!(
        completed_state(&host, &id)
            .error
            .as_ref()
            .and_then(|e| e.code.as_deref()),
        Some("ClientDisconnected")
    );
    assert!(host.active_turn.is_none());
}

#[tokio::test]
async fn a_client_back_within_the_grace_period_still_completes_its_tool() {
    let grace = Duration::from_millis(800);
    let (t, mut owner, mut other) = setup(60_000, grace.as_millis() as u64).await;
    let id = call_tool(&mut other).await;
    // Everything the owner saw up to the call.
    let seen = owner
        .envelopes_until(|e| matches!(&e.action, StateAction::SessionToolCallReady(_)))
        .await;
    let last_seen = seen.last().unwrap().server_seq;
    // The new connection is open before the old one closes: within the grace period there is
    // only the `reconnect` itself to do, however loaded the machine.
    let mut back = Client::connect(&t.host, "owner").await;
    owner.close().await;
    // The host handled the disconnect (the role is released at once): the grace period runs.
    other
        .envelopes_until(|e| matches!(&e.action, StateAction::SessionActiveClientChanged(a) if a.active_client.is_none()))
        .await;
    let released = Instant::now();
    let result = back.reconnect(last_seen, vec![S.into()]).await.unwrap();
    assert!(matches!(result, ReconnectResult::Replay(_)));
    // Past the end of the grace period (it ran from before `released`) the call is still
    // running: the grace timer stopped.
    tokio::time::sleep((released + grace + grace / 4).saturating_duration_since(Instant::now()))
        .await;
    let host = host_state(&t.host, S).await;
    let running = host.active_turn.as_ref().unwrap().response_parts.iter().any(|p| {
        matches!(p, ResponsePart::ToolCall(part) if matches!(&part.tool_call, ToolCallState::Running(r) if r.tool_call_id == id))
    });
    assert!(
        running,
        "the call survives a reconnect within the grace period"
    );

    back.dispatch(S, complete(&id, "teal (after a reconnect)"))
        .await;
    let envs = other.until_turn_end("t1").await;
    let done = completions(&envs, &id);
    assert_eq!(done.len(), 1, "one completion: the client's");
    let (envelope, result) = done[0];
    assert_eq!(envelope.origin.as_ref().unwrap().client_id, "owner");
    assert!(result.success);
    ended_normally(&envs);
    let host = host_state(&t.host, S).await;
    assert!(completed_state(&host, &id).success);
    assert!(markdown(&host.turns[0].response_parts).contains("teal (after a reconnect)"));
}

#[tokio::test]
async fn a_disconnect_then_the_timeout_fails_once() {
    // Grace longer than the rest of the timeout: the deadline wins, once.
    let (t, owner, mut other) = setup(300, 700).await;
    let id = call_tool(&mut other).await;
    owner.close().await;
    let envs = other.until_turn_end("t1").await;
    let done = completions(&envs, &id);
    assert_eq!(done.len(), 1);
    assert_eq!(
        done[0].1.error.as_ref().and_then(|e| e.code.as_deref()),
        Some("ClientToolTimeout")
    );
    ended_normally(&envs);
    // The grace timer, had it not been stopped, would have fired by now: nothing changes.
    tokio::time::sleep(Duration::from_millis(900)).await;
    let host = host_state(&t.host, S).await;
    assert_eq!(host.turns.len(), 1);
    assert!(host.active_turn.is_none());
    assert_eq!(
        completed_state(&host, &id)
            .error
            .as_ref()
            .and_then(|e| e.code.as_deref()),
        Some("ClientToolTimeout")
    );
}
