//! Memory per subscription on AHP 1.0: the heap bytes one chat mirror (`sync::Mirror` over
//! `protocol::v1::ChatState`) retains after loading the standard workload's initial state
//! (`bench/gen-stream-v1.mjs`) and applying its whole stream, envelope by envelope as a client
//! receives them, measured by a counting global allocator (live bytes requested, before and
//! after; the allocator's own overhead per block is not counted). Target at 500 turns:
//! <= 4 MiB.
//!
//! `cargo bench --bench memory_v1` prints the figures and fails above the target.

#[path = "support/workload_v1.rs"]
mod workload_v1;

use ahp_wasm::protocol::{decode, v1};
use ahp_wasm::reduce::FixedClock;
use ahp_wasm::sync::Mirror;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = System.realloc(p, layout, new_size);
        if !q.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            LIVE.fetch_add(new_size, Relaxed);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MIB: f64 = 1024.0 * 1024.0;
const TARGET: usize = 4 * 1024 * 1024;

/// The bytes one mirror retains after the initial state and the whole stream (its heap
/// blocks plus the mirror value itself, which a subscription holds somewhere too).
fn retained(initial_text: &str, envelopes: &[String]) -> (usize, Mirror<v1::ChatState>) {
    let clock = FixedClock(0.0);
    let before = LIVE.load(Relaxed);
    let state: v1::ChatState = decode::from_text(initial_text).expect("initial state");
    let mut mirror = Mirror::new(state, 0);
    for text in envelopes {
        let mut envelope: v1::ActionEnvelope = decode::from_text(text).expect("envelope");
        let outcome = mirror.apply_batch([&mut envelope], "bench-client", &clock);
        assert!(outcome.rejected.is_empty());
    }
    let bytes = LIVE.load(Relaxed) - before + std::mem::size_of_val(&mirror);
    (bytes, mirror)
}

fn main() {
    for turns in [50, 500] {
        let w = workload_v1::workload_v1(turns);
        let (initial_text, envelopes) = (w.initial_text, w.envelopes);
        let (bytes, mirror) = retained(&initial_text, &envelopes);

        // The mirror holds the stream's end state, and at least its text.
        let state = mirror.state();
        assert!(!mirror.is_forked());
        assert_eq!(mirror.last_server_seq(), workload_v1::ACTIONS as u64);
        let parts = &state
            .active_turn
            .as_ref()
            .expect("active turn")
            .response_parts;
        let v1::ResponsePart::Markdown(p1) = &parts[0] else {
            panic!("p1 is not markdown");
        };
        assert_eq!(p1.content.len(), 99_000);
        assert_eq!(parts.len(), 201);
        assert_eq!(state.turns.len(), turns);
        let text_bytes = 99_000 + turns * 2_000;
        assert!(bytes > text_bytes, "{bytes} B retained, less than the text");

        let json = serde_json::to_string(state).expect("state as JSON").len();
        println!(
            "v1 chat mirror, {turns} turns: {bytes} B retained ({:.2} MiB; the state as JSON: {json} B)",
            bytes as f64 / MIB
        );
        if turns == 500 {
            assert!(
                bytes <= TARGET,
                "{bytes} B retained at 500 turns, over the 4 MiB target"
            );
        }
    }
}
