//! The Anthropic Messages API: `POST {base}/v1/messages` with `stream: true`, `x-api-key` and
//! `anthropic-version`; decoded from `message_start`, `content_block_start/delta/stop`
//! (`text_delta`, `thinking_delta`, `signature_delta`, `input_json_delta`), `message_delta`
//! (stop reason, output tokens) and `message_stop`; `GET {base}/v1/models` for the model list.
//!
//! The conversation is mapped to alternating roles: tool results are `tool_result` blocks of
//! a user message, consecutive messages of one role are merged, reasoning goes back only with
//! its signature (the API refuses unsigned thinking), and a tool call's arguments that are not
//! a JSON object go back as `{}` (the API takes objects only). Unknown event and block types
//! are skipped (the API adds them over time); a stream that ends before `message_stop` was
//! cut; an `error` event is typed like the HTTP status it stands for.

use super::config::ProviderConfig;
use super::error::ProviderError;
use super::secret::Secret;
use super::types::{
    AssistantPart, ChatRequest, FinishReason, Message, ModelInfo, ProviderEvent, ToolCall, Usage,
};
use super::wire::{clean, Flow, Wire};
use http::{HeaderMap, HeaderValue};
use serde::Deserialize;
use serde_json::{json, Value};

/// Most content blocks one response may have.
const MAX_BLOCKS: usize = 1024;

/// The request body of `request` (`max_tokens` defaults to the provider's).
pub fn request_body(request: &ChatRequest, config: &ProviderConfig) -> Value {
    let mut messages: Vec<(&str, Vec<Value>)> = Vec::new();
    for message in &request.messages {
        let (role, blocks) = match message {
            Message::User { text } => ("user", vec![json!({"type": "text", "text": text})]),
            Message::ToolResult {
                call_id,
                content,
                is_error,
            } => {
                let mut block =
                    json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
                if *is_error {
                    block["is_error"] = true.into();
                }
                ("user", vec![block])
            }
            Message::Assistant { parts } => ("assistant", assistant(parts)),
        };
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => messages.push((role, blocks)),
        }
    }
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_tokens.unwrap_or(config.max_tokens),
        "messages": messages
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect::<Vec<_>>(),
        "stream": true,
    });
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        body["system"] = system.into();
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
    }
    body
}

fn assistant(parts: &[AssistantPart]) -> Vec<Value> {
    parts
        .iter()
        .filter_map(|part| match part {
            AssistantPart::Reasoning {
                text,
                signature: Some(signature),
            } => Some(json!({"type": "thinking", "thinking": text, "signature": signature})),
            AssistantPart::Reasoning {
                signature: None, ..
            } => None,
            AssistantPart::Text(text) if text.is_empty() => None,
            AssistantPart::Text(text) => Some(json!({"type": "text", "text": text})),
            AssistantPart::ToolCall(call) => {
                let input = match serde_json::from_str::<Value>(&call.arguments) {
                    Ok(object @ Value::Object(_)) => object,
                    _ => json!({}),
                };
                Some(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}))
            }
        })
        .collect()
}

/// The request headers: the key in `x-api-key` (marked sensitive), the API version.
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
    let version = HeaderValue::from_str(&config.anthropic_version)
        .map_err(|_| ProviderError::InvalidRequest("invalid anthropic-version".into()))?;
    headers.insert("anthropic-version", version);
    if let Some(key) = key {
        let mut value = HeaderValue::from_str(key.expose()).map_err(|_| {
            ProviderError::InvalidRequest("the API key is not a valid header value".into())
        })?;
        value.set_sensitive(true);
        headers.insert("x-api-key", value);
    }
    Ok(headers)
}

/// The models of a `GET /v1/models` answer (`{"data": [{"id", "display_name",
/// "max_input_tokens"?}]}`).
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
                display_name: m
                    .get("display_name")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                context_window: m
                    .get("max_input_tokens")
                    .and_then(Value::as_u64)
                    .filter(|&n| n > 0),
            })
        })
        .collect())
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    MessageStart {
        message: StartMessage,
    },
    ContentBlockStart {
        index: usize,
        content_block: Value,
    },
    ContentBlockDelta {
        index: usize,
        delta: Value,
    },
    ContentBlockStop {
        index: usize,
    },
    MessageDelta {
        delta: MessageDeltaBody,
        usage: Option<WireUsage>,
    },
    MessageStop,
    Error {
        error: Value,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct StartMessage {
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct MessageDeltaBody {
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

enum Block {
    Text,
    Thinking {
        signature: String,
    },
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    Skipped,
}

/// The Messages stream decoder.
#[derive(Default)]
pub struct AnthropicWire {
    blocks: Vec<(usize, Block)>,
    usage: Usage,
    saw_usage: bool,
    stop_reason: Option<String>,
    started: bool,
    key: Option<Secret>,
}

impl AnthropicWire {
    /// A decoder whose error messages are scrubbed of `key`.
    pub fn new(key: Option<Secret>) -> AnthropicWire {
        AnthropicWire {
            key,
            ..AnthropicWire::default()
        }
    }

    fn usage(&mut self, usage: WireUsage) {
        self.saw_usage = true;
        let u = &mut self.usage;
        u.input_tokens = usage.input_tokens.or(u.input_tokens);
        u.output_tokens = usage.output_tokens.or(u.output_tokens);
        u.cache_write_tokens = usage.cache_creation_input_tokens.or(u.cache_write_tokens);
        u.cache_read_tokens = usage.cache_read_input_tokens.or(u.cache_read_tokens);
    }

    fn block(&mut self, index: usize) -> Result<&mut Block, ProviderError> {
        self.blocks
            .iter_mut()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| b)
            .ok_or_else(|| {
                ProviderError::MalformedChunk(format!("content block {index} was never started"))
            })
    }

    fn start(
        &mut self,
        index: usize,
        block: Value,
        out: &mut Vec<ProviderEvent>,
    ) -> Result<(), ProviderError> {
        if self.blocks.len() >= MAX_BLOCKS || self.blocks.iter().any(|(i, _)| *i == index) {
            return Err(ProviderError::MalformedChunk(format!(
                "content block {index} started twice or too many blocks"
            )));
        }
        let text = |field: &str| block.get(field).and_then(Value::as_str).unwrap_or("");
        let block = match text("type") {
            "text" => {
                if !text("text").is_empty() {
                    out.push(ProviderEvent::TextDelta(text("text").into()));
                }
                Block::Text
            }
            "thinking" => {
                if !text("thinking").is_empty() {
                    out.push(ProviderEvent::ReasoningDelta(text("thinking").into()));
                }
                Block::Thinking {
                    signature: text("signature").into(),
                }
            }
            "tool_use" => {
                let (id, name) = (text("id"), text("name"));
                if id.is_empty() || name.is_empty() {
                    return Err(ProviderError::MalformedChunk(format!(
                        "tool_use block {index} has no id or name"
                    )));
                }
                // The input starts empty and streams as `input_json_delta`; a non-empty
                // one here is the whole input.
                let json = match block.get("input") {
                    Some(Value::Object(o)) if !o.is_empty() => Value::Object(o.clone()).to_string(),
                    _ => String::new(),
                };
                Block::ToolUse {
                    id: id.into(),
                    name: name.into(),
                    json,
                }
            }
            _ => Block::Skipped,
        };
        self.blocks.push((index, block));
        Ok(())
    }

    fn delta(
        &mut self,
        index: usize,
        delta: Value,
        out: &mut Vec<ProviderEvent>,
    ) -> Result<(), ProviderError> {
        let field = |name: &str| delta.get(name).and_then(Value::as_str);
        let missing =
            |what: &str| ProviderError::MalformedChunk(format!("a {what} without its text"));
        let block = self.block(index)?;
        match (delta.get("type").and_then(Value::as_str), block) {
            (Some("text_delta"), Block::Text) => {
                let text = field("text").ok_or_else(|| missing("text_delta"))?;
                if !text.is_empty() {
                    out.push(ProviderEvent::TextDelta(text.into()));
                }
            }
            (Some("thinking_delta"), Block::Thinking { .. }) => {
                let text = field("thinking").ok_or_else(|| missing("thinking_delta"))?;
                if !text.is_empty() {
                    out.push(ProviderEvent::ReasoningDelta(text.into()));
                }
            }
            (Some("signature_delta"), Block::Thinking { signature }) => {
                signature.push_str(field("signature").ok_or_else(|| missing("signature_delta"))?);
            }
            (Some("input_json_delta"), Block::ToolUse { json, .. }) => {
                json.push_str(field("partial_json").ok_or_else(|| missing("input_json_delta"))?);
            }
            (Some(kind @ ("text_delta" | "thinking_delta" | "input_json_delta")), _) => {
                return Err(ProviderError::MalformedChunk(format!(
                    "a {kind} for content block {index} of another type"
                )))
            }
            _ => {}
        }
        Ok(())
    }

    fn stop(&mut self, index: usize, out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        match std::mem::replace(self.block(index)?, Block::Skipped) {
            Block::ToolUse { id, name, json } => {
                let arguments = if json.trim().is_empty() {
                    "{}".to_string()
                } else {
                    json
                };
                out.push(ProviderEvent::ToolCall(ToolCall {
                    id,
                    name,
                    arguments,
                }));
            }
            Block::Thinking { signature } if !signature.is_empty() => {
                out.push(ProviderEvent::ReasoningSignature(signature));
            }
            _ => {}
        }
        Ok(())
    }

    fn error(&self, error: &Value) -> ProviderError {
        let kind = error
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("error")
            .to_string();
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let message = clean(message, self.key.as_ref());
        match kind.as_str() {
            "rate_limit_error" => ProviderError::RateLimited {
                retry_after: None,
                message,
            },
            "overloaded_error" => ProviderError::Server {
                status: 529,
                message,
            },
            "api_error" => ProviderError::Server {
                status: 500,
                message,
            },
            "authentication_error" => ProviderError::Auth {
                status: 401,
                message,
            },
            "permission_error" => ProviderError::Auth {
                status: 403,
                message,
            },
            _ => ProviderError::Stream { kind, message },
        }
    }
}

impl Wire for AnthropicWire {
    fn event(
        &mut self,
        _event: Option<&str>,
        data: &str,
        out: &mut Vec<ProviderEvent>,
    ) -> Result<Flow, ProviderError> {
        let event: Event = serde_json::from_str(data)
            .map_err(|e| ProviderError::MalformedChunk(format!("an event is not valid: {e}")))?;
        match event {
            Event::MessageStart { message } => {
                self.started = true;
                if let Some(usage) = message.usage {
                    self.usage(usage);
                }
            }
            Event::ContentBlockStart {
                index,
                content_block,
            } => self.start(index, content_block, out)?,
            Event::ContentBlockDelta { index, delta } => self.delta(index, delta, out)?,
            Event::ContentBlockStop { index } => self.stop(index, out)?,
            Event::MessageDelta { delta, usage } => {
                if delta.stop_reason.is_some() {
                    self.stop_reason = delta.stop_reason;
                }
                if let Some(usage) = usage {
                    self.usage(usage);
                }
            }
            Event::MessageStop => {
                if self.saw_usage {
                    out.push(ProviderEvent::Usage(self.usage));
                }
                let reason = match self.stop_reason.take().as_deref() {
                    None | Some("end_turn" | "stop_sequence") => FinishReason::Stop,
                    Some("max_tokens") => FinishReason::Length,
                    Some("tool_use") => FinishReason::ToolCalls,
                    Some("refusal") => FinishReason::ContentFilter,
                    Some(other) => FinishReason::Other(other.into()),
                };
                out.push(ProviderEvent::Finish(reason));
                return Ok(Flow::Done);
            }
            Event::Error { error } => return Err(self.error(&error)),
            Event::Other => {}
        }
        Ok(Flow::Continue)
    }

    fn end(&mut self, _out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        Err(ProviderError::StreamCut(if self.started {
            "the stream ended before `message_stop`".into()
        } else {
            "the stream ended before `message_start`".into()
        }))
    }
}
