//! The standard workload in AHP 1.0 (`bench/gen-stream-v1.mjs`: a chat channel with 50 or 500
//! completed turns and an active turn, then 20,600 `chat/*` actions: 5-byte deltas plus a
//! tool-call lifecycle every 100 slots), ours against the official `ahp` 1.0.0 crate, side by
//! side in one process:
//!
//! - `v1_wire_path/{ours,official}/N`: parse + reduce. Each envelope's JSON text parsed (ours:
//!   `decode::from_text` into `protocol::v1::ActionEnvelope`; official: `serde_json::from_str`
//!   into `ahp_types` 1.0.0's) and reduced into the chat (`reduce::v1::chat_reducer`;
//!   `ahp::reducers::apply_action_to_chat`).
//! - `v1_parse_only/{ours,official}/N`: the parse half alone.
//! - `chat_stream_v1/{ours,official}/N`: the reduce half alone, over pre-parsed actions.
//!
//! The setup checks the workload (`support/workload_v1.rs`): both decoders read every file and
//! agree, and both reducers reach the same end state. Criterion reports time per iteration
//! (one whole stream); `scripts/bench-summary.sh` turns the estimates into ns/action.

#[path = "support/workload_v1.rs"]
mod workload_v1;

use ahp_wasm::protocol::{decode, v1};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;
use workload_v1::{workload_v1, ACTIONS};

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

fn bench_v1(c: &mut Criterion) {
    for turns in [50, 500] {
        let w = workload_v1(turns);

        let mut group = c.benchmark_group("v1_wire_path");
        group.throughput(Throughput::Elements(ACTIONS as u64));
        group.sample_size(20);
        group.bench_function(format!("ours/{turns}"), |b| {
            replay(b, &w.initial, &w.envelopes, |state, text| {
                let envelope: v1::ActionEnvelope = decode::from_text(text).expect("envelope");
                black_box(ahp_wasm::reduce::v1::chat_reducer(state, &envelope.action));
            })
        });
        group.bench_function(format!("official/{turns}"), |b| {
            replay(b, &w.official_initial, &w.envelopes, |state, text| {
                let envelope: ahp_types_v1::actions::ActionEnvelope =
                    serde_json::from_str(text).expect("envelope (official)");
                black_box(ahp_v1::reducers::apply_action_to_chat(
                    state,
                    &envelope.action,
                ));
            })
        });
        group.finish();

        let mut group = c.benchmark_group("v1_parse_only");
        group.throughput(Throughput::Elements(ACTIONS as u64));
        group.sample_size(20);
        group.bench_function(format!("ours/{turns}"), |b| {
            b.iter(|| {
                for text in &w.envelopes {
                    let envelope: v1::ActionEnvelope =
                        decode::from_text(black_box(text)).expect("envelope");
                    black_box(envelope);
                }
            })
        });
        group.bench_function(format!("official/{turns}"), |b| {
            b.iter(|| {
                for text in &w.envelopes {
                    let envelope: ahp_types_v1::actions::ActionEnvelope =
                        serde_json::from_str(black_box(text)).expect("envelope (official)");
                    black_box(envelope);
                }
            })
        });
        group.finish();

        let mut group = c.benchmark_group("chat_stream_v1");
        group.throughput(Throughput::Elements(ACTIONS as u64));
        group.sample_size(20);
        group.bench_function(format!("ours/{turns}"), |b| {
            b.iter_batched(
                || w.initial.clone(),
                |mut state| {
                    for action in &w.actions {
                        black_box(ahp_wasm::reduce::v1::chat_reducer(&mut state, action));
                    }
                    state
                },
                BatchSize::LargeInput,
            )
        });
        group.bench_function(format!("official/{turns}"), |b| {
            b.iter_batched(
                || w.official_initial.clone(),
                |mut state| {
                    for action in &w.official_actions {
                        black_box(ahp_v1::reducers::apply_action_to_chat(&mut state, action));
                    }
                    state
                },
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, bench_v1);
criterion_main!(benches);
