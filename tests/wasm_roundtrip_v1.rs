//! The 67 official AHP 1.0.0 wire round-trip cases (`tests/roundtrip_v1.rs` runs them
//! natively) compiled to wasm and run in headless Chromium:
//!
//! ```sh
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   cargo test --target wasm32-unknown-unknown --test wasm_roundtrip_v1
//! ```
//!
//! Each case's `input` is decoded as its `type` through `protocol::v1` and encoded again (by
//! serde and by the SDK's own `Encode`, which must write the same text), and must equal the
//! expected output with the same documented fidelity gap as natively: the Group B cases (a
//! known type carrying members it does not model) expect `preservedOutput`, since our types
//! keep unknown members (`KNOWN-FIDELITY-GAPS.md`); every other case `acceptableOutputs[0]`.
//! The cases are embedded (a wasm test cannot read files); `tests/roundtrip_v1.rs` checks that
//! this list names every case file. Natively this file is empty.
#![cfg(target_arch = "wasm32")]

use ahp_wasm::protocol::v1::roundtrip_by_name;
use serde_json::Value;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// (file name, case JSON text), sorted by name.
const CASES: &[(&str, &str)] = &[
    ("001-action-envelope-session-title-changed.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/001-action-envelope-session-title-changed.json")),
    ("002-state-action-unknown-variant-preserved.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/002-state-action-unknown-variant-preserved.json")),
    ("003-customization-unknown-type-preserved.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/003-customization-unknown-type-preserved.json")),
    ("004-session-status-bitset-flags.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/004-session-status-bitset-flags.json")),
    ("005-session-status-unknown-bits-preserved.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/005-session-status-unknown-bits-preserved.json")),
    ("006-string-or-markdown-plain.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/006-string-or-markdown-plain.json")),
    ("007-string-or-markdown-object.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/007-string-or-markdown-object.json")),
    ("008-jsonrpc-request.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/008-jsonrpc-request.json")),
    ("009-jsonrpc-notification.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/009-jsonrpc-notification.json")),
    ("010-jsonrpc-success.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/010-jsonrpc-success.json")),
    ("011-jsonrpc-error.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/011-jsonrpc-error.json")),
    ("012-changeset-target-resource.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/012-changeset-target-resource.json")),
    ("013-changeset-target-range.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/013-changeset-target-range.json")),
    ("014-session-input-question-number.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/014-session-input-question-number.json")),
    ("015-session-input-question-integer.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/015-session-input-question-integer.json")),
    ("016-long-above-int32-max-preserved.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/016-long-above-int32-max-preserved.json")),
    ("017-unknown-wire-keys-ignored.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/017-unknown-wire-keys-ignored.json")),
    ("018-nested-optional-null-round-trip.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/018-nested-optional-null-round-trip.json")),
    ("019-channel-scoped-notification-uri.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/019-channel-scoped-notification-uri.json")),
    ("019-session-chat-summary-interactivity-round-trip.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/019-session-chat-summary-interactivity-round-trip.json")),
    ("020-partial-summary-all-null.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/020-partial-summary-all-null.json")),
    ("024-changeset-changekind-known-and-unknown.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/024-changeset-changekind-known-and-unknown.json")),
    ("025-action-envelope-origin-absent.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/025-action-envelope-origin-absent.json")),
    ("026-action-envelope-origin-present.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/026-action-envelope-origin-present.json")),
    ("027-agent-customization-model-and-tools.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/027-agent-customization-model-and-tools.json")),
    ("028-implementation-identity.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/028-implementation-identity.json")),
    ("029-initialize-terminal-command-prefix.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/029-initialize-terminal-command-prefix.json")),
    ("030-agent-side-chat-capability.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/030-agent-side-chat-capability.json")),
    ("030-terminal-content-ispty.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/030-terminal-content-ispty.json")),
    ("031-side-chat-origin.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/031-side-chat-origin.json")),
    ("031-terminal-content-completed.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/031-terminal-content-completed.json")),
    ("032-chat-transcript-attachment.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/032-chat-transcript-attachment.json")),
    ("033-chat-source-side-chat.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/033-chat-source-side-chat.json")),
    ("034-side-chat-origin-active.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/034-side-chat-origin-active.json")),
    ("035-chat-source-side-chat-active.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/035-chat-source-side-chat-active.json")),
    ("036-chat-source-fork.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/036-chat-source-fork.json")),
    ("037-chat-origin-fork.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/037-chat-origin-fork.json")),
    ("038-chat-source-side-chat-selection.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/038-chat-source-side-chat-selection.json")),
    ("039-side-chat-origin-selection.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/039-side-chat-origin-selection.json")),
    ("040-chat-transcript-attachment-latest-turn.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/040-chat-transcript-attachment-latest-turn.json")),
    ("041-automation-catalogue-snapshot.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/041-automation-catalogue-snapshot.json")),
    ("041-chat-error-part-discriminator.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/041-chat-error-part-discriminator.json")),
    ("042-automation-run-snapshot.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/042-automation-run-snapshot.json")),
    ("043-automation-capabilities.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/043-automation-capabilities.json")),
    ("044-initialize-result-meta.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/044-initialize-result-meta.json")),
    ("045-automation-disable-condition-snapshot.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/045-automation-disable-condition-snapshot.json")),
    ("045-file-edit-variants.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/045-file-edit-variants.json")),
    ("045-session-chat-summary-archived-round-trip.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/045-session-chat-summary-archived-round-trip.json")),
    ("046-automation-set-disable-condition.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/046-automation-set-disable-condition.json")),
    ("046-file-edit-preview.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/046-file-edit-preview.json")),
    ("047-automation-clear-disable-condition.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/047-automation-clear-disable-condition.json")),
    ("047-file-edit-tool-result.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/047-file-edit-tool-result.json")),
    ("048-automation-after-date-disable-condition.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/048-automation-after-date-disable-condition.json")),
    ("048-file-edit-empty-preview.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/048-file-edit-empty-preview.json")),
    ("049-automation-combined-disable-conditions.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/049-automation-combined-disable-conditions.json")),
    ("049-file-edit-unknown-fields.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/049-file-edit-unknown-fields.json")),
    ("050-automation-customizations-snapshot.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/050-automation-customizations-snapshot.json")),
    ("050-automation-omit-disable-conditions-patch.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/050-automation-omit-disable-conditions-patch.json")),
    ("050-message-origin-unknown-kind-preserved.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/050-message-origin-unknown-kind-preserved.json")),
    ("051-canvas-ready-snapshot.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/051-canvas-ready-snapshot.json")),
    ("051-config-schema-array-cardinality.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/051-config-schema-array-cardinality.json")),
    ("051-session-chat-summary-changes-round-trip.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/051-session-chat-summary-changes-round-trip.json")),
    ("052-canvas-unavailable-snapshot.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/052-canvas-unavailable-snapshot.json")),
    ("052-session-origin-unknown-kind-preserved.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/052-session-origin-unknown-kind-preserved.json")),
    ("053-canvas-statechanged-action.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/053-canvas-statechanged-action.json")),
    ("053-session-chat-summary-read-state-round-trip.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/053-session-chat-summary-read-state-round-trip.json")),
    ("054-chat-canvas-references.json", include_str!("../protocol/ahp-1.0.0/conformance/round-trips/054-chat-canvas-references.json")),
];

/// Runs one case: `Err` names the case, what came back and what was expected.
fn run_case(file: &str, text: &str) -> Result<(), String> {
    let case: Value = serde_json::from_str(text).map_err(|e| format!("{file}: {e}"))?;
    let type_name = case["type"]
        .as_str()
        .ok_or_else(|| format!("{file}: no type"))?;
    let outputs = case["acceptableOutputs"]
        .as_array()
        .ok_or_else(|| format!("{file}: no acceptableOutputs"))?;
    if outputs.len() != 1 {
        return Err(format!(
            "{file}: {} acceptable outputs, not one",
            outputs.len()
        ));
    }
    let group_b = case["group"] == "B";
    let expected = match case.get("preservedOutput") {
        Some(preserved) if group_b => preserved,
        _ if group_b => return Err(format!("{file}: a Group B case without preservedOutput")),
        _ => &outputs[0],
    };
    let back = roundtrip_by_name(type_name, case["input"].clone())
        .ok_or_else(|| format!("{file}: no generated type {type_name}"))?
        .map_err(|e| format!("{file}: {type_name}: {e}"))?;
    if &back != expected {
        return Err(format!(
            "{file}: {type_name} came back as\n{back}\nexpected\n{expected}"
        ));
    }
    Ok(())
}

#[wasm_bindgen_test]
fn every_round_trip_case_comes_back_as_expected_in_wasm() {
    assert_eq!(CASES.len(), 67, "the 67 official cases");
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|(file, text)| run_case(file, text).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

#[wasm_bindgen_test]
fn a_changed_expectation_fails() {
    // The comparison can fail: a case with its expected output altered does not pass.
    let (file, text) = CASES[0];
    let mut case: Value = serde_json::from_str(text).expect("a case is JSON");
    case["acceptableOutputs"][0] = Value::String("not what comes back".into());
    assert!(run_case(file, &case.to_string()).is_err());
}
