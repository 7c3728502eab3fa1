//! One file-system watcher (the `notify` crate) shared by everything of a kind that follows
//! directories: the customizations' containers (`hub/customizations`) and the changesets
//! (`hub/changesets.rs`) each hold one, never one per session, so a host uses one inotify
//! instance per kind (the kernel allows a user 128 by default, shared with every other program).
//! Watches are non-recursive, on exactly the directories a read listed (so their number is
//! bounded by the read's bounds), reference-counted across their users. Changes are debounced —
//! gathered until [`QUIET`] passes without one, or [`MAX_DELAY`] after the first — and handed to
//! the hub as one message (`report`); reads (`open`, `close` without writing) are not changes,
//! so the host's own reads never wake it.

use crate::bus::{HubMsg, HubSender};
use crate::debounce::{burst, is_change, MAX_DELAY, QUIET};
use notify::{RecursiveMode, Watcher as _};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;

/// Events queued between the watcher's thread and the debouncer; past it, everything is
/// read again (`overflow`).
const QUEUE: usize = 4096;

/// The shared file-system watcher of one kind of user.
pub struct Watcher {
    inner: Option<notify::RecommendedWatcher>,
    /// Watched directory → how many users want it.
    counts: HashMap<PathBuf, usize>,
}

impl Watcher {
    /// A watcher whose debounced changes go to the hub as `report(paths, overflow)` (`overflow`:
    /// events were lost, so everything should be read again). Without a working watcher (no
    /// inotify instances left, say) its users still read, just are not kept up to date; that
    /// is said once on stderr, naming `what` is watched.
    pub fn new(
        hub: HubSender,
        rt: &tokio::runtime::Handle,
        what: &str,
        report: fn(Vec<PathBuf>, bool) -> HubMsg,
    ) -> Watcher {
        let (tx, mut rx) = mpsc::channel::<Vec<PathBuf>>(QUEUE);
        let overflow = Arc::new(AtomicBool::new(false));
        let flag = overflow.clone();
        let inner = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            let paths = match res {
                Ok(event) if is_change(&event.kind) => event.paths,
                Ok(_) => return,
                // An error (e.g. the kernel's queue overflowed): read everything again.
                Err(_) => Vec::new(),
            };
            if paths.is_empty() || tx.try_send(paths).is_err() {
                flag.store(true, Ordering::Relaxed);
                let _ = tx.try_send(Vec::new());
            }
        });
        let inner = match inner {
            Ok(w) => Some(w),
            Err(e) => {
                eprintln!("ahp-host: cannot watch {what} ({e}); changes on disk are not followed");
                None
            }
        };
        rt.spawn(async move {
            while let Some(first) = rx.recv().await {
                let Some(burst) = burst(&mut rx, first, QUIET, MAX_DELAY).await else {
                    return;
                };
                let paths: HashSet<PathBuf> = burst.into_iter().collect();
                let overflow = overflow.swap(false, Ordering::Relaxed);
                let msg = report(paths.into_iter().collect(), overflow);
                if hub.send(msg).await.is_err() {
                    return;
                }
            }
        });
        Watcher {
            inner,
            counts: HashMap::new(),
        }
    }

    /// One more user wants `dir` watched.
    pub fn add(&mut self, dir: &Path) {
        let count = self.counts.entry(dir.to_path_buf()).or_insert(0);
        *count += 1;
        if *count == 1 {
            if let Some(w) = &mut self.inner {
                // A directory that vanished in between is noticed by its parent's watch.
                let _ = w.watch(dir, RecursiveMode::NonRecursive);
            }
        }
    }

    /// One user less wants `dir` watched.
    pub fn remove(&mut self, dir: &Path) {
        if let Some(count) = self.counts.get_mut(dir) {
            *count -= 1;
            if *count == 0 {
                self.counts.remove(dir);
                if let Some(w) = &mut self.inner {
                    let _ = w.unwatch(dir);
                }
            }
        }
    }

    /// How many directories are watched.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether nothing is watched.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}
