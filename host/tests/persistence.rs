//! Persistence: a real `ahp-host` process is killed with SIGKILL and restarted on the same data
//! directory; everything it acknowledged is still there.

mod common;

use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::*;
use common::*;

const TOKEN: &str = "persistence-test-token-0123456789";

fn spawn_host(data: &std::path::Path, work: &std::path::Path) -> HostProcess {
    HostProcess::spawn(data, work, TOKEN, &["--chunk-delay-ms", "1"])
}

#[tokio::test]
async fn kill_9_and_restart_loses_nothing_acknowledged() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let host = spawn_host(data.path(), work.path());
    let mut c = Client::connect_url(&host.url(), "p1").await;
    c.initialize(&[ROOT_CHANNEL]).await;

    let sessions = ["ahp-session:/p-a", "ahp-session:/p-b", "ahp-session:/p-c"];
    for (i, s) in sessions.iter().enumerate() {
        c.create_session(s).await;
        c.subscribe(s).await;
        for n in 0..=i {
            let turn = format!("{s}-t{n}");
            c.send_message(s, &turn, &format!("/title Session {i}\nmessage {n}"))
                .await;
            c.until_turn_end(&turn).await;
        }
    }
    let before = c.list_sessions().await;

    // A long turn in flight: kill the host right after some deltas arrived.
    let live = sessions[0];
    let mut mirror = session_state(&c.subscribe(live).await);
    c.send_message(live, "inflight", "/long 5000").await;
    let mut seen = Vec::new();
    while seen
        .iter()
        .filter(|e: &&ActionEnvelope| matches!(e.action, StateAction::SessionDelta(_)))
        .count()
        < 40
    {
        let e = c.envelope().await;
        if e.channel == live {
            seen.push(e);
        }
    }
    host.kill_9();
    reduce_all(&mut mirror, &seen);
    let acknowledged = markdown(&mirror.active_turn.as_ref().unwrap().response_parts);
    assert!(!acknowledged.is_empty());

    let host = spawn_host(data.path(), work.path());
    let mut c = Client::connect_url(&host.url(), "p1").await;
    c.initialize(&[]).await;
    let after = c.list_sessions().await;
    let strip = |items: &[SessionSummary]| -> Vec<(String, String)> {
        items
            .iter()
            .map(|s| (s.resource.clone(), s.title.clone()))
            .collect()
    };
    assert_eq!(strip(&after.items), strip(&before.items));
    assert_eq!(after.items[1].title, "Session 1");

    for (i, s) in sessions.iter().enumerate() {
        let page = c.fetch_turns(s, None, 100.0).await;
        let expected = if i == 0 { 2 } else { i + 1 };
        assert_eq!(page.turns.len(), expected, "{s}");
        assert!(page
            .turns
            .iter()
            .take(i + 1)
            .all(|t| t.state == TurnState::Complete));
    }
    // The interrupted turn was failed at restart and holds every delta a client had seen.
    let state = session_state(&c.subscribe(live).await);
    assert!(state.active_turn.is_none());
    let interrupted = state.turns.last().unwrap();
    assert_eq!(interrupted.id, "inflight");
    assert_eq!(interrupted.state, TurnState::Error);
    let stored = markdown(&interrupted.response_parts);
    assert!(
        stored.starts_with(&acknowledged),
        "acknowledged text lost:\n{acknowledged}\n---\n{stored}"
    );

    // The restarted host keeps serving: a new turn works and serverSeq kept increasing.
    let seq_before = seen.last().unwrap().server_seq;
    c.send_message(live, "again", "still here?").await;
    let envs = c.until_turn_end("again").await;
    assert!(envs[0].server_seq > seq_before);
    host.kill_9();
}

#[tokio::test]
async fn in_process_restart_serves_the_same_state() {
    let t = start_host().await;
    let s = "ahp-session:/restart";
    let mut c = Client::in_new_session(&t.host, "r", s).await;
    for n in 0..3 {
        let id = format!("t{n}");
        c.send_message(s, &id, &format!("/tool list\nturn {n}"))
            .await;
        let (_, r) = c.until_tool_call_ready().await;
        c.dispatch(s, approve(&id, &r.tool_call_id)).await;
        c.until_turn_end(&id).await;
    }
    let before = host_state(&t.host, s).await;
    c.close().await;
    // One host per data directory.
    let second = ahp_host::start(ahp_host::Config::local(t.data.path(), t.work.path())).await;
    let err = second.expect_err("a second host on the same data dir must not start");
    assert!(err.to_string().contains("in use"), "{err}");
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let after = host_state(&host, s).await;
    assert_eq!(
        serde_json::to_value(&after).unwrap(),
        serde_json::to_value(&before).unwrap()
    );
}

/// Defect: a rejected action's `serverSeq` was written only if later writes followed, so after a
/// SIGKILL the next envelope reused it, and a client whose last seen seq was the rejection got
/// an empty replay and missed that envelope for ever.
#[tokio::test]
async fn server_seq_of_a_rejection_is_never_reused_after_kill_9() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let s = "ahp-session:/seq-reuse";
    let host = spawn_host(data.path(), work.path());
    let mut c = Client::connect_url(&host.url(), "seq").await;
    c.initialize(&[]).await;
    c.create_session(s).await;
    c.subscribe(s).await;
    // Server-only actions are rejected: each rejection is echoed with a fresh serverSeq.
    let forged = StateAction::SessionDelta(SessionDeltaAction {
        turn_id: "t".into(),
        part_id: "p".into(),
        content: "forged".into(),
        extra: Default::default(),
    });
    let mut last_rejected = 0;
    for _ in 0..3 {
        c.dispatch(s, forged.clone()).await;
        let e = c.envelope().await;
        assert!(e.rejection_reason.is_some(), "{e:?}");
        assert!(e.server_seq > last_rejected);
        last_rejected = e.server_seq;
    }
    host.kill_9();

    let host = spawn_host(data.path(), work.path());
    let mut c = Client::connect_url(&host.url(), "seq").await;
    let init = c.initialize(&[]).await;
    assert!(
        init.server_seq >= last_rejected,
        "serverSeq went back from {last_rejected} to {}",
        init.server_seq
    );
    c.subscribe(s).await;
    let title = StateAction::SessionTitleChanged(SessionTitleChangedAction {
        title: "after restart".into(),
        extra: Default::default(),
    });
    c.dispatch(s, title).await;
    let e = c.envelope().await;
    assert!(e.rejection_reason.is_none(), "{e:?}");
    assert!(
        e.server_seq > last_rejected,
        "serverSeq {} reused after a restart (last seen: rejection {last_rejected})",
        e.server_seq
    );
    host.kill_9();
}

/// A database written before bindings recorded whether their secret was ever presented: the
/// host adds the column, keeps the bindings, and counts them as never presented.
#[tokio::test]
async fn client_bindings_of_an_older_database_are_kept() {
    use sha2::{Digest, Sha256};
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let sha256 = |s: &str| -> String {
        Sha256::digest(s.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    {
        let db = rusqlite::Connection::open(data.path().join("ahp-host.sqlite3")).unwrap();
        db.execute_batch(
            "CREATE TABLE clients(client_id TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL,
                 used INTEGER NOT NULL);",
        )
        .unwrap();
        for (id, secret) in [("kept", "kept-secret"), ("open", "open-secret")] {
            db.execute(
                "INSERT INTO clients VALUES (?1, ?2, 1)",
                rusqlite::params![id, sha256(secret)],
            )
            .unwrap();
        }
    }
    let host = restart(data.path(), work.path()).await;
    let reconnect = |id: &str, secret: Option<&str>| {
        let mut params = serde_json::json!({"channel": ROOT_CHANNEL, "clientId": id,
            "lastSeenServerSeq": 0, "subscriptions": []});
        if let Some(secret) = secret {
            params["clientSecret"] = secret.into();
        }
        params
    };
    let mut c = Client::connect(&host, "x").await;
    c.expect_error(
        "reconnect",
        reconnect("kept", Some("wrong-secret")),
        errors::PERMISSION_DENIED,
    )
    .await;
    c.call("reconnect", reconnect("kept", Some("kept-secret")))
        .await
        .expect("the binding was kept: its secret is accepted");
    c.close().await;
    // Presented now: required from here on.
    let mut c = Client::connect(&host, "x").await;
    c.expect_error(
        "reconnect",
        reconnect("kept", None),
        errors::PERMISSION_DENIED,
    )
    .await;
    // Never presented: a spec-following reconnect is accepted.
    c.call("reconnect", reconnect("open", None))
        .await
        .expect("an old binding counts as never presented");
    host.shutdown().await;
}
