//! The 1.0 commands that need a protected agent or a working directory: `authenticate`, and
//! `invokeChangesetOperation` on a session's changeset, with the official client, every
//! answer and frame strict 1.0.

use super::strict::assert_strict;
use super::*;
use ahp_host::agent_auth::{AgentAuthConfig, DEFAULT_RESOURCE};
use ahp_host::resources::file_uri;
use ahp_types_v1::commands as cmd;

/// A fresh snapshot of `uri` (as JSON) once it satisfies `done`.
async fn snapshot_until(client: &Client, uri: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let state = serde_json::to_value(snapshot(client, uri).await.state).unwrap();
        if done(&state) {
            return state;
        }
        assert!(tokio::time::Instant::now() < deadline, "{uri}: {state}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn authenticate_and_a_changeset_operation_answer_strictly() {
    const TOKEN: &str = "peers-agent-token-0123456789";
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
    let (client, checked) = connect(&t).await;
    client
        .initialize("peers-guarded".into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    let _: cmd::AuthenticateResult = client
        .request(
            "authenticate",
            json!({"channel": ROOT, "resource": DEFAULT_RESOURCE, "token": TOKEN}),
        )
        .await
        .expect("authenticate");

    // A session on a working directory, its changeset, a new file reverted through it.
    let dir = t.work.path().canonicalize().unwrap().join("changes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kept.txt"), "kept\n").unwrap();
    let _: Value = client
        .request(
            "createSession",
            json!({"channel": S, "workingDirectories": [file_uri(&dir)]}),
        )
        .await
        .expect("createSession");
    let session = snapshot_until(&client, S, |s| s["changesets"][0].is_object()).await;
    let changeset = session["changesets"][0]["uriTemplate"]
        .as_str()
        .expect("a changeset")
        .to_owned();
    snapshot_until(&client, &changeset, |c| c["status"] == "ready").await;
    let new = dir.join("new.txt");
    std::fs::write(&new, "one\ntwo\n").unwrap();
    snapshot_until(&client, &changeset, |c| {
        c["files"].as_array().is_some_and(|f| !f.is_empty())
    })
    .await;
    let _: cmd::InvokeChangesetOperationResult = client
        .request(
            "invokeChangesetOperation",
            json!({"channel": changeset, "operationId": "revert-all"}),
        )
        .await
        .expect("invokeChangesetOperation");
    assert!(!new.exists(), "revert-all deletes the new file");
    snapshot_until(&client, &changeset, |c| {
        c["files"].as_array().is_some_and(|f| f.is_empty())
    })
    .await;

    let answered = checked.lock().unwrap().answered.clone();
    for method in ["authenticate", "invokeChangesetOperation"] {
        assert!(
            answered.iter().any(|m| m == method),
            "{method} answered: {answered:?}"
        );
    }
    assert_strict(&checked, 8);
    client.shutdown().await;
}
