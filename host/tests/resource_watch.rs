//! Resource watches against a real host over a real WebSocket, on real files:
//! `createResourceWatch`, subscribing to the `ahp-resource-watch:/<id>` channel, batches of
//! `resourceWatch/changed` (added/updated/deleted, coalesced, never empty, nothing from outside
//! the root), refusals that create nothing, the per-connection limit and the watch's lifetime.

mod common;

use ahp_host::resources::file_uri;
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct Fixture {
    t: TestHost,
    root: PathBuf,
    c: Client,
}

impl Fixture {
    async fn new() -> Fixture {
        let t = start_host().await;
        let root = t.work.path().canonicalize().unwrap();
        let c = Client::ready(&t.host, "watcher").await;
        Fixture { t, root, c }
    }

    /// Creates a watch on `rel` and subscribes to it; returns its channel.
    async fn watch(&mut self, rel: &str, recursive: bool) -> String {
        let path = match rel {
            "" => self.root.clone(),
            rel => self.root.join(rel),
        };
        let channel = create(&mut self.c, &path, recursive)
            .await
            .expect("createResourceWatch succeeds");
        let snapshot = self
            .c
            .call("subscribe", json!({ "channel": channel }))
            .await
            .expect("subscribe succeeds");
        let state = &snapshot["snapshot"]["state"];
        assert_eq!(state["root"], file_uri(&path));
        assert_eq!(state["recursive"], recursive);
        channel
    }
}

async fn create(
    c: &mut Client,
    path: &Path,
    recursive: bool,
) -> Result<String, ahp_wasm::protocol::jsonrpc::ErrorObject> {
    let r = c
        .call(
            "createResourceWatch",
            json!({ "channel": ROOT_CHANNEL, "uri": file_uri(path), "recursive": recursive }),
        )
        .await?;
    let channel = r["channel"].as_str().expect("a channel").to_owned();
    assert!(channel.starts_with("ahp-resource-watch:/"), "{channel}");
    Ok(channel)
}

/// One batch: its changes as (uri, type).
type Batch = Vec<(String, String)>;

/// The next `resourceWatch/changed` batch on `channel` within `wait` (other frames skipped).
/// Every batch is checked to be non-empty.
async fn next_batch(c: &mut Client, channel: &str, wait: Duration) -> Option<Batch> {
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let frame = c.frame_within(left).await?.expect("connection open");
        if frame["method"] != "action" || frame["params"]["channel"] != channel {
            continue;
        }
        let action = &frame["params"]["action"];
        assert_eq!(action["type"], "resourceWatch/changed");
        assert!(frame["params"]["serverSeq"].as_u64().is_some());
        let items = action["changes"]["items"].as_array().expect("items");
        assert!(!items.is_empty(), "an empty batch arrived: {frame}");
        return Some(
            items
                .iter()
                .map(|i: &Value| {
                    (
                        i["uri"].as_str().unwrap().to_owned(),
                        i["type"].as_str().unwrap().to_owned(),
                    )
                })
                .collect(),
        );
    }
}

/// Batches until one holds a change of `uri` with a type in `types`; all of them returned.
async fn batches_until(c: &mut Client, channel: &str, uri: &str, types: &[&str]) -> Vec<Batch> {
    let mut all = Vec::new();
    loop {
        let batch = next_batch(c, channel, WAIT)
            .await
            .unwrap_or_else(|| panic!("no change of {uri} ({types:?}) within {WAIT:?}: {all:?}"));
        let hit = batch
            .iter()
            .any(|(u, t)| u == uri && types.contains(&t.as_str()));
        all.push(batch);
        if hit {
            return all;
        }
    }
}

#[tokio::test]
async fn writes_and_deletes_are_reported_once_each() {
    let mut f = Fixture::new().await;
    let channel = f.watch("", true).await;
    let file = f.root.join("new.txt");
    let uri = file_uri(&file);
    std::fs::write(&file, "one").unwrap();
    let batches = batches_until(&mut f.c, &channel, &uri, &["added", "updated"]).await;
    let last = batches.last().unwrap();
    assert_eq!(
        last.iter().filter(|(u, _)| *u == uri).count(),
        1,
        "repeated events on one path are merged: {last:?}"
    );
    // A file that existed before: `updated`.
    let hello = file_uri(&f.root.join("hello.txt"));
    std::fs::write(f.root.join("hello.txt"), "changed").unwrap();
    batches_until(&mut f.c, &channel, &hello, &["updated"]).await;
    std::fs::remove_file(&file).unwrap();
    batches_until(&mut f.c, &channel, &uri, &["deleted"]).await;
    // Nested (recursive).
    let inner = file_uri(&f.root.join("sub/inner.txt"));
    std::fs::write(f.root.join("sub/inner.txt"), "x").unwrap();
    batches_until(&mut f.c, &channel, &inner, &["updated"]).await;
}

#[tokio::test]
async fn a_burst_of_writes_coalesces_and_nothing_empty_is_sent() {
    let mut f = Fixture::new().await;
    let channel = f.watch("", true).await;
    let file = f.root.join("burst.txt");
    let uri = file_uri(&file);
    // 40 writes, one every 5 ms: closer together than the batching window, so they are one
    // burst (without the window each would be a batch of its own).
    for i in 0..40 {
        std::fs::write(&file, format!("{i}")).unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    std::fs::write(f.root.join("marker.txt"), "m").unwrap();
    let marker = file_uri(&f.root.join("marker.txt"));
    let batches = batches_until(&mut f.c, &channel, &marker, &["added"]).await;
    let with_file = batches
        .iter()
        .filter(|b| b.iter().any(|(u, _)| *u == uri))
        .count();
    assert!(
        (1..=5).contains(&with_file),
        "40 writes coalesce into few batches: {batches:?}"
    );
    for b in &batches {
        assert!(b.iter().filter(|(u, _)| *u == uri).count() <= 1, "{b:?}");
    }
    // A file created and removed within one burst leaves nothing to report: no batch at all
    // (and never an empty one).
    let blip = f.root.join("blip.txt");
    std::fs::write(&blip, "b").unwrap();
    std::fs::remove_file(&blip).unwrap();
    if let Some(batch) = next_batch(&mut f.c, &channel, Duration::from_millis(800)).await {
        panic!("a burst with nothing left to report sent {batch:?}");
    }
}

#[tokio::test]
async fn a_non_recursive_watch_reports_direct_children_only_and_nothing_leaks() {
    let mut f = Fixture::new().await;
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), f.root.join("linkdir")).unwrap();
    let flat = f.watch("", false).await;
    let mut other = Client::ready(&f.t.host, "recursive").await;
    let deep = create(&mut other, &f.root, true).await.unwrap();
    other
        .call("subscribe", json!({ "channel": deep }))
        .await
        .unwrap();
    std::fs::write(f.root.join("sub/nested.txt"), "n").unwrap();
    std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
    std::fs::write(f.root.join("top.txt"), "t").unwrap();
    let top = file_uri(&f.root.join("top.txt"));
    let nested = file_uri(&f.root.join("sub/nested.txt"));
    let batches = batches_until(&mut f.c, &flat, &top, &["added"]).await;
    for b in &batches {
        assert!(
            b.iter().all(|(u, _)| *u != nested),
            "nested reported: {b:?}"
        );
    }
    // The recursive one sees the nested file, and nothing through the link to the outside.
    let mut seen: Vec<Batch> = Vec::new();
    while !seen.iter().flatten().any(|(u, _)| *u == nested)
        || !seen.iter().flatten().any(|(u, _)| *u == top)
    {
        let batch = next_batch(&mut other, &deep, WAIT).await;
        seen.push(batch.unwrap_or_else(|| panic!("nested and top within {WAIT:?}: {seen:?}")));
    }
    for b in &seen {
        for (u, _) in b {
            assert!(u.starts_with(&file_uri(&f.root)), "outside the root: {u}");
            assert!(
                !u.contains("linkdir") && !u.contains("secret"),
                "leaked: {u}"
            );
        }
    }
    // A watch on one file.
    let file = f.watch("hello.txt", false).await;
    std::fs::write(f.root.join("hello.txt"), "again").unwrap();
    let hello = file_uri(&f.root.join("hello.txt"));
    batches_until(&mut f.c, &file, &hello, &["updated"]).await;
}

#[tokio::test]
async fn bad_params_are_refused_and_create_nothing_and_the_limit_holds() {
    let mut f = Fixture::new().await;
    let outside = tempfile::tempdir().unwrap();
    let cases = [
        (
            json!({ "channel": ROOT_CHANNEL, "uri": file_uri(outside.path()) }),
            errors::PERMISSION_DENIED,
        ),
        (
            json!({ "channel": ROOT_CHANNEL, "uri": file_uri(&f.root.join("..")) }),
            errors::PERMISSION_DENIED,
        ),
        (
            json!({ "channel": ROOT_CHANNEL, "uri": file_uri(&f.root.join("missing.txt")) }),
            errors::NOT_FOUND,
        ),
        (
            json!({ "channel": ROOT_CHANNEL, "uri": file_uri(&f.root), "recursive": "yes" }),
            errors::INVALID_PARAMS,
        ),
        (
            json!({ "channel": ROOT_CHANNEL, "uri": 7 }),
            errors::INVALID_PARAMS,
        ),
        (json!({ "channel": ROOT_CHANNEL }), errors::INVALID_PARAMS),
        (
            json!({ "channel": ROOT_CHANNEL, "uri": "https://example.test/x" }),
            errors::INVALID_PARAMS,
        ),
        (
            json!({ "channel": "ahp-session:/x", "uri": file_uri(&f.root) }),
            errors::INVALID_PARAMS,
        ),
        (
            json!({ "channel": ROOT_CHANNEL, "uri": file_uri(&f.root), "excludes": { "items": "*.log" } }),
            errors::INVALID_PARAMS,
        ),
    ];
    for (params, code) in cases {
        let e =
            f.c.call("createResourceWatch", params.clone())
                .await
                .expect_err(&format!("{params} is refused"));
        assert_eq!(e.code, code, "{params}: {e:?}");
        assert!(!e.message.is_empty());
    }
    // Refusals took no slot: the whole per-connection limit is still there.
    let mut channels = Vec::new();
    for _ in 0..16 {
        channels.push(create(&mut f.c, &f.root, true).await.unwrap());
    }
    let e = create(&mut f.c, &f.root, false)
        .await
        .expect_err("the 17th watch is refused");
    assert_eq!(e.code, errors::INVALID_REQUEST, "{e:?}");
    assert!(e.message.contains("16"), "{}", e.message);
    // Another connection has its own limit.
    let mut other = Client::ready(&f.t.host, "other").await;
    create(&mut other, &f.root, false).await.unwrap();
    // Unsubscribing releases a watch (and its slot).
    let first = channels[0].clone();
    f.c.call("subscribe", json!({ "channel": first }))
        .await
        .unwrap();
    f.c.send_text(
        json!({ "jsonrpc": "2.0", "method": "unsubscribe", "params": { "channel": first } })
            .to_string(),
    )
    .await;
    let e =
        f.c.call("subscribe", json!({ "channel": first }))
            .await
            .expect_err("a released watch is gone");
    assert_eq!(e.code, errors::NOT_FOUND);
    create(&mut f.c, &f.root, false)
        .await
        .expect("the released slot is free again");
}

#[tokio::test]
async fn a_closed_connections_unsubscribed_watches_end_and_subscribed_ones_stay() {
    let mut f = Fixture::new().await;
    let mut owner = Client::ready(&f.t.host, "owner").await;
    let kept = create(&mut owner, &f.root, true).await.unwrap();
    let dropped = create(&mut owner, &f.root, true).await.unwrap();
    // Another connection subscribes to one of them.
    f.c.call("subscribe", json!({ "channel": kept }))
        .await
        .unwrap();
    // The same client id connecting again takes over: the hub drops the old connection
    // before it answers the new one's handshake, so what follows sees it gone.
    let _takeover = Client::ready(&f.t.host, "owner").await;
    let e =
        f.c.call("subscribe", json!({ "channel": dropped }))
            .await
            .expect_err("the closed owner's unsubscribed watch ended");
    assert_eq!(e.code, errors::NOT_FOUND);
    // The subscribed one still reports.
    std::fs::write(f.root.join("still.txt"), "s").unwrap();
    let still = file_uri(&f.root.join("still.txt"));
    batches_until(&mut f.c, &kept, &still, &["added"]).await;
}
