//! The Messages API: the documented event stream (thinking, text, parallel tool use with
//! `input_json_delta`, usage), the requests sent (tool results fed back), and its failures.

use crate::fake::{sse, End, FakeServer, Reply};
use crate::{assert_key_free, collect, provider, request, KEY};
use ahp_host::providers::{
    AssistantPart, FinishReason, Message, ProviderError, ProviderEvent, ToolCall, Usage,
};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn event(data: Value) -> Vec<u8> {
    let name = data["type"].as_str().unwrap().to_string();
    sse(Some(&name), &data.to_string())
}

fn message_start() -> Vec<u8> {
    event(json!({"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "content": [],
        "model": "claude-test", "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 472, "output_tokens": 2,
                  "cache_creation_input_tokens": 10, "cache_read_input_tokens": 400},
    }}))
}

fn delta(index: usize, delta: Value) -> Vec<u8> {
    event(json!({"type": "content_block_delta", "index": index, "delta": delta}))
}

fn start(index: usize, block: Value) -> Vec<u8> {
    event(json!({"type": "content_block_start", "index": index, "content_block": block}))
}

fn stop(index: usize) -> Vec<u8> {
    event(json!({"type": "content_block_stop", "index": index}))
}

fn finish(reason: &str) -> Vec<Vec<u8>> {
    vec![
        event(json!({"type": "message_delta",
                     "delta": {"stop_reason": reason, "stop_sequence": null},
                     "usage": {"output_tokens": 89}})),
        event(json!({"type": "message_stop"})),
    ]
}

fn tool_use(index: usize, id: &str) -> Vec<u8> {
    start(
        index,
        json!({"type": "tool_use", "id": id, "name": "get_weather", "input": {}}),
    )
}

fn json_delta(index: usize, partial: &str) -> Vec<u8> {
    delta(
        index,
        json!({"type": "input_json_delta", "partial_json": partial}),
    )
}

/// Thinking, text, then two tool uses whose input streams in pieces; a ping between.
fn tool_stream() -> Vec<Vec<u8>> {
    let mut parts = vec![
        message_start(),
        start(0, json!({"type": "thinking", "thinking": ""})),
        delta(
            0,
            json!({"type": "thinking_delta", "thinking": "Two cities,"}),
        ),
        delta(
            0,
            json!({"type": "thinking_delta", "thinking": " two calls."}),
        ),
        delta(
            0,
            json!({"type": "signature_delta", "signature": "EqQBCgIYAhIM"}),
        ),
        stop(0),
        start(1, json!({"type": "text", "text": ""})),
        event(json!({"type": "ping"})),
        delta(1, json!({"type": "text_delta", "text": "Checking"})),
        delta(1, json!({"type": "text_delta", "text": " both."})),
        stop(1),
        tool_use(2, "toolu_paris"),
        json_delta(2, ""),
        json_delta(2, "{\"city\": \"Pa"),
        tool_use(3, "toolu_rome"),
        json_delta(2, "ris\"}"),
        stop(2),
        json_delta(3, "{\"city\":"),
    ];
    // One event split across two TCP chunks, mid-line.
    let split = json_delta(3, " \"Rome\"}");
    let (a, b) = split.split_at(30);
    parts.push(a.to_vec());
    parts.push(b.to_vec());
    parts.push(stop(3));
    parts.extend(finish("tool_use"));
    parts
}

fn call(id: &str, city: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "get_weather".into(),
        arguments: format!("{{\"city\": \"{city}\"}}"),
    }
}

fn usage() -> Usage {
    Usage {
        input_tokens: Some(472),
        output_tokens: Some(89),
        cache_read_tokens: Some(400),
        cache_write_tokens: Some(10),
        reasoning_tokens: None,
    }
}

fn text_stream() -> Vec<Vec<u8>> {
    let mut parts = vec![
        message_start(),
        start(0, json!({"type": "text", "text": ""})),
        delta(0, json!({"type": "text_delta", "text": "Sunny"})),
        delta(0, json!({"type": "text_delta", "text": " in both."})),
        stop(0),
    ];
    parts.extend(finish("end_turn"));
    parts
}

fn text_events() -> Vec<ProviderEvent> {
    vec![
        ProviderEvent::TextDelta("Sunny".into()),
        ProviderEvent::TextDelta(" in both.".into()),
        ProviderEvent::Usage(usage()),
        ProviderEvent::Finish(FinishReason::Stop),
    ]
}

#[tokio::test]
async fn thinking_text_and_parallel_tool_use_stream_and_results_go_back() {
    let server = FakeServer::start(vec![
        Reply::stream(tool_stream()),
        Reply::stream(text_stream()),
    ])
    .await;
    let provider = provider("anthropic", &server.url(""));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(error, None);
    assert_eq!(
        events,
        [
            ProviderEvent::ReasoningDelta("Two cities,".into()),
            ProviderEvent::ReasoningDelta(" two calls.".into()),
            ProviderEvent::ReasoningSignature("EqQBCgIYAhIM".into()),
            ProviderEvent::TextDelta("Checking".into()),
            ProviderEvent::TextDelta(" both.".into()),
            ProviderEvent::ToolCall(call("toolu_paris", "Paris")),
            ProviderEvent::ToolCall(call("toolu_rome", "Rome")),
            ProviderEvent::Usage(usage()),
            ProviderEvent::Finish(FinishReason::ToolCalls),
        ]
    );
    let sent = &server.requests()[0];
    assert_eq!(
        (sent.method.as_str(), sent.target.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(
        sent.json(),
        json!({
            "model": "test-model",
            "max_tokens": 4096,
            "system": "You are terse.",
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "What is the weather in Paris and Rome?"}]}],
            "tools": [{"name": "get_weather", "description": "The weather of a city",
                       "input_schema": {"type": "object",
                                        "properties": {"city": {"type": "string"}}}}],
            "stream": true,
        })
    );

    let mut next = request();
    next.messages.push(Message::Assistant {
        parts: vec![
            AssistantPart::Reasoning {
                text: "Two cities, two calls.".into(),
                signature: Some("EqQBCgIYAhIM".into()),
            },
            AssistantPart::Reasoning {
                text: "unsigned: dropped".into(),
                signature: None,
            },
            AssistantPart::Text("Checking both.".into()),
            AssistantPart::ToolCall(call("toolu_paris", "Paris")),
            AssistantPart::ToolCall(ToolCall {
                id: "toolu_rome".into(),
                name: "get_weather".into(),
                arguments: "{not json".into(),
            }),
        ],
    });
    next.messages.push(Message::ToolResult {
        call_id: "toolu_paris".into(),
        content: "sunny, 21°C".into(),
        is_error: false,
    });
    next.messages.push(Message::ToolResult {
        call_id: "toolu_rome".into(),
        content: "the arguments are not valid JSON".into(),
        is_error: true,
    });
    next.messages.push(Message::User {
        text: "And tomorrow?".into(),
    });
    let (events, error) = collect(provider.stream(&next, None, CancellationToken::new())).await;
    assert_eq!((events, error), (text_events(), None));
    assert_eq!(
        server.requests()[1].json()["messages"],
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "What is the weather in Paris and Rome?"}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Two cities, two calls.",
                 "signature": "EqQBCgIYAhIM"},
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "toolu_paris", "name": "get_weather",
                 "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_rome", "name": "get_weather", "input": {}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_paris", "content": "sunny, 21°C"},
                {"type": "tool_result", "tool_use_id": "toolu_rome",
                 "content": "the arguments are not valid JSON", "is_error": true},
                {"type": "text", "text": "And tomorrow?"},
            ]},
        ])
    );
}

#[tokio::test]
async fn a_tool_use_without_input_deltas_gets_empty_arguments() {
    let mut parts = vec![
        message_start(),
        start(
            0,
            json!({"type": "tool_use", "id": "toolu_1", "name": "list_files", "input": {}}),
        ),
        stop(0),
        start(
            1,
            json!({"type": "server_tool_use", "id": "srv", "name": "web_search"}),
        ),
        delta(1, json!({"type": "citations_delta", "citation": {}})),
        stop(1),
    ];
    parts.extend(finish("tool_use"));
    let server = FakeServer::start(vec![Reply::stream(parts)]).await;
    let provider = provider("anthropic", &server.url(""));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(error, None);
    assert_eq!(
        events[0],
        ProviderEvent::ToolCall(ToolCall {
            id: "toolu_1".into(),
            name: "list_files".into(),
            arguments: "{}".into()
        })
    );
    assert_eq!(events.len(), 3, "unknown blocks are skipped: {events:?}");
}

#[tokio::test]
async fn an_overloaded_error_before_any_output_is_retried_and_after_output_is_not() {
    let overloaded = event(
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    );
    let server = FakeServer::start(vec![
        Reply::stream(vec![message_start(), overloaded.clone()]),
        Reply::stream(text_stream()),
    ])
    .await;
    let provider = provider("anthropic", &server.url(""));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!((events, error), (text_events(), None));
    assert_eq!(server.requests().len(), 2);

    let mut parts = text_stream()[..3].to_vec();
    parts.push(overloaded);
    let server = FakeServer::start(vec![Reply::stream(parts), Reply::stream(text_stream())]).await;
    let provider = crate::provider("anthropic", &server.url(""));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(events, [ProviderEvent::TextDelta("Sunny".into())]);
    assert_eq!(
        error,
        Some(ProviderError::Server {
            status: 529,
            message: "Overloaded".into()
        })
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_refused_key_is_an_auth_error_that_never_shows_the_key() {
    let body = json!({"type": "error", "error": {"type": "authentication_error",
                                                  "message": format!("invalid x-api-key {KEY}")}});
    let server = FakeServer::start(vec![Reply::json(401, body)]).await;
    let provider = provider("anthropic", &server.url(""));
    let (_, error) = collect(provider.stream(&request(), None, CancellationToken::new())).await;
    let error = error.unwrap();
    assert!(
        matches!(error, ProviderError::Auth { status: 401, .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("invalid x-api-key [redacted]"),
        "{error}"
    );
    assert_key_free(&error);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried() {
    let body = json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}});
    let server = FakeServer::start(vec![
        Reply::Full {
            status: 429,
            headers: vec![("retry-after".into(), "1".into())],
            body: body.to_string().into_bytes(),
        },
        Reply::stream(text_stream()),
    ])
    .await;
    let provider = provider("anthropic", &server.url(""));
    let started = Instant::now();
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!((events, error), (text_events(), None));
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_stream_without_message_stop_was_cut() {
    let parts = text_stream()[..4].to_vec();
    let server = FakeServer::start(vec![
        Reply::stream(parts.clone()),
        Reply::stream(parts).ending(End::Cut),
    ])
    .await;
    let provider = provider("anthropic", &server.url(""));
    for _ in 0..2 {
        let (events, error) =
            collect(provider.stream(&request(), None, CancellationToken::new())).await;
        assert_eq!(events, text_events()[..2]);
        assert!(
            matches!(error, Some(ProviderError::StreamCut(_))),
            "{error:?}"
        );
    }
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn malformed_events_are_typed_errors() {
    let cases = [
        b"event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": \n\n"
            .to_vec(),
        delta(
            7,
            json!({"type": "text_delta", "text": "to a block never started"}),
        ),
        delta(0, json!({"type": "input_json_delta", "partial_json": "{}"})),
    ];
    for case in cases {
        let mut parts = text_stream()[..3].to_vec();
        parts.push(case);
        let server = FakeServer::start(vec![Reply::stream(parts)]).await;
        let provider = provider("anthropic", &server.url(""));
        let (events, error) =
            collect(provider.stream(&request(), None, CancellationToken::new())).await;
        assert_eq!(events, text_events()[..1]);
        assert!(
            matches!(error, Some(ProviderError::MalformedChunk(_))),
            "{error:?}"
        );
    }
}

#[tokio::test]
async fn cancel_closes_the_upstream_connection_within_100_ms() {
    let mut server = FakeServer::start(vec![
        Reply::stream(text_stream()[..3].to_vec()).ending(End::Hang)
    ])
    .await;
    let provider = provider("anthropic", &server.url(""));
    let cancel = CancellationToken::new();
    let mut stream = provider.stream(&request(), None, cancel.clone());
    assert_eq!(
        stream.next_event().await,
        Some(Ok(ProviderEvent::TextDelta("Sunny".into())))
    );
    let cancelled_at = Instant::now();
    cancel.cancel();
    let closed = server
        .next_close(Duration::from_secs(2))
        .await
        .expect("closed");
    let took = closed.duration_since(cancelled_at);
    assert!(
        took < Duration::from_millis(100),
        "closed {took:?} after cancel"
    );
}

#[tokio::test]
async fn the_model_list_comes_from_get_v1_models() {
    let list = json!({"data": [
        {"type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5",
         "created_at": "2025-09-29T00:00:00Z"},
        {"type": "model", "id": "claude-haiku-4-5", "display_name": "Claude Haiku 4.5",
         "created_at": "2025-10-01T00:00:00Z", "max_input_tokens": 200000},
    ], "has_more": false, "first_id": "claude-sonnet-4-5", "last_id": "claude-haiku-4-5"});
    let server = FakeServer::start(vec![Reply::json(200, list)]).await;
    let provider = provider("anthropic", &server.url(""));
    let models = provider.models(None).await.unwrap();
    assert_eq!(models.len(), 2);
    assert_eq!(models[0].id, "claude-sonnet-4-5");
    assert_eq!(models[1].display_name.as_deref(), Some("Claude Haiku 4.5"));
    assert_eq!(
        (models[0].context_window, models[1].context_window),
        (None, Some(200_000)),
        "the window where the list states it"
    );
    let sent = &server.requests()[0];
    assert_eq!(
        (sent.method.as_str(), sent.target.as_str()),
        ("GET", "/v1/models?limit=1000")
    );
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
}
