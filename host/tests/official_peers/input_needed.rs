//! The session's `inputNeeded` roll-up, followed by the official 1.0 client watching the
//! session alone: a tool call awaiting confirmation in the default chat and an `/ask` in a
//! second chat show up as entries naming their chat, are answered on that chat without a
//! subscription to it, and leave; a disposed chat takes its entries along. The session's
//! activity is its default chat's, or a chat's that needs input. Reduced by the official
//! reducers, the session then equals the host's snapshot.

use super::*;

/// Applies events to `mirror` until `done` holds of it.
async fn until(
    mirror: &mut Mirror,
    events: &mut ClientEventStream,
    what: &str,
    done: impl Fn(&Mirror) -> bool,
) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !done(mirror) {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .unwrap_or_else(|_| panic!("timed out waiting for {what}: {:?}", entries(mirror)))
            .expect("connected");
        mirror.apply(&event);
    }
}

/// The session's `inputNeeded` entries, as JSON.
fn entries(mirror: &Mirror) -> Vec<Value> {
    let entries = serde_json::to_value(&mirror.sessions[S].input_needed).unwrap();
    entries.as_array().cloned().unwrap_or_default()
}

/// `SessionStatus.InputNeeded` (it includes the `InProgress` bit).
const INPUT_NEEDED: u32 = 24;

#[tokio::test]
async fn the_session_lists_what_its_chats_wait_for_and_the_official_client_answers_there() {
    let t = start_host().await;
    let client = connect_v1(&t, "needs-a").await;
    let _: Value = client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let mut events = client.events();
    let mut mirror = Mirror::subscribe(&client, &[S], &[]).await;
    mirror.settle(&mut events).await;
    assert!(entries(&mirror).is_empty());

    // A tool call awaiting confirmation in the default chat, which the client never subscribes.
    client
        .dispatch(C.into(), turn_started("t1", "/tool list"))
        .await
        .expect("dispatch");
    until(&mut mirror, &mut events, "a tool confirmation", |m| {
        entries(m).len() == 1
    })
    .await;
    let entry = entries(&mirror).remove(0);
    assert_eq!(entry["kind"], "toolConfirmation", "{entry}");
    assert_eq!(entry["chat"], C, "{entry}");
    assert_eq!(entry["turnId"], "t1", "{entry}");
    assert_eq!(
        entry["toolCall"]["status"], "pending-confirmation",
        "{entry}"
    );
    assert_eq!(mirror.sessions[S].status & INPUT_NEEDED, INPUT_NEEDED);
    // Answered on its chat from the entry alone; the entry leaves.
    let confirmed = json!({"type": "chat/toolCallConfirmed", "turnId": "t1",
        "toolCallId": entry["toolCall"]["toolCallId"], "approved": true});
    client
        .dispatch(C.into(), serde_json::from_value(confirmed).unwrap())
        .await
        .expect("dispatch");
    until(&mut mirror, &mut events, "the entry answered", |m| {
        entries(m).is_empty()
    })
    .await;
    assert_ne!(mirror.sessions[S].status & INPUT_NEEDED, INPUT_NEEDED);

    // An `/ask` in a second chat: its entry names that chat; the chat disposed of, it leaves.
    const C2: &str = "ahp-chat:/needs-second";
    let _: Value = client
        .request("createChat", json!({"channel": S, "chat": C2}))
        .await
        .expect("createChat");
    client
        .dispatch(C2.into(), turn_started("t2", "/ask Your name?"))
        .await
        .expect("dispatch");
    until(
        &mut mirror,
        &mut events,
        "the second chat's question",
        |m| entries(m).len() == 1,
    )
    .await;
    let entry = entries(&mirror).remove(0);
    assert_eq!(entry["kind"], "chatInput", "{entry}");
    assert_eq!(entry["chat"], C2, "{entry}");
    assert_eq!(mirror.sessions[S].status & INPUT_NEEDED, INPUT_NEEDED);
    let _: Value = client
        .request("disposeChat", json!({"channel": C2}))
        .await
        .expect("disposeChat");
    until(
        &mut mirror,
        &mut events,
        "the disposed chat's entry gone",
        |m| entries(m).is_empty(),
    )
    .await;
    mirror.settle(&mut events).await;

    let fresh = connect_v1(&t, "needs-fresh").await;
    mirror.assert_hosts(&fresh).await;
    client.shutdown().await;
    fresh.shutdown().await;
}

/// Dispatches `chat/activityChanged` on `chat`.
async fn set_activity(client: &Client, chat: &str, activity: &str) {
    let action = json!({"type": "chat/activityChanged", "activity": activity});
    client
        .dispatch(chat.into(), serde_json::from_value(action).unwrap())
        .await
        .expect("dispatch");
}

#[tokio::test]
async fn the_session_activity_is_its_default_chats_or_the_one_needing_input() {
    let t = start_host().await;
    let client = connect_v1(&t, "activity-a").await;
    let _: Value = client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let mut events = client.events();
    let mut mirror = Mirror::subscribe(&client, &[S], &[]).await;
    mirror.settle(&mut events).await;
    let activity = |m: &Mirror| m.sessions[S].activity.clone();

    set_activity(&client, C, "Reviewing").await;
    until(
        &mut mirror,
        &mut events,
        "the default chat's activity",
        |m| activity(m).as_deref() == Some("Reviewing"),
    )
    .await;

    // A second chat's own activity does not win until it needs input.
    const C2: &str = "ahp-chat:/activity-second";
    let _: Value = client
        .request("createChat", json!({"channel": S, "chat": C2}))
        .await
        .expect("createChat");
    set_activity(&client, C2, "Asking").await;
    mirror.settle(&mut events).await;
    assert_eq!(activity(&mirror).as_deref(), Some("Reviewing"));
    client
        .dispatch(C2.into(), turn_started("t1", "/ask Your name?"))
        .await
        .expect("dispatch");
    until(
        &mut mirror,
        &mut events,
        "the asking chat's activity",
        |m| activity(m).as_deref() == Some("Asking"),
    )
    .await;
    // Gone with its chat: the default chat's again.
    let _: Value = client
        .request("disposeChat", json!({"channel": C2}))
        .await
        .expect("disposeChat");
    until(
        &mut mirror,
        &mut events,
        "the default chat's activity again",
        |m| activity(m).as_deref() == Some("Reviewing"),
    )
    .await;
    mirror.settle(&mut events).await;
    let fresh = connect_v1(&t, "activity-fresh").await;
    mirror.assert_hosts(&fresh).await;
    client.shutdown().await;
    fresh.shutdown().await;
}
