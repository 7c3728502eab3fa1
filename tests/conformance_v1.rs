//! The 299 official AHP 1.0.0 reducer conformance fixtures (`protocol/ahp-1.0.0/conformance/
//! reducers/`), run through the native 1.0 reducers (`ahp_wasm::reduce::v1`), none skipped.
//! Rules (as for 0.3.0's, `tests/conformance.rs`): states compare with nulls removed and numbers
//! by value. The 0.3.0 clock rule (now = 9999) has nothing to apply to: no 1.0 reducer reads a
//! clock, the actions carry their timestamps.

mod common;

use ahp_wasm::reduce::v1;
use serde_json::Value;

const FIXTURES: &str = "protocol/ahp-1.0.0/conformance/reducers";

fn run_fixture(fixture: &Value) -> Result<Value, String> {
    let initial = &fixture["initial"];
    let actions = fixture["actions"]
        .as_array()
        .ok_or("fixture has no actions array")?;
    match fixture["reducer"].as_str() {
        Some("root") => common::run_typed(initial, actions, v1::root_reducer),
        Some("session") => common::run_typed(initial, actions, v1::session_reducer),
        Some("chat") => common::run_typed(initial, actions, v1::chat_reducer),
        Some("canvas") => common::run_typed(initial, actions, v1::canvas_reducer),
        Some("terminal") => common::run_typed(initial, actions, v1::terminal_reducer),
        Some("changeset") => common::run_typed(initial, actions, v1::changeset_reducer),
        Some("annotations") => common::run_typed(initial, actions, v1::annotations_reducer),
        Some("resourceWatch") => common::run_typed(initial, actions, v1::resource_watch_reducer),
        Some("automation") => common::run_typed(initial, actions, v1::automation_reducer),
        Some("automationRun") => common::run_typed(initial, actions, v1::automation_run_reducer),
        other => Err(format!("unknown reducer {other:?}")),
    }
}

#[test]
fn all_v1_conformance_fixtures_pass() {
    let fixtures = common::fixtures_in(FIXTURES);
    assert_eq!(
        fixtures.len(),
        299,
        "expected the 299 vendored 1.0.0 fixtures"
    );
    common::assert_fixtures_pass("conformance v1", &fixtures, run_fixture);
}

/// Each reducer leaves another channel's action alone: the fixtures' actions, sent to every
/// other reducer's fixtures' initial states, change nothing there.
#[test]
fn other_channels_actions_are_no_ops() {
    let fixtures = common::fixtures_in(FIXTURES);
    let mut checked = 0;
    for (name, fixture) in &fixtures {
        let reducer = fixture["reducer"].as_str().unwrap_or_default();
        let prefix = match reducer {
            "resourceWatch" => "resourceWatch/",
            "root" => "root/",
            "session" => "session/",
            "chat" => "chat/",
            "terminal" => "terminal/",
            "changeset" => "changeset/",
            "annotations" => "annotations/",
            "automation" => "automation/",
            _ => continue,
        };
        for (_, other) in &fixtures {
            for action in other["actions"].as_array().into_iter().flatten() {
                let kind = action["type"].as_str().unwrap_or_default();
                // `session/*` actions go to sessions only, `chat/*` to chats only, and so on
                // (a channel's prefix is its state's).
                if kind.starts_with(prefix) || (reducer == "root" && kind.starts_with("root/")) {
                    continue;
                }
                let initial = &fixture["initial"];
                let after = run_fixture(&serde_json::json!({
                    "reducer": reducer, "initial": initial, "actions": [action],
                }))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
                let before = common::normalize(initial);
                if let Some(diff) =
                    common::first_difference("state", &common::normalize(&after), &before)
                {
                    panic!("{name}: {kind} changed a {reducer} state: {diff}");
                }
                checked += 1;
            }
        }
        if checked > 20_000 {
            break;
        }
    }
    assert!(
        checked > 1000,
        "only {checked} cross-channel actions checked"
    );
}
