//! The standard workload (`bench/gen-stream.mjs`): a session with 50 or 500 completed turns and
//! an active turn, then 20,600 actions (5-byte deltas plus a tool-call lifecycle every 100 slots).
//!
//! - `reducer_only/N`: pre-parsed `StateAction`s through `session_reducer`.
//! - `wire_path/N`: each envelope's JSON text parsed into an `ActionEnvelope`, then reduced.
//! - `engine_path/N`: each envelope as the `action` notification frame a client receives, through
//!   the client engine (JSON-RPC parse, routing, the session mirror, the change patch event):
//!   the Rust half of the wasm `Subscription` path.
//! - `mirror/first_dispatch/N`: one own action dispatched on a session mirror with nothing pending
//!   (the mirror forks its optimistic copy): should not grow with the session's history.
//! - `documented_path/{ours,ours_serde,official}/N`: parse + reduce of each envelope the way the
//!   README shows it (`protocol::decode::from_text`), through our serde impls
//!   (`serde_json::from_str`, a compatibility detour), and with the official `ahp` 0.3.0 crate
//!   (`serde_json::from_str` into `ahp_types`, `ahp::reducers::apply_action_to_session`), side
//!   by side in one process.
//!
//! The AHP 1.0 workload is `benches/reducers_v1.rs`.
//!
//! Criterion reports time per iteration (one whole stream) and throughput in actions/s;
//! `scripts/bench-summary.sh` turns the estimates into ns/action.

#[path = "support/engine.rs"]
mod support;

use ahp_wasm::protocol::{decode, ActionEnvelope, SessionState, StateAction};
use ahp_wasm::reduce::{session_reducer, FixedClock};
use ahp_wasm::sync::Mirror;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::connected_engine;

struct Workload {
    initial: SessionState,
    actions: Vec<StateAction>,
    envelopes: Vec<String>,
}

/// Generates the workload with Node (once) and loads it.
fn workload(turns: usize) -> Workload {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target/bench-workload");
    let initial_path = dir.join(format!("initial-{turns}.json"));
    if !initial_path.exists() {
        let status = Command::new("node")
            .arg(root.join("bench/gen-stream.mjs"))
            .arg(&dir)
            .status()
            .expect("running node bench/gen-stream.mjs (Node 20 is required for the benchmark)");
        assert!(status.success(), "gen-stream.mjs failed");
    }
    let read =
        |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let initial = serde_json::from_str(&read(&initial_path)).expect("initial state");
    let actions: Vec<StateAction> =
        serde_json::from_str(&read(&dir.join(format!("actions-{turns}.json")))).expect("actions");
    let envelopes: Vec<String> = read(&dir.join(format!("envelopes-{turns}.jsonl")))
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    assert_eq!(actions.len(), envelopes.len());
    Workload {
        initial,
        actions,
        envelopes,
    }
}

fn bench_session_stream(c: &mut Criterion) {
    let clock = FixedClock(0.0);
    for turns in [50, 500] {
        let w = workload(turns);
        let mut group = c.benchmark_group("session_stream");
        group.throughput(Throughput::Elements(w.actions.len() as u64));
        group.sample_size(30);
        group.bench_function(format!("reducer_only/{turns}"), |b| {
            b.iter_batched(
                || w.initial.clone(),
                |mut state| {
                    for action in &w.actions {
                        black_box(session_reducer(&mut state, action, &clock));
                    }
                    state
                },
                BatchSize::LargeInput,
            )
        });
        group.bench_function(format!("wire_path/{turns}"), |b| {
            replay(b, &w.initial, &w.envelopes, |state, text| {
                let envelope: ActionEnvelope = serde_json::from_str(text).expect("envelope");
                black_box(session_reducer(state, &envelope.action, &clock));
            })
        });
        let frames: Vec<String> = w
            .envelopes
            .iter()
            .map(|e| format!(r#"{{"jsonrpc":"2.0","method":"action","params":{e}}}"#))
            .collect();
        group.bench_function(format!("engine_path/{turns}"), |b| {
            b.iter_batched(
                || connected_engine(&w.initial),
                |mut engine| {
                    for frame in &frames {
                        engine.handle_frame(black_box(frame), 1.0);
                        while let Some(event) = engine.poll_event() {
                            black_box(event);
                        }
                    }
                    engine
                },
                BatchSize::LargeInput,
            )
        });
        group.bench_function(format!("parse_only/{turns}"), |b| {
            b.iter(|| {
                for text in &w.envelopes {
                    let envelope: ActionEnvelope =
                        serde_json::from_str(black_box(text)).expect("envelope");
                    black_box(envelope);
                }
            })
        });
        let rename: StateAction =
            serde_json::from_str(r#"{"type":"session/titleChanged","title":"mine"}"#)
                .expect("action");
        group.finish();
        let mut group = c.benchmark_group("mirror");
        group.bench_function(format!("first_dispatch/{turns}"), |b| {
            b.iter_batched(
                || Mirror::new(w.initial.clone(), 0),
                |mut mirror| {
                    black_box(mirror.dispatch(1, rename.clone(), &clock));
                    mirror
                },
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

/// Replays every envelope text of a stream into a fresh clone of `initial` with `apply`.
fn replay<S: Clone>(
    b: &mut criterion::Bencher<'_>,
    initial: &S,
    envelopes: &[String],
    apply: impl Fn(&mut S, &str),
) {
    b.iter_batched(
        || initial.clone(),
        |mut state| {
            for text in envelopes {
                apply(&mut state, black_box(text));
            }
            state
        },
        BatchSize::LargeInput,
    )
}

/// The README's Rust path against the official crate, on the same envelopes.
fn bench_documented_path(c: &mut Criterion) {
    let clock = FixedClock(0.0);
    for turns in [50, 500] {
        let w = workload(turns);
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let initial_text = std::fs::read_to_string(
            root.join(format!("target/bench-workload/initial-{turns}.json")),
        )
        .expect("initial state");
        let official_initial: ahp_types::state::SessionState =
            serde_json::from_str(&initial_text).expect("initial state (official)");
        let mut group = c.benchmark_group("documented_path");
        group.throughput(Throughput::Elements(w.envelopes.len() as u64));
        group.sample_size(20);
        group.bench_function(format!("ours/{turns}"), |b| {
            replay(b, &w.initial, &w.envelopes, |state, text| {
                let envelope: ActionEnvelope = decode::from_text(text).expect("envelope");
                black_box(session_reducer(state, &envelope.action, &clock));
            })
        });
        group.bench_function(format!("ours_serde/{turns}"), |b| {
            replay(b, &w.initial, &w.envelopes, |state, text| {
                let envelope: ActionEnvelope = serde_json::from_str(text).expect("envelope");
                black_box(session_reducer(state, &envelope.action, &clock));
            })
        });
        group.bench_function(format!("official/{turns}"), |b| {
            replay(b, &official_initial, &w.envelopes, |state, text| {
                let envelope: ahp_types::actions::ActionEnvelope =
                    serde_json::from_str(text).expect("envelope (official)");
                black_box(ahp::reducers::apply_action_to_session(
                    state,
                    &envelope.action,
                ));
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench_session_stream, bench_documented_path);
criterion_main!(benches);
