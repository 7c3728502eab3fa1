//! The sessions' customizations (see `crate::customize`): containers in
//! `SessionState.customizations`, each published with `session/customizationUpdated` as
//! `loading` (no `children`) and then with its children and `loaded` | `degraded` | `error`.
//!
//! - Host containers: each `--plugins DIR` (a `PluginCustomization` `plugin/<dir name>`) and
//!   four `DirectoryCustomization`s in the session's working directory (`dir/skills`,
//!   `dir/agents`, `dir/prompts`, `dir/rules` for `.agents/<kind>/`, writable). A directory is
//!   read once for all the sessions that show it, off the hub (the blocking pool), and read
//!   again when its watcher reports a change; a session's entry changes only when what it
//!   shows changed.
//! - Client plugins (`client_plugins.rs`): the active client's `ClientPluginCustomization`s, read back from that
//!   client (`resourceList`/`resourceRead`, `customize::client`), shown with `clientId`; read
//!   again when a publication changes the `nonce` (or has none), removed when the client
//!   releases the role or another client takes it (a disconnect releases it).
//! - Toggles are the reducer's (`enabled`); a container read again keeps its `enabled`.
//!
//! After a restart, a session's containers are read again when it is next used (subscribed to
//! or given a turn), as its MCP servers are started.

use super::client_plugins::ClientRun;
use super::{Hub, HubMsg};
use crate::bus::{CustomizationKey as Key, CustomizationRead as Read};
use crate::customize::disk::DiskSource;
use crate::customize::scan::{self, Bounds, Layout};
use crate::customize::watch::Watcher;
use crate::customize::{self, child_json, ActiveCustomization, ChildKind, Scan};
use crate::resources::file_uri;
use ahp_wasm::protocol::{Customization, StateAction};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The working directory's containers: (id, directory, kind).
const WORKDIR_DIRS: [(&str, &str, ChildKind); 4] = [
    ("dir/skills", ".agents/skills", ChildKind::Skill),
    ("dir/agents", ".agents/agents", ChildKind::Agent),
    ("dir/prompts", ".agents/prompts", ChildKind::Prompt),
    ("dir/rules", ".agents/rules", ChildKind::Rule),
];

/// Most folders watched for one container (a plugin with a thousand skill folders does not
/// take a thousand watches).
const MAX_WATCHED_DIRS: usize = 256;

/// Whether `id` is one the host mints for its containers (clients may not publish such ids).
pub(super) fn is_host_id(id: &str) -> bool {
    ["plugin/", "dir/", "mcp/", "mcp-config/"]
        .iter()
        .any(|p| id.starts_with(p))
}

struct Disk {
    source: DiskSource,
    layout: Layout,
    root: PathBuf,
    /// Watched while the root is missing, at most this high up.
    floor: PathBuf,
    scan: Option<Arc<Scan>>,
    reading: bool,
    /// Changed while being read: read again.
    dirty: bool,
    watched: Vec<PathBuf>,
    /// (session, container id).
    users: HashSet<(String, String)>,
}

struct HostEntry {
    id: String,
    key: Key,
    /// Name shown until (or unless) a manifest names it.
    name: String,
    layout: Layout,
}

#[derive(Default)]
pub(super) struct SessionCustoms {
    host: Vec<HostEntry>,
    pub(super) client: Vec<ClientRun>,
}

/// All customizations of the host.
#[derive(Default)]
pub(super) struct Customs {
    disk: HashMap<Key, Disk>,
    by_dir: HashMap<PathBuf, HashSet<Key>>,
    pub(super) sessions: HashMap<String, SessionCustoms>,
    lazy: HashSet<String>,
    watcher: Option<Watcher>,
    pub(super) generation: u64,
}

pub(super) fn top_id(c: &Customization) -> Option<&str> {
    match c {
        Customization::Plugin(p) => Some(&p.id),
        Customization::Directory(d) => Some(&d.id),
        Customization::McpServer(m) => Some(&m.id),
        Customization::Unknown(u) => u.0.get("id").and_then(Value::as_str),
    }
}

fn updated(value: Value) -> StateAction {
    serde_json::from_value(json!({"type": "session/customizationUpdated", "customization": value}))
        .expect("a customizationUpdated action")
}

pub(super) fn removed(id: &str) -> StateAction {
    serde_json::from_value(json!({"type": "session/customizationRemoved", "id": id}))
        .expect("a customizationRemoved action")
}

/// The children of a read as protocol JSON; `uri_of` maps a relative file to its URI.
fn children(id: &str, scan: &Scan, uri_of: impl Fn(&str) -> String) -> Value {
    Value::Array(
        scan.children
            .iter()
            .map(|c| child_json(id, c, uri_of(&c.rel)))
            .collect(),
    )
}

/// The load state and children of a container (`loading` and none before its first read).
pub(super) fn fill(
    o: &mut serde_json::Map<String, Value>,
    id: &str,
    scan: Option<&Scan>,
    uri_of: impl Fn(&str) -> String,
) {
    match scan {
        None => {
            o.insert("load".into(), json!({"kind": "loading"}));
            o.remove("children");
        }
        Some(scan) => {
            o.insert("load".into(), scan.load.json());
            o.insert("children".into(), children(id, scan, uri_of));
        }
    }
}

/// The directories to watch after a read: those it listed and, while the root is missing,
/// its nearest existing ancestor (not above `floor`), where it would appear.
fn watch_dirs(root: &Path, floor: &Path, scan: &Scan) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = scan
        .dirs
        .iter()
        .map(|rel| {
            if rel.is_empty() {
                root.to_path_buf()
            } else {
                root.join(rel)
            }
        })
        .collect();
    if !scan.root_exists {
        let mut at = root.parent();
        while let Some(dir) = at {
            if dir.is_dir() {
                dirs.push(dir.to_path_buf());
                break;
            }
            if dir == floor || !dir.starts_with(floor) {
                break;
            }
            at = dir.parent();
        }
    }
    dirs.sort();
    dirs.dedup();
    // Sorted, the root (a prefix of the others) comes first and is always kept.
    dirs.truncate(MAX_WATCHED_DIRS);
    dirs
}

impl Hub {
    /// The session's container entry `id` in its state.
    pub(super) fn custom_entry(&self, channel: &str, id: &str) -> Option<&Customization> {
        self.sessions
            .get(channel)?
            .state
            .customizations
            .as_ref()?
            .iter()
            .find(|c| top_id(c) == Some(id))
    }

    pub(super) fn custom_enabled(&self, channel: &str, id: &str) -> Option<bool> {
        match self.custom_entry(channel, id)? {
            Customization::Plugin(p) => Some(p.enabled),
            Customization::Directory(d) => Some(d.enabled),
            _ => None,
        }
    }

    /// Publishes a container when it differs from the session's entry.
    pub(super) fn custom_publish(&mut self, channel: &str, value: Value) {
        let id = value["id"].as_str().unwrap_or_default().to_owned();
        let entry = customize::customization(value.clone());
        if self.custom_entry(channel, &id) == Some(&entry) {
            return;
        }
        self.apply_server(channel, updated(value));
    }

    /// A host container's entry as the session shows it now.
    fn host_json(&self, channel: &str, entry: &HostEntry) -> Value {
        let enabled = self.custom_enabled(channel, &entry.id).unwrap_or(true);
        let scan = self
            .customs
            .disk
            .get(&entry.key)
            .and_then(|d| d.scan.as_deref());
        let root = &entry.key.root;
        let mut v = match entry.layout {
            Layout::Plugin => json!({
                "type": "plugin",
                "id": entry.id,
                "uri": file_uri(root),
                "name": scan.and_then(|s| s.name.clone()).unwrap_or_else(|| entry.name.clone()),
                "enabled": enabled,
            }),
            Layout::Directory(kind) => json!({
                "type": "directory",
                "id": entry.id,
                "uri": file_uri(root),
                "name": entry.name,
                "enabled": enabled,
                "contents": kind.as_str(),
                "writable": true,
            }),
        };
        let o = v.as_object_mut().expect("an object");
        fill(o, &entry.id, scan, |rel| file_uri(&root.join(rel)));
        v
    }

    /// Reads the session's host containers (publishing them as `loading` first when the
    /// session does not show them yet) and its client plugins.
    pub(super) fn custom_open(&mut self, channel: &str) {
        let Some(session) = self.sessions.get(channel) else {
            return;
        };
        let workdir = self.session_workdir(&session.state);
        let mut entries = Vec::new();
        let mut seen = HashSet::new();
        for dir in &self.plugins {
            let root = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
            let base = root
                .file_name()
                .map_or_else(|| "plugin".into(), |n| n.to_string_lossy().into_owned());
            let mut id = format!("plugin/{base}");
            let mut n = 1;
            while !seen.insert(id.clone()) {
                n += 1;
                id = format!("plugin/{base}-{n}");
            }
            let floor = root.parent().unwrap_or(&root).to_path_buf();
            entries.push((id, base, root.clone(), root, floor, Layout::Plugin));
        }
        for (id, rel, kind) in WORKDIR_DIRS {
            let root = workdir.join(rel);
            entries.push((
                id.to_owned(),
                rel.to_owned(),
                root,
                workdir.clone(),
                workdir.clone(),
                Layout::Directory(kind),
            ));
        }
        // Host containers this host no longer has (flags changed across a restart) go.
        let stale: Vec<String> = session
            .state
            .customizations
            .iter()
            .flatten()
            .filter_map(top_id)
            .filter(|id| {
                (id.starts_with("plugin/") || id.starts_with("dir/"))
                    && !entries.iter().any(|e| e.0 == *id)
            })
            .map(str::to_owned)
            .collect();
        for id in stale {
            self.apply_server(channel, removed(&id));
        }
        self.custom_close_host(channel);
        let mut host = Vec::new();
        for (id, name, root, boundary, floor, layout) in entries {
            let key = Key {
                root: root.clone(),
                layout,
            };
            let disk = self
                .customs
                .disk
                .entry(key.clone())
                .or_insert_with(|| Disk {
                    source: DiskSource::new(&root, &boundary),
                    layout,
                    root,
                    floor,
                    scan: None,
                    reading: false,
                    dirty: false,
                    watched: Vec::new(),
                    users: HashSet::new(),
                });
            disk.users.insert((channel.to_owned(), id.clone()));
            // A working-directory container that does not exist (the usual case) is known at
            // once, empty: one `stat`, no read, and no `loading` in between.
            let missing = disk.scan.is_none()
                && matches!(layout, Layout::Directory(_))
                && std::fs::symlink_metadata(&disk.root).is_err();
            if missing {
                let scan = Scan {
                    name: None,
                    load: customize::Load::Loaded,
                    children: Vec::new(),
                    dirs: Vec::new(),
                    root_exists: false,
                };
                let watch = watch_dirs(&disk.root, &disk.floor, &scan);
                disk.scan = Some(Arc::new(scan));
                self.custom_set_watches(&key, watch);
            }
            let Some(disk) = self.customs.disk.get(&key) else {
                continue;
            };
            let fresh = disk.scan.is_none();
            host.push(HostEntry {
                id,
                key: key.clone(),
                name,
                layout,
            });
            let entry = host.last().expect("just pushed");
            // A session restored with its entry keeps showing it until the new read is in.
            if !fresh || self.custom_entry(channel, &entry.id).is_none() {
                let v = self.host_json(channel, entry);
                self.custom_publish(channel, v);
            }
            if !missing {
                self.custom_read_disk(&key);
            }
        }
        self.customs
            .sessions
            .entry(channel.to_owned())
            .or_default()
            .host = host;
        self.custom_client_sync(channel);
    }

    /// Marks a session restored from the database: read when next used.
    pub(super) fn custom_restored(&mut self, channel: &str) {
        self.customs.lazy.insert(channel.to_owned());
    }

    /// A restored session is being used: read its containers.
    pub(super) fn custom_wake(&mut self, channel: &str) {
        if self.customs.lazy.remove(channel) {
            self.custom_open(channel);
        }
    }

    /// Stops showing the session's host containers (its reads are shared and go on for others).
    fn custom_close_host(&mut self, channel: &str) {
        let Some(session) = self.customs.sessions.get_mut(channel) else {
            return;
        };
        let host = std::mem::take(&mut session.host);
        for entry in host {
            let unused = match self.customs.disk.get_mut(&entry.key) {
                Some(d) => {
                    d.users.remove(&(channel.to_owned(), entry.id.clone()));
                    d.users.is_empty()
                }
                None => false,
            };
            if unused {
                self.custom_set_watches(&entry.key, Vec::new());
                self.customs.disk.remove(&entry.key);
            }
        }
    }

    /// The session is gone.
    pub(super) fn custom_close(&mut self, channel: &str) {
        self.customs.lazy.remove(channel);
        self.custom_close_host(channel);
        self.customs.sessions.remove(channel);
    }

    /// Replaces the directories watched for `key`; whether any is new.
    fn custom_set_watches(&mut self, key: &Key, dirs: Vec<PathBuf>) -> bool {
        let Some(disk) = self.customs.disk.get_mut(key) else {
            return false;
        };
        let old = std::mem::replace(&mut disk.watched, dirs.clone());
        if self.customs.watcher.is_none() && !dirs.is_empty() {
            self.customs.watcher = Some(Watcher::new(self.tx.clone(), &self.rt));
        }
        let mut added = false;
        for dir in dirs.iter().filter(|d| !old.contains(d)) {
            added = true;
            self.customs
                .by_dir
                .entry(dir.clone())
                .or_default()
                .insert(key.clone());
            if let Some(w) = &mut self.customs.watcher {
                w.add(dir);
            }
        }
        for dir in old.iter().filter(|d| !dirs.contains(d)) {
            if let Some(keys) = self.customs.by_dir.get_mut(dir) {
                keys.remove(key);
                if keys.is_empty() {
                    self.customs.by_dir.remove(dir);
                }
            }
            if let Some(w) = &mut self.customs.watcher {
                w.remove(dir);
            }
        }
        added
    }

    /// Reads a directory off the hub (again, after the read in flight if there is one).
    fn custom_read_disk(&mut self, key: &Key) {
        let Some(disk) = self.customs.disk.get_mut(key) else {
            return;
        };
        if disk.reading {
            disk.dirty = true;
            return;
        }
        disk.reading = true;
        disk.dirty = false;
        let (source, layout) = (disk.source.clone(), disk.layout);
        let (root, floor) = (disk.root.clone(), disk.floor.clone());
        let (tx, key) = (self.tx.clone(), key.clone());
        self.rt.spawn_blocking(move || {
            // The disk source never waits: its futures are ready at once.
            let scan = futures_util::FutureExt::now_or_never(scan::scan(
                &source,
                layout,
                Bounds::default(),
            ))
            .unwrap_or_else(|| Scan::error("the read did not complete"));
            let watch = watch_dirs(&root, &floor, &scan);
            let _ = tx.blocking_send(HubMsg::Customization(Box::new(Read::Disk {
                key,
                scan,
                watch,
            })));
        });
    }

    /// Debounced file-system changes: read the affected directories again.
    pub(super) fn on_customizations_changed(&mut self, paths: Vec<PathBuf>, overflow: bool) {
        let keys: Vec<Key> = if overflow {
            self.customs.disk.keys().cloned().collect()
        } else {
            let mut keys = HashSet::new();
            for path in &paths {
                for dir in std::iter::once(path.as_path()).chain(path.parent()) {
                    if let Some(k) = self.customs.by_dir.get(dir) {
                        keys.extend(k.iter().cloned());
                    }
                }
            }
            keys.into_iter().collect()
        };
        for key in keys {
            self.custom_read_disk(&key);
        }
    }

    /// A read finished: show it in every session that shows the container.
    pub(super) fn on_customization_read(&mut self, read: Read) {
        match read {
            Read::Disk { key, scan, watch } => {
                let added = self.custom_set_watches(&key, watch);
                let Some(disk) = self.customs.disk.get_mut(&key) else {
                    return;
                };
                disk.reading = false;
                disk.scan = Some(Arc::new(scan));
                let again = disk.dirty || added;
                let users: Vec<(String, String)> = disk.users.iter().cloned().collect();
                for (channel, id) in users {
                    let value = self.customs.sessions.get(&channel).and_then(|s| {
                        let entry = s.host.iter().find(|e| e.id == id)?;
                        Some(self.host_json(&channel, entry))
                    });
                    if let Some(value) = value {
                        self.custom_publish(&channel, value);
                    }
                }
                // A directory that appeared (or changed) while it was read, or that is watched
                // only from now on, is read once more so nothing in between is missed.
                if again {
                    self.custom_read_disk(&key);
                }
            }
            Read::Client {
                channel,
                id,
                generation,
                scan,
            } => self.on_client_plugin_read(&channel, &id, generation, scan),
        }
    }

    /// The children of the session's enabled containers, with their bodies, in the order the
    /// session shows them: what the agent's instructions, skills and prompts are built from.
    pub(super) fn active_customizations(&self, channel: &str) -> Vec<ActiveCustomization> {
        let Some(session) = self.sessions.get(channel) else {
            return Vec::new();
        };
        let runs = self.customs.sessions.get(channel);
        let mut out = Vec::new();
        for c in session.state.customizations.iter().flatten() {
            let (id, name, enabled) = match c {
                Customization::Plugin(p) => (&p.id, &p.name, p.enabled),
                Customization::Directory(d) => (&d.id, &d.name, d.enabled),
                _ => continue,
            };
            if !enabled {
                continue;
            }
            let scan = runs.and_then(|r| {
                if let Some(e) = r.host.iter().find(|e| &e.id == id) {
                    return self.customs.disk.get(&e.key)?.scan.as_deref();
                }
                r.client.iter().find(|r| &r.id == id)?.scan.as_ref()
            });
            for child in scan.iter().flat_map(|s| &s.children) {
                out.push(ActiveCustomization {
                    container_id: id.clone(),
                    container: name.clone(),
                    id: customize::child_id(id, child),
                    kind: child.kind,
                    name: child.name.clone(),
                    meta: child.meta.clone(),
                    body: child.body.clone(),
                });
            }
        }
        out
    }
}
