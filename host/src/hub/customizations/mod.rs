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

pub(super) mod client_plugins;
pub(super) mod client_tools;

use super::base::Core;
use super::features::Feature;
use crate::bus::HubMsg;
use crate::bus::{CustomizationKey as Key, CustomizationRead as Read};
use crate::customize::disk::DiskSource;
use crate::customize::scan::{self, Bounds, Layout};
use crate::customize::{self, child_json, ActiveCustomization, ChildKind, Scan};
use crate::dir_watch::Watcher;
use crate::resources::file_uri;
use ahp_wasm::protocol::{Customization, StateAction};
use client_plugins::ClientRun;
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
    /// `--plugin`: plugin directories for every session.
    plugins: Vec<PathBuf>,
    /// How long a read of a client plugin waits for the client's answer.
    client_request_timeout: std::time::Duration,
    /// Client tool calls the agent waits on.
    pub(super) client_tools: client_tools::ClientTools,
}

impl Customs {
    pub(super) fn new(config: &crate::config::Config) -> Customs {
        Customs {
            plugins: config.plugins.clone(),
            client_request_timeout: config.client_request_timeout,
            client_tools: client_tools::ClientTools {
                timeout: config.client_tool_timeout,
                grace: config.client_tool_grace,
                ..Default::default()
            },
            ..Default::default()
        }
    }
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

impl Customs {
    /// The session's container entry `id` in its state.
    pub(super) fn entry<'a>(
        &self,
        core: &'a Core,
        channel: &str,
        id: &str,
    ) -> Option<&'a Customization> {
        core.sessions
            .get(channel)?
            .members
            .customizations
            .as_ref()?
            .iter()
            .find(|c| top_id(c) == Some(id))
    }

    pub(super) fn enabled(&self, core: &Core, channel: &str, id: &str) -> Option<bool> {
        match self.entry(core, channel, id)? {
            Customization::Plugin(p) => Some(p.enabled),
            Customization::Directory(d) => Some(d.enabled),
            _ => None,
        }
    }

    /// Publishes a container when it differs from the session's entry.
    pub(super) fn publish(&mut self, core: &mut Core, channel: &str, value: Value) {
        let id = value["id"].as_str().unwrap_or_default().to_owned();
        let entry = customize::customization(value.clone());
        if self.entry(core, channel, &id) == Some(&entry) {
            return;
        }
        core.apply_server(channel, updated(value));
    }

    /// A host container's entry as the session shows it now.
    fn host_json(&self, core: &Core, channel: &str, entry: &HostEntry) -> Value {
        let enabled = self.enabled(core, channel, &entry.id).unwrap_or(true);
        let scan = self.disk.get(&entry.key).and_then(|d| d.scan.as_deref());
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
    pub(super) fn open(&mut self, core: &mut Core, channel: &str) {
        let Some(session) = core.sessions.get(channel) else {
            return;
        };
        let workdir = core.session_workdir(&session.members);
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
            .members
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
            core.apply_server(channel, removed(&id));
        }
        self.close_host(core, channel);
        let mut host = Vec::new();
        for (id, name, root, boundary, floor, layout) in entries {
            let key = Key {
                root: root.clone(),
                layout,
            };
            let disk = self.disk.entry(key.clone()).or_insert_with(|| Disk {
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
                self.set_watches(core, &key, watch);
            }
            let Some(disk) = self.disk.get(&key) else {
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
            if !fresh || self.entry(core, channel, &entry.id).is_none() {
                let v = self.host_json(core, channel, entry);
                self.publish(core, channel, v);
            }
            if !missing {
                self.read_disk(core, &key);
            }
        }
        self.sessions.entry(channel.to_owned()).or_default().host = host;
        self.client_sync(core, channel);
    }

    /// Marks a session restored from the database: read when next used.
    pub(super) fn restored(&mut self, channel: &str) {
        self.lazy.insert(channel.to_owned());
    }

    /// A restored session is being used: read its containers.
    pub(super) fn wake(&mut self, core: &mut Core, channel: &str) {
        if self.lazy.remove(channel) {
            self.open(core, channel);
        }
    }

    /// Stops showing the session's host containers (its reads are shared and go on for others).
    fn close_host(&mut self, core: &mut Core, channel: &str) {
        let Some(session) = self.sessions.get_mut(channel) else {
            return;
        };
        let host = std::mem::take(&mut session.host);
        for entry in host {
            let unused = match self.disk.get_mut(&entry.key) {
                Some(d) => {
                    d.users.remove(&(channel.to_owned(), entry.id.clone()));
                    d.users.is_empty()
                }
                None => false,
            };
            if unused {
                self.set_watches(core, &entry.key, Vec::new());
                self.disk.remove(&entry.key);
            }
        }
    }

    /// The session is gone.
    pub(super) fn close(&mut self, core: &mut Core, channel: &str) {
        self.lazy.remove(channel);
        self.close_host(core, channel);
        self.sessions.remove(channel);
    }

    /// Replaces the directories watched for `key`; whether any is new.
    fn set_watches(&mut self, core: &mut Core, key: &Key, dirs: Vec<PathBuf>) -> bool {
        let Some(disk) = self.disk.get_mut(key) else {
            return false;
        };
        let old = std::mem::replace(&mut disk.watched, dirs.clone());
        if self.watcher.is_none() && !dirs.is_empty() {
            let report = |paths, overflow| HubMsg::CustomizationsChanged { paths, overflow };
            let what = "customization directories";
            self.watcher = Some(Watcher::new(core.tx.clone(), &core.rt, what, report));
        }
        let mut added = false;
        for dir in dirs.iter().filter(|d| !old.contains(d)) {
            added = true;
            self.by_dir
                .entry(dir.clone())
                .or_default()
                .insert(key.clone());
            if let Some(w) = &mut self.watcher {
                w.add(dir);
            }
        }
        for dir in old.iter().filter(|d| !dirs.contains(d)) {
            if let Some(keys) = self.by_dir.get_mut(dir) {
                keys.remove(key);
                if keys.is_empty() {
                    self.by_dir.remove(dir);
                }
            }
            if let Some(w) = &mut self.watcher {
                w.remove(dir);
            }
        }
        added
    }

    /// Reads a directory off the hub (again, after the read in flight if there is one).
    fn read_disk(&mut self, core: &mut Core, key: &Key) {
        let Some(disk) = self.disk.get_mut(key) else {
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
        let (tx, key) = (core.tx.clone(), key.clone());
        core.rt.spawn_blocking(move || {
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
    pub(super) fn on_customizations_changed(
        &mut self,
        core: &mut Core,
        paths: Vec<PathBuf>,
        overflow: bool,
    ) {
        let keys: Vec<Key> = if overflow {
            self.disk.keys().cloned().collect()
        } else {
            let mut keys = HashSet::new();
            for path in &paths {
                for dir in std::iter::once(path.as_path()).chain(path.parent()) {
                    if let Some(k) = self.by_dir.get(dir) {
                        keys.extend(k.iter().cloned());
                    }
                }
            }
            keys.into_iter().collect()
        };
        for key in keys {
            self.read_disk(core, &key);
        }
    }

    /// A read finished: show it in every session that shows the container.
    pub(super) fn on_customization_read(&mut self, core: &mut Core, read: Read) {
        match read {
            Read::Disk { key, scan, watch } => {
                let added = self.set_watches(core, &key, watch);
                let Some(disk) = self.disk.get_mut(&key) else {
                    return;
                };
                disk.reading = false;
                disk.scan = Some(Arc::new(scan));
                let again = disk.dirty || added;
                let users: Vec<(String, String)> = disk.users.iter().cloned().collect();
                for (channel, id) in users {
                    let value = self.sessions.get(&channel).and_then(|s| {
                        let entry = s.host.iter().find(|e| e.id == id)?;
                        Some(self.host_json(core, &channel, entry))
                    });
                    if let Some(value) = value {
                        self.publish(core, &channel, value);
                    }
                }
                // A directory that appeared (or changed) while it was read, or that is watched
                // only from now on, is read once more so nothing in between is missed.
                if again {
                    self.read_disk(core, &key);
                }
            }
            Read::Client {
                channel,
                id,
                generation,
                scan,
            } => self.on_client_plugin_read(core, &channel, &id, generation, scan),
        }
    }

    /// The children of the session's enabled containers, with their bodies, in the order the
    /// session shows them: what the agent's instructions, skills and prompts are built from.
    pub(super) fn active(&self, core: &Core, channel: &str) -> Vec<ActiveCustomization> {
        let Some(session) = core.sessions.get(channel) else {
            return Vec::new();
        };
        let runs = self.sessions.get(channel);
        let mut out = Vec::new();
        for c in session.members.customizations.iter().flatten() {
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
                    return self.disk.get(&e.key)?.scan.as_deref();
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

impl Feature for Customs {
    fn session_opened(&mut self, core: &mut Core, session: &str) {
        self.open(core, session);
    }

    fn session_restored(&mut self, _core: &mut Core, session: &str) {
        self.restored(session);
    }

    fn session_used(&mut self, core: &mut Core, session: &str) {
        self.wake(core, session);
    }

    fn turn_ended(&mut self, _core: &mut Core, session: &str) {
        self.client_tools.forget(session);
    }

    fn session_disposed(&mut self, core: &mut Core, session: &str) {
        self.client_tools.forget(session);
        self.close(core, session);
    }

    fn client_left(&mut self, core: &mut Core, client_id: &str) {
        self.client_tools.client_left(core, client_id);
    }

    fn client_returned(&mut self, core: &mut Core, client_id: &str) {
        self.client_tools.client_returned(client_id);
        self.client_plugins_returned(core, client_id);
    }
}
