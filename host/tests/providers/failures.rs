//! Failures of the endpoint, end to end through the real host: a malformed chunk, a stream
//! that stalls, an endpoint that never answers, 5xx retried with backoff (and 5xx that stay).
//! Each ends the turn with `session/error` and a plain message, what streamed before is kept,
//! and the next turn of the same session works. (A stream cut mid-way and a 429: `host.rs`.)

use crate::common::*;
use crate::fake::{sse, End, FakeServer, Reply};
use crate::host::{
    chat_requests, chunk, fake_provider, last_turn, model_session, models, text_reply, S,
};
use crate::KEY;
use ahp_host::providers::Provider;
use ahp_wasm::protocol::*;
use serde_json::json;
use std::time::Duration;

/// A host with `provider`, and a client in a session of it.
async fn host_of(provider: Provider) -> (TestHost, Client) {
    let host = start_host_with(move |c| c.providers.push(provider)).await;
    let mut c = Client::ready(&host.host, "client-a").await;
    model_session(&mut c).await;
    (host, c)
}

/// Runs turn `id`; answers its error (type, message) when it failed.
async fn turn(c: &mut Client, id: &str) -> Option<(String, String)> {
    c.send_message(S, id, "Hello").await;
    let envs = c.until_turn_end(id).await;
    match &envs.last().unwrap().action {
        StateAction::SessionError(e) => Some((e.error.error_type.clone(), e.error.message.clone())),
        _ => None,
    }
}

/// The next turn of the session completes with the endpoint's answer.
async fn next_turn_works(host: &TestHost, c: &mut Client, text: &str) {
    assert_eq!(turn(c, "t2").await, None, "the session goes on");
    let state = host_state(&host.host, S).await;
    let last = last_turn(&state);
    assert_eq!(last.state, TurnState::Complete);
    assert_eq!(markdown(&last.response_parts), text);
}

#[tokio::test]
async fn a_malformed_chunk_fails_the_turn_plainly_and_the_session_goes_on() {
    let bad = Reply::stream(vec![
        chunk(json!({"content": "Part"}), None),
        sse(None, r#"{"choices": [{"index": 0, "delta": {"content": "#),
    ]);
    let server = FakeServer::start(vec![models(), bad, text_reply("Whole.")]).await;
    let (host, mut c) = host_of(fake_provider(&server, Some(KEY))).await;
    let (kind, message) = turn(&mut c, "t1").await.expect("the turn fails");
    assert_eq!(kind, "ProviderError");
    assert!(
        message.starts_with("model provider fake: ") && message.contains("malformed chunk"),
        "{message}"
    );
    assert!(!message.contains(KEY));
    let state = host_state(&host.host, S).await;
    let failed = last_turn(&state);
    assert_eq!(failed.state, TurnState::Error);
    assert_eq!(
        markdown(&failed.response_parts),
        "Part",
        "what streamed is kept"
    );
    assert_eq!(
        chat_requests(&server).len(),
        1,
        "a bad chunk is not retried"
    );
    next_turn_works(&host, &mut c, "Whole.").await;
}

#[tokio::test]
async fn a_stalled_stream_and_a_silent_endpoint_time_out_and_the_session_goes_on() {
    let stalled = Reply::Stream {
        parts: vec![chunk(json!({"content": "Thinking about"}), None)],
        delay: Duration::from_millis(1),
        end: End::Hang,
    };
    let server = FakeServer::start(vec![
        models(),
        stalled,
        Reply::Silent,
        text_reply("Here now."),
    ])
    .await;
    let mut provider = fake_provider(&server, Some(KEY)).config().clone();
    provider.timeouts.idle = Duration::from_millis(300);
    provider.timeouts.first_byte = Duration::from_millis(300);
    let provider = Provider::with_key(provider, ahp_host::providers::Secret::new(KEY)).unwrap();
    let (host, mut c) = host_of(provider).await;

    let (kind, message) = turn(&mut c, "t1").await.expect("the stalled turn fails");
    assert_eq!(kind, "ProviderTimeout");
    assert!(message.contains("stream stalled"), "{message}");
    let state = host_state(&host.host, S).await;
    assert_eq!(
        markdown(&last_turn(&state).response_parts),
        "Thinking about"
    );

    let (kind, message) = turn(&mut c, "t1b").await.expect("the silent turn fails");
    assert_eq!(kind, "ProviderTimeout");
    assert!(message.contains("did not answer in time"), "{message}");
    assert_eq!(chat_requests(&server).len(), 2, "a timeout is not retried");
    next_turn_works(&host, &mut c, "Here now.").await;
}

#[tokio::test]
async fn a_5xx_is_retried_with_growing_backoff_then_the_answer_streams() {
    let busy = |status: u16| {
        Reply::status(
            status,
            &[("content-type", "application/json")],
            r#"{"error": {"message": "overloaded", "type": "server_error"}}"#,
        )
    };
    let server = FakeServer::start(vec![
        models(),
        busy(503),
        busy(502),
        text_reply("At last."),
        busy(500),
        busy(500),
        busy(500),
        text_reply("Back."),
    ])
    .await;
    // Three attempts, 20 ms then 40 ms apart (the test provider's base delay).
    let (host, mut c) = host_of(fake_provider(&server, Some(KEY))).await;
    assert_eq!(turn(&mut c, "t1").await, None, "the retries succeed");
    let chats: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.target.ends_with("/chat/completions"))
        .collect();
    assert_eq!(chats.len(), 3);
    let gaps = [
        chats[1].at.duration_since(chats[0].at),
        chats[2].at.duration_since(chats[1].at),
    ];
    assert!(
        gaps[0] >= Duration::from_millis(20) && gaps[1] >= Duration::from_millis(40),
        "backoff: {gaps:?}"
    );
    let state = host_state(&host.host, S).await;
    assert_eq!(markdown(&last_turn(&state).response_parts), "At last.");

    // When every attempt fails, the turn says so with the last status.
    let (kind, message) = turn(&mut c, "t1b").await.expect("the turn fails");
    assert_eq!(kind, "ProviderError");
    assert!(
        message.contains("HTTP 500") && message.contains("overloaded"),
        "{message}"
    );
    assert_eq!(chat_requests(&server).len(), 6, "three attempts each");
    next_turn_works(&host, &mut c, "Back.").await;
}
