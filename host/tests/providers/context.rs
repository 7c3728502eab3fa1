//! The context window through the real host: from the provider's config (`contextWindow`) or
//! the endpoint's model list, shown in root state and used by the trim rule of the
//! conversation sent (`agent/model/history.rs`).

use crate::common::*;
use crate::fake::{FakeServer, Reply};
use crate::host::{chat_requests, model_session, text_reply, S};
use crate::KEY;
use ahp_host::providers::{Provider, ProviderSpec, Secret};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use serde_json::{json, Value};
use std::time::Duration;

/// Each earlier turn: a user message of this many characters and the answer `ok`.
const MESSAGE: usize = 1000;
const TURNS: usize = 5;

fn provider(server: &FakeServer, context_window: Option<u32>) -> Provider {
    let mut config = ProviderSpec {
        kind: Some("openai".into()),
        name: Some("fake".into()),
        base_url: Some(server.url("/v1")),
        models: vec!["test-model".into()],
        context_window,
        ..ProviderSpec::default()
    }
    .validate(1)
    .unwrap();
    config.timeouts.first_byte = Duration::from_secs(5);
    Provider::with_key(config, Secret::new(KEY)).unwrap()
}

/// The model list, `test-model` stating `context_length` when given.
fn listed(context_length: Option<u64>) -> Reply {
    let mut model = json!({"id": "test-model", "object": "model"});
    if let Some(n) = context_length {
        model["context_length"] = n.into();
    }
    Reply::json(200, json!({"object": "list", "data": [model]}))
}

/// Runs [`TURNS`] turns of long messages on a host with `provider`; answers root state's
/// `maxContextWindow` of `test-model` and, for the last request, how many earlier turns it
/// carried and how many the trim rule allows for `window` tokens.
async fn run(server: &FakeServer, provider: Provider, window: u64) -> (Option<f64>, usize, usize) {
    let host = start_host_with(move |c| c.providers.push(provider)).await;
    let mut c = Client::connect(&host.host, "client-a").await;
    let init = c.initialize(&[ROOT_CHANNEL]).await;
    let root = serde_json::to_value(&init).unwrap();
    let shown = root
        .pointer("/snapshots/0/state/agents/1/models/0/maxContextWindow")
        .and_then(Value::as_f64);
    model_session(&mut c).await;
    for i in 0..TURNS {
        let turn = format!("t{i}");
        let text = format!("{i}{}", "a".repeat(MESSAGE - 1));
        c.send_message(S, &turn, &text).await;
        c.until_turn_end(&turn).await;
    }
    let requests = chat_requests(server);
    assert_eq!(requests.len(), TURNS);
    let last = requests[TURNS - 1]["messages"].as_array().unwrap().clone();
    let users: Vec<&str> = last
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    // Whole turns, newest kept: the earlier user messages are the last ones before this.
    let carried = users.len() - 1;
    for (k, text) in users[..carried].iter().enumerate() {
        let i = TURNS - 1 - carried + k;
        assert!(text.starts_with(&i.to_string()), "turn {i} is out of order");
    }
    // The rule: 9/4 characters a token; the system message and the new message count first,
    // then each earlier turn (its message and the answer `ok`).
    let system = last[0]["content"].as_str().unwrap().chars().count();
    let budget = (window as usize) * 9 / 4;
    let reserved = system + MESSAGE;
    let allowed = budget.saturating_sub(reserved) / (MESSAGE + 2);
    (shown, carried, allowed.min(TURNS - 1))
}

/// A window that leaves room for about two earlier turns next to `system` characters.
fn window_for(system: usize) -> u64 {
    (((system + MESSAGE) + 2 * (MESSAGE + 2) + MESSAGE / 2) * 4 / 9) as u64
}

/// The system message's length as sent (the same for every host of these tests).
async fn system_len() -> usize {
    let server = FakeServer::start(vec![listed(None), text_reply("ok")]).await;
    let host = start_host_with({
        let p = provider(&server, None);
        move |c| c.providers.push(p)
    })
    .await;
    let mut c = Client::ready(&host.host, "client-a").await;
    model_session(&mut c).await;
    c.send_message(S, "t0", "hi").await;
    c.until_turn_end("t0").await;
    chat_requests(&server)[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .chars()
        .count()
}

fn replies(list: Reply) -> Vec<Reply> {
    let mut out = vec![list];
    out.extend((0..TURNS).map(|_| text_reply("ok")));
    out
}

#[tokio::test]
async fn a_configured_context_window_is_shown_and_trims_the_conversation_sent() {
    let window = window_for(system_len().await);
    // The endpoint states a larger window: the configured one wins.
    let server = FakeServer::start(replies(listed(Some(1_000_000)))).await;
    let (shown, carried, allowed) =
        run(&server, provider(&server, Some(window as u32)), window).await;
    assert_eq!(shown, Some(window as f64));
    assert_eq!(carried, allowed, "the trim rule for {window} tokens");
    assert!(
        (1..TURNS - 1).contains(&carried),
        "some turns were left out, some kept: {carried}"
    );
}

#[tokio::test]
async fn the_endpoint_s_context_length_is_used_when_none_is_configured() {
    let window = window_for(system_len().await);
    let server = FakeServer::start(replies(listed(Some(window)))).await;
    let (shown, carried, allowed) = run(&server, provider(&server, None), window).await;
    assert_eq!(shown, Some(window as f64));
    assert_eq!(carried, allowed, "the trim rule for {window} tokens");
    assert!((1..TURNS - 1).contains(&carried), "{carried}");
}

#[tokio::test]
async fn without_a_known_window_the_default_budget_keeps_these_turns() {
    let server = FakeServer::start(replies(listed(None))).await;
    // 24 000 characters: every earlier turn (4 × 1002) fits next to the system message.
    let (shown, carried, _) = run(&server, provider(&server, None), 24_000 * 4 / 9).await;
    assert_eq!(shown, None);
    assert_eq!(carried, TURNS - 1);
}
