//! MCP Apps and the `mcp://` channel.

use super::*;

/// A client that declared `capabilities.mcpApps` at `initialize`.
async fn apps_client(host: &ahp_host::RunningHost, client_id: &str) -> Client {
    let mut c = Client::connect(host, client_id).await;
    let capabilities = ClientCapabilities {
        mcp_apps: Some(JsonObject::new()),
        extra: Default::default(),
    };
    c.try_initialize_with(&[], Some(capabilities))
        .await
        .expect("initialize");
    c
}

/// Session `S` created by client `apps` (which declared `capabilities.mcpApps`) and subscribed
/// to by it and by client `plain` (which did not), with their snapshots.
async fn apps_and_plain(t: &TestHost) -> (Client, Snapshot, Client, Snapshot) {
    let mut a = apps_client(&t.host, "apps").await;
    a.create_session(S).await;
    let snap = a.subscribe(S).await;
    let mut plain = Client::ready(&t.host, "plain").await;
    let plain_snap = plain.subscribe(S).await;
    (a, snap, plain, plain_snap)
}

/// A host whose sessions run `tools.mjs` as an MCP App server `t`.
async fn app_fixture_host(tweak: impl FnOnce(&mut ahp_host::Config)) -> TestHost {
    host_with(
        |_| json!({"t": {"command": "node", "args": [fixture("tools.mjs")], "env": {"APP": "1"}}}),
        tweak,
    )
    .await
}

static NEXT_MCP_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Sends MCP request `method` on `channel` (the channel in `params`); returns its id.
async fn mcp_send(c: &mut Client, channel: &str, method: &str, mut params: Value) -> Value {
    let id = Value::from(format!(
        "mcp-{}",
        NEXT_MCP_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    params["channel"] = Value::from(channel);
    let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    c.send_text(frame.to_string()).await;
    id
}

/// An MCP request on `channel` and its whole response frame.
async fn mcp_call(c: &mut Client, channel: &str, method: &str, params: Value) -> Value {
    let id = mcp_send(c, channel, method, params).await;
    c.frame_with_id(&id).await
}

/// The result of a response frame, which must carry `channel`.
fn mcp_ok<'a>(frame: &'a Value, channel: &str) -> &'a Value {
    assert_eq!(frame["channel"], channel, "{frame}");
    assert!(frame.get("error").is_none(), "{frame}");
    &frame["result"]
}

/// The error code and message of a response frame.
fn mcp_err(frame: &Value) -> (i64, String) {
    let e = frame
        .get("error")
        .unwrap_or_else(|| panic!("an error: {frame}"));
    (
        e["code"].as_i64().unwrap(),
        e["message"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn mcp_apps_clients_get_the_app_and_its_channel_and_other_clients_do_not() {
    let t = basic_host().await;
    let (mut a, snap, mut plain, plain_snap) = apps_and_plain(&t).await;
    let (mut mirror, mut plain_mirror) = (session_state(&snap), session_state(&plain_snap));

    let server = until_state(&mut a, &mut mirror, "mcp/basic", "ready").await;
    let app = server
        .mcp_app
        .clone()
        .expect("mcpApp on a server with an App tool");
    assert_eq!(
        serde_json::to_value(&app.capabilities).unwrap(),
        json!({"serverTools": {"listChanged": true}, "serverResources": {"listChanged": true}})
    );
    let channel = server.channel.clone().expect("a channel while ready");
    assert!(channel.starts_with("mcp://"), "{channel}");

    // A client without `capabilities.mcpApps` sees the same server without either, from its
    // envelopes and from a snapshot; a fresh mcpApps client's snapshot equals the mirror.
    let seen = until_state(&mut plain, &mut plain_mirror, "mcp/basic", "ready").await;
    assert!(seen.mcp_app.is_none() && seen.channel.is_none(), "{seen:?}");
    let fresh_plain = host_state(&t.host, S).await;
    assert_eq!(comparable(&plain_mirror), comparable(&fresh_plain));
    let mut fresh = apps_client(&t.host, "apps-2").await;
    let fresh_apps = session_state(&fresh.subscribe(S).await);
    assert_eq!(comparable(&mirror), comparable(&fresh_apps));
    fresh.close().await;

    // The App tool's call carries `_meta.ui` as the MCP tool has it.
    let (start, result, _) = mcp_turn(&mut a, &mut mirror, "t1", "/mcp basic get-time {}").await;
    assert_eq!(
        start.meta.as_ref().and_then(|m| m.get("ui")),
        Some(&json!({"resourceUri": "ui://get-time/mcp-app.html"})),
        "{start:?}"
    );
    assert!(result.success);

    // Over the channel: the UI resource, the tool list, the tool itself.
    let read = mcp_call(
        &mut a,
        &channel,
        "resources/read",
        json!({"uri": "ui://get-time/mcp-app.html"}),
    )
    .await;
    let contents = &mcp_ok(&read, &channel)["contents"][0];
    assert_eq!(contents["uri"], "ui://get-time/mcp-app.html");
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
    let html = contents["text"].as_str().expect("HTML text");
    assert!(
        html.to_lowercase().contains("<html"),
        "{}",
        &html[..200.min(html.len())]
    );
    let list = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    let tools = mcp_ok(&list, &channel)["tools"].as_array().unwrap().clone();
    let get_time = tools
        .iter()
        .find(|t| t["name"] == "get-time")
        .expect("listed");
    assert_eq!(
        get_time["_meta"]["ui"]["resourceUri"],
        "ui://get-time/mcp-app.html"
    );
    let call = mcp_call(
        &mut a,
        &channel,
        "tools/call",
        json!({"name": "get-time", "arguments": {}}),
    )
    .await;
    let time = mcp_ok(&call, &channel)["structuredContent"]["time"]
        .as_str()
        .expect("a time")
        .to_owned();
    assert!(time.starts_with("20") && time.ends_with('Z'), "{time}");
    let resources = mcp_call(&mut a, &channel, "resources/list", json!({})).await;
    assert_eq!(
        mcp_ok(&resources, &channel)["resources"][0]["uri"],
        "ui://get-time/mcp-app.html"
    );
    let templates = mcp_call(&mut a, &channel, "resources/templates/list", json!({})).await;
    assert!(mcp_ok(&templates, &channel)["resourceTemplates"].is_array());

    // Outside the advertised capability sets: -32601, whatever the server would say.
    for method in [
        "logging/setLevel",
        "sampling/createMessage",
        "prompts/list",
        "initialize",
        "ping",
        "completion/complete",
    ] {
        let r = mcp_call(&mut a, &channel, method, json!({"level": "info"})).await;
        assert_eq!(r["channel"], channel.as_str());
        let (code, message) = mcp_err(&r);
        assert_eq!(code, -32601, "{method}: {r}");
        assert!(message.contains("not served"), "{message}");
    }
    // Params that do not have the method's shape, an unknown channel.
    let bad = mcp_call(&mut a, &channel, "resources/read", json!({"nouri": 1})).await;
    assert_eq!(mcp_err(&bad).0, -32602, "{bad}");
    let unknown = mcp_call(&mut a, "mcp://ahp-host/nope", "tools/list", json!({})).await;
    assert_eq!(mcp_err(&unknown).0, errors::NOT_FOUND, "{unknown}");

    // Refused: a client without `capabilities.mcpApps`, and one not subscribed to the session.
    let denied = mcp_call(&mut plain, &channel, "tools/list", json!({})).await;
    let (code, message) = mcp_err(&denied);
    assert_eq!(code, errors::PERMISSION_DENIED);
    assert!(message.contains("mcpApps"), "{message}");
    let mut stranger = apps_client(&t.host, "stranger").await;
    let refused = mcp_call(&mut stranger, &channel, "tools/list", json!({})).await;
    let (code, message) = mcp_err(&refused);
    assert_eq!(code, errors::PERMISSION_DENIED);
    assert!(message.contains("subscribe to"), "{message}");
    // Subscribed, it may.
    stranger.subscribe(S).await;
    let allowed = mcp_call(&mut stranger, &channel, "tools/list", json!({})).await;
    mcp_ok(&allowed, &channel);

    // Off: the channel goes with `ready` (mcpApp stays), requests fail cleanly.
    a.dispatch(S, toggle("mcp/basic", false)).await;
    let off = until_state(&mut a, &mut mirror, "mcp/basic", "stopped").await;
    assert!(off.channel.is_none(), "{off:?}");
    let gone = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    let (code, message) = mcp_err(&gone);
    assert_eq!(code, errors::NOT_FOUND, "{gone}");
    assert!(message.contains("not ready"), "{message}");
    // On again: a channel again, served again.
    a.dispatch(S, toggle("mcp/basic", true)).await;
    let on = until_state(&mut a, &mut mirror, "mcp/basic", "ready").await;
    let channel = on.channel.expect("a channel again");
    let again = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    mcp_ok(&again, &channel);
    healthy(&mut a, &mut mirror, "t2").await;
    let host = host_state(&t.host, S).await;
    let mut plain_now = plain_mirror.clone();
    reduce_all(&mut plain_now, &drain_envelopes(&mut plain).await);
    assert_eq!(comparable(&plain_now), comparable(&host));
}

#[tokio::test]
async fn the_channel_is_bounded_and_forwards_advertised_notifications() {
    let t = app_fixture_host(|c| {
        c.mcp.request_timeout = Duration::from_millis(3000);
        c.mcp.max_message_bytes = 1 << 20;
        c.mcp.max_channel_request_bytes = 4096;
        c.mcp.max_channel_inflight = 2;
    })
    .await;
    let (mut a, snap, mut plain, _) = apps_and_plain(&t).await;
    let mut mirror = session_state(&snap);
    let server = until_state(&mut a, &mut mirror, "mcp/t", "ready").await;
    assert_eq!(
        serde_json::to_value(&server.mcp_app.expect("mcpApp").capabilities).unwrap(),
        json!({"serverTools": {"listChanged": true}, "serverResources": {}})
    );
    let channel = server.channel.expect("channel");

    // `_meta.ui` verbatim on an App tool's call; none on the others.
    let (start, _, _) = mcp_turn(&mut a, &mut mirror, "t1", "/mcp t echo {\"text\": \"hi\"}").await;
    assert_eq!(
        start.meta.as_ref().map(|m| m["ui"].clone()),
        Some(json!({"resourceUri": "ui://t/app.html", "visibility": ["model", "app"]}))
    );
    let (start, _, _) = mcp_turn(&mut a, &mut mirror, "t2", "/mcp t fail").await;
    assert!(start.meta.is_none(), "{start:?}");

    // Request size: over the limit refused before the server sees it; under it served.
    let over = mcp_call(
        &mut a,
        &channel,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x".repeat(5000)}}),
    )
    .await;
    let (code, message) = mcp_err(&over);
    assert_eq!(code, -32600);
    assert!(
        message.contains("over the limit of 4096 bytes"),
        "{message}"
    );
    let under = mcp_call(
        &mut a,
        &channel,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "y".repeat(3000)}}),
    )
    .await;
    assert_eq!(
        mcp_ok(&under, &channel)["content"][0]["text"],
        "y".repeat(3000)
    );
    // Reply size: a result over the message limit is a clear error, at once.
    let started = Instant::now();
    let big = mcp_call(
        &mut a,
        &channel,
        "tools/call",
        json!({"name": "big", "arguments": {"mb": 2}}),
    )
    .await;
    let (code, message) = mcp_err(&big);
    assert_eq!(code, -32603);
    assert!(
        message.contains("larger than the limit of 1048576 bytes"),
        "{message}"
    );
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "not a timeout"
    );
    // Server errors pass through as they are.
    let missing = mcp_call(
        &mut a,
        &channel,
        "resources/read",
        json!({"uri": "ui://t/nope"}),
    )
    .await;
    assert_eq!(
        mcp_err(&missing),
        (-32002, "no resource ui://t/nope".to_owned())
    );
    let html = mcp_call(
        &mut a,
        &channel,
        "resources/read",
        json!({"uri": "ui://t/app.html"}),
    )
    .await;
    assert!(mcp_ok(&html, &channel)["contents"][0]["text"]
        .as_str()
        .unwrap()
        .contains("echo app"));

    // In flight: two hanging calls fill the bound, a third request is refused at once; the
    // hanging ones time out, after which requests are served again.
    let h1 = mcp_send(&mut a, &channel, "tools/call", json!({"name": "hang"})).await;
    let h2 = mcp_send(&mut a, &channel, "tools/call", json!({"name": "hang"})).await;
    let third = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    let (code, message) = mcp_err(&third);
    assert_eq!(code, -32600);
    assert!(message.contains("in flight"), "{message}");
    for h in [h1, h2] {
        let r = a.frame_with_id(&h).await;
        let (code, message) = mcp_err(&r);
        assert_eq!(code, -32603);
        assert!(message.contains("within 3000 ms"), "{message}");
    }
    let list = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    assert!(mcp_ok(&list, &channel)["tools"].as_array().unwrap().len() >= 7);

    // Notifications: tools/list_changed (advertised with listChanged) reaches the mcpApps
    // client with the channel; resources/list_changed (not advertised) does not; the client
    // without mcpApps gets neither.
    let notified = mcp_call(&mut a, &channel, "tools/call", json!({"name": "notify"})).await;
    assert_eq!(
        mcp_ok(&notified, &channel)["content"][0]["text"],
        "notified"
    );
    let n = a
        .notification_named("notifications/tools/list_changed")
        .await;
    assert_eq!(n["params"], json!({"channel": channel}));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut frames = Vec::new();
    while let Some(Some(frame)) = a.frame_within(Duration::from_millis(200)).await {
        frames.push(frame);
    }
    while let Some(Some(frame)) = plain.frame_within(Duration::from_millis(200)).await {
        frames.push(frame);
    }
    assert!(
        frames.iter().all(|f| !f["method"]
            .as_str()
            .unwrap_or("")
            .starts_with("notifications/")),
        "{frames:?}"
    );

    // A request in flight when the server is turned off fails cleanly; then the channel is gone.
    let pending = mcp_send(&mut a, &channel, "tools/call", json!({"name": "hang"})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    a.dispatch(S, toggle("mcp/t", false)).await;
    let r = a.frame_with_id(&pending).await;
    let (code, message) = mcp_err(&r);
    assert_eq!(code, -32603, "{r}");
    assert!(
        !message.contains("within 3000 ms"),
        "not a timeout: {message}"
    );
    let gone = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    assert_eq!(mcp_err(&gone).0, errors::NOT_FOUND);
    healthy(&mut a, &mut mirror, "t3").await;
}

#[tokio::test]
async fn reconnecting_clients_get_what_they_declared_at_initialize() {
    let t = app_fixture_host(|_| {}).await;
    let (mut a, snap, plain, plain_snap) = apps_and_plain(&t).await;
    let mut mirror = session_state(&snap);
    until_state(&mut a, &mut mirror, "mcp/t", "ready").await;
    a.close().await;
    plain.close().await;

    // Both come back on new connections: the replay is the one each got live.
    for (id, base, apps) in [("apps", &snap, true), ("plain", &plain_snap, false)] {
        let mut c = Client::connect(&t.host, id).await;
        let replayed = match c.reconnect(base.from_seq, vec![S.into()]).await {
            Ok(jsonrpc::ReconnectResult::Replay(r)) => r.actions,
            other => panic!("a replay: {other:?}"),
        };
        let mut state = session_state(base);
        reduce_all(&mut state, &replayed);
        let server = mcp_server(&state, "mcp/t").expect("the server");
        assert_eq!(kind(&server.state), "ready");
        assert_eq!(server.channel.is_some(), apps, "{id}: {server:?}");
        assert_eq!(server.mcp_app.is_some(), apps, "{id}: {server:?}");
        // Only the mcpApps client may use the channel after its reconnect.
        let channel = mcp_server(&mirror, "mcp/t")
            .unwrap()
            .channel
            .clone()
            .unwrap();
        let r = mcp_call(&mut c, &channel, "tools/list", json!({})).await;
        assert_eq!(r.get("error").is_none(), apps, "{id}: {r}");
    }
}

/// Reads envelopes into `mirror` until `done` holds for it.
async fn until_mirror(
    c: &mut Client,
    mirror: &mut SessionState,
    what: &str,
    done: impl Fn(&SessionState) -> bool,
) {
    let deadline = Instant::now() + WAIT;
    while !done(mirror) {
        assert!(Instant::now() < deadline, "never: {what}");
        let e = c.envelope().await;
        reduce_all(mirror, &[e]);
    }
}

#[tokio::test]
async fn tools_list_changed_refreshes_the_agents_tools_and_the_app() {
    let t = host_with(
        |_| json!({"g": {"command": "node", "args": [fixture("growing.mjs")]}}),
        |_| {},
    )
    .await;
    let (mut a, snap, mut plain, plain_snap) = apps_and_plain(&t).await;
    let (mut mirror, mut plain_mirror) = (session_state(&snap), session_state(&plain_snap));
    let server = until_state(&mut a, &mut mirror, "mcp/g", "ready").await;
    assert!(
        server.mcp_app.is_none() && server.channel.is_none(),
        "{server:?}"
    );
    assert!(tool_names(&mirror).contains(&"mcp__g__add-tool".to_owned()));

    // A burst of three notifications: one more `tools/list`, the new tool in `serverTools`
    // (with the server as its contributor) and callable.
    let (_, added, _) = mcp_turn(
        &mut a,
        &mut mirror,
        "t1",
        r#"/mcp g add-tool {"name": "extra", "burst": 3}"#,
    )
    .await;
    assert_eq!(result_text(&added), "added extra");
    until_mirror(&mut a, &mut mirror, "extra listed", |m| {
        tool_names(m).contains(&"mcp__g__extra".to_owned())
    })
    .await;
    let extra = mirror
        .server_tools
        .iter()
        .flatten()
        .find(|t| t.name == "mcp__g__extra")
        .unwrap();
    assert_eq!(
        extra.meta.as_ref().unwrap()["contributor"],
        json!({"kind": "mcp", "customizationId": "mcp/g"})
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, stats, _) = mcp_turn(&mut a, &mut mirror, "t2", "/mcp g stats").await;
    assert_eq!(
        result_text(&stats),
        "tools/list: 2",
        "a burst is one refresh"
    );
    let (_, called, _) = mcp_turn(&mut a, &mut mirror, "t3", "/mcp g extra").await;
    assert_eq!(result_text(&called), "I am extra");

    // An App tool comes: the server can host Apps now (`mcpApp`, and a channel while ready,
    // which serves the new tool); it goes: so do they.
    mcp_turn(
        &mut a,
        &mut mirror,
        "t4",
        r#"/mcp g add-tool {"name": "viewer", "app": true, "burst": 1}"#,
    )
    .await;
    until_mirror(&mut a, &mut mirror, "an App server", |m| {
        mcp_server(m, "mcp/g").is_some_and(|s| s.mcp_app.is_some() && s.channel.is_some())
    })
    .await;
    let server = mcp_server(&mirror, "mcp/g").unwrap().clone();
    assert_eq!(kind(&server.state), "ready");
    assert!(tool_names(&mirror).contains(&"mcp__g__viewer".to_owned()));
    let channel = server.channel.unwrap();
    let list = mcp_call(&mut a, &channel, "tools/list", json!({})).await;
    assert!(mcp_ok(&list, &channel)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "viewer"));
    let (start, _, _) = mcp_turn(&mut a, &mut mirror, "t5", "/mcp g viewer").await;
    assert_eq!(
        start.meta.as_ref().map(|m| m["ui"].clone()),
        Some(json!({"resourceUri": "ui://g/app.html"}))
    );
    mcp_turn(
        &mut a,
        &mut mirror,
        "t6",
        r#"/mcp g remove-tool {"name": "viewer"}"#,
    )
    .await;
    until_mirror(&mut a, &mut mirror, "no App server", |m| {
        mcp_server(m, "mcp/g").is_some_and(|s| s.mcp_app.is_none() && s.channel.is_none())
    })
    .await;
    assert!(!tool_names(&mirror).contains(&"mcp__g__viewer".to_owned()));
    assert_eq!(kind(&mcp_server(&mirror, "mcp/g").unwrap().state), "ready");

    // Every client sees the same, the plain one without `mcpApp`/`channel`.
    healthy(&mut a, &mut mirror, "t7").await;
    assert_eq!(
        comparable(&mirror),
        comparable(&host_state(&t.host, S).await)
    );
    reduce_all(&mut plain_mirror, &drain_envelopes(&mut plain).await);
    assert_eq!(tool_names(&plain_mirror), tool_names(&mirror));
}

/// A raw client that chose AHP 1.0.0 at `initialize`, with `capabilities.mcpApps` or not.
async fn v1_client(host: &ahp_host::RunningHost, client_id: &str, apps: bool) -> Client {
    let mut c = Client::connect(host, client_id).await;
    let mut params = json!({"channel": ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL,
        "protocolVersions": ["1.0.0"], "clientId": client_id});
    if apps {
        params["capabilities"] = json!({"mcpApps": {}});
    }
    let init = c.call("initialize", params).await.expect("initialize");
    assert_eq!(init["protocolVersion"], "1.0.0", "{init}");
    c
}

/// The `channel` of MCP server `id` in the 1.0 session `S`, once it is ready (its 1.0
/// snapshot, asked again until then).
async fn v1_ready_channel(c: &mut Client, id: &str) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let snapshot = c
            .call("subscribe", json!({"channel": S}))
            .await
            .expect("subscribe");
        let state: ahp_wasm::protocol::v1::SessionState =
            serde_json::from_value(snapshot["snapshot"]["state"].clone()).expect("1.0");
        let server = serde_json::to_value(&state.customizations)
            .unwrap()
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["id"] == id)
            .cloned();
        if let Some(server) = server.as_ref().filter(|s| s["state"]["kind"] == "ready") {
            if let Some(channel) = server["channel"].as_str() {
                return channel.to_owned();
            }
        }
        assert!(
            Instant::now() < deadline,
            "{id} never got ready: {server:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_1_0_client_with_mcp_apps_uses_the_channel_and_one_without_is_refused() {
    let t = basic_host().await;
    let mut apps = v1_client(&t.host, "v1-apps", true).await;
    apps.call("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let channel = v1_ready_channel(&mut apps, "mcp/basic").await;
    assert!(channel.starts_with("mcp://"), "{channel}");
    let list = mcp_call(&mut apps, &channel, "tools/list", json!({})).await;
    let tools = mcp_ok(&list, &channel)["tools"].as_array().unwrap().clone();
    assert!(tools.iter().any(|t| t["name"] == "get-time"), "{list}");
    // Outside the advertised capabilities: -32601, the channel still usable.
    let refused = mcp_call(&mut apps, &channel, "prompts/list", json!({})).await;
    assert_eq!(mcp_err(&refused).0, -32601, "{refused}");

    // Without `capabilities.mcpApps` (or without a subscription to the session): refused.
    let mut plain = v1_client(&t.host, "v1-plain", false).await;
    v1_ready_channel(&mut plain, "mcp/basic").await;
    let denied = mcp_call(&mut plain, &channel, "tools/list", json!({})).await;
    assert_eq!(mcp_err(&denied).0, errors::PERMISSION_DENIED, "{denied}");
    let mut unsubscribed = v1_client(&t.host, "v1-unsubscribed", true).await;
    let denied = mcp_call(&mut unsubscribed, &channel, "tools/list", json!({})).await;
    assert_eq!(mcp_err(&denied).0, errors::PERMISSION_DENIED, "{denied}");
    let list = mcp_call(&mut apps, &channel, "tools/list", json!({})).await;
    mcp_ok(&list, &channel);
}

/// A 1.0 client approves a working directory's server with 1.0's toggle
/// (`session/customizationToggled`, a `session` enablement): applied as 0.3.0's toggle (the
/// view's `customizationUpdated` is not client-dispatchable), so it is echoed unrejected, the
/// server starts and its `mcp://` channel serves the client.
#[tokio::test]
async fn a_1_0_client_approves_a_working_directory_server_with_the_1_0_toggle() {
    let t = start_host().await;
    let entry = basic_server();
    write_mcp_json(
        t.work.path(),
        json!({"basic": {"command": "node", "args": [entry, "--stdio"]}}),
    );
    let mut c = v1_client(&t.host, "v1-approver", true).await;
    c.call("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let snapshot = c
        .call("subscribe", json!({"channel": S}))
        .await
        .expect("subscribe");
    let waiting = snapshot["snapshot"]["state"]["customizations"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["id"] == "mcp/basic")
        .cloned()
        .expect("the server is listed");
    assert_eq!(
        waiting["state"]["error"]["errorType"], "McpServerNeedsApproval",
        "{waiting}"
    );
    let toggle = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
        "channel": S, "clientSeq": 1,
        "action": {"type": "session/customizationToggled", "id": "mcp/basic",
            "enablement": [{"kind": "session", "enabled": true}]}}});
    c.send_text(toggle.to_string()).await;
    let echo = loop {
        let frame = c.read_frame().await.expect("connection open");
        if frame["method"] == "action" && frame["params"]["origin"]["clientSeq"] == 1 {
            break frame["params"].clone();
        }
    };
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    assert_eq!(
        echo["action"]["type"], "session/customizationToggled",
        "{echo}"
    );
    assert_eq!(echo["action"]["enablement"][0]["enabled"], true, "{echo}");
    let channel = v1_ready_channel(&mut c, "mcp/basic").await;
    let list = mcp_call(&mut c, &channel, "tools/list", json!({})).await;
    let tools = mcp_ok(&list, &channel)["tools"].as_array().unwrap().clone();
    assert!(tools.iter().any(|t| t["name"] == "get-time"), "{list}");
}
