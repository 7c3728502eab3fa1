//! The host's other channels and commands for AHP 1.0.0 clients (`hub/v1_channels.rs`,
//! `compat::channels`): terminals (the official 1.0 client drives one, and its reducer over the
//! envelopes ends at the host's snapshot; a 0.3.0 client on the same terminal keeps its 0.3.0
//! shapes), changesets and `invokeChangesetOperation`, resource watches, and `authenticate`,
//! `resolveSessionConfig`, `sessionConfigCompletions` and `completions`. Bad input gets typed
//! errors and leaves the connection working.

mod common;
mod v1_support;

use ahp_host::agent_auth::{AgentAuthConfig, DEFAULT_RESOURCE};
use ahp_host::resources::file_uri;
use ahp_types_v1::actions::StateAction as OfficialAction;
use ahp_types_v1::state::SnapshotState;
use ahp_v1::{Client as Official, ClientConfig, SubscriptionEvent};
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::v1;
use common::*;
use serde_json::{json, Value};
use std::time::Duration;

const S: &str = "ahp-session:/v1-channels";
const C: &str = "ahp-chat:/v1-channels/default";
const T: &str = "ahp-terminal:/v1-term";

async fn raw_v1(t: &TestHost, client_id: &str) -> Client {
    let mut raw = Client::connect(&t.host, client_id).await;
    let answer = request(
        &mut raw,
        1,
        "initialize",
        json!({"channel": ROOT_CHANNEL, "protocolVersions": ["1.0.0"], "clientId": client_id}),
    )
    .await;
    assert_eq!(answer["result"]["protocolVersion"], "1.0.0", "{answer}");
    raw
}

async fn answer_to(raw: &mut Client, id: u64) -> Value {
    loop {
        let frame = raw.read_frame().await.expect("connection open");
        if frame["id"] == id {
            return frame;
        }
    }
}

async fn request(raw: &mut Client, id: u64, method: &str, params: Value) -> Value {
    let text = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    raw.send_text(text.to_string()).await;
    answer_to(raw, id).await
}

async fn dispatch(raw: &mut Client, channel: &str, client_seq: u64, action: Value) {
    let text = json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {
        "channel": channel, "clientSeq": client_seq, "action": action}});
    raw.send_text(text.to_string()).await;
}

/// The next `action` envelope on `channel`, checked to decode as a known 1.0 action.
async fn envelope_on(raw: &mut Client, channel: &str) -> Value {
    loop {
        let frame = raw.read_frame().await.expect("connection open");
        if frame["method"] == "action" && frame["params"]["channel"] == channel {
            let envelope = frame["params"].clone();
            let action: v1::StateAction = serde_json::from_value(envelope["action"].clone())
                .unwrap_or_else(|e| panic!("a 1.0 action ({e}): {envelope}"));
            assert!(!matches!(action, v1::StateAction::Unknown(_)), "{envelope}");
            return envelope;
        }
    }
}

/// Envelopes on `channel` until one satisfies `done`.
async fn envelope_until(raw: &mut Client, channel: &str, done: impl Fn(&Value) -> bool) -> Value {
    let read = async {
        loop {
            let envelope = envelope_on(raw, channel).await;
            if done(&envelope) {
                return envelope;
            }
        }
    };
    tokio::time::timeout(WAIT, read)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting on {channel}"))
}

async fn official(t: &TestHost, client_id: &str) -> Official {
    let (ws, _) = tokio_tungstenite::connect_async(url_with_token(&t.host))
        .await
        .unwrap();
    let client = Official::connect(v1_support::WsTransport(ws), ClientConfig::default())
        .await
        .expect("connected");
    let init = client
        .initialize(client_id.into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    assert_eq!(init.protocol_version, "1.0.0");
    client
}

fn official_action(json: Value) -> OfficialAction {
    serde_json::from_value(json).expect("an official 1.0 action")
}

#[tokio::test]
async fn the_official_1_0_client_drives_a_terminal_to_the_hosts_state() {
    let t = start_host().await;
    let client = official(&t, "official-term").await;
    let _: Value = client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let claim = json!({"kind": "session", "session": S, "chat": C});
    let _: Value = client
        .request(
            "createTerminal",
            json!({"channel": T, "claim": claim, "cols": 100, "rows": 30, "name": "v1"}),
        )
        .await
        .expect("createTerminal");
    let mut events = client.events();
    let (sub, _) = client.subscribe(T.into()).await.expect("subscribe");
    let snapshot = sub.snapshot.expect("a snapshot");
    let from_seq = u64::try_from(snapshot.from_seq).expect("a serverSeq");
    let SnapshotState::Terminal(terminal) = snapshot.state else {
        panic!("a terminal snapshot expected");
    };
    let mut terminal = *terminal;
    let shown = serde_json::to_value(&terminal).unwrap();
    assert_eq!(shown["lifecycle"]["status"], "running", "{shown}");
    assert_eq!(shown["claim"], claim, "{shown}");
    assert_eq!(shown["cols"], 100, "{shown}");
    assert_eq!(shown["title"], "v1", "{shown}");

    // Input, a resize and the exit, each reduced by the official reducer from the envelopes.
    let steps = [
        (
            json!({"type": "terminal/input", "data": "echo v1-term-$((40+2))\n"}),
            "v1-term-42",
        ),
        (
            json!({"type": "terminal/resized", "cols": 120, "rows": 40}),
            "\"cols\":120",
        ),
        (
            json!({"type": "terminal/input", "data": "exit\n"}),
            "\"exited\"",
        ),
    ];
    let mut own_echoes = 0;
    for (action, until) in steps {
        let handle = client
            .dispatch(T.into(), official_action(action))
            .await
            .expect("dispatch");
        loop {
            let event = tokio::time::timeout(WAIT, events.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out waiting for {until}"))
                .expect("connected");
            let SubscriptionEvent::Action(envelope) = event.event else {
                continue;
            };
            if envelope.channel != T || envelope.server_seq <= from_seq {
                continue;
            }
            assert!(envelope.rejection_reason.is_none(), "{envelope:?}");
            if envelope
                .origin
                .as_ref()
                .is_some_and(|o| o.client_seq == handle.client_seq)
            {
                own_echoes += 1;
            }
            ahp_v1::reducers::apply_action_to_terminal(&mut terminal, &envelope.action);
            if serde_json::to_string(&terminal).unwrap().contains(until) {
                break;
            }
        }
    }
    assert!(own_echoes >= 2, "the dispatches were echoed");
    let (fresh, _) = client.subscribe(T.into()).await.expect("subscribe again");
    let SnapshotState::Terminal(fresh) = fresh.snapshot.expect("a snapshot").state else {
        panic!("a terminal snapshot expected");
    };
    let (reduced, fresh) = (
        serde_json::to_value(&terminal).unwrap(),
        serde_json::to_value(&*fresh).unwrap(),
    );
    assert_eq!(reduced["lifecycle"]["status"], "exited", "{reduced}");
    assert_eq!(reduced, fresh);
    let _: Value = client
        .request("disposeTerminal", json!({"channel": T}))
        .await
        .expect("disposeTerminal");
    client.shutdown().await;
}

#[tokio::test]
async fn terminals_keep_each_versions_shapes_and_refuse_what_0_3_0_cannot_say() {
    let t = start_host().await;
    let mut raw = raw_v1(&t, "raw-term").await;
    let root = request(&mut raw, 2, "subscribe", json!({"channel": ROOT_CHANNEL})).await;
    assert!(root.get("result").is_some(), "{root}");
    let created = request(&mut raw, 3, "createSession", json!({"channel": S})).await;
    assert!(created.get("result").is_some(), "{created}");

    // A claim naming a chat the session does not have: typed error, nothing made.
    for (id, chat) in [
        (4, "ahp-chat:/v1-channels/other"),
        (5, "ahp-chat:/elsewhere/default"),
    ] {
        let bad = request(
            &mut raw,
            id,
            "createTerminal",
            json!({"channel": T, "claim": {"kind": "session", "session": S, "chat": chat}}),
        )
        .await;
        assert_eq!(bad["error"]["code"], -32602, "{bad}");
    }
    // The 1.0 params are checked as 1.0's: a session claim needs its chat.
    let bad = request(
        &mut raw,
        6,
        "createTerminal",
        json!({"channel": T, "claim": {"kind": "session", "session": S}}),
    )
    .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let gone = request(&mut raw, 7, "subscribe", json!({"channel": T})).await;
    assert_eq!(gone["error"]["code"], -32008, "{gone}");

    let claim = json!({"kind": "session", "session": S, "chat": C});
    let made = request(
        &mut raw,
        8,
        "createTerminal",
        json!({"channel": T, "claim": claim}),
    )
    .await;
    assert_eq!(made["result"], json!({}), "{made}");
    // The root lists it with its 1.0 lifecycle and claim.
    let listed = envelope_until(&mut raw, ROOT_CHANNEL, |e| {
        e["action"]["type"] == "root/terminalsChanged"
    })
    .await;
    let entry = &listed["action"]["terminals"][0];
    assert_eq!(entry["lifecycle"], json!({"status": "running"}), "{listed}");
    assert_eq!(entry["claim"], claim, "{listed}");

    let again = request(
        &mut raw,
        9,
        "createTerminal",
        json!({"channel": T, "claim": claim}),
    )
    .await;
    assert_eq!(again["error"]["code"], errors::ALREADY_EXISTS, "{again}");
    let sub = request(&mut raw, 10, "subscribe", json!({"channel": T})).await;
    let state: v1::TerminalState =
        serde_json::from_value(sub["result"]["snapshot"]["state"].clone())
            .unwrap_or_else(|e| panic!("a 1.0 terminal ({e}): {sub}"));
    assert_eq!(state.cols, Some(80));
    assert!(matches!(
        state.lifecycle,
        v1::TerminalLifecycleState::Running(_)
    ));

    // A 0.3.0 client sees the same terminal in 0.3.0's shapes.
    let mut old = Client::ready(&t.host, "old-term").await;
    let snapshot = old
        .call("subscribe", json!({"channel": T}))
        .await
        .expect("subscribe");
    let old_state = &snapshot["snapshot"]["state"];
    assert!(old_state.get("lifecycle").is_none(), "{old_state}");
    assert_eq!(old_state["claim"], json!({"kind": "session", "session": S}));

    // Handing the terminal to a chat the session does not have: rejected in 1.0.
    let other = json!({"type": "terminal/claimed", "claim": {
        "kind": "session", "session": S, "chat": "ahp-chat:/v1-channels/other"}});
    dispatch(&mut raw, T, 1, other).await;
    let rejected = envelope_until(&mut raw, T, |e| e["origin"]["clientSeq"] == 1).await;
    assert!(
        rejected["rejectionReason"]
            .as_str()
            .is_some_and(|r| r.contains("a chat of that session")),
        "{rejected}"
    );
    // A resize over the bounds: refused by the 0.3.0 authorization, in 1.0.
    dispatch(
        &mut raw,
        T,
        2,
        json!({"type": "terminal/resized", "cols": 5000, "rows": 10}),
    )
    .await;
    let rejected = envelope_until(&mut raw, T, |e| e["origin"]["clientSeq"] == 2).await;
    assert!(rejected["rejectionReason"].is_string(), "{rejected}");
    assert_eq!(rejected["action"]["cols"], 5000);

    // A 1.0 resize: echoed with integers to the 1.0 client, applied for the 0.3.0 one.
    dispatch(
        &mut raw,
        T,
        3,
        json!({"type": "terminal/resized", "cols": 90, "rows": 20}),
    )
    .await;
    let echo = envelope_until(&mut raw, T, |e| e["origin"]["clientSeq"] == 3).await;
    assert!(echo.get("rejectionReason").is_none(), "{echo}");
    assert_eq!(echo["action"]["cols"].as_i64(), Some(90), "{echo}");
    loop {
        let e = old.envelope().await;
        if let ahp_wasm::protocol::StateAction::TerminalResized(a) = &e.action {
            assert_eq!(a.cols, 90.0);
            break;
        }
    }

    // Its exit reaches the 1.0 client as `lifecycle`, on the terminal and in the root.
    dispatch(
        &mut raw,
        T,
        4,
        json!({"type": "terminal/input", "data": "exit 3\n"}),
    )
    .await;
    envelope_until(&mut raw, T, |e| e["action"]["type"] == "terminal/exited").await;
    let listed = envelope_until(&mut raw, ROOT_CHANNEL, |e| {
        e["action"]["terminals"][0]["lifecycle"]["status"] == "exited"
    })
    .await;
    assert_eq!(
        listed["action"]["terminals"][0]["lifecycle"]["exitCode"], 3,
        "{listed}"
    );
    let sub = request(&mut raw, 11, "subscribe", json!({"channel": T})).await;
    assert_eq!(
        sub["result"]["snapshot"]["state"]["lifecycle"],
        json!({"status": "exited", "exitCode": 3})
    );
    let root = request(&mut raw, 12, "subscribe", json!({"channel": ROOT_CHANNEL})).await;
    let root: v1::RootState = serde_json::from_value(root["result"]["snapshot"]["state"].clone())
        .expect("a 1.0 root with a terminal");
    assert_eq!(root.terminals.map(|t| t.len()), Some(1));

    let disposed = request(&mut raw, 13, "disposeTerminal", json!({"channel": T})).await;
    assert_eq!(disposed["result"], json!({}), "{disposed}");
    let unknown = request(&mut raw, 14, "disposeTerminal", json!({"channel": T})).await;
    assert_eq!(unknown["error"]["code"], -32008, "{unknown}");
    // The connection still works.
    let ping = request(&mut raw, 15, "ping", json!({"channel": ROOT_CHANNEL})).await;
    assert!(ping.get("result").is_some(), "{ping}");
    old.close().await;
}

#[tokio::test]
async fn a_1_0_client_follows_a_changeset_and_reverts_through_it() {
    let t = start_host().await;
    let dir = t.work.path().canonicalize().unwrap().join("changes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kept.txt"), "kept\n").unwrap();
    let mut raw = raw_v1(&t, "raw-changes").await;
    let created = request(
        &mut raw,
        2,
        "createSession",
        json!({"channel": S, "workingDirectories": [file_uri(&dir)]}),
    )
    .await;
    assert!(created.get("result").is_some(), "{created}");
    let sub = request(&mut raw, 3, "subscribe", json!({"channel": S})).await;
    let listed = &sub["result"]["snapshot"]["state"]["changesets"][0]["uriTemplate"];
    let changeset = match listed.as_str() {
        Some(uri) => uri.to_owned(),
        None => {
            let e = envelope_until(&mut raw, S, |e| {
                e["action"]["type"] == "session/changesetsChanged"
            })
            .await;
            e["action"]["changesets"][0]["uriTemplate"]
                .as_str()
                .expect("a changeset")
                .to_owned()
        }
    };
    let sub = request(&mut raw, 4, "subscribe", json!({"channel": changeset})).await;
    let state: v1::ChangesetState =
        serde_json::from_value(sub["result"]["snapshot"]["state"].clone())
            .unwrap_or_else(|e| panic!("a 1.0 changeset ({e}): {sub}"));
    if state.status != v1::ChangesetStatus::Ready {
        envelope_until(&mut raw, &changeset, |e| {
            e["action"]["type"] == "changeset/statusChanged" && e["action"]["status"] == "ready"
        })
        .await;
    }

    let new = dir.join("new.txt");
    std::fs::write(&new, "one\ntwo\n").unwrap();
    let set = envelope_until(&mut raw, &changeset, |e| {
        e["action"]["type"] == "changeset/fileSet"
    })
    .await;
    assert!(set["action"]["file"].is_object(), "{set}");

    // A 1.0-only dispatch on a changeset: rejected in 1.0, nothing else.
    dispatch(
        &mut raw,
        &changeset,
        1,
        json!({"type": "changeset/filesReviewChanged", "files": ["x"], "reviewed": true}),
    )
    .await;
    let rejected = envelope_until(&mut raw, &changeset, |e| e["origin"]["clientSeq"] == 1).await;
    assert!(rejected["rejectionReason"].is_string(), "{rejected}");

    let unknown = request(
        &mut raw,
        5,
        "invokeChangesetOperation",
        json!({"channel": changeset, "operationId": "no-such-operation"}),
    )
    .await;
    assert!(unknown["error"]["code"].is_i64(), "{unknown}");
    assert!(new.exists(), "a refused operation changes nothing");
    let reverted = request(
        &mut raw,
        6,
        "invokeChangesetOperation",
        json!({"channel": changeset, "operationId": "revert-all", "_meta": {"from": "v1"}}),
    )
    .await;
    let result: v1::InvokeChangesetOperationResult =
        serde_json::from_value(reverted["result"].clone())
            .unwrap_or_else(|e| panic!("a 1.0 result ({e}): {reverted}"));
    let _ = result;
    assert!(!new.exists(), "revert-all deletes the new file");
    assert_eq!(
        std::fs::read_to_string(dir.join("kept.txt")).unwrap(),
        "kept\n"
    );
    // The changeset follows (its envelopes may come before or after the answer).
    let mut id = 100;
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        id += 1;
        let sub = request(&mut raw, id, "subscribe", json!({"channel": changeset})).await;
        let state: v1::ChangesetState =
            serde_json::from_value(sub["result"]["snapshot"]["state"].clone())
                .unwrap_or_else(|e| panic!("a 1.0 changeset ({e}): {sub}"));
        if state.files.is_empty() {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{sub}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_1_0_client_watches_a_directory() {
    let t = start_host().await;
    let root = t.work.path().canonicalize().unwrap();
    let mut raw = raw_v1(&t, "raw-watch").await;
    let outside = tempfile::tempdir().unwrap();
    let refused = request(
        &mut raw,
        2,
        "createResourceWatch",
        json!({"channel": ROOT_CHANNEL, "uri": file_uri(outside.path())}),
    )
    .await;
    assert!(refused["error"]["code"].is_i64(), "{refused}");
    let made = request(
        &mut raw,
        3,
        "createResourceWatch",
        json!({"channel": ROOT_CHANNEL, "uri": file_uri(&root), "recursive": true}),
    )
    .await;
    let made: v1::CreateResourceWatchResult = serde_json::from_value(made["result"].clone())
        .unwrap_or_else(|e| panic!("a 1.0 result ({e}): {made}"));
    let sub = request(&mut raw, 4, "subscribe", json!({"channel": made.channel})).await;
    let state: v1::ResourceWatchState =
        serde_json::from_value(sub["result"]["snapshot"]["state"].clone())
            .unwrap_or_else(|e| panic!("a 1.0 watch ({e}): {sub}"));
    assert_eq!(state.root, file_uri(&root));
    assert!(state.recursive);
    // Give the watcher a moment to start before writing.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let file = root.join("watched.txt");
    std::fs::write(&file, "hi").unwrap();
    let uri = file_uri(&file);
    envelope_until(&mut raw, &made.channel, |e| {
        e["action"]["type"] == "resourceWatch/changed" && e.to_string().contains(&uri)
    })
    .await;
}

#[tokio::test]
async fn a_1_0_client_resolves_config_completes_and_authenticates() {
    let t = start_host().await;
    let mut raw = raw_v1(&t, "raw-config").await;
    let resolved = request(
        &mut raw,
        2,
        "resolveSessionConfig",
        json!({"channel": ROOT_CHANNEL, "config": {"mode": "ask"}, "_meta": {"x": 1}}),
    )
    .await;
    let resolved: v1::ResolveSessionConfigResult =
        serde_json::from_value(resolved["result"].clone())
            .unwrap_or_else(|e| panic!("a 1.0 result ({e}): {resolved}"));
    assert_eq!(resolved.values["mode"], "ask");
    assert_eq!(resolved.values["model"], "echo");
    let bad = request(
        &mut raw,
        3,
        "resolveSessionConfig",
        json!({"channel": ROOT_CHANNEL, "config": {"colour": "red"}}),
    )
    .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let models = request(
        &mut raw,
        4,
        "sessionConfigCompletions",
        json!({"channel": ROOT_CHANNEL, "property": "model"}),
    )
    .await;
    let models: v1::SessionConfigCompletionsResult =
        serde_json::from_value(models["result"].clone())
            .unwrap_or_else(|e| panic!("a 1.0 result ({e}): {models}"));
    assert!(!models.items.is_empty());

    std::fs::write(t.work.path().join("notes.md"), "n").unwrap();
    let created = request(&mut raw, 5, "createSession", json!({"channel": S})).await;
    assert!(created.get("result").is_some(), "{created}");
    let text = "see @not";
    let done = request(
        &mut raw,
        6,
        "completions",
        json!({"channel": C, "kind": "userMessage", "text": text, "offset": 8}),
    )
    .await;
    let done: v1::CompletionsResult = serde_json::from_value(done["result"].clone())
        .unwrap_or_else(|e| panic!("a 1.0 result ({e}): {done}"));
    let item = done
        .items
        .iter()
        .find(|i| i.insert_text.contains("notes.md"))
        .expect("notes.md offered");
    assert_eq!(item.range_start, Some(4));
    assert_eq!(item.range_end, Some(8));
    // 1.0 completes in a chat: the session's channel is not one.
    let on_session = request(
        &mut raw,
        7,
        "completions",
        json!({"channel": S, "kind": "userMessage", "text": text, "offset": 8}),
    )
    .await;
    assert_eq!(on_session["error"]["code"], -32602, "{on_session}");
    // An offset 1.0 refuses (not an integer) and one the host refuses (past the text).
    for (id, offset) in [(8, json!(1.5)), (9, json!(99))] {
        let bad = request(
            &mut raw,
            id,
            "completions",
            json!({"channel": C, "kind": "userMessage", "text": text, "offset": offset}),
        )
        .await;
        assert_eq!(bad["error"]["code"], -32602, "{bad}");
    }

    let ping = request(&mut raw, 10, "ping", json!({"channel": ROOT_CHANNEL})).await;
    assert!(ping.get("result").is_some(), "{ping}");
}

#[tokio::test]
async fn a_1_0_client_authenticates_to_the_protected_agent() {
    const TOKEN: &str = "v1-agent-token-0123456789";
    let secrets = tempfile::tempdir().unwrap();
    let file = secrets.path().join("agent-token");
    std::fs::write(&file, format!("{TOKEN}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let t = start_host_with(|c| {
        c.agent_auth = Some(AgentAuthConfig {
            token_file: file,
            resource: DEFAULT_RESOURCE.into(),
            ttl: Duration::from_secs(3600),
        })
    })
    .await;
    let mut raw = raw_v1(&t, "raw-auth").await;
    let locked = request(&mut raw, 2, "createSession", json!({"channel": S})).await;
    assert_eq!(locked["error"]["code"], -32007, "{locked}");
    let wrong = request(
        &mut raw,
        3,
        "authenticate",
        json!({"channel": ROOT_CHANNEL, "resource": DEFAULT_RESOURCE,
            "token": "not-the-token-0123456789"}),
    )
    .await;
    assert_eq!(wrong["error"]["code"], -32007, "{wrong}");
    // 1.0's extra members (`expiresIn`, `scopes`, `_meta`) are accepted.
    let auth = request(
        &mut raw,
        4,
        "authenticate",
        json!({"channel": ROOT_CHANNEL, "resource": DEFAULT_RESOURCE, "token": TOKEN,
            "expiresIn": 60, "scopes": ["agent"], "_meta": {"from": "v1"}}),
    )
    .await;
    let _: v1::AuthenticateResult = serde_json::from_value(auth["result"].clone())
        .unwrap_or_else(|e| panic!("a 1.0 result ({e}): {auth}"));
    let created = request(&mut raw, 5, "createSession", json!({"channel": S})).await;
    assert!(created.get("result").is_some(), "{created}");
}

#[tokio::test]
async fn one_subscription_limit_holds_for_all_of_a_1_0_clients_channels() {
    let t = start_host_with(|c| c.limits.max_subscriptions = 2).await;
    let mut raw = raw_v1(&t, "raw-limit").await;
    let created = request(&mut raw, 2, "createSession", json!({"channel": S})).await;
    assert!(created.get("result").is_some(), "{created}");
    let claim = json!({"kind": "client", "clientId": "raw-limit"});
    let made = request(
        &mut raw,
        3,
        "createTerminal",
        json!({"channel": T, "claim": claim}),
    )
    .await;
    assert_eq!(made["result"], json!({}), "{made}");
    let other = "ahp-terminal:/v1-term-2";
    let made = request(
        &mut raw,
        4,
        "createTerminal",
        json!({"channel": other, "claim": claim}),
    )
    .await;
    assert_eq!(made["result"], json!({}), "{made}");
    for (id, channel) in [(5, S), (6, T)] {
        let sub = request(&mut raw, id, "subscribe", json!({"channel": channel})).await;
        assert!(sub.get("result").is_some(), "{sub}");
    }
    // A third channel of either kind is over the limit; a repeated one is not.
    for (id, channel) in [(7, other), (8, C), (9, ROOT_CHANNEL)] {
        let sub = request(&mut raw, id, "subscribe", json!({"channel": channel})).await;
        assert_eq!(sub["error"]["code"], -32600, "{sub}");
    }
    let again = request(&mut raw, 10, "subscribe", json!({"channel": T})).await;
    assert!(again.get("result").is_some(), "{again}");
    // Leaving one frees its place.
    let leave = json!({"jsonrpc": "2.0", "method": "unsubscribe", "params": {"channel": T}});
    raw.send_text(leave.to_string()).await;
    let sub = request(&mut raw, 11, "subscribe", json!({"channel": other})).await;
    assert!(sub.get("result").is_some(), "{sub}");
}

/// The host's requests to a client that published a plugin (`resourceList`, `resourceRead`)
/// reach a 1.0 client in the shapes 1.0 has for them (the same as 0.3.0's), and its answers
/// fill the plugin in.
#[tokio::test]
async fn the_host_reads_a_plugin_a_1_0_client_published_from_it() {
    let t = start_host().await;
    let mut raw = raw_v1(&t, "raw-plugin").await;
    let created = request(&mut raw, 2, "createSession", json!({"channel": S})).await;
    assert!(created.get("result").is_some(), "{created}");
    let sub = request(&mut raw, 3, "subscribe", json!({"channel": S})).await;
    assert!(sub.get("result").is_some(), "{sub}");
    let root = "virtual://a/page-skills";
    let skill = format!("{root}/skills/greet/SKILL.md");
    let plugin = json!({"type": "plugin", "id": "page-skills", "uri": root,
        "name": "Skills from the page", "nonce": "n1"});
    dispatch(
        &mut raw,
        S,
        1,
        json!({"type": "session/activeClientSet", "activeClient": {
            "clientId": "raw-plugin", "tools": [], "customizations": [plugin]}}),
    )
    .await;
    let mut requests = Vec::new();
    let serve = async {
        loop {
            let frame = raw.read_frame().await.expect("connection open");
            if let (Some(id), Some(method)) = (frame.get("id"), frame["method"].as_str()) {
                let uri = frame["params"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                let result = match (method, uri.as_str()) {
                    ("resourceList", u) if u == root => {
                        json!({"entries": [{"name": "skills", "type": "directory"}]})
                    }
                    ("resourceList", u) if u == format!("{root}/skills") => {
                        json!({"entries": [{"name": "greet", "type": "directory"}]})
                    }
                    ("resourceList", u) if u == format!("{root}/skills/greet") => {
                        json!({"entries": [{"name": "SKILL.md", "type": "file"}]})
                    }
                    ("resourceRead", u) if u == skill => json!({"data":
                        "---\ndescription: Greets over 1.0.\n---\nSay hello.\n",
                        "encoding": "utf-8", "contentType": "text/markdown"}),
                    _ => {
                        let reply = json!({"jsonrpc": "2.0", "id": id, "error":
                            {"code": -32008, "message": "no such file"}});
                        raw.send_text(reply.to_string()).await;
                        requests.push((method.to_owned(), uri));
                        continue;
                    }
                };
                requests.push((method.to_owned(), uri));
                let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
                raw.send_text(reply.to_string()).await;
            } else if frame["method"] == "action" && frame["params"]["channel"] == S {
                let envelope = &frame["params"];
                assert!(envelope.get("rejectionReason").is_none(), "{envelope}");
                if envelope.to_string().contains("Greets over 1.0.") {
                    return envelope.clone();
                }
            }
        }
    };
    let shown = tokio::time::timeout(WAIT, serve)
        .await
        .unwrap_or_else(|_| panic!("the plugin was never read"));
    let _: v1::StateAction = serde_json::from_value(shown["action"].clone()).expect("a 1.0 action");
    assert!(requests.contains(&("resourceList".to_owned(), root.to_owned())));
    assert!(requests.contains(&("resourceRead".to_owned(), skill)));
}
