//! The changesets of many sessions share one file-system watcher (`dir_watch`): the host's
//! inotify instances do not grow with its sessions (the kernel allows a user 128, shared with
//! every other program), and a change made behind the host's back still reaches every session's
//! changeset. Alone in its test binary: it counts this process's inotify instances.

mod common;

use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// How many inotify instances this process holds (the in-process host's).
fn inotify_instances() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|target| target.to_string_lossy() == "anon_inode:inotify")
        .count()
}

/// The `changes.files` of each session `listSessions` names.
async fn changed_files(c: &mut Client, sessions: &[String]) -> Vec<Value> {
    let list = c
        .call("listSessions", json!({ "channel": ROOT_CHANNEL }))
        .await
        .expect("listSessions");
    sessions
        .iter()
        .map(|uri| {
            list["items"]
                .as_array()
                .expect("items")
                .iter()
                .find(|s| s["resource"] == uri.as_str())
                .map_or(Value::Null, |s| s["changes"]["files"].clone())
        })
        .collect()
}

/// Polls until every session's changeset counts `files` changed files.
async fn until_files(c: &mut Client, sessions: &[String], files: u64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = changed_files(c, sessions).await;
        if now.iter().all(|f| f.as_u64() == Some(files)) {
            return;
        }
        assert!(Instant::now() < deadline, "changed files: {now:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn many_sessions_changesets_share_one_watcher() {
    let t = start_host().await;
    let root = t.work.path().canonicalize().unwrap();
    let mut c = Client::ready(&t.host, "watcher").await;
    let before = inotify_instances();
    let sessions: Vec<String> = (0..8).map(|i| format!("ahp-session:/shared-{i}")).collect();
    for uri in &sessions {
        c.create_session(uri).await;
    }
    // A file command: every session's changeset (all in the working directory) computes, and
    // watches the directories it read.
    c.call(
        "resourceWrite",
        json!({"channel": ROOT_CHANNEL, "uri": ahp_host::resources::file_uri(&root.join("hello.txt")),
               "data": "changed\n", "encoding": "utf-8"}),
    )
    .await
    .expect("resourceWrite");
    until_files(&mut c, &sessions, 1).await;
    let after = inotify_instances();
    // At most the changesets' one watcher and the customizations' one, whatever the number
    // of sessions.
    assert!(
        after <= before + 2,
        "inotify instances: {before} before {} sessions, {after} after",
        sessions.len()
    );

    // Behind the host's back: the shared watcher tells every changeset.
    std::fs::write(root.join("sub/behind-the-host.txt"), "x\n").unwrap();
    until_files(&mut c, &sessions, 2).await;
    t.host.shutdown().await;
}
