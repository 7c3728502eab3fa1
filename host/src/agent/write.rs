//! `/write <file> <text>`: the server tool `write_file`, run at once (a write the user typed
//! needs no second confirmation): `toolCallStart`, `toolCallReady` with `confirmed:
//! not-needed`, then `toolCallComplete` with a `fileEdit` result. The hub looks at the
//! session's changeset again when the call completes (`hub/turns.rs`).

use super::{tools, Step, Stopped, Turn};
use ahp_wasm::protocol::*;

impl Turn {
    pub(super) async fn write_file(&mut self, path: String, text: String) -> Step {
        let id = self
            .tool_start("write_file", "Write file", None, None)
            .await?;
        let input = serde_json::json!({ "path": path, "text": text }).to_string();
        self.emit(vec![StateAction::SessionToolCallReady(Box::new(
            SessionToolCallReadyAction {
                turn_id: self.job.turn_id.clone(),
                tool_call_id: id.clone(),
                meta: None,
                invocation_message: StringOrMarkdown::Plain(format!("Writing `{path}`")),
                tool_input: Some(input),
                confirmation_title: None,
                edits: None,
                editable: None,
                confirmed: Some(ToolCallConfirmationReason::NotNeeded),
                options: None,
                extra: Default::default(),
            },
        ))])
        .await?;
        let workdir = self.job.workdir.clone();
        let rel = path.clone();
        let (out, edit) =
            tokio::task::spawn_blocking(move || tools::write_file(&workdir, &rel, &text))
                .await
                .map_err(|_| Stopped)?;
        let mut content = vec![ToolResultContent::Text(ToolResultTextContent {
            text: out.text.clone(),
            extra: Default::default(),
        })];
        content.extend(edit.map(ToolResultContent::FileEdit));
        self.emit(vec![StateAction::SessionToolCallComplete(Box::new(
            SessionToolCallCompleteAction {
                turn_id: self.job.turn_id.clone(),
                tool_call_id: id,
                meta: None,
                result: ToolCallResult {
                    success: out.success,
                    past_tense_message: StringOrMarkdown::Plain(out.summary.clone()),
                    content: Some(content),
                    structured_content: None,
                    error: (!out.success).then(|| ToolCallResultError {
                        message: out.summary.clone(),
                        code: None,
                        extra: Default::default(),
                    }),
                    extra: Default::default(),
                },
                requires_result_confirmation: None,
                extra: Default::default(),
            },
        ))])
        .await?;
        self.say(&format!("\n\n{}\n\n", out.summary)).await
    }
}
