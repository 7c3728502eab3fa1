//! The AHP 1.0 parse + reduce path (`benches/reducers_v1.rs`, `v1_wire_path`), ours or the
//! official crate's, over the standard 1.0 stream, timed per action. Each envelope goes through
//! one non-inlined `step`, so a profiler can count just that:
//!
//! ```sh
//! node bench/gen-stream-v1.mjs bench-workload-v1
//! cargo run --release --example wire_path_v1 -- bench-workload-v1 500 20 ours
//! valgrind --tool=callgrind --toggle-collect='wire_path_v1::step*' \
//!   target/release/examples/wire_path_v1 bench-workload-v1 500 1 official
//! ```

use ahp_wasm::protocol::{decode, v1};
use std::hint::black_box;
use std::time::Instant;

#[inline(never)]
fn step_ours(state: &mut v1::ChatState, text: &str) {
    let envelope: v1::ActionEnvelope = decode::from_text(text).expect("envelope");
    black_box(ahp_wasm::reduce::v1::chat_reducer(state, &envelope.action));
}

#[inline(never)]
fn step_official(state: &mut ahp_types_v1::state::ChatState, text: &str) {
    let envelope: ahp_types_v1::actions::ActionEnvelope =
        serde_json::from_str(text).expect("envelope (official)");
    black_box(ahp_v1::reducers::apply_action_to_chat(
        state,
        &envelope.action,
    ));
}

/// Replays the stream `runs` times into fresh copies of `initial`; the fastest run's ns/action.
fn run<S: Clone>(initial: &S, envelopes: &[String], runs: usize, step: fn(&mut S, &str)) -> f64 {
    (0..runs)
        .map(|_| {
            let mut state = initial.clone();
            let start = Instant::now();
            for text in envelopes {
                step(&mut state, black_box(text));
            }
            let elapsed = start.elapsed().as_nanos() as f64;
            drop(state);
            elapsed / envelopes.len() as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "bench-workload-v1".into());
    let turns: usize = args.next().map_or(500, |s| s.parse().expect("turns"));
    let runs: usize = args.next().map_or(20, |s| s.parse().expect("runs"));
    let which = args.next().unwrap_or_else(|| "ours".into());
    let read = |name: String| {
        let path = format!("{dir}/{name}");
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e} (run bench/gen-stream-v1.mjs)"))
    };
    let initial = read(format!("initial-{turns}.json"));
    let envelopes: Vec<String> = read(format!("envelopes-{turns}.jsonl"))
        .lines()
        .map(String::from)
        .collect();
    let ns = match which.as_str() {
        "ours" => {
            let state: v1::ChatState = decode::from_text(&initial).expect("initial state");
            run(&state, &envelopes, runs, step_ours)
        }
        "official" => {
            let state: ahp_types_v1::state::ChatState =
                serde_json::from_str(&initial).expect("initial state (official)");
            run(&state, &envelopes, runs, step_official)
        }
        other => panic!("ours or official, not {other}"),
    };
    println!("{which}, {turns} turns: {ns:.1} ns/action (fastest of {runs})");
}
