//! What a provider is asked (a [`ChatRequest`]) and what it answers (a stream of
//! [`ProviderEvent`]s), the same for every wire format.

use serde_json::Value;

/// One model turn to run: the whole conversation, since the endpoints are stateless.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The model id sent to the endpoint.
    pub model: String,
    /// The system message (the host's rendered prompt sections); `None` or empty: none sent.
    pub system: Option<String>,
    /// The conversation, oldest first.
    pub messages: Vec<Message>,
    /// The tools the model may call.
    pub tools: Vec<ToolDefinition>,
    /// Most tokens the model may produce (Anthropic requires one; the provider's configured
    /// default applies when `None`).
    pub max_tokens: Option<u32>,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// What the user said.
    User { text: String },
    /// What the model answered, in order: reasoning, text, tool calls.
    Assistant { parts: Vec<AssistantPart> },
    /// The result of one of the model's tool calls, fed back.
    ToolResult {
        /// The [`ToolCall::id`] it answers.
        call_id: String,
        /// The result as text.
        content: String,
        /// Whether the tool failed (Anthropic shows it to the model; OpenAI has no flag).
        is_error: bool,
    },
}

/// A piece of an assistant message.
#[derive(Debug, Clone, PartialEq)]
pub enum AssistantPart {
    /// Visible text.
    Text(String),
    /// Reasoning; Anthropic needs its `signature` back with tool use, OpenAI-compatible
    /// endpoints are not sent reasoning at all.
    Reasoning {
        text: String,
        signature: Option<String>,
    },
    /// A tool call the model made.
    ToolCall(ToolCall),
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// A JSON Schema of its arguments (an object schema).
    pub input_schema: Value,
}

/// A tool call the model made, assembled from its streamed pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The provider's id of the call (results are fed back under it).
    pub id: String,
    /// The tool's name, as the model wrote it (it may name no known tool).
    pub name: String,
    /// The arguments as JSON text, as the model wrote them (they may not parse); `{}` when the
    /// model sent none.
    pub arguments: String,
}

impl ToolCall {
    /// The arguments parsed: a JSON object, else a message saying why not.
    pub fn parsed_arguments(&self) -> Result<serde_json::Map<String, Value>, String> {
        match serde_json::from_str::<Value>(&self.arguments) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(format!(
                "the arguments of `{}` are not a JSON object",
                self.name
            )),
            Err(e) => Err(format!(
                "the arguments of `{}` are not valid JSON: {e}",
                self.name
            )),
        }
    }
}

/// Token counts of one response (what the endpoint reported; absent counts are `None`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// Input tokens read from the provider's prompt cache.
    pub cache_read_tokens: Option<u64>,
    /// Input tokens written to the provider's prompt cache (Anthropic).
    pub cache_write_tokens: Option<u64>,
    /// Output tokens spent on reasoning (OpenAI-compatible endpoints that report it).
    pub reasoning_tokens: Option<u64>,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    /// It was done.
    Stop,
    /// It hit the token limit.
    Length,
    /// It wants its tool calls run (the turn continues with their results).
    ToolCalls,
    /// The provider withheld or cut the content.
    ContentFilter,
    /// Anything else the endpoint said, verbatim.
    Other(String),
}

/// One normalized event of a streamed response. A stream that ends well ends with
/// [`ProviderEvent::Finish`], right after [`ProviderEvent::Usage`] when the endpoint reported
/// usage; one that fails ends with an error instead.
#[derive(Debug, Clone, PartialEq)]
pub enum ProviderEvent {
    /// More visible text.
    TextDelta(String),
    /// More reasoning text.
    ReasoningDelta(String),
    /// The signature of the reasoning block just streamed (Anthropic), to send back with it.
    ReasoningSignature(String),
    /// A complete tool call (emitted once all its pieces arrived).
    ToolCall(ToolCall),
    /// The response's token counts.
    Usage(Usage),
    /// The end of the response.
    Finish(FinishReason),
}

/// A model an endpoint lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// The id requests name.
    pub id: String,
    /// A display name, when the endpoint gives one.
    pub display_name: Option<String>,
    /// Its context window in tokens, when the endpoint says.
    pub context_window: Option<u64>,
}
