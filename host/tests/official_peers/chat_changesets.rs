//! A chat's changesets catalogue (`ChatState.changesets`): every chat of a session works in the
//! session's one directory, so each chat lists the session's changeset; a chat moved to another
//! session keeps working in its directory, and keeps listing that directory's. Followed by the official 1.0 client and its reducers, equal to
//! fresh snapshots at the end.

use super::*;
use ahp_host::resources::file_uri;

/// A new directory `name` under the host's work directory, as a `file:` URI.
fn directory(t: &TestHost, name: &str) -> String {
    let dir = t.work.path().canonicalize().unwrap().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    file_uri(&dir)
}

/// The changesets catalogue of mirrored session or chat `uri`, as JSON.
fn catalogue(mirror: &Mirror, uri: &str) -> Value {
    match mirror.sessions.get(uri) {
        Some(session) => serde_json::to_value(&session.changesets).unwrap(),
        None => serde_json::to_value(&mirror.chats[uri].changesets).unwrap(),
    }
}

#[tokio::test]
async fn every_chat_lists_its_directorys_changeset_and_keeps_it_when_moved() {
    const S2: &str = "ahp-session:/peers-other";
    const C2: &str = "ahp-chat:/peers-second";
    let t = start_host().await;
    let client = connect_v1(&t, "changesets-a").await;
    for (session, dir) in [(S, "one"), (S2, "two")] {
        let _: Value = client
            .request(
                "createSession",
                json!({"channel": session, "workingDirectories": [directory(&t, dir)]}),
            )
            .await
            .expect("createSession");
    }
    let _: Value = client
        .request("createChat", json!({"channel": S, "chat": C2}))
        .await
        .expect("createChat");
    let mut events = client.events();
    let mut mirror = Mirror::subscribe(&client, &[S, S2], &[C, C2]).await;
    let deadline = tokio::time::Instant::now() + WAIT;
    while catalogue(&mirror, S).is_null() || catalogue(&mirror, S2).is_null() {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the sessions' changesets within the timeout")
            .expect("connected");
        mirror.apply(&event);
    }
    mirror.settle(&mut events).await;
    let of_s = catalogue(&mirror, S);
    assert!(of_s[0]["uriTemplate"].is_string(), "{of_s}");
    assert_eq!(catalogue(&mirror, C), of_s);
    assert_eq!(catalogue(&mirror, C2), of_s);
    assert_ne!(catalogue(&mirror, S2), of_s, "each session has its own");

    let destination = json!({"kind": "session", "session": S2});
    let _: Value = client
        .request(
            "moveChat",
            json!({"channel": C2, "destination": destination}),
        )
        .await
        .expect("moveChat");
    mirror.settle(&mut events).await;
    assert_eq!(mirror.chat_uris(S2)[0], C2);
    assert_eq!(catalogue(&mirror, C2), of_s);
    assert_eq!(catalogue(&mirror, C), of_s);

    let fresh = connect_v1(&t, "changesets-fresh").await;
    mirror.assert_hosts(&fresh).await;
    client.shutdown().await;
    fresh.shutdown().await;
}
