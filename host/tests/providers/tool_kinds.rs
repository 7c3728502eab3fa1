//! The model's tool calls through each kind of tool, end to end through the real host: an MCP
//! server's tool (the real `@modelcontextprotocol/server-basic-vanillajs` from npm), `run` in
//! a session terminal, and a tool of the active client answered by that client. Each call is
//! confirmed where the rules say, and the fake endpoint asserts the result in the next request.
//! (A host file tool: `host.rs`.)

use crate::common::*;
use crate::fake::FakeServer;
use crate::host::{
    chat_requests, fake_provider, last_turn, models, text_reply, tool_calls, tool_reply, S,
};
use crate::KEY;
use ahp_wasm::protocol::*;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// The tool results (`role: tool`) of request `i`, by call id.
fn results(requests: &[Value], i: usize) -> Vec<(String, String)> {
    requests[i]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The npm example server's entry point (installed by `npm ci` at the workspace root).
fn basic_server() -> String {
    let entry = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js");
    match entry.canonicalize() {
        Ok(path) => path.to_string_lossy().into_owned(),
        Err(e) => panic!(
            "node_modules/@modelcontextprotocol/server-basic-vanillajs is missing ({e}); run \
             scripts/install-tools.sh (npm ci) at the workspace root"
        ),
    }
}

/// Reads envelopes into `mirror` until MCP server `id` is ready.
async fn until_ready(c: &mut Client, mirror: &mut SessionState, id: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        let server = mirror
            .customizations
            .iter()
            .flatten()
            .find_map(|x| match x {
                Customization::McpServer(m) if m.id == id => Some(m.state.clone()),
                _ => None,
            });
        match server {
            Some(McpServerState::Ready(_)) => return,
            Some(McpServerState::Error(e)) => panic!("MCP server {id} failed: {e:?}"),
            _ => {}
        }
        assert!(Instant::now() < deadline, "MCP server {id} never got ready");
        let e = c.envelope().await;
        reduce_all(mirror, &[e]);
    }
}

#[tokio::test]
async fn an_mcp_tool_call_is_confirmed_run_by_the_server_and_its_result_goes_back() {
    let server = FakeServer::start(vec![
        models(),
        tool_reply(&[("call_1", "mcp__basic__get-time", "{}")]),
        text_reply("It is late."),
    ])
    .await;
    let provider = fake_provider(&server, Some(KEY));
    let host = start_host_with(move |c| {
        c.providers.push(provider);
        c.trust_project_mcp = true;
    })
    .await;
    let mcp =
        json!({"mcpServers": {"basic": {"command": "node", "args": [basic_server(), "--stdio"]}}});
    std::fs::write(host.work.path().join(".mcp.json"), mcp.to_string()).unwrap();
    let mut c = Client::ready(&host.host, "client-a").await;
    c.request::<ahp_wasm::protocol::jsonrpc::CreateSession>(CreateSessionParams {
        channel: S.into(),
        provider: Some("fake".into()),
        ..Default::default()
    })
    .await
    .expect("createSession with the provider succeeds");
    let mut mirror = session_state(&c.subscribe(S).await);
    until_ready(&mut c, &mut mirror, "mcp/basic").await;

    c.send_message(S, "t1", "What time is it?").await;
    let (envs, ready) = c.until_tool_call_ready().await;
    assert!(ready.confirmed.is_none(), "the user confirms an MCP tool");
    let start = envs
        .iter()
        .find_map(|e| match &e.action {
            StateAction::SessionToolCallStart(s) => Some(s.clone()),
            _ => None,
        })
        .expect("the call started");
    assert_eq!(start.tool_name, "mcp__basic__get-time");
    assert!(
        matches!(&start.contributor, Some(ToolCallContributor::MCP(m)) if m.customization_id == "mcp/basic"),
        "{:?}",
        start.contributor
    );
    c.dispatch(S, approve("t1", &ready.tool_call_id)).await;
    c.until_turn_end("t1").await;

    let requests = chat_requests(&server);
    assert_eq!(requests.len(), 2);
    assert!(
        offered(&requests[0]).contains(&"mcp__basic__get-time".to_owned()),
        "{:?}",
        offered(&requests[0])
    );
    let results = results(&requests, 1);
    assert_eq!(results.len(), 1);
    let (id, time) = &results[0];
    assert_eq!(id, "call_1");
    assert!(
        time.starts_with("20") && time.contains('T') && time.trim_end().ends_with('Z'),
        "an ISO 8601 time from the server: {time}"
    );
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    assert!(matches!(tool_calls(turn)[..], [ToolCallState::Completed(ref d)] if d.success));
    assert_eq!(markdown(&turn.response_parts), "It is late.");
}

#[tokio::test]
async fn run_in_terminal_is_confirmed_runs_in_a_session_terminal_and_its_output_goes_back() {
    let server = FakeServer::start(vec![
        models(),
        tool_reply(&[
            (
                "call_1",
                "run_in_terminal",
                r#"{"command": "echo model-$((6*7))"}"#,
            ),
            (
                "call_2",
                "run_in_terminal",
                r#"{"command": "echo failing; exit 3"}"#,
            ),
        ]),
        text_reply("It printed 42."),
    ])
    .await;
    let (host, mut c) = crate::host::host_with(&server, Some(KEY)).await;
    c.send_message(S, "t1", "Run them").await;
    for command in ["echo model-", "exit 3"] {
        let (_, ready) = c.until_tool_call_ready().await;
        assert!(ready.confirmed.is_none(), "the user confirms a command");
        assert!(
            format!("{:?}", ready.invocation_message).contains(command),
            "{:?}",
            ready.invocation_message
        );
        c.dispatch(S, approve("t1", &ready.tool_call_id)).await;
    }
    c.until_turn_end("t1").await;

    let requests = chat_requests(&server);
    assert_eq!(requests.len(), 2);
    let results = results(&requests, 1);
    assert_eq!(results.len(), 2);
    let (id, output) = &results[0];
    assert_eq!(id, "call_1");
    assert!(
        output.contains("model-42") && output.contains("exit code 0"),
        "the output and the exit code: {output}"
    );
    let (id, output) = &results[1];
    assert_eq!(id, "call_2");
    assert!(
        output.contains("failing") && output.contains("exit code 3"),
        "{output}"
    );
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    let [ToolCallState::Completed(ok), ToolCallState::Completed(failed)] = tool_calls(turn)[..]
    else {
        panic!("two completed calls: {:?}", tool_calls(turn));
    };
    assert!(ok.success && !failed.success, "exit 3 is a failed call");
    let terminal = ok
        .content
        .iter()
        .flatten()
        .find_map(|c| match c {
            ToolResultContent::Terminal(t) => Some(t.resource.clone()),
            _ => None,
        })
        .expect("the result links the session terminal");
    assert!(terminal.starts_with("ahp-terminal:"), "{terminal}");
    assert_eq!(markdown(&turn.response_parts), "It printed 42.");
}

#[tokio::test]
async fn run_in_terminal_in_the_background_answers_at_once_and_is_the_chats_background_work() {
    let server = FakeServer::start(vec![
        models(),
        tool_reply(&[(
            "call_1",
            "run_in_terminal",
            r#"{"command": "sleep 3", "background": true}"#,
        )]),
        text_reply("Started."),
    ])
    .await;
    let (host, mut c) = crate::host::host_with(&server, Some(KEY)).await;
    c.send_message(S, "t1", "Start it").await;
    let (_, ready) = c.until_tool_call_ready().await;
    c.dispatch(S, approve("t1", &ready.tool_call_id)).await;
    c.until_turn_end("t1").await;
    // The model heard back while the command runs on, listed in the chat (AHP 1.0).
    let results = results(&chat_requests(&server), 1);
    assert!(
        results[0].1.contains("runs in the background"),
        "{results:?}"
    );
    let chat = S.replacen("ahp-session:/", "ahp-chat:/", 1) + "/default";
    let mut v = crate::v1_raw::V1::connect(&host.host, "background-watcher").await;
    let snapshot = v.subscribe(&chat).await;
    let work = snapshot["state"]["backgroundWork"].clone();
    assert_eq!(work[0]["command"], "sleep 3", "{snapshot}");
    v.until("the command to exit", |e| {
        e["channel"] == chat.as_str() && e["action"]["type"] == "chat/backgroundWorkRemoved"
    })
    .await;
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    assert!(matches!(tool_calls(turn)[..], [ToolCallState::Completed(ref d)] if d.success));
}

#[tokio::test]
async fn a_tool_of_the_active_client_is_answered_by_that_client_not_the_sender() {
    let server = FakeServer::start(vec![
        models(),
        tool_reply(&[("call_1", "pick_color", r#"{"palette": "cold"}"#)]),
        text_reply("Blue then."),
    ])
    .await;
    let (host, mut sender) = crate::host::host_with(&server, Some(KEY)).await;
    // Another client (the page, say) holds the active-client role with its tool.
    let mut page = Client::ready(&host.host, "client-page").await;
    page.subscribe(S).await;
    let claim: StateAction = serde_json::from_value(json!({"type": "session/activeClientChanged",
        "activeClient": {"clientId": "client-page", "tools": [{"name": "pick_color",
            "description": "Asks the user for a color",
            "inputSchema": {"type": "object", "properties": {"palette": {"type": "string"}}}}]}}))
    .unwrap();
    let seq = page.dispatch(S, claim).await;
    page.echo_of(seq).await;

    sender.send_message(S, "t1", "Pick a color").await;
    let (envs, ready) = page.until_tool_call_ready().await;
    assert_eq!(
        ready.confirmed,
        Some(ToolCallConfirmationReason::NotNeeded),
        "the client decides about its own tools"
    );
    let start = envs
        .iter()
        .find_map(|e| match &e.action {
            StateAction::SessionToolCallStart(s) => Some(s.clone()),
            _ => None,
        })
        .expect("the call started");
    assert!(
        matches!(&start.contributor, Some(ToolCallContributor::Client(c)) if c.client_id == "client-page"),
        "{:?}",
        start.contributor
    );
    let complete: StateAction = serde_json::from_value(json!({"type": "session/toolCallComplete",
        "turnId": "t1", "toolCallId": ready.tool_call_id,
        "result": {"success": true, "pastTenseMessage": "Picked",
                   "content": [{"type": "text", "text": "blue"}]}}))
    .unwrap();
    page.dispatch(S, complete).await;
    sender.until_turn_end("t1").await;

    let requests = chat_requests(&server);
    assert!(offered(&requests[0]).contains(&"pick_color".to_owned()));
    assert_eq!(
        results(&requests, 1),
        [("call_1".to_owned(), "blue".to_owned())]
    );
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    assert!(matches!(tool_calls(turn)[..], [ToolCallState::Completed(ref d)] if d.success));
    assert_eq!(markdown(&turn.response_parts), "Blue then.");
}
