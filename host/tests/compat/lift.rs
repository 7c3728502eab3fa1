//! A 0.3.0 session lifted into 1.0 (`ahp_host::compat::lift`) and 0.3.0 actions translated into
//! 1.0 (`compat::to_v1`), against every official 0.3.0 session fixture: the 0.3.0 view of the
//! lifted state must equal the fixture's state before any action and after each one (the 1.0
//! reducers applying the translations, the 0.3.0 reducer the originals). Left out of the
//! comparison, as `compat::GAPS` says: `summary.modifiedAt` and the session's model and agent.

use super::{comparable, fixtures};
use ahp_host::compat::{self, Target};
use ahp_wasm::protocol::{self as v03, v1};
use ahp_wasm::reduce::{self, FixedClock};
use serde_json::Value;

/// What the view leaves out of the summary (`compat::GAPS`).
const GAPS: &[&str] = &["modifiedAt", "model", "agent"];

const CHAT: &str = "ahp-chat:/s1/default";
const NOW: f64 = 9999.0;

/// The view of the 1.0 state on the channel `at` (the fixture's session URI).
fn view(at: &(String, String), session: &v1::SessionState, chat: &v1::ChatState) -> Value {
    let json = compat::session_state(&at.0, &at.1, session, Some(chat));
    let typed = compat::typed_state(json).expect("the view decodes as 0.3.0");
    comparable(serde_json::to_value(&typed).unwrap(), GAPS)
}

fn check(fixture: &Value, translated: &mut usize) -> Result<(), String> {
    let mut old: v03::SessionState =
        serde_json::from_value(fixture["initial"].clone()).map_err(|e| e.to_string())?;
    let created_at = (
        old.summary.resource.clone(),
        ahp_wasm::reduce::v1::from_unix_millis(old.summary.created_at as i64).expect("time"),
    );
    let (session, chat) = compat::lift(&old, CHAT);
    let mut session: v1::SessionState =
        serde_json::from_value(session).map_err(|e| format!("lifted session: {e}"))?;
    let mut chat: v1::ChatState =
        serde_json::from_value(chat).map_err(|e| format!("lifted chat: {e}"))?;
    let shown = |s: &v03::SessionState| comparable(serde_json::to_value(s).unwrap(), GAPS);
    if view(&created_at, &session, &chat) != shown(&old) {
        return Err(format!(
            "lifted:\n  view:  {}\n  0.3.0: {}",
            view(&created_at, &session, &chat),
            shown(&old)
        ));
    }
    for (step, json) in fixture["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .enumerate()
    {
        let action: v03::StateAction =
            serde_json::from_value(json.clone()).map_err(|e| format!("action {step}: {e}"))?;
        reduce::session_reducer(&mut old, &action, &FixedClock(NOW));
        if let Some((target, new)) = compat::to_v1(json, &session, &chat, NOW as i64) {
            *translated += 1;
            let new: v1::StateAction = serde_json::from_value(new.clone())
                .map_err(|e| format!("step {step}: {new} is no 1.0 action: {e}"))?;
            match target {
                Target::Session => drop(reduce::v1::session_reducer(&mut session, &new)),
                Target::DefaultChat => drop(reduce::v1::chat_reducer(&mut chat, &new)),
            }
        }
        let (got, want) = (view(&created_at, &session, &chat), shown(&old));
        if got != want {
            return Err(format!(
                "step {step} ({}):\n  view:  {got}\n  0.3.0: {want}",
                json["type"]
            ));
        }
    }
    Ok(())
}

#[test]
fn every_session_fixture_lifts_and_translates_to_the_same_state() {
    let fixtures = fixtures("ahp-0.3.0", "session");
    assert!(fixtures.len() >= 100, "{} session fixtures", fixtures.len());
    let mut failures = Vec::new();
    let mut translated = 0;
    for (name, fixture) in &fixtures {
        if let Err(e) = check(fixture, &mut translated) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures differ:\n{}",
        failures.len(),
        fixtures.len(),
        failures.join("\n")
    );
    assert!(
        translated >= fixtures.len(),
        "{translated} actions translated"
    );
}
