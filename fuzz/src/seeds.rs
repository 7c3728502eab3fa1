//! The seed corpus, derived from the conformance fixtures (`protocol/ahp-0.3.0/conformance`).
//! Regenerate with `cargo test -p ahp-host --test fuzz_corpus -- --ignored write_seeds`.

use ahp_wasm::protocol::jsonrpc::{self, methods, RequestId, REQUEST_METHODS, ROOT_CHANNEL};
use ahp_wasm::protocol::{ActionEnvelope, ActionOrigin, StateAction};
use serde_json::{json, Value};
use std::path::Path;

/// One fixture: (file stem, reducer, initial state, actions).
pub struct Fixture {
    pub name: String,
    pub reducer: String,
    pub initial: Value,
    pub actions: Vec<Value>,
}

/// The fixtures in `dir`, sorted by name.
pub fn fixtures(dir: &Path) -> Vec<Fixture> {
    let mut out: Vec<Fixture> = std::fs::read_dir(dir)
        .expect("the fixture directory")
        .map(|entry| {
            let path = entry.expect("an entry").path();
            let text = std::fs::read_to_string(&path).expect("a fixture");
            let v: Value = serde_json::from_str(&text).expect("fixture JSON");
            Fixture {
                name: path.file_stem().unwrap().to_string_lossy().into_owned(),
                reducer: v["reducer"].as_str().unwrap_or_default().to_string(),
                initial: v["initial"].clone(),
                actions: v["actions"].as_array().cloned().unwrap_or_default(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn channel_for(reducer: &str) -> &'static str {
    match reducer {
        "session" => "ahp-session:/a",
        "terminal" => "ahp-terminal:/a",
        "changeset" => "ahp-changeset:/a",
        "resourceWatch" => "ahp-resource-watch:/a",
        _ => ROOT_CHANNEL,
    }
}

/// (file name, contents) for every seed of `target`.
pub fn seeds(target: &str, fixtures: &[Fixture]) -> Vec<(String, Vec<u8>)> {
    match target {
        "frame" => frame_seeds(fixtures),
        "reducers" => fixtures
            .iter()
            .map(|f| {
                let mut text = format!("{}\n{}\n", f.reducer, f.initial);
                for a in &f.actions {
                    text.push_str(&format!("{a}\n"));
                }
                (f.name.clone(), text.into_bytes())
            })
            .collect(),
        "mirror" => fixtures.iter().enumerate().map(mirror_seed).collect(),
        "host" => host_seeds(fixtures),
        _ => Vec::new(),
    }
}

fn frame_seeds(fixtures: &[Fixture]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (i, f) in fixtures.iter().enumerate() {
        let Some(action) = f.actions.first() else {
            continue;
        };
        let channel = channel_for(&f.reducer);
        let text = match i % 3 {
            // The canonical `action` notification (the engine's fast path when a delta).
            0 => match serde_json::from_value::<StateAction>(action.clone()) {
                Ok(action) => {
                    let envelope = ActionEnvelope {
                        channel: channel.into(),
                        action,
                        server_seq: i as u64 + 1,
                        origin: (i % 2 == 0).then(|| ActionOrigin {
                            client_id: "c".into(),
                            client_seq: 3,
                            extra: Default::default(),
                        }),
                        rejection_reason: None,
                        extra: Default::default(),
                    };
                    jsonrpc::notification_text(methods::ACTION, &envelope)
                }
                Err(_) => continue,
            },
            1 => jsonrpc::notification_text(
                methods::DISPATCH_ACTION,
                &json!({"channel": channel, "clientSeq": i, "action": action}),
            ),
            _ => jsonrpc::request_text(
                RequestId::Number(i as i64),
                methods::DISPATCH_ACTION,
                &json!({"channel": channel, "clientSeq": i, "action": action}),
            ),
        };
        out.push((f.name.clone(), text.into_bytes()));
    }
    // Streamed text: the delta fast path, with and without escapes and an origin.
    for (i, content) in ["Hello ", "a \"quoted\" }\\n", "\u{e9}\u{1F642}"]
        .iter()
        .enumerate()
    {
        let envelope = json!({"channel": "ahp-session:/a", "action": {"type": "session/delta",
            "turnId": "turn-1", "partId": "md-1", "content": content}, "serverSeq": 7 + i,
            "origin": {"clientId": "c", "clientSeq": i}});
        let text = jsonrpc::notification_text(methods::ACTION, &envelope);
        out.push((format!("delta-{i}"), text.into_bytes()));
    }
    // Every request method, with typical params; responses; malformed frames.
    for (i, method) in REQUEST_METHODS.iter().enumerate() {
        let params = json!({"channel": ROOT_CHANNEL, "protocolVersions": ["0.3.0"],
            "clientId": "c", "uri": "file:///hello.txt", "lastSeenServerSeq": 0,
            "subscriptions": [ROOT_CHANNEL]});
        let text = jsonrpc::request_text(RequestId::Number(i as i64 + 1), method, &params);
        out.push((format!("request-{method}"), text.into_bytes()));
    }
    for (name, text) in [
        ("response-ok", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        (
            "response-error",
            r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"no","data":[1]}}"#,
        ),
        (
            "unsubscribe",
            r#"{"jsonrpc":"2.0","method":"unsubscribe","params":{"channel":"ahp-session:/a"}}"#,
        ),
        ("bad-version", r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#),
        ("bad-json", r#"{"jsonrpc":"2.0","id":4,"method":"ping""#),
        ("nested", r#"{"a":[[[[{"b":"[[["}]]]]}"#),
    ] {
        out.push((name.to_string(), text.as_bytes().to_vec()));
    }
    out
}

fn mirror_seed((i, f): (usize, &Fixture)) -> (String, Vec<u8>) {
    let window = if i % 3 == 0 { 2 } else { 1000 };
    let policy = if i % 2 == 0 { "resend" } else { "drop" };
    let mut text = format!("{} {window} {policy}\n{}\n", f.reducer, f.initial);
    for (j, a) in f.actions.iter().enumerate() {
        let op = if j % 3 == 1 { 'f' } else { 'd' };
        text.push_str(&format!("{op}{} {a}\n", j % 2));
        match j % 4 {
            0 => text.push_str("s2\n"),
            1 => text.push_str("c3\n"),
            2 if i % 5 == 0 => text.push_str("x\n"),
            _ => {}
        }
    }
    (f.name.clone(), text.into_bytes())
}

fn host_seeds(fixtures: &[Fixture]) -> Vec<(String, Vec<u8>)> {
    let s = "ahp-session:/fuzz";
    let frame = |id: i64, method: &str, params: Value| {
        jsonrpc::request_text(RequestId::Number(id), method, &params)
    };
    let prelude = [
        frame(
            1,
            "initialize",
            json!({"protocolVersions": ["0.3.0"], "clientId": "fuzz-client",
            "initialSubscriptions": [ROOT_CHANNEL]}),
        ),
        frame(2, "createSession", json!({"channel": s})),
        frame(3, "subscribe", json!({"channel": s})),
    ]
    .join("\n");
    let mut out = Vec::new();
    for f in fixtures
        .iter()
        .filter(|f| f.reducer == "session")
        .step_by(4)
    {
        let mut text = prelude.clone();
        for (j, a) in f.actions.iter().enumerate() {
            let params = json!({"channel": s, "clientSeq": j + 1, "action": a});
            text.push('\n');
            text.push_str(&jsonrpc::notification_text(
                methods::DISPATCH_ACTION,
                &params,
            ));
        }
        out.push((f.name.clone(), text.into_bytes()));
    }
    let others = [
        (
            "turn",
            format!(
                "{prelude}\n{}",
                jsonrpc::notification_text(
                    methods::DISPATCH_ACTION,
                    &json!({"channel": s, "clientSeq": 1, "action": {"type": "session/turnStarted",
            "turnId": "t1", "message": {"text": "hello", "origin": {"kind": "user"}}}})
                )
            ),
        ),
        (
            "resources",
            [
                frame(
                    1,
                    "initialize",
                    json!({"protocolVersions": ["0.3.0"], "clientId": "r"}),
                ),
                frame(
                    2,
                    "resourceList",
                    json!({"channel": ROOT_CHANNEL, "uri": "file:///"}),
                ),
                frame(
                    3,
                    "resourceRead",
                    json!({"channel": ROOT_CHANNEL, "uri": "file:///hello.txt"}),
                ),
                frame(
                    4,
                    "resourceWrite",
                    json!({"channel": ROOT_CHANNEL, "uri": "file:///sub/x.txt",
                "data": "aGk=", "encoding": "base64"}),
                ),
            ]
            .join("\n"),
        ),
        (
            "reconnect",
            frame(
                1,
                "reconnect",
                json!({"clientId": "fuzz-client",
            "lastSeenServerSeq": 0, "subscriptions": [ROOT_CHANNEL, s]}),
            ),
        ),
        (
            "queries",
            [
                prelude.clone(),
                frame(4, "listSessions", json!({"channel": ROOT_CHANNEL})),
                frame(5, "fetchTurns", json!({"channel": s, "limit": 2})),
                jsonrpc::notification_text(methods::UNSUBSCRIBE, &json!({"channel": s})),
                frame(6, "disposeSession", json!({"channel": s})),
            ]
            .join("\n"),
        ),
        (
            "garbage",
            "not json\n{\"jsonrpc\":\"2.0\"}\n[1,2]\n\u{1}\u{ff}".to_string(),
        ),
        (
            "unsupported",
            frame(
                1,
                "initialize",
                json!({"protocolVersions": ["9.9.9"],
            "clientId": "old"}),
            ),
        ),
    ];
    for (name, text) in others {
        out.push((name.to_string(), text.into_bytes()));
    }
    out
}
