//! The model providers against a fake endpoint of our own on loopback that speaks each wire
//! format byte for byte (streams as the providers document them): what they stream, what they
//! send, how they fail, retry, time out and cancel; and (`host.rs`) the providers as agents of
//! the real host, over a real WebSocket.

#[path = "../common/mod.rs"]
mod common;

mod anthropic;
mod config;
mod context;
mod failures;
// Its stream timestamps serve `tests/chunk_latency.rs`.
#[allow(dead_code)]
mod fake;
mod host;
mod host_keys;
mod openai;
mod tool_kinds;
#[path = "../v1_raw/mod.rs"]
mod v1_raw;

use ahp_host::providers::{
    ChatRequest, EventStream, Message, Provider, ProviderConfig, ProviderError, ProviderEvent,
    ProviderSpec, Secret, ToolDefinition,
};
use serde_json::json;
use std::time::Duration;

/// A key the fake server echoes in its errors: it must never come back out.
pub const KEY: &str = "sk-test-0123456789abcdef-SECRET";

/// A provider of `kind` at `base`, with fast retries and short timeouts.
pub fn provider(kind: &str, base: &str) -> Provider {
    let mut config = ProviderSpec {
        kind: Some(kind.into()),
        base_url: Some(base.into()),
        ..ProviderSpec::default()
    }
    .validate(1)
    .unwrap();
    config.retry.base_delay = Duration::from_millis(20);
    config.timeouts.first_byte = Duration::from_secs(5);
    config.timeouts.idle = Duration::from_secs(5);
    configured(config)
}

pub fn configured(config: ProviderConfig) -> Provider {
    Provider::with_key(config, Secret::new(KEY)).unwrap()
}

/// A one-message request with one tool.
pub fn request() -> ChatRequest {
    ChatRequest {
        model: "test-model".into(),
        system: Some("You are terse.".into()),
        messages: vec![Message::User {
            text: "What is the weather in Paris and Rome?".into(),
        }],
        tools: vec![ToolDefinition {
            name: "get_weather".into(),
            description: "The weather of a city".into(),
            input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        }],
        max_tokens: None,
    }
}

/// Everything a stream yields: its events, and the error it ended with.
pub async fn collect(mut stream: EventStream) -> (Vec<ProviderEvent>, Option<ProviderError>) {
    let mut events = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while let Ok(Some(item)) = tokio::time::timeout_at(deadline, stream.next_event()).await {
        match item {
            Ok(event) => events.push(event),
            Err(error) => return (events, Some(error)),
        }
    }
    (events, None)
}

/// The error's every rendering is free of [`KEY`].
pub fn assert_key_free(error: &ProviderError) {
    for text in [error.to_string(), format!("{error:?}")] {
        assert!(!text.contains(KEY), "the key leaked: {text}");
        assert!(!text.contains("0123456789abcdef"), "the key leaked: {text}");
    }
}
