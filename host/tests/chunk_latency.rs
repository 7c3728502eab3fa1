//! The host's cost per streamed chunk of a model provider, measured (not bounded: timings
//! belong in reports, not in tests that fail on a busy machine). 400 text chunks, 2 ms apart,
//! go from the fake endpoint's socket write to the subscriber's decoded envelope; the host's
//! probe (`ahp_host::probe`) timestamps each on the way, so the output says which part is
//! the host's (HTTP read and SSE decode, agent task, hub, WebSocket write) and which is the
//! test client's (loopback read and JSON decode).
//!
//! Two layouts, one after the other: everything on one current-thread runtime (how a
//! `#[tokio::test]` runs: the fake endpoint, the host and the client share one thread), and
//! the deployed one (the host on a multi-thread runtime like `ahp-host`'s, the fake endpoint
//! and the client on threads of their own). Its own test binary: the probe is process-wide.
//!
//! `cargo test --release -p ahp-host --test chunk_latency -- --nocapture`

#[path = "common/mod.rs"]
mod common;
#[allow(dead_code)]
#[path = "providers/fake.rs"]
mod fake;

use ahp_host::probe::{self, Stage};
use ahp_host::providers::{Provider, ProviderSpec, Secret};
use ahp_wasm::protocol::jsonrpc;
use ahp_wasm::protocol::*;
use common::*;
use fake::{sse, End, FakeServer, Reply};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const S: &str = "ahp-session:/latency";
const N: usize = 400;

fn chunk(delta: Value, finish: Option<&str>) -> Vec<u8> {
    let data = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
    });
    sse(None, &data.to_string())
}

/// The model list, then one stream of [`N`] text chunks.
fn replies() -> Vec<Reply> {
    let models = Reply::json(
        200,
        json!({"object": "list", "data": [{"id": "test-model", "object": "model"}]}),
    );
    let mut parts = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    parts.extend((0..N).map(|i| chunk(json!({"content": format!("{i} ")}), None)));
    parts.push(chunk(json!({}), Some("stop")));
    parts.push(b"data: [DONE]\n\n".to_vec());
    let stream = Reply::Stream {
        parts,
        delay: Duration::from_millis(2),
        end: End::Complete,
    };
    vec![models, stream]
}

fn provider(server: &FakeServer) -> Provider {
    let mut config = ProviderSpec {
        kind: Some("openai".into()),
        name: Some("fake".into()),
        base_url: Some(server.url("/v1")),
        models: vec!["test-model".into()],
        ..ProviderSpec::default()
    }
    .validate(1)
    .unwrap();
    config.timeouts.first_byte = Duration::from_secs(5);
    Provider::with_key(config, Secret::new("sk-latency")).unwrap()
}

/// When the client read each `session/delta` frame off its socket, and when it had decoded it.
struct Received {
    read: Vec<Instant>,
    decoded: Vec<Instant>,
}

/// A client in a new session of the provider: one turn, its deltas timed.
async fn client_turn(host: &ahp_host::RunningHost) -> Received {
    let mut c = Client::ready(host, "latency").await;
    c.request::<jsonrpc::CreateSession>(CreateSessionParams {
        channel: S.into(),
        provider: Some("fake".into()),
        ..Default::default()
    })
    .await
    .expect("createSession with the provider succeeds");
    c.subscribe(S).await;
    c.send_message(S, "t1", "Count").await;
    let (mut read, mut decoded) = (Vec::with_capacity(N), Vec::with_capacity(N));
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        let (at, text) = c.raw_text().await.expect("the connection stays open");
        let frame: Value = serde_json::from_str(&text).expect("a JSON frame");
        if frame["method"] != "action" {
            continue;
        }
        let envelope: ActionEnvelope = serde_json::from_value(frame["params"].clone()).unwrap();
        match &envelope.action {
            StateAction::SessionDelta(_) => {
                read.push(at);
                decoded.push(Instant::now());
            }
            StateAction::SessionTurnComplete(_) | StateAction::SessionError(_) => break,
            _ => {}
        }
    }
    Received { read, decoded }
}

/// One stage's durations, chunk by chunk.
struct Span {
    name: &'static str,
    host: bool,
    took: Vec<Duration>,
}

fn span(name: &'static str, host: bool, from: &[Instant], to: &[Instant]) -> Span {
    assert_eq!(from.len(), N, "{name}: marks before");
    assert_eq!(to.len(), N, "{name}: marks after");
    let took = from
        .iter()
        .zip(to)
        .map(|(a, b)| b.saturating_duration_since(*a))
        .collect();
    Span { name, host, took }
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

/// Prints p50/p90/p99/max of each stage and of the totals, and, for the chunks over 1 ms in
/// the host, which stage took longest. Answers the host's p50 and p99.
fn report(
    layout: &str,
    writes: &[Instant],
    marks: &[Vec<Instant>],
    got: &Received,
) -> [Duration; 2] {
    let [decoded, agent_got, agent_sent, queued, writer_got, flushed] = marks else {
        unreachable!()
    };
    // The first write is the role-only chunk: delta i came with write i + 1.
    let written = &writes[1..=N];
    let spans = [
        span("socket → SSE event decoded", true, written, decoded),
        span("event → agent task", true, decoded, agent_got),
        span("agent task → hub", true, agent_got, agent_sent),
        span(
            "hub: wake, apply, SQLite commit, queue",
            true,
            agent_sent,
            queued,
        ),
        span("queue → WebSocket writer task", true, queued, writer_got),
        span("writer → flushed", true, writer_got, flushed),
        span(
            "flushed → client read (loopback)",
            false,
            flushed,
            &got.read,
        ),
        span("client JSON decode", false, &got.read, &got.decoded),
    ];
    let host = span("HOST: socket write → frame flushed", true, written, flushed);
    let whole = span(
        "ALL: socket write → client decoded",
        false,
        written,
        &got.decoded,
    );
    eprintln!("\nper-chunk latency, {layout} ({N} chunks, ms):");
    eprintln!(
        "{:<40} {:>8} {:>8} {:>8} {:>8}",
        "stage", "p50", "p90", "p99", "max"
    );
    for s in spans.iter().chain([&host, &whole]) {
        let mut sorted = s.took.clone();
        sorted.sort();
        let who = if s.host { "host" } else { "test" };
        eprintln!(
            "{:<42} {:>8} {:>8} {:>8} {:>8}  ({who})",
            s.name,
            ms(percentile(&sorted, 50)),
            ms(percentile(&sorted, 90)),
            ms(percentile(&sorted, 99)),
            ms(*sorted.last().unwrap())
        );
    }
    let mut blame = std::collections::BTreeMap::<&str, usize>::new();
    for i in (0..N).filter(|&i| host.took[i] > Duration::from_millis(1)) {
        let worst = spans[..6].iter().max_by_key(|s| s.took[i]).unwrap();
        *blame.entry(worst.name).or_default() += 1;
    }
    eprintln!(
        "host over 1 ms: {} chunks; longest stage of each: {blame:?}",
        blame.values().sum::<usize>()
    );
    let mut sorted = host.took.clone();
    sorted.sort();
    [percentile(&sorted, 50), percentile(&sorted, 99)]
}

const STAGES: [Stage; 6] = [
    Stage::Decoded,
    Stage::AgentGot,
    Stage::AgentSent,
    Stage::Queued,
    Stage::WriterGot,
    Stage::Flushed,
];

/// The stages follow each other: every chunk passes each mark once, in order.
fn check_order(marks: &[Vec<Instant>]) {
    for stage in marks {
        assert_eq!(stage.len(), N, "one mark per chunk: {}", stage.len());
        assert!(
            stage.windows(2).all(|w| w[0] <= w[1]),
            "marks in chunk order"
        );
    }
}

#[test]
fn the_host_adds_little_per_streamed_chunk() {
    // 1. All on one current-thread runtime, as `#[tokio::test]` runs.
    let shared = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (writes, marks, got) = shared.block_on(async {
        let server = FakeServer::start(replies()).await;
        let provider = provider(&server);
        let host = start_host_with(move |c| c.providers.push(provider)).await;
        probe::enable();
        let got = client_turn(&host.host).await;
        (server.writes(), probe::take(&STAGES), got)
    });
    check_order(&marks);
    let one = report(
        "one runtime for endpoint, host and client",
        &writes,
        &marks,
        &got,
    );

    // 2. As deployed: the host on a multi-thread runtime, the endpoint and the client apart.
    let host_runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = FakeServer::start_on_own_thread(replies());
    let provider = provider(&server);
    let host = host_runtime.block_on(start_host_with(move |c| c.providers.push(provider)));
    probe::enable();
    let got = shared.block_on(client_turn(&host.host));
    let marks = probe::take(&STAGES);
    check_order(&marks);
    let apart = report(
        "host on its own multi-thread runtime",
        &server.writes(),
        &marks,
        &got,
    );
    eprintln!(
        "\nthe host's part (socket write → frame flushed), p50 / p99 ms: one runtime {} / {}, \
         apart {} / {}",
        ms(one[0]),
        ms(one[1]),
        ms(apart[0]),
        ms(apart[1])
    );
    host_runtime.block_on(async move { drop(host) });
}
