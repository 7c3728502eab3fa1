//! The tool-call actions every tool of the agent emits alike: `toolCallReady` (waiting for the
//! user, or running at once) and `toolCallComplete` with a result built from a summary.

use super::{Step, Turn};
use ahp_wasm::protocol::*;

/// A tool result: `summary` is its past-tense message, and its error's message when it failed
/// (with `error_code`, if any).
pub(crate) fn tool_result(
    success: bool,
    summary: &str,
    content: Vec<ToolResultContent>,
    error_code: Option<String>,
) -> ToolCallResult {
    ToolCallResult {
        success,
        past_tense_message: StringOrMarkdown::Plain(summary.to_owned()),
        content: Some(content),
        structured_content: None,
        error: (!success).then(|| ToolCallResultError {
            message: summary.to_owned(),
            code: error_code,
            extra: Default::default(),
        }),
        extra: Default::default(),
    }
}

/// Text content of a tool result.
pub(crate) fn text_content(text: &str) -> ToolResultContent {
    ToolResultContent::Text(ToolResultTextContent {
        text: text.to_owned(),
        extra: Default::default(),
    })
}

impl Turn {
    /// Announces started tool call `id` as ready: with `confirmation_title`, it waits for the
    /// user's decision (`session/toolCallConfirmed`); without, it runs at once (`confirmed:
    /// not-needed`).
    pub(crate) async fn tool_ready(
        &mut self,
        id: &str,
        invocation: String,
        input: String,
        confirmation_title: Option<&str>,
    ) -> Step {
        let confirmed = match confirmation_title {
            Some(_) => None,
            None => Some(ToolCallConfirmationReason::NotNeeded),
        };
        self.emit(vec![StateAction::SessionToolCallReady(Box::new(
            SessionToolCallReadyAction {
                turn_id: self.job.turn_id.clone(),
                tool_call_id: id.to_owned(),
                meta: None,
                invocation_message: StringOrMarkdown::Plain(invocation),
                tool_input: Some(input),
                confirmation_title: confirmation_title.map(|t| StringOrMarkdown::Plain(t.into())),
                edits: None,
                editable: None,
                confirmed,
                options: None,
                extra: Default::default(),
            },
        ))])
        .await
    }

    /// Completes tool call `id` with `result`.
    pub(crate) async fn complete_tool(&mut self, id: &str, result: ToolCallResult) -> Step {
        self.emit(vec![StateAction::SessionToolCallComplete(Box::new(
            SessionToolCallCompleteAction {
                turn_id: self.job.turn_id.clone(),
                tool_call_id: id.to_owned(),
                meta: None,
                result,
                requires_result_confirmation: None,
                extra: Default::default(),
            },
        ))])
        .await
    }
}
