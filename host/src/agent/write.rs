//! `/write <file> <text>`: the server tool `write_file`, run at once (a write the user typed
//! needs no second confirmation): `toolCallStart`, `toolCallReady` with `confirmed:
//! not-needed`, then `toolCallComplete` with a `fileEdit` result. The hub looks at the
//! session's changeset again when the call completes (`hub/turns.rs`).

use super::{calls, tools, Step, Stopped, Turn};
use ahp_wasm::protocol::*;

impl Turn {
    pub(super) async fn write_file(&mut self, path: String, text: String) -> Step {
        let id = self
            .tool_start("write_file", "Write file", None, None)
            .await?;
        let input = serde_json::json!({ "path": path, "text": text }).to_string();
        self.tool_ready(&id, format!("Writing `{path}`"), input, None)
            .await?;
        let workdir = self.job.workdir.clone();
        let rel = path.clone();
        let (out, edit) =
            tokio::task::spawn_blocking(move || tools::write_file(&workdir, &rel, &text))
                .await
                .map_err(|_| Stopped)?;
        let mut content = vec![calls::text_content(&out.text)];
        content.extend(edit.map(ToolResultContent::FileEdit));
        let result = calls::tool_result(out.success, &out.summary, content, None);
        self.complete_tool(&id, result).await?;
        self.say(&format!("\n\n{}\n\n", out.summary)).await
    }
}
