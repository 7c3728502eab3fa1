//! Model providers: real models behind the host, over the two wire formats most endpoints
//! speak (issue 35). Protocol-independent: nothing here knows AHP; the agent maps a chat to a
//! [`ChatRequest`] and the events back to turn actions.
//!
//! # Design
//!
//! - **One request, one stream.** [`Provider::stream`] takes the whole conversation (system
//!   message, user and assistant messages with their tool calls, tool results), the tool
//!   definitions, the model and a cancel token, and returns an [`EventStream`] of
//!   [`ProviderEvent`]s: text and reasoning deltas, complete tool calls (assembled from their
//!   streamed pieces), usage, then the finish reason; or one typed [`ProviderError`] instead
//!   of the rest. The same events come from both formats ([`openai`]: Chat Completions, for
//!   OpenAI, Azure OpenAI, Ollama, llama.cpp, vLLM, LM Studio, OpenRouter; [`anthropic`]: the
//!   Messages API), so the agent has one loop: append deltas, run the tool calls, send their
//!   results in the next request.
//! - **Transport** ([`transport`]): reqwest (rustls) and `sse-stream` (the SSE decoder rmcp
//!   already brings) read the response; each wire format only decodes events ([`wire::Wire`]).
//!   The response lives in its own task, so cancelling the token (or dropping the stream)
//!   closes the connection at once, whatever the consumer is doing.
//! - **Failures:** 401/403 → [`ProviderError::Auth`] (the agent offers `authenticate`); 429
//!   and 5xx are retried with exponential backoff or the endpoint's `Retry-After`, bounded in
//!   attempts and in the wait (a longer `Retry-After` fails at once, carrying it), and only
//!   while nothing was streamed (after that, a retry would repeat output). Timeouts: connect,
//!   first byte (the response headers), idle (between chunks). A dropped connection or a body
//!   that ends before the format's end marker is [`ProviderError::StreamCut`]; a chunk that
//!   does not decode is [`ProviderError::MalformedChunk`]. A response is bounded in bytes.
//! - **Keys** ([`Secret`]): from an environment variable or a file ([`KeySource`], read once
//!   at start), or given per request (a key a client sent with `authenticate`, kept by the
//!   caller in that connection's memory). `Debug` and `Display` redact it, header values carry
//!   it marked sensitive, and every message taken from an endpoint is scrubbed of it. A key is
//!   refused over plain http except to loopback.
//! - **Config** ([`ProviderConfig`]): several providers at once, from flags
//!   ([`ProviderArgs`]: `--provider openai --base-url URL --model M`, each `--provider`
//!   starting a group) and JSON files (`--provider-config`, `{"providers": [...]}` like
//!   `--mcp-config`), validated together with errors naming the provider and the field.
//!
//! What the model sees is decided by the caller: the tool loop bound, trimming the
//! conversation to the model's context, and what a failed tool call says are the agent's.

pub mod anthropic;
pub mod args;
pub mod config;
pub mod error;
pub mod openai;
pub mod provider;
pub mod secret;
pub mod transport;
pub mod types;
pub mod wire;

pub use args::ProviderArgs;
pub use config::{
    ConfigError, KeyHeader, ProviderConfig, ProviderKind, ProviderSpec, RetryPolicy, Timeouts,
};
pub use error::{ProviderError, TimeoutPhase};
pub use provider::{Provider, SetupError};
pub use secret::{KeyError, KeySource, Secret};
pub use transport::{EventResult, EventStream};
pub use types::{
    AssistantPart, ChatRequest, FinishReason, Message, ModelInfo, ProviderEvent, ToolCall,
    ToolDefinition, Usage,
};
