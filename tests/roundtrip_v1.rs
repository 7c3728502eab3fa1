//! The 67 official AHP 1.0.0 wire round-trip cases (`protocol/ahp-1.0.0/conformance/round-trips`,
//! one test each, none skipped) against the generated 1.0 types (`ahp_wasm::protocol::v1`):
//! each case's `input` is decoded as its `type` and encoded again, by serde and by the SDK's
//! own `Encode` (the two texts must be the same), and must equal the case's expected output,
//! key-presence-sensitive (`null` is not absent) and key-order-independent.
//!
//! The expected output is `acceptableOutputs[0]`, except for the Group B cases (a known type
//! carrying members it does not model): the official runtime decoders drop such members and
//! assert the dropped form in `acceptableOutputs[0]`, but our types keep every unknown member
//! through decode, reduce and encode, as TypeScript does, so these cases assert the
//! `preservedOutput` that TypeScript asserts (`KNOWN-FIDELITY-GAPS.md`). Every other
//! documented gap concerns TypeScript's erased types, not the wire values asserted here.
//!
//! Also here: unknown union variants, unknown string enum values and unknown bitset bits
//! round-trip, unknown members are kept, and the hand-written `Tagged` member reads and writes
//! its tag.

use ahp_wasm::protocol::decode::from_text;
use ahp_wasm::protocol::encode::to_text;
use ahp_wasm::protocol::v1::{self, roundtrip_by_name};
use serde_json::{json, Value};
use std::path::PathBuf;

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("protocol/ahp-1.0.0/conformance/round-trips")
}

/// Runs one case; panics with the case's name, what came back and what was expected.
fn run_case(file: &str) {
    let path = cases_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let case: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    let type_name = case["type"].as_str().expect("a case names its type");
    let outputs = case["acceptableOutputs"]
        .as_array()
        .expect("acceptableOutputs");
    assert_eq!(outputs.len(), 1, "{file}: one canonical output");
    let group_b = case["group"] == "B";
    let expected = match case.get("preservedOutput") {
        Some(preserved) if group_b => preserved,
        _ if group_b => panic!("{file}: a Group B case without preservedOutput"),
        _ => &outputs[0],
    };
    let back = roundtrip_by_name(type_name, case["input"].clone())
        .unwrap_or_else(|| panic!("{file}: no generated type {type_name}"))
        .unwrap_or_else(|e| panic!("{file}: {type_name}: {e}"));
    assert_eq!(
        &back, expected,
        "{file}: {type_name} came back as\n{back}\nexpected\n{expected}"
    );
}

macro_rules! cases {
    ($($test:ident => $file:literal,)*) => {
        $(
            #[test]
            fn $test() {
                run_case($file);
            }
        )*

        /// The case files this test runs, by name.
        const CASES: &[&str] = &[$($file),*];
    };
}

cases! {
    case_001_action_envelope_session_title_changed => "001-action-envelope-session-title-changed.json",
    case_002_state_action_unknown_variant_preserved => "002-state-action-unknown-variant-preserved.json",
    case_003_customization_unknown_type_preserved => "003-customization-unknown-type-preserved.json",
    case_004_session_status_bitset_flags => "004-session-status-bitset-flags.json",
    case_005_session_status_unknown_bits_preserved => "005-session-status-unknown-bits-preserved.json",
    case_006_string_or_markdown_plain => "006-string-or-markdown-plain.json",
    case_007_string_or_markdown_object => "007-string-or-markdown-object.json",
    case_008_jsonrpc_request => "008-jsonrpc-request.json",
    case_009_jsonrpc_notification => "009-jsonrpc-notification.json",
    case_010_jsonrpc_success => "010-jsonrpc-success.json",
    case_011_jsonrpc_error => "011-jsonrpc-error.json",
    case_012_changeset_target_resource => "012-changeset-target-resource.json",
    case_013_changeset_target_range => "013-changeset-target-range.json",
    case_014_session_input_question_number => "014-session-input-question-number.json",
    case_015_session_input_question_integer => "015-session-input-question-integer.json",
    case_016_long_above_int32_max_preserved => "016-long-above-int32-max-preserved.json",
    case_017_unknown_wire_keys_ignored => "017-unknown-wire-keys-ignored.json",
    case_018_nested_optional_null_round_trip => "018-nested-optional-null-round-trip.json",
    case_019_channel_scoped_notification_uri => "019-channel-scoped-notification-uri.json",
    case_019_session_chat_summary_interactivity_round_trip => "019-session-chat-summary-interactivity-round-trip.json",
    case_020_partial_summary_all_null => "020-partial-summary-all-null.json",
    case_024_changeset_changekind_known_and_unknown => "024-changeset-changekind-known-and-unknown.json",
    case_025_action_envelope_origin_absent => "025-action-envelope-origin-absent.json",
    case_026_action_envelope_origin_present => "026-action-envelope-origin-present.json",
    case_027_agent_customization_model_and_tools => "027-agent-customization-model-and-tools.json",
    case_028_implementation_identity => "028-implementation-identity.json",
    case_029_initialize_terminal_command_prefix => "029-initialize-terminal-command-prefix.json",
    case_030_agent_side_chat_capability => "030-agent-side-chat-capability.json",
    case_030_terminal_content_ispty => "030-terminal-content-ispty.json",
    case_031_side_chat_origin => "031-side-chat-origin.json",
    case_031_terminal_content_completed => "031-terminal-content-completed.json",
    case_032_chat_transcript_attachment => "032-chat-transcript-attachment.json",
    case_033_chat_source_side_chat => "033-chat-source-side-chat.json",
    case_034_side_chat_origin_active => "034-side-chat-origin-active.json",
    case_035_chat_source_side_chat_active => "035-chat-source-side-chat-active.json",
    case_036_chat_source_fork => "036-chat-source-fork.json",
    case_037_chat_origin_fork => "037-chat-origin-fork.json",
    case_038_chat_source_side_chat_selection => "038-chat-source-side-chat-selection.json",
    case_039_side_chat_origin_selection => "039-side-chat-origin-selection.json",
    case_040_chat_transcript_attachment_latest_turn => "040-chat-transcript-attachment-latest-turn.json",
    case_041_automation_catalogue_snapshot => "041-automation-catalogue-snapshot.json",
    case_041_chat_error_part_discriminator => "041-chat-error-part-discriminator.json",
    case_042_automation_run_snapshot => "042-automation-run-snapshot.json",
    case_043_automation_capabilities => "043-automation-capabilities.json",
    case_044_initialize_result_meta => "044-initialize-result-meta.json",
    case_045_automation_disable_condition_snapshot => "045-automation-disable-condition-snapshot.json",
    case_045_file_edit_variants => "045-file-edit-variants.json",
    case_045_session_chat_summary_archived_round_trip => "045-session-chat-summary-archived-round-trip.json",
    case_046_automation_set_disable_condition => "046-automation-set-disable-condition.json",
    case_046_file_edit_preview => "046-file-edit-preview.json",
    case_047_automation_clear_disable_condition => "047-automation-clear-disable-condition.json",
    case_047_file_edit_tool_result => "047-file-edit-tool-result.json",
    case_048_automation_after_date_disable_condition => "048-automation-after-date-disable-condition.json",
    case_048_file_edit_empty_preview => "048-file-edit-empty-preview.json",
    case_049_automation_combined_disable_conditions => "049-automation-combined-disable-conditions.json",
    case_049_file_edit_unknown_fields => "049-file-edit-unknown-fields.json",
    case_050_automation_customizations_snapshot => "050-automation-customizations-snapshot.json",
    case_050_automation_omit_disable_conditions_patch => "050-automation-omit-disable-conditions-patch.json",
    case_050_message_origin_unknown_kind_preserved => "050-message-origin-unknown-kind-preserved.json",
    case_051_canvas_ready_snapshot => "051-canvas-ready-snapshot.json",
    case_051_config_schema_array_cardinality => "051-config-schema-array-cardinality.json",
    case_051_session_chat_summary_changes_round_trip => "051-session-chat-summary-changes-round-trip.json",
    case_052_canvas_unavailable_snapshot => "052-canvas-unavailable-snapshot.json",
    case_052_session_origin_unknown_kind_preserved => "052-session-origin-unknown-kind-preserved.json",
    case_053_canvas_statechanged_action => "053-canvas-statechanged-action.json",
    case_053_session_chat_summary_read_state_round_trip => "053-session-chat-summary-read-state-round-trip.json",
    case_054_chat_canvas_references => "054-chat-canvas-references.json",
}

/// The directory holds exactly the listed cases: none is left out.
#[test]
fn every_case_in_the_directory_is_listed() {
    let mut on_disk: Vec<String> = std::fs::read_dir(cases_dir())
        .expect("the round-trip cases are vendored")
        .map(|entry| {
            entry
                .expect("a directory entry")
                .file_name()
                .into_string()
                .expect("UTF-8")
        })
        .filter(|name| name.ends_with(".json"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = CASES.iter().map(|c| c.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
    assert_eq!(listed.len(), 67);
}

/// Decodes `text` as `T` with the SDK's decoder and writes it back with its encoder.
fn native_round_trip<T: ahp_wasm::protocol::decode::Decode + ahp_wasm::protocol::encode::Encode>(
    text: &str,
) -> (T, Value) {
    let typed: T = from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let back = serde_json::from_str(&to_text(&typed)).expect("Encode writes JSON");
    (typed, back)
}

#[test]
fn unknown_union_variants_are_kept_and_written_back() {
    let text = r#"{"type":"chat/somethingNew","turnId":"t1","nested":{"a":[1,2]}}"#;
    let (action, back) = native_round_trip::<v1::StateAction>(text);
    assert!(matches!(action, v1::StateAction::Unknown(_)), "{action:?}");
    assert_eq!(back, serde_json::from_str::<Value>(text).unwrap());

    // Nested: an unknown tool result content inside a known action.
    let text = r#"{"kind":"future","payload":1}"#;
    let (part, back) = native_round_trip::<v1::ResponsePart>(text);
    assert!(matches!(part, v1::ResponsePart::Unknown(_)), "{part:?}");
    assert_eq!(back, json!({"kind": "future", "payload": 1}));
}

#[test]
fn unknown_string_enum_values_are_kept_and_written_back() {
    let (value, back) = native_round_trip::<v1::ToolCallStatus>(r#""paused-for-lunch""#);
    assert_eq!(value, v1::ToolCallStatus::Other("paused-for-lunch".into()));
    assert_eq!(back, json!("paused-for-lunch"));
    let (value, _) = native_round_trip::<v1::ToolCallStatus>(r#""auth-required""#);
    assert_eq!(value, v1::ToolCallStatus::AuthRequired);
    // An enum closed in the definition is open here too.
    let (value, back) = native_round_trip::<v1::ChatInteractivity>(r#""whisper""#);
    assert_eq!(value, v1::ChatInteractivity::Other("whisper".into()));
    assert_eq!(back, json!("whisper"));
}

#[test]
fn unknown_bitset_bits_are_kept() {
    let (status, back) = native_round_trip::<v1::SessionStatus>("2147483720");
    assert!(status.contains(v1::SessionStatus::InProgress));
    assert!(status.contains(v1::SessionStatus::IsArchived));
    assert_eq!(status.bits(), 2_147_483_720);
    assert_eq!(back, json!(2_147_483_720u32));
}

#[test]
fn unknown_members_are_kept_in_the_struct_and_written_back() {
    let text = r#"{"resource":"ahp-session:/s1","provider":"demo","title":"Hi","status":1,
        "createdAt":"2024-01-01T00:00:00Z","modifiedAt":"2024-01-01T00:00:00Z",
        "futureKey":{"nested":true}}"#;
    let (summary, back) = native_round_trip::<v1::SessionSummary>(text);
    assert_eq!(
        summary.extra.get("futureKey"),
        Some(&json!({"nested": true}))
    );
    assert_eq!(back["futureKey"], json!({"nested": true}));
    assert_eq!(back["title"], json!("Hi"));
}

#[test]
fn the_system_message_transform_extension_applies_to_1_0_types() {
    let text = r#"{"clientId":"c1","tools":[],"systemMessageTransform":{"sections":["intro"]}}"#;
    let (client, back) = native_round_trip::<v1::SessionActiveClient>(text);
    let transform = client
        .system_message_transform
        .as_ref()
        .expect("the extension member");
    assert_eq!(transform.sections, vec!["intro".to_string()]);
    assert!(client.extra.is_empty(), "{:?}", client.extra);
    assert_eq!(back, serde_json::from_str::<Value>(text).unwrap());
}

#[test]
fn a_tagged_member_writes_its_tag_and_refuses_another() {
    let text = r#"{"type":"chat/error","turnId":"t1","duration":5,
        "part":{"kind":"error","error":{"errorType":"x","message":"boom"}}}"#;
    let (action, back) = native_round_trip::<v1::StateAction>(text);
    let v1::StateAction::ChatError(error) = &action else {
        panic!("{action:?}");
    };
    assert!(
        error.part.extra.is_empty(),
        "the tag is not an unknown member"
    );
    assert_eq!(back["part"]["kind"], json!("error"));
    assert_eq!(back, serde_json::from_str::<Value>(text).unwrap());

    let wrong = text.replace(r#""kind":"error""#, r#""kind":"markdown""#);
    let e = from_text::<v1::StateAction>(&wrong).expect_err("a markdown part is not an error");
    assert!(
        e.to_string()
            .contains(r#"expected "error", got "markdown""#),
        "{e}"
    );
}

#[test]
fn a_snapshot_state_decodes_as_the_first_state_it_fits() {
    let text = r#"{"resource":"ahp-root://","state":{"agents":[]},"fromSeq":7}"#;
    let (snapshot, back) = native_round_trip::<v1::Snapshot>(text);
    assert!(
        matches!(snapshot.state, v1::SnapshotState::Root(_)),
        "{snapshot:?}"
    );
    assert_eq!(back, serde_json::from_str::<Value>(text).unwrap());
}

/// The wasm run of these cases (`tests/wasm_roundtrip_v1.rs`, which embeds them) names every
/// case file too.
#[test]
fn the_wasm_test_embeds_every_case() {
    let wasm_test = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/wasm_roundtrip_v1.rs"),
    )
    .expect("tests/wasm_roundtrip_v1.rs");
    let missing: Vec<&str> = CASES
        .iter()
        .copied()
        .filter(|case| !wasm_test.contains(&format!("round-trips/{case}\")")))
        .collect();
    assert!(
        missing.is_empty(),
        "not embedded in the wasm test: {missing:?}"
    );
}
