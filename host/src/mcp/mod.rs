//! MCP servers: declared in `.mcp.json` (the session's working directory) and `--mcp-config`
//! (every session), run per session with the official Rust MCP SDK (`rmcp`), surfaced as
//! top-level `McpServerCustomization`s whose `state` the hub changes through the reducers, and
//! lent to the built-in agent as tools with an `mcp` contributor.
//!
//! - [`config`]: the declarations (the operator's, and the working directory's);
//! - [`trust`]: what approving a working directory's server approves (digest, shown text);
//! - [`client`]: one running server (`rmcp` client over stdio or streamable HTTP), bounded;
//! - [`process`]: the child processes of stdio servers (spawned so they die with the host);
//! - [`auth`]: HTTP servers that need a bearer token (challenges, metadata, the token type);
//! - [`apps`]: MCP Apps: which servers host them, what their `mcp://` channel serves;
//! - this module: what the hub and the agent exchange about servers, and the mapping of MCP
//!   tools and results to AHP.
//!
//! The hub side (starting, stopping, toggles, state changes) is `hub/mcp/`.

pub mod apps;
pub mod auth;
pub mod client;
pub mod config;
pub mod process;
pub mod trust;

pub use client::{CallError, ConnectError, McpConnection, McpLimits, Upstream};

use ahp_wasm::protocol::{
    JsonObject, McpServerAuthRequiredState, StringOrMarkdown, ToolAnnotations, ToolCallResult,
    ToolCallResultError, ToolDefinition, ToolResultContent, ToolResultEmbeddedResourceContent,
    ToolResultResourceContent, ToolResultTextContent,
};
use base64::Engine;
use serde_json::{json, Value};
use std::sync::Arc;

/// A tool a server offers, as listed by `tools/list` (MCP wire JSON).
#[derive(Debug, Clone)]
pub struct McpTool {
    /// The MCP tool name.
    pub name: String,
    /// The whole MCP `Tool` object.
    pub raw: Value,
}

/// Cuts a message to about `max` characters.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// What a server task reports to the hub.
#[derive(Debug)]
pub enum McpEvent {
    /// `initialize` and `tools/list` completed.
    Ready {
        /// Session URI.
        channel: String,
        /// Customization id.
        id: String,
        /// The start attempt.
        generation: u64,
        /// The connection.
        conn: Arc<McpConnection>,
    },
    /// A ready server sent a notification the `mcp://` channel may forward.
    Notified {
        /// Session URI.
        channel: String,
        /// Customization id.
        id: String,
        /// The start attempt.
        generation: u64,
        /// The notification's method.
        method: &'static str,
    },
    /// A ready server's tools were listed again (after `notifications/tools/list_changed`)
    /// and differ.
    ToolsChanged {
        /// Session URI.
        channel: String,
        /// Customization id.
        id: String,
        /// The start attempt.
        generation: u64,
    },
    /// The server refused for authorization, at connect time or (`during_call`) on a request
    /// of the ready server.
    AuthRequired {
        /// Session URI.
        channel: String,
        /// Customization id.
        id: String,
        /// The start attempt.
        generation: u64,
        /// The state to publish (the challenge and the discovered metadata).
        state: Box<McpServerAuthRequiredState>,
        /// A request of the ready server was refused (not its `initialize`).
        during_call: bool,
    },
    /// The start failed, or a ready server went away.
    Failed {
        /// Session URI.
        channel: String,
        /// Customization id.
        id: String,
        /// The start attempt.
        generation: u64,
        /// Why (with a stderr tail when there is one).
        reason: String,
    },
}

/// A ready server as the agent sees it for one turn.
#[derive(Debug, Clone)]
pub struct ServerHandle {
    /// The server's name (the key in `mcpServers`).
    pub name: String,
    /// Its customization id.
    pub customization_id: String,
    /// The connection.
    pub conn: Arc<McpConnection>,
    /// The start attempt that made the connection (a newer one means a new connection).
    pub generation: u64,
}

/// The name an MCP tool has in `serverTools` and in tool calls.
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// The `serverTools` entry of an MCP tool: name, title, description and annotations from the
/// server, its input and output schemas verbatim; `_meta.contributor` names the server's
/// customization (`{kind: mcp, customizationId}`) and `_meta.mcpTool` the tool's MCP name.
pub fn tool_definition(server: &str, customization_id: &str, tool: &McpTool) -> ToolDefinition {
    let raw = &tool.raw;
    let text = |k: &str| raw.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut meta = JsonObject::new();
    meta.insert(
        "contributor".into(),
        json!({"kind": "mcp", "customizationId": customization_id}),
    );
    meta.insert("mcpTool".into(), Value::from(tool.name.clone()));
    let schema = |k: &str| raw.get(k).and_then(Value::as_object).cloned();
    ToolDefinition {
        name: tool_name(server, &tool.name),
        title: text("title").or_else(|| Some(tool.name.clone())),
        description: text("description"),
        input_schema: Some(schema("inputSchema").unwrap_or_else(|| {
            let mut object = JsonObject::new();
            object.insert("type".into(), Value::from("object"));
            object
        })),
        output_schema: schema("outputSchema"),
        annotations: raw
            .get("annotations")
            .and_then(|a| serde_json::from_value::<ToolAnnotations>(a.clone()).ok()),
        meta: Some(meta),
        extra: Default::default(),
    }
}

/// Maps an MCP `CallToolResult` (wire JSON) to an AHP tool call result: text as text, images
/// and audio and embedded resources as embedded resources (base64 with their content type),
/// resource links as resource references; `isError` makes it a failure.
pub fn map_result(tool: &str, result: &Value) -> ToolCallResult {
    let content: Vec<ToolResultContent> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(map_content)
        .collect();
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let text: Vec<&str> = content
        .iter()
        .filter_map(|c| match c {
            ToolResultContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    let structured = result
        .get("structuredContent")
        .and_then(Value::as_object)
        .cloned();
    ToolCallResult {
        success: !is_error,
        past_tense_message: StringOrMarkdown::Plain(if is_error {
            format!("`{tool}` failed")
        } else {
            format!("Called `{tool}`")
        }),
        content: (!content.is_empty()).then_some(content.clone()),
        structured_content: structured,
        error: is_error.then(|| ToolCallResultError {
            message: if text.is_empty() {
                "the tool reported an error".into()
            } else {
                clip(&text.join("\n"), 1000)
            },
            code: Some("McpToolError".into()),
            extra: Default::default(),
        }),
        extra: Default::default(),
    }
}

fn map_content(c: &Value) -> Option<ToolResultContent> {
    let s = |k: &str| c.get(k).and_then(Value::as_str);
    Some(match s("type")? {
        "text" => ToolResultContent::Text(ToolResultTextContent {
            text: s("text")?.to_owned(),
            extra: Default::default(),
        }),
        "image" | "audio" => embedded(s("data")?.to_owned(), s("mimeType")),
        "resource_link" => ToolResultContent::Resource(ToolResultResourceContent {
            uri: s("uri")?.to_owned(),
            size_hint: c.get("size").and_then(Value::as_f64),
            content_type: s("mimeType").map(str::to_owned),
            extra: Default::default(),
        }),
        "resource" => {
            let r = c.get("resource")?;
            let mime = r.get("mimeType").and_then(Value::as_str);
            match (r.get("text"), r.get("blob")) {
                (Some(Value::String(text)), _) => embedded(
                    base64::engine::general_purpose::STANDARD.encode(text),
                    mime.or(Some("text/plain")),
                ),
                (_, Some(Value::String(blob))) => embedded(blob.clone(), mime),
                _ => return None,
            }
        }
        _ => return None,
    })
}

fn embedded(data: String, mime: Option<&str>) -> ToolResultContent {
    ToolResultContent::EmbeddedResource(ToolResultEmbeddedResourceContent {
        data,
        content_type: mime.unwrap_or("application/octet-stream").to_owned(),
        extra: Default::default(),
    })
}

/// A failed tool call result with `message`.
pub fn failed_result(tool: &str, code: &str, message: String) -> ToolCallResult {
    ToolCallResult {
        success: false,
        past_tense_message: StringOrMarkdown::Plain(format!("`{tool}` failed")),
        content: Some(vec![ToolResultContent::Text(ToolResultTextContent {
            text: message.clone(),
            extra: Default::default(),
        })]),
        structured_content: None,
        error: Some(ToolCallResultError {
            message,
            code: Some(code.into()),
            extra: Default::default(),
        }),
        extra: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_every_mcp_content_kind() {
        let r = map_result(
            "t",
            &json!({"content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "aGk=", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "file:///x", "name": "x", "mimeType": "text/plain"},
                {"type": "resource", "resource": {"uri": "file:///y", "text": "yo"}},
                {"type": "mystery"}
            ], "structuredContent": {"a": 1}}),
        );
        assert!(r.success);
        let content = r.content.unwrap();
        assert_eq!(content.len(), 4);
        assert!(
            matches!(&content[1], ToolResultContent::EmbeddedResource(e) if e.content_type == "image/png" && e.data == "aGk=")
        );
        assert!(matches!(&content[2], ToolResultContent::Resource(l) if l.uri == "file:///x"));
        assert!(matches!(&content[3], ToolResultContent::EmbeddedResource(e) if e.data == "eW8="));
        assert!(r.structured_content.is_some());
        let e = map_result(
            "t",
            &json!({"content": [{"type": "text", "text": "bad"}], "isError": true}),
        );
        assert!(!e.success);
        assert_eq!(e.error.unwrap().message, "bad");
    }
}
