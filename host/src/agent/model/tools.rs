//! The tools a model agent offers the model: the host's own (files in the working directory,
//! a command in a session terminal), the session's ready MCP servers' and the active client's,
//! the same set the built-in agent reaches with its directives. In `ask` mode none are
//! offered. Names follow every endpoint's rule (`[A-Za-z0-9_-]{1,64}`); a tool whose name does
//! not is left out, and the first of two tools with one name wins (host, MCP, client).

use crate::agent::TurnJob;
use crate::providers::ToolDefinition;
use serde_json::{json, Value};

/// Who runs a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `list_files` / `read_file` (confirmed first).
    File,
    /// `write_file` (confirmed first).
    Write,
    /// `run_in_terminal` (confirmed first: the model chose the command, not the user).
    Run,
    /// Tool `tool` of the MCP server named `server` (confirmed first).
    Mcp { server: String, tool: String },
    /// The active client (it decides; `confirmed: not-needed` as for the built-in agent).
    Client,
}

/// A tool as the model sees it, and who runs it.
#[derive(Debug, Clone)]
pub struct Offered {
    pub definition: ToolDefinition,
    pub route: Route,
}

/// Whether every endpoint takes `name` as a tool name.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

/// The host's own tools.
fn host_tools() -> Vec<Offered> {
    let path =
        json!({ "type": "string", "description": "A path relative to the working directory" });
    let tool = |name: &str, description: &str, schema: Value, route: Route| Offered {
        definition: ToolDefinition {
            name: name.into(),
            description: description.into(),
            input_schema: schema,
        },
        route,
    };
    vec![
        tool(
            "list_files",
            "Lists a directory inside the session's working directory (directories end with /).",
            object_schema(json!({ "path": path }), &["path"]),
            Route::File,
        ),
        tool(
            "read_file",
            "Reads a text file inside the session's working directory (its first 64 KiB).",
            object_schema(json!({ "path": path }), &["path"]),
            Route::File,
        ),
        tool(
            "write_file",
            "Writes text to a file inside the session's working directory (creating it and \
             missing directories; replacing what it held).",
            object_schema(
                json!({ "path": path, "text": { "type": "string", "description": "The whole new content" } }),
                &["path", "text"],
            ),
            Route::Write,
        ),
        tool(
            "run_in_terminal",
            "Runs a shell command in a terminal of the session, in the working directory, and \
             answers its exit code and the end of its output; with `background`, answers once \
             it started and leaves it running (listed as the chat's background work until it \
             exits).",
            object_schema(
                json!({
                    "command": { "type": "string", "description": "The command line (bash)" },
                    "timeoutSecs": { "type": "integer", "description": "Longest run in seconds (default 60, at most 600)" },
                    "background": { "type": "boolean", "description": "Leave it running (a server, a watcher): the answer comes once it started" }
                }),
                &["command"],
            ),
            Route::Run,
        ),
    ]
}

/// An input schema as the endpoints take it: a JSON object schema.
fn schema_of(raw: Option<&Value>) -> Value {
    match raw {
        Some(Value::Object(o)) if o.get("type").and_then(Value::as_str) == Some("object") => {
            Value::Object(o.clone())
        }
        _ => json!({ "type": "object", "properties": {} }),
    }
}

/// The tools of this turn (none in `ask` mode).
pub fn offered(job: &TurnJob) -> Vec<Offered> {
    if job.mode == crate::agent::config::Mode::Ask {
        return Vec::new();
    }
    let mut out = host_tools();
    let add = |offered: Offered, out: &mut Vec<Offered>| {
        let name = &offered.definition.name;
        if valid_name(name) && !out.iter().any(|o| &o.definition.name == name) {
            out.push(offered);
        }
    };
    for handle in &job.mcp {
        for tool in handle.conn.tools().iter() {
            let text = |k: &str| tool.raw.get(k).and_then(Value::as_str).map(str::to_owned);
            let definition = ToolDefinition {
                name: crate::mcp::tool_name(&handle.name, &tool.name),
                description: text("description")
                    .or_else(|| text("title"))
                    .unwrap_or_else(|| format!("Tool {} of MCP server {}", tool.name, handle.name)),
                input_schema: schema_of(tool.raw.get("inputSchema")),
            };
            let route = Route::Mcp {
                server: handle.name.clone(),
                tool: tool.name.clone(),
            };
            add(Offered { definition, route }, &mut out);
        }
    }
    if let Some(client) = &job.active_client {
        for tool in &client.tools {
            let schema = tool.input_schema.clone().map(Value::Object);
            let definition = ToolDefinition {
                name: tool.name.clone(),
                description: tool
                    .description
                    .clone()
                    .or_else(|| tool.title.clone())
                    .unwrap_or_else(|| format!("A tool of the client {}", client.client_id)),
                input_schema: schema_of(schema.as_ref()),
            };
            add(
                Offered {
                    definition,
                    route: Route::Client,
                },
                &mut out,
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_endpoints_rule() {
        assert!(valid_name("mcp__files__read-it"));
        assert!(!valid_name(""));
        assert!(!valid_name("has space"));
        assert!(!valid_name(&"x".repeat(65)));
        let names: Vec<String> = host_tools()
            .into_iter()
            .map(|t| t.definition.name)
            .collect();
        assert!(names.iter().all(|n| valid_name(n)), "{names:?}");
    }
}
