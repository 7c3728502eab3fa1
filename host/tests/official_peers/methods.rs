//! Every method of the official 1.0 client, and every 1.0 command it sends with `request`,
//! succeeds against the host, each answer and every frame strict 1.0.

use super::strict::assert_strict;
use super::*;
use ahp_host::resources::file_uri;
use ahp_types_v1::commands as cmd;

#[tokio::test]
async fn every_method_of_the_official_1_0_client_succeeds_and_every_frame_is_strict_1_0() {
    let t = start_host().await;
    let (root, _outside) = t.work_and_outside();
    let uri = |rel: &str| file_uri(&root.join(rel));
    let (client, checked) = connect(&t).await;

    // `ping` before and after `initialize`.
    client.ping().await.expect("ping before initialize");
    let init = client
        .initialize("peers-1".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    assert_eq!(init.protocol_version, "1.0.0");
    client.ping().await.expect("ping");

    let _: Value = client
        .request("createSession", json!({"channel": S}))
        .await
        .expect("createSession");
    let listed: cmd::ListSessionsResult = client
        .request("listSessions", json!({"channel": ROOT}))
        .await
        .expect("listSessions");
    assert!(listed.items.iter().any(|s| s.resource == S), "{listed:?}");

    // The file commands, in the host's working directory.
    let written = "written by the official client";
    client
        .resource_write(params(json!({"channel": ROOT, "uri": uri("peer.txt"),
            "data": written, "encoding": "utf-8", "createOnly": true})))
        .await
        .expect("resourceWrite");
    let read = client
        .resource_read(params(json!({"channel": ROOT, "uri": uri("peer.txt")})))
        .await
        .expect("resourceRead");
    assert_eq!(read.data, written);
    let resolved = client
        .resource_resolve(params(json!({"channel": ROOT, "uri": uri("peer.txt")})))
        .await
        .expect("resourceResolve");
    assert_eq!(resolved.size, Some(written.len() as i64));
    client
        .resource_mkdir(params(json!({"channel": ROOT, "uri": uri("made/deeper")})))
        .await
        .expect("resourceMkdir");
    client
        .resource_copy(params(json!({"channel": ROOT, "source": uri("peer.txt"),
            "destination": uri("made/copy.txt")})))
        .await
        .expect("resourceCopy");
    client
        .resource_move(params(
            json!({"channel": ROOT, "source": uri("made/copy.txt"),
            "destination": uri("made/moved.txt")}),
        ))
        .await
        .expect("resourceMove");
    let listing = client
        .resource_list(params(json!({"channel": ROOT, "uri": uri("made")})))
        .await
        .expect("resourceList");
    let mut names: Vec<_> = listing.entries.iter().map(|e| e.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["deeper", "moved.txt"]);
    client
        .resource_delete(params(
            json!({"channel": ROOT, "uri": uri("made"), "recursive": true}),
        ))
        .await
        .expect("resourceDelete");
    assert!(!root.join("made").exists());
    client
        .resource_request(params(
            json!({"channel": ROOT, "uri": uri("peer.txt"), "read": true}),
        ))
        .await
        .expect("resourceRequest");
    let watch = client
        .create_resource_watch(params(
            json!({"channel": ROOT, "uri": uri(""), "recursive": true}),
        ))
        .await
        .expect("createResourceWatch");
    assert!(
        watch.channel.starts_with("ahp-resource-watch:"),
        "{watch:?}"
    );
    let (_, _watching) = client
        .subscribe(watch.channel.clone())
        .await
        .expect("subscribe to the watch");
    client
        .unsubscribe(watch.channel)
        .await
        .expect("unsubscribe");

    // Config and completions.
    let config: cmd::ResolveSessionConfigResult = client
        .request("resolveSessionConfig", json!({"channel": ROOT}))
        .await
        .expect("resolveSessionConfig");
    assert!(config.values.contains_key("model"), "{config:?}");
    let models = client
        .session_config_completions(params(json!({"channel": ROOT, "property": "model"})))
        .await
        .expect("sessionConfigCompletions");
    assert!(!models.items.is_empty());
    let offered = client
        .completions(params(json!({"channel": C, "kind": "userMessage",
            "text": "see @peer", "offset": 9})))
        .await
        .expect("completions");
    assert!(
        offered
            .items
            .iter()
            .any(|i| i.insert_text.contains("peer.txt")),
        "{offered:?}"
    );

    // A turn, mirrored by the official reducers, then a reconnect on a new connection.
    let mut mirror = Mirror::subscribe(&client, &[S], &[C]).await;
    let mut events = client.events();
    let handle = client
        .dispatch(
            C.into(),
            turn_started("t1", "Hello from the official client\n/write note.txt hi"),
        )
        .await
        .expect("dispatch");
    assert!(handle.client_seq >= 0);
    until_turn_complete(&mut mirror, &mut events, "t1").await;
    mirror.settle(&mut events).await;
    // The agent's file edit, followed live: completed, its text by reference (a `data:` URI
    // the host reads back).
    let turn = serde_json::to_value(&mirror.chats[C].turns[0]).unwrap();
    let call = turn["responseParts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "toolCall")
        .map(|p| p["toolCall"].clone())
        .expect("the write_file call");
    assert_eq!(call["status"], "completed", "{call}");
    let edit = call["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "fileEdit")
        .expect("a fileEdit")
        .clone();
    let after = edit["after"]["content"]["uri"]
        .as_str()
        .expect("a ContentRef");
    let text = client
        .resource_read(params(json!({"channel": ROOT, "uri": after})))
        .await
        .expect("resourceRead of the edit's content");
    assert_eq!(text.data, "hi");
    let _: Value = client
        .request("fetchTurns", json!({"channel": C, "limit": 10}))
        .await
        .expect("fetchTurns");
    assert_strict(&checked, 20);
    client.shutdown().await;

    let (again, checked) = connect(&t).await;
    let reconnected = again
        .reconnect("peers-1".into(), 0, vec![ROOT.into(), S.into(), C.into()])
        .await
        .expect("reconnect");
    let cmd::ReconnectResult::Snapshot(reconnected) = reconnected else {
        panic!("snapshots expected after lastSeenServerSeq 0: {reconnected:?}");
    };
    let mut events = again.events();
    for snapshot in reconnected.snapshots {
        mirror.replace(snapshot);
    }
    again
        .dispatch(C.into(), turn_started("t2", "Again, after a reconnect"))
        .await
        .expect("dispatch");
    until_turn_complete(&mut mirror, &mut events, "t2").await;
    mirror.settle(&mut events).await;
    assert_eq!(mirror.chats[C].turns.len(), 2);

    // The official mirror is the host's state: fresh snapshots on a third connection.
    let (fresh, fresh_checked) = connect(&t).await;
    fresh
        .initialize("peers-fresh".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    mirror.assert_hosts(&fresh).await;

    // The subscribe variants, with advisory delivery and view preferences: a window of the
    // chat's turns, the older ones paged in by `fetchTurns` with its cursor.
    let delivery = cmd::SubscriptionDeliveryOptions {
        max_latency_ms: Some(0),
    };
    let view = cmd::SubscribeView { turns: Some(1) };
    let (windowed, _) = fresh
        .subscribe_with_options(C.into(), Some(delivery.clone()), Some(view))
        .await
        .expect("subscribe_with_options");
    let SnapshotState::Chat(windowed) = windowed.snapshot.expect("a snapshot").state else {
        panic!("a chat snapshot expected");
    };
    assert!(!windowed.turns.is_empty());
    if let Some(cursor) = windowed.turns_next_cursor {
        let _: cmd::FetchTurnsResult = fresh
            .request("fetchTurns", json!({"channel": C, "cursor": cursor}))
            .await
            .expect("fetchTurns with the snapshot's cursor");
    }
    let (delivered, _) = fresh
        .subscribe_with_delivery(S.into(), Some(delivery))
        .await
        .expect("subscribe_with_delivery");
    assert!(delivered.snapshot.is_some());

    // `disposeSession` last: the session leaves the list.
    let _: Value = fresh
        .request("disposeSession", json!({"channel": S}))
        .await
        .expect("disposeSession");
    let listed: cmd::ListSessionsResult = fresh
        .request("listSessions", json!({"channel": ROOT}))
        .await
        .expect("listSessions");
    assert!(listed.items.iter().all(|s| s.resource != S));
    assert_strict(&checked, 5);
    assert_strict(&fresh_checked, 5);
    again.shutdown().await;
    fresh.shutdown().await;
}

#[tokio::test]
async fn the_chat_automation_and_terminal_commands_of_1_0_succeed_strictly() {
    const S2: &str = "ahp-session:/peers-other";
    const D2: &str = "ahp-chat:/peers-other/default";
    const C2: &str = "ahp-chat:/peers/moving";
    const T: &str = "ahp-terminal:/peers";
    const CATALOGUE: &str = "ahp-automations://";
    const AUTOMATION: &str = "ahp-automation:/peers";
    let t = start_host().await;
    let (client, checked) = connect(&t).await;
    client
        .initialize("peers-commands".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    for session in [S, S2] {
        let _: Value = client
            .request("createSession", json!({"channel": session}))
            .await
            .expect("createSession");
    }

    // `createChat`, a turn in it, `moveChat` to the other session, `disposeChat` there.
    let mut mirror = Mirror::subscribe(&client, &[S, S2], &[]).await;
    let mut events = client.events();
    let _: Value = client
        .request("createChat", json!({"channel": S, "chat": C2}))
        .await
        .expect("createChat");
    mirror.add(&client, C2).await;
    client
        .dispatch(C2.into(), turn_started("m1", "Before the move"))
        .await
        .expect("dispatch");
    until_turn_complete(&mut mirror, &mut events, "m1").await;
    assert_eq!(mirror.chats[C2].movable, Some(true));
    let moved: cmd::MoveChatResult = client
        .request(
            "moveChat",
            json!({"channel": C2, "destination": {"kind": "session", "session": S2, "after": D2}}),
        )
        .await
        .expect("moveChat");
    assert_eq!(moved.session, S2);
    mirror.settle(&mut events).await;
    assert_eq!(mirror.chat_uris(S), [C]);
    assert_eq!(mirror.chat_uris(S2), [D2, C2]);
    let (fresh, fresh_checked) = connect(&t).await;
    fresh
        .initialize("peers-commands-fresh".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    mirror.assert_hosts(&fresh).await;

    // A fork of the moved chat's turn, then moved to a new session: the official reducers'
    // mirror follows both and equals the host's snapshots.
    const F: &str = "ahp-chat:/peers-other/fork";
    let fork =
        json!({"channel": S2, "chat": F, "source": {"kind": "fork", "chat": C2, "turnId": "m1"}});
    let _: Value = client
        .request("createChat", fork)
        .await
        .expect("createChat (a fork)");
    mirror.add(&client, F).await;
    mirror.settle(&mut events).await;
    assert_eq!(mirror.chats[F].turns.len(), 1);
    let origin = serde_json::to_value(&mirror.chats[F].origin).unwrap();
    assert_eq!(origin, json!({"kind": "fork", "chat": C2, "turnId": "m1"}));
    assert_eq!(mirror.chat_uris(S2), [D2, C2, F]);
    let moved: cmd::MoveChatResult = client
        .request(
            "moveChat",
            json!({"channel": F, "destination": {"kind": "newSession"}}),
        )
        .await
        .expect("moveChat (a new session)");
    mirror.add(&client, &moved.session).await;
    mirror.settle(&mut events).await;
    assert_eq!(mirror.chat_uris(S2), [D2, C2]);
    let own_default = moved.session.replacen("ahp-session:/", "ahp-chat:/", 1) + "/default";
    assert_eq!(
        mirror.chat_uris(&moved.session),
        [F.to_owned(), own_default]
    );
    mirror.assert_hosts(&fresh).await;
    let _: Value = client
        .request("disposeChat", json!({"channel": C2}))
        .await
        .expect("disposeChat");
    mirror.chats.remove(C2);
    mirror.settle(&mut events).await;
    assert_eq!(mirror.chat_uris(S2), [D2]);
    mirror.assert_hosts(&fresh).await;

    // A terminal claimed by the default chat, then disposed.
    let claim = json!({"kind": "session", "session": S, "chat": C});
    let _: Value = client
        .request(
            "createTerminal",
            json!({"channel": T, "claim": claim, "name": "peers"}),
        )
        .await
        .expect("createTerminal");
    let SnapshotState::Terminal(terminal) = snapshot(&client, T).await.state else {
        panic!("a terminal snapshot expected");
    };
    assert_eq!(serde_json::to_value(&terminal.claim).unwrap(), claim);
    let _: Value = client
        .request("disposeTerminal", json!({"channel": T}))
        .await
        .expect("disposeTerminal");

    // The automation commands: trigger definitions, an automation run now, its runs paged.
    let triggers: cmd::ListAutomationTriggerDefinitionsResult = client
        .request("listAutomationTriggerDefinitions", json!({"channel": ROOT}))
        .await
        .expect("listAutomationTriggerDefinitions");
    assert!(!triggers.items.is_empty(), "{triggers:?}");
    let SnapshotState::Automations(_) = snapshot(&client, CATALOGUE).await.state else {
        panic!("a catalogue snapshot expected");
    };
    let create: StateAction = params(json!({
        "type": "automation/createRequested",
        "resource": AUTOMATION,
        "definition": {
            "title": "Peers",
            "message": {"text": "hi from an automation", "origin": {"kind": "automation"}},
            "session": {},
            "enabled": true,
            "triggers": [],
        },
    }));
    client
        .dispatch(CATALOGUE.into(), create)
        .await
        .expect("dispatch");
    let run = json!({"channel": ROOT, "automation": AUTOMATION, "requestId": "peers-1"});
    let started: cmd::RunAutomationResult = client
        .request("runAutomation", run.clone())
        .await
        .expect("runAutomation");
    assert!(
        started.resource.starts_with("ahp-automation-run:"),
        "{started:?}"
    );
    let again: cmd::RunAutomationResult = client
        .request("runAutomation", run)
        .await
        .expect("runAutomation again");
    assert_eq!(again.resource, started.resource, "the same request id");
    let SnapshotState::AutomationRun(_) = snapshot(&client, &started.resource).await.state else {
        panic!("a run snapshot expected");
    };
    let _: cmd::FetchAutomationRunsResult = client
        .request(
            "fetchAutomationRuns",
            json!({"channel": ROOT, "automation": AUTOMATION}),
        )
        .await
        .expect("fetchAutomationRuns");
    mirror.settle(&mut events).await;

    let answered = checked.lock().unwrap().answered.clone();
    for method in [
        "createChat",
        "moveChat",
        "disposeChat",
        "createTerminal",
        "disposeTerminal",
        "listAutomationTriggerDefinitions",
        "runAutomation",
        "fetchAutomationRuns",
    ] {
        assert!(
            answered.iter().any(|m| m == method),
            "{method} answered: {answered:?}"
        );
    }
    assert_strict(&checked, 20);
    assert_strict(&fresh_checked, 3);
    client.shutdown().await;
    fresh.shutdown().await;
}
