//! Text helpers of the built-in agent: streaming chunks and tool results as text.

use ahp_wasm::protocol::{ToolCallResult, ToolResultContent};

/// Splits text into pieces of about `size` bytes, at character boundaries after a space when
/// one is near.
pub fn chunks(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if rest.len() <= size {
            out.push(rest);
            break;
        }
        let mut cut = size;
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        if let Some(space) = rest[..cut].rfind(' ').filter(|&i| i > size / 2) {
            cut = space + 1;
        }
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    out
}

/// The text content of a tool result, for the agent's reply.
pub fn describe_result(result: &ToolCallResult) -> String {
    let text: Vec<&str> = result
        .content
        .iter()
        .flatten()
        .filter_map(|c| match c {
            ToolResultContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    if text.is_empty() {
        match (&result.error, result.success) {
            (_, true) => "(no output)".to_owned(),
            (Some(error), false) => match &error.code {
                Some(code) => format!("(failed: {code}: {})", error.message),
                None => format!("(failed: {})", error.message),
            },
            (None, false) => "(failed)".to_owned(),
        }
    } else {
        text.join("\n")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn chunks_cover_the_text() {
        let text = "héllo wörld, this is a longer sentence that gets split into chunks.";
        let parts = super::chunks(text, 10);
        assert!(parts.len() > 3);
        assert_eq!(parts.concat(), text);
        assert!(super::chunks("", 10).is_empty());
    }
}
