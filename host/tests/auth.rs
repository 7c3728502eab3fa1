//! Authentication of the built-in agent (`--agent-auth-token-file`, spec/authentication.md):
//! the declared resource, `authenticate`, refusals before it, expiry with `auth/required`, and
//! that the token is in no log and not in the database.

mod common;

use ahp_host::agent_auth::{AgentAuthConfig, DEFAULT_RESOURCE};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::{errors, PendingMessageKind, SnapshotState, StateAction};
use common::*;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

const AGENT_TOKEN: &str = "agent-secret-0123456789-XYZ";

/// Writes the token file (mode 0600) into `dir` and returns its path.
fn token_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("agent-token");
    std::fs::write(&path, format!("{AGENT_TOKEN}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    path
}

/// A host whose agent is protected, with unlocks lasting `ttl`.
async fn protected_host(ttl: Duration) -> (TestHost, tempfile::TempDir) {
    let secrets = tempfile::tempdir().unwrap();
    let file = token_file(secrets.path());
    let t = start_host_with(|c| {
        c.agent_auth = Some(AgentAuthConfig {
            token_file: file,
            resource: DEFAULT_RESOURCE.into(),
            ttl,
        })
    })
    .await;
    (t, secrets)
}

async fn authenticate(
    c: &mut Client,
    token: &str,
) -> Result<Value, ahp_wasm::protocol::jsonrpc::ErrorObject> {
    c.call(
        "authenticate",
        json!({"channel": ROOT_CHANNEL, "resource": DEFAULT_RESOURCE, "token": token}),
    )
    .await
}

async fn try_create(
    c: &mut Client,
    uri: &str,
) -> Result<Value, ahp_wasm::protocol::jsonrpc::ErrorObject> {
    c.call(
        "createSession",
        json!({"channel": uri, "provider": "builtin"}),
    )
    .await
}

/// The `-32007` error carries the declared resource in `data.resources`, never the token.
fn assert_auth_required(e: &ahp_wasm::protocol::jsonrpc::ErrorObject) {
    assert_eq!(e.code, errors::AUTH_REQUIRED, "{e:?}");
    let data = e.data.as_ref().expect("data");
    assert_eq!(data["resources"][0]["resource"], DEFAULT_RESOURCE);
    assert!(!format!("{e:?}").contains(AGENT_TOKEN));
}

/// The rejection of a turn start dispatched by `c`.
async fn turn_rejection(c: &mut Client, uri: &str, turn: &str) -> Option<String> {
    c.send_message(uri, turn, "hello").await;
    loop {
        let e = c.envelope().await;
        if let StateAction::SessionTurnStarted(a) = &e.action {
            if a.turn_id == turn {
                return e.rejection_reason;
            }
        }
    }
}

#[tokio::test]
async fn the_agent_declares_its_protected_resource_in_root_state() {
    let (t, _s) = protected_host(Duration::from_secs(60)).await;
    let mut c = Client::connect(&t.host, "c1").await;
    let result = c.initialize(&[ROOT_CHANNEL]).await;
    let SnapshotState::Root(root) = &result.snapshots[0].state else {
        panic!("root snapshot expected");
    };
    let resources = root.agents[0]
        .protected_resources
        .as_ref()
        .expect("declared");
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0].resource, DEFAULT_RESOURCE);
    assert_eq!(resources[0].required, Some(true));
    assert!(resources[0].resource_name.is_some());

    // Without the flag nothing is declared and nothing is refused.
    let open = start_host().await;
    let mut c = Client::connect(&open.host, "c1").await;
    let result = c.initialize(&[ROOT_CHANNEL]).await;
    let SnapshotState::Root(root) = &result.snapshots[0].state else {
        panic!("root snapshot expected");
    };
    assert_eq!(root.agents[0].protected_resources, None);
    try_create(&mut c, "ahp-session:/open").await.unwrap();
}

#[tokio::test]
async fn use_before_authenticating_is_refused_and_the_right_token_unlocks() {
    let (t, _s) = protected_host(Duration::from_secs(60)).await;
    let mut c = Client::connect(&t.host, "c1").await;
    c.initialize(&[]).await;
    let e = try_create(&mut c, "ahp-session:/s1").await.unwrap_err();
    assert_auth_required(&e);

    assert_eq!(authenticate(&mut c, AGENT_TOKEN).await.unwrap(), json!({}));
    try_create(&mut c, "ahp-session:/s1").await.unwrap();
    c.subscribe("ahp-session:/s1").await;
    c.send_message("ahp-session:/s1", "t1", "hello").await;
    let envelopes = c.until_turn_end("t1").await;
    assert!(envelopes.iter().all(|e| e.rejection_reason.is_none()));

    // Per connection: another client (and so another connection) is still refused, for
    // sessions and for turns in an existing session.
    let mut other = Client::connect(&t.host, "c2").await;
    other.initialize(&[]).await;
    assert_auth_required(&try_create(&mut other, "ahp-session:/s2").await.unwrap_err());
    other.subscribe("ahp-session:/s1").await;
    let reason = turn_rejection(&mut other, "ahp-session:/s1", "t2").await;
    assert!(reason.expect("rejected").contains("AuthRequired (-32007)"));
}

#[tokio::test]
async fn queued_messages_are_refused_too_and_a_reconnect_starts_locked() {
    let (t, _s) = protected_host(Duration::from_secs(60)).await;
    let mut a = Client::connect(&t.host, "a").await;
    a.initialize(&[]).await;
    authenticate(&mut a, AGENT_TOKEN).await.unwrap();
    try_create(&mut a, "ahp-session:/s1").await.unwrap();
    drop(a);

    // The same client on a new connection (a reconnect): locked again.
    let mut b = Client::connect(&t.host, "a").await;
    b.reconnect(0, vec!["ahp-session:/s1".into()])
        .await
        .unwrap();
    assert_auth_required(&try_create(&mut b, "ahp-session:/s2").await.unwrap_err());
    let queued = pending_message(PendingMessageKind::Queued, "q1", "queued");
    b.dispatch("ahp-session:/s1", queued).await;
    let e = b.envelope().await;
    assert!(matches!(e.action, StateAction::SessionPendingMessageSet(_)));
    assert!(e
        .rejection_reason
        .expect("rejected")
        .contains("AuthRequired"));
    authenticate(&mut b, AGENT_TOKEN).await.unwrap();
    try_create(&mut b, "ahp-session:/s2").await.unwrap();
}

#[tokio::test]
async fn a_wrong_token_is_refused_with_auth_required() {
    let (t, _s) = protected_host(Duration::from_secs(60)).await;
    let mut c = Client::connect(&t.host, "c1").await;
    c.initialize(&[]).await;
    for wrong in [
        "agent-secret-0123456789-XYz",
        "agent-secret-0123456789-XYZ-and-more",
        "x",
    ] {
        assert_auth_required(&authenticate(&mut c, wrong).await.unwrap_err());
    }
    assert_auth_required(&try_create(&mut c, "ahp-session:/s1").await.unwrap_err());
    // An unknown resource is still the MCP path's `-32602`.
    let e = c.expect_error("authenticate", json!({"channel": ROOT_CHANNEL, "resource": "https://elsewhere.example", "token": AGENT_TOKEN}), errors::INVALID_PARAMS).await;
    assert!(!e.message.contains(AGENT_TOKEN));
}

/// A host on `data` and `work` whose agent is protected by the token in `secrets`, with
/// unlocks lasting `ttl`.
async fn protected_host_on(
    data: &Path,
    work: &Path,
    secrets: &Path,
    ttl: Duration,
) -> ahp_host::RunningHost {
    isolated_home();
    let mut config = ahp_host::Config::local(data, work);
    config.chunk_delay = Duration::from_millis(1);
    config.token = Some(test_token(data));
    config.agent_auth = Some(AgentAuthConfig {
        token_file: token_file(secrets),
        resource: DEFAULT_RESOURCE.into(),
        ttl,
    });
    ahp_host::start(config).await.expect("host starts")
}

#[tokio::test]
async fn expiry_sends_auth_required_and_locks_again() {
    // The session is made under a long unlock, so nothing below races the short one.
    let (t, secrets) = protected_host(Duration::from_secs(600)).await;
    let mut maker = Client::connect(&t.host, "maker").await;
    maker.initialize(&[]).await;
    authenticate(&mut maker, AGENT_TOKEN).await.unwrap();
    try_create(&mut maker, "ahp-session:/s1").await.unwrap();
    maker.close().await;
    let TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = protected_host_on(
        data.path(),
        work.path(),
        secrets.path(),
        Duration::from_secs(1),
    )
    .await;

    let mut c = Client::connect(&host, "c1").await;
    c.initialize(&[]).await;
    c.subscribe("ahp-session:/s1").await;
    authenticate(&mut c, AGENT_TOKEN).await.unwrap();
    let n = tokio::time::timeout(WAIT, c.notification_named("auth/required"))
        .await
        .expect("auth/required within the wait");
    assert_eq!(
        n["params"],
        json!({"channel": ROOT_CHANNEL, "resource": DEFAULT_RESOURCE, "reason": "expired"})
    );
    assert_auth_required(&try_create(&mut c, "ahp-session:/s2").await.unwrap_err());
    let reason = turn_rejection(&mut c, "ahp-session:/s1", "t1").await;
    assert!(reason.expect("rejected").contains("AuthRequired"));

    // Authenticating again unlocks again.
    authenticate(&mut c, AGENT_TOKEN).await.unwrap();
    try_create(&mut c, "ahp-session:/s2").await.unwrap();
    host.shutdown().await;
}

#[tokio::test]
async fn renewing_before_expiry_moves_the_deadline() {
    let ttl = Duration::from_secs(2);
    let (t, _s) = protected_host(ttl).await;
    let mut c = Client::connect(&t.host, "c1").await;
    c.initialize(&[]).await;
    authenticate(&mut c, AGENT_TOKEN).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let renewed = Instant::now();
    authenticate(&mut c, AGENT_TOKEN).await.unwrap();
    try_create(&mut c, "ahp-session:/s1").await.unwrap();
    let n = tokio::time::timeout(WAIT, c.notification_named("auth/required"))
        .await
        .expect("expires after the renewed TTL");
    assert_eq!(n["params"]["reason"], "expired");
    // The first unlock's deadline (1.5 s after `renewed`) passed without a word: the timer
    // runs from the renewal, which the host read after `renewed`, however slow it was.
    let after = renewed.elapsed();
    assert!(
        after >= ttl,
        "expired {after:?} after the renewal: the first deadline was kept"
    );
}

#[tokio::test]
async fn the_token_is_not_in_the_log_nor_in_the_database() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let secrets = tempfile::tempdir().unwrap();
    let file = token_file(secrets.path());
    let log_path = secrets.path().join("host.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let host_token = "host-token-0123456789abcdef";
    let host = HostProcess::spawn_with_stderr(
        data.path(),
        work.path(),
        host_token,
        &[
            "--debug",
            "--agent-auth-ttl",
            "1",
            "--agent-auth-token-file",
            file.to_str().unwrap(),
        ],
        log,
    );
    let mut c = Client::connect_url(&host.url(), "c1").await;
    c.initialize(&[]).await;
    // A wrong token that contains the right one, the right one, a use, an expiry.
    assert_auth_required(
        &authenticate(&mut c, &format!("{AGENT_TOKEN}!"))
            .await
            .unwrap_err(),
    );
    authenticate(&mut c, AGENT_TOKEN).await.unwrap();
    try_create(&mut c, "ahp-session:/s1").await.unwrap();
    c.subscribe("ahp-session:/s1").await;
    c.send_message(
        "ahp-session:/s1",
        "t1",
        &format!("not a secret: {}", "hello"),
    )
    .await;
    c.until_turn_end("t1").await;
    tokio::time::timeout(WAIT, c.notification_named("auth/required"))
        .await
        .expect("expired");
    c.close().await;
    host.kill_9();

    let log = std::fs::read(&log_path).unwrap();
    assert!(
        !contains(&log, AGENT_TOKEN.as_bytes()),
        "the token is in the log"
    );
    let mut checked = 0;
    for entry in std::fs::read_dir(data.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !contains(&bytes, AGENT_TOKEN.as_bytes()),
                "the token is in {}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 1, "the database file was checked");
    // The check can fail: the session's message did reach the database.
    let all: Vec<u8> = std::fs::read_dir(data.path())
        .unwrap()
        .filter_map(|e| std::fs::read(e.unwrap().path()).ok())
        .flatten()
        .collect();
    assert!(contains(&all, b"not a secret: hello"));
}

#[tokio::test]
async fn a_bad_token_file_stops_the_host_without_showing_the_token() {
    let data = tempfile::tempdir().unwrap();
    let secrets = tempfile::tempdir().unwrap();
    let file = secrets.path().join("short");
    std::fs::write(&file, "short-secret\n").unwrap();
    let mut config = ahp_host::Config::local(data.path(), secrets.path());
    config.agent_auth = Some(AgentAuthConfig {
        token_file: file,
        resource: DEFAULT_RESOURCE.into(),
        ttl: Duration::from_secs(60),
    });
    let e = ahp_host::start(config).await.unwrap_err();
    assert!(e.0.contains("agent token file"), "{e}");
    assert!(!e.0.contains("short-secret"), "{e}");
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
