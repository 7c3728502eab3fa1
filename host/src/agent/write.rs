//! `/write <file> <text>`: the server tool `write_file`, run at once (a write the user typed
//! needs no second confirmation): `toolCallStart`, `toolCallReady` with `confirmed:
//! not-needed`, then `toolCallComplete` with a `fileEdit` result. The hub looks at the
//! session's changeset again when the call completes (`hub/turns.rs`).

use super::{Step, Turn};

impl Turn {
    pub(super) async fn write_file(&mut self, path: String, text: String) -> Step {
        let id = self
            .tool_start("write_file", "Write file", None, None)
            .await?;
        let input = serde_json::json!({ "path": path, "text": text }).to_string();
        self.tool_ready(&id, format!("Writing `{path}`"), input, None)
            .await?;
        let out = self.write_tool(&id, path, text).await?;
        self.say(&format!("\n\n{}\n\n", out.summary)).await
    }
}
