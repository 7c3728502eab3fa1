//! The Rust half of the wasm mirror path, natively: the standard stream's envelopes as `action`
//! frames through the client engine (parse, route, the channel's mirror, change patch), timed
//! per action. Each frame goes through one non-inlined `step`, so a profiler can count just
//! that. The version is the workload's: AHP 1.0 with `--v1` (the 1.0 workload's chat channel,
//! `bench/gen-stream-v1.mjs`), else 0.3.0 (the session, `bench/gen-stream.mjs`).
//!
//! ```sh
//! node bench/gen-stream.mjs bench-workload && node bench/gen-stream-v1.mjs bench-workload-v1
//! cargo run --release --features v1 --example engine_path -- bench-workload 500 20
//! cargo run --release --features v1 --example engine_path -- bench-workload-v1 500 20 --v1
//! valgrind --tool=callgrind --toggle-collect='engine_path::step' \
//!   target/release/examples/engine_path bench-workload-v1 500 1 --v1
//! ```
//!
//! Instruction counts (callgrind) do not depend on the machine's load: the way to compare the
//! two versions' paths on a shared machine.

#[path = "../benches/support/engine.rs"]
mod support;

use ahp_wasm::client::engine::Engine;
use std::hint::black_box;

fn main() {
    let v1 = std::env::args().any(|a| a == "--v1");
    let mut args = std::env::args().skip(1).filter(|a| a != "--v1");
    let dir = args.next().unwrap_or_else(|| "bench-workload".into());
    let turns: usize = args.next().map_or(500, |s| s.parse().expect("turns"));
    let runs: usize = args.next().map_or(20, |s| s.parse().expect("runs"));
    let read = |name: String| {
        let path = format!("{dir}/{name}");
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e} (run bench/gen-stream.mjs)"))
    };
    let initial: serde_json::Value =
        serde_json::from_str(&read(format!("initial-{turns}.json"))).expect("initial state");
    let envelopes = read(format!("envelopes-{turns}.jsonl"));
    let lines: Vec<&str> = envelopes.lines().filter(|l| !l.is_empty()).collect();
    // The channel the stream is on: its first envelope's.
    let first: serde_json::Value = serde_json::from_str(lines[0]).expect("envelope");
    let channel = first["channel"].as_str().expect("channel").to_string();
    let version = if v1 { "1.0.0" } else { "0.3.0" };
    let frames: Vec<String> = lines
        .iter()
        .map(|l| format!(r#"{{"jsonrpc":"2.0","method":"action","params":{l}}}"#))
        .collect();
    let mut total_ns = 0u128;
    for _ in 0..runs {
        let mut engine = support::connected_engine_at(&channel, version, initial.clone());
        let start = std::time::Instant::now();
        for frame in &frames {
            step(&mut engine, frame);
        }
        total_ns += start.elapsed().as_nanos();
    }
    let per_action = total_ns / (runs * frames.len()) as u128;
    println!(
        "AHP {version}, {turns} turns, {} actions, {runs} runs: {per_action} ns/action",
        frames.len()
    );
}

/// One frame in, its events out.
#[inline(never)]
fn step(engine: &mut Engine, frame: &str) {
    engine.handle_frame(black_box(frame), 1.0);
    while let Some(event) = engine.poll_event() {
        black_box(event);
    }
}
