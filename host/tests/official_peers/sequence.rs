//! The whole sequence with the official 1.0 client, and an official 0.3.0 client on the same
//! session.

use super::strict::assert_strict;
use super::*;
use ahp_types_v1::commands as cmd;
use v1_support::WsTransport;

#[tokio::test]
async fn the_official_1_0_client_runs_two_chats_and_a_reconnect_to_the_hosts_state() {
    const C2: &str = "ahp-chat:/peers/second";
    let t = start_host().await;
    let (client, checked) = connect(&t).await;
    let init = client
        .initialize("peers-sequence".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    assert_eq!(init.protocol_version, "1.0.0");
    let _: Value = client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let mut mirror = Mirror::subscribe(&client, &[S], &[C]).await;
    let session = serde_json::to_value(&mirror.sessions[S]).unwrap();
    assert_eq!(session["defaultChat"], C, "{session}");
    assert_eq!(session["lifecycle"], "ready", "{session}");
    let mut events = client.events();
    client
        .dispatch(C.into(), turn_started("t1", "In the default chat"))
        .await
        .expect("dispatch");
    until_turn_complete(&mut mirror, &mut events, "t1").await;

    // A second chat, and a turn in it.
    let _: Value = client
        .request("createChat", json!({"channel": S, "chat": C2}))
        .await
        .expect("createChat");
    mirror.add(&client, C2).await;
    client
        .dispatch(C2.into(), turn_started("c2-t1", "In the second chat"))
        .await
        .expect("dispatch");
    until_turn_complete(&mut mirror, &mut events, "c2-t1").await;
    mirror.settle(&mut events).await;
    assert_eq!(mirror.chat_uris(S), [C, C2]);
    assert_strict(&checked, 10);
    client.shutdown().await;

    // While it is away, another client runs a turn in the second chat.
    let (other, other_checked) = connect(&t).await;
    other
        .initialize("peers-other".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    let mut others = Mirror::subscribe(&other, &[S], &[C2]).await;
    let mut other_events = other.events();
    other
        .dispatch(
            C2.into(),
            turn_started("c2-t2", "While the first client is away"),
        )
        .await
        .expect("dispatch");
    until_turn_complete(&mut others, &mut other_events, "c2-t2").await;
    others.settle(&mut other_events).await;

    // The reconnect brings what it missed, as a replay or as snapshots.
    let (again, again_checked) = connect(&t).await;
    let mut events = again.events();
    let last_seen = i64::try_from(mirror.last_seq).unwrap();
    let subscriptions = [ROOT, S, C, C2].map(String::from).to_vec();
    let reconnected = again
        .reconnect("peers-sequence".into(), last_seen, subscriptions)
        .await
        .expect("reconnect");
    match reconnected {
        cmd::ReconnectResult::Replay(replay) => {
            assert!(replay.missing.is_empty(), "{:?}", replay.missing);
            assert!(!replay.actions.is_empty(), "the other client's turn");
            for envelope in &replay.actions {
                mirror.apply_envelope(envelope);
            }
        }
        cmd::ReconnectResult::Snapshot(snapshots) => {
            assert_eq!(snapshots.snapshots.len(), 4);
            for snapshot in snapshots.snapshots {
                mirror.replace(snapshot);
            }
        }
    }
    let turns = |mirror: &Mirror, chat: &str| -> Vec<String> {
        let turns = &mirror.chats[chat].turns;
        turns.iter().map(|t| t.id.clone()).collect()
    };
    assert_eq!(turns(&mirror, C2), ["c2-t1", "c2-t2"]);
    again
        .dispatch(C.into(), turn_started("t2", "After the reconnect"))
        .await
        .expect("dispatch");
    until_turn_complete(&mut mirror, &mut events, "t2").await;
    mirror.settle(&mut events).await;
    assert_eq!(turns(&mirror, C), ["t1", "t2"]);

    // The official mirror is the host's state: fresh snapshots of root, session and both
    // chats on another connection.
    let (fresh, fresh_checked) = connect(&t).await;
    fresh
        .initialize("peers-sequence-fresh".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    assert_eq!(mirror.json().len(), 4);
    mirror.assert_hosts(&fresh).await;
    for checked in [&checked, &other_checked, &again_checked, &fresh_checked] {
        assert_strict(checked, 3);
    }
    for client in [other, again, fresh] {
        client.shutdown().await;
    }
}

/// The text of each turn's user message in a 0.3.0 session state (JSON).
fn user_texts_v03(state: &Value) -> Vec<String> {
    let turns = state["turns"].as_array().cloned().unwrap_or_default();
    turns
        .iter()
        .map(|t| t["message"]["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn an_official_0_3_0_client_sees_the_default_chat_of_a_1_0_clients_session() {
    let t = start_host().await;
    let (v1_client, checked) = connect(&t).await;
    v1_client
        .initialize("peers-v1".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    let _: Value = v1_client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let mut mirror = Mirror::subscribe(&v1_client, &[S], &[C]).await;
    let mut events = v1_client.events();
    v1_client
        .dispatch(C.into(), turn_started("t1", "From the 1.0 client"))
        .await
        .expect("dispatch");
    until_turn_complete(&mut mirror, &mut events, "t1").await;

    // The official 0.3.0 client: the session is the default chat, with the 1.0 client's turn.
    let (ws, _) = tokio_tungstenite::connect_async(url_with_token(&t.host))
        .await
        .unwrap();
    let old = ahp::Client::connect(WsTransport(ws), ahp::ClientConfig::default())
        .await
        .expect("connected");
    let init = old
        .initialize("peers-v03".into(), vec!["0.3.0".into()], vec![])
        .await
        .expect("initialize");
    assert_eq!(init.protocol_version, "0.3.0");
    let (subscribed, mut sub) = old.subscribe(S.into()).await.expect("subscribe");
    let ahp_types::state::SnapshotState::Session(mut state) =
        subscribed.snapshot.expect("a snapshot").state
    else {
        panic!("a 0.3.0 session snapshot expected");
    };
    let seen = serde_json::to_value(&state).unwrap();
    assert_eq!(user_texts_v03(&seen), ["From the 1.0 client"], "{seen}");

    // Its turn lands in the 1.0 client's default chat; both mirrors end as the host's.
    let action: ahp_types::actions::StateAction = serde_json::from_value(json!({
        "type": "session/turnStarted", "turnId": "t2",
        "message": {"text": "From the 0.3.0 client", "origin": {"kind": "user"}}}))
    .expect("an official 0.3.0 action");
    old.dispatch(S.into(), action).await.expect("dispatch");
    until_turn_complete(&mut mirror, &mut events, "t2").await;
    mirror.settle(&mut events).await;
    loop {
        let event = tokio::time::timeout(WAIT, sub.recv())
            .await
            .expect("an envelope within the timeout")
            .expect("subscribed");
        let ahp::SubscriptionEvent::Action(envelope) = event else {
            continue;
        };
        ahp::apply_action_to_session(&mut state, &envelope.action);
        let action = serde_json::to_value(&envelope.action).unwrap();
        if action["type"] == "session/turnComplete" && action["turnId"] == "t2" {
            break;
        }
    }
    let seen = serde_json::to_value(&state).unwrap();
    assert_eq!(
        user_texts_v03(&seen),
        ["From the 1.0 client", "From the 0.3.0 client"]
    );
    let texts: Vec<_> = mirror.chats[C]
        .turns
        .iter()
        .map(|t| t.message.text.clone())
        .collect();
    assert_eq!(texts, ["From the 1.0 client", "From the 0.3.0 client"]);
    let fresh = connect_v1(&t, "peers-fresh").await;
    mirror.assert_hosts(&fresh).await;
    assert_strict(&checked, 10);
    v1_client.shutdown().await;
    old.shutdown().await;
    fresh.shutdown().await;
}
