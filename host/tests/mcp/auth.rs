//! Servers that need a token (`auth_http.mjs`): authRequired, authenticate.

use super::*;

/// The `auth_http.mjs` fixture (a streamable-HTTP server that wants `Bearer s3cret`), listening
/// on a free port.
async fn auth_fixture() -> (Killed, u16) {
    let port = free_port();
    let server = Killed(
        std::process::Command::new("node")
            .arg(fixture("auth_http.mjs"))
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("node runs"),
    );
    let deadline = Instant::now() + WAIT;
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "the HTTP server never listened");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (server, port)
}

fn auth_state(m: &McpServerCustomization) -> &McpServerAuthRequiredState {
    match &m.state {
        McpServerState::AuthRequired(a) => a,
        other => panic!("{} is not authRequired: {other:?}", m.id),
    }
}

async fn authenticate(
    c: &mut Client,
    resource: &str,
    token: &str,
) -> Result<Value, jsonrpc::ErrorObject> {
    let params = json!({"channel": "ahp-root://", "resource": resource, "token": token});
    c.call("authenticate", params).await
}

/// The first file under `dir` that contains `needle`.
fn found_in(dir: &Path, needle: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir).unwrap().find_map(|entry| {
        let path = entry.unwrap().path();
        if path.is_dir() {
            return found_in(&path, needle);
        }
        let bytes = std::fs::read(&path).unwrap();
        bytes
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
            .then_some(path)
    })
}

#[tokio::test]
async fn a_server_that_needs_a_token_waits_in_auth_required_until_authenticate() {
    let (_server, port) = auth_fixture().await;
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let (data, work, logs) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let bare = format!("http://127.0.0.1:{port}/bare");
    write_mcp_json(
        work.path(),
        json!({"secure": {"url": resource}, "bare": {"url": bare}}),
    );
    let log = || {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(logs.path().join("host.log"))
            .unwrap()
    };
    let host_token = "auth-test-host-token-0123456789";
    let spawn = || HostProcess::spawn_with_stderr(data.path(), work.path(), host_token, &[], log());
    let host = spawn();
    let mut c = Client::connect_url(&host.url(), "auth-a").await;
    c.initialize(&["ahp-root://"]).await;
    c.create_session(S).await;
    let mut mirror = session_state(&c.subscribe(S).await);
    // A second client watches the session the whole time.
    let mut other = Client::connect_url(&host.url(), "auth-b").await;
    other.initialize(&["ahp-root://", S]).await;

    // Refused at `initialize`: authRequired, with the metadata the challenge points at.
    let m = until_state(&mut c, &mut mirror, "mcp/secure", "authRequired").await;
    let needs = auth_state(&m);
    assert_eq!(needs.reason, McpAuthRequiredReason::Required);
    assert_eq!(needs.resource.resource, resource);
    assert_eq!(needs.resource.resource_name.as_deref(), Some("Fixture MCP"));
    assert_eq!(
        needs.resource.authorization_servers,
        Some(vec!["https://auth.example".to_owned()])
    );
    assert_eq!(needs.required_scopes, Some(vec!["tools:read".to_owned()]));
    assert!(m.channel.is_none());
    // A 401 without a challenge, and metadata naming another resource (…/mcp): the server's own
    // URL stands in.
    let m = until_state(&mut c, &mut mirror, "mcp/bare", "authRequired").await;
    assert_eq!(auth_state(&m).resource.resource, bare);
    assert_eq!(auth_state(&m).resource.authorization_servers, None);
    assert!(!tool_names(&mirror)
        .iter()
        .any(|n| n.starts_with("mcp__secure__")));

    // A token for a resource no server asked for, or on another channel: InvalidParams.
    let e = authenticate(&mut c, "https://elsewhere.example/mcp", "s3cret")
        .await
        .unwrap_err();
    assert_eq!(e.code, errors::INVALID_PARAMS, "{e:?}");
    assert!(e.message.contains("no MCP server"), "{e:?}");
    let e = c
        .call(
            "authenticate",
            json!({"channel": S, "resource": resource, "token": "s3cret"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, errors::INVALID_PARAMS, "{e:?}");

    // A wrong token: AuthRequired; the server is tried with it and stays authRequired.
    let e = authenticate(&mut c, &resource, "wrong-token")
        .await
        .unwrap_err();
    assert_eq!(e.code, errors::AUTH_REQUIRED, "{e:?}");
    assert!(
        e.message.contains("refused by MCP server `secure`"),
        "{e:?}"
    );
    assert_eq!(
        e.data.unwrap()["resources"][0]["resource"],
        resource.as_str()
    );
    settle(&mut c, &mut mirror).await;
    let m = mcp_server(&mirror, "mcp/secure").unwrap();
    assert_eq!(auth_state(m).reason, McpAuthRequiredReason::Required);
    assert_eq!(
        auth_state(m).description.as_deref(),
        Some("The access token is invalid")
    );

    // The right token: `{}`, ready, its tools listed and callable.
    let ok = authenticate(&mut c, &resource, "s3cret")
        .await
        .expect("accepted");
    assert_eq!(ok, json!({}));
    settle(&mut c, &mut mirror).await;
    let m = mcp_server(&mirror, "mcp/secure").unwrap();
    assert_eq!(kind(&m.state), "ready", "{m:?}");
    assert!(tool_names(&mirror).contains(&"mcp__secure__whoami".to_owned()));
    let (_, whoami, _) = mcp_turn(&mut c, &mut mirror, "t1", "/mcp secure whoami").await;
    assert_eq!(result_text(&whoami), "authorized");

    // Mid-session the token stops working: the call fails saying so, the server is
    // authRequired (`expired`: the token had worked) and a new token brings it back.
    let (_, rotated, _) = mcp_turn(&mut c, &mut mirror, "t2", "/mcp secure rotate").await;
    assert_eq!(result_text(&rotated), "rotated");
    let (_, refused, _) = mcp_turn(&mut c, &mut mirror, "t3", "/mcp secure whoami").await;
    assert_failed(&refused, "authenticate");
    let m = until_state(&mut c, &mut mirror, "mcp/secure", "authRequired").await;
    assert_eq!(auth_state(&m).reason, McpAuthRequiredReason::Expired);
    assert!(!tool_names(&mirror)
        .iter()
        .any(|n| n.starts_with("mcp__secure__")));
    authenticate(&mut c, &resource, "s3cret-2")
        .await
        .expect("accepted");
    settle(&mut c, &mut mirror).await;
    assert_eq!(
        kind(&mcp_server(&mirror, "mcp/secure").unwrap().state),
        "ready"
    );

    // The token is kept for its resource: the same server in a new session uses it.
    let mut third = Client::connect_url(&host.url(), "auth-c").await;
    third.initialize(&[]).await;
    third.create_session("ahp-session:/mcp-2").await;
    let mut mirror_2 = session_state(&third.subscribe("ahp-session:/mcp-2").await);
    until_state(&mut third, &mut mirror_2, "mcp/secure", "ready").await;
    third.close().await;

    // The other client saw every state, never a token.
    let mut seen = Vec::new();
    while let Some(Some(frame)) = other.frame_within(Duration::from_millis(300)).await {
        seen.push(frame.to_string());
    }
    assert!(seen.iter().any(|f| f.contains("\"authRequired\"")));
    assert!(seen.iter().any(|f| f.contains("\"ready\"")));
    for token in ["s3cret", "wrong-token"] {
        assert!(
            !seen.iter().any(|f| f.contains(token)),
            "{token} sent to another client"
        );
    }
    c.close().await;
    other.close().await;
    host.kill_9();

    // After a restart the tokens are gone: authRequired again once the session is used.
    let host = spawn();
    let mut c = Client::connect_url(&host.url(), "auth-a").await;
    c.initialize(&["ahp-root://"]).await;
    let mut mirror = session_state(&c.subscribe(S).await);
    until_state(&mut c, &mut mirror, "mcp/secure", "starting").await;
    until_state(&mut c, &mut mirror, "mcp/secure", "authRequired").await;
    c.close().await;
    host.kill_9();

    // Neither the database nor the host's log holds a token (the state is there).
    assert!(found_in(data.path(), "https://auth.example").is_some());
    for token in ["s3cret", "wrong-token"] {
        assert_eq!(
            found_in(data.path(), token),
            None,
            "{token} in the database"
        );
        assert_eq!(found_in(logs.path(), token), None, "{token} in the log");
    }
}
