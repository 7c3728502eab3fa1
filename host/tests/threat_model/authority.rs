//! Authority of DESIGN.md "Security posture": actions authorized against current state and the
//! connection that owns them (the active-client role, tool calls, the binding of client ids).

use super::*;

/// "actions authorized against current state" (server-only actions, the root channel, a turn
/// while one is active)
///
/// Controls: `authorize` in `hub/dispatch.rs` (client-dispatchable actions, the active-turn
/// check) and the root-channel check in `on_dispatch`.
#[tokio::test]
async fn actions_are_authorized_against_current_state() {
    let t = start_host().await;
    let (mut c, mut mirror) = Client::with_new_session(&t.host, "forger", S).await;
    // A turn that stays active (it waits for an answer), with a markdown part to forge into.
    c.send_message(S, "t1", "question time\n/ask Your name?")
        .await;
    let envs = c
        .envelopes_until(|e| matches!(e.action, StateAction::SessionInputRequested(_)))
        .await;
    reduce_all(&mut mirror, &envs);
    let part_id = mirror
        .active_turn
        .as_ref()
        .unwrap()
        .response_parts
        .iter()
        .find_map(|p| match p {
            ResponsePart::Markdown(m) => Some(m.id.clone()),
            _ => None,
        })
        .expect("a markdown part");
    let before = host_state(&t.host, S).await;

    // Agent output forged by a client, though the state would take it.
    let forged = [
        action(
            json!({"type": "session/delta", "turnId": "t1", "partId": part_id,
            "content": "FORGED"}),
        ),
        action(json!({"type": "session/responsePart", "turnId": "t1",
            "part": {"kind": "markdown", "id": "forged", "content": "FORGED"}})),
        action(json!({"type": "session/turnComplete", "turnId": "t1"})),
        action(json!({"type": "session/ready"})),
    ];
    for a in forged {
        let what = format!("{a:?}");
        assert_rejected(&mut c, S, a, &what, "not client-dispatchable").await;
    }
    // A second turn while one is active.
    assert_rejected(
        &mut c,
        S,
        turn_started("t2", "me too"),
        "a second turn",
        "already active",
    )
    .await;
    // Root state is the server's, except config.
    assert_rejected(
        &mut c,
        ROOT_CHANNEL,
        action(json!({"type": "root/activeSessionsChanged", "activeSessions": 99})),
        "root/activeSessionsChanged",
        "not client-dispatchable",
    )
    .await;

    assert_eq!(
        comparable(&host_state(&t.host, S).await),
        comparable(&before),
        "a rejected action changed the state"
    );
    let mut o = Client::ready(&t.host, "observer").await;
    let list = o
        .call("listSessions", json!({"channel": ROOT_CHANNEL}))
        .await;
    assert_eq!(list.unwrap()["items"].as_array().unwrap().len(), 1);
}

/// "actions authorized against ... the connection that owns them (active client ...)"
///
/// Control: the `activeClientChanged` / `activeClientToolsChanged` arms of `authorize`.
#[tokio::test]
async fn active_client_role_belongs_to_its_client() {
    let t = start_host().await;
    let (mut a, mut b) = two_clients_on(&t.host, S).await;
    let claim = |id: &str| {
        action(json!({"type": "session/activeClientChanged",
            "activeClient": {"clientId": id, "tools": [{"name": "pick_color"}]}}))
    };
    let release = || action(json!({"type": "session/activeClientChanged", "activeClient": null}));
    let tools = || action(json!({"type": "session/activeClientToolsChanged", "tools": []}));

    assert_rejected(&mut b, S, claim("client-a"), "B claims for A", "for itself").await;
    let seq = a.dispatch(S, claim("client-a")).await;
    assert!(a.echo_of(seq).await.rejection_reason.is_none());
    assert_rejected(
        &mut b,
        S,
        claim("client-b"),
        "B takes over",
        "another client is active",
    )
    .await;
    assert_rejected(
        &mut b,
        S,
        tools(),
        "B changes A's tools",
        "only the active client",
    )
    .await;
    assert_rejected(
        &mut b,
        S,
        release(),
        "B releases A's role",
        "only the active client",
    )
    .await;
    let state = host_state(&t.host, S).await;
    let active = state.active_client.expect("A is still active");
    assert_eq!(active.client_id, "client-a");
    assert_eq!(active.tools.len(), 1);
    // A may change its own tools.
    let seq = a.dispatch(S, tools()).await;
    assert!(a.echo_of(seq).await.rejection_reason.is_none());
}

/// "actions authorized against ... the connection that owns them (... tool-call owner)"
///
/// Control: `tool_owner` in `hub/dispatch.rs`.
#[tokio::test]
async fn tool_calls_are_completed_only_by_their_owner() {
    let t = start_host().await;
    let (mut a, mut b) = two_clients_on(&t.host, S).await;
    let seq = a
        .dispatch(
            S,
            action(json!({"type": "session/activeClientChanged",
                "activeClient": {"clientId": "client-a", "tools": [{"name": "pick_color"}]}})),
        )
        .await;
    a.echo_of(seq).await;

    // A client tool call of A's.
    b.send_message(S, "t1", "/client-tool pick_color {}").await;
    let envs = b
        .envelopes_until(|e| matches!(e.action, StateAction::SessionToolCallReady(_)))
        .await;
    let StateAction::SessionToolCallReady(ready) = &envs.last().unwrap().action else {
        unreachable!()
    };
    let id = ready.tool_call_id.clone();
    let complete = |turn: &str, id: &str, text: &str| {
        action(
            json!({"type": "session/toolCallComplete", "turnId": turn, "toolCallId": id,
            "result": {"success": true, "pastTenseMessage": "Picked",
                "content": [{"type": "text", "text": text}]}}),
        )
    };
    let content = action(
        json!({"type": "session/toolCallContentChanged", "turnId": "t1",
        "toolCallId": id, "content": [{"type": "text", "text": "from B"}]}),
    );
    assert_rejected(
        &mut b,
        S,
        content,
        "B streams A's tool content",
        "only the client",
    )
    .await;
    assert_rejected(
        &mut b,
        S,
        complete("t1", &id, "from B"),
        "B completes A's tool",
        "only the client",
    )
    .await;
    a.dispatch(S, complete("t1", &id, "from A")).await;
    b.until_turn_end("t1").await;
    let text = markdown(&host_state(&t.host, S).await.turns[0].response_parts);
    assert!(
        text.contains("from A") && !text.contains("from B"),
        "{text}"
    );

    // A server tool call: no client completes it, not even the active one.
    a.send_message(S, "t2", "/tool list").await;
    let envs = a
        .envelopes_until(
            |e| matches!(&e.action, StateAction::SessionToolCallReady(r) if r.turn_id == "t2"),
        )
        .await;
    let StateAction::SessionToolCallReady(ready) = &envs.last().unwrap().action else {
        unreachable!()
    };
    let id = ready.tool_call_id.clone();
    assert_rejected(
        &mut a,
        S,
        complete("t2", &id, "forged"),
        "A completes a server tool",
        "executed by the server",
    )
    .await;
}

/// A handshake claiming `client_id` without a `clientSecret`, as every spec-following client
/// sends it.
fn claim_without_secret(method: &str, client_id: &str) -> Value {
    match method {
        "initialize" => json!({"channel": ROOT_CHANNEL, "protocolVersions": ["0.3.0"],
            "clientId": client_id}),
        _ => json!({"channel": ROOT_CHANNEL, "clientId": client_id, "lastSeenServerSeq": 0,
            "subscriptions": []}),
    }
}

/// "actions authorized against ... the connection that owns them (active client, tool-call
/// owner)": ownership goes by `clientId`, which every subscriber reads from state, so the id
/// must not pass to another connection on its say-so.
///
/// Controls: `claim_client_id` and the ping of the holding connection (`hub/identity.rs`,
/// `hub/id_claims.rs`). Prevented: taking an id from a live connection without its secret;
/// taking the id of a client that has presented its secret (the SDK clients), connected or not.
/// Not prevented, and asserted so: while no connection holds the id of a client that never
/// presented a secret (any official client), a handshake with that id is accepted: the host
/// cannot tell the client's own `reconnect` from someone else's.
#[tokio::test]
async fn a_client_id_is_not_taken_from_its_connection() {
    let t = start_host().await;
    // A connected client that never presented its secret, as an official client: each claim
    // is refused once its connection answers the host's ping.
    let mut holder = Client::ready(&t.host, "holder").await;
    for method in ["initialize", "reconnect"] {
        let mut intruder = Client::connect(&t.host, "intruder").await;
        let claim = intruder.call(method, claim_without_secret(method, "holder"));
        let e = holder.reading_while(claim).await.unwrap_err();
        assert_eq!(e.code, errors::PERMISSION_DENIED, "{method}: {e:?}");
        assert!(e.message.contains("live connection"), "{e:?}");
        // The intruder's connection stays, and may use an id of its own.
        ping(&mut intruder).await;
    }
    ping(&mut holder).await;

    // A client that presented its secret once (the SDK clients do at every reconnect) keeps
    // its id while it is away too.
    let sdk = Client::ready(&t.host, "sdk").await;
    sdk.close().await;
    let mut sdk = Client::connect(&t.host, "sdk").await;
    sdk.reconnect(0, vec![])
        .await
        .expect("its own reconnect, with its secret");
    sdk.close().await;
    let mut intruder = Client::connect(&t.host, "intruder").await;
    for method in ["initialize", "reconnect"] {
        let e = intruder
            .call(method, claim_without_secret(method, "sdk"))
            .await
            .unwrap_err();
        assert_eq!(e.code, errors::PERMISSION_DENIED, "{method}: {e:?}");
        assert!(e.message.contains("clientSecret"), "{e:?}");
    }

    // NOT prevented: once the holder is gone, its id is anyone's who asks first.
    holder.close().await;
    intruder
        .call("reconnect", claim_without_secret("reconnect", "holder"))
        .await
        .expect("a secret-less reconnect with a free id is the spec's flow, and accepted");
}
