//! Servers that need a token (`auth_http.mjs`): authRequired, authenticate.

use super::*;

/// The `auth_http.mjs` fixture (a streamable-HTTP server that wants `Bearer s3cret`), listening
/// on a free port.
async fn auth_fixture() -> (Killed, u16) {
    http_fixture(fixture("auth_http.mjs")).await
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
    let trusting = ["--trust-project-mcp"];
    let spawn =
        || HostProcess::spawn_with_stderr(data.path(), work.path(), host_token, &trusting, log());
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
    c.expect_error(
        "authenticate",
        json!({"channel": S, "resource": resource, "token": "s3cret"}),
        errors::INVALID_PARAMS,
    )
    .await;

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

/// Status bits of `SessionStatus.InputNeeded` (it includes `InProgress`) and `Idle`.
const INPUT_NEEDED: u32 = 24;
const IDLE: u32 = 1;

fn tool_call_state<'a>(state: &'a SessionState, id: &str) -> &'a ToolCallState {
    let turn = state.active_turn.as_ref().expect("an active turn");
    turn.response_parts
        .iter()
        .find_map(|p| match p {
            ResponsePart::ToolCall(p) => Some(&p.tool_call),
            _ => None,
        })
        .filter(|tc| serde_json::to_value(tc).unwrap()["toolCallId"] == id)
        .expect("the tool call")
}

/// Runs `/mcp secure whoami` in `turn` up to the input request raised for its token; returns
/// the tool call id and the request.
async fn held_call(
    c: &mut Client,
    mirror: &mut SessionState,
    turn: &str,
) -> (String, SessionInputRequest) {
    let rotated = mcp_turn(c, mirror, &format!("{turn}-rotate"), "/mcp secure rotate").await;
    assert_eq!(result_text(&rotated.1), "rotated");
    let start = approved_call(c, mirror, turn, "/mcp secure whoami").await;
    let envs = c
        .envelopes_until(|e| matches!(e.action, StateAction::SessionInputRequested(_)))
        .await;
    reduce_all(mirror, &envs);
    let requests = mirror.input_requests.clone().expect("an input request");
    assert_eq!(requests.len(), 1, "{requests:?}");
    (start.tool_call_id, requests[0].clone())
}

/// The turn ran to its end normally; the session is idle with no request left.
fn ended_idle(envs: &[ActionEnvelope], mirror: &SessionState) {
    assert!(matches!(
        envs.last().unwrap().action,
        StateAction::SessionTurnComplete(_)
    ));
    assert_eq!(mirror.input_requests, None);
    assert_eq!(
        mirror.summary.status & 31,
        IDLE,
        "{}",
        mirror.summary.status
    );
}

/// The host completed request `id` with `response` among `envs`.
fn host_completed(envs: &[ActionEnvelope], id: &str, response: SessionInputResponseKind) {
    assert!(
        envs.iter().any(|e| matches!(&e.action,
            StateAction::SessionInputCompleted(a) if a.request_id == id && a.response == response)
            && e.origin.is_none()),
        "the host completed {id} with {response:?}"
    );
}

#[tokio::test]
async fn a_call_refused_mid_session_waits_for_a_token_with_an_input_request() {
    let (_server, port) = auth_fixture().await;
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let url = resource.clone();
    let t = host_with(
        |_| json!({"secure": {"url": url}}),
        |c| c.mcp.auth_wait = Duration::from_secs(4),
    )
    .await;
    let (mut c, mut mirror) = session(&t).await;
    until_state(&mut c, &mut mirror, "mcp/secure", "authRequired").await;
    authenticate(&mut c, &resource, "s3cret")
        .await
        .expect("accepted");
    settle(&mut c, &mut mirror).await;

    // The token stops working: the next call stays running, the server is authRequired
    // (`expired`: the token had worked), an input request asks for a token and the session is
    // input-needed, for every client.
    let (id, request) = held_call(&mut c, &mut mirror, "t1").await;
    assert!(matches!(
        tool_call_state(&mirror, &id),
        ToolCallState::Running(_)
    ));
    let m = mcp_server(&mirror, "mcp/secure").unwrap();
    assert_eq!(auth_state(m).reason, McpAuthRequiredReason::Expired);
    let message = request.message.clone().unwrap_or_default();
    for part in [
        "`secure`",
        "`whoami`",
        &resource,
        "`authenticate`",
        "expired",
    ] {
        assert!(message.contains(part), "{part} in {message}");
    }
    assert_eq!(mirror.summary.status & INPUT_NEEDED, INPUT_NEEDED);
    let host = host_state(&t.host, S).await;
    assert_eq!(comparable(&mirror), comparable(&host));

    // A new token: the host completes the request, the call is retried and succeeds.
    let ok = authenticate(&mut c, &resource, "s3cret-2")
        .await
        .expect("accepted");
    assert_eq!(ok, json!({}));
    let envs = c.until_turn_end("t1").await;
    reduce_all(&mut mirror, &envs);
    host_completed(&envs, &request.id, SessionInputResponseKind::Accept);
    let result = completed(&envs, &id);
    assert!(result.success, "{result:?}");
    assert_eq!(result_text(&result), "authorized");
    ended_idle(&envs, &mirror);
    assert_eq!(
        kind(&mcp_server(&mirror, "mcp/secure").unwrap().state),
        "ready"
    );

    // Declined: the call fails saying so; the server still waits for a token.
    let (id, request) = held_call(&mut c, &mut mirror, "t2").await;
    let decline = StateAction::SessionInputCompleted(SessionInputCompletedAction {
        request_id: request.id.clone(),
        response: SessionInputResponseKind::Decline,
        answers: None,
        extra: Default::default(),
    });
    c.dispatch(S, decline).await;
    let envs = c.until_turn_end("t2").await;
    reduce_all(&mut mirror, &envs);
    let result = completed(&envs, &id);
    assert_failed(&result, "declined");
    assert_eq!(
        result.error.as_ref().unwrap().code.as_deref(),
        Some("McpAuthRequired")
    );
    ended_idle(&envs, &mirror);
    assert_eq!(
        kind(&mcp_server(&mirror, "mcp/secure").unwrap().state),
        "authRequired"
    );

    // Unanswered: the wait is bounded (`--mcp-auth-wait-ms`); the request is withdrawn.
    authenticate(&mut c, &resource, "s3cret-3")
        .await
        .expect("accepted");
    settle(&mut c, &mut mirror).await;
    let (id, request) = held_call(&mut c, &mut mirror, "t3").await;
    let asked = Instant::now();
    let envs = c.until_turn_end("t3").await;
    reduce_all(&mut mirror, &envs);
    assert!(
        asked.elapsed() >= Duration::from_secs(3),
        "{:?}",
        asked.elapsed()
    );
    assert_failed(&completed(&envs, &id), "none arrived within 4000 ms");
    host_completed(&envs, &request.id, SessionInputResponseKind::Cancel);
    ended_idle(&envs, &mirror);

    // The server turned off meanwhile: the call fails at once, the request is withdrawn.
    authenticate(&mut c, &resource, "s3cret-4")
        .await
        .expect("accepted");
    settle(&mut c, &mut mirror).await;
    let (id, request) = held_call(&mut c, &mut mirror, "t4").await;
    c.dispatch(S, toggle("mcp/secure", false)).await;
    let envs = c.until_turn_end("t4").await;
    reduce_all(&mut mirror, &envs);
    assert_failed(&completed(&envs, &id), "turned off");
    host_completed(&envs, &request.id, SessionInputResponseKind::Cancel);
    ended_idle(&envs, &mirror);
    let host = host_state(&t.host, S).await;
    assert_eq!(comparable(&mirror), comparable(&host));
}
