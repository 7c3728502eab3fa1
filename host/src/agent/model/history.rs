//! The conversation a model agent sends: the session's completed turns, newest kept first
//! within a character budget.
//!
//! # The trim rule
//!
//! The budget is `3 × (context window in tokens) × 3/4` characters when the model's context
//! window is known (about 3 characters a token for English and code, leaving a quarter of the
//! window for the answer and the tools), else [`DEFAULT_BUDGET_CHARS`]. The system message and
//! the new user message always go and count first; then whole turns are added from the newest
//! back, and the first one (counting back) that does not fit ends the history: older turns are
//! left out, never a part of a turn, so every tool call keeps its result. A tool result in
//! the history is cut to [`MAX_RESULT_CHARS`]. Reasoning is not sent back.

use crate::providers::{AssistantPart, Message, ToolCall};
use ahp_wasm::protocol::{ResponsePart, StringOrMarkdown, ToolCallState, ToolResultContent, Turn};

/// The budget when the model's context window is unknown: about 8k tokens, what small local
/// models (Ollama's default context) take.
pub const DEFAULT_BUDGET_CHARS: usize = 24_000;

/// Longest tool result sent back to the model (in the history and in the turn), in characters.
pub const MAX_RESULT_CHARS: usize = 16_000;

/// The character budget of the conversation for a model whose context window is
/// `context_tokens` (see the module docs).
pub fn budget(context_tokens: Option<u64>) -> usize {
    match context_tokens {
        Some(tokens) if tokens > 0 => (tokens as usize).saturating_mul(9) / 4,
        _ => DEFAULT_BUDGET_CHARS,
    }
}

/// The messages of `turns` (oldest first) that fit in `budget` characters once `reserved`
/// (the system message and the new user message) are counted.
pub fn build<T: AsRef<Turn>>(turns: &[T], budget: usize, reserved: usize) -> Vec<Message> {
    build_newest_first(turns.iter().enumerate().rev(), budget, reserved)
}

/// [`build`] from the turns newest first, each with its index: the turns are read only until
/// the budget is spent (a caller that converts each turn it hands over converts no others).
pub fn build_newest_first<T: AsRef<Turn>>(
    turns: impl Iterator<Item = (usize, T)>,
    budget: usize,
    reserved: usize,
) -> Vec<Message> {
    let mut kept: Vec<Vec<Message>> = Vec::new();
    let mut used = reserved;
    for (index, turn) in turns {
        let messages = turn_messages(index, turn.as_ref());
        let size: usize = messages.iter().map(chars).sum();
        if used + size > budget {
            break;
        }
        used += size;
        kept.push(messages);
    }
    kept.into_iter().rev().flatten().collect()
}

/// The characters a message counts for.
pub fn chars(message: &Message) -> usize {
    match message {
        Message::User { text } => text.chars().count(),
        Message::ToolResult { content, .. } => content.chars().count() + 16,
        Message::Assistant { parts } => parts
            .iter()
            .map(|p| match p {
                AssistantPart::Text(t) => t.chars().count(),
                AssistantPart::Reasoning { text, .. } => text.chars().count(),
                AssistantPart::ToolCall(c) => c.name.len() + c.arguments.chars().count() + 16,
            })
            .sum(),
    }
}

/// `text` cut to `max` characters, saying so.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((end, _)) => format!(
            "{}\n[cut: the result was longer than {max} characters]",
            &text[..end]
        ),
    }
}

/// One turn as messages: the user's, then the answer split where tool results come back.
fn turn_messages(index: usize, turn: &Turn) -> Vec<Message> {
    let mut out = vec![Message::User {
        text: turn.message.text.clone(),
    }];
    let mut parts: Vec<AssistantPart> = Vec::new();
    let mut results: Vec<Message> = Vec::new();
    let flush =
        |out: &mut Vec<Message>, parts: &mut Vec<AssistantPart>, results: &mut Vec<Message>| {
            if !parts.is_empty() {
                out.push(Message::Assistant {
                    parts: std::mem::take(parts),
                });
            }
            out.append(results);
        };
    for part in &turn.response_parts {
        match part {
            ResponsePart::Markdown(m) if !m.content.is_empty() => {
                if !results.is_empty() {
                    flush(&mut out, &mut parts, &mut results);
                }
                match parts.last_mut() {
                    Some(AssistantPart::Text(t)) => t.push_str(&m.content),
                    _ => parts.push(AssistantPart::Text(m.content.clone())),
                }
            }
            ResponsePart::ToolCall(p) => {
                let Some((call, content, is_error)) = finished_call(index, &p.tool_call) else {
                    continue;
                };
                let call_id = call.id.clone();
                parts.push(AssistantPart::ToolCall(call));
                results.push(Message::ToolResult {
                    call_id,
                    content,
                    is_error,
                });
            }
            _ => {}
        }
    }
    flush(&mut out, &mut parts, &mut results);
    out
}

/// A finished tool call as the model's call and its result; `None` for one that never ran to
/// an end (the turn stopped first).
fn finished_call(index: usize, state: &ToolCallState) -> Option<(ToolCall, String, bool)> {
    let (id, name, input, content, is_error) = match state {
        ToolCallState::Completed(c) => {
            let text = result_text(c.content.as_deref(), &c.past_tense_message);
            let text = match (&c.error, c.success) {
                (Some(e), false) if !text.contains(&e.message) => format!("{}\n{text}", e.message),
                _ => text,
            };
            (
                &c.tool_call_id,
                &c.tool_name,
                c.tool_input.as_deref(),
                text,
                !c.success,
            )
        }
        ToolCallState::Cancelled(c) => (
            &c.tool_call_id,
            &c.tool_name,
            c.tool_input.as_deref(),
            "The call was not run: it was denied or cancelled.".to_owned(),
            true,
        ),
        _ => return None,
    };
    // A name the model made up may break an endpoint's rule: the result says what it was.
    let name = if super::tools::valid_name(name) {
        name.clone()
    } else {
        "invalid_tool_name".to_owned()
    };
    let call = ToolCall {
        id: history_id(index, id),
        name,
        arguments: input.unwrap_or("{}").to_owned(),
    };
    Some((call, clip(&content, MAX_RESULT_CHARS), is_error))
}

/// The conversation with its tool calls and results as text: for a request that offers no
/// tools (`ask` mode), which some endpoints refuse to take with tool blocks.
pub fn without_tools(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            Message::Assistant { parts } => {
                let text: Vec<String> = parts
                    .into_iter()
                    .filter_map(|p| match p {
                        AssistantPart::Text(t) => Some(t),
                        AssistantPart::ToolCall(c) => {
                            Some(format!("[called the tool {} with {}]", c.name, c.arguments))
                        }
                        AssistantPart::Reasoning { .. } => None,
                    })
                    .collect();
                if !text.is_empty() {
                    out.push(Message::Assistant {
                        parts: vec![AssistantPart::Text(text.join("\n"))],
                    });
                }
            }
            Message::ToolResult {
                content, is_error, ..
            } => {
                let what = if is_error { "failed" } else { "returned" };
                out.push(Message::User {
                    text: format!("[the tool {what}: {content}]"),
                });
            }
            user => out.push(user),
        }
    }
    out
}

/// A tool result's text for the model: its text contents, else its summary.
pub fn result_text(content: Option<&[ToolResultContent]>, summary: &StringOrMarkdown) -> String {
    let texts: Vec<&str> = content
        .into_iter()
        .flatten()
        .filter_map(|c| match c {
            ToolResultContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    if texts.is_empty() {
        match summary {
            StringOrMarkdown::Plain(s) => s.clone(),
            StringOrMarkdown::Markdown { markdown, .. } => markdown.clone(),
        }
    } else {
        texts.join("\n")
    }
}

/// A history call id unique in the conversation and of the characters every endpoint takes
/// (`[A-Za-z0-9_-]`): turns reuse the host's ids (`tool-1`, ...).
fn history_id(turn_index: usize, id: &str) -> String {
    let clean: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(48)
        .collect();
    format!("h{turn_index}_{clean}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ahp_wasm::protocol::{MarkdownResponsePart, TurnState};

    fn turn(id: &str, user: &str, answer: &str) -> Turn {
        Turn {
            id: id.into(),
            message: ahp_wasm::protocol::Message::user(user),
            response_parts: vec![ResponsePart::Markdown(MarkdownResponsePart {
                id: "markdown-1".into(),
                content: answer.into(),
                extra: Default::default(),
            })],
            usage: None,
            state: TurnState::Complete,
            error: None,
            extra: Default::default(),
        }
    }

    #[test]
    fn the_newest_whole_turns_that_fit_are_kept() {
        let turns: Vec<std::sync::Arc<Turn>> = vec![
            turn("t1", &"a".repeat(50), &"b".repeat(50)).into(),
            turn("t2", &"c".repeat(10), &"d".repeat(10)).into(),
            turn("t3", &"e".repeat(10), &"f".repeat(10)).into(),
        ];
        let all = build(&turns, 10_000, 0);
        assert_eq!(all.len(), 6);
        assert_eq!(
            all[0],
            Message::User {
                text: "a".repeat(50)
            }
        );
        // 20 reserved + 40 for t2 and t3; t1 (100) does not fit, so it and older go.
        let newest = build(&turns, 70, 20);
        assert_eq!(newest.len(), 4);
        assert_eq!(
            newest[0],
            Message::User {
                text: "c".repeat(10)
            }
        );
        // Nothing fits: no history, never half a turn.
        assert!(build(&turns, 30, 20).is_empty());
    }

    #[test]
    fn without_tools_the_calls_and_results_become_text() {
        let call = ToolCall {
            id: "h0_tool-1".into(),
            name: "list_files".into(),
            arguments: r#"{"path":"."}"#.into(),
        };
        let messages = vec![
            Message::User { text: "hi".into() },
            Message::Assistant {
                parts: vec![
                    AssistantPart::Text("Looking.".into()),
                    AssistantPart::ToolCall(call),
                ],
            },
            Message::ToolResult {
                call_id: "h0_tool-1".into(),
                content: "a.txt".into(),
                is_error: false,
            },
        ];
        let flat = without_tools(messages);
        assert_eq!(
            flat[1],
            Message::Assistant {
                parts: vec![AssistantPart::Text(
                    "Looking.\n[called the tool list_files with {\"path\":\".\"}]".into()
                )]
            }
        );
        assert_eq!(
            flat[2],
            Message::User {
                text: "[the tool returned: a.txt]".into()
            }
        );
    }

    #[test]
    fn the_budget_follows_the_context_window_when_known() {
        assert_eq!(budget(None), DEFAULT_BUDGET_CHARS);
        assert_eq!(budget(Some(8_000)), 18_000);
        assert_eq!(
            clip("abcdef", 3),
            "abc\n[cut: the result was longer than 3 characters]"
        );
        assert_eq!(history_id(2, "tool:1"), "h2_tool_1");
    }
}
