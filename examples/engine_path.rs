//! The Rust half of the wasm mirror path, natively: the standard stream's envelopes as `action`
//! frames through the client engine (parse, route, session mirror, change patch), timed per
//! action. Each frame goes through one non-inlined `step`, so a profiler can count just that:
//!
//! ```sh
//! node bench/gen-stream.mjs bench-workload
//! cargo run --release --example engine_path -- bench-workload 500 20
//! valgrind --tool=callgrind --toggle-collect='engine_path::step' \
//!   target/release/examples/engine_path bench-workload 500 1
//! ```

#[path = "../benches/support/engine.rs"]
mod support;

use ahp_wasm::client::engine::Engine;
use ahp_wasm::protocol::SessionState;
use std::hint::black_box;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "bench-workload".into());
    let turns: usize = args.next().map_or(500, |s| s.parse().expect("turns"));
    let runs: usize = args.next().map_or(20, |s| s.parse().expect("runs"));
    let read = |name: String| {
        let path = format!("{dir}/{name}");
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e} (run bench/gen-stream.mjs)"))
    };
    let initial: SessionState =
        serde_json::from_str(&read(format!("initial-{turns}.json"))).expect("initial state");
    let frames: Vec<String> = read(format!("envelopes-{turns}.jsonl"))
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| format!(r#"{{"jsonrpc":"2.0","method":"action","params":{l}}}"#))
        .collect();
    let mut total_ns = 0u128;
    for _ in 0..runs {
        let mut engine = support::connected_engine(&initial);
        let start = std::time::Instant::now();
        for frame in &frames {
            step(&mut engine, frame);
        }
        total_ns += start.elapsed().as_nanos();
    }
    let per_action = total_ns / (runs * frames.len()) as u128;
    println!(
        "{turns} turns, {} actions, {runs} runs: {per_action} ns/action",
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
