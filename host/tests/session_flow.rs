//! Sessions end to end: create, subscribe, a turn streamed by the built-in agent, two clients
//! converging on the host's state, root notifications, queued/steering messages, cancel, fail,
//! ask.

mod common;

use ahp_wasm::protocol::jsonrpc::{self, ROOT_CHANNEL};
use ahp_wasm::protocol::*;
use common::*;
use serde_json::json;

const S: &str = "ahp-session:/flow-1";

#[tokio::test]
async fn a_turn_streams_and_two_clients_converge_on_the_hosts_state() {
    let t = start_host().await;
    let mut a = Client::ready(&t.host, "client-a").await;
    let mut b = Client::ready(&t.host, "client-b").await;
    a.create_session(S).await;
    let added = b.notification_named(jsonrpc::methods::SESSION_ADDED).await;
    assert_eq!(added["params"]["summary"]["resource"], S);

    let mut state_a = session_state(&a.subscribe(S).await);
    let mut state_b = session_state(&b.subscribe(S).await);
    assert_eq!(state_a.lifecycle, SessionLifecycle::Ready);
    assert_eq!(state_a.server_tools.as_ref().unwrap().len(), 3);

    let seq = a.send_message(S, "t1", "Hello host\nhow are you?").await;
    let on_s = |v: Vec<ActionEnvelope>| -> Vec<ActionEnvelope> {
        v.into_iter().filter(|e| e.channel == S).collect()
    };
    let env_a = on_s(a.until_turn_end("t1").await);
    let env_b = on_s(b.until_turn_end("t1").await);

    // Own echo first, with the origin; the agent's envelopes have none.
    let echo = &env_a[0];
    assert!(matches!(echo.action, StateAction::SessionTurnStarted(_)));
    assert_eq!(
        echo.origin,
        Some(ActionOrigin {
            client_id: "client-a".into(),
            client_seq: seq,
            extra: Default::default()
        })
    );
    assert!(env_a[1..].iter().all(|e| e.origin.is_none()));
    // Strictly increasing serverSeq, the same envelopes on both connections.
    assert!(env_a.windows(2).all(|w| w[0].server_seq < w[1].server_seq));
    assert_eq!(env_a, env_b);
    // Reasoning part created and streamed before the markdown; several deltas.
    let kinds: Vec<&str> = env_a
        .iter()
        .map(|e| match &e.action {
            StateAction::SessionResponsePart(p) => match p.part {
                ResponsePart::Reasoning(_) => "reasoning-part",
                ResponsePart::Markdown(_) => "markdown-part",
                _ => "other-part",
            },
            StateAction::SessionReasoning(_) => "reasoning",
            StateAction::SessionDelta(_) => "delta",
            _ => "-",
        })
        .filter(|k| *k != "-")
        .collect();
    let first_md = kinds.iter().position(|k| *k == "markdown-part").unwrap();
    assert_eq!(kinds[0], "reasoning-part");
    assert!(kinds[..first_md].contains(&"reasoning"));
    assert!(kinds[first_md..].iter().filter(|k| **k == "delta").count() >= 3);

    reduce_all(&mut state_a, &env_a);
    reduce_all(&mut state_b, &env_b);
    let host = host_state(&t.host, S).await;
    assert_eq!(comparable(&state_a), comparable(&host));
    assert_eq!(comparable(&state_b), comparable(&host));
    assert_eq!(host.turns.len(), 1);
    assert_eq!(host.turns[0].state, TurnState::Complete);
    let text = markdown(&host.turns[0].response_parts);
    assert!(text.contains("> Hello host\n> how are you?"), "{text}");

    // The catalogue: listSessions and summary notifications.
    let list = a.list_sessions().await;
    assert_eq!(list.items.len(), 1);
    assert_eq!(list.items[0].status & 1, 1, "idle again");
    let changed = b
        .notification_named(jsonrpc::methods::SESSION_SUMMARY_CHANGED)
        .await;
    assert_eq!(changed["params"]["session"], S);
}

#[tokio::test]
async fn a_second_turn_while_one_is_active_is_rejected_and_queued_messages_run_after() {
    let t = start_host_with(|c| c.chunk_delay = std::time::Duration::from_millis(20)).await;
    let mut a = Client::in_new_session(&t.host, "a", S).await;
    a.send_message(S, "t1", "first").await;
    let seq = a.send_message(S, "t2", "second").await;
    let queued = pending_message(PendingMessageKind::Queued, "q1", "queued one");
    a.dispatch(S, queued).await;
    let mut envelopes = a.until_turn_end("t1").await;
    let rejected = envelopes
        .iter()
        .find(|e| e.origin.as_ref().is_some_and(|o| o.client_seq == seq))
        .expect("the second turnStarted is echoed");
    assert!(rejected
        .rejection_reason
        .as_deref()
        .unwrap()
        .contains("already active"));
    // After t1: the host consumes the queued message and starts a turn from it.
    let next = a
        .envelopes_until(|e| matches!(&e.action, StateAction::SessionTurnStarted(_)))
        .await;
    let StateAction::SessionTurnStarted(started) = &next.last().unwrap().action else {
        unreachable!()
    };
    assert_eq!(started.queued_message_id.as_deref(), Some("q1"));
    assert!(next.iter().any(|e| matches!(&e.action,
        StateAction::SessionPendingMessageRemoved(r) if r.id == "q1")));
    let turn_id = started.turn_id.clone();
    envelopes.extend(a.until_turn_end(&turn_id).await);
    let host = host_state(&t.host, S).await;
    assert_eq!(host.turns.len(), 2);
    assert_eq!(host.turns[1].message.text, "queued one");
    assert!(host.queued_messages.unwrap_or_default().is_empty());
}

#[tokio::test]
async fn cancel_stops_the_stream_and_fail_ask_title_steering_work() {
    let t = start_host_with(|c| c.chunk_delay = std::time::Duration::from_millis(10)).await;
    let mut a = Client::in_new_session(&t.host, "a", S).await;

    // Cancel: a long slow stream stops at the cancel.
    a.send_message(S, "t1", "/long 500").await;
    a.envelopes_until(|e| matches!(e.action, StateAction::SessionDelta(_)))
        .await;
    a.dispatch(
        S,
        StateAction::SessionTurnCancelled(SessionTurnCancelledAction {
            turn_id: "t1".into(),
            extra: Default::default(),
        }),
    )
    .await;
    a.until_turn_end("t1").await;
    // Nothing more for t1 arrives: the next envelope belongs to the next turn.
    a.send_message(S, "t2", "/fail kaboom").await;
    let after = a.until_turn_end("t2").await;
    assert!(matches!(&after[0].action, StateAction::SessionTurnStarted(s) if s.turn_id == "t2"));
    let StateAction::SessionError(err) = &after.last().unwrap().action else {
        panic!("error expected")
    };
    assert_eq!(err.error.message, "kaboom");
    let host = host_state(&t.host, S).await;
    assert_eq!(host.turns[0].state, TurnState::Cancelled);
    assert!(markdown(&host.turns[0].response_parts).lines().count() < 500);
    assert_eq!(host.turns[1].state, TurnState::Error);
    assert_eq!(host.summary.status & 2, 2, "error status");

    // Ask + title + steering.
    a.send_message(S, "t3", "/title Renamed\n/ask What is your name?")
        .await;
    let envs = a
        .envelopes_until(|e| matches!(e.action, StateAction::SessionInputRequested(_)))
        .await;
    assert!(envs
        .iter()
        .any(|e| matches!(&e.action, StateAction::SessionTitleChanged(t) if t.title == "Renamed")));
    let StateAction::SessionInputRequested(req) = &envs.last().unwrap().action else {
        unreachable!()
    };
    let steer = pending_message(PendingMessageKind::Steering, "s1", "be brief");
    a.dispatch(S, steer).await;
    let answer: StateAction = serde_json::from_value(json!({
        "type": "session/inputCompleted", "requestId": req.request.id, "response": "accept",
        "answers": {"answer": {"state": "submitted", "value": {"kind": "text", "value": "Ada"}}}
    }))
    .unwrap();
    a.dispatch(S, answer).await;
    let rest = a.until_turn_end("t3").await;
    assert!(rest.iter().any(|e| matches!(&e.action,
        StateAction::SessionPendingMessageRemoved(r) if r.id == "s1")));
    let host = host_state(&t.host, S).await;
    assert_eq!(host.summary.title, "Renamed");
    let text = markdown(&host.turns[2].response_parts);
    assert!(text.contains("You answered: Ada"), "{text}");
    assert!(text.contains("Steering received: be brief"), "{text}");
    assert!(host.steering_message.is_none());
}

#[tokio::test]
async fn session_commands_errors_dispose_and_fetch_turns() {
    let t = start_host().await;
    let mut a = Client::ready(&t.host, "a").await;
    a.create_session(S).await;
    a.expect_error(
        "createSession",
        json!({"channel": S}),
        errors::SESSION_ALREADY_EXISTS,
    )
    .await;
    a.expect_error(
        "createSession",
        json!({"channel": "ahp-session:/x", "provider": "nope"}),
        errors::PROVIDER_NOT_FOUND,
    )
    .await;
    a.expect_error(
        "createSession",
        json!({"channel": "ahp-session:/y", "workingDirectory": "file:///"}),
        errors::PERMISSION_DENIED,
    )
    .await;
    a.expect_error(
        "subscribe",
        json!({"channel": "ahp-session:/none"}),
        errors::SESSION_NOT_FOUND,
    )
    .await;

    a.subscribe(S).await;
    for i in 1..=5 {
        let id = format!("t{i}");
        a.send_message(S, &id, &format!("message {i}")).await;
        a.until_turn_end(&id).await;
    }
    let page = a.fetch_turns(S, None, 2.0).await;
    assert_eq!(
        page.turns.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["t4", "t5"]
    );
    assert!(page.has_more);
    let page = a.fetch_turns(S, Some("t2"), 5.0).await;
    assert_eq!(
        page.turns.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["t1"]
    );
    assert!(!page.has_more);

    a.request::<jsonrpc::DisposeSession>(DisposeSessionParams {
        channel: S.into(),
        extra: Default::default(),
    })
    .await
    .unwrap();
    let removed = a
        .notification_named(jsonrpc::methods::SESSION_REMOVED)
        .await;
    assert_eq!(removed["params"]["session"], S);
    let list = a
        .call("listSessions", json!({"channel": ROOT_CHANNEL}))
        .await
        .unwrap();
    assert_eq!(list["items"], json!([]));
    a.expect_error(
        "fetchTurns",
        json!({"channel": S}),
        errors::SESSION_NOT_FOUND,
    )
    .await;
}

#[tokio::test]
async fn stream_directive_emits_stamped_chunks() {
    let t = start_host().await;
    let s = "ahp-session:/stream";
    let mut a = Client::in_new_session(&t.host, "streamer", s).await;
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64;
    a.send_message(s, "t1", "/stream 5 1000").await;
    a.until_turn_end("t1").await;
    let host = host_state(&t.host, s).await;
    let text = markdown(&host.turns[0].response_parts);
    let stamps: Vec<(u64, u64)> = text
        .lines()
        .filter_map(|l| {
            let (i, t) = l.split_once(' ')?;
            Some((i.parse().ok()?, t.parse().ok()?))
        })
        .collect();
    assert_eq!(
        stamps.iter().map(|s| s.0).collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4],
        "{text}"
    );
    assert!(stamps.windows(2).all(|w| w[0].1 <= w[1].1));
    assert!(stamps[0].1 >= before, "stamped at emit time");
    // Paced at 1000/s: the last chunk is due 4 ms after the first.
    assert!(stamps[4].1 - stamps[0].1 >= 3_000);
}
