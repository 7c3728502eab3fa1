//! Replays the standard AHP 1.0 workload (`bench/gen-stream-v1.mjs`: a chat channel's stream)
//! through the wire path — each envelope's JSON text decoded with `decode::from_text` into a
//! typed 1.0 action and reduced into the chat by `reduce::v1::chat_reducer` — and prints a
//! summary of the final state. The 0.3.0 form: `examples/replay_v0_3.rs`.
//!
//! ```text
//! cargo run --release --example replay [WORKLOAD_DIR]
//! ```

use ahp_wasm::protocol::decode;
use ahp_wasm::protocol::v1::{ActionEnvelope, ChatState, ResponsePart, ToolCallState};
use ahp_wasm::reduce::v1::chat_reducer;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

#[path = "support/workload.rs"]
mod workload;

fn main() -> ExitCode {
    workload::run("bench-workload-v1", "gen-stream-v1.mjs", replay)
}

fn replay(dir: &Path, turns: usize) -> Result<String, String> {
    let read = |name: String| workload::read(dir, &name);
    let mut state: ChatState = decode::from_text(&read(format!("initial-{turns}.json"))?)
        .map_err(|e| format!("initial-{turns}.json: {e}"))?;
    let envelopes = read(format!("envelopes-{turns}.jsonl"))?;
    let started = Instant::now();
    let (mut applied, mut total) = (0usize, 0usize);
    for (line_no, line) in envelopes.lines().filter(|l| !l.is_empty()).enumerate() {
        let envelope: ActionEnvelope = decode::from_text(line)
            .map_err(|e| format!("envelopes-{turns}.jsonl line {}: {e}", line_no + 1))?;
        total += 1;
        if chat_reducer(&mut state, &envelope.action).is_applied() {
            applied += 1;
        }
    }
    let elapsed = started.elapsed();
    let active = state.active_turn.as_ref();
    let parts = active.map_or(0, |t| t.response_parts.len());
    let markdown_chars = active
        .and_then(|t| {
            t.response_parts.iter().find_map(|p| match p {
                ResponsePart::Markdown(m) => Some(m.content.len()),
                _ => None,
            })
        })
        .unwrap_or(0);
    let completed_tools = active.map_or(0, |t| {
        t.response_parts
            .iter()
            .filter(|p| {
                matches!(p, ResponsePart::ToolCall(tc) if matches!(tc.tool_call, ToolCallState::Completed(_)))
            })
            .count()
    });
    Ok(format!(
        "{turns:>3} completed turns: {applied}/{total} actions applied in {:.1} ms ({:.0} ns/action); \
         active turn has {parts} parts, {completed_tools} completed tool calls, {markdown_chars} markdown chars; \
         chat {} ({} turns), status {}",
        elapsed.as_secs_f64() * 1e3,
        elapsed.as_nanos() as f64 / total.max(1) as f64,
        state.resource,
        state.turns.len(),
        state.status,
    ))
}
