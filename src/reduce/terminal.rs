//! The `TerminalState` reducer (terminal channels), plus the scrollback bound.
//!
//! `terminal/data` appends to the tail content part: to the `output` of an executing
//! (`isComplete: false`) command part, to the `value` of an `unclassified` part, or else to a
//! new `unclassified` part. Parts of unknown (newer) types are never modified.
//!
//! The spec lets either side trim `content` to bound memory, and a host must not let a peer
//! grow a terminal mirror without limit, so after every append the reducer enforces
//! [`MAX_SCROLLBACK_BYTES`] (far above anything the conformance fixtures produce) by dropping
//! the oldest output. Hosts that want a tighter bound call [`trim_scrollback`] themselves.

use super::{Changed, Clock, NoOp, Outcome};
use crate::protocol::{
    StateAction, TerminalCommandFinishedAction, TerminalCommandPart, TerminalContentPart,
    TerminalState, TerminalStateField, TerminalUnclassifiedPart,
};

/// The scrollback budget the reducer enforces, in [`scrollback_size`] units (about bytes):
/// 1 MiB, well beyond typical terminal scrollback (a few thousand lines).
pub const MAX_SCROLLBACK_BYTES: usize = 1 << 20;

/// Once over [`MAX_SCROLLBACK_BYTES`], the reducer trims down to this (3/4 of the maximum), so
/// a stream of small appends pays for one large trim rather than one per append.
pub const SCROLLBACK_TRIM_TARGET: usize = MAX_SCROLLBACK_BYTES / 4 * 3;

/// The fixed cost counted per content part, so a flood of empty command parts is bounded too.
const PART_OVERHEAD: usize = 64;

/// Applies `action` to a `TerminalState`.
///
/// Terminal actions stamp no time (command timestamps come from the server), so `clock` is
/// unused.
pub fn terminal_reducer(
    state: &mut TerminalState,
    action: &StateAction,
    _clock: &dyn Clock,
) -> Outcome<TerminalStateField> {
    use TerminalStateField as F;
    match action {
        StateAction::TerminalData(a) => {
            // Empty data appended to a part that can take it changes nothing. On any other tail
            // it still creates an (empty) `unclassified` part, as the reference reducers do and
            // as the terminals guide says ("Otherwise, a new unclassified part is created"), so
            // a mirror keeps the server's part structure.
            if a.data.is_empty() && appendable(&state.content) {
                return nothing();
            }
            append_data(&mut state.content, &a.data);
            bound_after_append(&mut state.content);
            applied(F::Content)
        }
        // Side-effect only: the server forwards the input to the pty (fixture 073).
        StateAction::TerminalInput(_) => nothing(),
        StateAction::TerminalResized(a) => {
            let mut changed = Changed::none();
            if state.cols != Some(a.cols) {
                changed.insert(F::Cols);
            }
            if state.rows != Some(a.rows) {
                changed.insert(F::Rows);
            }
            if changed.is_empty() {
                return nothing();
            }
            state.cols = Some(a.cols);
            state.rows = Some(a.rows);
            Outcome::Applied(changed)
        }
        // A claim of an unknown kind is stored verbatim: it is a full replacement from an
        // authoritative peer, and re-serializes unchanged.
        StateAction::TerminalClaimed(a) => set(&mut state.claim, &a.claim, F::Claim),
        StateAction::TerminalTitleChanged(a) => set(&mut state.title, &a.title, F::Title),
        StateAction::TerminalCwdChanged(a) => {
            if state.cwd.as_ref() == Some(&a.cwd) {
                return nothing();
            }
            state.cwd = Some(a.cwd.clone());
            applied(F::Cwd)
        }
        StateAction::TerminalExited(a) => set(&mut state.exit_code, &a.exit_code, F::ExitCode),
        StateAction::TerminalCleared(_) => {
            if state.content.is_empty() {
                return nothing();
            }
            state.content.clear();
            applied(F::Content)
        }
        StateAction::TerminalCommandDetectionAvailable(_) => set(
            &mut state.supports_command_detection,
            &Some(true),
            F::SupportsCommandDetection,
        ),
        StateAction::TerminalCommandExecuted(a) => {
            state
                .content
                .push(TerminalContentPart::Command(TerminalCommandPart {
                    command_id: a.command_id.clone(),
                    command_line: a.command_line.clone(),
                    output: String::new(),
                    timestamp: a.timestamp,
                    is_complete: false,
                    exit_code: None,
                    duration_ms: None,
                    extra: Default::default(),
                }));
            bound_after_append(&mut state.content);
            let mut changed = Changed::one(F::Content);
            if state.supports_command_detection != Some(true) {
                state.supports_command_detection = Some(true);
                changed.insert(F::SupportsCommandDetection);
            }
            Outcome::Applied(changed)
        }
        StateAction::TerminalCommandFinished(a) => command_finished(&mut state.content, a),
        _ => Outcome::NoOp(NoOp::NotForThisChannel),
    }
}

/// A terminal's output as one text: the raw VT stream rebuilt from its content parts, as the
/// terminals guide tells consumers without their own rendering of command parts to do
/// (unclassified values and command outputs, in order).
pub fn terminal_text(content: &[TerminalContentPart]) -> String {
    content
        .iter()
        .map(|p| match p {
            TerminalContentPart::Unclassified(u) => u.value.as_str(),
            TerminalContentPart::Command(c) => c.output.as_str(),
            TerminalContentPart::Unknown(_) => "",
        })
        .collect()
}

fn applied(field: TerminalStateField) -> Outcome<TerminalStateField> {
    Outcome::Applied(Changed::one(field))
}

fn nothing() -> Outcome<TerminalStateField> {
    Outcome::NoOp(NoOp::NothingToChange)
}

/// Replaces `slot` with `value` unless they are already equal.
fn set<T: PartialEq + Clone>(
    slot: &mut T,
    value: &T,
    field: TerminalStateField,
) -> Outcome<TerminalStateField> {
    if slot == value {
        return nothing();
    }
    slot.clone_from(value);
    applied(field)
}

/// Whether `terminal/data` appends to the tail part (rather than creating a new part).
fn appendable(content: &[TerminalContentPart]) -> bool {
    match content.last() {
        Some(TerminalContentPart::Command(part)) => !part.is_complete,
        Some(TerminalContentPart::Unclassified(_)) => true,
        _ => false,
    }
}

fn append_data(content: &mut Vec<TerminalContentPart>, data: &str) {
    match content.last_mut() {
        Some(TerminalContentPart::Command(part)) if !part.is_complete => part.output.push_str(data),
        Some(TerminalContentPart::Unclassified(part)) => part.value.push_str(data),
        // Empty content, a finished command, or a part type from a newer version.
        _ => content.push(TerminalContentPart::Unclassified(
            TerminalUnclassifiedPart {
                value: data.to_owned(),
                extra: Default::default(),
            },
        )),
    }
}

/// Completes every command part with the action's `commandId`, as the TypeScript reducers do
/// (the official Rust reducers complete the first only). Command ids are unique per terminal;
/// should a repeated id appear, every part with it takes the finish. A finish for a command
/// that already finished overwrites its exit code and duration (a no-op only when they are the
/// same); for an id with no part (e.g. trimmed from scrollback, or cleared) it is
/// [`NoOp::UnknownTarget`].
fn command_finished(
    content: &mut [TerminalContentPart],
    action: &TerminalCommandFinishedAction,
) -> Outcome<TerminalStateField> {
    let (mut found, mut changed) = (false, false);
    for part in content.iter_mut() {
        let TerminalContentPart::Command(part) = part else {
            continue;
        };
        if part.command_id != action.command_id {
            continue;
        }
        found = true;
        if part.is_complete
            && part.exit_code == action.exit_code
            && part.duration_ms == action.duration_ms
        {
            continue;
        }
        part.is_complete = true;
        part.exit_code = action.exit_code;
        part.duration_ms = action.duration_ms;
        changed = true;
    }
    match (found, changed) {
        (_, true) => applied(TerminalStateField::Content),
        (true, false) => nothing(),
        (false, false) => Outcome::NoOp(NoOp::UnknownTarget),
    }
}

fn bound_after_append(content: &mut Vec<TerminalContentPart>) {
    if scrollback_size(content) > MAX_SCROLLBACK_BYTES {
        trim_scrollback(content, SCROLLBACK_TRIM_TARGET);
    }
}

/// The text of a part that scrollback trimming may shorten (`None` for unknown part types).
fn part_text(part: &mut TerminalContentPart) -> Option<&mut String> {
    match part {
        TerminalContentPart::Unclassified(p) => Some(&mut p.value),
        TerminalContentPart::Command(p) => Some(&mut p.output),
        TerminalContentPart::Unknown(_) => None,
    }
}

fn part_text_len(part: &TerminalContentPart) -> usize {
    match part {
        TerminalContentPart::Unclassified(p) => p.value.len(),
        TerminalContentPart::Command(p) => p.output.len(),
        TerminalContentPart::Unknown(_) => 0,
    }
}

fn part_size(part: &TerminalContentPart) -> usize {
    let fixed = match part {
        TerminalContentPart::Command(p) => p.command_id.len().saturating_add(p.command_line.len()),
        _ => 0,
    };
    PART_OVERHEAD
        .saturating_add(fixed)
        .saturating_add(part_text_len(part))
}

/// The memory a terminal's `content` accounts for: the UTF-8 length of every part's text
/// (plus a command's id and command line) and a small fixed cost per part. Parts of unknown
/// types count only the fixed cost: the reducer never grows them.
pub fn scrollback_size(content: &[TerminalContentPart]) -> usize {
    content
        .iter()
        .fold(0usize, |total, part| total.saturating_add(part_size(part)))
}

/// Drops the oldest output until [`scrollback_size`] is at most `max` (or only the tail part's
/// fixed cost remains). Whole leading parts go first; then the oldest text of the first
/// remaining part is cut at a character boundary. The tail part is never removed, so an
/// executing command keeps receiving its output and can still be finished. Returns whether
/// anything was removed.
pub fn trim_scrollback(content: &mut Vec<TerminalContentPart>, max: usize) -> bool {
    let size = scrollback_size(content);
    let Some(mut excess) = size.checked_sub(max).filter(|&e| e > 0) else {
        return false;
    };
    // Leading parts whose text would be cut entirely are dropped whole (never the tail).
    let droppable = content.len().saturating_sub(1);
    let mut drop = 0;
    for part in content.iter().take(droppable) {
        if part_text_len(part) > excess {
            break;
        }
        excess = excess.saturating_sub(part_size(part));
        drop += 1;
    }
    content.drain(..drop);
    let mut cut = false;
    if excess > 0 {
        if let Some(text) = content.first_mut().and_then(part_text) {
            cut = cut_front(text, excess);
        }
    }
    drop > 0 || cut
}

/// Removes at least `bytes` bytes (or everything) from the front of `text`, at a char
/// boundary. Returns whether anything was removed.
fn cut_front(text: &mut String, bytes: usize) -> bool {
    let mut cut = bytes.min(text.len());
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    match text.get(cut..) {
        Some(rest) if cut > 0 => {
            *text = rest.to_owned();
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{TerminalClaim, TerminalClientClaim};
    use crate::reduce::FixedClock;
    use serde_json::json;
    use TerminalStateField as F;

    const CLOCK: FixedClock = FixedClock(7.0);

    fn action(value: serde_json::Value) -> StateAction {
        serde_json::from_value(value).expect("valid action")
    }

    fn state(content: serde_json::Value) -> TerminalState {
        serde_json::from_value(json!({
            "title": "bash",
            "content": content,
            "claim": {"kind": "client", "clientId": "c1"}
        }))
        .expect("valid state")
    }

    fn reduce(state: &mut TerminalState, value: serde_json::Value) -> Outcome<TerminalStateField> {
        terminal_reducer(state, &action(value), &CLOCK)
    }

    fn content_json(state: &TerminalState) -> serde_json::Value {
        serde_json::to_value(&state.content).expect("serializes")
    }

    fn raw(content: &[TerminalContentPart]) -> String {
        super::terminal_text(content)
    }

    fn assert_noop(state: &mut TerminalState, value: serde_json::Value, why: NoOp) {
        let before = state.clone();
        assert_eq!(reduce(state, value), Outcome::NoOp(why));
        assert_eq!(*state, before);
    }

    #[test]
    fn input_and_empty_data_change_nothing() {
        let mut s = state(json!([{"type": "unclassified", "value": "$ "}]));
        assert_noop(
            &mut s,
            json!({"type": "terminal/input", "data": "ls\r"}),
            NoOp::NothingToChange,
        );
        assert_noop(
            &mut s,
            json!({"type": "terminal/data", "data": ""}),
            NoOp::NothingToChange,
        );
        assert_eq!(s.content.len(), 1);
    }

    #[test]
    fn empty_data_on_a_tail_it_cannot_extend_opens_an_empty_part() {
        // As in the reference reducers: the part structure follows the server's.
        let mut s = state(json!([]));
        let empty = json!({"type": "terminal/data", "data": ""});
        assert_eq!(
            reduce(&mut s, empty.clone()),
            Outcome::Applied(Changed::one(F::Content))
        );
        assert_eq!(
            content_json(&s),
            json!([{"type": "unclassified", "value": ""}])
        );
        assert_noop(&mut s, empty, NoOp::NothingToChange);
    }

    #[test]
    fn data_reports_content_only() {
        let mut s = state(json!([]));
        let out = reduce(&mut s, json!({"type": "terminal/data", "data": "$ "}));
        assert_eq!(out, Outcome::Applied(Changed::one(F::Content)));
        assert_eq!(
            content_json(&s),
            json!([{"type": "unclassified", "value": "$ "}])
        );
    }

    #[test]
    fn data_after_unknown_part_leaves_it_untouched() {
        let unknown = json!({"type": "image", "src": "x"});
        let mut s = state(json!([unknown.clone()]));
        assert!(reduce(&mut s, json!({"type": "terminal/data", "data": "a"})).is_applied());
        assert!(reduce(&mut s, json!({"type": "terminal/data", "data": "b"})).is_applied());
        assert_eq!(
            content_json(&s),
            json!([unknown, {"type": "unclassified", "value": "ab"}])
        );
    }

    #[test]
    fn data_goes_to_the_tail_not_an_earlier_executing_command() {
        let mut s = state(json!([
            {"type": "command", "commandId": "c", "commandLine": "x", "output": "", "timestamp": 1, "isComplete": false},
            {"type": "unclassified", "value": ""}
        ]));
        assert!(reduce(&mut s, json!({"type": "terminal/data", "data": "z"})).is_applied());
        assert_eq!(content_json(&s)[0]["output"], json!(""));
        assert_eq!(content_json(&s)[1]["value"], json!("z"));
    }

    #[test]
    fn resized_reports_only_the_dimensions_that_changed() {
        let mut s = state(json!([]));
        let out = reduce(
            &mut s,
            json!({"type": "terminal/resized", "cols": 80, "rows": 24}),
        );
        assert_eq!(out, Outcome::Applied(Changed::one(F::Cols).with(F::Rows)));
        let out = reduce(
            &mut s,
            json!({"type": "terminal/resized", "cols": 100, "rows": 24}),
        );
        assert_eq!(out, Outcome::Applied(Changed::one(F::Cols)));
        assert_eq!((s.cols, s.rows), (Some(100.0), Some(24.0)));
        assert_noop(
            &mut s,
            json!({"type": "terminal/resized", "cols": 100, "rows": 24}),
            NoOp::NothingToChange,
        );
    }

    #[test]
    fn setters_report_their_field_and_noop_when_equal() {
        let mut s = state(json!([]));
        let cases = [
            (
                json!({"type": "terminal/titleChanged", "title": "zsh"}),
                F::Title,
            ),
            (
                json!({"type": "terminal/cwdChanged", "cwd": "file:///w"}),
                F::Cwd,
            ),
            (
                json!({"type": "terminal/exited", "exitCode": 2}),
                F::ExitCode,
            ),
            (
                json!({"type": "terminal/claimed", "claim": {"kind": "session", "session": "s:/1"}}),
                F::Claim,
            ),
            (
                json!({"type": "terminal/commandDetectionAvailable"}),
                F::SupportsCommandDetection,
            ),
        ];
        for (value, field) in cases {
            assert_eq!(
                reduce(&mut s, value.clone()),
                Outcome::Applied(Changed::one(field)),
                "{value}"
            );
            assert_noop(&mut s, value, NoOp::NothingToChange);
        }
        assert_eq!(s.title, "zsh");
        assert_eq!(s.exit_code, Some(2.0));
        assert_eq!(s.supports_command_detection, Some(true));
    }

    #[test]
    fn exited_without_code_clears_a_previous_code() {
        let mut s = state(json!([]));
        s.exit_code = Some(1.0);
        let out = reduce(&mut s, json!({"type": "terminal/exited"}));
        assert_eq!(out, Outcome::Applied(Changed::one(F::ExitCode)));
        assert_eq!(s.exit_code, None);
    }

    #[test]
    fn unknown_claim_kind_is_stored_verbatim() {
        let mut s = state(json!([]));
        let claim = json!({"kind": "agent", "agentId": "a"});
        assert!(reduce(
            &mut s,
            json!({"type": "terminal/claimed", "claim": claim.clone()})
        )
        .is_applied());
        assert!(matches!(s.claim, TerminalClaim::Unknown(_)));
        assert_eq!(serde_json::to_value(&s.claim).expect("serializes"), claim);
    }

    #[test]
    fn cleared_on_empty_content_is_a_noop() {
        let mut s = state(json!([{"type": "unclassified", "value": "x"}]));
        assert_eq!(
            reduce(&mut s, json!({"type": "terminal/cleared"})),
            Outcome::Applied(Changed::one(F::Content))
        );
        assert_noop(
            &mut s,
            json!({"type": "terminal/cleared"}),
            NoOp::NothingToChange,
        );
    }

    #[test]
    fn command_executed_reports_detection_only_the_first_time() {
        let mut s = state(json!([]));
        let exec = |id: &str| json!({"type": "terminal/commandExecuted", "commandId": id, "commandLine": "x", "timestamp": 5});
        let out = reduce(&mut s, exec("a"));
        assert_eq!(
            out,
            Outcome::Applied(Changed::one(F::Content).with(F::SupportsCommandDetection))
        );
        assert_eq!(
            reduce(&mut s, exec("b")),
            Outcome::Applied(Changed::one(F::Content))
        );
        assert_eq!(s.content.len(), 2);
    }

    #[test]
    fn command_finished_targets_every_part_with_its_id() {
        let mut s = state(json!([
            {"type": "command", "commandId": "c", "commandLine": "x", "output": "", "timestamp": 1, "isComplete": false},
            {"type": "command", "commandId": "c", "commandLine": "y", "output": "", "timestamp": 2, "isComplete": false},
            {"type": "unclassified", "value": "$ "}
        ]));
        let finish = json!({"type": "terminal/commandFinished", "commandId": "c", "exitCode": 3});
        assert_eq!(
            reduce(&mut s, finish.clone()),
            Outcome::Applied(Changed::one(F::Content))
        );
        let content = content_json(&s);
        assert_eq!(content[0]["isComplete"], json!(true));
        assert_eq!(content[0]["exitCode"], json!(3));
        // As in the TypeScript reducers, the repeated id finishes too.
        assert_eq!(content[1]["isComplete"], json!(true));
        assert_eq!(content[1]["exitCode"], json!(3));
        // The same finish again changes nothing; another exit code is rewritten.
        assert_noop(&mut s, finish, NoOp::NothingToChange);
        let again = json!({"type": "terminal/commandFinished", "commandId": "c", "exitCode": 4});
        assert!(reduce(&mut s, again).is_applied());
        assert_eq!(content_json(&s)[0]["exitCode"], json!(4));
        assert_eq!(content_json(&s)[1]["exitCode"], json!(4));
        assert_noop(
            &mut s,
            json!({"type": "terminal/commandFinished", "commandId": "nope"}),
            NoOp::UnknownTarget,
        );
    }

    #[test]
    fn other_channels_and_unknown_actions_are_not_for_terminals() {
        let mut s = state(json!([{"type": "unclassified", "value": "x"}]));
        for value in [
            json!({"type": "terminal/nonExistentAction", "data": "x"}),
            json!({"type": "root/activeSessionsChanged", "activeSessions": 1}),
            json!({"type": "changeset/cleared"}),
            json!({"type": "resourceWatch/changed", "changes": {"items": []}}),
        ] {
            assert_noop(&mut s, value, NoOp::NotForThisChannel);
        }
        assert_eq!(
            s.claim,
            TerminalClaim::Client(TerminalClientClaim {
                client_id: "c1".into(),
                extra: Default::default()
            })
        );
    }

    #[test]
    fn trim_keeps_the_newest_output_and_the_tail_part() {
        let mut content: Vec<TerminalContentPart> = serde_json::from_value(json!([
            {"type": "unclassified", "value": "aaaa"},
            {"type": "command", "commandId": "1", "commandLine": "l", "output": "bbbb", "timestamp": 0, "isComplete": true},
            {"type": "unclassified", "value": "cccc"},
            {"type": "command", "commandId": "2", "commandLine": "m", "output": "dddd", "timestamp": 0, "isComplete": false}
        ]))
        .expect("content");
        assert!(!trim_scrollback(&mut content, usize::MAX));
        let size = scrollback_size(&content);
        assert!(!trim_scrollback(&mut content, size));
        // Room for the tail part plus 2 bytes of the part before it.
        let budget = part_size(content.last().expect("tail")) + PART_OVERHEAD + 2;
        assert!(trim_scrollback(&mut content, budget));
        assert!(scrollback_size(&content) <= budget);
        assert_eq!(raw(&content), "ccdddd");
        // The executing command survives even when it alone is over budget.
        assert!(trim_scrollback(&mut content, 0));
        assert_eq!(content.len(), 1);
        assert!(
            matches!(content.first(), Some(TerminalContentPart::Command(c)) if !c.is_complete && c.output.is_empty())
        );
        assert!(!trim_scrollback(&mut content, 0), "nothing left to remove");
    }

    #[test]
    fn trim_cuts_at_char_boundaries() {
        let mut content = vec![TerminalContentPart::Unclassified(
            TerminalUnclassifiedPart {
                value: "ééé".into(), // 2 bytes each
                extra: Default::default(),
            },
        )];
        assert!(trim_scrollback(&mut content, PART_OVERHEAD + 3));
        assert_eq!(raw(&content), "é");
    }

    #[test]
    fn trim_drops_unknown_leading_parts() {
        let mut content: Vec<TerminalContentPart> = serde_json::from_value(json!([
            {"type": "future"},
            {"type": "unclassified", "value": "x"}
        ]))
        .expect("content");
        assert!(trim_scrollback(&mut content, PART_OVERHEAD + 1));
        assert_eq!(content.len(), 1);
        assert_eq!(raw(&content), "x");
    }

    #[test]
    fn reducer_bounds_scrollback_and_keeps_the_newest_bytes() {
        let mut s = state(json!([]));
        let chunk: String = "0123456789abcdef".repeat(4096); // 64 KiB
        let mut total = String::new();
        for i in 0..40 {
            let data = format!("{i:02}{chunk}");
            total.push_str(&data);
            assert!(reduce(&mut s, json!({"type": "terminal/data", "data": data})).is_applied());
            assert!(scrollback_size(&s.content) <= MAX_SCROLLBACK_BYTES);
        }
        let kept = raw(&s.content);
        assert!(kept.len() >= SCROLLBACK_TRIM_TARGET - PART_OVERHEAD);
        assert!(total.ends_with(&kept));
    }

    #[test]
    fn empty_parts_count_toward_the_bound() {
        let empty = TerminalContentPart::Unclassified(TerminalUnclassifiedPart::default());
        assert_eq!(scrollback_size(&vec![empty; 10]), 10 * PART_OVERHEAD);
    }

    #[test]
    fn reducer_bounds_a_flood_of_command_parts() {
        let mut s = state(json!([]));
        let line = "x".repeat(4000);
        let n = MAX_SCROLLBACK_BYTES / line.len() + 10;
        for i in 0..n {
            let exec = json!({"type": "terminal/commandExecuted", "commandId": i.to_string(), "commandLine": line, "timestamp": 0});
            assert!(reduce(&mut s, exec).is_applied());
        }
        assert!(scrollback_size(&s.content) <= MAX_SCROLLBACK_BYTES);
        assert!(s.content.len() < n);
        // The newest command is still there and can be finished.
        let finish = json!({"type": "terminal/commandFinished", "commandId": (n - 1).to_string()});
        assert!(reduce(&mut s, finish).is_applied());
    }
}
