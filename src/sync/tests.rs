use super::*;
use crate::protocol::{
    ActionEnvelope, ActionOrigin, SessionState, TerminalState, TerminalStateField,
};
use crate::reduce::FixedClock;
use serde_json::json;

const ME: &str = "me";
const CLOCK: FixedClock = FixedClock(1.0);

fn terminal() -> TerminalState {
    serde_json::from_value(json!({"title": "t", "content": [],
        "claim": {"kind": "client", "clientId": "c"}}))
    .unwrap()
}

fn data(text: &str) -> StateAction {
    serde_json::from_value(json!({"type": "terminal/data", "data": text})).unwrap()
}

fn title(text: &str) -> StateAction {
    serde_json::from_value(json!({"type": "terminal/titleChanged", "title": text})).unwrap()
}

fn env(seq: u64, action: StateAction, origin: Option<(&str, u64)>) -> ActionEnvelope {
    ActionEnvelope {
        channel: "ahp-terminal:/1".into(),
        action,
        server_seq: seq,
        origin: origin.map(|(id, s)| ActionOrigin {
            client_id: id.into(),
            client_seq: s,
            extra: Default::default(),
        }),
        rejection_reason: None,
        extra: Default::default(),
    }
}

fn text(s: &TerminalState) -> String {
    serde_json::to_value(&s.content).unwrap().to_string()
}

fn check(m: &Mirror<TerminalState>) {
    assert_eq!(
        m.state(),
        &m.recompute(&CLOCK),
        "state == confirmed + pending"
    );
}

#[test]
fn kind_from_uri() {
    assert_eq!(
        ChannelKind::from_uri("ahp-root://"),
        Some(ChannelKind::Root)
    );
    assert_eq!(
        ChannelKind::from_uri("ahp-session:/x"),
        Some(ChannelKind::Session)
    );
    assert_eq!(
        ChannelKind::from_uri("ahp-resource-watch:/w"),
        Some(ChannelKind::ResourceWatch)
    );
    assert_eq!(ChannelKind::from_uri("copilot:/x"), None);
    assert_eq!(ChannelKind::from_uri("nocolon"), None);
}

#[test]
fn no_copy_while_nothing_is_pending() {
    let mut m = Mirror::new(terminal(), 0);
    let out = m.apply_batch([&env(1, data("a"), None)], ME, &CLOCK);
    assert!(!m.is_forked(), "foreign actions need no fork");
    assert_eq!(out.changed, Changed::one(TerminalStateField::Content));
    m.dispatch(1, data("b"), &CLOCK);
    assert!(m.is_forked());
    m.apply_batch([&env(2, data("b"), Some((ME, 1)))], ME, &CLOCK);
    assert!(!m.is_forked(), "fork dropped once nothing is pending");
    check(&m);
}

#[test]
fn own_echo_in_order_needs_no_replay_and_reports_nothing() {
    let mut m = Mirror::new(terminal(), 0);
    m.dispatch(1, data("a"), &CLOCK);
    m.dispatch(2, data("b"), &CLOCK);
    let out = m.apply_batch([&env(5, data("a"), Some((ME, 1)))], ME, &CLOCK);
    assert_eq!(out.resolved, vec![1]);
    assert!(out.changed.is_empty(), "optimistic state did not change");
    assert_eq!(
        out.confirmed_changed,
        Changed::one(TerminalStateField::Content)
    );
    assert_eq!(m.pending_count(), 1);
    check(&m);
}

#[test]
fn foreign_action_rebases_pending() {
    let mut m = Mirror::new(terminal(), 0);
    m.dispatch(1, data("mine"), &CLOCK);
    let out = m.apply_batch([&env(1, data("theirs"), Some(("other", 9)))], ME, &CLOCK);
    assert!(out.changed.contains(TerminalStateField::Content));
    assert!(
        text(m.state()).contains("theirsmine"),
        "{}",
        text(m.state())
    );
    assert!(!text(m.confirmed()).contains("mine"));
    check(&m);
    m.apply_batch([&env(2, data("mine"), Some((ME, 1)))], ME, &CLOCK);
    assert_eq!(m.state(), m.confirmed());
    assert_eq!(m.pending_count(), 0);
}

#[test]
fn rejection_reverts_and_reports() {
    let mut m = Mirror::new(terminal(), 0);
    m.dispatch(1, title("new"), &CLOCK);
    assert_eq!(m.state().title, "new");
    let mut echo = env(3, title("new"), Some((ME, 1)));
    echo.rejection_reason = Some("not allowed".into());
    let out = m.apply_batch([&echo], ME, &CLOCK);
    assert_eq!(out.rejected.len(), 1);
    assert_eq!(out.rejected[0].reason, "not allowed");
    assert_eq!(out.rejected[0].client_seq, 1);
    assert!(out.changed.contains(TerminalStateField::Title));
    assert_eq!(m.state().title, "t");
    assert_eq!(m.pending_count(), 0);
}

#[test]
fn watermark_drops_skipped_actions() {
    let mut m = Mirror::new(terminal(), 0);
    m.dispatch(1, data("a"), &CLOCK);
    m.dispatch(2, data("b"), &CLOCK);
    m.dispatch(3, data("c"), &CLOCK);
    let out = m.apply_batch([&env(4, data("b"), Some((ME, 2)))], ME, &CLOCK);
    assert_eq!(out.skipped.len(), 1);
    assert_eq!(out.skipped[0].client_seq, 1);
    assert_eq!(out.resolved, vec![2]);
    assert_eq!(m.pending_count(), 1);
    assert!(out.changed.contains(TerminalStateField::Content));
    check(&m);
    // A late echo of the skipped action: the server did apply it after all.
    let out = m.apply_batch([&env(5, data("a"), Some((ME, 1)))], ME, &CLOCK);
    assert!(out.divergence.is_none());
    assert_eq!(out.applied, 1);
    check(&m);
}

#[test]
fn duplicates_are_ignored_and_seq_must_increase() {
    let mut m = Mirror::new(terminal(), 10);
    let out = m.apply_batch(
        [
            &env(9, data("old"), None),
            &env(10, data("old"), None),
            &env(11, data("x"), None),
            &env(11, data("x"), None),
        ],
        ME,
        &CLOCK,
    );
    assert_eq!((out.applied, out.duplicates), (1, 3));
    assert_eq!(m.last_server_seq(), 11);
    assert!(!text(m.state()).contains("old"));
}

#[test]
fn unknown_own_client_seq_is_a_divergence() {
    let mut m = Mirror::new(terminal(), 0);
    m.dispatch(1, data("a"), &CLOCK);
    let out = m.apply_batch([&env(1, data("zzz"), Some((ME, 7)))], ME, &CLOCK);
    assert_eq!(out.divergence, Some(Divergence::UnknownClientSeq(7)));
    // Still follows the server: the action is applied to confirmed.
    assert!(text(m.confirmed()).contains("zzz"));
    check(&m);
}

#[test]
fn reset_keeps_pending_and_drop_pending_rebuilds() {
    let mut m = Mirror::new(terminal(), 0);
    m.dispatch(1, data("a"), &CLOCK);
    m.dispatch(2, title("x"), &CLOCK);
    m.mark_sent(1);
    let mut fresh = terminal();
    fresh.title = "server".into();
    // A member of a newer protocol version comes with the snapshot.
    fresh.extra.insert("newerField".into(), json!({"a": 1}));
    m.reset(fresh, 40, &CLOCK);
    assert_eq!(m.last_server_seq(), 40);
    assert_eq!(m.state().title, "x");
    assert_eq!(m.state().extra.get("newerField"), Some(&json!({"a": 1})));
    assert_eq!(m.confirmed().title, "server");
    check(&m);
    let (dropped, changed) = m.drop_pending(|p| p.sent, &CLOCK);
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0].client_seq, 1);
    assert!(changed.contains(TerminalStateField::Content));
    check(&m);
    let (dropped, _) = m.drop_pending(|_| true, &CLOCK);
    assert_eq!(dropped.len(), 1);
    assert_eq!(m.state(), m.confirmed());
}

#[test]
fn any_mirror_and_change_sets() {
    let raw = crate::protocol::RawJsonBuf::from_string(
        json!({"title": "t", "content": [], "claim": {"kind": "client", "clientId": "c"}})
            .to_string(),
    )
    .unwrap();
    let state = AnyState::decode("ahp-terminal:/1", raw.as_raw()).unwrap();
    assert_eq!(state.kind(), ChannelKind::Terminal);
    let mut m = AnyMirror::new(state, 0);
    let (changed, _) = m.dispatch(1, data("a"), &CLOCK);
    assert_eq!(changed.names(), vec!["content"]);
    assert!(m.typed::<TerminalState>().is_some());
    assert!(m.typed::<RootState>().is_none());
    let out = m.apply_batch([&env(1, title("z"), None)], ME, &CLOCK);
    assert_eq!(out.changed.names(), vec!["title", "content"]);
    assert_eq!(m.pending_count(), 1);
    // A resource-watch snapshot only decodes by its URI scheme.
    let raw =
        crate::protocol::RawJsonBuf::from_string(r#"{"root":"file:///w","recursive":true}"#.into())
            .unwrap();
    assert_eq!(
        AnyState::decode("ahp-resource-watch:/w", raw.as_raw())
            .unwrap()
            .kind(),
        ChannelKind::ResourceWatch
    );
}

#[test]
fn pending_actions_are_found_and_marked_by_client_seq() {
    let mut m = Mirror::new(terminal(), 0);
    for seq in [3, 5, 9] {
        m.dispatch(seq, data(&seq.to_string()), &CLOCK);
    }
    assert_eq!(m.pending_action(5).map(|p| &p.action), Some(&data("5")));
    assert!(m.pending_action(4).is_none());
    assert!(m.pending_action(10).is_none());
    m.mark_sent(9);
    let sent: Vec<bool> = m.pending().map(|p| p.sent).collect();
    assert_eq!(sent, [false, false, true]);
    // The echo of 5 drops 3 (skipped) and 5; 9 is still found.
    m.apply_batch([&env(1, data("5"), Some((ME, 5)))], ME, &CLOCK);
    assert!(m.pending_action(3).is_none() && m.pending_action(5).is_none());
    assert!(m.pending_action(9).is_some_and(|p| p.sent));
}

#[test]
fn snapshots_of_other_schemes_decode_by_shape() {
    let decode = |v: serde_json::Value| {
        let raw = crate::protocol::RawJsonBuf::from_string(v.to_string()).unwrap();
        AnyState::decode("copilot:/s", raw.as_raw()).map(|s| s.kind())
    };
    assert_eq!(decode(json!({"agents": []})).unwrap(), ChannelKind::Root);
    let session = json!({"summary": {"resource": "copilot:/s", "provider": "p", "title": "t",
        "status": 1, "createdAt": 1, "modifiedAt": 2}, "lifecycle": "ready", "turns": []});
    assert_eq!(decode(session).unwrap(), ChannelKind::Session);
    assert_eq!(
        decode(json!({"title": "t", "content": [], "claim": {"kind": "client", "clientId": "c"}}))
            .unwrap(),
        ChannelKind::Terminal
    );
    assert!(decode(json!({"nothing": "known"})).is_err());
}

/// A ready session with an active turn `t1` holding one markdown part `p1` ("a").
fn session_with_active_turn() -> SessionState {
    serde_json::from_value(json!({
        "summary": {"resource": "ahp-session:/s", "provider": "p", "title": "T", "status": 1,
            "createdAt": 1, "modifiedAt": 1},
        "lifecycle": "ready",
        "turns": [],
        "activeTurn": {"id": "t1", "message": {"text": "q", "origin": {"kind": "user"}},
            "responseParts": [{"kind": "markdown", "id": "p1", "content": "a"}]},
    }))
    .unwrap()
}

/// While an own action is pending, a foreign change to a field it does not touch is still
/// described finely (no whole-field rebuild of the active turn per streamed delta).
#[test]
fn pending_actions_keep_foreign_patches_fine_outside_their_fields() {
    let session = session_with_active_turn();
    let action =
        |value: serde_json::Value| -> StateAction { serde_json::from_value(value).unwrap() };
    let delta = |text: &str| {
        action(json!({"type": "session/delta", "turnId": "t1", "partId": "p1", "content": text}))
    };
    let rename = action(json!({"type": "session/titleChanged", "title": "mine"}));
    let mut m = Mirror::new(session, 0);
    let mut rendered = serde_json::to_value(m.state()).unwrap();
    let (_, patch) = m.dispatch_patched(1, rename.clone(), &CLOCK);
    patch.apply_to_json(&mut rendered, &serde_json::to_value(m.state()).unwrap());

    let envelope = |seq, action, origin| ActionEnvelope {
        channel: "ahp-session:/s".into(),
        ..env(seq, action, origin)
    };
    // Foreign deltas while the rename is pending: fine appends, the summary whole.
    let out = m.apply_batch(
        &[envelope(1, delta("b"), None), envelope(2, delta("c"), None)],
        ME,
        &CLOCK,
    );
    assert_eq!(
        out.patch.ops,
        vec![
            PatchOp::AppendPartText {
                index: 0,
                appended: 1..3 // "bc" after "a"
            },
            PatchOp::Field("summary"),
        ]
    );
    let state = serde_json::to_value(m.state()).unwrap();
    out.patch.apply_to_json(&mut rendered, &state);
    assert_eq!(rendered, state);
    assert_eq!(m.state().summary.title, "mine");

    // The echo with another delta: the rename's field whole, the delta fine.
    let out = m.apply_batch(
        &[
            envelope(3, rename, Some((ME, 1))),
            envelope(4, delta("d"), None),
        ],
        ME,
        &CLOCK,
    );
    assert!(out.patch.ops.contains(&PatchOp::AppendPartText {
        index: 0,
        appended: 3..4 // "d"
    }));
    assert!(!out.patch.ops.contains(&PatchOp::Field("activeTurn")));
    let state = serde_json::to_value(m.state()).unwrap();
    out.patch.apply_to_json(&mut rendered, &state);
    assert_eq!(rendered, state);
    assert!(!m.is_forked());
}

/// Applies `actions` to `m` as one batch of foreign envelopes on `channel` (numbered on from
/// `seq`), checks that the batch's patch turns `rendered` into the new state, and returns the
/// patch's steps.
fn feed_batch<S: ChannelState>(
    m: &mut Mirror<S>,
    rendered: &mut serde_json::Value,
    seq: &mut u64,
    channel: &str,
    actions: Vec<StateAction>,
) -> Vec<PatchOp> {
    let envelopes: Vec<ActionEnvelope> = actions
        .into_iter()
        .map(|action| {
            *seq += 1;
            ActionEnvelope {
                channel: channel.into(),
                ..env(*seq, action, None)
            }
        })
        .collect();
    let out = m.apply_batch(&envelopes, ME, &CLOCK);
    let state = serde_json::to_value(m.state()).unwrap();
    out.patch.apply_to_json(rendered, &state);
    assert_eq!(*rendered, state);
    out.patch.ops
}

/// Terminal output on the tail part is appended in place; a new part or a trimmed scrollback
/// takes `content` whole; every patch rebuilds the state.
#[test]
fn terminal_output_is_appended_in_place() {
    let mut m = Mirror::new(terminal(), 0);
    let mut rendered = serde_json::to_value(m.state()).unwrap();
    let mut seq = 0;
    let mut feed = |m: &mut Mirror<TerminalState>, actions: Vec<StateAction>| {
        feed_batch(m, &mut rendered, &mut seq, "ahp-terminal:/1", actions)
    };
    // The first output creates the part: whole.
    assert_eq!(
        feed(&mut m, vec![data("$ ")]),
        vec![PatchOp::Field("content")]
    );
    // More output: appended, joined into one step per batch, with the title whole beside it.
    assert_eq!(
        feed(&mut m, vec![data("ls"), title("bash"), data("\r\n")]),
        vec![
            PatchOp::AppendTerminalText {
                index: 0,
                key: "value",
                text: "ls\r\n".into()
            },
            PatchOp::Field("title"),
        ]
    );
    // A command part, then its output: `output`.
    let executed: StateAction = serde_json::from_value(json!({"type": "terminal/commandExecuted",
        "commandId": "c1", "commandLine": "ls", "timestamp": 1}))
    .unwrap();
    assert_eq!(
        feed(&mut m, vec![executed]),
        vec![
            PatchOp::Field("content"),
            PatchOp::Field("supportsCommandDetection")
        ]
    );
    assert_eq!(
        feed(&mut m, vec![data("a.txt")]),
        vec![PatchOp::AppendTerminalText {
            index: 1,
            key: "output",
            text: "a.txt".into()
        }]
    );
    // Output past the scrollback bound trims the oldest text: whole.
    let big = "x".repeat(crate::reduce::MAX_SCROLLBACK_BYTES);
    assert_eq!(
        feed(&mut m, vec![data(&big)]),
        vec![PatchOp::Field("content")]
    );
    // An append then a whole step in one batch: only the whole one.
    let cleared: StateAction = serde_json::from_value(json!({"type": "terminal/cleared"})).unwrap();
    assert_eq!(
        feed(&mut m, vec![data("y"), cleared]),
        vec![PatchOp::Field("content")]
    );
}

/// A streaming tool call's input is appended in place; a new progress message replaces the
/// part; every patch rebuilds the state.
#[test]
fn streamed_tool_input_is_appended_in_place() {
    let session = session_with_active_turn();
    let action =
        |value: serde_json::Value| -> StateAction { serde_json::from_value(value).unwrap() };
    let delta = |content: &str, message: Option<&str>| {
        action(
            json!({"type": "session/toolCallDelta", "turnId": "t1", "toolCallId": "c1",
            "content": content, "invocationMessage": message}),
        )
    };
    let mut m = Mirror::new(session, 0);
    let mut rendered = serde_json::to_value(m.state()).unwrap();
    let mut seq = 0;
    let mut feed = |m: &mut Mirror<SessionState>, actions: Vec<StateAction>| {
        feed_batch(m, &mut rendered, &mut seq, "ahp-session:/s", actions)
    };
    let start = action(json!({"type": "session/toolCallStart", "turnId": "t1",
        "toolCallId": "c1", "toolName": "write", "displayName": "Write"}));
    assert_eq!(
        feed(&mut m, vec![start]),
        vec![PatchOp::PushParts { from: 1 }]
    );
    // The first input (none before) and the next, joined in one batch.
    assert_eq!(
        feed(&mut m, vec![delta("{\"pa", None), delta("th\":", None)]),
        vec![PatchOp::AppendToolInput {
            index: 1,
            appended: 0..8 // `{"path":`
        }]
    );
    // A progress message: the part whole; appends after it in the batch are in it already.
    assert_eq!(
        feed(
            &mut m,
            vec![delta("\"a", Some("Writing a")), delta(".txt\"}", None)]
        ),
        vec![PatchOp::ReplacePart { index: 1 }]
    );
}

/// The first own action forks the optimistic state without copying the session's history:
/// the completed turns are shared with the confirmed state, and stay so through replays; a
/// turn that ends is added to both, separately.
#[test]
fn forking_shares_completed_turns() {
    let mut session = session_with_active_turn();
    let turn: crate::protocol::Turn = serde_json::from_value(json!({"id": "t0",
        "message": {"text": "q", "origin": {"kind": "user"}}, "responseParts": [],
        "state": "complete"}))
    .unwrap();
    session.turns = (0..50).map(|_| std::sync::Arc::new(turn.clone())).collect();
    let shared = |m: &Mirror<SessionState>| {
        m.state()
            .turns
            .iter()
            .zip(&m.confirmed().turns)
            .all(|(a, b)| std::sync::Arc::ptr_eq(a, b))
    };
    let mut m = Mirror::new(session, 0);
    let rename: StateAction =
        serde_json::from_value(json!({"type": "session/titleChanged", "title": "mine"})).unwrap();
    m.dispatch(1, rename, &CLOCK);
    assert!(m.is_forked());
    assert_eq!(m.state().turns.len(), 50);
    assert!(shared(&m), "the fork copied the completed turns");
    // A foreign action makes the pending one replay on a fresh copy of what changed.
    let foreign = ActionEnvelope {
        channel: "ahp-session:/s".into(),
        ..env(1, title("theirs"), None)
    };
    m.apply_batch([&foreign], ME, &CLOCK);
    assert_eq!(m.state().summary.title, "mine");
    assert!(shared(&m), "the replay copied the completed turns");
    let complete: StateAction =
        serde_json::from_value(json!({"type": "session/turnComplete", "turnId": "t1"})).unwrap();
    let ended = ActionEnvelope {
        channel: "ahp-session:/s".into(),
        ..env(2, complete, None)
    };
    m.apply_batch([&ended], ME, &CLOCK);
    assert_eq!(m.state().turns.len(), 51);
    assert_eq!(m.state(), &m.recompute(&CLOCK));
}
