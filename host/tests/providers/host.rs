//! Model providers as agents of the real host, driven over a real WebSocket: the fake
//! endpoint streams, asserts what the host sends it, and sees when the host closes it.

use crate::common::*;
use crate::fake::{sse, End, FakeServer, Reply};
use crate::KEY;
use ahp_host::providers::{Provider, ProviderSpec};
use ahp_wasm::protocol::jsonrpc::{self, ROOT_CHANNEL};
use ahp_wasm::protocol::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

pub(crate) const S: &str = "ahp-session:/model";

pub(crate) fn chunk(delta: Value, finish: Option<&str>) -> Vec<u8> {
    let data = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
    });
    sse(None, &data.to_string())
}

pub(crate) fn usage() -> Vec<u8> {
    let data = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
        "choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42},
    });
    sse(None, &data.to_string())
}

pub(crate) fn done() -> Vec<u8> {
    b"data: [DONE]\n\n".to_vec()
}

/// A streamed answer: some reasoning, then `text` in two deltas.
pub(crate) fn text_reply(text: &str) -> Reply {
    let (a, b) = text.split_at(text.len() / 2);
    Reply::stream(vec![
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"reasoning_content": "Thinking."}), None),
        chunk(json!({"content": a}), None),
        chunk(json!({"content": b}), None),
        chunk(json!({}), Some("stop")),
        usage(),
        done(),
    ])
}

/// An answer that calls tools: `(id, name, arguments)` each, the arguments split in two chunks.
pub(crate) fn tool_reply(calls: &[(&str, &str, &str)]) -> Reply {
    let mut parts = vec![chunk(json!({"role": "assistant", "content": null}), None)];
    for (index, (id, name, args)) in calls.iter().enumerate() {
        let (a, b) = args.split_at(args.len() / 2);
        parts.push(chunk(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                    "function": {"name": name, "arguments": a}}]}),
            None,
        ));
        parts.push(chunk(
            json!({"tool_calls": [{"index": index, "function": {"arguments": b}}]}),
            None,
        ));
    }
    parts.push(chunk(json!({}), Some("tool_calls")));
    parts.push(done());
    Reply::stream(parts)
}

/// The endpoint's model list (asked for once when the host starts).
pub(crate) fn models() -> Reply {
    Reply::json(
        200,
        json!({"object": "list", "data": [
            {"id": "test-model", "object": "model"}, {"id": "other-model", "object": "model"}]}),
    )
}

/// Provider `fake` at the server: configured model `test-model`, fast retries, and the
/// configured `key` (none: it is to come from `authenticate`).
pub(crate) fn fake_provider(server: &FakeServer, key: Option<&str>) -> Provider {
    let mut config = ProviderSpec {
        kind: Some("openai".into()),
        name: Some("fake".into()),
        base_url: Some(server.url("/v1")),
        models: vec!["test-model".into()],
        ..ProviderSpec::default()
    }
    .validate(1)
    .unwrap();
    config.retry.base_delay = Duration::from_millis(20);
    config.timeouts.first_byte = Duration::from_secs(5);
    config.timeouts.idle = Duration::from_secs(5);
    Provider::with_key(config, key.and_then(ahp_host::providers::Secret::new)).unwrap()
}

/// A host with the fake provider, and a client in a new session of it.
pub(crate) async fn host_with(server: &FakeServer, key: Option<&str>) -> (TestHost, Client) {
    let provider = fake_provider(server, key);
    let host = start_host_with(move |c| c.providers.push(provider)).await;
    let mut c = Client::ready(&host.host, "client-a").await;
    model_session(&mut c).await;
    (host, c)
}

pub(crate) async fn model_session(c: &mut Client) {
    c.request::<jsonrpc::CreateSession>(CreateSessionParams {
        channel: S.into(),
        provider: Some("fake".into()),
        ..Default::default()
    })
    .await
    .expect("createSession with the provider succeeds");
    c.subscribe(S).await;
}

pub(crate) fn chat_requests(server: &FakeServer) -> Vec<Value> {
    server
        .requests()
        .iter()
        .filter(|r| r.target.ends_with("/chat/completions"))
        .map(|r| r.json())
        .collect()
}

pub(crate) fn last_turn(state: &SessionState) -> &Turn {
    state.turns.last().expect("a turn")
}

pub(crate) fn tool_calls(turn: &Turn) -> Vec<&ToolCallState> {
    turn.response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::ToolCall(t) => Some(&t.tool_call),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_provider_is_an_agent_and_a_turn_streams_its_text_reasoning_and_usage() {
    let server = FakeServer::start(vec![models(), text_reply("Sunny in both.")]).await;
    let provider = fake_provider(&server, Some(KEY));
    let host = start_host_with(move |c| c.providers.push(provider)).await;
    let mut c = Client::connect(&host.host, "client-a").await;
    let init = c.initialize(&[ROOT_CHANNEL]).await;
    let root = serde_json::to_value(&init).unwrap();
    let agents = root
        .pointer("/snapshots/0/state/agents")
        .unwrap()
        .as_array()
        .unwrap();
    assert_eq!(
        agents[0]["provider"], "builtin",
        "the built-in agent stays first"
    );
    assert_eq!(agents[1]["provider"], "fake");
    let ids: Vec<&str> = agents[1]["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["test-model", "other-model"]);
    assert!(
        agents[1].get("protectedResources").is_none(),
        "it has a key"
    );
    model_session(&mut c).await;
    c.send_message(S, "t1", "What is the weather?").await;
    let envs = c.until_turn_end("t1").await;
    let deltas = envs
        .iter()
        .filter(|e| matches!(e.action, StateAction::SessionDelta(_)))
        .count();
    assert_eq!(deltas, 2, "each text delta is a session/delta");
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    assert_eq!(turn.state, TurnState::Complete);
    assert_eq!(markdown(&turn.response_parts), "Sunny in both.");
    assert!(turn
        .response_parts
        .iter()
        .any(|p| matches!(p, ResponsePart::Reasoning(r) if r.content == "Thinking.")));
    let usage = turn.usage.as_ref().expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens),
        (Some(30.0), Some(12.0))
    );
    let sent = &chat_requests(&server)[0];
    assert_eq!(sent["model"], "test-model");
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert_eq!(sent["messages"][0]["role"], "system");
    assert!(
        system.contains("## identity") && system.contains("Working directory"),
        "{system}"
    );
    assert_eq!(
        sent["messages"][1],
        json!({"role": "user", "content": "What is the weather?"})
    );
    let tools: Vec<&str> = sent["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        ["list_files", "read_file", "write_file", "run_in_terminal"]
    );
}

#[tokio::test]
async fn a_confirmed_tool_call_runs_and_its_result_goes_back_in_the_next_request() {
    let server = FakeServer::start(vec![
        models(),
        tool_reply(&[("call_1", "list_files", r#"{"path": "."}"#)]),
        text_reply("There is hello.txt."),
        text_reply("Second answer."),
    ])
    .await;
    let (host, mut c) = host_with(&server, Some(KEY)).await;
    c.send_message(S, "t1", "What files are there?").await;
    let (_, ready) = c.until_tool_call_ready().await;
    assert!(ready.confirmed.is_none(), "the user confirms a host tool");
    c.dispatch(S, approve("t1", &ready.tool_call_id)).await;
    c.until_turn_end("t1").await;
    let requests = chat_requests(&server);
    assert_eq!(requests.len(), 2);
    let messages = requests[1]["messages"].as_array().unwrap();
    let call = messages
        .iter()
        .find(|m| m["role"] == "assistant")
        .expect("the model's call is sent back");
    assert_eq!(call["tool_calls"][0]["id"], "call_1");
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("the result is sent");
    assert_eq!(result["tool_call_id"], "call_1");
    let content = result["content"].as_str().unwrap();
    assert!(
        content.contains("hello.txt") && content.contains("sub/"),
        "{content}"
    );
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    assert!(matches!(tool_calls(turn)[..], [ToolCallState::Completed(ref d)] if d.success));
    assert_eq!(markdown(&turn.response_parts), "There is hello.txt.");
    // The next turn sends the first one as history: the call and its result included.
    c.send_message(S, "t2", "And now?").await;
    c.until_turn_end("t2").await;
    let next = &chat_requests(&server)[2];
    let roles: Vec<&str> = next["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "user"]
    );
}

#[tokio::test]
async fn an_unknown_tool_or_bad_arguments_fail_the_call_for_the_model_and_the_next_turn_works() {
    let server = FakeServer::start(vec![
        models(),
        tool_reply(&[
            ("call_1", "no_such_tool", "{}"),
            ("call_2", "read_file", r#"{"path": "#),
        ]),
        text_reply("Sorry."),
        text_reply("Fine now."),
    ])
    .await;
    let (host, mut c) = host_with(&server, Some(KEY)).await;
    c.send_message(S, "t1", "Do something odd").await;
    c.until_turn_end("t1").await;
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    assert_eq!(turn.state, TurnState::Complete);
    let calls = tool_calls(turn);
    assert_eq!(calls.len(), 2);
    for call in &calls {
        let ToolCallState::Completed(done) = call else {
            panic!("not completed: {call:?}");
        };
        assert!(!done.success);
        assert_eq!(
            done.error.as_ref().unwrap().code.as_deref(),
            Some("InvalidToolCall")
        );
    }
    let messages = chat_requests(&server)[1]["messages"].clone();
    let results: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(results.len(), 2);
    assert!(
        results[0].contains("no tool named `no_such_tool`"),
        "{}",
        results[0]
    );
    assert!(
        results[0].contains("list_files"),
        "it names the tools there are"
    );
    assert!(results[1].contains("not valid JSON"), "{}", results[1]);
    c.send_message(S, "t2", "Again").await;
    c.until_turn_end("t2").await;
    let state = host_state(&host.host, S).await;
    assert_eq!(markdown(&last_turn(&state).response_parts), "Fine now.");
}

#[tokio::test]
async fn cancelling_the_turn_closes_the_upstream_connection_within_100_ms() {
    let hanging = Reply::Stream {
        parts: vec![chunk(json!({"content": "Starting"}), None)],
        delay: Duration::from_millis(1),
        end: End::Hang,
    };
    let mut server = FakeServer::start(vec![models(), hanging]).await;
    let (_host, mut c) = host_with(&server, Some(KEY)).await;
    c.send_message(S, "t1", "Write a long story").await;
    c.envelopes_until(|e| matches!(e.action, StateAction::SessionDelta(_)))
        .await;
    let cancelled_at = Instant::now();
    c.dispatch(
        S,
        StateAction::SessionTurnCancelled(SessionTurnCancelledAction {
            turn_id: "t1".into(),
            extra: Default::default(),
        }),
    )
    .await;
    let closed = server
        .next_close(Duration::from_secs(5))
        .await
        .expect("the host closed the upstream connection");
    let took = closed.duration_since(cancelled_at);
    assert!(
        took < Duration::from_millis(100),
        "closed {took:?} after the cancel"
    );
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_after_the_wait() {
    let server = FakeServer::start(vec![
        models(),
        Reply::status(
            429,
            &[("retry-after", "1"), ("content-type", "application/json")],
            r#"{"error": {"message": "slow down", "type": "rate_limit"}}"#,
        ),
        text_reply("After the wait."),
    ])
    .await;
    let (host, mut c) = host_with(&server, Some(KEY)).await;
    let started = Instant::now();
    c.send_message(S, "t1", "Hello").await;
    c.until_turn_end("t1").await;
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(chat_requests(&server).len(), 2);
    let state = host_state(&host.host, S).await;
    assert_eq!(
        markdown(&last_turn(&state).response_parts),
        "After the wait."
    );
}

#[tokio::test]
async fn a_stream_cut_mid_turn_fails_the_turn_plainly_and_the_session_goes_on() {
    let cut = Reply::stream(vec![chunk(json!({"content": "Half an ans"}), None)]).ending(End::Cut);
    let server = FakeServer::start(vec![models(), cut, text_reply("Whole answer.")]).await;
    let (host, mut c) = host_with(&server, Some(KEY)).await;
    c.send_message(S, "t1", "Hello").await;
    let envs = c.until_turn_end("t1").await;
    let StateAction::SessionError(error) = &envs.last().unwrap().action else {
        panic!("the turn fails: {:?}", envs.last());
    };
    assert!(
        error.error.message.contains("model provider fake")
            && error.error.message.contains("ended early"),
        "{}",
        error.error.message
    );
    let state = host_state(&host.host, S).await;
    let failed = last_turn(&state);
    assert_eq!(failed.state, TurnState::Error);
    assert_eq!(
        markdown(&failed.response_parts),
        "Half an ans",
        "what streamed is kept"
    );
    c.send_message(S, "t2", "Again").await;
    c.until_turn_end("t2").await;
    let state = host_state(&host.host, S).await;
    assert_eq!(markdown(&last_turn(&state).response_parts), "Whole answer.");
}

fn anthropic_event(data: Value) -> Vec<u8> {
    let name = data["type"].as_str().unwrap().to_string();
    sse(Some(&name), &data.to_string())
}

/// A Messages API stream of `blocks` (each: its start block and its deltas), ending `reason`.
fn anthropic_reply(blocks: Vec<(Value, Vec<Value>)>, reason: &str) -> Reply {
    let mut parts = vec![anthropic_event(
        json!({"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "content": [],
        "model": "claude-test", "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 100, "output_tokens": 1}}}),
    )];
    for (index, (block, deltas)) in blocks.into_iter().enumerate() {
        parts.push(anthropic_event(
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        ));
        for delta in deltas {
            parts.push(anthropic_event(
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        parts.push(anthropic_event(
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    parts.push(anthropic_event(json!({"type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": null}, "usage": {"output_tokens": 20}})));
    parts.push(anthropic_event(json!({"type": "message_stop"})));
    Reply::stream(parts)
}

#[tokio::test]
async fn an_anthropic_turn_reasons_calls_a_tool_and_sends_the_signed_thinking_back() {
    let server = FakeServer::start(vec![
        Reply::json(
            200,
            json!({"data": [{"type": "model", "id": "claude-test",
            "display_name": "Claude Test", "created_at": "2025-01-01T00:00:00Z"}],
            "has_more": false, "first_id": "claude-test", "last_id": "claude-test"}),
        ),
        anthropic_reply(
            vec![
                (
                    json!({"type": "thinking", "thinking": ""}),
                    vec![
                        json!({"type": "thinking_delta", "thinking": "Look first."}),
                        json!({"type": "signature_delta", "signature": "sig-1"}),
                    ],
                ),
                (
                    json!({"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}}),
                    vec![
                        json!({"type": "input_json_delta", "partial_json": "{\"path\": \"hel"}),
                        json!({"type": "input_json_delta", "partial_json": "lo.txt\"}"}),
                    ],
                ),
            ],
            "tool_use",
        ),
        anthropic_reply(
            vec![(
                json!({"type": "text", "text": ""}),
                vec![json!({"type": "text_delta", "text": "It says hello."})],
            )],
            "end_turn",
        ),
    ])
    .await;
    let mut config = ProviderSpec {
        kind: Some("anthropic".into()),
        name: Some("claude".into()),
        base_url: Some(server.url("")),
        ..ProviderSpec::default()
    }
    .validate(1)
    .unwrap();
    config.timeouts.first_byte = Duration::from_secs(5);
    let provider = Provider::with_key(config, ahp_host::providers::Secret::new(KEY)).unwrap();
    let host = start_host_with(move |c| c.providers.push(provider)).await;
    let mut c = Client::ready(&host.host, "client-a").await;
    c.request::<jsonrpc::CreateSession>(CreateSessionParams {
        channel: S.into(),
        provider: Some("claude".into()),
        ..Default::default()
    })
    .await
    .expect("createSession with the provider succeeds");
    c.subscribe(S).await;
    c.send_message(S, "t1", "What does hello.txt say?").await;
    let (_, ready) = c.until_tool_call_ready().await;
    c.dispatch(S, approve("t1", &ready.tool_call_id)).await;
    c.until_turn_end("t1").await;
    let requests: Vec<Value> = server
        .requests()
        .iter()
        .filter(|r| r.target.ends_with("/v1/messages"))
        .map(|r| r.json())
        .collect();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0]["model"], "claude-test",
        "the listed model is the default"
    );
    assert!(requests[0]["system"]
        .as_str()
        .unwrap()
        .contains("## identity"));
    let messages = requests[1]["messages"].as_array().unwrap();
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"][0],
        json!({"type": "thinking", "thinking": "Look first.", "signature": "sig-1"})
    );
    assert_eq!(
        messages[1]["content"][1]["input"],
        json!({"path": "hello.txt"})
    );
    let result = &messages[2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "toolu_1");
    assert!(
        result
            .to_string()
            .contains("hello from the working directory"),
        "{result}"
    );
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    assert_eq!(markdown(&turn.response_parts), "It says hello.");
    assert!(turn
        .response_parts
        .iter()
        .any(|p| matches!(p, ResponsePart::Reasoning(r) if r.content == "Look first.")));
}

#[tokio::test]
async fn ask_mode_offers_the_model_no_tools_and_a_call_it_makes_anyway_fails() {
    let server = FakeServer::start(vec![
        models(),
        tool_reply(&[("call_1", "list_files", r#"{"path": "."}"#)]),
        text_reply("Without tools then."),
    ])
    .await;
    let provider = fake_provider(&server, Some(KEY));
    let host = start_host_with(move |c| c.providers.push(provider)).await;
    let mut c = Client::ready(&host.host, "client-a").await;
    let config = json!({"mode": "ask"}).as_object().unwrap().clone();
    c.request::<jsonrpc::CreateSession>(CreateSessionParams {
        channel: S.into(),
        provider: Some("fake".into()),
        config: Some(config),
        ..Default::default()
    })
    .await
    .expect("createSession in ask mode succeeds");
    c.subscribe(S).await;
    c.send_message(S, "t1", "List the files").await;
    c.until_turn_end("t1").await;
    let requests = chat_requests(&server);
    assert!(requests[0].get("tools").is_none(), "{}", requests[0]);
    // The refused call and its result go back as text, not tool blocks.
    let second = requests[1]["messages"].to_string();
    assert!(!second.contains("tool_call_id"), "{second}");
    assert!(
        second.contains("tools are off in this session's `ask` mode"),
        "{second}"
    );
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    assert!(matches!(tool_calls(turn)[..], [ToolCallState::Completed(ref d)] if !d.success));
    assert_eq!(markdown(&turn.response_parts), "Without tools then.");
}

#[tokio::test]
async fn the_tool_loop_stops_after_8_requests_and_says_so() {
    let mut replies = vec![models()];
    for i in 0..9 {
        let id = format!("call_{i}");
        replies.push(tool_reply(&[(&id, "no_such_tool", "{}")]));
    }
    let server = FakeServer::start(replies).await;
    let (host, mut c) = host_with(&server, Some(KEY)).await;
    c.send_message(S, "t1", "Loop forever").await;
    c.until_turn_end("t1").await;
    assert_eq!(
        chat_requests(&server).len(),
        8,
        "the ninth reply is never asked for"
    );
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    assert_eq!(turn.state, TurnState::Complete);
    assert_eq!(
        tool_calls(turn).len(),
        7,
        "the 8th answer's calls are not run"
    );
    let text = markdown(&turn.response_parts);
    assert!(text.contains("after 8 rounds"), "{text}");
}

#[tokio::test]
async fn a_denied_call_is_told_to_the_model_and_a_client_tool_goes_to_the_active_client() {
    let server = FakeServer::start(vec![
        models(),
        tool_reply(&[("call_1", "write_file", r#"{"path": "x.txt", "text": "hi"}"#)]),
        tool_reply(&[("call_2", "pick_color", r#"{"palette": "warm"}"#)]),
        text_reply("Orange it is."),
    ])
    .await;
    let (host, mut c) = host_with(&server, Some(KEY)).await;
    let claim: StateAction = serde_json::from_value(json!({"type": "session/activeClientChanged",
        "activeClient": {"clientId": "client-a", "tools": [{"name": "pick_color",
            "description": "Asks the user for a color",
            "inputSchema": {"type": "object", "properties": {"palette": {"type": "string"}}}}]}}))
    .unwrap();
    let seq = c.dispatch(S, claim).await;
    c.echo_of(seq).await;
    c.send_message(S, "t1", "Write x.txt, then pick a color")
        .await;
    let (_, ready) = c.until_tool_call_ready().await;
    c.dispatch(S, deny("t1", &ready.tool_call_id)).await;
    let (_, client_call) = c.until_tool_call_ready().await;
    assert_eq!(
        client_call.confirmed,
        Some(ToolCallConfirmationReason::NotNeeded),
        "the client decides about its own tools"
    );
    assert_eq!(
        client_call.tool_input.as_deref(),
        Some(r#"{"palette":"warm"}"#)
    );
    let complete: StateAction = serde_json::from_value(json!({"type": "session/toolCallComplete",
        "turnId": "t1", "toolCallId": client_call.tool_call_id,
        "result": {"success": true, "pastTenseMessage": "Picked",
                   "content": [{"type": "text", "text": "orange"}]}}))
    .unwrap();
    c.dispatch(S, complete).await;
    c.until_turn_end("t1").await;
    assert!(
        !host.work.path().join("x.txt").exists(),
        "the denied write did not run"
    );
    let requests = chat_requests(&server);
    let tools: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"pick_color"), "{tools:?}");
    let results = |i: usize| -> Vec<String> {
        requests[i]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(results(1)[0].contains("denied"), "{:?}", results(1));
    assert_eq!(results(2)[1], "orange");
    let state = host_state(&host.host, S).await;
    let turn = last_turn(&state);
    assert!(matches!(tool_calls(turn)[0], ToolCallState::Cancelled(_)));
    assert_eq!(markdown(&turn.response_parts), "Orange it is.");
}
