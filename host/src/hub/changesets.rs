//! Changesets in the hub: one per session, `ahp-changeset:/<session id>/changeset/session`,
//! advertised in the session's `changesets` catalogue (`session/changesetsChanged`), its counts
//! in the session summary's `changes` as the root channel sees it: `listSessions` and
//! `root/sessionSummaryChanged`. No session action carries `changes`, so the session channel's
//! own `summary` leaves it out: a client mirroring the session stays equal to the host's state.
//!
//! The comparison itself (`crate::changes`) runs on the blocking pool, one at a time per
//! changeset: a trigger during a computation marks it dirty and it runs again once after.
//! Triggers: the agent completed a tool call, a file command changed something under the
//! working directory, an operation ran, or the file-system watcher saw a change. One watcher
//! serves every changeset (`dir_watch`: one inotify instance, not one per session); it watches,
//! non-recursively, exactly the directories each changeset's last walk read (so it is bounded
//! like the walks), debounced like the customization watcher.
//!
//! Results become `changeset/fileSet` / `changeset/fileRemoved` for what differs from the
//! current state, and `changeset/statusChanged` (`computing` → `ready`, or `error`). Operations
//! (`revert` a file, `revert-all`) run one at a time per changeset, reflected by
//! `changeset/operationStatusChanged` (`running`, then `idle` or `error`).

use super::base::Core;
use super::commands::invalid;
use super::features::{snapshot_json, Feature};
use super::Hub;
use crate::bus::{ChangesMsg, ConnId, HubMsg};
use crate::changes::{self, Baseline, Computed, FileChange, Kind, SCHEME};
use crate::dir_watch::Watcher;
use crate::resources::{file_uri, uri_path};
use ahp_wasm::protocol::jsonrpc::{methods, ErrorObject, RequestId, ROOT_CHANNEL};
use ahp_wasm::protocol::{
    errors, ChangesSummary, Changeset, ChangesetClearedAction, ChangesetFile,
    ChangesetFileRemovedAction, ChangesetFileSetAction, ChangesetOperation,
    ChangesetOperationScope, ChangesetOperationStatus, ChangesetOperationStatusChangedAction,
    ChangesetOperationTarget, ChangesetState, ChangesetStatus, ChangesetStatusChangedAction,
    ContentRef, ErrorInfo, FileEdit, FileEditAfter, FileEditBefore, FileEditDiff,
    InvokeChangesetOperationParams, InvokeChangesetOperationResult, SessionChangesetsChangedAction,
    SessionSummary, SessionSummaryChangedParams, SessionSummaryChangedParamsChanges, StateAction,
    StringOrMarkdown,
};
use ahp_wasm::reduce::{changeset_reducer, FixedClock, Outcome};
use base64::Engine as _;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

/// `revert`: one file (scope `resource`).
pub const REVERT: &str = "revert";
/// `revert-all`: every change (scope `changeset`).
pub const REVERT_ALL: &str = "revert-all";

/// The changesets of the sessions.
#[derive(Default)]
pub(super) struct Changesets {
    map: HashMap<String, Cs>,
    /// The one watcher of every changeset's directories (made on first use).
    watcher: Option<Watcher>,
}

struct Cs {
    session: String,
    workdir: PathBuf,
    /// `None` until taken (a snapshot walks the tree).
    baseline: Option<Baseline>,
    state: ChangesetState,
    subscribers: Vec<ConnId>,
    /// File id → path relative to the working directory.
    paths: HashMap<String, String>,
    computing: bool,
    dirty: bool,
    /// An operation is running.
    busy: bool,
    /// The directories this changeset has the shared watcher watch.
    watched: HashSet<PathBuf>,
    /// The counts last announced.
    summary: Option<ChangesSummary>,
    /// Files known equal to the baseline (see [`changes::Unchanged`]).
    unchanged: Arc<std::sync::Mutex<changes::Unchanged>>,
}

/// The changeset URI of a session.
pub fn changeset_uri(session: &str) -> String {
    let id = session.strip_prefix("ahp-session:/").unwrap_or(session);
    format!("{SCHEME}{id}/changeset/session")
}

fn operations(busy: Option<&str>) -> Vec<ChangesetOperation> {
    let op = |id: &str, label: &str, description: &str, scope, confirmation: Option<&str>| {
        ChangesetOperation {
            id: id.into(),
            label: label.into(),
            description: Some(description.into()),
            scopes: vec![scope],
            confirmation: confirmation.map(|c| StringOrMarkdown::Plain(c.into())),
            icon: Some("discard".into()),
            status: if busy == Some(id) {
                ChangesetOperationStatus::Running
            } else {
                ChangesetOperationStatus::Idle
            },
            error: None,
            extra: Default::default(),
        }
    };
    vec![
        op(
            REVERT,
            "Revert file",
            "Restore the file's original content (delete it if it is new)",
            ChangesetOperationScope::Resource,
            None,
        ),
        op(
            REVERT_ALL,
            "Revert all",
            "Restore every changed file",
            ChangesetOperationScope::Changeset,
            Some("Revert every change in the working directory? This cannot be undone."),
        ),
    ]
}

/// The session's catalogue entry.
fn catalogue_entry(channel: &str, git: bool) -> Changeset {
    let (label, description, kind) = if git {
        (
            "Uncommitted Changes",
            "The working directory against git HEAD",
            "uncommitted",
        )
    } else {
        (
            "Session Changes",
            "The working directory against its state when the session started",
            "session",
        )
    };
    Changeset {
        label: label.into(),
        uri_template: channel.into(),
        description: Some(description.into()),
        change_kind: kind.into(),
        extra: Default::default(),
    }
}

fn error_info(message: &str) -> ErrorInfo {
    ErrorInfo {
        error_type: "ChangesetError".into(),
        message: message.into(),
        stack: None,
        extra: Default::default(),
    }
}

/// The wire form of one changed file.
fn changeset_file(workdir: &std::path::Path, change: &FileChange) -> ChangesetFile {
    let uri = file_uri(&workdir.join(&change.rel));
    let before = change.before.as_ref().map(|bytes| FileEditBefore {
        uri: uri.clone(),
        content: ContentRef {
            uri: format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(bytes)
            ),
            size_hint: Some(bytes.len() as f64),
            content_type: None,
            extra: Default::default(),
        },
        extra: Default::default(),
    });
    let after = (change.kind != Kind::Deleted).then(|| FileEditAfter {
        uri: uri.clone(),
        content: ContentRef {
            uri: uri.clone(),
            size_hint: Some(change.size as f64),
            content_type: None,
            extra: Default::default(),
        },
        extra: Default::default(),
    });
    let mut meta = serde_json::Map::new();
    meta.insert("path".into(), change.rel.clone().into());
    meta.insert("status".into(), change.kind.as_str().into());
    if change.binary {
        meta.insert("binary".into(), true.into());
    }
    if let Some(unified) = &change.unified {
        meta.insert("unifiedDiff".into(), unified.clone().into());
    }
    ChangesetFile {
        id: uri,
        edit: FileEdit {
            before,
            after,
            diff: change.stats.map(|(added, removed)| FileEditDiff {
                added: Some(added as f64),
                removed: Some(removed as f64),
                extra: Default::default(),
            }),
            extra: Default::default(),
        },
        meta: Some(meta.into_iter().collect()),
        extra: Default::default(),
    }
}

impl Hub {
    pub(super) fn on_changes(&mut self, msg: ChangesMsg) {
        match msg {
            ChangesMsg::Baseline { channel, baseline } => {
                let Some(cs) = self.changesets.map.get_mut(&channel) else {
                    return;
                };
                cs.baseline = Some(baseline);
                cs.computing = false;
                self.changesets.refresh(&mut self.core, &channel);
            }
            ChangesMsg::Computed { channel, result } => self.on_changes_computed(&channel, result),
            ChangesMsg::Done {
                channel,
                operation,
                conn,
                id,
                result,
            } => {
                let status = match &result {
                    Ok(_) => (ChangesetOperationStatus::Idle, None),
                    Err(e) => (
                        ChangesetOperationStatus::Error,
                        Some(error_info(&e.message)),
                    ),
                };
                if let Some(cs) = self.changesets.map.get_mut(&channel) {
                    cs.busy = false;
                }
                self.changesets.apply(
                    &mut self.core,
                    &channel,
                    StateAction::ChangesetOperationStatusChanged(Box::new(
                        ChangesetOperationStatusChangedAction {
                            operation_id: operation,
                            status: status.0,
                            error: status.1,
                            extra: Default::default(),
                        },
                    )),
                );
                match result {
                    Ok(message) => self.core.respond(
                        conn,
                        &id,
                        &InvokeChangesetOperationResult {
                            message: Some(StringOrMarkdown::Plain(message)),
                            follow_up: None,
                            extra: Default::default(),
                        },
                    ),
                    Err(e) => self.core.respond_error(conn, &id, e),
                }
                self.changesets.refresh(&mut self.core, &channel);
            }
            ChangesMsg::Touched(paths) => {
                let hit: Vec<String> = self
                    .changesets
                    .map
                    .iter()
                    .filter(|(_, cs)| {
                        paths
                            .iter()
                            .any(|p| p.starts_with(&cs.workdir) || cs.workdir.starts_with(p))
                    })
                    .map(|(uri, _)| uri.clone())
                    .collect();
                for channel in hit {
                    self.changesets.refresh(&mut self.core, &channel);
                }
            }
        }
    }

    /// Refreshes the changeset of a session (after the agent changed something).
    pub(super) fn changes_session_touched(&mut self, session: &str) {
        self.changesets
            .refresh(&mut self.core, &changeset_uri(session));
    }

    fn on_changes_computed(&mut self, channel: &str, result: Result<Computed, String>) {
        let Some(cs) = self.changesets.map.get_mut(channel) else {
            return;
        };
        cs.computing = false;
        let again = std::mem::take(&mut cs.dirty);
        let computed = match result {
            Ok(c) => c,
            Err(message) => {
                self.changesets.apply(
                    &mut self.core,
                    channel,
                    StateAction::ChangesetStatusChanged(Box::new(ChangesetStatusChangedAction {
                        status: ChangesetStatus::Error,
                        error: Some(error_info(&message)),
                        extra: Default::default(),
                    })),
                );
                if again {
                    self.changesets.refresh(&mut self.core, channel);
                }
                return;
            }
        };
        let files: Vec<ChangesetFile> = computed
            .files
            .iter()
            .map(|f| changeset_file(&cs.workdir, f))
            .collect();
        cs.paths = files
            .iter()
            .zip(&computed.files)
            .map(|(f, c)| (f.id.clone(), c.rel.clone()))
            .collect();
        let ids: HashSet<&str> = files.iter().map(|f| f.id.as_str()).collect();
        let removed: Vec<String> = cs
            .state
            .files
            .iter()
            .filter(|f| !ids.contains(f.id.as_str()))
            .map(|f| f.id.clone())
            .collect();
        let set: Vec<ChangesetFile> = files
            .into_iter()
            .filter(|f| !cs.state.files.contains(f))
            .collect();
        self.changes_watch(channel, &computed.dirs);
        for file_id in removed {
            self.changesets.apply(
                &mut self.core,
                channel,
                StateAction::ChangesetFileRemoved(ChangesetFileRemovedAction {
                    file_id,
                    extra: Default::default(),
                }),
            );
        }
        for file in set {
            self.changesets.apply(
                &mut self.core,
                channel,
                StateAction::ChangesetFileSet(Box::new(ChangesetFileSetAction {
                    file,
                    extra: Default::default(),
                })),
            );
        }
        self.changesets.apply(
            &mut self.core,
            channel,
            StateAction::ChangesetStatusChanged(Box::new(ChangesetStatusChangedAction {
                status: ChangesetStatus::Ready,
                error: None,
                extra: Default::default(),
            })),
        );
        self.changes_summary(channel, &computed);
        if again {
            self.changesets.refresh(&mut self.core, channel);
        }
    }

    /// Keeps the session summary's `changes` current, announced on the root channel.
    fn changes_summary(&mut self, channel: &str, computed: &Computed) {
        let Some(cs) = self.changesets.map.get(channel) else {
            return;
        };
        let (mut additions, mut deletions) = (0u64, 0u64);
        for (a, d) in computed.files.iter().filter_map(|f| f.stats) {
            additions += a;
            deletions += d;
        }
        let summary = ChangesSummary {
            additions: Some(additions as f64),
            deletions: Some(deletions as f64),
            files: Some((computed.files.len() + computed.truncated) as f64),
            extra: Default::default(),
        };
        if cs.summary.as_ref() == Some(&summary) {
            return;
        }
        let params = SessionSummaryChangedParams {
            channel: ROOT_CHANNEL.into(),
            session: cs.session.clone(),
            changes: SessionSummaryChangedParamsChanges {
                changes: Some(summary.clone()),
                ..Default::default()
            },
            extra: Default::default(),
        };
        self.changesets.map.get_mut(channel).expect("found").summary = Some(summary);
        // A chat's view is no session of the root's (`chat_views.rs`).
        if super::v1_mirror::is_chat_view(&params.session) {
            return;
        }
        self.core
            .notify_root(methods::SESSION_SUMMARY_CHANGED, &params);
    }

    /// A session's summary as the root channel lists it: with its changes.
    pub(super) fn listed_summary(&self, summary: &SessionSummary) -> SessionSummary {
        let mut out = summary.clone();
        if let Some(cs) = self.changesets.map.get(&changeset_uri(&summary.resource)) {
            out.changes.clone_from(&cs.summary);
        }
        out
    }

    /// Watches the directories of the last walk (non-recursively), debounced into a refresh,
    /// with the watcher all changesets share (`dir_watch`).
    fn changes_watch(&mut self, channel: &str, dirs: &[PathBuf]) {
        let Changesets { map, watcher } = &mut self.changesets;
        let Some(cs) = map.get_mut(channel) else {
            return;
        };
        let core = &self.core;
        let watcher = watcher.get_or_insert_with(|| {
            // A change under a directory refreshes the changesets of the working directories
            // it is in; lost events refresh them all ("/" is in every one).
            let report = |mut paths: Vec<PathBuf>, overflow: bool| {
                if overflow {
                    paths.push(PathBuf::from("/"));
                }
                HubMsg::Changes(Box::new(ChangesMsg::Touched(paths)))
            };
            Watcher::new(core.tx.clone(), &core.rt, "changeset directories", report)
        });
        let want: HashSet<PathBuf> = dirs.iter().cloned().collect();
        for gone in cs.watched.difference(&want) {
            watcher.remove(gone);
        }
        for dir in want.difference(&cs.watched) {
            watcher.add(dir);
        }
        cs.watched = want;
    }

    /// `invokeChangesetOperation`: checked against the changeset's current operations and
    /// files (nothing runs on a refusal), then run on the blocking pool and answered when done.
    pub(super) fn invoke_changeset_operation(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: InvokeChangesetOperationParams,
    ) -> Result<(), ErrorObject> {
        let channel = p.channel;
        let cs = self
            .changesets
            .map
            .get(&channel)
            .ok_or_else(|| ErrorObject::new(errors::NOT_FOUND, "no such changeset"))?;
        let Some(operation) = cs
            .state
            .operations
            .iter()
            .flatten()
            .find(|o| o.id == p.operation_id)
        else {
            return Err(invalid(format!(
                "unknown operation `{}`; this changeset offers `{REVERT}` and `{REVERT_ALL}`",
                p.operation_id.chars().take(64).collect::<String>()
            )));
        };
        let rel = match (&p.target, operation.id.as_str()) {
            (None, REVERT_ALL) => None,
            (Some(ChangesetOperationTarget::Resource { resource, .. }), REVERT) => {
                let in_git = uri_path(resource).is_ok_and(|p| {
                    changes::git_path::path_names_git(p.strip_prefix(&cs.workdir).unwrap_or(&p))
                });
                if in_git {
                    return Err(invalid(
                        "the target is inside `.git`: a changeset never lists nor writes it",
                    ));
                }
                Some(cs.paths.get(resource).cloned().ok_or_else(|| {
                    invalid("the target resource is not a file of this changeset")
                })?)
            }
            (Some(ChangesetOperationTarget::Range { .. }), _) => {
                return Err(invalid(
                    "range targets are not supported by these operations",
                ))
            }
            (None, _) => return Err(invalid("this operation needs a `resource` target")),
            (Some(_), _) => return Err(invalid("this operation takes no target")),
        };
        let Some(baseline) = cs.baseline.clone() else {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                "the changeset is still being computed; try again",
            ));
        };
        if cs.busy {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                "another operation of this changeset is running",
            ));
        }
        let workdir = cs.workdir.clone();
        let operation = operation.id.clone();
        self.changesets.map.get_mut(&channel).expect("found").busy = true;
        self.changesets.apply(
            &mut self.core,
            &channel,
            StateAction::ChangesetOperationStatusChanged(Box::new(
                ChangesetOperationStatusChangedAction {
                    operation_id: operation.clone(),
                    status: ChangesetOperationStatus::Running,
                    error: None,
                    extra: Default::default(),
                },
            )),
        );
        let sandbox = self.core.sandbox.clone();
        let hub = self.core.tx.clone();
        let id = id.clone();
        self.core.rt.spawn(async move {
            let job = tokio::task::spawn_blocking(move || match rel {
                Some(rel) => changes::revert_file(&sandbox, &workdir, &baseline, &rel)
                    .map(|()| format!("Reverted `{rel}`")),
                None => changes::revert_all(&sandbox, &workdir, &baseline).map(|r| r.message()),
            });
            let result = job.await.unwrap_or_else(|_| {
                Err(ErrorObject::new(
                    errors::INTERNAL_ERROR,
                    "the operation failed",
                ))
            });
            let msg = ChangesMsg::Done {
                channel,
                operation,
                conn,
                id,
                result,
            };
            let _ = hub.send(HubMsg::Changes(Box::new(msg))).await;
        });
        Ok(())
    }
}

impl Changesets {
    /// Starts a comparison, or marks the changeset dirty when one runs.
    fn refresh(&mut self, core: &mut Core, channel: &str) {
        let Some(cs) = self.map.get_mut(channel) else {
            return;
        };
        let Some(baseline) = cs.baseline.clone() else {
            return;
        };
        if cs.computing {
            cs.dirty = true;
            return;
        }
        cs.computing = true;
        cs.dirty = false;
        let workdir = cs.workdir.clone();
        let unchanged = cs.unchanged.clone();
        let hub = core.tx.clone();
        let channel = channel.to_owned();
        core.rt.spawn(async move {
            let job = move || {
                let mut unchanged = unchanged.lock().unwrap_or_else(|p| p.into_inner());
                changes::compute_with(&workdir, &baseline, &mut unchanged)
            };
            let result = tokio::task::spawn_blocking(job)
                .await
                .unwrap_or_else(|_| Err("the comparison failed".into()));
            let msg = ChangesMsg::Computed { channel, result };
            let _ = hub.send(HubMsg::Changes(Box::new(msg))).await;
        });
    }

    /// Applies a host action to a changeset: reducer, `serverSeq`, replay buffer, fan-out.
    fn apply(&mut self, core: &mut Core, channel: &str, action: StateAction) -> bool {
        let Some(cs) = self.map.get_mut(channel) else {
            return false;
        };
        if !matches!(
            changeset_reducer(&mut cs.state, &action, &FixedClock(0.0)),
            Outcome::Applied(_)
        ) {
            return false;
        }
        core.publish(channel, action, None, &cs.subscribers);
        true
    }

    /// Creates the changeset of a new (or restored) session and takes its baseline.
    pub(super) fn open(&mut self, core: &mut Core, session: &str) {
        let Some(workdir) = core
            .sessions
            .get(session)
            .and_then(|s| s.members.summary.working_directory.as_deref())
            .and_then(|uri| uri_path(uri).ok())
            .and_then(|p| p.canonicalize().ok())
        else {
            return;
        };
        let channel = changeset_uri(session);
        let root = core.sandbox.root().to_path_buf();
        let git = Baseline::git(&workdir, &root);
        let git_repo = git.is_some();
        self.map.insert(
            channel.clone(),
            Cs {
                session: session.to_owned(),
                workdir: workdir.clone(),
                baseline: git,
                state: ChangesetState {
                    status: ChangesetStatus::Computing,
                    error: None,
                    files: Vec::new(),
                    operations: Some(operations(None)),
                    extra: Default::default(),
                },
                subscribers: Vec::new(),
                paths: HashMap::new(),
                computing: false,
                dirty: false,
                busy: false,
                watched: HashSet::new(),
                summary: None,
                unchanged: Arc::default(),
            },
        );
        // The catalogue at once (so a session's first snapshot has it); the state follows.
        let catalogue = Some(vec![catalogue_entry(&channel, git_repo)]);
        if core.sessions.get(session).map(|s| &s.members.changesets) != Some(&catalogue) {
            core.apply_server(
                session,
                StateAction::SessionChangesetsChanged(SessionChangesetsChangedAction {
                    changesets: catalogue,
                    extra: Default::default(),
                }),
            );
        }
        if git_repo {
            self.refresh(core, &channel);
            return;
        }
        // A snapshot walks the tree: off the hub.
        self.map.get_mut(&channel).expect("inserted").computing = true;
        let hub = core.tx.clone();
        core.rt.spawn(async move {
            let taken = tokio::task::spawn_blocking(move || Baseline::snapshot(&workdir)).await;
            if let Ok(baseline) = taken {
                let msg = ChangesMsg::Baseline { channel, baseline };
                let _ = hub.send(HubMsg::Changes(Box::new(msg))).await;
            }
        });
    }
}

impl Feature for Changesets {
    fn has_channel(&self, channel: &str) -> bool {
        self.map.contains_key(channel)
    }

    fn subscribers_mut(&mut self, channel: &str) -> Option<&mut Vec<ConnId>> {
        self.map.get_mut(channel).map(|cs| &mut cs.subscribers)
    }

    fn snapshot(&self, channel: &str, from_seq: u64) -> Option<String> {
        snapshot_json(channel, &self.map.get(channel)?.state, from_seq)
    }

    fn session_opened(&mut self, core: &mut Core, session: &str) {
        self.open(core, session);
    }

    fn session_restored(&mut self, core: &mut Core, session: &str) {
        self.open(core, session);
    }

    /// The session is gone: its changeset is cleared for its subscribers, who are dropped
    /// from it (the URI is no longer subscribable).
    fn session_disposed(&mut self, core: &mut Core, session: &str) {
        let channel = changeset_uri(session);
        if !self.map.contains_key(&channel) {
            return;
        }
        self.apply(
            core,
            &channel,
            StateAction::ChangesetCleared(ChangesetClearedAction {
                extra: Default::default(),
            }),
        );
        if let Some(cs) = self.map.remove(&channel) {
            for sub in cs.subscribers {
                if let Some(c) = core.conns.get_mut(&sub) {
                    c.subs.remove(&channel);
                }
            }
            if let Some(watcher) = &mut self.watcher {
                cs.watched.iter().for_each(|dir| watcher.remove(dir));
            }
        }
    }
}
