//! `reconnect` of the official 1.0 client answered with a replay while the host still holds
//! every 1.0 envelope it missed; snapshots when it does not (too long away, a restart).

use super::*;
use ahp_types_v1::commands as cmd;

const ALL: [&str; 3] = [ROOT, S, C];

/// Collects envelopes from `events` until turn `turn_id` completed and none came for a while
/// (the session's entry of the chat follows the turn's end).
async fn follow_turn(events: &mut ClientEventStream, turn_id: &str, seen: &mut Vec<Value>) {
    let mut done = false;
    loop {
        let wait = if done {
            Duration::from_millis(500)
        } else {
            WAIT
        };
        let Ok(event) = tokio::time::timeout(wait, events.recv()).await else {
            assert!(done, "turn {turn_id} did not complete within the timeout");
            return;
        };
        if let SubscriptionEvent::Action(envelope) = &event.expect("connected").event {
            seen.push(serde_json::to_value(envelope).unwrap());
            let action = serde_json::to_value(&envelope.action).unwrap();
            done |= action["type"] == "chat/turnComplete" && action["turnId"] == turn_id;
        }
    }
}

/// A 1.0 client `client_id` with a new session, mirroring it, its default chat and the root
/// (settled: nothing more is coming).
async fn with_session(t: &TestHost, client_id: &str) -> (Client, Mirror, ClientEventStream) {
    let client = connect_v1(t, client_id).await;
    let _: Value = client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut events = client.events();
    let mut mirror = Mirror::subscribe(&client, &[S], &[C]).await;
    mirror.settle(&mut events).await;
    (client, mirror, events)
}

/// The client runs turn `turn_id` in the default chat (its mirror left as it was), then
/// leaves; the envelopes it got.
async fn runs_and_leaves(
    client: Client,
    mut events: ClientEventStream,
    turn_id: &str,
) -> Vec<Value> {
    let mut seen = Vec::new();
    client
        .dispatch(C.into(), turn_started(turn_id, "A turn"))
        .await
        .expect("dispatch");
    follow_turn(&mut events, turn_id, &mut seen).await;
    client.shutdown().await;
    seen
}

/// Another client runs turn `turn_id` in the default chat; the envelopes it got.
async fn another_runs(t: &TestHost, client_id: &str, turn_id: &str) -> Vec<Value> {
    let other = connect_v1(t, client_id).await;
    let events = other.events();
    let _ = Mirror::subscribe(&other, &[S], &[C]).await;
    runs_and_leaves(other, events, turn_id).await
}

async fn reconnect(
    t: &TestHost,
    client_id: &str,
    last_seen: u64,
    subs: &[&str],
) -> (Client, cmd::ReconnectResult) {
    let (again, _) = connect(t).await;
    let subs = subs.iter().map(|s| s.to_string()).collect();
    let result = again
        .reconnect(client_id.into(), i64::try_from(last_seen).unwrap(), subs)
        .await
        .expect("reconnect");
    (again, result)
}

#[tokio::test]
async fn a_1_0_reconnect_replays_exactly_the_missed_envelopes_own_ones_with_their_origin() {
    let t = start_host().await;
    let (client, mut mirror, events) = with_session(&t, "replay-a").await;
    let last_seen = mirror.last_seq;

    // Its own turn after `last_seen`: it sees its echo (with `origin`), then leaves; another
    // client runs a turn while it is away.
    let mut seen = runs_and_leaves(client, events, "t1").await;
    let own = seen
        .iter()
        .find(|e| e["action"]["type"] == "chat/turnStarted")
        .expect("its echo")
        .clone();
    assert_eq!(own["origin"]["clientId"], "replay-a", "{own}");
    seen.extend(another_runs(&t, "replay-b", "t2").await);

    // Everything after `last_seen` on its channels, in order, as sent (the same host frames
    // both clients got).
    let (again, result) = reconnect(&t, "replay-a", last_seen, &ALL).await;
    let (replay, actions) = complete_replay(result);
    let mut expected: Vec<Value> = seen
        .into_iter()
        .filter(|e| e["serverSeq"].as_u64().unwrap() > last_seen)
        .collect();
    expected.sort_by_key(|e| e["serverSeq"].as_u64().unwrap());
    expected.dedup();
    assert_eq!(actions, expected);
    assert!(actions.contains(&own), "its own echo, with origin");

    // Applied by the official reducers, the mirror is the host's state.
    for envelope in &replay.actions {
        mirror.apply_envelope(envelope);
    }
    let turns: Vec<&str> = mirror.chats[C]
        .turns
        .iter()
        .map(|t| t.id.as_str())
        .collect();
    assert_eq!(turns, ["t1", "t2"]);
    let fresh = connect_v1(&t, "replay-fresh").await;
    mirror.assert_hosts(&fresh).await;
    again.shutdown().await;
    fresh.shutdown().await;
}

/// `result` as a replay that misses none of the channels asked for, with its envelopes as JSON.
fn complete_replay(result: cmd::ReconnectResult) -> (cmd::ReconnectReplayResult, Vec<Value>) {
    let cmd::ReconnectResult::Replay(replay) = result else {
        panic!("a replay expected: {result:?}");
    };
    assert!(replay.missing.is_empty(), "{:?}", replay.missing);
    let actions = replay
        .actions
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    (replay, actions)
}

/// Snapshots of `result`'s channels, in order.
fn snapshot_channels(result: cmd::ReconnectResult) -> Vec<String> {
    let cmd::ReconnectResult::Snapshot(snapshots) = result else {
        panic!("snapshots expected: {result:?}");
    };
    snapshots
        .snapshots
        .into_iter()
        .map(|s| s.resource)
        .collect()
}

#[tokio::test]
async fn a_1_0_reconnect_beyond_the_ring_gets_snapshots() {
    // Room for a few envelopes: a turn sends more.
    let t = start_host_with(|c| c.limits.replay_entries = 4).await;
    let (client, mirror, events) = with_session(&t, "ring-a").await;
    let last_seen = mirror.last_seq;
    let seen = runs_and_leaves(client, events, "t1").await;
    assert!(seen.len() > 4, "{seen:?}");
    let (again, result) = reconnect(&t, "ring-a", last_seen, &ALL).await;
    assert_eq!(snapshot_channels(result), ALL);
    again.shutdown().await;

    // Within the ring (nothing missed since the last envelope): a replay, even so small.
    let last = seen.last().unwrap()["serverSeq"].as_u64().unwrap();
    let (again, result) = reconnect(&t, "ring-a", last, &ALL).await;
    let cmd::ReconnectResult::Replay(replay) = result else {
        panic!("a replay expected: {result:?}");
    };
    assert!(replay.actions.is_empty(), "{:?}", replay.actions);
    again.shutdown().await;
}

#[tokio::test]
async fn a_1_0_reconnect_after_a_restart_gets_snapshots() {
    let t = start_host().await;
    let (client, mirror, events) = with_session(&t, "restart-a").await;
    let seen = runs_and_leaves(client, events, "t1").await;
    let last = seen.last().unwrap()["serverSeq"].as_u64().unwrap();
    assert!(last > mirror.last_seq);
    let TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let t = TestHost { host, data, work };
    // Even with everything seen: the state loaded is not replayable.
    let (again, result) = reconnect(&t, "restart-a", last, &ALL).await;
    assert_eq!(snapshot_channels(result), ALL);
    again.shutdown().await;
}

#[tokio::test]
async fn a_session_disposed_while_away_is_missing_from_the_replay() {
    let t = start_host().await;
    let (client, mirror, _events) = with_session(&t, "gone-a").await;
    let last_seen = mirror.last_seq;
    client.shutdown().await;
    let other = connect_v1(&t, "gone-b").await;
    let _: Value = other
        .request("disposeSession", json!({"channel": S}))
        .await
        .expect("disposeSession");
    other.shutdown().await;
    let (again, result) = reconnect(&t, "gone-a", last_seen, &ALL).await;
    let cmd::ReconnectResult::Replay(replay) = result else {
        panic!("a replay expected: {result:?}");
    };
    assert_eq!(replay.missing, [S, C]);
    // What the root saw of it (the session removed), and nothing of the gone channels.
    let channels: Vec<&str> = replay.actions.iter().map(|e| e.channel.as_str()).collect();
    assert!(channels.iter().all(|&c| c == ROOT), "{channels:?}");
    again.shutdown().await;
}

#[tokio::test]
async fn a_1_0_reconnect_replays_a_terminals_output_in_1_0_form() {
    const T: &str = "ahp-terminal:/replayed";
    let t = start_host().await;
    let (client, _mirror, _events) = with_session(&t, "term-a").await;
    let claim = json!({"kind": "session", "session": S, "chat": C});
    let _: Value = client
        .request(
            "createTerminal",
            json!({"channel": T, "claim": claim, "name": "replayed"}),
        )
        .await
        .expect("createTerminal");
    let last_seen = u64::try_from(snapshot(&client, T).await.from_seq).unwrap();
    let input = json!({"type": "terminal/input", "data": "echo replayed-$((20+1))\n"});
    client
        .dispatch(T.into(), serde_json::from_value(input).unwrap())
        .await
        .expect("dispatch");
    client.shutdown().await;

    // The shell answers while the client is away: a reconnect replays the output as 1.0
    // `terminal/data` (decoded by the official client), every envelope on the terminal.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (again, result) = reconnect(&t, "term-a", last_seen, &[T]).await;
        again.shutdown().await;
        let (_, actions) = complete_replay(result);
        assert!(actions.iter().all(|e| e["channel"] == T), "{actions:?}");
        let shown = actions.iter().any(|e| {
            e["action"]["type"] == "terminal/data"
                && e["action"]["data"]
                    .as_str()
                    .is_some_and(|d| d.contains("replayed-21"))
        });
        if shown {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no output replayed: {actions:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
