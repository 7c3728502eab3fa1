//! Results of the jobs the hub runs off its thread (changeset comparisons, watchers starting,
//! customization reads), reported back through its queue.

use super::ConnId;
use crate::changes::{Baseline, Computed};
use crate::customize::scan::Layout;
use crate::customize::Scan;
use crate::watches::Opened;
use ahp_wasm::protocol::jsonrpc::{ErrorObject, RequestId};
use std::path::PathBuf;

/// Results of the changeset jobs.
#[derive(Debug)]
pub enum ChangesMsg {
    /// The baseline was taken.
    Baseline {
        /// Changeset URI.
        channel: String,
        /// It.
        baseline: Baseline,
    },
    /// A comparison finished.
    Computed {
        /// Changeset URI.
        channel: String,
        /// Its result.
        result: Result<Computed, String>,
    },
    /// An operation finished.
    Done {
        /// Changeset URI.
        channel: String,
        /// The operation.
        operation: String,
        /// Who asked.
        conn: ConnId,
        /// Its request.
        id: RequestId,
        /// A message for the result, or why it failed.
        result: Result<String, ErrorObject>,
    },
    /// Files under these paths may have changed (file commands, the watcher).
    Touched(Vec<PathBuf>),
}

/// A watcher started (or refused) off the hub for a `createResourceWatch`.
#[derive(Debug)]
pub struct WatchOpened {
    /// The watch channel.
    pub channel: String,
    /// Who asked.
    pub conn: ConnId,
    /// Its request.
    pub id: RequestId,
    /// The watcher, or why not.
    pub result: Result<Opened, ErrorObject>,
}

/// A directory of customizations read for one or more sessions.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CustomizationKey {
    /// The directory.
    pub root: PathBuf,
    /// How its containers are laid out.
    pub layout: Layout,
}

/// A finished read, reported to the hub.
#[derive(Debug)]
pub enum CustomizationRead {
    /// A directory on disk, with the directories to watch from now on.
    Disk {
        /// Which.
        key: CustomizationKey,
        /// What was found.
        scan: Scan,
        /// Directories to watch.
        watch: Vec<PathBuf>,
    },
    /// A client's plugin.
    Client {
        /// Session URI.
        channel: String,
        /// The plugin's id.
        id: String,
        /// Which read (a stale one is ignored).
        generation: u64,
        /// What was found.
        scan: Scan,
    },
}
