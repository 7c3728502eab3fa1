//! The 0.3.0 view of a 1.0 session (`compat::session_state`, `compat::action`) against every official 1.0.0 chat
//! and session fixture: after each action, the 0.3.0 reducer applied to the view and the
//! translated actions must give the view of the 1.0 reducer's state. Only the fields that
//! `compat::GAPS` names are left out of the comparison (`summary.modifiedAt`: a 0.3.0 reducer
//! stamps it with its own clock).

use super::{comparable, fixtures};
use ahp_host::compat::{self, SessionChange, Source, View};
use ahp_wasm::protocol::v1;
use ahp_wasm::protocol::{self as v03};
use ahp_wasm::reduce::{self, FixedClock};
use serde_json::{json, Value};

const SESSION: &str = "ahp-session:/s1";
const CREATED: &str = "1970-01-01T00:00:01.000Z";

fn idle_session() -> v1::SessionState {
    serde_json::from_value(json!({
        "provider": "p", "title": "Session", "status": 1, "lifecycle": "ready",
        "activeClients": [], "chats": [],
    }))
    .expect("a 1.0 session")
}

fn idle_chat() -> v1::ChatState {
    serde_json::from_value(json!({
        "resource": "ahp-chat:/c1", "title": "Chat", "status": 1,
        "modifiedAt": "1970-01-01T00:00:02.000Z", "turns": [],
    }))
    .expect("a 1.0 chat")
}

fn view(session: &v1::SessionState, chat: &v1::ChatState) -> Result<v03::SessionState, String> {
    let json = compat::session_state(SESSION, CREATED, session, Some(chat));
    compat::typed_state(json).map_err(|e| e.to_string())
}

/// What one fixture did: actions translated, resyncs asked for (and why).
#[derive(Default)]
struct Counts {
    translated: usize,
    resyncs: Vec<&'static str>,
}

/// Runs one fixture; `Err` names the first step where the two sides differ. After a resync the
/// 0.3.0 side starts again from a fresh view, as a client does from a fresh snapshot.
fn check(fixture: &Value, chat_channel: bool, counts: &mut Counts) -> Result<(), String> {
    let (mut session, mut chat) = (idle_session(), idle_chat());
    if chat_channel {
        chat = serde_json::from_value(fixture["initial"].clone()).map_err(|e| e.to_string())?;
    } else {
        session = serde_json::from_value(fixture["initial"].clone()).map_err(|e| e.to_string())?;
    }
    let mut shown = view(&session, &chat).map_err(|e| format!("initial view: {e}"))?;
    for (step, json) in fixture["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .enumerate()
    {
        let action: v1::StateAction =
            serde_json::from_value(json.clone()).map_err(|e| format!("action {step}: {e}"))?;
        let sent = if chat_channel {
            let before = chat.clone();
            reduce::v1::chat_reducer(&mut chat, &action);
            compat::action(Source::DefaultChat { before: &before }, json)
        } else {
            // What the host derives from the session before the action, without a copy.
            let sent = compat::action(Source::Session(&SessionChange::of(&session, &action)), json);
            reduce::v1::session_reducer(&mut session, &action);
            sent
        };
        let expected = view(&session, &chat).map_err(|e| format!("step {step} view: {e}"))?;
        match sent {
            View::Resync(reason) => {
                counts.resyncs.push(reason);
                shown = expected;
                continue;
            }
            View::Actions(actions) => {
                for old in actions {
                    counts.translated += 1;
                    let old = compat::typed_action(old).map_err(|e| format!("step {step}: {e}"))?;
                    reduce::session_reducer(&mut shown, &old, &FixedClock(9999.0));
                }
            }
        }
        let (got, want) = (
            comparable(serde_json::to_value(&shown).unwrap(), &["modifiedAt"]),
            comparable(serde_json::to_value(&expected).unwrap(), &["modifiedAt"]),
        );
        if got != want {
            return Err(format!(
                "step {step} ({}):\n  reduced: {got}\n  view:    {want}",
                json["type"]
            ));
        }
    }
    Ok(())
}

/// Checks every fixture of `reducer`; returns the resyncs they asked for.
fn check_all(reducer: &str, expected_count: usize) -> Vec<&'static str> {
    let fixtures = fixtures("ahp-1.0.0", reducer);
    assert_eq!(fixtures.len(), expected_count, "{reducer} fixtures");
    let mut failures = Vec::new();
    let mut counts = Counts::default();
    for (name, fixture) in &fixtures {
        if let Err(e) = check(fixture, reducer == "chat", &mut counts) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} {reducer} fixtures differ:\n{}",
        failures.len(),
        fixtures.len(),
        failures.join("\n")
    );
    // The views must not agree by translating nothing, nor by resyncing most steps (the
    // fixtures dwell on the edge cases; the host's own streams resync far less).
    assert!(
        counts.translated * 3 >= expected_count,
        "only {} actions translated",
        counts.translated
    );
    assert!(
        counts.resyncs.len() * 4 < counts.translated + counts.resyncs.len(),
        "{} resyncs for {} actions",
        counts.resyncs.len(),
        counts.translated
    );
    for reason in &counts.resyncs {
        assert!(
            compat::GAPS.iter().any(|(gap, _)| gap == reason),
            "resync for `{reason}`, which compat::GAPS does not list"
        );
    }
    counts.resyncs
}

fn tally(reasons: &[&'static str]) -> std::collections::BTreeMap<&'static str, usize> {
    let mut out = std::collections::BTreeMap::new();
    for reason in reasons {
        *out.entry(*reason).or_default() += 1;
    }
    out
}

#[test]
fn every_chat_fixture_keeps_the_view_and_the_envelopes_in_step() {
    let resyncs = check_all("chat", 149);
    eprintln!("chat fixtures: resyncs {:?}", tally(&resyncs));
}

#[test]
fn every_session_fixture_keeps_the_view_and_the_envelopes_in_step() {
    let resyncs = check_all("session", 92);
    eprintln!("session fixtures: resyncs {:?}", tally(&resyncs));
}
