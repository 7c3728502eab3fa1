//! Upgrade checks (token, Origin) and `initialize` (snapshots, version negotiation).

mod common;

use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::{errors, SnapshotState};
use common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn initialize_with_the_token_returns_snapshots() {
    let t = start_host().await;
    let mut c = Client::connect(&t.host, "c1").await;
    let result = c.initialize(&[ROOT_CHANNEL]).await;
    assert_eq!(result.protocol_version, "0.3.0");
    assert_eq!(result.snapshots.len(), 1);
    let snap = &result.snapshots[0];
    assert_eq!(snap.resource, ROOT_CHANNEL);
    assert_eq!(snap.from_seq, result.server_seq);
    match &snap.state {
        SnapshotState::Root(root) => {
            assert_eq!(root.agents.len(), 1);
            assert_eq!(root.agents[0].provider, "builtin");
            assert_eq!(root.active_sessions, Some(0.0));
        }
        other => panic!("root snapshot expected, got {other:?}"),
    }
    assert!(result.default_directory.unwrap().starts_with("file:///"));
    // A second initialize on the same connection is refused.
    c.expect_error(
        "initialize",
        json!({"channel": ROOT_CHANNEL, "protocolVersions": ["0.3.0"], "clientId": "c1"}),
        errors::INVALID_REQUEST,
    )
    .await;
}

#[tokio::test]
async fn bearer_header_is_accepted_too() {
    let t = start_host().await;
    let auth = format!("Bearer {}", t.host.token().expose());
    let ws = try_connect(&t.host.ws_url(), &[("authorization", auth.as_str())])
        .await
        .expect("bearer token accepted");
    let mut c = Client::from_ws(ws, "c2");
    c.initialize(&[]).await;
}

#[tokio::test]
async fn wrong_or_missing_token_is_401() {
    let t = start_host().await;
    let url = t.host.ws_url();
    assert_eq!(try_connect(&url, &[]).await.err(), Some(401));
    let wrong = format!("{url}?tkn=not-the-token-at-all");
    assert_eq!(try_connect(&wrong, &[]).await.err(), Some(401));
    assert_eq!(
        try_connect(&url, &[("authorization", "Bearer nope-nope-nope-nope")])
            .await
            .err(),
        Some(401)
    );
}

#[tokio::test]
async fn foreign_origin_is_403_own_origin_is_fine() {
    let t = start_host().await;
    let url = url_with_token(&t.host);
    assert_eq!(origin_refused(&url, "http://evil.example").await, Some(403));
    let own = format!("http://{}", t.host.addr);
    assert_eq!(origin_refused(&url, &own).await, None);
    let localhost = format!("http://localhost:{}", t.host.addr.port());
    assert_eq!(origin_refused(&url, &localhost).await, None);
}

#[tokio::test]
async fn allow_origin_flag_admits_that_origin() {
    let t = start_host_with(|c| c.allow_origins = vec!["http://dev.example:5173".into()]).await;
    let url = url_with_token(&t.host);
    assert_eq!(origin_refused(&url, "http://dev.example:5173").await, None);
    assert_eq!(
        origin_refused(&url, "http://dev.example:5174").await,
        Some(403)
    );
}

/// The HTTP status the host refuses a WebSocket upgrade from `origin` with; `None` when it
/// accepts it.
async fn origin_refused(url: &str, origin: &str) -> Option<u16> {
    try_connect(url, &[("origin", origin)]).await.err()
}

#[tokio::test]
async fn no_common_version_is_32005_and_closes() {
    let t = start_host().await;
    let mut c = Client::connect(&t.host, "old").await;
    let e = c.expect_error("initialize", json!({"channel": ROOT_CHANNEL, "protocolVersions": ["0.1.0", "9.0.0"], "clientId": "old"}), errors::UNSUPPORTED_PROTOCOL_VERSION).await;
    // Both versions this host serves (1.0.0: `hub/v1.rs`).
    assert_eq!(
        e.data.unwrap()["supportedVersions"],
        json!(["1.0.0", "0.3.0"])
    );
    c.assert_closed("the host closes the connection").await;
}

#[tokio::test]
async fn the_highest_offered_version_of_a_served_range_is_chosen() {
    let t = start_host().await;
    let init = |id: &str, versions: Value| json!({"channel": ROOT_CHANNEL, "protocolVersions": versions, "clientId": id});
    // A newer 1.x patch or minor is served with 1.0.0's semantics (SemVer: same MAJOR >= 1);
    // the highest wins whatever the order; the answer is one of the offered entries.
    for (n, (offered, chosen)) in [
        (json!(["0.3.0", "1.0.0"]), "1.0.0"),
        (json!(["1.0.2"]), "1.0.2"),
        (json!(["1.0.0", "0.3.0", "1.2.0"]), "1.2.0"),
        (json!(["2.0.0", "0.3.1"]), "0.3.1"),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("ranges-{n}");
        let mut c = Client::connect(&t.host, &id).await;
        let result = c.call("initialize", init(&id, offered.clone())).await;
        let result = result.unwrap_or_else(|e| panic!("{offered}: {e:?}"));
        assert_eq!(result["protocolVersion"], chosen, "{offered}: {result}");
        let v1 = chosen.starts_with("1.");
        // 1.0's shapes (its session list) or 0.3.0's.
        let list = c
            .call("listSessions", json!({"channel": ROOT_CHANNEL}))
            .await
            .unwrap();
        assert_eq!(list, json!({"items": []}), "{offered}");
        // A second `initialize` (or `reconnect`) is refused alike in both versions, and the
        // connection stays.
        let again = [
            ("initialize", init(&id, json!(["1.0.0"]))),
            (
                "reconnect",
                json!({"channel": ROOT_CHANNEL, "clientId": id, "lastSeenServerSeq": 0,
                       "subscriptions": []}),
            ),
        ];
        for (method, params) in again {
            let e = c
                .expect_error(method, params, errors::INVALID_REQUEST)
                .await;
            assert_eq!(
                e.message, "already initialized",
                "{offered} {method} v1={v1}"
            );
        }
        assert_eq!(
            c.call("ping", json!({"channel": ROOT_CHANNEL}))
                .await
                .unwrap(),
            Value::Null
        );
    }
    // Malformed and out-of-range offers: -32005 with the supported versions.
    let mut c = Client::connect(&t.host, "ranges-bad").await;
    let offered = json!(["1.0", "1.0.0-rc.1", "v1.0.0", "0.4.0", "2.0.0"]);
    let e = c
        .expect_error(
            "initialize",
            init("ranges-bad", offered),
            errors::UNSUPPORTED_PROTOCOL_VERSION,
        )
        .await;
    assert_eq!(
        e.data.unwrap()["supportedVersions"],
        json!(["1.0.0", "0.3.0"])
    );
}

#[tokio::test]
async fn ping_before_initialize_and_commands_need_initialize() {
    let t = start_host().await;
    let mut c = Client::connect(&t.host, "early").await;
    assert_eq!(
        c.call("ping", json!({"channel": ROOT_CHANNEL}))
            .await
            .unwrap(),
        Value::Null
    );
    c.expect_error(
        "listSessions",
        json!({"channel": ROOT_CHANNEL}),
        errors::INVALID_REQUEST,
    )
    .await;
    c.initialize(&[]).await;
    let list = c
        .call("listSessions", json!({"channel": ROOT_CHANNEL}))
        .await
        .unwrap();
    assert_eq!(list, json!({"items": []}));
}

#[tokio::test]
async fn the_page_is_served() {
    let t = start_host().await;
    // A plain HTTP GET over a raw socket (no HTTP client dependency needed).
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(t.host.addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut body = String::new();
    s.read_to_string(&mut body).await.unwrap();
    assert!(body.starts_with("HTTP/1.1 200"), "{body}");
    assert!(body.contains("<html"), "{body}");
}

/// A plain GET of `/ahp` (what the SDK sends after a failed upgrade, since browsers hide the
/// status): `(status, error, allow-origin header)`.
async fn plain_get(
    host: &ahp_host::RunningHost,
    query: &str,
    origin: Option<&str>,
) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(host.addr).await.unwrap();
    let origin = origin
        .map(|o| format!("Origin: {o}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "GET /ahp{query} HTTP/1.1\r\nHost: {}\r\n{origin}Connection: close\r\n\r\n",
        host.addr
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    tcp.read_to_string(&mut response).await.unwrap();
    let status: u16 = response[9..12].parse().unwrap();
    let header = |name: &str| {
        response
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix(&format!("{name}: "))
                    .map(str::to_string)
            })
            .unwrap_or_default()
    };
    let allow_origin = header("access-control-allow-origin");
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    let json: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|_| panic!("JSON body, got {response}"));
    (
        status,
        json["error"].as_str().unwrap().to_string(),
        allow_origin,
    )
}

#[tokio::test]
async fn a_plain_get_of_the_endpoint_says_why_in_json() {
    let t = start_host().await;
    let token = format!("?tkn={}", t.host.token().expose());
    let cases = [
        ("", None, 401, "unauthorized"),
        ("?tkn=not-the-token-at-all", None, 401, "unauthorized"),
        (
            token.as_str(),
            Some("http://evil.example"),
            403,
            "forbiddenOrigin",
        ),
        (token.as_str(), None, 426, "upgradeRequired"),
    ];
    for (query, origin, status, error) in cases {
        let got = plain_get(&t.host, query, origin).await;
        assert_eq!(
            (got.0, got.1.as_str(), got.2.as_str()),
            (status, error, "*"),
            "{query} {origin:?}"
        );
    }
    // The answer names no token.
    let (_, error, _) = plain_get(&t.host, &token, None).await;
    assert!(!error.contains(t.host.token().expose()));
}
