//! The defects found by probing the host (an attacker's or a broken client's view), one test
//! each. Every test here failed before its fix.

mod common;

use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::*;
use common::*;
use futures_util::SinkExt;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message as WsMessage;

const S: &str = "ahp-session:/hardening";

fn initialize_params(client_id: &str, subs: &[&str]) -> Value {
    json!({"channel": ROOT_CHANNEL, "protocolVersions": [PROTOCOL_VERSION],
        "clientId": client_id, "initialSubscriptions": subs})
}

/// A session with one completed turn, so its snapshot has some weight.
async fn session_with_a_turn(host: &ahp_host::RunningHost, client_id: &str) -> Client {
    let mut c = Client::ready(host, client_id).await;
    c.create_session(S).await;
    c.subscribe(S).await;
    c.send_message(S, "t1", "/long 300").await;
    c.until_turn_end("t1").await;
    c
}

/// Defect 1: duplicate URIs in `initialSubscriptions` / `reconnect.subscriptions` bypassed the
/// subscription limit and each added a full snapshot to the answer.
#[tokio::test]
async fn handshake_channels_are_deduplicated_counted_and_budgeted() {
    let t = start_host_with(|c| {
        c.limits.max_subscriptions = 4;
        // Small, so that a reconnect from seq 0 is answered with snapshots.
        c.limits.replay_entries = 10;
        c.chunk_delay = Duration::ZERO;
    })
    .await;
    let _owner = session_with_a_turn(&t.host, "owner").await;

    let mut c = Client::connect(&t.host, "dup").await;
    let result = c.try_initialize(&[S; 100]).await.unwrap();
    assert_eq!(result.snapshots.len(), 1);

    // Five distinct channels against a limit of four: refused as a whole.
    let mut c = Client::connect(&t.host, "many").await;
    let five = [
        S,
        ROOT_CHANNEL,
        "ahp-session:/a",
        "ahp-session:/b",
        "ahp-session:/c",
    ];
    let e = c
        .expect_error(
            "initialize",
            initialize_params("many", &five),
            errors::INVALID_REQUEST,
        )
        .await;
    assert!(e.message.contains("limit is 4"), "{}", e.message);
    // The connection is still usable and may try again with fewer.
    ping(&mut c).await;
    c.call("initialize", initialize_params("many", &five[..2]))
        .await
        .unwrap();

    // `reconnect` with duplicates: one snapshot.
    let mut r = Client::connect(&t.host, "dup").await;
    let subs: Vec<String> = std::iter::repeat_n(S.to_string(), 50).collect();
    match r.reconnect(0, subs).await.unwrap() {
        jsonrpc::ReconnectResult::Snapshot(s) => assert_eq!(s.snapshots.len(), 1),
        jsonrpc::ReconnectResult::Replay(_) => panic!("a snapshot answer was expected"),
    }
}

/// Defect 1 (budget): the snapshots of one answer stay within the response limit.
#[tokio::test]
async fn one_answer_stays_within_the_response_budget() {
    let t = start_host_with(|c| c.chunk_delay = Duration::ZERO).await;
    let twin = "ahp-session:/twin";
    let mut owner = session_with_a_turn(&t.host, "owner").await;
    owner.create_session(twin).await;
    owner.subscribe(twin).await;
    owner.send_message(twin, "t1", "/long 300").await;
    owner.until_turn_end("t1").await;
    let one_snapshot = serde_json::to_string(&host_state(&t.host, S).await)
        .unwrap()
        .len();
    owner.close().await;
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;

    // The same data, with room for one such snapshot per answer but not two.
    let mut config = ahp_host::Config::local(data.path(), work.path());
    config.token = Some(test_token(data.path()));
    config.limits.max_response_bytes = one_snapshot + one_snapshot / 2;
    let host = ahp_host::start(config).await.unwrap();
    let mut c = Client::connect(&host, "budget").await;
    let e = c
        .expect_error(
            "initialize",
            initialize_params("budget", &[S, twin]),
            errors::INVALID_REQUEST,
        )
        .await;
    assert!(e.message.contains("bytes"), "{}", e.message);
    // The connection stays, and one snapshot at a time fits.
    ping(&mut c).await;
    let result = c
        .call("initialize", initialize_params("budget", &[S]))
        .await
        .unwrap();
    assert_eq!(result["snapshots"].as_array().unwrap().len(), 1);
    c.subscribe(twin).await;
    host.shutdown().await;
}

/// Sends `count` copies of a request without reading, then reads until the host closes the
/// connection; returns how many answers arrived first.
async fn flood_without_reading(c: &mut Client, method: &str, params: Value, count: usize) -> usize {
    for i in 0..count {
        let frame = json!({"jsonrpc": "2.0", "id": 10_000 + i, "method": method, "params": params});
        c.send_text(frame.to_string()).await;
    }
    // Not reading at all until the host gives up on us (reading earlier would let a host slowed
    // down by a loaded machine keep up, and never drop us): a small request every 50 ms until
    // one is refused, which happens once the host has closed the connection (the peer resets).
    let ping = |i: usize| json!({"jsonrpc": "2.0", "id": i, "method": "ping", "params": {}});
    let deadline = Instant::now() + Duration::from_secs(60);
    for i in 20_000.. {
        let sent = c.ws_mut().send(WsMessage::text(ping(i).to_string())).await;
        if sent.is_err() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the host kept a peer that reads nothing"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut answers = 0;
    while let Some(frame) = c.read_frame().await {
        if frame["id"]
            .as_u64()
            .is_some_and(|id| (10_000..20_000).contains(&id))
        {
            answers += 1;
        }
    }
    answers
}

/// Defect 3: the outbound queue was bounded by count only; a peer that never reads could pin
/// hundreds of megabytes with a few large answers.
#[tokio::test]
async fn a_peer_that_does_not_read_is_dropped_by_bytes() {
    // A write timeout far beyond the test: only the byte budget can stop this peer.
    flood_large_reads(2 << 20, Duration::from_secs(600)).await;
}

/// Defect 3 (write timeout): a write that stalls because the peer stopped reading drops it.
#[tokio::test]
async fn a_stalled_write_drops_the_peer() {
    // A byte budget far beyond the test: only the write timeout can stop this peer.
    flood_large_reads(1 << 30, Duration::from_secs(1)).await;
}

/// Asks a host with these outbound limits for sixty 1 MiB files without reading: the host must
/// drop the peer, not buffer it all.
async fn flood_large_reads(outbound_queue_bytes: usize, write_timeout: Duration) {
    let t = start_host_with(|c| {
        c.limits.outbound_queue_bytes = outbound_queue_bytes;
        c.limits.write_timeout = write_timeout;
    })
    .await;
    let big = t.work.path().canonicalize().unwrap().join("big.txt");
    std::fs::write(&big, "x".repeat(1 << 20)).unwrap();
    let mut c = Client::ready(&t.host, "reader").await;
    let params = json!({"channel": ROOT_CHANNEL, "uri": format!("file://{}", big.display())});
    let answers = flood_without_reading(&mut c, "resourceRead", params, 60).await;
    assert!(c.closed);
    assert!(
        answers < 60,
        "all {answers} answers were buffered for a peer that does not read"
    );
    // Everyone else is fine.
    let mut other = Client::ready(&t.host, "other").await;
    ping(&mut other).await;
}

/// Defect 1 (repeated subscribe): re-subscribing resends a snapshot each time; a peer that asks
/// faster than it reads is dropped instead of buffered.
#[tokio::test]
async fn repeated_subscribes_without_reading_are_bounded() {
    let t = start_host_with(|c| {
        c.limits.outbound_queue_bytes = 1 << 20;
        c.limits.write_timeout = Duration::from_secs(2);
        c.chunk_delay = Duration::ZERO;
    })
    .await;
    let _owner = session_with_a_turn(&t.host, "owner").await;
    let mut c = Client::ready(&t.host, "resub").await;
    let answers = flood_without_reading(&mut c, "subscribe", json!({"channel": S}), 3000).await;
    assert!(c.closed);
    assert!(answers < 3000, "all {answers} snapshots were buffered");
}

/// Defect 4: any token holder could initialize with another client's id (read from state),
/// get the victim disconnected and complete its client tool calls.
#[tokio::test]
async fn a_client_id_cannot_be_taken_over_without_its_secret() {
    let t = start_host().await;
    let mut victim = Client::connect(&t.host, "victim").await;
    let result = victim
        .call("initialize", initialize_params("victim", &[ROOT_CHANNEL]))
        .await
        .unwrap();
    let secret = result["clientSecret"]
        .as_str()
        .expect("a secret is issued")
        .to_owned();
    assert!(secret.len() >= 32);

    for presented in [None, Some("wrong-secret-0123456789abcdef")] {
        let mut attacker = Client::connect(&t.host, "victim").await;
        let mut params = initialize_params("victim", &[]);
        if let Some(p) = presented {
            params["clientSecret"] = json!(p);
        }
        // The victim reads meanwhile, as a live client does (it answers the host's ping).
        let e = victim
            .reading_while(attacker.call("initialize", params.clone()))
            .await
            .unwrap_err();
        assert_eq!(e.code, errors::PERMISSION_DENIED, "{e:?}");
        let reconnect = json!({"channel": ROOT_CHANNEL, "clientId": "victim",
            "lastSeenServerSeq": 0, "subscriptions": [], "clientSecret": params["clientSecret"]});
        let e = victim
            .reading_while(attacker.call("reconnect", reconnect))
            .await
            .unwrap_err();
        assert_eq!(e.code, errors::PERMISSION_DENIED, "{e:?}");
    }
    // The victim was not disconnected.
    ping(&mut victim).await;

    // The owner, with its secret, may take its id over (a reconnect before the old socket is
    // noticed dead).
    let mut back = Client::connect(&t.host, "victim").await;
    let mut params = initialize_params("victim", &[]);
    params["clientSecret"] = json!(secret);
    let again = back.call("initialize", params).await.unwrap();
    assert_eq!(again["clientSecret"], json!(secret));
    victim.assert_closed("the old connection is replaced").await;

    // The binding survives a restart.
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut attacker = Client::connect(&host, "victim").await;
    attacker
        .expect_error(
            "initialize",
            initialize_params("victim", &[]),
            errors::PERMISSION_DENIED,
        )
        .await;
    host.shutdown().await;
}

/// Whether the host closes `tcp` within `within` (reads EOF or a reset).
async fn closed_within(tcp: &mut tokio::net::TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, tcp.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue, // e.g. a 408 answer before the close
        }
    }
}

/// Defect 5: incomplete upgrade requests and idle sockets were held for ever, with no cap on
/// connections that have not authenticated.
#[tokio::test]
async fn slow_headers_idle_sockets_and_unauthenticated_crowds_are_bounded() {
    let t = start_host_with(|c| {
        c.limits.header_timeout = Duration::from_millis(500);
        c.limits.max_unauthenticated = 4;
    })
    .await;
    let addr = t.host.addr;
    // An authenticated WebSocket is not counted against the unauthenticated cap.
    let mut real = Client::ready(&t.host, "real").await;

    let mut slowloris = tokio::net::TcpStream::connect(addr).await.unwrap();
    slowloris
        .write_all(b"GET /ahp HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n")
        .await
        .unwrap();
    let mut idle = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut crowd = Vec::new();
    for _ in 0..2 {
        crowd.push(tokio::net::TcpStream::connect(addr).await.unwrap());
    }
    // Four held: a fifth is closed at once.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut fifth = tokio::net::TcpStream::connect(addr).await.unwrap();
    assert!(
        closed_within(&mut fifth, Duration::from_millis(300)).await,
        "a connection over the unauthenticated cap was kept"
    );
    assert!(closed_within(&mut slowloris, Duration::from_secs(3)).await);
    assert!(closed_within(&mut idle, Duration::from_secs(3)).await);
    ping(&mut real).await;
    // Once they are gone, new clients get in.
    let mut late = Client::ready(&t.host, "late").await;
    ping(&mut late).await;
}

/// Defect 6: an existing file outside the working directory answered -32009 and a missing one
/// -32008, an oracle for the rest of the file system.
#[tokio::test]
async fn outside_paths_get_one_answer_whatever_exists_there() {
    let t = start_host().await;
    let root = t.work.path().canonicalize().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let outside = outside.path().canonicalize().unwrap();
    std::fs::write(outside.join("exists.txt"), "secret").unwrap();
    std::fs::create_dir(outside.join("dir")).unwrap();
    let uri = |p: &std::path::Path| format!("file://{}", p.display());
    let via_dots = |name: &str| {
        format!(
            "file://{}/../{}/{name}",
            root.display(),
            outside.strip_prefix("/").unwrap().display()
        )
    };
    let mut c = Client::ready(&t.host, "oracle").await;
    let pairs = [
        (
            "resourceRead",
            uri(&outside.join("exists.txt")),
            uri(&outside.join("missing.txt")),
        ),
        (
            "resourceRead",
            via_dots("exists.txt"),
            via_dots("missing.txt"),
        ),
        (
            "resourceList",
            uri(&outside.join("dir")),
            uri(&outside.join("nodir")),
        ),
        (
            "resourceWrite",
            uri(&outside.join("dir/new.txt")),
            uri(&outside.join("nodir/new.txt")),
        ),
    ];
    for (method, existing, missing) in pairs {
        let answer = |target: String| {
            let params =
                json!({"channel": ROOT_CHANNEL, "uri": target, "data": "x", "encoding": "utf-8"});
            (method, params)
        };
        let (m, p) = answer(existing.clone());
        let a = c.call(m, p).await.unwrap_err();
        let (m, p) = answer(missing.clone());
        let b = c.call(m, p).await.unwrap_err();
        assert_eq!(
            a.code,
            errors::PERMISSION_DENIED,
            "{method} {existing}: {a:?}"
        );
        assert_eq!(
            (a.code, &a.message),
            (b.code, &b.message),
            "{method}: {existing} vs {missing}"
        );
    }
    // Inside, a missing file is still "not found".
    c.expect_error(
        "resourceRead",
        json!({"channel": ROOT_CHANNEL, "uri": uri(&root.join("nope.txt"))}),
        errors::NOT_FOUND,
    )
    .await;
}

/// Defect 7: `resourceRead` of a FIFO blocked in `open()` for ever and the connection stopped
/// answering, even `ping`.
#[tokio::test]
async fn a_fifo_is_answered_not_waited_on() {
    let t = start_host().await;
    let fifo = t.work.path().canonicalize().unwrap().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let uri = format!("file://{}", fifo.display());
    let mut c = Client::ready(&t.host, "fifo").await;
    for method in ["resourceRead", "resourceWrite"] {
        let call = c.call(
            method,
            json!({"channel": ROOT_CHANNEL, "uri": uri, "data": "x", "encoding": "utf-8"}),
        );
        let e = tokio::time::timeout(Duration::from_secs(5), call)
            .await
            .unwrap_or_else(|_| panic!("{method} of a FIFO hangs"))
            .unwrap_err();
        assert_eq!(e.code, errors::INVALID_PARAMS, "{method}: {e:?}");
        assert!(e.message.contains("regular file"), "{}", e.message);
    }
    ping(&mut c).await;
}

/// A request whose `method` is not a string got its error with `id: null`.
#[tokio::test]
async fn a_bad_method_is_answered_with_the_request_id() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "bad-method").await;
    c.send_text(r#"{"jsonrpc":"2.0","id":4242,"method":17,"params":{}}"#)
        .await;
    let frame = next_error(&mut c).await;
    assert_eq!(frame["id"], json!(4242), "{frame}");
    assert_eq!(frame["error"]["code"], errors::INVALID_REQUEST);
}

/// Database files were created 0644 when the data directory already existed.
#[cfg(unix)]
#[tokio::test]
async fn database_files_are_private_in_an_existing_data_dir() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::set_permissions(data.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut config = ahp_host::Config::local(data.path(), work.path());
    config.token = Some(test_token(data.path()));
    let host = ahp_host::start(config).await.unwrap();
    let mut c = Client::ready(&host, "perm").await;
    c.create_session(S).await;
    let mut checked = 0;
    for entry in std::fs::read_dir(data.path()).unwrap() {
        let entry = entry.unwrap();
        let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{:?} is {mode:o}", entry.file_name());
        checked += 1;
    }
    assert!(checked >= 2, "the database and its WAL");
    host.shutdown().await;
}

/// There was no cap on sessions per host or on the turns one session stores.
#[tokio::test]
async fn sessions_and_stored_turn_bytes_are_capped() {
    let t = start_host_with(|c| {
        c.limits.max_sessions = 2;
        c.limits.max_session_bytes = 4096;
    })
    .await;
    let mut c = Client::ready(&t.host, "caps").await;
    c.create_session("ahp-session:/one").await;
    c.create_session(S).await;
    let e = c
        .expect_error(
            "createSession",
            json!({"channel": "ahp-session:/three"}),
            errors::INVALID_REQUEST,
        )
        .await;
    assert!(e.message.contains("at most 2 sessions"), "{}", e.message);

    c.subscribe(S).await;
    let mut n = 0;
    let reason = loop {
        n += 1;
        assert!(n < 50, "the session never filled up");
        let turn = format!("t{n}");
        c.send_message(S, &turn, &"words ".repeat(200)).await;
        let first = c.envelope().await;
        if let Some(reason) = first.rejection_reason {
            break reason;
        }
        c.until_turn_end(&turn).await;
    };
    assert!(reason.contains("session is full"), "{reason}");
    // Other sessions still take messages.
    c.subscribe("ahp-session:/one").await;
    c.send_message("ahp-session:/one", "x1", "hello").await;
    c.until_turn_end("x1").await;
}
