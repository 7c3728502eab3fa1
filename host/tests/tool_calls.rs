//! Server tools (confirmation flow) and client tools (only the owning client completes them),
//! plus the active-client rules.

mod common;

use ahp_wasm::protocol::*;
use common::*;
use serde_json::json;

const S: &str = "ahp-session:/tools";

fn tool_state<'a>(state: &'a SessionState, id: &str) -> &'a ToolCallState {
    let parts = match &state.active_turn {
        Some(t) => &t.response_parts,
        None => &state.turns.last().unwrap().response_parts,
    };
    parts
        .iter()
        .find_map(|p| match p {
            ResponsePart::ToolCall(tc) => match &tc.tool_call {
                s @ ToolCallState::PendingConfirmation(x) if x.tool_call_id == id => Some(s),
                s @ ToolCallState::Running(x) if x.tool_call_id == id => Some(s),
                s @ ToolCallState::Completed(x) if x.tool_call_id == id => Some(s),
                s @ ToolCallState::Cancelled(x) if x.tool_call_id == id => Some(s),
                _ => None,
            },
            _ => None,
        })
        .expect("tool call present")
}

#[tokio::test]
async fn server_tool_waits_for_confirmation_then_runs() {
    let t = start_host().await;
    let (mut a, mut mirror) = Client::with_new_session(&t.host, "a", S).await;
    a.send_message(
        S,
        "t1",
        "/tool list\n/tool read hello.txt\n/tool read ../../etc/passwd",
    )
    .await;

    let mut all = Vec::new();
    for _ in 0..3 {
        let (envs, ready) = a.until_tool_call_ready().await;
        assert!(
            ready.confirmed.is_none(),
            "server file tools need confirmation"
        );
        let id = ready.tool_call_id.clone();
        reduce_all(&mut mirror, &envs);
        all.extend(envs);
        assert!(matches!(
            tool_state(&mirror, &id),
            ToolCallState::PendingConfirmation(_)
        ));
        let host = host_state(&t.host, S).await;
        assert_eq!(
            host.summary.status & 24,
            24,
            "input needed while a tool waits"
        );
        a.dispatch(S, approve("t1", &id)).await;
        let envs = a
            .envelopes_until(|e| matches!(&e.action, StateAction::SessionToolCallComplete(_)))
            .await;
        reduce_all(&mut mirror, &envs);
        all.extend(envs);
        assert!(matches!(
            tool_state(&mirror, &id),
            ToolCallState::Completed(_)
        ));
    }
    let rest = a.until_turn_end("t1").await;
    reduce_all(&mut mirror, &rest);
    let host = host_state(&t.host, S).await;
    assert_eq!(comparable(&mirror), comparable(&host));
    let results: Vec<&ToolCallCompletedState> = host.turns[0]
        .response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::ToolCall(part) => match &part.tool_call {
                ToolCallState::Completed(c) => Some(c),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 3);
    let text = |c: &ToolCallCompletedState| match &c.content.as_ref().unwrap()[0] {
        ToolResultContent::Text(t) => t.text.clone(),
        _ => String::new(),
    };
    assert!(
        results[0].success
            && text(results[0]).contains("hello.txt")
            && text(results[0]).contains("sub/")
    );
    assert!(results[1].success && text(results[1]).contains("hello from the working directory"));
    assert!(
        !results[2].success,
        "escaping the working directory fails: {}",
        text(results[2])
    );
}

#[tokio::test]
async fn a_denied_tool_is_not_run() {
    let t = start_host().await;
    let mut a = Client::in_new_session(&t.host, "a", S).await;
    a.send_message(S, "t1", "/tool read hello.txt").await;
    let (_, ready) = a.until_tool_call_ready().await;
    let deny = deny("t1", &ready.tool_call_id);
    a.dispatch(S, deny).await;
    let rest = a.until_turn_end("t1").await;
    assert!(!rest
        .iter()
        .any(|e| matches!(e.action, StateAction::SessionToolCallComplete(_))));
    let host = host_state(&t.host, S).await;
    assert!(matches!(
        tool_state(&host, &ready.tool_call_id),
        ToolCallState::Cancelled(_)
    ));
    assert!(markdown(&host.turns[0].response_parts).contains("denied"));
    // Confirming it again is rejected: it is no longer pending.
}

#[tokio::test]
async fn only_the_owning_client_completes_its_client_tool() {
    let t = start_host().await;
    let (mut a, mut b) = two_clients_on(&t.host, S).await;

    let claim = |id: &str, tool: &str| -> StateAction {
        serde_json::from_value(json!({"type": "session/activeClientChanged",
            "activeClient": {"clientId": id, "tools": [{"name": tool}]}}))
        .unwrap()
    };
    // B cannot claim the role for A, A claims it, then B cannot take it or change A's tools.
    let s1 = b.dispatch(S, claim("client-a", "x")).await;
    let claimed = a.dispatch(S, claim("client-a", "pick_color")).await;
    // Connections are served concurrently: B's next dispatches must reach the host after A's
    // claim is applied, or B would simply win the free role.
    a.echo_of(claimed).await;
    let s2 = b.dispatch(S, claim("client-b", "y")).await;
    let s3 = b
        .dispatch(
            S,
            serde_json::from_value(
                json!({"type": "session/activeClientToolsChanged", "tools": []}),
            )
            .unwrap(),
        )
        .await;
    let mut rejections = Vec::new();
    while rejections.len() < 3 {
        let e = b.envelope().await;
        if let Some(reason) = &e.rejection_reason {
            rejections.push((e.origin.unwrap().client_seq, reason.clone()));
        }
    }
    assert_eq!(
        rejections.iter().map(|r| r.0).collect::<Vec<_>>(),
        vec![s1, s2, s3]
    );

    b.send_message(S, "t1", "/client-tool pick_color {\"palette\":\"warm\"}")
        .await;
    let (envs, ready) = b.until_tool_call_ready().await;
    assert_eq!(ready.confirmed, Some(ToolCallConfirmationReason::NotNeeded));
    assert_eq!(ready.tool_input.as_deref(), Some("{\"palette\":\"warm\"}"));
    let start = envs
        .iter()
        .find_map(|e| match &e.action {
            StateAction::SessionToolCallStart(s) => Some(s.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        start.contributor,
        Some(ToolCallContributor::Client(ToolCallClientContributor {
            client_id: "client-a".into(),
            extra: Default::default()
        }))
    );
    let complete = |text: &str| -> StateAction {
        serde_json::from_value(json!({"type": "session/toolCallComplete", "turnId": "t1",
            "toolCallId": ready.tool_call_id,
            "result": {"success": true, "pastTenseMessage": "Picked", "content": [{"type": "text", "text": text}]}}))
        .unwrap()
    };
    // B is not the owner: rejected, and the tool keeps running.
    let seq = b.dispatch(S, complete("blue (from B)")).await;
    let reason = b.echo_of(seq).await.rejection_reason.expect("rejected");
    assert!(reason.contains("only the client"), "{reason}");
    assert!(matches!(
        tool_state(&host_state(&t.host, S).await, &ready.tool_call_id),
        ToolCallState::Running(_)
    ));
    // A owns it and completes it; the agent reports the result.
    a.dispatch(S, complete("red (from A)")).await;
    b.until_turn_end("t1").await;
    let host = host_state(&t.host, S).await;
    assert!(matches!(
        tool_state(&host, &ready.tool_call_id),
        ToolCallState::Completed(_)
    ));
    let text = markdown(&host.turns[0].response_parts);
    assert!(
        text.contains("red (from A)") && !text.contains("from B"),
        "{text}"
    );

    // When A disconnects, the host releases its active-client role.
    a.close().await;
    let released = b
        .envelopes_until(|e| matches!(&e.action, StateAction::SessionActiveClientChanged(c) if c.active_client.is_none()))
        .await;
    assert!(released.last().unwrap().origin.is_none());
}

#[tokio::test]
async fn a_client_denying_its_running_call_ends_it_at_once() {
    let t = start_host().await;
    let (mut a, mut b) = two_clients_on(&t.host, S).await;
    let claimed = a
        .dispatch(
            S,
            serde_json::from_value(json!({"type": "session/activeClientChanged",
            "activeClient": {"clientId": "client-a", "tools": [{"name": "pick_color"}]}}))
            .unwrap(),
        )
        .await;
    a.echo_of(claimed).await;
    // A tool the client does not list still goes to it (a stale name), running.
    b.send_message(S, "t1", "/client-tool no_such_tool {}")
        .await;
    let (_, ready) = b.until_tool_call_ready().await;
    let deny = deny("t1", &ready.tool_call_id);
    // Not the owner: nothing happens to the call.
    let seq = b.dispatch(S, deny.clone()).await;
    let echo = b.echo_of(seq).await;
    assert!(echo.rejection_reason.is_some(), "{:?}", echo.action);
    assert!(matches!(
        tool_state(&host_state(&t.host, S).await, &ready.tool_call_id),
        ToolCallState::Running(_)
    ));
    // The owner denies: the call fails now (the default timeout is 30 s) and the turn ends.
    let started = std::time::Instant::now();
    a.dispatch(S, deny).await;
    b.until_turn_end("t1").await;
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let host = host_state(&t.host, S).await;
    let ToolCallState::Completed(done) = tool_state(&host, &ready.tool_call_id) else {
        panic!("not completed");
    };
    assert!(!done.success);
    let error = done.error.as_ref().expect("an error");
    assert_eq!(error.code.as_deref(), Some("ClientDenied"));
    assert!(
        error.message.contains("denied `no_such_tool`"),
        "{}",
        error.message
    );
}
