//! OpenAI-compatible Chat Completions: `POST {base}/chat/completions` with `stream: true` and
//! `stream_options.include_usage`, decoded from `data:` chunks up to `data: [DONE]`;
//! `GET {base}/models` for the model list.
//!
//! Servers differ, so the decoder is lenient where the format is loose and strict where it
//! matters: reasoning arrives as `reasoning_content` (DeepSeek, vLLM, llama.cpp) or
//! `reasoning` (OpenRouter, Ollama); tool calls are assembled by `index` (a server that sends
//! none gets one call per new `id`); a chunk that is not JSON, or a tool call without a name,
//! is a [`ProviderError::MalformedChunk`]. A stream that ends without `[DONE]` and without a
//! `finish_reason` was cut. Tool calls are emitted when the choice finishes, and a finish of
//! `stop` with tool calls is reported as [`FinishReason::ToolCalls`] (some servers say `stop`).

use super::config::{KeyHeader, ProviderConfig};
use super::error::ProviderError;
use super::secret::Secret;
use super::types::{
    AssistantPart, ChatRequest, FinishReason, Message, ModelInfo, ProviderEvent, ToolCall, Usage,
};
use super::wire::{clean, Flow, Wire};
use http::{HeaderMap, HeaderValue};
use serde::Deserialize;
use serde_json::{json, Value};

/// Most tool calls one response may make.
const MAX_TOOL_CALLS: usize = 128;

/// The request body of `request`.
pub fn request_body(request: &ChatRequest) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        messages.push(match message {
            Message::User { text } => json!({"role": "user", "content": text}),
            Message::ToolResult {
                call_id, content, ..
            } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
            Message::Assistant { parts } => assistant(parts),
        });
    }
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema,
                }})
            })
            .collect();
    }
    if let Some(max) = request.max_tokens {
        body["max_tokens"] = max.into();
    }
    body
}

/// An assistant message: its text joined, its tool calls; reasoning is not sent back.
fn assistant(parts: &[AssistantPart]) -> Value {
    let mut text = String::new();
    let mut calls = Vec::new();
    for part in parts {
        match part {
            AssistantPart::Text(t) => text.push_str(t),
            AssistantPart::Reasoning { .. } => {}
            AssistantPart::ToolCall(call) => calls.push(json!({
                "id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            })),
        }
    }
    let mut message = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { text.into() }});
    if !calls.is_empty() {
        message["tool_calls"] = calls.into();
    }
    message
}

/// The request headers: JSON in, events out, the key as configured (marked sensitive).
pub fn headers(config: &ProviderConfig, key: Option<&Secret>) -> Result<HeaderMap, ProviderError> {
    let mut headers = HeaderMap::new();
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        http::header::ACCEPT,
        HeaderValue::from_static("text/event-stream"),
    );
    if let Some(key) = key {
        let (name, value) = match config.key_header {
            KeyHeader::Bearer => (
                http::header::AUTHORIZATION,
                format!("Bearer {}", key.expose()),
            ),
            KeyHeader::ApiKey => (
                http::HeaderName::from_static("api-key"),
                key.expose().to_string(),
            ),
        };
        let mut value = HeaderValue::from_str(&value).map_err(|_| {
            ProviderError::InvalidRequest("the API key is not a valid header value".into())
        })?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    Ok(headers)
}

/// The models of a `GET /models` answer (`{"data": [{"id": ...}]}`).
pub fn parse_models(body: &Value) -> Result<Vec<ModelInfo>, ProviderError> {
    let data = body
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::MalformedChunk("the model list has no `data`".into()))?;
    Ok(data
        .iter()
        .filter_map(|m| {
            Some(ModelInfo {
                id: m.get("id")?.as_str()?.to_string(),
                display_name: None,
                context_window: context_window(m),
            })
        })
        .collect())
}

/// The context window a listed model states, under the names the compatible servers use:
/// `context_length` (OpenRouter), `max_model_len` (vLLM), `context_window` (Groq),
/// `max_context_length` (Mistral, LM Studio). Plain OpenAI and Ollama state none.
fn context_window(model: &Value) -> Option<u64> {
    [
        "context_length",
        "max_model_len",
        "context_window",
        "max_context_length",
    ]
    .iter()
    .find_map(|k| model.get(*k)?.as_u64())
    .filter(|&n| n > 0)
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    index: u32,
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Deserialize)]
struct ToolCallDelta {
    index: Option<u32>,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    prompt_tokens_details: Option<PromptDetails>,
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Deserialize)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    reasoning_tokens: Option<u64>,
}

struct PartialCall {
    index: Option<u32>,
    id: String,
    name: String,
    arguments: String,
}

/// The Chat Completions stream decoder.
#[derive(Default)]
pub struct OpenAiWire {
    calls: Vec<PartialCall>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    /// Whether any tool call was emitted (a `stop` finish then means `tool_calls`).
    any_calls: bool,
    key: Option<Secret>,
}

impl OpenAiWire {
    /// A decoder whose error messages are scrubbed of `key`.
    pub fn new(key: Option<Secret>) -> OpenAiWire {
        OpenAiWire {
            key,
            ..OpenAiWire::default()
        }
    }

    fn tool_delta(&mut self, delta: ToolCallDelta) -> Result<(), ProviderError> {
        let slot = match delta.index {
            Some(index) => self.calls.iter().position(|c| c.index == Some(index)),
            // No index: a new id starts a new call, anything else continues the last one.
            None => match &delta.id {
                Some(id)
                    if self
                        .calls
                        .last()
                        .is_none_or(|c| !c.id.is_empty() && c.id != *id) =>
                {
                    None
                }
                _ => self.calls.len().checked_sub(1),
            },
        };
        let slot = match slot {
            Some(slot) => slot,
            None => {
                if self.calls.len() >= MAX_TOOL_CALLS {
                    return Err(ProviderError::MalformedChunk(format!(
                        "more than {MAX_TOOL_CALLS} tool calls"
                    )));
                }
                self.calls.push(PartialCall {
                    index: delta.index,
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[slot];
        if let Some(id) = delta.id.filter(|id| !id.is_empty()) {
            if call.id.is_empty() {
                call.id = id;
            }
        }
        if let Some(function) = delta.function {
            if let Some(name) = function.name.filter(|n| !n.is_empty()) {
                if call.name.is_empty() {
                    call.name = name;
                }
            }
            if let Some(arguments) = function.arguments {
                call.arguments.push_str(&arguments);
            }
        }
        Ok(())
    }

    /// Emits the assembled tool calls (in index order).
    fn flush_calls(&mut self, out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        let mut calls = std::mem::take(&mut self.calls);
        calls.sort_by_key(|c| c.index);
        for (n, call) in calls.into_iter().enumerate() {
            if call.name.is_empty() {
                return Err(ProviderError::MalformedChunk(format!(
                    "tool call {n} has no function name"
                )));
            }
            let id = if call.id.is_empty() {
                format!("call_{n}")
            } else {
                call.id
            };
            let arguments = if call.arguments.trim().is_empty() {
                "{}".to_string()
            } else {
                call.arguments
            };
            self.any_calls = true;
            out.push(ProviderEvent::ToolCall(ToolCall {
                id,
                name: call.name,
                arguments,
            }));
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        self.flush_calls(out)?;
        let had_calls = self.any_calls;
        if let Some(usage) = self.usage.take() {
            out.push(ProviderEvent::Usage(usage));
        }
        let reason = match self.finish.take() {
            Some(FinishReason::Stop) | None if had_calls => FinishReason::ToolCalls,
            Some(reason) => reason,
            None => FinishReason::Stop,
        };
        out.push(ProviderEvent::Finish(reason));
        Ok(())
    }

    fn stream_error(&self, error: &Value) -> ProviderError {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| error.to_string());
        let message = clean(&message, self.key.as_ref());
        let code = error.get("code").and_then(Value::as_u64);
        match code {
            Some(429) => ProviderError::RateLimited {
                retry_after: None,
                message,
            },
            Some(status @ 500..=599) => ProviderError::Server {
                status: status as u16,
                message,
            },
            _ => ProviderError::Stream {
                kind: error
                    .get("type")
                    .or_else(|| error.get("code"))
                    .map(|k| k.as_str().map(str::to_string).unwrap_or(k.to_string()))
                    .unwrap_or_else(|| "an error".into()),
                message,
            },
        }
    }
}

impl Wire for OpenAiWire {
    fn event(
        &mut self,
        _event: Option<&str>,
        data: &str,
        out: &mut Vec<ProviderEvent>,
    ) -> Result<Flow, ProviderError> {
        if data.trim() == "[DONE]" {
            self.finish(out)?;
            return Ok(Flow::Done);
        }
        let chunk: Chunk = serde_json::from_str(data)
            .map_err(|e| ProviderError::MalformedChunk(format!("a chunk is not valid: {e}")))?;
        if let Some(error) = chunk.error {
            return Err(self.stream_error(&error));
        }
        if let Some(usage) = chunk.usage {
            self.usage = Some(Usage {
                input_tokens: usage.prompt_tokens,
                output_tokens: usage.completion_tokens,
                cache_read_tokens: usage.prompt_tokens_details.and_then(|d| d.cached_tokens),
                cache_write_tokens: None,
                reasoning_tokens: usage
                    .completion_tokens_details
                    .and_then(|d| d.reasoning_tokens),
            });
        }
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            if let Some(delta) = choice.delta {
                if let Some(reasoning) = delta.reasoning_content.or(delta.reasoning) {
                    if !reasoning.is_empty() {
                        out.push(ProviderEvent::ReasoningDelta(reasoning));
                    }
                }
                if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                    out.push(ProviderEvent::TextDelta(text));
                }
                for call in delta.tool_calls.into_iter().flatten() {
                    self.tool_delta(call)?;
                }
            }
            // Some servers send `""` for "not yet".
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.finish = Some(match reason.as_str() {
                    "stop" => FinishReason::Stop,
                    "length" => FinishReason::Length,
                    "tool_calls" | "function_call" => FinishReason::ToolCalls,
                    "content_filter" => FinishReason::ContentFilter,
                    _ => FinishReason::Other(reason),
                });
                self.flush_calls(out)?;
            }
        }
        Ok(Flow::Continue)
    }

    fn end(&mut self, out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        if self.finish.is_none() {
            return Err(ProviderError::StreamCut(
                "the stream ended without `[DONE]` or a finish reason".into(),
            ));
        }
        self.finish(out)
    }
}
