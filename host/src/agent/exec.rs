//! Running a tool call once it is started (and confirmed where it needs to be): the host's
//! file tools, an MCP server's tool, a client's tool. Shared by the built-in agent's
//! directives and the model agents' tool calls (`model/`), so both run tools, ask for tokens
//! and complete calls the same way.

use super::{calls, tools, AgentEvent, Stopped, Turn};
use crate::mcp::{CallError, ServerHandle};
use ahp_wasm::protocol::*;

impl Turn {
    /// Runs `list_files` or `read_file` (by `name`) on `path` and completes call `id`.
    pub(crate) async fn file_tool(
        &mut self,
        id: &str,
        name: &str,
        path: String,
    ) -> Result<tools::Output, Stopped> {
        let workdir = self.job.workdir.clone();
        let tool = name.to_owned();
        let out = tokio::task::spawn_blocking(move || match tool.as_str() {
            "list_files" => tools::list_files(&workdir, &path),
            _ => tools::read_file(&workdir, &path),
        })
        .await
        .map_err(|_| Stopped)?;
        let content = vec![calls::text_content(&out.text)];
        let result = calls::tool_result(out.success, &out.summary, content, None);
        self.complete_tool(id, result).await?;
        Ok(out)
    }

    /// Runs `write_file` and completes call `id` with the edit.
    pub(crate) async fn write_tool(
        &mut self,
        id: &str,
        path: String,
        text: String,
    ) -> Result<tools::Output, Stopped> {
        let workdir = self.job.workdir.clone();
        let (out, edit) =
            tokio::task::spawn_blocking(move || tools::write_file(&workdir, &path, &text))
                .await
                .map_err(|_| Stopped)?;
        let mut content = vec![calls::text_content(&out.text)];
        content.extend(edit.map(ToolResultContent::FileEdit));
        let result = calls::tool_result(out.success, &out.summary, content, None);
        self.complete_tool(id, result).await?;
        Ok(out)
    }

    /// Calls MCP tool `tool` of `handle` for call `id` (asking for a new token when the server
    /// refuses it for authorization) and completes the call with the mapped result.
    pub(crate) async fn mcp_call(
        &mut self,
        handle: &ServerHandle,
        id: &str,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<ToolCallResult, Stopped> {
        let result = match handle.conn.call_tool(tool, arguments.clone()).await {
            Err(CallError::Denied(_)) => self.step_up(handle, id, tool, arguments).await?,
            other => other.map_err(|e| ("McpError", e.to_string())),
        };
        let result = match result {
            Ok(result) => crate::mcp::map_result(tool, &result),
            Err((code, message)) => crate::mcp::failed_result(tool, code, message),
        };
        self.complete_tool(id, result.clone()).await?;
        Ok(result)
    }

    /// Waits for the client that provides call `id` to complete it.
    pub(crate) async fn client_result(&mut self, id: &str) -> Result<Box<ToolCallResult>, Stopped> {
        let result = loop {
            match self.next_event().await? {
                AgentEvent::ToolCompleted {
                    tool_call_id,
                    result,
                } if tool_call_id == id => break result,
                other => self.backlog.push_back(other),
            }
        };
        self.markdown = None;
        Ok(result)
    }
}
