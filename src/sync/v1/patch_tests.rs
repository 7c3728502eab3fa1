//! The patches of the 1.0 chat and terminal mirrors: applied to the JSON of the state before
//! ([`StatePatch::apply_to_json`], the ops' reference semantics), they give the JSON of the
//! state after; streamed text, tool input and terminal output are fine steps, not whole
//! fields. Over every 1.0 conformance fixture on a chat or terminal channel, step by step, as
//! one batch, and dispatched as own actions then echoed; and on named cases.

use super::*;
use crate::protocol::v1::ActionOrigin;
use crate::reduce::FixedClock;
use crate::sync::{Mirror, PatchOp, StatePatch};
use serde_json::{json, Value};
use std::collections::BTreeSet;

pub(super) const ME: &str = "me";
pub(super) const CLOCK: FixedClock = FixedClock(0.0);

pub(super) fn action(value: Value) -> StateAction {
    serde_json::from_value(value).expect("a 1.0 action")
}

pub(super) fn to_json<S: ChannelState>(state: &S) -> Value {
    serde_json::to_value(state).expect("a state encodes")
}

pub(super) fn envelope(
    channel: &str,
    server_seq: u64,
    action: StateAction,
    origin: Option<(&str, i64)>,
    rejection: Option<&str>,
) -> ActionEnvelope {
    ActionEnvelope {
        channel: channel.into(),
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

/// Applies `patch` to `rendered` reading from the mirror's state; `Err` names the difference
/// when the result is not the state's JSON.
pub(super) fn apply<S: ChannelState>(
    rendered: &mut Value,
    mirror: &Mirror<S>,
    patch: &StatePatch,
) -> Result<(), String> {
    let state = to_json(mirror.state());
    patch.apply_to_json(rendered, &state);
    if *rendered == state {
        Ok(())
    } else {
        Err(format!(
            "patch {patch:?}\n rendered {rendered}\n state    {state}"
        ))
    }
}

/// A mirror of `initial` with its rendering, fed foreign batches on one channel.
struct Rendered<S: ChannelState> {
    mirror: Mirror<S>,
    rendered: Value,
    channel: &'static str,
    seq: u64,
}

impl<S: ChannelState> Rendered<S> {
    fn new(initial: S, channel: &'static str) -> Self {
        let rendered = to_json(&initial);
        Rendered {
            mirror: Mirror::new(initial, 0),
            rendered,
            channel,
            seq: 0,
        }
    }

    /// One batch of foreign actions: checks its patch and returns its steps.
    fn feed(&mut self, actions: Vec<StateAction>) -> Vec<PatchOp> {
        let batch: Vec<ActionEnvelope> = actions
            .into_iter()
            .map(|a| {
                self.seq += 1;
                envelope(self.channel, self.seq, a, None, None)
            })
            .collect();
        let out = self.mirror.apply_batch(&batch, ME, &CLOCK);
        apply(&mut self.rendered, &self.mirror, &out.patch).unwrap();
        out.patch.ops
    }
}

/// The kind of a step, for coverage.
pub(super) fn op_kind(op: &PatchOp) -> &'static str {
    match op {
        PatchOp::Field(_) => "Field",
        PatchOp::AppendPartText { .. } => "AppendPartText",
        PatchOp::AppendToolInput { .. } => "AppendToolInput",
        PatchOp::ReplacePart { .. } => "ReplacePart",
        PatchOp::PushParts { .. } => "PushParts",
        PatchOp::PushTurns { .. } => "PushTurns",
        PatchOp::AppendTerminalText { .. } => "AppendTerminalText",
    }
}

/// Runs one fixture's actions through mirrors of its initial state three ways (each action a
/// foreign batch; all of them one batch; each dispatched as an own action, then all echoed in
/// one batch), checking every patch; adds the kinds of the step-by-step steps to `seen`.
fn check_fixture<S: ChannelState + serde::de::DeserializeOwned>(
    name: &str,
    fixture: &Value,
    channel: &'static str,
    seen: &mut BTreeSet<&'static str>,
) {
    let initial: S = serde_json::from_value(fixture["initial"].clone())
        .unwrap_or_else(|e| panic!("{name}: initial: {e}"));
    let actions: Vec<StateAction> = fixture["actions"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: no actions"))
        .iter()
        .map(|a| action(a.clone()))
        .collect();
    let fail = |how: &str, e: String| panic!("{name} ({how}): {e}");

    let mut one_by_one = Rendered::new(initial.clone(), channel);
    for a in &actions {
        seen.extend(one_by_one.feed(vec![a.clone()]).iter().map(op_kind));
    }

    let mut batched = Rendered::new(initial.clone(), channel);
    batched.feed(actions.clone());
    assert_eq!(batched.mirror.state(), one_by_one.mirror.state(), "{name}");

    let mut own = Mirror::new(initial.clone(), 0);
    let mut rendered = to_json(&initial);
    for (seq, a) in actions.iter().enumerate() {
        let (_, patch) = own.dispatch_patched(seq as u64 + 1, a.clone(), &CLOCK);
        apply(&mut rendered, &own, &patch).unwrap_or_else(|e| fail("dispatched", e));
    }
    let echoes: Vec<ActionEnvelope> = (actions.iter().cloned().enumerate())
        .map(|(i, a)| envelope(channel, i as u64 + 1, a, Some((ME, i as i64 + 1)), None))
        .collect();
    let out = own.apply_batch(&echoes, ME, &CLOCK);
    apply(&mut rendered, &own, &out.patch).unwrap_or_else(|e| fail("echoed", e));
    assert_eq!(own.pending_count(), 0, "{name}");
}

#[test]
fn fixture_patches_rebuild_the_state() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol/ahp-1.0.0/conformance/reducers");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the 1.0 fixtures")
        .map(|entry| entry.expect("a fixture").path())
        .collect();
    files.sort();
    let (mut chats, mut terminals) = (0, 0);
    let mut seen = BTreeSet::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("fixture text");
        let fixture: Value = serde_json::from_str(&text).expect("fixture JSON");
        match fixture["reducer"].as_str() {
            Some("chat") => {
                check_fixture::<ChatState>(&name, &fixture, "ahp-chat:/c", &mut seen);
                chats += 1;
            }
            Some("terminal") => {
                check_fixture::<TerminalState>(&name, &fixture, "ahp-terminal:/t", &mut seen);
                terminals += 1;
            }
            _ => {}
        }
    }
    assert_eq!((chats, terminals), (149, 19), "the vendored fixtures");
    // Every fine step shows on the fixtures' streams (not only whole fields).
    let every = [
        "AppendPartText",
        "AppendTerminalText",
        "AppendToolInput",
        "Field",
        "PushParts",
        "PushTurns",
        "ReplacePart",
    ];
    assert_eq!(seen, every.into_iter().collect());
}

/// An idle chat `ahp-chat:/c`, then turn `t1` with a markdown part `p1` ("a").
fn streaming_chat() -> Rendered<ChatState> {
    let chat: ChatState = serde_json::from_value(json!({"resource": "ahp-chat:/c",
        "title": "T", "status": 1, "modifiedAt": "1970-01-01T00:00:01.000Z", "turns": []}))
    .unwrap();
    let mut chat = Rendered::new(chat, "ahp-chat:/c");
    chat.feed(vec![
        action(json!({"type": "chat/turnStarted", "turnId": "t1",
            "startedAt": "1970-01-01T00:00:02.000Z",
            "message": {"text": "q", "origin": {"kind": "user"}}})),
        action(json!({"type": "chat/responsePart", "turnId": "t1",
            "part": {"kind": "markdown", "id": "p1", "content": "a"}})),
    ]);
    chat
}

fn delta(part: &str, text: &str) -> StateAction {
    action(json!({"type": "chat/delta", "turnId": "t1", "partId": part, "content": text}))
}

#[test]
fn streamed_chat_text_is_appended_in_place() {
    let mut chat = streaming_chat();
    assert_eq!(
        chat.feed(vec![delta("p1", "bc"), delta("p1", "é")]),
        vec![PatchOp::AppendPartText {
            index: 0,
            appended: 1..5 // "bcé" after "a"
        }]
    );
    let reasoning = action(json!({"type": "chat/responsePart", "turnId": "t1",
        "part": {"kind": "reasoning", "id": "r1", "content": ""}}));
    let think = action(
        json!({"type": "chat/reasoning", "turnId": "t1", "partId": "r1",
        "content": "hm"}),
    );
    assert_eq!(
        chat.feed(vec![reasoning]),
        vec![PatchOp::PushParts { from: 1 }]
    );
    assert_eq!(
        chat.feed(vec![think, delta("p1", "!")]),
        vec![
            PatchOp::AppendPartText {
                index: 1,
                appended: 0..2
            },
            PatchOp::AppendPartText {
                index: 0,
                appended: 5..6
            },
        ]
    );
    // A part pushed in the batch is read whole: appends to it are in it already.
    let markdown = action(json!({"type": "chat/responsePart", "turnId": "t1",
        "part": {"kind": "markdown", "id": "p2", "content": ""}}));
    assert_eq!(
        chat.feed(vec![markdown, delta("p2", "x"), delta("p1", "y")]),
        vec![
            PatchOp::PushParts { from: 2 },
            PatchOp::AppendPartText {
                index: 0,
                appended: 6..7
            },
        ]
    );
    // The usage goes whole (the turn), which holds the appends before it.
    let usage = action(json!({"type": "chat/usage", "turnId": "t1",
        "usage": {"inputTokens": 1, "outputTokens": 2}}));
    assert_eq!(
        chat.feed(vec![delta("p1", "z"), usage]),
        vec![PatchOp::Field("activeTurn")]
    );
}

/// The first part with the id decides, as the 1.0 reducer looks it up: a tool call with the
/// id before a markdown part with it takes a delta (a no-op), so no step names the later part.
#[test]
fn text_goes_to_the_part_the_reducer_picks() {
    let mut chat = streaming_chat();
    let start = |id: &str| {
        action(
            json!({"type": "chat/toolCallStart", "turnId": "t1", "toolCallId": id,
            "toolName": "t", "displayName": "T"}),
        )
    };
    let markdown = |id: &str| {
        action(json!({"type": "chat/responsePart", "turnId": "t1",
            "part": {"kind": "markdown", "id": id, "content": ""}}))
    };
    chat.feed(vec![start("x"), markdown("x"), markdown("p1")]);
    assert!(chat.feed(vec![delta("x", "no")]).is_empty());
    // Two markdown parts `p1`: the first takes it.
    assert_eq!(
        chat.feed(vec![delta("p1", "b")]),
        vec![PatchOp::AppendPartText {
            index: 0,
            appended: 1..2
        }]
    );
}

fn tool_delta(content: Option<&str>, message: Option<&str>) -> StateAction {
    let mut delta = json!({"type": "chat/toolCallDelta", "turnId": "t1", "toolCallId": "c1"});
    if let Some(content) = content {
        delta["content"] = json!(content);
    }
    if let Some(message) = message {
        delta["invocationMessage"] = json!(message);
    }
    action(delta)
}

#[test]
fn tool_calls_append_input_and_replace_their_part() {
    let mut chat = streaming_chat();
    let start = action(json!({"type": "chat/toolCallStart", "turnId": "t1",
        "toolCallId": "c1", "toolName": "write", "displayName": "Write"}));
    assert_eq!(chat.feed(vec![start]), vec![PatchOp::PushParts { from: 1 }]);
    assert_eq!(
        chat.feed(vec![
            tool_delta(Some("{\"pa"), None),
            tool_delta(Some("th\":"), None)
        ]),
        vec![PatchOp::AppendToolInput {
            index: 1,
            appended: 0..8
        }]
    );
    // A delta without content changes nothing; one with a message replaces the part.
    assert!(chat.feed(vec![tool_delta(None, None)]).is_empty());
    assert_eq!(
        chat.feed(vec![
            tool_delta(Some("1}"), Some("Writing")),
            delta("p1", "b")
        ]),
        vec![
            PatchOp::ReplacePart { index: 1 },
            PatchOp::AppendPartText {
                index: 0,
                appended: 1..2
            },
        ]
    );
    // Ready: the part and the status (input needed).
    let ready = action(json!({"type": "chat/toolCallReady", "turnId": "t1",
        "toolCallId": "c1", "invocationMessage": "Write a.txt"}));
    assert_eq!(
        chat.feed(vec![ready]),
        vec![PatchOp::ReplacePart { index: 1 }, PatchOp::Field("status")]
    );
}

#[test]
fn input_requests_push_then_replace_their_part() {
    let mut chat = streaming_chat();
    let request = |message: &str| {
        action(
            json!({"type": "chat/inputRequested", "request": {"id": "in1",
            "message": message, "questions": [{"id": "q1", "kind": "single-select",
                "message": "Which?", "options": [{"id": "node", "label": "Node"}]}]}}),
        )
    };
    let answer = action(
        json!({"type": "chat/inputAnswerChanged", "requestId": "in1",
        "questionId": "q1", "answer": {"state": "draft",
            "value": {"kind": "selected", "value": "node"}}}),
    );
    let ops = chat.feed(vec![request("first")]);
    assert_eq!(ops[0], PatchOp::PushParts { from: 1 });
    let ops = chat.feed(vec![request("again"), answer]);
    assert_eq!(ops[0], PatchOp::ReplacePart { index: 1 });
    assert!(!ops.contains(&PatchOp::Field("activeTurn")), "{ops:?}");
}

#[test]
fn an_ended_turn_pushes_onto_the_turns() {
    let mut chat = streaming_chat();
    let complete = action(json!({"type": "chat/turnComplete", "turnId": "t1",
        "duration": 5}));
    let ops = chat.feed(vec![delta("p1", "b"), complete]);
    assert_eq!(ops[0], PatchOp::PushTurns { from: 0 });
    assert!(ops.contains(&PatchOp::Field("activeTurn")), "{ops:?}");
    assert!(!ops.contains(&PatchOp::Field("turns")), "{ops:?}");
    // An error that can be resumed ends the next turn; resuming takes both fields whole.
    let started = action(json!({"type": "chat/turnStarted", "turnId": "t2",
        "startedAt": "1970-01-01T00:00:03.000Z",
        "message": {"text": "q", "origin": {"kind": "user"}}}));
    let error = action(json!({"type": "chat/error", "turnId": "t2", "duration": 1,
        "part": {"kind": "error", "error": {"errorType": "quota", "message": "more"},
            "resumable": true}}));
    chat.feed(vec![started]);
    let ops = chat.feed(vec![error]);
    assert_eq!(ops[0], PatchOp::PushTurns { from: 1 });
    let resume = action(json!({"type": "chat/turnResume", "turnId": "t2"}));
    let ops = chat.feed(vec![resume]);
    assert!(ops.contains(&PatchOp::Field("turns")), "{ops:?}");
    assert!(ops.contains(&PatchOp::Field("activeTurn")), "{ops:?}");
    assert!(!ops.iter().any(|op| matches!(op, PatchOp::PushTurns { .. })));
}

fn data(text: &str) -> StateAction {
    action(json!({"type": "terminal/data", "data": text}))
}

#[test]
fn terminal_output_is_appended_in_place() {
    let terminal: TerminalState = serde_json::from_value(json!({"title": "t", "content": [],
        "lifecycle": {"status": "running"}, "claim": {"kind": "client", "clientId": "c"}}))
    .unwrap();
    let mut t = Rendered::new(terminal, "ahp-terminal:/t");
    // The first output creates the part: whole; then appended to it.
    assert_eq!(t.feed(vec![data("$ ")]), vec![PatchOp::Field("content")]);
    let text = |index, key, text: &str| PatchOp::AppendTerminalText {
        index,
        key,
        text: text.into(),
    };
    assert_eq!(
        t.feed(vec![data("ls"), data("\r\n")]),
        vec![text(0, "value", "ls\r\n")]
    );
    let executed = action(
        json!({"type": "terminal/commandExecuted", "commandId": "c1",
        "commandLine": "ls", "timestamp": 1}),
    );
    let finished = action(
        json!({"type": "terminal/commandFinished", "commandId": "c1",
        "exitCode": 0}),
    );
    t.feed(vec![executed]);
    assert_eq!(
        t.feed(vec![data("a.txt")]),
        vec![text(1, "output", "a.txt")]
    );
    t.feed(vec![finished]);
    // After a finished command, output starts a new run: whole.
    assert_eq!(t.feed(vec![data("$ ")]), vec![PatchOp::Field("content")]);
    assert_eq!(t.feed(vec![data("x")]), vec![text(2, "value", "x")]);
}
