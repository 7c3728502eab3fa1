//! The AHP 1.0 standard workload (`bench/gen-stream-v1.mjs`, written by Node into
//! `target/bench-workload-v1/`), loaded and checked: every file decodes with both our
//! `protocol::v1` decoder and the official `ahp_types_v1` serde types, both decoders read the
//! same actions, and both reducers reach the stream's documented end state.

// Each bench binary that includes this uses a part of it.
#![allow(dead_code)]

use ahp_types_v1::actions as official_actions;
use ahp_types_v1::state as official_state;
use ahp_wasm::protocol::decode;
use ahp_wasm::protocol::v1;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Actions in the stream: 20,000 slots, every 100th a 4-action tool-call lifecycle.
pub const ACTIONS: usize = 19_800 + 200 * 4;

pub struct WorkloadV1 {
    /// `initial-N.json`.
    pub initial_text: String,
    pub initial: v1::ChatState,
    pub official_initial: official_state::ChatState,
    pub actions: Vec<v1::StateAction>,
    pub official_actions: Vec<official_actions::StateAction>,
    /// `envelopes-N.jsonl`, one envelope's JSON text each.
    pub envelopes: Vec<String>,
}

/// Where the generator writes.
pub fn workload_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-workload-v1")
}

/// Generates the workload with Node (when missing or older than the generator), loads it for
/// `turns` completed turns and checks it (see the module docs); panics on any mismatch.
pub fn workload_v1(turns: usize) -> WorkloadV1 {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let generator = root.join("bench/gen-stream-v1.mjs");
    let dir = workload_dir();
    let initial_path = dir.join(format!("initial-{turns}.json"));
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if modified(&initial_path) < modified(&generator) {
        let status = Command::new("node")
            .arg(&generator)
            .arg(&dir)
            .status()
            .expect("running node bench/gen-stream-v1.mjs (Node 20 is required for the benchmark)");
        assert!(status.success(), "gen-stream-v1.mjs failed");
    }
    let read =
        |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let initial_text = read(&initial_path);
    let actions_text = read(&dir.join(format!("actions-{turns}.json")));
    let envelopes: Vec<String> = read(&dir.join(format!("envelopes-{turns}.jsonl")))
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();

    let initial: v1::ChatState = decode::from_text(&initial_text).expect("initial state (ours)");
    let official_initial: official_state::ChatState =
        serde_json::from_str(&initial_text).expect("initial state (official)");
    let actions: Vec<v1::StateAction> = decode::from_text(&actions_text).expect("actions (ours)");
    let official_actions: Vec<official_actions::StateAction> =
        serde_json::from_str(&actions_text).expect("actions (official)");
    assert_eq!(actions.len(), ACTIONS);
    assert_eq!(official_actions.len(), ACTIONS);
    assert_eq!(envelopes.len(), ACTIONS);
    assert_eq!(initial.turns.len(), turns);
    assert_eq!(official_initial.turns.len(), turns);
    for (i, text) in envelopes.iter().enumerate() {
        let ours: v1::ActionEnvelope = decode::from_text(text).expect("envelope (ours)");
        let official: official_actions::ActionEnvelope =
            serde_json::from_str(text).expect("envelope (official)");
        assert!(
            !matches!(ours.action, v1::StateAction::Unknown(_)),
            "envelope {i}: an action 1.0 does not know: {text}"
        );
        assert!(ours.extra.is_empty(), "envelope {i}: unknown members");
        assert_eq!(ours.action, actions[i], "envelope {i} (ours)");
        assert_eq!(
            official.action, official_actions[i],
            "envelope {i} (official)"
        );
        assert_eq!(ours.server_seq, i as u64 + 1);
        assert_eq!(official.server_seq, i as u64 + 1);
        assert_eq!(ours.channel, initial.resource);
        assert_eq!(official.channel, official_initial.resource);
    }
    let w = WorkloadV1 {
        initial_text,
        initial,
        official_initial,
        actions,
        official_actions,
        envelopes,
    };
    check_end_state(&w);
    w
}

/// Both reducers take the whole stream to its documented end: part `p1` holds 99,000 chars
/// and the active turn 200 completed tool calls after it.
fn check_end_state(w: &WorkloadV1) {
    let mut ours = w.initial.clone();
    for action in &w.actions {
        ahp_wasm::reduce::v1::chat_reducer(&mut ours, action);
    }
    let parts = &ours
        .active_turn
        .as_ref()
        .expect("active turn")
        .response_parts;
    assert_eq!(parts.len(), 201);
    let v1::ResponsePart::Markdown(p1) = &parts[0] else {
        panic!("p1 is not markdown: {:?}", parts[0]);
    };
    assert_eq!(p1.content.len(), 99_000);
    let completed = parts[1..]
        .iter()
        .filter(|p| {
            matches!(p, v1::ResponsePart::ToolCall(c)
                if matches!(c.tool_call, v1::ToolCallState::Completed(_)))
        })
        .count();
    assert_eq!(completed, 200);

    let mut official = w.official_initial.clone();
    for action in &w.official_actions {
        ahp_v1::reducers::apply_action_to_chat(&mut official, action);
    }
    let ours_json = serde_json::to_value(&ours).expect("ours as JSON");
    let official_json = serde_json::to_value(&official).expect("official as JSON");
    assert_eq!(
        ours_json["activeTurn"]["responseParts"], official_json["activeTurn"]["responseParts"],
        "the two reducers disagree on the active turn"
    );
    assert_eq!(ours_json["turns"], official_json["turns"]);
}
