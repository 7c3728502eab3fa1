//! The optimistic mirror (`ahp_wasm::sync::Mirror`) over AHP 1.0 channels: the same mirror code
//! as 0.3.0's, with the 1.0 reducers. Own chat turns show at once, are confirmed by their echo,
//! rolled back on rejection and rebased on foreign actions; on random sequences of the vendored
//! 1.0 fixtures' actions (own, foreign, echoed, rejected, dropped by the server, in random
//! batches) the mirror's states equal an independent model run with the 1.0 reducers, and the
//! patches it reports rebuild its state from the previous rendering; and `sync::v1::AnyState`
//! decodes a snapshot of every 1.0 kind.
#![cfg(not(target_arch = "wasm32"))]

mod common;
#[path = "support/strategies.rs"]
#[allow(dead_code)]
mod strategies;

use ahp_wasm::protocol::decode::from_text;
use ahp_wasm::protocol::v1::{
    ActionEnvelope, ActionOrigin, ChatState, SessionState, Snapshot, StateAction, TerminalState,
};
use ahp_wasm::protocol::RawJsonBuf;
use ahp_wasm::reduce::v1::{chat_reducer, session_reducer, terminal_reducer};
use ahp_wasm::reduce::{FixedClock, Outcome};
use ahp_wasm::sync::v1::{AnyMirror, AnyState, ChannelKind, ChannelState};
use ahp_wasm::sync::{field_names, Mirror, MirrorState, Rejection, StatePatch};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{json, Value};
use std::sync::OnceLock;

const CLOCK: FixedClock = FixedClock(0.0);
const CHAT: &str = "ahp-chat:/c";
const FIXTURES: &str = "protocol/ahp-1.0.0/conformance/reducers";

fn action(value: Value) -> StateAction {
    serde_json::from_value(value).expect("a 1.0 action")
}

fn idle_chat() -> ChatState {
    serde_json::from_value(json!({"resource": CHAT, "title": "T", "status": 1,
        "modifiedAt": "1970-01-01T00:00:01.000Z", "turns": []}))
    .expect("a 1.0 chat state")
}

fn turn_started(turn: &str, text: &str) -> StateAction {
    action(json!({"type": "chat/turnStarted", "turnId": turn,
        "startedAt": "1970-01-01T00:00:02.000Z",
        "message": {"text": text, "origin": {"kind": "user"}}}))
}

fn envelope(
    server_seq: u64,
    action: StateAction,
    origin: Option<(&str, i64)>,
    rejection: Option<&str>,
) -> ActionEnvelope {
    ActionEnvelope {
        channel: CHAT.into(),
        action,
        server_seq,
        origin: origin.map(|(id, seq)| ActionOrigin {
            client_id: id.into(),
            client_seq: seq,
            extra: Default::default(),
        }),
        rejection_reason: rejection.map(str::to_owned),
        extra: Default::default(),
    }
}

fn active_text(state: &ChatState) -> Option<&str> {
    state.active_turn.as_ref().map(|t| t.message.text.as_str())
}

#[test]
fn an_own_turn_shows_at_once_and_its_echo_confirms_it() {
    let mut mirror = Mirror::new(idle_chat(), 5);
    let start = turn_started("t1", "hello");
    let outcome = mirror.dispatch(1, start.clone(), &CLOCK);
    let Outcome::Applied(changed) = outcome else {
        panic!("turnStarted on an idle chat applies: {outcome:?}");
    };
    assert!(field_names::<ChatState>(changed).contains(&"activeTurn"));
    assert_eq!(active_text(mirror.state()), Some("hello"));
    assert_eq!(active_text(mirror.confirmed()), None);
    assert_eq!(mirror.pending_count(), 1);

    let echo = envelope(6, start, Some(("me", 1)), None);
    let out = mirror.apply_batch([&echo], "me", &CLOCK);
    assert_eq!(out.resolved, vec![1]);
    assert!(out.rejected.is_empty() && out.skipped.is_empty());
    assert_eq!(mirror.pending_count(), 0);
    assert!(
        !mirror.is_forked(),
        "no optimistic copy once nothing is pending"
    );
    assert_eq!(active_text(mirror.confirmed()), Some("hello"));
    assert_eq!(mirror.last_server_seq(), 6);
}

#[test]
fn a_rejected_turn_is_rolled_back_and_reported() {
    let mut mirror = Mirror::new(idle_chat(), 0);
    let start = turn_started("t1", "hello");
    mirror.dispatch(1, start.clone(), &CLOCK);
    let mut echo = envelope(1, start.clone(), Some(("me", 1)), Some("busy"));
    let out = mirror.apply_batch([&mut echo], "me", &CLOCK);
    assert_eq!(
        out.rejected,
        vec![Rejection {
            client_seq: 1,
            action: start,
            reason: "busy".into()
        }]
    );
    assert!(out.resolved.is_empty());
    assert!(field_names::<ChatState>(out.changed).contains(&"activeTurn"));
    assert!(out.confirmed_changed.is_empty());
    assert_eq!(active_text(mirror.state()), None);
    assert_eq!(mirror.state(), &idle_chat());
    assert_eq!(mirror.pending_count(), 0);
}

#[test]
fn a_foreign_action_rebases_pending_ones() {
    let mut mirror = Mirror::new(idle_chat(), 0);
    let mine = turn_started("t1", "mine");
    mirror.dispatch(1, mine.clone(), &CLOCK);
    // Another client makes the chat movable and starts its turn first.
    let rename = action(json!({"type": "chat/movableChanged", "movable": true}));
    let theirs = turn_started("t0", "theirs");
    let batch = [
        envelope(1, rename.clone(), Some(("other", 7)), None),
        envelope(2, theirs.clone(), None, None),
    ];
    let out = mirror.apply_batch(&batch, "me", &CLOCK);
    assert_eq!(out.applied, 2);
    assert!(out.resolved.is_empty());
    assert_eq!(mirror.pending_count(), 1, "still awaits its echo");
    assert_eq!(mirror.confirmed().movable, Some(true));
    assert_eq!(active_text(mirror.confirmed()), Some("theirs"));

    // The optimistic state is the new confirmed state with the pending turn replayed on top.
    let mut expected = mirror.confirmed().clone();
    chat_reducer(&mut expected, &mine);
    assert_eq!(mirror.state(), &expected);
    assert_eq!(mirror.state().movable, Some(true));
    let changed = field_names::<ChatState>(out.changed);
    assert!(changed.contains(&"movable") && changed.contains(&"activeTurn"));

    // Dispatched twice, the server drops the first: the echo of the second skips it.
    let second = action(json!({"type": "chat/movableChanged", "movable": false}));
    mirror.dispatch(2, second.clone(), &CLOCK);
    let out = mirror.apply_batch([&envelope(3, second, Some(("me", 2)), None)], "me", &CLOCK);
    assert_eq!(out.resolved, vec![2]);
    assert_eq!(out.skipped.len(), 1);
    assert_eq!(out.skipped[0].action, mine);
    assert_eq!(mirror.pending_count(), 0);
    assert_eq!(mirror.state().movable, Some(false));
    assert_eq!(active_text(mirror.state()), Some("theirs"));
}

#[test]
fn a_negative_client_seq_is_never_ours() {
    let mut mirror = Mirror::new(idle_chat(), 0);
    let start = turn_started("t1", "x");
    mirror.dispatch(1, start.clone(), &CLOCK);
    let odd = envelope(1, start, Some(("me", -1)), None);
    let out = mirror.apply_batch([&odd], "me", &CLOCK);
    assert!(out.resolved.is_empty() && out.divergence.is_none());
    assert_eq!(out.applied, 1, "applied as a foreign action");
    assert_eq!(mirror.pending_count(), 1);
}

#[test]
fn any_mirror_holds_a_chat() {
    let raw = RawJsonBuf::from_string(serde_json::to_string(&idle_chat()).unwrap()).unwrap();
    let state = AnyState::decode(CHAT, raw.as_raw()).expect("a chat snapshot");
    let mut mirror = AnyMirror::new(state, 0);
    assert_eq!(mirror.kind(), ChannelKind::Chat);
    let start = turn_started("t1", "hello");
    let (changed, patch) = mirror.dispatch(1, start.clone(), &CLOCK);
    assert_eq!(changed.kind, ChannelKind::Chat);
    assert!(changed.contains("activeTurn"));
    assert!(!patch.is_empty());
    let typed = mirror.typed::<ChatState>().expect("a chat mirror");
    assert_eq!(active_text(typed.state()), Some("hello"));
    assert!(mirror.typed::<SessionState>().is_none());

    let mut echo = envelope(1, start.clone(), Some(("me", 1)), Some("no"));
    let out = mirror.apply_batch([&mut echo], "me", &CLOCK);
    assert_eq!(out.rejected.len(), 1);
    assert_eq!(out.rejected[0].action, start);
    assert!(out.changed.contains("activeTurn"));
    assert_eq!(mirror.state(), AnyState::Chat(idle_chat()));
}

/// One snapshot per 1.0 kind: the first fixture initial state of each reducer, and the
/// vendored snapshot round-trip cases for the kinds no reducer fixture starts from.
#[test]
fn any_state_decodes_a_snapshot_of_every_kind() {
    let by_reducer = [
        ("root", "ahp-root://", ChannelKind::Root),
        ("session", "ahp-session:/s", ChannelKind::Session),
        (
            "annotations",
            "ahp-session:/s/annotations",
            ChannelKind::Annotations,
        ),
        ("chat", "ahp-chat:/s/main", ChannelKind::Chat),
        ("terminal", "ahp-terminal:/t", ChannelKind::Terminal),
        (
            "changeset",
            "ahp-changeset:/s/main/branch",
            ChannelKind::Changeset,
        ),
        (
            "resourceWatch",
            "ahp-resource-watch:/w",
            ChannelKind::ResourceWatch,
        ),
        ("automation", "ahp-automations://", ChannelKind::Automations),
    ];
    let fixtures = common::fixtures_in(FIXTURES);
    let mut seen = Vec::new();
    for (reducer, uri, kind) in by_reducer {
        let (name, fixture) = fixtures
            .iter()
            .find(|(_, f)| f["reducer"] == reducer)
            .unwrap_or_else(|| panic!("no {reducer} fixture"));
        let snapshot = json!({"resource": uri, "state": fixture["initial"], "fromSeq": 3});
        let decoded = decode_snapshot(&snapshot).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(decoded.kind(), kind, "{name}");
        assert_eq!(AnyMirror::new(decoded, 3).kind(), kind);
        seen.push(kind);
    }
    let round_trips = "protocol/ahp-1.0.0/conformance/round-trips";
    for (file, kind) in [
        (
            "042-automation-run-snapshot.json",
            ChannelKind::AutomationRun,
        ),
        ("051-canvas-ready-snapshot.json", ChannelKind::Canvas),
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(round_trips)
            .join(file);
        let case: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let decoded = decode_snapshot(&case["input"]).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(decoded.kind(), kind, "{file}");
        seen.push(kind);
    }
    seen.sort_by_key(|k| ChannelKind::ALL.iter().position(|a| a == k));
    assert_eq!(seen, ChannelKind::ALL, "every kind decoded once");
}

/// A snapshot's state as `AnyState`: by its resource's kind, and (the same state) by shape
/// under a scheme this version does not name.
fn decode_snapshot(snapshot: &Value) -> Result<AnyState, String> {
    let uri = snapshot["resource"].as_str().ok_or("no resource")?;
    let raw = RawJsonBuf::from_string(snapshot["state"].to_string()).map_err(|e| e.to_string())?;
    let state = AnyState::decode(uri, raw.as_raw()).map_err(|e| e.to_string())?;
    let typed: Snapshot = from_text(&snapshot.to_string()).map_err(|e| e.to_string())?;
    assert_eq!(
        state,
        AnyState::from(typed.state),
        "the typed snapshot agrees"
    );
    let kind = state.kind();
    let expected = serde_json::to_value(&state).map_err(|e| e.to_string())?;
    assert_eq!(
        common::normalize(&expected),
        common::normalize(&snapshot["state"]),
        "{kind:?} keeps every member"
    );
    Ok(state)
}

#[test]
fn a_state_of_the_wrong_kind_fails_to_decode() {
    let raw = RawJsonBuf::from_string(r#"{"agents": []}"#.into()).unwrap();
    assert!(AnyState::decode(CHAT, raw.as_raw()).is_err());
    assert!(matches!(
        AnyState::decode("x-other:/y", raw.as_raw()),
        Ok(AnyState::Root(_))
    ));
}

// ---- The model test ----

/// What happens next in a random run.
#[derive(Debug, Clone)]
enum Op {
    /// The client dispatches a pool action.
    Dispatch(Index),
    /// Another client's pool action reaches the server.
    Foreign(Index),
    /// The server takes the oldest own action it has not answered: applies it (echo),
    /// rejects it, or drops it without an answer.
    Answer { reject: bool, drop: bool },
    /// The server's queued envelopes reach the client as one batch.
    Deliver,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => any::<Index>().prop_map(Op::Dispatch),
        2 => any::<Index>().prop_map(Op::Foreign),
        3 => (prop::bool::weighted(0.2), prop::bool::weighted(0.1))
            .prop_map(|(reject, drop)| Op::Answer { reject, drop }),
        2 => Just(Op::Deliver),
    ]
}

/// A reducer's fixtures: their initial states and every action they dispatch.
struct Pool<S> {
    initials: Vec<S>,
    actions: Vec<StateAction>,
}

fn pool<S: serde::de::DeserializeOwned>(reducer: &str) -> Pool<S> {
    let mut pool = Pool {
        initials: Vec::new(),
        actions: Vec::new(),
    };
    for (name, fixture) in common::fixtures_in(FIXTURES) {
        if fixture["reducer"] != reducer {
            continue;
        }
        let initial = serde_json::from_value(fixture["initial"].clone());
        pool.initials
            .push(initial.unwrap_or_else(|e| panic!("{name}: {e}")));
        for a in fixture["actions"].as_array().expect("actions") {
            pool.actions.push(action(a.clone()));
        }
    }
    assert!(pool.initials.len() > 10 && pool.actions.len() > 10);
    pool
}

fn chat_pool() -> &'static Pool<ChatState> {
    static POOL: OnceLock<Pool<ChatState>> = OnceLock::new();
    POOL.get_or_init(|| pool("chat"))
}

fn terminal_pool() -> &'static Pool<TerminalState> {
    static POOL: OnceLock<Pool<TerminalState>> = OnceLock::new();
    POOL.get_or_init(|| pool("terminal"))
}

fn session_pool() -> &'static Pool<SessionState> {
    static POOL: OnceLock<Pool<SessionState>> = OnceLock::new();
    POOL.get_or_init(|| pool("session"))
}

/// Runs `ops` against a mirror of `initial` and, beside it, a model: the server's confirmed
/// state (the 1.0 reducer over every envelope it did not reject, in `serverSeq` order) and the
/// client's own actions not yet answered. After every batch the mirror's confirmed state is the
/// model's, its optimistic state the reducer over the model's confirmed state then the pending
/// actions, its changed fields cover every top-level member that changed, and it reports the
/// model's resolved, rejected and skipped actions; and every dispatch's and batch's patch,
/// applied to the rendering before, gives the optimistic state's JSON.
fn check_against_model<S: ChannelState>(
    initial: &S,
    actions: &[StateAction],
    ops: &[Op],
    reduce: impl Fn(&mut S, &StateAction),
) -> Result<(), TestCaseError> {
    let mut mirror = Mirror::new(initial.clone(), 0);
    // The rendering the mirror's patches keep up to date (the ops' reference semantics).
    let mut rendered = serde_json::to_value(initial).unwrap();
    let mut confirmed = initial.clone();
    let mut pending: Vec<(u64, StateAction)> = Vec::new(); // the client's view, in order
    let mut unanswered: Vec<(u64, StateAction)> = Vec::new(); // the server's queue
    let mut queued: Vec<ActionEnvelope> = Vec::new();
    let (mut client_seq, mut server_seq) = (0u64, 0u64);
    let deliver_all = std::iter::once(Op::Deliver);
    for op in ops.iter().cloned().chain(deliver_all) {
        match op {
            Op::Dispatch(i) => {
                client_seq += 1;
                let a = i.get(actions).clone();
                let (_, patch) = mirror.dispatch_patched(client_seq, a.clone(), &CLOCK);
                check_patch(&mut rendered, &patch, mirror.state())?;
                pending.push((client_seq, a.clone()));
                unanswered.push((client_seq, a));
                prop_assert_eq!(mirror.state(), &replayed(&confirmed, &pending, &reduce));
            }
            Op::Foreign(i) => {
                server_seq += 1;
                let a = i.get(actions).clone();
                queued.push(envelope(server_seq, a, Some(("other", 1)), None));
            }
            Op::Answer { reject, drop } => {
                if unanswered.is_empty() {
                    continue;
                }
                let (seq, a) = unanswered.remove(0);
                if drop {
                    continue;
                }
                server_seq += 1;
                let reason = reject.then_some("rejected");
                queued.push(envelope(server_seq, a, Some(("me", seq as i64)), reason));
            }
            Op::Deliver => {
                let before = serde_json::to_value(mirror.state()).unwrap();
                let batch = std::mem::take(&mut queued);
                let (mut resolved, mut rejected, mut skipped) = (vec![], vec![], vec![]);
                for e in &batch {
                    let own = e.origin.as_ref().filter(|o| o.client_id == "me");
                    if let Some(seq) = own.map(|o| o.client_seq as u64) {
                        let at = pending.iter().position(|(s, _)| *s == seq).unwrap();
                        skipped.extend(pending.drain(..at).map(|(s, _)| s));
                        pending.remove(0);
                        match e.rejection_reason {
                            Some(_) => rejected.push(seq),
                            None => resolved.push(seq),
                        }
                    }
                    if e.rejection_reason.is_none() {
                        reduce(&mut confirmed, &e.action);
                    }
                }
                let out = mirror.apply_batch(&batch, "me", &CLOCK);
                check_patch(&mut rendered, &out.patch, mirror.state())?;
                prop_assert_eq!(&out.resolved, &resolved);
                let out_rejected: Vec<u64> = out.rejected.iter().map(|r| r.client_seq).collect();
                prop_assert_eq!(out_rejected, rejected);
                let out_skipped: Vec<u64> = out.skipped.iter().map(|p| p.client_seq).collect();
                prop_assert_eq!(out_skipped, skipped);
                prop_assert!(out.divergence.is_none());
                prop_assert_eq!(mirror.confirmed(), &confirmed);
                prop_assert_eq!(mirror.state(), &replayed(&confirmed, &pending, &reduce));
                prop_assert_eq!(mirror.pending_count(), pending.len());
                let after = serde_json::to_value(mirror.state()).unwrap();
                let changed = field_names::<S>(out.changed);
                for name in S::fields().iter().map(|&f| S::field_name(f)) {
                    if before.get(name) != after.get(name) {
                        prop_assert!(changed.contains(&name), "{} changed unreported", name);
                    }
                }
            }
        }
    }
    // A fork only while something is pending (the server's drops stay pending until a later
    // echo skips them).
    prop_assert_eq!(mirror.is_forked(), !pending.is_empty());
    Ok(())
}

/// Applies `patch` to `rendered`, reading from `state`: the result is the state's JSON.
fn check_patch<S: ChannelState>(
    rendered: &mut Value,
    patch: &StatePatch,
    state: &S,
) -> Result<(), TestCaseError> {
    let state = serde_json::to_value(state).unwrap();
    patch.apply_to_json(rendered, &state);
    prop_assert_eq!(&*rendered, &state, "patch {:?}", patch);
    Ok(())
}

/// `confirmed` with `pending` applied by the reducer, computed apart from the mirror.
fn replayed<S: MirrorState>(
    confirmed: &S,
    pending: &[(u64, StateAction)],
    reduce: &impl Fn(&mut S, &StateAction),
) -> S {
    let mut state = confirmed.clone();
    for (_, a) in pending {
        reduce(&mut state, a);
    }
    state
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(strategies::cases()))]

    #[test]
    fn chat_mirror_matches_the_reducer_model(
        initial in any::<Index>(),
        ops in prop::collection::vec(op(), 0..60),
    ) {
        let pool = chat_pool();
        check_against_model(initial.get(&pool.initials), &pool.actions, &ops, |s, a| {
            chat_reducer(s, a);
        })?;
    }

    #[test]
    fn terminal_mirror_matches_the_reducer_model(
        initial in any::<Index>(),
        ops in prop::collection::vec(op(), 0..60),
    ) {
        let pool = terminal_pool();
        check_against_model(initial.get(&pool.initials), &pool.actions, &ops, |s, a| {
            terminal_reducer(s, a);
        })?;
    }

    #[test]
    fn session_mirror_matches_the_reducer_model(
        initial in any::<Index>(),
        ops in prop::collection::vec(op(), 0..60),
    ) {
        let pool = session_pool();
        check_against_model(initial.get(&pool.initials), &pool.actions, &ops, |s, a| {
            session_reducer(s, a);
        })?;
    }
}
