//! `reconnect`: replay from the buffer, snapshots beyond it, missing channels.

mod common;

use ahp_wasm::protocol::jsonrpc::{ReconnectResult, ROOT_CHANNEL};
use common::*;
use std::time::Duration;

const S: &str = "ahp-session:/reconnect";

#[tokio::test]
async fn dropped_mid_stream_then_replayed_to_the_hosts_state() {
    let t = start_host_with(|c| c.chunk_delay = Duration::from_millis(3)).await;
    let (mut a, mut mirror) = Client::with_new_session(&t.host, "rc", S).await;
    a.send_message(S, "t1", "/long 60").await;
    let mut seen = Vec::new();
    while seen.len() < 20 {
        let e = a.envelope().await;
        if e.channel == S {
            seen.push(e);
        }
    }
    let last_seen = seen.last().unwrap().server_seq;
    reduce_all(&mut mirror, &seen);
    // The stream goes on without us: the next envelope is lost with the transport, so the gap
    // is real.
    while a.envelope().await.channel != S {}
    drop(a); // the transport drops mid-stream

    let mut b = Client::connect(&t.host, "rc").await;
    let result = b
        .reconnect(last_seen, vec![S.into(), "ahp-session:/gone".into()])
        .await
        .unwrap();
    let ReconnectResult::Replay(replay) = result else {
        panic!("replay expected")
    };
    assert_eq!(replay.missing, vec!["ahp-session:/gone".to_string()]);
    assert!(!replay.actions.is_empty());
    assert_eq!(
        replay.actions[0].server_seq,
        last_seen + 1,
        "no gap, no duplicate"
    );
    assert!(replay.actions.iter().all(|e| e.channel == S));
    assert!(replay
        .actions
        .windows(2)
        .all(|w| w[0].server_seq < w[1].server_seq));
    reduce_all(&mut mirror, &replay.actions);
    let mut last = replay.actions.last().unwrap().server_seq;
    if !replay.actions.iter().any(|e| ends_turn(e, "t1")) {
        let live = b.until_turn_end("t1").await;
        assert!(
            live[0].server_seq > last,
            "live envelopes continue after the replay"
        );
        last = live.last().unwrap().server_seq;
        reduce_all(&mut mirror, &live);
    }
    assert!(last > last_seen);
    let host = host_state(&t.host, S).await;
    assert_eq!(comparable(&mirror), comparable(&host));
    assert!(markdown(&host.turns[0].response_parts).contains("Line 60 of 60"));
}

#[tokio::test]
async fn a_gap_beyond_the_buffer_gets_snapshots() {
    let t = start_host_with(|c| c.limits.replay_entries = 8).await;
    let mut a = Client::in_new_session(&t.host, "gap", S).await;
    let first = a.envelope().await.server_seq;
    a.send_message(S, "t1", "/long 30").await;
    a.until_turn_end("t1").await;
    a.close().await;
    let mut b = Client::connect(&t.host, "gap").await;
    let result = b
        .reconnect(first, vec![ROOT_CHANNEL.into(), S.into()])
        .await
        .unwrap();
    let ReconnectResult::Snapshot(snap) = result else {
        panic!("snapshot expected")
    };
    assert_eq!(snap.snapshots.len(), 2);
    let state = session_state(&snap.snapshots[1]);
    assert_eq!(state.turns.len(), 1);
    assert_eq!(
        comparable(&state),
        comparable(&host_state(&t.host, S).await)
    );
    // The reconnected client is initialized and subscribed: it can work on.
    b.send_message(S, "t2", "hi").await;
    b.until_turn_end("t2").await;
}

#[tokio::test]
async fn replaying_a_10k_action_gap_is_fast() {
    let t = start_host_with(|c| c.chunk_delay = Duration::ZERO).await;
    let mut a = Client::in_new_session(&t.host, "big", S).await;
    let start = a.envelope().await.server_seq;
    a.close().await;
    // Another client drives a 10,000-delta turn nobody else watches.
    let mut driver = Client::ready(&t.host, "driver").await;
    driver.subscribe(S).await;
    driver.send_message(S, "t1", "/long 3400").await;
    driver.until_turn_end("t1").await;
    let mut b = Client::connect(&t.host, "big").await;
    let begin = std::time::Instant::now();
    let result = b.reconnect(start, vec![S.into()]).await.unwrap();
    let elapsed = begin.elapsed();
    let ReconnectResult::Replay(replay) = result else {
        panic!("replay expected")
    };
    assert!(replay.actions.len() > 10_000, "{}", replay.actions.len());
    // Generous for a debug build on a shared 2-core machine; the release target is < 100 ms.
    assert!(elapsed < Duration::from_secs(5), "replay took {elapsed:?}");
    eprintln!(
        "replayed {} envelopes in {elapsed:?} (debug build)",
        replay.actions.len()
    );
}
