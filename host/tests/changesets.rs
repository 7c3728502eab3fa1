//! Changesets against a real host over a real WebSocket, on real files: a session in a git
//! repository (made with the git CLI) compares with `HEAD`, one in a plain directory with the
//! snapshot taken when it started; `/write`, file commands and plain writes on disk show up
//! with line counts; `revert` and `revert-all` restore the bytes (and delete new files); bad
//! input is refused with a JSON-RPC error and changes nothing.

mod common;

use ahp_host::resources::file_uri;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::{errors, ChangesetState, ChangesetStatus, StateAction};
use ahp_wasm::reduce::{changeset_reducer, FixedClock};
use common::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// A client's mirror of one changeset, kept with the SDK's reducer.
struct Mirror {
    channel: String,
    state: ChangesetState,
}

impl Mirror {
    async fn subscribe(c: &mut Client, channel: &str) -> Mirror {
        let r = c
            .call("subscribe", json!({ "channel": channel }))
            .await
            .expect("subscribe to the changeset");
        let state =
            serde_json::from_value(r["snapshot"]["state"].clone()).expect("a ChangesetState");
        Mirror {
            channel: channel.to_owned(),
            state,
        }
    }

    /// A session `uri` working in `dir`, its changeset subscribed and `ready`.
    async fn ready_in(c: &mut Client, uri: &str, dir: &Path) -> Mirror {
        let channel = session_in(c, uri, dir).await;
        let mut m = Mirror::subscribe(c, &channel).await;
        m.until(c, "ready", |s| s.status == ChangesetStatus::Ready)
            .await;
        m
    }

    /// Applies this channel's envelopes until `done` holds (other frames are skipped).
    async fn until(&mut self, c: &mut Client, what: &str, done: impl Fn(&ChangesetState) -> bool) {
        let deadline = Instant::now() + WAIT;
        while !done(&self.state) {
            let left = deadline.saturating_duration_since(Instant::now());
            let frame = c
                .frame_within(left)
                .await
                .unwrap_or_else(|| panic!("timed out waiting for {what}: {:#?}", self.files()))
                .expect("connection open");
            if frame["method"] == "action" && frame["params"]["channel"] == self.channel.as_str() {
                let action: StateAction =
                    serde_json::from_value(frame["params"]["action"].clone()).unwrap();
                let _ = changeset_reducer(&mut self.state, &action, &FixedClock(0.0));
            }
        }
    }

    /// (path, status, added, removed) of every file.
    fn files(&self) -> Vec<Row> {
        files_of(&self.state)
    }

    fn has(&self, path: &str) -> bool {
        self.files().iter().any(|f| f.0 == path)
    }
}

/// (path, status, added, removed) of a changeset's file.
type Row = (String, String, Option<f64>, Option<f64>);

/// The row of a file whose line counts are known.
fn row(path: &str, status: &str, added: f64, removed: f64) -> Row {
    (path.into(), status.into(), Some(added), Some(removed))
}

fn files_of(state: &ChangesetState) -> Vec<Row> {
    state
        .files
        .iter()
        .map(|f| {
            let meta = f.meta.as_ref().expect("_meta");
            let diff = f.edit.diff.as_ref();
            (
                meta["path"].as_str().unwrap().to_owned(),
                meta["status"].as_str().unwrap().to_owned(),
                diff.and_then(|d| d.added),
                diff.and_then(|d| d.removed),
            )
        })
        .collect()
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// Creates a session in `dir`, and answers its changeset URI from the catalogue.
async fn session_in(c: &mut Client, uri: &str, dir: &Path) -> String {
    let snapshot = c.create_session_in(uri, dir).await;
    // The catalogue is published once the baseline is taken: in the snapshot, or soon after.
    if let Some(entry) = snapshot.changesets.as_ref().and_then(|c| c.first()) {
        return entry.uri_template.clone();
    }
    loop {
        let e = c.envelope().await;
        if let StateAction::SessionChangesetsChanged(a) = &e.action {
            let entry = &a.changesets.as_ref().expect("a catalogue")[0];
            assert!(entry.uri_template.starts_with("ahp-changeset:/"));
            return entry.uri_template.clone();
        }
    }
}

async fn invoke(
    c: &mut Client,
    channel: &str,
    op: &str,
    target: Option<Value>,
) -> Result<Value, i64> {
    let mut params = json!({ "channel": channel, "operationId": op });
    if let Some(t) = target {
        params["target"] = t;
    }
    c.call("invokeChangesetOperation", params)
        .await
        .map_err(|e| e.code)
}

fn resource(path: &Path) -> Option<Value> {
    Some(json!({ "kind": "resource", "resource": file_uri(path) }))
}

async fn summary_changes(c: &mut Client, uri: &str) -> Value {
    let r = c
        .call("listSessions", json!({ "channel": ROOT_CHANNEL }))
        .await
        .unwrap();
    r["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["resource"] == uri)
        .expect("the session is listed")["changes"]
        .clone()
}

#[tokio::test]
async fn a_git_working_directory_compares_with_head_and_reverts() {
    let t = start_host().await;
    let repo = t.work.path().canonicalize().unwrap().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("tracked.txt"), "one\ntwo\n").unwrap();
    std::fs::write(repo.join(".gitignore"), "*.log\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    std::fs::write(repo.join("build.log"), "ignored\n").unwrap();
    // Uncommitted before the session starts: against HEAD (not a start snapshot) it is a change.
    std::fs::write(repo.join("early.txt"), "early\n").unwrap();

    let mut c = Client::ready(&t.host, "git").await;
    let uri = "ahp-session:/git";
    let mut m = Mirror::ready_in(&mut c, uri, &repo).await;
    let channel = m.channel.clone();
    m.until(&mut c, "early.txt", |s| !s.files.is_empty()).await;
    assert_eq!(m.files(), vec![row("early.txt", "added", 1.0, 0.0)]);
    let ops: Vec<&str> = m
        .state
        .operations
        .iter()
        .flatten()
        .map(|o| o.id.as_str())
        .collect();
    assert_eq!(ops, ["revert", "revert-all"]);

    c.send_message(
        uri,
        "t1",
        "/write notes.txt hello\\nworld\n/write tracked.txt one\\n2\\n",
    )
    .await;
    // (`until_turn_end` would skip the changeset's envelopes: the mirror reads them all.)
    // Until the comparison saw the finished writes (one may run while a file is written).
    let expected: Vec<Row> = vec![
        row("early.txt", "added", 1.0, 0.0),
        row("notes.txt", "added", 2.0, 0.0),
        row("tracked.txt", "modified", 1.0, 1.0),
    ];
    m.until(&mut c, "the expected files", |s| files_of(s) == expected)
        .await;
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
        "hello\nworld"
    );
    let tracked = &m.state.files[2];
    assert_eq!(tracked.id, file_uri(&repo.join("tracked.txt")));
    let unified = tracked.meta.as_ref().unwrap()["unifiedDiff"]
        .as_str()
        .unwrap();
    assert!(unified.contains("-two\n+2\n"), "{unified}");
    assert!(!m.has("build.log"), "ignored files are not listed");
    let summary = summary_changes(&mut c, uri).await;
    assert_eq!(summary, json!({"additions": 4, "deletions": 1, "files": 3}));

    // Revert one file: the committed bytes are back and it leaves the changeset.
    let r = invoke(
        &mut c,
        &channel,
        "revert",
        resource(&repo.join("tracked.txt")),
    )
    .await;
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(
        std::fs::read(repo.join("tracked.txt")).unwrap(),
        b"one\ntwo\n"
    );
    m.until(&mut c, "tracked.txt gone", |s| s.files.len() == 2)
        .await;
    assert!(m.has("notes.txt") && !m.has("tracked.txt"));

    // Revert all: the new file is deleted, the ignored one left alone.
    invoke(&mut c, &channel, "revert-all", None).await.unwrap();
    assert!(!repo.join("notes.txt").exists() && !repo.join("early.txt").exists());
    assert!(repo.join("build.log").exists());
    m.until(&mut c, "an empty changeset", |s| s.files.is_empty())
        .await;
    let ops = m.state.operations.as_ref().unwrap();
    assert!(ops
        .iter()
        .all(|o| o.status == ahp_wasm::protocol::ChangesetOperationStatus::Idle));
}

#[tokio::test]
async fn a_plain_directory_compares_with_its_start_and_follows_file_commands() {
    let t = start_host().await;
    let root = t.work.path().canonicalize().unwrap();
    let mut c = Client::ready(&t.host, "plain").await;
    let uri = "ahp-session:/plain";
    let mut m = Mirror::ready_in(&mut c, uri, &root).await;
    let channel = m.channel.clone();
    assert!(m.state.files.is_empty(), "{:?}", m.files());

    // A file command, a delete, and a write behind the host's back (the watcher).
    c.call(
        "resourceWrite",
        json!({"channel": ROOT_CHANNEL, "uri": file_uri(&root.join("hello.txt")),
               "data": "changed\n", "encoding": "utf-8"}),
    )
    .await
    .unwrap();
    m.until(&mut c, "hello.txt", |s| s.files.len() == 1).await;
    c.call(
        "resourceDelete",
        json!({"channel": ROOT_CHANNEL, "uri": file_uri(&root.join("sub/inner.txt"))}),
    )
    .await
    .unwrap();
    m.until(&mut c, "inner.txt", |s| s.files.len() == 2).await;
    std::fs::write(root.join("sub/outside-the-host.txt"), "x\n").unwrap();
    // Until the comparison saw the finished writes (one may run while a file is written).
    let expected: Vec<Row> = vec![
        row("hello.txt", "modified", 1.0, 1.0),
        row("sub/inner.txt", "deleted", 0.0, 1.0),
        row("sub/outside-the-host.txt", "added", 1.0, 0.0),
    ];
    m.until(&mut c, "the expected files", |s| files_of(s) == expected)
        .await;
    let deleted = &m.state.files[1];
    assert!(deleted.edit.after.is_none() && deleted.edit.before.is_some());

    invoke(&mut c, &channel, "revert-all", None).await.unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("hello.txt")).unwrap(),
        "hello from the working directory\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("sub/inner.txt")).unwrap(),
        "inner\n"
    );
    assert!(!root.join("sub/outside-the-host.txt").exists());
    m.until(&mut c, "an empty changeset", |s| s.files.is_empty())
        .await;
    assert_eq!(
        summary_changes(&mut c, uri).await,
        json!({"additions": 0, "deletions": 0, "files": 0})
    );
}

#[tokio::test]
async fn bad_operations_are_refused_and_change_nothing() {
    let t = start_host().await;
    let root = t.work.path().canonicalize().unwrap();
    let mut c = Client::ready(&t.host, "bad").await;
    let uri = "ahp-session:/bad";
    let mut m = Mirror::ready_in(&mut c, uri, &root).await;
    let channel = m.channel.clone();
    std::fs::write(root.join("hello.txt"), "edited\n").unwrap();
    m.until(&mut c, "hello.txt", |s| s.files.len() == 1).await;
    let hello = resource(&root.join("hello.txt"));

    let cases: Vec<(&str, String, &str, Option<Value>, i64)> = vec![
        (
            "unknown operation",
            channel.clone(),
            "stage",
            hello.clone(),
            errors::INVALID_PARAMS,
        ),
        (
            "unknown changeset",
            "ahp-changeset:/nope/changeset/session".into(),
            "revert",
            hello.clone(),
            errors::NOT_FOUND,
        ),
        (
            "outside the working directory",
            channel.clone(),
            "revert",
            Some(json!({"kind": "resource", "resource": "file:///etc/passwd"})),
            errors::INVALID_PARAMS,
        ),
        (
            "through ..",
            channel.clone(),
            "revert",
            Some(json!({"kind": "resource",
                        "resource": format!("{}/sub/../../x", file_uri(&root))})),
            errors::INVALID_PARAMS,
        ),
        (
            "a file not in the changeset",
            channel.clone(),
            "revert",
            resource(&root.join("sub/inner.txt")),
            errors::INVALID_PARAMS,
        ),
        (
            "revert without a target",
            channel.clone(),
            "revert",
            None,
            errors::INVALID_PARAMS,
        ),
        (
            "revert-all with a target",
            channel.clone(),
            "revert-all",
            hello.clone(),
            errors::INVALID_PARAMS,
        ),
        (
            "a range",
            channel.clone(),
            "revert",
            Some(
                json!({"kind": "range", "resource": file_uri(&root.join("hello.txt")),
                        "range": {"start": {"line": 0, "character": 0},
                                  "end": {"line": 1, "character": 0}}}),
            ),
            errors::INVALID_PARAMS,
        ),
    ];
    for (what, ch, op, target, code) in cases {
        let r = invoke(&mut c, &ch, op, target).await;
        assert_eq!(r, Err(code), "{what}");
    }
    // Malformed params are the params' error.
    let r = c
        .call("invokeChangesetOperation", json!({"channel": channel}))
        .await;
    assert_eq!(r.unwrap_err().code, errors::INVALID_PARAMS);
    // Nothing changed: the edit is still there, every operation idle.
    assert_eq!(
        std::fs::read_to_string(root.join("hello.txt")).unwrap(),
        "edited\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("sub/inner.txt")).unwrap(),
        "inner\n"
    );
    assert!(m.has("hello.txt"));
    assert!(m
        .state
        .operations
        .iter()
        .flatten()
        .all(|o| o.status == ahp_wasm::protocol::ChangesetOperationStatus::Idle));

    // A listed file whose directory became a link out of the working directory: the revert
    // does not follow it (refused either way: outside, or no longer a file of the changeset).
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("f.txt"), "outside\n").unwrap();
    std::fs::create_dir(root.join("dir")).unwrap();
    std::fs::write(root.join("dir/f.txt"), "inside\n").unwrap();
    m.until(&mut c, "dir/f.txt", |s| s.files.len() == 2).await;
    let revert_status = |m: &Mirror| {
        m.state
            .operations
            .iter()
            .flatten()
            .find(|o| o.id == "revert")
            .unwrap()
            .status
            .clone()
    };
    std::fs::rename(root.join("dir"), root.join("dir-moved")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("dir")).unwrap();
    let r = invoke(
        &mut c,
        &channel,
        "revert",
        resource(&root.join("dir/f.txt")),
    )
    .await;
    assert!(
        r == Err(errors::PERMISSION_DENIED) || r == Err(errors::INVALID_PARAMS),
        "{r:?}"
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("f.txt")).unwrap(),
        "outside\n"
    );
    if r == Err(errors::PERMISSION_DENIED) {
        // It ran and failed: the operation says so until the next invocation.
        m.until(&mut c, "revert in error", |s| {
            s.operations.iter().flatten().any(|o| {
                o.id == "revert" && o.status == ahp_wasm::protocol::ChangesetOperationStatus::Error
            })
        })
        .await;
        assert!(revert_status(&m) == ahp_wasm::protocol::ChangesetOperationStatus::Error);
    }
    std::fs::remove_file(root.join("dir")).unwrap();
    std::fs::remove_dir_all(root.join("dir-moved")).unwrap();
    m.until(&mut c, "dir/f.txt gone", |s| s.files.len() == 1)
        .await;

    // Disposing the session clears the changeset and it is gone.
    c.call("disposeSession", json!({ "channel": uri }))
        .await
        .unwrap();
    m.until(&mut c, "cleared", |s| s.files.is_empty()).await;
    let r = c.call("subscribe", json!({ "channel": channel })).await;
    assert_eq!(r.unwrap_err().code, errors::NOT_FOUND);
}

#[tokio::test]
async fn a_changeset_is_resumed_by_reconnect_with_the_missed_actions() {
    let t = start_host().await;
    let root = t.work.path().canonicalize().unwrap();
    let mut a = Client::ready(&t.host, "rc").await;
    let uri = "ahp-session:/rc";
    let mut m = Mirror::ready_in(&mut a, uri, &root).await;
    let channel = m.channel.clone();
    // A fresh snapshot: the serverSeq it is current at.
    let seen = a
        .call("subscribe", json!({ "channel": channel }))
        .await
        .unwrap()["snapshot"]["fromSeq"]
        .as_u64()
        .unwrap();
    drop(a);

    // A change while nobody is connected, seen by another client.
    let mut o = Client::ready(&t.host, "observer").await;
    let mut watching = Mirror::subscribe(&mut o, &channel).await;
    std::fs::write(root.join("while-away.txt"), "x\n").unwrap();
    watching
        .until(&mut o, "while-away.txt", |s| s.files.len() == 1)
        .await;

    let mut b = Client::connect(&t.host, "rc").await;
    let result = b
        .reconnect(seen, vec![channel.clone(), "ahp-changeset:/nope".into()])
        .await
        .unwrap();
    let ahp_wasm::protocol::jsonrpc::ReconnectResult::Replay(replay) = result else {
        panic!("replay expected")
    };
    assert_eq!(replay.missing, vec!["ahp-changeset:/nope".to_string()]);
    for e in replay.actions.iter().filter(|e| e.channel == channel) {
        let _ = changeset_reducer(&mut m.state, &e.action, &FixedClock(0.0));
    }
    assert_eq!(
        m.state, watching.state,
        "the replay brings the mirror up to date"
    );
}

/// Runs git in `dir` with `input` on its stdin; answers its stdout, trimmed.
fn git_with(dir: &Path, args: &[&str], input: &str) -> String {
    use std::io::Write as _;
    let mut child = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Every file under `dir` with its mode and bytes (what must stay byte for byte).
fn files_with_modes(dir: &Path) -> std::collections::BTreeMap<String, (u32, Vec<u8>)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            let rel = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .display()
                .to_string();
            if meta.is_dir() {
                stack.push(entry.path());
                out.insert(rel, (meta.permissions().mode(), Vec::new()));
            } else {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                out.insert(rel, (meta.permissions().mode(), bytes));
            }
        }
    }
    out
}

/// A commit whose tree lists `.git/hooks/pre-commit`, `.git/config` and git's other names for
/// `.git` (case, trailing dots and spaces, an NTFS stream, the 8.3 short name `git~1`, HFS+
/// ignorable characters, a `.git` in a subdirectory, a backslash-separated name): what a clone
/// of a hostile repository leaves in `HEAD` after "invalid path". Plumbing does not check names.
fn commit_a_tree_naming_git(repo: &Path) {
    let blob = |text: &str| git_with(repo, &["hash-object", "-w", "--stdin"], text);
    let mktree = |entries: &[(&str, &str)]| {
        let listing: String = entries
            .iter()
            .map(|(entry, name)| format!("{entry}\t{name}\n"))
            .collect();
        git_with(repo, &["mktree"], &listing)
    };
    let hook = blob("#!/bin/sh\ntouch pwned\n");
    let config = blob("[core]\n\tfsmonitor = touch pwned\n");
    let x = blob("x\n");
    let tracked = blob("one\ntwo\n");
    let hooks = mktree(&[(&format!("100755 blob {hook}"), "pre-commit")]);
    let dot_git = mktree(&[
        (&format!("100644 blob {config}"), "config"),
        (&format!("040000 tree {hooks}"), "hooks"),
    ]);
    let x_dir = mktree(&[(&format!("100644 blob {x}"), "x")]);
    let sub = mktree(&[
        (&format!("040000 tree {x_dir}"), ".git"),
        (&format!("100644 blob {x}"), "keep.txt"),
    ]);
    let dir = |t: &str| format!("040000 tree {t}");
    let root = mktree(&[
        (&dir(&dot_git), ".git"),
        (&dir(&dot_git), ".GIT"),
        (&dir(&x_dir), ".Git"),
        (&dir(&x_dir), ".git."),
        (&dir(&x_dir), ".git. ."),
        (&dir(&x_dir), "git~1"),
        (&dir(&x_dir), "GIT~1"),
        (&dir(&x_dir), ".git::$INDEX_ALLOCATION"),
        (&dir(&x_dir), ".g\u{200c}it"),
        (&dir(&x_dir), "a\\.git"),
        (&dir(&sub), "sub"),
        (&format!("100644 blob {tracked}"), "tracked.txt"),
    ]);
    let commit = git_with(
        repo,
        &["commit-tree", &root, "-p", "HEAD", "-m", "evil"],
        "",
    );
    git(repo, &["update-ref", "HEAD", &commit]);
}

#[tokio::test]
async fn a_head_tree_naming_git_paths_is_never_listed_nor_written() {
    let t = start_host().await;
    let repo = t.work.path().canonicalize().unwrap().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("tracked.txt"), "one\ntwo\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    commit_a_tree_naming_git(&repo);
    std::fs::create_dir(repo.join("sub")).unwrap();
    std::fs::write(repo.join("sub/keep.txt"), "x\n").unwrap();
    // Two real changes.
    std::fs::write(repo.join("tracked.txt"), "one\n2\n").unwrap();
    std::fs::write(repo.join("new.txt"), "new\n").unwrap();
    let dot_git_before = files_with_modes(&repo.join(".git"));

    let mut c = Client::ready(&t.host, "git-names").await;
    let uri = "ahp-session:/git-names";
    let mut m = Mirror::ready_in(&mut c, uri, &repo).await;
    let channel = m.channel.clone();
    m.until(&mut c, "tracked.txt", |s| {
        files_of(s).iter().any(|f| f.0 == "tracked.txt")
    })
    .await;
    let listed: Vec<String> = m.files().into_iter().map(|f| f.0).collect();
    assert_eq!(
        listed,
        ["new.txt", "tracked.txt"],
        "no path naming `.git` is listed"
    );

    // Reverting a path inside `.git` (or a variant) is refused; nothing is written.
    for path in [
        ".git/config",
        ".git/hooks/pre-commit",
        ".GIT/config",
        "sub/.git/x",
    ] {
        let r = invoke(&mut c, &channel, "revert", resource(&repo.join(path))).await;
        assert_eq!(r, Err(errors::INVALID_PARAMS), "revert of {path}");
    }

    // Revert all: exactly the two real changes, and it converges.
    let r = invoke(&mut c, &channel, "revert-all", None).await.unwrap();
    assert_eq!(r["message"], "Reverted 2 files");
    assert_eq!(
        std::fs::read(repo.join("tracked.txt")).unwrap(),
        b"one\ntwo\n"
    );
    assert!(!repo.join("new.txt").exists());
    assert!(
        files_with_modes(&repo.join(".git")) == dot_git_before,
        "`.git` is byte for byte unchanged"
    );
    for variant in [".GIT", "git~1", ".git.", "sub/.git", "pwned"] {
        assert!(!repo.join(variant).exists(), "{variant} was not created");
    }
    m.until(&mut c, "an empty changeset", |s| s.files.is_empty())
        .await;
    let r = invoke(&mut c, &channel, "revert-all", None).await.unwrap();
    assert_eq!(r["message"], "Reverted 0 files");
    assert!(files_with_modes(&repo.join(".git")) == dot_git_before);
}
