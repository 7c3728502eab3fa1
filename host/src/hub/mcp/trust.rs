//! Approval of the MCP servers a working directory declares (its `.mcp.json`: the
//! repository's, not the operator's; see `crate::mcp::config::Origin`).
//!
//! Such a server is listed like any other but waits: not enabled, in `error` with `errorType`
//! `McpServerNeedsApproval` and a message naming the declaring file and what it would run (or
//! contact). A client approves it with the protocol's own toggle: `session/customizationToggled`
//! enabling it (authorized like any dispatch). The approval is remembered in the database for
//! the canonical working directory, the server's name and the SHA-256 of the normalized
//! declaration (`crate::mcp::trust`), the last one per directory and name: a new session there,
//! or this one after a restart, starts it at once; a changed declaration waits again. Until
//! approved nothing is spawned or contacted: `mcp_start` refuses a waiting run, whatever asks
//! (creation, a subscribe after a restart, a token, a toggle). `--trust-project-mcp` makes
//! these servers start as the operator's do.

use crate::hub::Hub;
use crate::mcp::config::{self, Declared, Origin};
use crate::mcp::trust;
use crate::store::{McpApproval, Op};
use ahp_wasm::protocol::{
    ErrorInfo, McpServerErrorState, McpServerStartingState, McpServerState, McpServerStoppedState,
};
use std::collections::HashMap;
use std::path::Path;

/// The approvals of the host.
#[derive(Default)]
pub(in crate::hub) struct Trust {
    /// (canonical working directory, server name) → digest of the approved declaration.
    approved: HashMap<(String, String), String>,
    /// `--trust-project-mcp`: working-directory servers need no approval.
    eager: bool,
}

impl Trust {
    /// The approvals loaded from the database, and the flag.
    pub(in crate::hub) fn new(approvals: Vec<McpApproval>, eager: bool) -> Trust {
        let approved = approvals
            .into_iter()
            .map(|a| ((a.workdir, a.name), a.sha256))
            .collect();
        Trust { approved, eager }
    }

    /// Why server `d` of a session in `workdir` may not start yet: `None` for the operator's
    /// servers, declarations that cannot run anyway, approved ones, and all with the flag.
    pub(in crate::hub) fn pending(&self, workdir: &Path, d: &Declared) -> Option<Pending> {
        if self.eager || d.origin != Origin::Project {
            return None;
        }
        let spec = d.spec.as_ref().ok()?;
        let dir = trust::canonical_dir(workdir);
        let digest = trust::digest(spec);
        let key = (dir, d.name.clone());
        if self.approved.get(&key) == Some(&digest) {
            return None;
        }
        let message = trust::awaiting_message(spec, &d.source, &key.0);
        Some(Pending {
            workdir: key.0,
            digest,
            message,
        })
    }
}

/// A declaration waiting for approval.
#[derive(Debug, Clone)]
pub(in crate::hub) struct Pending {
    workdir: String,
    digest: String,
    message: String,
}

impl Pending {
    /// The state it is shown in.
    pub(in crate::hub) fn state(&self) -> McpServerState {
        McpServerState::Error(McpServerErrorState {
            error: ErrorInfo {
                error_type: trust::NEEDS_APPROVAL.into(),
                message: self.message.clone(),
                stack: None,
                extra: Default::default(),
            },
            extra: Default::default(),
        })
    }
}

/// Whether declaration `d` is listed enabled (`was`: its `enabled` when it was listed before)
/// and its first state: waiting for approval or shadowed by the operator's server (never
/// enabled), else as for any server (`starting` if enabled).
pub(in crate::hub) fn opening(
    d: &Declared,
    pending: Option<&Pending>,
    was: Option<bool>,
) -> (bool, McpServerState) {
    let shadowed = d.origin == Origin::Project && d.id == config::shadowed_id(&d.name);
    let enabled = pending.is_none() && !shadowed && was.unwrap_or(true);
    let state = match (&d.spec, pending) {
        (Err(reason), _) => super::error_state(reason),
        (Ok(_), Some(pending)) => pending.state(),
        (Ok(_), None) if enabled => McpServerState::Starting(McpServerStartingState {
            extra: Default::default(),
        }),
        (Ok(_), None) => McpServerState::Stopped(McpServerStoppedState {
            extra: Default::default(),
        }),
    };
    (enabled, state)
}

impl Hub {
    /// `session/customizationToggled` on a server waiting for approval. Off: it keeps waiting
    /// (`true`: nothing more to do). On: its declaration is approved, remembered, and the toggle
    /// goes on as for any server (`false`). `false` too for servers that do not wait.
    pub(in crate::hub) fn mcp_approval_toggled(
        &mut self,
        channel: &str,
        id: &str,
        enabled: bool,
        by: Option<&str>,
    ) -> bool {
        let Some(run) = self.mcp.run_mut(channel, id) else {
            return false;
        };
        if run.pending.is_none() {
            return false;
        }
        if !enabled {
            return true;
        }
        let Pending {
            workdir, digest, ..
        } = run.pending.take().expect("checked above");
        let name = run.name().to_owned();
        self.mcp
            .trust
            .approved
            .insert((workdir.clone(), name.clone()), digest.clone());
        self.core.ops.push(Op::ApproveMcp(McpApproval {
            workdir,
            name,
            sha256: digest,
            client_id: by.unwrap_or_default().to_owned(),
        }));
        false
    }
}
