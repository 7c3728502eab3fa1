//! Chat Completions: streams as OpenAI documents them (and the `reasoning_content` /
//! `reasoning` fields other servers add), the requests sent, and every failure path.

use crate::fake::{sse, End, FakeServer, Reply};
use crate::{assert_key_free, collect, provider, request, KEY};
use ahp_host::providers::{
    AssistantPart, FinishReason, Message, ModelInfo, ProviderError, ProviderEvent, TimeoutPhase,
    ToolCall, Usage,
};
use serde_json::json;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn chunk(delta: serde_json::Value, finish: Option<&str>) -> Vec<u8> {
    let data = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
    });
    sse(None, &data.to_string())
}

fn usage_chunk() -> Vec<u8> {
    let data = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
        "choices": [],
        "usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42,
                  "prompt_tokens_details": {"cached_tokens": 8},
                  "completion_tokens_details": {"reasoning_tokens": 5}},
    });
    sse(None, &data.to_string())
}

fn done() -> Vec<u8> {
    b"data: [DONE]\n\n".to_vec()
}

fn text_stream() -> Vec<Vec<u8>> {
    vec![
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"reasoning_content": "Paris first"}), None),
        chunk(json!({"reasoning": ", then Rome."}), None),
        chunk(json!({"content": "Sunny"}), None),
        chunk(json!({"content": " in both."}), None),
        chunk(json!({}), Some("stop")),
        usage_chunk(),
        done(),
    ]
}

fn text_events() -> Vec<ProviderEvent> {
    vec![
        ProviderEvent::ReasoningDelta("Paris first".into()),
        ProviderEvent::ReasoningDelta(", then Rome.".into()),
        ProviderEvent::TextDelta("Sunny".into()),
        ProviderEvent::TextDelta(" in both.".into()),
        ProviderEvent::Usage(Usage {
            input_tokens: Some(30),
            output_tokens: Some(12),
            cache_read_tokens: Some(8),
            cache_write_tokens: None,
            reasoning_tokens: Some(5),
        }),
        ProviderEvent::Finish(FinishReason::Stop),
    ]
}

#[tokio::test]
async fn text_reasoning_and_usage_stream_and_the_request_is_chat_completions() {
    let server = FakeServer::start(vec![Reply::stream(text_stream())]).await;
    let provider = provider("openai", &server.url("/v1"));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(error, None);
    assert_eq!(events, text_events());
    let sent = &server.requests()[0];
    assert_eq!(
        (sent.method.as_str(), sent.target.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert_eq!(
        sent.json(),
        json!({
            "model": "test-model",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "What is the weather in Paris and Rome?"},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {
                "name": "get_weather", "description": "The weather of a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            }}],
        })
    );
}

/// Two tool calls, their pieces interleaved by index, one SSE line split across two TCP
/// chunks.
fn tool_stream() -> Vec<Vec<u8>> {
    let call = |index: u32, id: Option<&str>, name: Option<&str>, args: &str| {
        let mut function = json!({"arguments": args});
        if let Some(name) = name {
            function["name"] = name.into();
        }
        let mut call = json!({"index": index, "function": function});
        if let Some(id) = id {
            call["id"] = id.into();
            call["type"] = "function".into();
        }
        chunk(json!({"tool_calls": [call]}), None)
    };
    let split = call(1, None, None, "\"Rome\"}");
    let (a, b) = split.split_at(25);
    vec![
        chunk(json!({"role": "assistant", "content": null}), None),
        call(0, Some("call_paris"), Some("get_weather"), ""),
        call(0, None, None, "{\"ci"),
        call(1, Some("call_rome"), Some("get_weather"), ""),
        call(0, None, None, "ty\": \"Pa"),
        call(1, None, None, "{\"city\": "),
        call(0, None, None, "ris\"}"),
        a.to_vec(),
        b.to_vec(),
        chunk(json!({}), Some("tool_calls")),
        usage_chunk(),
        done(),
    ]
}

fn paris() -> ToolCall {
    ToolCall {
        id: "call_paris".into(),
        name: "get_weather".into(),
        arguments: "{\"city\": \"Paris\"}".into(),
    }
}

fn rome() -> ToolCall {
    ToolCall {
        id: "call_rome".into(),
        name: "get_weather".into(),
        arguments: "{\"city\": \"Rome\"}".into(),
    }
}

#[tokio::test]
async fn parallel_tool_calls_are_assembled_and_their_results_go_back() {
    let server = FakeServer::start(vec![
        Reply::stream(tool_stream()),
        Reply::stream(text_stream()),
    ])
    .await;
    let provider = provider("openai", &server.url("/v1"));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(error, None);
    assert_eq!(events[0], ProviderEvent::ToolCall(paris()));
    assert_eq!(events[1], ProviderEvent::ToolCall(rome()));
    assert!(matches!(events[2], ProviderEvent::Usage(_)));
    assert_eq!(events[3], ProviderEvent::Finish(FinishReason::ToolCalls));
    assert_eq!(events.len(), 4);
    assert_eq!(paris().parsed_arguments().unwrap()["city"], "Paris");

    let mut next = request();
    next.messages.push(Message::Assistant {
        parts: vec![
            AssistantPart::Reasoning {
                text: "not sent back".into(),
                signature: None,
            },
            AssistantPart::Text("Checking.".into()),
            AssistantPart::ToolCall(paris()),
            AssistantPart::ToolCall(rome()),
        ],
    });
    next.messages.push(Message::ToolResult {
        call_id: "call_paris".into(),
        content: "sunny, 21°C".into(),
        is_error: false,
    });
    next.messages.push(Message::ToolResult {
        call_id: "call_rome".into(),
        content: "no such city".into(),
        is_error: true,
    });
    next.max_tokens = Some(300);
    let (events, error) = collect(provider.stream(&next, None, CancellationToken::new())).await;
    assert_eq!((events, error), (text_events(), None));
    let body = server.requests()[1].json();
    assert_eq!(body["max_tokens"], 300);
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "What is the weather in Paris and Rome?"},
            {"role": "assistant", "content": "Checking.", "tool_calls": [
                {"id": "call_paris", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
                {"id": "call_rome", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}},
            ]},
            {"role": "tool", "tool_call_id": "call_paris", "content": "sunny, 21°C"},
            {"role": "tool", "tool_call_id": "call_rome", "content": "no such city"},
        ])
    );
}

#[tokio::test]
async fn a_stop_with_tool_calls_and_calls_without_index_or_arguments_still_come_through() {
    // Some servers send whole calls without `index` and finish with `stop`.
    let calls = json!({"tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "list_files", "arguments": ""}},
        {"id": "b", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
    ]});
    let server = FakeServer::start(vec![Reply::stream(vec![
        chunk(calls, None),
        chunk(json!({}), Some("stop")),
        done(),
    ])])
    .await;
    let provider = provider("openai", &server.url("/v1"));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(error, None);
    let call = |id: &str, name: &str| {
        ProviderEvent::ToolCall(ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: "{}".into(),
        })
    };
    assert_eq!(
        events,
        [
            call("a", "list_files"),
            call("b", "get_weather"),
            ProviderEvent::Finish(FinishReason::ToolCalls)
        ]
    );
}

#[tokio::test]
async fn a_refused_key_is_an_auth_error_that_never_shows_the_key() {
    let body = json!({"error": {"message": format!("Incorrect API key provided: {KEY}."),
                                "type": "invalid_request_error", "code": "invalid_api_key"}});
    let server = FakeServer::start(vec![Reply::json(401, body)]).await;
    let provider = provider("openai", &server.url("/v1"));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert!(events.is_empty());
    let error = error.unwrap();
    assert_eq!(
        error,
        ProviderError::Auth {
            status: 401,
            message: "Incorrect API key provided: [redacted].".into()
        }
    );
    assert_key_free(&error);
    assert_eq!(server.requests().len(), 1, "an auth error is not retried");
    assert!(!format!("{provider:?}").contains(KEY));
}

#[tokio::test]
async fn a_key_given_at_runtime_replaces_the_configured_one() {
    let server = FakeServer::start(vec![Reply::stream(text_stream())]).await;
    let provider = provider("openai", &server.url("/v1"));
    let runtime = ahp_host::providers::Secret::new("sk-from-authenticate").unwrap();
    let (_, error) =
        collect(provider.stream(&request(), Some(&runtime), CancellationToken::new())).await;
    assert_eq!(error, None);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-from-authenticate")
    );
}

#[tokio::test]
async fn a_429_is_retried_after_its_retry_after() {
    let server = FakeServer::start(vec![
        Reply::status(
            429,
            &[("retry-after", "1")],
            r#"{"error":{"message":"slow down"}}"#,
        ),
        Reply::stream(text_stream()),
    ])
    .await;
    let provider = provider("openai", &server.url("/v1"));
    let started = Instant::now();
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    let waited = started.elapsed();
    assert_eq!((events, error), (text_events(), None));
    assert_eq!(server.requests().len(), 2);
    assert!(waited >= Duration::from_secs(1), "retried after {waited:?}");
    assert!(waited < Duration::from_secs(3), "retried after {waited:?}");
}

#[tokio::test]
async fn a_retry_after_beyond_the_bound_fails_at_once_with_the_wait() {
    let server = FakeServer::start(vec![Reply::status(429, &[("retry-after", "120")], "")]).await;
    let provider = provider("openai", &server.url("/v1"));
    let (_, error) = collect(provider.stream(&request(), None, CancellationToken::new())).await;
    let error = error.unwrap();
    assert_eq!(error.retry_after(), Some(Duration::from_secs(120)));
    assert!(error.to_string().contains("retry after 120 s"), "{error}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_500_then_success_is_retried_and_500s_give_up_after_the_attempts() {
    let server = FakeServer::start(vec![
        Reply::status(500, &[], "boom"),
        Reply::stream(text_stream()),
    ])
    .await;
    let provider = crate::provider("openai", &server.url("/v1"));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!((events, error), (text_events(), None));
    assert_eq!(server.requests().len(), 2);

    let failing = vec![Reply::status(503, &[], "down"); 5];
    let server = FakeServer::start(failing).await;
    let provider = crate::provider("openai", &server.url("/v1"));
    let (_, error) = collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(
        error,
        Some(ProviderError::Server {
            status: 503,
            message: "down".into()
        })
    );
    assert_eq!(
        server.requests().len(),
        3,
        "the default policy makes 3 attempts"
    );
}

#[tokio::test]
async fn a_stream_cut_midway_is_reported_after_what_arrived_and_not_retried() {
    let parts = text_stream()[..4].to_vec();
    let server = FakeServer::start(vec![
        Reply::stream(parts.clone()).ending(End::Cut),
        Reply::stream(parts).ending(End::Complete),
    ])
    .await;
    let provider = provider("openai", &server.url("/v1"));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(events, text_events()[..3]);
    assert!(
        matches!(error, Some(ProviderError::StreamCut(_))),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 1, "output was streamed: no retry");
    // A body that ends cleanly without `[DONE]` or a finish reason was cut too.
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(events, text_events()[..3]);
    let error = error.unwrap();
    assert!(
        matches!(&error, ProviderError::StreamCut(m) if m.contains("[DONE]")),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_malformed_chunk_ends_the_stream_with_a_typed_error() {
    let mut parts = text_stream()[..4].to_vec();
    parts.push(b"data: {\"choices\": [{\"delta\": \n\n".to_vec());
    parts.extend(text_stream()[4..].iter().cloned());
    let server = FakeServer::start(vec![Reply::stream(parts)]).await;
    let provider = provider("openai", &server.url("/v1"));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(events, text_events()[..3]);
    assert!(
        matches!(error, Some(ProviderError::MalformedChunk(_))),
        "{error:?}"
    );
    // A tool call that never got a name is malformed too.
    let nameless = chunk(
        json!({"tool_calls": [{"index": 0, "id": "x", "function": {"arguments": "{}"}}]}),
        None,
    );
    let server = FakeServer::start(vec![Reply::stream(vec![
        nameless,
        chunk(json!({}), Some("tool_calls")),
        done(),
    ])])
    .await;
    let provider = crate::provider("openai", &server.url("/v1"));
    let (_, error) = collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert!(
        matches!(&error, Some(ProviderError::MalformedChunk(m)) if m.contains("no function name")),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_error_chunk_in_the_stream_is_typed_and_scrubbed() {
    let error = json!({"error": {"message": format!("bad key {KEY}"), "type": "server_error", "code": 502}});
    let server = FakeServer::start(vec![Reply::stream(vec![
        chunk(json!({"content": "Hi"}), None),
        sse(None, &error.to_string()),
    ])])
    .await;
    let provider = provider("openai", &server.url("/v1"));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(events, [ProviderEvent::TextDelta("Hi".into())]);
    let error = error.unwrap();
    assert!(
        matches!(error, ProviderError::Server { status: 502, .. }),
        "{error:?}"
    );
    assert_key_free(&error);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn cancel_closes_the_upstream_connection_within_100_ms() {
    let parts = text_stream()[..2].to_vec();
    let mut server = FakeServer::start(vec![
        Reply::stream(parts.clone()).ending(End::Hang),
        Reply::stream(parts).ending(End::Hang),
    ])
    .await;
    let provider = provider("openai", &server.url("/v1"));
    // Cancelled through the token, while the consumer is not even polling.
    let cancel = CancellationToken::new();
    let mut stream = provider.stream(&request(), None, cancel.clone());
    let first = stream.next_event().await.unwrap().unwrap();
    assert_eq!(first, ProviderEvent::ReasoningDelta("Paris first".into()));
    tokio::time::sleep(Duration::from_millis(50)).await;
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
    assert_eq!(
        stream.next_event().await,
        Some(Err(ProviderError::Cancelled))
    );
    assert_eq!(stream.next_event().await, None);
    // Dropped: the same.
    let mut stream = provider.stream(&request(), None, CancellationToken::new());
    stream.next_event().await.unwrap().unwrap();
    let dropped_at = Instant::now();
    drop(stream);
    let closed = server
        .next_close(Duration::from_secs(2))
        .await
        .expect("closed");
    let took = closed.duration_since(dropped_at);
    assert!(
        took < Duration::from_millis(100),
        "closed {took:?} after drop"
    );
}

#[tokio::test]
async fn a_stalled_stream_and_a_silent_server_time_out() {
    let mut server = FakeServer::start(vec![
        Reply::stream(text_stream()[..2].to_vec()).ending(End::Hang),
        Reply::Silent,
    ])
    .await;
    let mut provider_config = provider("openai", &server.url("/v1")).config().clone();
    provider_config.timeouts.idle = Duration::from_millis(300);
    provider_config.timeouts.first_byte = Duration::from_millis(300);
    let provider = crate::configured(provider_config);
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(events, text_events()[..1]);
    assert_eq!(error, Some(ProviderError::Timeout(TimeoutPhase::Idle)));
    assert!(server.next_close(Duration::from_secs(2)).await.is_some());
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert!(events.is_empty());
    assert_eq!(error, Some(ProviderError::Timeout(TimeoutPhase::FirstByte)));
    assert!(server.next_close(Duration::from_secs(2)).await.is_some());
    assert_eq!(server.requests().len(), 2, "timeouts are not retried");
}

#[tokio::test]
async fn an_unreachable_endpoint_is_a_connect_error_after_the_retries() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let provider = provider("openai", &format!("http://127.0.0.1:{port}/v1"));
    let (_, error) = collect(provider.stream(&request(), None, CancellationToken::new())).await;
    let error = error.unwrap();
    assert!(matches!(error, ProviderError::Connect(_)), "{error:?}");
    assert_key_free(&error);
}

#[tokio::test]
async fn a_json_answer_to_a_streaming_request_is_refused() {
    let server = FakeServer::start(vec![Reply::json(200, json!({"choices": []}))]).await;
    let provider = provider("openai", &server.url("/v1"));
    let (_, error) = collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert!(
        matches!(&error, Some(ProviderError::MalformedChunk(m)) if m.contains("application/json")),
        "{error:?}"
    );
}

#[tokio::test]
async fn the_model_list_comes_from_get_models() {
    let list = json!({"object": "list", "data": [
        {"id": "gpt-4o", "object": "model", "created": 1, "owned_by": "system"},
        {"id": "llama3.2:latest", "object": "model", "created": 1, "owned_by": "library"},
        {"id": "qwen3", "object": "model", "max_model_len": 32768},
        {"id": "router/model", "object": "model", "context_length": 131072},
    ]});
    let server = FakeServer::start(vec![
        Reply::json(200, list),
        Reply::json(401, json!({"error": {"message": "no"}})),
    ])
    .await;
    let provider = provider("openai", &server.url("/v1"));
    let models = provider.models(None).await.unwrap();
    let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["gpt-4o", "llama3.2:latest", "qwen3", "router/model"]);
    let windows: Vec<Option<u64>> = models.iter().map(|m| m.context_window).collect();
    assert_eq!(
        windows,
        [None, None, Some(32_768), Some(131_072)],
        "vLLM's max_model_len, OpenRouter's context_length"
    );
    let sent = &server.requests()[0];
    assert_eq!(
        (sent.method.as_str(), sent.target.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let error = provider.models(None).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Auth { status: 401, .. }),
        "{error:?}"
    );
    // Configured models are offered as they are, without a request.
    let mut config = provider.config().clone();
    config.models = vec!["m1".into()];
    let fixed = crate::configured(config).models(None).await.unwrap();
    assert_eq!(
        fixed,
        [ModelInfo {
            id: "m1".into(),
            display_name: None,
            context_window: None,
        }]
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn azure_style_bases_keep_their_query_and_take_the_key_in_api_key() {
    let server = FakeServer::start(vec![Reply::stream(text_stream())]).await;
    let mut config = provider(
        "openai",
        &server.url("/openai/deployments/gpt/?api-version=2024-10-21"),
    )
    .config()
    .clone();
    config.key_header = ahp_host::providers::KeyHeader::ApiKey;
    let provider = crate::configured(config);
    let (_, error) = collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(error, None);
    let sent = &server.requests()[0];
    assert_eq!(
        sent.target,
        "/openai/deployments/gpt/chat/completions?api-version=2024-10-21"
    );
    assert_eq!(sent.header("api-key"), Some(KEY));
    assert_eq!(sent.header("authorization"), None);
}

#[tokio::test]
async fn a_response_past_the_byte_bound_stops_with_too_large() {
    let server = FakeServer::start(vec![Reply::stream(text_stream())]).await;
    let mut config = provider("openai", &server.url("/v1")).config().clone();
    config.max_response_bytes = 600;
    let provider = crate::configured(config);
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert!(events.len() < text_events().len(), "{events:?}");
    assert_eq!(error, Some(ProviderError::TooLarge(600)));
}

#[tokio::test]
async fn a_key_that_is_no_header_value_fails_before_any_request_without_showing_it() {
    let server = FakeServer::start(vec![Reply::stream(text_stream())]).await;
    let provider = provider("openai", &server.url("/v1"));
    let bad = ahp_host::providers::Secret::new(format!("{KEY}\nInjected: 1")).unwrap();
    let (events, error) =
        collect(provider.stream(&request(), Some(&bad), CancellationToken::new())).await;
    assert!(events.is_empty());
    let error = error.unwrap();
    assert!(
        matches!(error, ProviderError::InvalidRequest(_)),
        "{error:?}"
    );
    assert_key_free(&error);
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn an_empty_finish_reason_means_not_yet() {
    let piece = |call: serde_json::Value| chunk(json!({"tool_calls": [call]}), Some(""));
    let server = FakeServer::start(vec![Reply::stream(vec![
        piece(json!({"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{\"a\""}})),
        piece(json!({"index": 0, "function": {"arguments": ": 1}"}})),
        chunk(json!({}), Some("tool_calls")),
        done(),
    ])])
    .await;
    let provider = provider("openai", &server.url("/v1"));
    let (events, error) =
        collect(provider.stream(&request(), None, CancellationToken::new())).await;
    assert_eq!(error, None);
    let call = ToolCall {
        id: "c1".into(),
        name: "f".into(),
        arguments: "{\"a\": 1}".into(),
    };
    assert_eq!(
        events,
        [
            ProviderEvent::ToolCall(call),
            ProviderEvent::Finish(FinishReason::ToolCalls)
        ]
    );
}
