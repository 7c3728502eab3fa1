//! The built-in agent's system prompt: sections rendered from the session state every turn,
//! their catalogue in `AgentInfo.systemMessageSections` (with `safety` restricted), and the
//! `/prompt` directive that shows the prompt of the turn.

mod common;

use ahp_wasm::protocol::*;
use common::*;
use serde_json::json;

const S: &str = "ahp-session:/prompt";

#[tokio::test]
async fn the_prompt_has_its_sections_and_follows_the_session() {
    let t = start_host().await;
    let mut c = Client::ready(&t.host, "prompt-client").await;
    let root = c.subscribe("ahp-root://").await;
    let root: RootState =
        serde_json::from_value(serde_json::to_value(&root.state).unwrap()).unwrap();
    let sections = root.agents[0]
        .system_message_sections
        .clone()
        .expect("a catalogue");
    let ids: Vec<_> = sections.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "identity",
            "tone",
            "safety",
            "environment_context",
            "tool_instructions",
            "custom_instructions"
        ]
    );
    assert_eq!(sections[2].restricted, Some(true));

    c.create_session(S).await;
    c.subscribe(S).await;
    c.send_message(S, "t1", "/prompt").await;
    c.until_turn_end("t1").await;
    let first = markdown(&host_state(&t.host, S).await.turns[0].response_parts);
    for id in [
        "## identity",
        "## safety",
        "## environment_context",
        "- read_file (host)",
    ] {
        assert!(first.contains(id), "{id} in {first}");
    }
    assert!(!first.contains("(client "), "no client tools yet: {first}");

    // The next render sees the active client's tools.
    c.dispatch(
        S,
        serde_json::from_value(json!({"type": "session/activeClientChanged",
            "activeClient": {"clientId": "prompt-client", "displayName": "IDE", "tools": [{"name": "clock"}]}}))
        .unwrap(),
    )
    .await;
    c.send_message(S, "t2", "/prompt").await;
    c.until_turn_end("t2").await;
    let second = markdown(&host_state(&t.host, S).await.turns[1].response_parts);
    assert!(second.contains("- clock (client IDE)"), "{second}");
}
