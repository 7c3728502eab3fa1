//! Replays the standard AHP 0.3.0 workload (`bench/gen-stream.mjs`) through the wire path — envelope
//! JSON text parsed into typed actions and reduced into a session — and prints a summary of the
//! final state.
//!
//! ```text
//! cargo run --release --example replay_v0_3 [WORKLOAD_DIR]
//! ```

use ahp_wasm::protocol::{ActionEnvelope, ResponsePart, SessionState, ToolCallState};
use ahp_wasm::reduce::{session_reducer, SystemClock};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

#[path = "support/workload.rs"]
mod workload;

fn main() -> ExitCode {
    workload::run("bench-workload", "gen-stream.mjs", replay)
}

fn replay(dir: &Path, turns: usize) -> Result<String, String> {
    let read = |name: String| workload::read(dir, &name);
    let mut state: SessionState = serde_json::from_str(&read(format!("initial-{turns}.json"))?)
        .map_err(|e| format!("initial-{turns}.json: {e}"))?;
    let envelopes = read(format!("envelopes-{turns}.jsonl"))?;
    let started = Instant::now();
    let (mut applied, mut total) = (0usize, 0usize);
    for (line_no, line) in envelopes.lines().filter(|l| !l.is_empty()).enumerate() {
        let envelope: ActionEnvelope = serde_json::from_str(line)
            .map_err(|e| format!("envelopes-{turns}.jsonl line {}: {e}", line_no + 1))?;
        total += 1;
        if session_reducer(&mut state, &envelope.action, &SystemClock).is_applied() {
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
         session status {}",
        elapsed.as_secs_f64() * 1e3,
        elapsed.as_nanos() as f64 / total.max(1) as f64,
        state.summary.status,
    ))
}
