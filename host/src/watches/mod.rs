//! Resource watches: `createResourceWatch` and its `ahp-resource-watch:/<id>` channels
//! (spec/resource-watch-channel.md), over the `notify` crate.
//!
//! - Opening ([`open`]): the root URI is confined by the `resource*` [`Sandbox`] (a root outside
//!   the working directory is `PermissionDenied`, a missing one `NotFound`); `includes` and
//!   `excludes` are refused (`InvalidParams`) as not supported by this host. Symlinks are not
//!   followed into (`notify`'s `follow_symlinks(false)`).
//! - Batching ([`spawn_batcher`]): the watcher's events are gathered into bursts (until
//!   [`QUIET`] passes without one, or [`MAX_DELAY`] after the first), repeated events on one
//!   path are merged into one change, and each burst is classified against the file system
//!   then ([`classify`]): a path that exists is `added` if the burst created it (or renamed it
//!   there), else `updated`; one that does not is `deleted`, unless the burst created it (a
//!   file born and gone within one burst is not reported). A burst with nothing left is not
//!   sent: there is never an empty batch.
//! - Filtering: every path is resolved like a `resource*` command's entry ([`Sandbox::entry`]:
//!   its parent with every link followed, its name kept) and must stay under the watch's root,
//!   so events seen through a link to the outside never leak. A non-recursive watch reports
//!   the root and its direct children only. Paths with a `.git` component below the root are
//!   the repository's internals and are not reported (a host policy: the spec leaves reporting
//!   to the receiver; `resourceList`/`resourceRead` still serve them).
//! - Bounds: at most [`MAX_PENDING`] distinct paths per burst; past that the rest of the burst
//!   is dropped and the batch ends with an `updated` change on the root itself ("read the root
//!   again"), as when the kernel's queue overflowed. A batch holds at most [`MAX_BATCH`]
//!   changes; a larger burst goes out as several batches, in path order.
//!
//! The hub side (ownership, subscriptions, limits, the channel) is in `hub/watches.rs`.

use crate::debounce::{burst, is_change};
use crate::resources::{file_uri, uri_path, Sandbox};
use ahp_wasm::protocol::jsonrpc::{ErrorObject, ROOT_CHANNEL};
use ahp_wasm::protocol::{
    errors, CreateResourceWatchParams, ResourceChange, ResourceChangeType, ResourceWatchState,
};
use notify::event::ModifyKind;
use notify::{EventKind, RecursiveMode, Watcher as _};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// The prefix of every watch channel URI.
pub const SCHEME: &str = "ahp-resource-watch:/";
/// Watches one connection may own at once.
pub const MAX_PER_CONNECTION: usize = 16;
/// Watches the host keeps at once (each holds an inotify instance).
pub const MAX_PER_HOST: usize = 64;
/// Most changes in one `resourceWatch/changed` batch.
pub const MAX_BATCH: usize = 256;
/// Most distinct paths gathered in one burst.
pub const MAX_PENDING: usize = 4096;
/// A burst ends after this long without another event...
pub const QUIET: Duration = Duration::from_millis(60);
/// ... or this long after its first.
pub const MAX_DELAY: Duration = Duration::from_millis(500);
/// Event lists queued between the watcher's thread and the batcher; past it, `overflow`.
const QUEUE: usize = 1024;

/// One path an event named, and whether the event may have created it there.
type Seen = (PathBuf, bool);

/// A started watcher, not yet registered with the hub.
pub struct Opened {
    /// The watcher: dropping it releases the watch (and ends its batcher).
    pub watcher: notify::RecommendedWatcher,
    /// What the watcher saw.
    events: mpsc::Receiver<Vec<Seen>>,
    /// Set when events were lost.
    overflow: Arc<AtomicBool>,
    /// The canonical root.
    root: PathBuf,
    /// The channel's state (never changes).
    pub state: ResourceWatchState,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened").field("root", &self.root).finish()
    }
}

fn invalid(msg: impl Into<String>) -> ErrorObject {
    ErrorObject::new(errors::INVALID_PARAMS, msg)
}

/// Checks `createResourceWatch`'s params (cheap: no file system access).
pub fn check(p: &CreateResourceWatchParams) -> Result<(), ErrorObject> {
    if p.channel != ROOT_CHANNEL {
        return Err(invalid(format!(
            "invalid params at `channel`: `createResourceWatch` is sent on `{ROOT_CHANNEL}`"
        )));
    }
    if p.includes.is_some() || p.excludes.is_some() {
        return Err(invalid(
            "`includes` and `excludes` are not supported by this host; watch without them",
        ));
    }
    uri_path(&p.uri).map(|_| ())
}

/// Validates the root in the sandbox and starts watching it. Blocking: a recursive watch
/// walks the tree.
pub fn open(sandbox: &Sandbox, p: &CreateResourceWatchParams) -> Result<Opened, ErrorObject> {
    check(p)?;
    let root = sandbox.existing(&uri_path(&p.uri)?)?;
    let recursive = p.recursive.unwrap_or(false);
    let (tx, events) = mpsc::channel::<Vec<Seen>>(QUEUE);
    let overflow = Arc::new(AtomicBool::new(false));
    let flag = overflow.clone();
    let handler = move |res: notify::Result<notify::Event>| {
        let seen: Vec<Seen> = match res {
            Ok(event) if is_change(&event.kind) => {
                let created = matches!(
                    event.kind,
                    EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_))
                );
                event.paths.into_iter().map(|p| (p, created)).collect()
            }
            Ok(_) => return,
            // An error (e.g. the kernel's queue overflowed): events were lost.
            Err(_) => Vec::new(),
        };
        if seen.is_empty() || tx.try_send(seen).is_err() {
            flag.store(true, Ordering::Relaxed);
            let _ = tx.try_send(Vec::new());
        }
    };
    let config = notify::Config::default().with_follow_symlinks(false);
    let fail = |e: notify::Error| {
        ErrorObject::new(
            errors::INTERNAL_ERROR,
            format!("cannot watch the resource: {e}"),
        )
    };
    let mut watcher = notify::RecommendedWatcher::new(handler, config).map_err(fail)?;
    let mode = if recursive {
        RecursiveMode::Recursive
    } else {
        RecursiveMode::NonRecursive
    };
    watcher.watch(&root, mode).map_err(fail)?;
    let state = ResourceWatchState {
        root: file_uri(&root),
        recursive,
        excludes: None,
        includes: None,
        extra: Default::default(),
    };
    Ok(Opened {
        watcher,
        events,
        overflow,
        root,
        state,
    })
}

/// A fresh, unguessable watch channel URI.
pub fn new_channel() -> String {
    let mut bytes = [0u8; 12];
    let _ = getrandom::fill(&mut bytes);
    let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{SCHEME}{id}")
}

/// Runs the watch's batcher: every batch of changes goes to `send` (in order), until the
/// watcher is dropped or `send` answers `false`. Returns the watcher to keep alive.
pub fn spawn_batcher<F, Fut>(
    opened: Opened,
    recursive: bool,
    sandbox: Sandbox,
    rt: &tokio::runtime::Handle,
    mut send: F,
) -> notify::RecommendedWatcher
where
    F: FnMut(Vec<ResourceChange>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let Opened {
        watcher,
        mut events,
        overflow,
        root,
        ..
    } = opened;
    rt.spawn(async move {
        while let Some(first) = events.recv().await {
            let Some(seen) = burst(&mut events, first, QUIET, MAX_DELAY).await else {
                return;
            };
            let lost = overflow.swap(false, Ordering::Relaxed);
            let (sandbox, root) = (sandbox.clone(), root.clone());
            let changes = tokio::task::spawn_blocking(move || {
                classify(&sandbox, &root, recursive, seen, lost)
            })
            .await
            .unwrap_or_default();
            if changes.is_empty() {
                // Nothing left to report: no batch at all, never an empty one.
                continue;
            }
            for batch in changes.chunks(MAX_BATCH) {
                if !send(batch.to_vec()).await {
                    return;
                }
            }
        }
    });
    watcher
}

/// The changes of one burst (see the module docs), in path order.
pub fn classify(
    sandbox: &Sandbox,
    root: &Path,
    recursive: bool,
    seen: Vec<Seen>,
    mut lost: bool,
) -> Vec<ResourceChange> {
    let mut merged: BTreeMap<PathBuf, bool> = BTreeMap::new();
    for (path, created) in seen {
        if merged.len() >= MAX_PENDING && !merged.contains_key(&path) {
            lost = true;
            continue;
        }
        *merged.entry(path).or_default() |= created;
    }
    let mut changes = Vec::new();
    for (path, created) in merged {
        let Some(path) = reported(sandbox, root, recursive, &path) else {
            continue;
        };
        let exists = std::fs::symlink_metadata(&path).is_ok();
        let r#type = match (exists, created) {
            (true, true) => ResourceChangeType::Added,
            (true, false) => ResourceChangeType::Updated,
            (false, false) => ResourceChangeType::Deleted,
            (false, true) => continue,
        };
        changes.push(change(&path, r#type));
    }
    let root_uri = file_uri(root);
    if lost && !changes.iter().any(|c| c.uri == root_uri) {
        changes.push(change(root, ResourceChangeType::Updated));
    }
    changes
}

fn change(path: &Path, r#type: ResourceChangeType) -> ResourceChange {
    ResourceChange {
        uri: file_uri(path),
        r#type,
        extra: Default::default(),
    }
}

/// The path to report for an event's path, if it is reported at all: resolved inside the
/// sandbox (parent followed, name kept), under `root`, a direct child (or the root) for a
/// non-recursive watch, and not inside a `.git` directory.
fn reported(sandbox: &Sandbox, root: &Path, recursive: bool, path: &Path) -> Option<PathBuf> {
    let resolved = sandbox.entry(path).ok()?;
    let rel = resolved.strip_prefix(root).ok()?;
    if !recursive && rel.components().count() > 1 {
        return None;
    }
    if rel
        .components()
        .any(|c| c == Component::Normal(".git".as_ref()))
    {
        return None;
    }
    Some(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_merge_filter_and_never_leak() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("sub/.git")).unwrap();
        std::fs::write(root.join("a"), "").unwrap();
        std::fs::write(root.join("sub/b"), "").unwrap();
        std::fs::write(outside.path().join("secret"), "").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("link")).unwrap();
        let sandbox = Sandbox::new(&root, 1024).unwrap();
        let seen = vec![
            (root.join("a"), false),
            (root.join("a"), true),
            (root.join("sub/b"), false),
            (root.join("gone"), false),
            (root.join("blip"), true),
            (root.join("sub/.git/index"), false),
            (root.join("link/secret"), false),
        ];
        let changes = classify(&sandbox, &root, true, seen.clone(), false);
        let got: Vec<(String, ResourceChangeType)> =
            changes.into_iter().map(|c| (c.uri, c.r#type)).collect();
        assert_eq!(
            got,
            vec![
                (file_uri(&root.join("a")), ResourceChangeType::Added),
                (file_uri(&root.join("gone")), ResourceChangeType::Deleted),
                (file_uri(&root.join("sub/b")), ResourceChangeType::Updated),
            ]
        );
        let flat = classify(&sandbox, &root, false, seen, false);
        assert_eq!(flat.len(), 2, "{flat:?}");
        let lost = classify(&sandbox, &root, true, Vec::new(), true);
        assert_eq!(lost.len(), 1);
        assert_eq!(lost[0].uri, file_uri(&root));
        assert!(classify(&sandbox, &root, true, Vec::new(), false).is_empty());
    }
}
