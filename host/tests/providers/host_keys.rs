//! Keys of model providers through the real host: from a client's `authenticate`, kept in its
//! connection only, required before any request when the provider says so, and nowhere in the
//! logs, the state or the database.

use crate::common::*;
use crate::fake::{FakeServer, Reply};
use crate::host::{model_session, text_reply, S};
use crate::KEY;
use ahp_host::providers::{Provider, ProviderSpec};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::*;
use serde_json::{json, Value};
use std::time::Duration;

/// Every file under `dir`, read whole.
fn all_bytes(dir: &std::path::Path, out: &mut Vec<(std::path::PathBuf, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            all_bytes(&path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path, bytes));
        }
    }
}

#[tokio::test]
async fn a_key_from_authenticate_is_used_and_is_nowhere_in_logs_state_or_the_database() {
    let server = FakeServer::start(vec![
        // The start lists models without a key: refused, so the configured one is offered.
        Reply::status(401, &[], r#"{"error": {"message": "no key"}}"#),
        Reply::status(
            401,
            &[],
            r#"{"error": {"message": "Incorrect API key provided"}}"#,
        ),
        text_reply("Keyed answer."),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let log_path = logs.path().join("host.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let base = server.url("/v1");
    let host = HostProcess::spawn_with_stderr(
        data.path(),
        work.path(),
        "test-token-providers-0123456789",
        &[
            "--debug",
            "--provider",
            "openai",
            "--provider-name",
            "fake",
            "--base-url",
            &base,
            "--model",
            "test-model",
        ],
        log,
    );
    let mut c = Client::connect_url(&host.url(), "client-a").await;
    let init = serde_json::to_value(c.initialize(&[ROOT_CHANNEL]).await).unwrap();
    let resource = init
        .pointer("/snapshots/0/state/agents/1/protectedResources/0/resource")
        .and_then(Value::as_str)
        .expect("a provider without a key declares a protected resource")
        .to_owned();
    model_session(&mut c).await;
    // Without a key the endpoint refuses: the turn says how to authenticate.
    c.send_message(S, "t1", "Hello").await;
    let envs = c.until_turn_end("t1").await;
    let StateAction::SessionError(error) = &envs.last().unwrap().action else {
        panic!("the turn fails: {:?}", envs.last());
    };
    assert_eq!(error.error.error_type, "ProviderAuth");
    assert!(
        error.error.message.contains("authenticate"),
        "{}",
        error.error.message
    );
    assert!(
        error.error.message.contains(&resource),
        "{}",
        error.error.message
    );
    c.call(
        "authenticate",
        json!({"channel": ROOT_CHANNEL, "resource": resource, "token": KEY}),
    )
    .await
    .expect("authenticate succeeds");
    c.send_message(S, "t2", "Hello again").await;
    let envs = c.until_turn_end("t2").await;
    assert!(matches!(
        envs.last().unwrap().action,
        StateAction::SessionTurnComplete(_)
    ));
    let requests = server.requests();
    let keyed = requests.last().unwrap();
    assert_eq!(
        keyed.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(
        requests[1].header("authorization"),
        None,
        "no key before authenticate"
    );
    let turns = c.fetch_turns(S, None, 10.0).await;
    assert!(!serde_json::to_string(&turns).unwrap().contains(KEY));
    c.close().await;
    drop(host);
    let mut files = Vec::new();
    all_bytes(data.path(), &mut files);
    assert!(!files.is_empty(), "the data directory holds the database");
    let log_bytes = std::fs::read(&log_path).unwrap();
    assert!(!log_bytes.is_empty(), "the host logged (--debug)");
    files.push((log_path, log_bytes));
    for (path, bytes) in files {
        assert!(
            !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
            "the key is in {}",
            path.display()
        );
    }
}

#[tokio::test]
async fn a_provider_whose_key_comes_from_the_client_requires_it_before_any_request() {
    let server = FakeServer::start(vec![text_reply("Keyed.")]).await;
    let mut config = ProviderSpec {
        kind: Some("openai".into()),
        name: Some("fake".into()),
        base_url: Some(server.url("/v1")),
        models: vec!["test-model".into()],
        api_key_from_client: Some(true),
        ..ProviderSpec::default()
    }
    .validate(1)
    .unwrap();
    config.timeouts.first_byte = Duration::from_secs(5);
    let provider = Provider::new(config).unwrap();
    let host = start_host_with(move |c| c.providers.push(provider)).await;
    let mut c = Client::connect(&host.host, "client-a").await;
    let init = serde_json::to_value(c.initialize(&[ROOT_CHANNEL]).await).unwrap();
    let declared = init
        .pointer("/snapshots/0/state/agents/1/protectedResources/0")
        .expect("a protected resource")
        .clone();
    assert_eq!(declared["required"], true);
    let resource = declared["resource"].as_str().unwrap().to_owned();
    model_session(&mut c).await;
    c.send_message(S, "t1", "Hello").await;
    let envs = c.until_turn_end("t1").await;
    let StateAction::SessionError(error) = &envs.last().unwrap().action else {
        panic!("the turn fails: {:?}", envs.last());
    };
    assert!(
        error.error.message.contains(&resource),
        "{}",
        error.error.message
    );
    assert!(
        server.requests().is_empty(),
        "no request without a key, not even the model list"
    );
    c.call(
        "authenticate",
        json!({"channel": ROOT_CHANNEL, "resource": resource, "token": KEY}),
    )
    .await
    .expect("authenticate succeeds");
    c.send_message(S, "t2", "Hello again").await;
    c.until_turn_end("t2").await;
    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    // Another connection of another client has no key: its turns are refused again.
    let mut b = Client::ready(&host.host, "client-b").await;
    b.subscribe(S).await;
    b.send_message(S, "t3", "Me too").await;
    let envs = b.until_turn_end("t3").await;
    assert!(matches!(
        envs.last().unwrap().action,
        StateAction::SessionError(_)
    ));
    assert_eq!(server.requests().len(), 1);
}
