//! The check that a session's 0.3.0 view is what a 0.3.0 host would hold (debug builds only).
//!
//! The hub changes one state, the 1.0 one; 0.3.0 clients are sent the 0.3.0 actions as
//! envelopes and shown the view of the 1.0 state in snapshots. So debug builds also keep the
//! whole 0.3.0 state the 0.3.0 reducer makes of the same actions (`Session::shadow`), and check:
//! at each action, that the two reducers accept the same actions (`Session::apply`); whenever a
//! 0.3.0 snapshot or session list is served, whenever turns start, end or are cut, and when a
//! session an older host stored loads, that the view of the 1.0 state (`Mirror::v03_state`)
//! equals that 0.3.0 state, and the 0.3.0 members the hub reads (`Session::members`) equal it
//! without its conversation. A difference panics, so every test that starts a debug `ahp-host`
//! (the host's suites, the package's Node and browser suites) fails on one.

use super::v1_mirror::Mirror;
use ahp_wasm::protocol as v03;
use serde_json::Value;

/// Paths not compared, with why.
const SKIPPED: &[&str] = &[
    // Stamped by each reducer's own clock in 0.3.0, from turn start and duration by the 1.0
    // chat reducer: no two 0.3.0 mirrors agree on it either, so it is not part of the contract.
    "/summary/modifiedAt",
];

/// Checks the served `state` against the view derived from `mirror`: each differing leaf is
/// printed, then the check panics.
pub(super) fn check(uri: &str, state: &v03::SessionState, mirror: &Mirror) {
    let diffs = differences(state, &derived(state, mirror));
    report(uri, "state", &diffs);
}

/// Checks a session's whole 0.3.0 state (`Session::shadow`) against the view of its 1.0
/// state, and the 0.3.0 members the hub reads (`Session::members`) against the same view
/// without its conversation.
pub(super) fn check_session(
    uri: &str,
    shadow: &v03::SessionState,
    members: &v03::SessionState,
    mirror: &Mirror,
) {
    check(uri, shadow, mirror);
    let mut view = derived(members, mirror);
    if let Some(view) = view.as_object_mut() {
        view.insert("turns".into(), Value::Array(Vec::new()));
        for conversation in [
            "activeTurn",
            "inputRequests",
            "steeringMessage",
            "queuedMessages",
        ] {
            view.remove(conversation);
        }
    }
    report(uri, "members", &differences(members, &view));
}

/// Prints each difference, then panics if there is any.
fn report(uri: &str, what: &str, diffs: &[(String, Value, Value)]) {
    for (pointer, kept, derived) in diffs {
        eprintln!("V03-VIEW-MISMATCH {uri} {pointer} {kept} {derived}");
    }
    assert!(
        diffs.is_empty(),
        "the 0.3.0 {what} of {uri} differs from the view of its 1.0 state"
    );
}

/// Checks a listed summary (`Mirror::v03_summary`) against the summary of the 0.3.0 state,
/// as [`check`] does a state.
pub(super) fn check_summary(uri: &str, kept: &v03::SessionSummary, listed: &v03::SessionSummary) {
    let mut diffs = Vec::new();
    let listed = serde_json::to_value(listed).unwrap_or(Value::Null);
    let kept = serde_json::to_value(kept).unwrap_or(Value::Null);
    diff("/summary".into(), &kept, &listed, &mut diffs);
    report(uri, "summary", &diffs);
}

/// The 0.3.0 view of `mirror` (`Mirror::v03_state`), as JSON of the typed 0.3.0 state (so
/// numbers take the served form); a view that does not decode is returned as it is, to be
/// reported as a difference.
fn derived(state: &v03::SessionState, mirror: &Mirror) -> Value {
    let view = mirror.v03_json(&state.summary.resource);
    match crate::compat::typed_state(view.clone()) {
        Ok(typed) => serde_json::to_value(mirror.with_host_fields(typed)).unwrap_or(view),
        Err(_) => view,
    }
}

/// Every leaf where `served` and `derived` differ, as (JSON pointer, served, derived), except
/// the [`SKIPPED`] paths.
pub(super) fn differences(
    served: &v03::SessionState,
    derived: &Value,
) -> Vec<(String, Value, Value)> {
    let served = serde_json::to_value(served).unwrap_or(Value::Null);
    let mut out = Vec::new();
    diff(String::new(), &served, derived, &mut out);
    out
}

fn diff(pointer: String, a: &Value, b: &Value, out: &mut Vec<(String, Value, Value)>) {
    if SKIPPED.contains(&pointer.as_str()) {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for key in keys {
                let null = Value::Null;
                let escaped = key.replace('~', "~0").replace('/', "~1");
                diff(
                    format!("{pointer}/{escaped}"),
                    x.get(key).unwrap_or(&null),
                    y.get(key).unwrap_or(&null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (a, b)) in x.iter().zip(y).enumerate() {
                diff(format!("{pointer}/{i}"), a, b, out);
            }
        }
        _ if a != b => out.push((pointer, a.clone(), b.clone())),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A served state whose turn text differs from the view's is reported at that leaf, and
    /// `modifiedAt` is not compared.
    #[test]
    fn a_differing_turn_text_is_reported_at_its_pointer() {
        let served: v03::SessionState = serde_json::from_value(json!({
            "summary": {"resource": "ahp-session:/s", "provider": "p", "title": "t",
                "status": 1, "createdAt": 1, "modifiedAt": 2},
            "lifecycle": "ready",
            "turns": [{"id": "t1", "message": {"text": "hello", "origin": {"kind": "user"}}, "responseParts": [],
                "state": "complete"}],
        }))
        .expect("a 0.3.0 state");
        let mut view = serde_json::to_value(&served).unwrap();
        assert!(differences(&served, &view).is_empty());
        view["summary"]["modifiedAt"] = json!(99);
        assert!(differences(&served, &view).is_empty());
        view["turns"][0]["message"]["text"] = json!("goodbye");
        let diffs = differences(&served, &view);
        assert_eq!(
            diffs,
            vec![(
                "/turns/0/message/text".to_owned(),
                json!("hello"),
                json!("goodbye")
            )]
        );
    }
}
