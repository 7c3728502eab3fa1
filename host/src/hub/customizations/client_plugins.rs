//! Client-published plugins (see `mod.rs`): the active client's
//! `ClientPluginCustomization`s, read back from that client with `resourceList` and
//! `resourceRead` (`customize::client`), shown with `clientId`, read again on a new `nonce`,
//! removed with the client's role, and read when a client that was away comes back.
//!
//! What a client publishes is repeated in what the host builds from it (each child's id and
//! uri start with the plugin's), so it is bounded where the entries are built: the plugin's id
//! and uri ([`MAX_PLUGIN_ID_BYTES`], [`MAX_PLUGIN_URI_BYTES`]), its children (the read's
//! bounds), and the bytes all of one client's entries take in a session
//! (`Limits::max_client_customization_bytes`): a plugin past that is shown `degraded`, with the
//! children that fit.

use super::Customs;
use super::{fill, is_host_id, removed, top_id};
use crate::bus::CustomizationRead as Read;
use crate::customize::client::ClientSource;
use crate::customize::scan::{self, Bounds, Layout};
use crate::customize::{Load, Scan};
use crate::hub::base::Core;
use crate::hub::HubMsg;
use ahp_wasm::protocol::{ClientPluginCustomization, Customization};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::task::AbortHandle;

/// Plugins one client may publish (more are not read).
pub(in crate::hub) const MAX_CLIENT_PLUGINS: usize = 16;
/// Longest id of a published plugin, in bytes (every child's id starts with it).
pub(in crate::hub) const MAX_PLUGIN_ID_BYTES: usize = 256;
/// Longest uri of a published plugin, in bytes (every child's uri starts with it).
pub(in crate::hub) const MAX_PLUGIN_URI_BYTES: usize = 2048;
/// How long reading one client plugin may take in all.
const CLIENT_READ_LIMIT: Duration = Duration::from_secs(30);

/// One published plugin of a session.
pub(in crate::hub) struct ClientRun {
    pub(in crate::hub) id: String,
    client_id: String,
    published: ClientPluginCustomization,
    generation: u64,
    pub(in crate::hub) scan: Option<Scan>,
    task: Option<AbortHandle>,
    /// Bytes its entry takes in the session's state (as JSON), counted against the budget.
    shown_bytes: usize,
    /// The client was not connected: read when it is back.
    waiting: bool,
}

impl Drop for ClientRun {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// The bytes of `value` as JSON.
fn json_len(value: &Value) -> usize {
    serde_json::to_vec(value).map_or(0, |v| v.len())
}

/// Cuts `scan`'s children to those that fit, in order, in `allowance` bytes of entry JSON
/// (`entry`: the entry with all of them), and says so in its load state.
fn fit(scan: &mut Scan, entry: &Value, allowance: usize, budget: usize) {
    let sizes: Vec<usize> = entry["children"]
        .as_array()
        .map(|c| c.iter().map(json_len).collect())
        .unwrap_or_default();
    let total = sizes.len();
    let load = |kept: usize| {
        let why = format!(
            "more than the {budget} bytes one client's customizations may take in a session; \
             {kept} of {total} children are shown"
        );
        match &scan.load {
            Load::Degraded(earlier) => Load::Degraded(format!("{why}; {earlier}")),
            Load::Error(m) => Load::Error(m.clone()),
            Load::Loaded => Load::Degraded(why),
        }
    };
    // The entry without children, with the longest reason (`total` of `total`).
    let mut bare = entry.clone();
    bare["children"] = json!([]);
    bare["load"] = load(total).json();
    let mut used = json_len(&bare);
    let mut kept = 0;
    for size in sizes {
        let add = size + usize::from(kept > 0);
        if used + add > allowance {
            break;
        }
        used += add;
        kept += 1;
    }
    scan.load = load(kept);
    scan.children.truncate(kept);
}

/// Whether a top-level entry was published by a client.
pub(in crate::hub) fn is_client_entry(c: &Customization) -> bool {
    matches!(c, Customization::Plugin(p) if p.client_id.is_some())
}

impl Customs {
    /// A client plugin was read: show it (a stale read is ignored).
    pub(in crate::hub) fn on_client_plugin_read(
        &mut self,
        core: &mut Core,
        channel: &str,
        id: &str,
        generation: u64,
        scan: Scan,
    ) {
        let Some(run) = self
            .sessions
            .get_mut(channel)
            .and_then(|s| s.client.iter_mut().find(|r| r.id == id))
            .filter(|r| r.generation == generation)
        else {
            return;
        };
        run.scan = Some(scan);
        run.task = None;
        self.client_show(core, channel, id);
    }

    /// Publishes a client plugin's entry within its client's budget: what the client's other
    /// plugins take in the session is counted, and the children past what is left are dropped
    /// (from the state and from what the agent is given), the plugin `degraded` with why.
    fn client_show(&mut self, core: &mut Core, channel: &str, id: &str) {
        let budget = core.limits.max_client_customization_bytes;
        let Some(session) = self.sessions.get(channel) else {
            return;
        };
        let others: usize = session
            .client
            .iter()
            .filter(|r| r.id != id)
            .map(|r| r.shown_bytes)
            .sum();
        let allowance = budget.saturating_sub(others);
        let Some(mut value) = self.client_json(core, channel, id) else {
            return;
        };
        let mut bytes = json_len(&value);
        if bytes > allowance {
            if let Some(scan) = self
                .client_run_mut(channel, id)
                .and_then(|r| r.scan.as_mut())
            {
                fit(scan, &value, allowance, budget);
            }
            value = self.client_json(core, channel, id).unwrap_or(value);
            bytes = json_len(&value);
        }
        if let Some(run) = self.client_run_mut(channel, id) {
            run.shown_bytes = bytes;
        }
        self.publish(core, channel, value);
    }

    fn client_run_mut(&mut self, channel: &str, id: &str) -> Option<&mut ClientRun> {
        self.sessions
            .get_mut(channel)?
            .client
            .iter_mut()
            .find(|r| r.id == id)
    }

    /// A client plugin's entry as the session shows it now.
    fn client_json(&self, core: &Core, channel: &str, id: &str) -> Option<Value> {
        let run = self
            .sessions
            .get(channel)?
            .client
            .iter()
            .find(|r| r.id == id)?;
        let enabled = self
            .enabled(core, channel, id)
            .unwrap_or(run.published.enabled);
        let mut v = serde_json::to_value(&run.published).ok()?;
        let o = v.as_object_mut()?;
        o.remove("nonce");
        o.insert("type".into(), json!("plugin"));
        o.insert("clientId".into(), json!(run.client_id));
        o.insert("enabled".into(), json!(enabled));
        let base = run.published.uri.trim_end_matches('/').to_owned();
        fill(o, id, run.scan.as_ref(), |rel| format!("{base}/{rel}"));
        Some(v)
    }

    /// Brings the session's client plugins in line with its active client: plugins of a client
    /// that is no longer active (or no longer published) go, new ones and those whose `nonce`
    /// changed (or that have none) are read.
    pub(in crate::hub) fn client_sync(&mut self, core: &mut Core, channel: &str) {
        let Some(session) = core.sessions.get(channel) else {
            return;
        };
        let active = session.members.active_client.clone();
        let client_id = active.as_ref().map(|a| a.client_id.clone());
        let mut published: Vec<ClientPluginCustomization> = Vec::new();
        for p in active.and_then(|a| a.customizations).unwrap_or_default() {
            let taken = self
                .entry(core, channel, &p.id)
                .is_some_and(|c| !is_client_entry(c));
            if p.id.len() > MAX_PLUGIN_ID_BYTES || p.uri.len() > MAX_PLUGIN_URI_BYTES {
                eprintln!("ahp-host: a client plugin ignored: its id or uri is too long");
                continue;
            }
            if is_host_id(&p.id) || taken || published.iter().any(|q| q.id == p.id) {
                eprintln!(
                    "ahp-host: client plugin `{}` ignored: its id is taken",
                    p.id
                );
                continue;
            }
            if published.len() < MAX_CLIENT_PLUGINS {
                published.push(p);
            }
        }
        let runs = std::mem::take(&mut self.sessions.entry(channel.to_owned()).or_default().client);
        let mut keep = Vec::new();
        for run in runs {
            let unchanged = client_id.as_deref() == Some(run.client_id.as_str())
                && published.iter().any(|p| {
                    p.id == run.id
                        && p.uri == run.published.uri
                        && p.nonce.is_some()
                        && p.nonce == run.published.nonce
                });
            if unchanged {
                keep.push(run);
            }
        }
        let gone: Vec<String> = core
            .sessions
            .get(channel)
            .and_then(|s| s.members.customizations.as_ref())
            .into_iter()
            .flatten()
            .filter(|c| is_client_entry(c))
            .filter_map(top_id)
            .filter(|id| client_id.is_none() || !published.iter().any(|p| p.id == *id))
            .map(str::to_owned)
            .collect();
        for id in gone {
            core.apply_server(channel, removed(&id));
        }
        let fresh: Vec<ClientPluginCustomization> = published
            .into_iter()
            .filter(|p| !keep.iter().any(|r| r.id == p.id))
            .collect();
        if let Some(s) = self.sessions.get_mut(channel) {
            s.client = keep;
        }
        let Some(client_id) = client_id else {
            return;
        };
        for p in fresh {
            self.read_client(core, channel, &client_id, p);
        }
    }

    /// Publishes a client plugin as `loading` and reads it from the client.
    fn read_client(
        &mut self,
        core: &mut Core,
        channel: &str,
        client_id: &str,
        p: ClientPluginCustomization,
    ) {
        self.generation += 1;
        let generation = self.generation;
        let id = p.id.clone();
        let base = p.uri.clone();
        let run = ClientRun {
            id: id.clone(),
            client_id: client_id.to_owned(),
            published: p,
            generation,
            scan: None,
            task: None,
            shown_bytes: 0,
            waiting: false,
        };
        if let Some(s) = self.sessions.get_mut(channel) {
            s.client.push(run);
        }
        self.client_show(core, channel, &id);
        let conn = core
            .conns
            .iter()
            .find(|(_, c)| c.client_id.as_deref() == Some(client_id))
            .map(|(id, c)| (*id, c.handle.clone()));
        let Some((conn, handle)) = conn else {
            // After a host restart the active client may not be back yet.
            if let Some(run) = self
                .sessions
                .get_mut(channel)
                .and_then(|s| s.client.last_mut())
            {
                run.waiting = true;
            }
            let read = Read::Client {
                channel: channel.to_owned(),
                id,
                generation,
                scan: Scan::error("the client that published the plugin is not connected"),
            };
            return self.on_customization_read(core, read);
        };
        let source = ClientSource {
            peer: core.peer.clone(),
            conn,
            handle,
            base,
            timeout: self.client_request_timeout,
        };
        let (tx, channel_owned, id_owned) = (core.tx.clone(), channel.to_owned(), id.clone());
        let task = core.rt.spawn(async move {
            let read = scan::scan(&source, Layout::Plugin, Bounds::default());
            let scan = tokio::time::timeout(CLIENT_READ_LIMIT, read)
                .await
                .unwrap_or_else(|_| {
                    Scan::error(format!(
                        "reading the plugin from the client took longer than {} s",
                        CLIENT_READ_LIMIT.as_secs()
                    ))
                });
            let read = Read::Client {
                channel: channel_owned,
                id: id_owned,
                generation,
                scan,
            };
            let _ = tx.send(HubMsg::Customization(Box::new(read))).await;
        });
        if let Some(run) = self.sessions.get_mut(channel).and_then(|s| {
            s.client
                .iter_mut()
                .find(|r| r.id == id && r.generation == generation)
        }) {
            run.task = Some(task.abort_handle());
        }
    }

    /// A client connected: read the plugins it published that waited for it.
    pub(in crate::hub) fn client_plugins_returned(&mut self, core: &mut Core, client_id: &str) {
        let mut again = Vec::new();
        for (channel, s) in &mut self.sessions {
            let (waiting, rest): (Vec<ClientRun>, Vec<ClientRun>) = std::mem::take(&mut s.client)
                .into_iter()
                .partition(|r| r.waiting && r.client_id == client_id);
            s.client = rest;
            again.extend(
                waiting
                    .into_iter()
                    .map(|r| (channel.clone(), r.published.clone())),
            );
        }
        for (channel, published) in again {
            self.read_client(core, &channel, client_id, published);
        }
    }
}
