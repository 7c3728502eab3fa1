//! Debouncing file-system events (the `notify` crate's): which events are changes, and
//! gathering a burst of them into one. Shared by the directory watchers of customizations and
//! changesets (`dir_watch`) and resource watches (`watches`).

use notify::event::{AccessKind, AccessMode};
use notify::EventKind;
use std::time::Duration;
use tokio::sync::mpsc;

/// A burst of changes ends after this long without another (customizations and changesets;
/// resource watches have bounds of their own).
pub const QUIET: Duration = Duration::from_millis(100);
/// ... or this long after its first change.
pub const MAX_DELAY: Duration = Duration::from_secs(1);

/// Whether an event may change what a read finds.
pub fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// Gathers a burst: `first` and whatever follows on `rx` until `quiet` passes without more, or
/// `max_delay` after the burst began. `None` when `rx` closed meanwhile (the watcher is gone).
pub async fn burst<T>(
    rx: &mut mpsc::Receiver<Vec<T>>,
    first: Vec<T>,
    quiet: Duration,
    max_delay: Duration,
) -> Option<Vec<T>> {
    let mut items = first;
    let deadline = tokio::time::Instant::now() + max_delay;
    loop {
        tokio::select! {
            more = rx.recv() => items.extend(more?),
            _ = tokio::time::sleep(quiet) => return Some(items),
            _ = tokio::time::sleep_until(deadline) => return Some(items),
        }
    }
}
