//! Terminal channels (`ahp-terminal:/<id>`): `createTerminal`, `disposeTerminal`, the
//! client-dispatchable terminal actions, the pty's output and exit, and root `terminals`.
//!
//! The hub keeps each terminal's `TerminalState` and changes it only through the SDK's
//! terminal reducer (the one clients run), like every other channel. Terminals are not
//! persisted: they die with the host (see `Hub::run`).
//!
//! Who uses a terminal (types into it, resizes, renames, clears, hands it on, disposes of it):
//! - claimed by a client: that client;
//! - claimed by a session: the client that handed it to the session, or created it for the
//!   session (its [`Owner`]); the session's active-client role, which any client may take
//!   while it is free, grants nothing;
//! - started by the host for the agent's `/run` ([`Owner::Agent`]): no client types into it;
//!   the session's active client may only detach it (narrow its claim to the session) or
//!   dispose of it. `/run` runs only in such terminals (see `run.rs`).
//!
//! Anyone may subscribe to (read) any terminal.

pub(super) mod run;

use super::base::Core;
use super::commands::invalid;
use super::features::{snapshot_json, Feature};
use super::{ConnId, Hub};
use crate::terminals::{Program, Pty, MAX_DIMENSION, MAX_INPUT_BYTES, MAX_TERMINALS};
use ahp_wasm::protocol::jsonrpc::{EmptyResult, ErrorObject, RequestId, ROOT_CHANNEL};
use ahp_wasm::protocol::tagged::TaggedUnion;
use ahp_wasm::protocol::{
    errors, ActionOrigin, CreateTerminalParams, RootTerminalsChangedAction, StateAction,
    TerminalClaim, TerminalDataAction, TerminalExitedAction, TerminalInfo, TerminalSessionClaim,
    TerminalState,
};
use ahp_wasm::reduce::{Clock, FixedClock, NoOp, Outcome, SystemClock};
use std::collections::HashMap;

/// The longest terminal title accepted from a client, in characters.
const MAX_TITLE_CHARS: usize = 256;
/// Why a client that does not hold a terminal is refused.
const NOT_HOLDER: &str = "only the client holding the terminal may do this (its client claim, \
                          or the client that handed it to its session)";
/// Why a client is refused on an agent's terminal.
const AGENT_TERMINAL: &str = "the agent's terminal takes no client's input: the session's \
                              active client may only detach it (narrow its claim to the \
                              session) or dispose of it";

/// Who a terminal belongs to besides its claim (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Owner {
    /// The client that created the terminal or last held it with a client claim: while a
    /// session claims the terminal, this client alone uses it.
    Client(String),
    /// The host, for the agent's `/run`: no client types into it.
    Agent,
}

/// A terminal: its state, subscribers and shell.
pub(super) struct Terminal {
    pub(super) state: TerminalState,
    pub(super) subscribers: Vec<ConnId>,
    /// Tells this terminal's pty messages from those of an earlier one at the same URI.
    id: u64,
    /// Creation order, for the root list.
    pub(super) order: u64,
    pub(super) owner: Owner,
    pub(super) pty: Pty,
    /// What shell integration has reported (see `run.rs`).
    pub(super) shell: run::Tracking,
    /// The agent's `/run` waiting on this terminal.
    pub(super) run: Option<run::Run>,
}

/// The host's terminals.
#[derive(Default)]
pub(super) struct Terminals {
    pub(super) map: HashMap<String, Terminal>,
    pub(super) next_id: u64,
}

impl Terminals {
    /// Applies an action to a terminal channel through the SDK's terminal reducer; on success
    /// the core gives it the next `serverSeq` and sends it to the terminal's subscribers.
    pub(super) fn apply(
        &mut self,
        core: &mut Core,
        channel: &str,
        action: StateAction,
        origin: Option<ActionOrigin>,
    ) -> Result<StateAction, (StateAction, NoOp)> {
        let Some(terminal) = self.map.get_mut(channel) else {
            return Err((action, NoOp::UnknownTarget));
        };
        let clock = FixedClock(SystemClock.now());
        match ahp_wasm::reduce::terminal_reducer(&mut terminal.state, &action, &clock) {
            Outcome::Applied(_) => {}
            // Side-effect only (written to the pty): echoed like an applied action.
            Outcome::NoOp(NoOp::NothingToChange)
                if matches!(action, StateAction::TerminalInput(_)) => {}
            Outcome::NoOp(reason) => return Err((action, reason)),
        }
        Ok(core.publish(channel, action, origin, &terminal.subscribers))
    }

    /// Kills the shell of `uri` and removes the terminal and its subscriptions.
    fn remove(&mut self, core: &mut Core, uri: &str) -> bool {
        let Some(mut terminal) = self.map.remove(uri) else {
            return false;
        };
        terminal.pty.kill();
        if let Some(run) = &terminal.run {
            run.end_background(core);
        }
        for sub in &terminal.subscribers {
            if let Some(c) = core.conns.get_mut(sub) {
                c.subs.remove(uri);
            }
        }
        true
    }

    /// Replaces root `terminals` with the current list (in creation order).
    pub(super) fn update_root(&self, core: &mut Core) {
        let mut list: Vec<(&String, &Terminal)> = self.map.iter().collect();
        list.sort_by_key(|(_, t)| t.order);
        let terminals = list
            .into_iter()
            .map(|(uri, t)| TerminalInfo {
                resource: uri.clone(),
                title: t.state.title.clone(),
                claim: t.state.claim.clone(),
                exit_code: t.state.exit_code,
                extra: Default::default(),
            })
            .collect();
        let action = StateAction::RootTerminalsChanged(RootTerminalsChangedAction {
            terminals,
            extra: Default::default(),
        });
        let _ = core.apply(ROOT_CHANNEL, action, None);
    }
}

/// Whether `uri` is an acceptable terminal URI: `ahp-terminal:/` plus a short printable id.
fn valid_terminal_uri(uri: &str) -> bool {
    super::commands::valid_channel_uri(uri, "ahp-terminal:/")
}

/// A dimension (`cols`, `rows`): a whole number in 1..=1000.
fn dimension(value: f64, name: &str) -> Result<u16, String> {
    crate::params::whole_number(value, name, 1, MAX_DIMENSION as u64).map(|v| v as u16)
}

/// The key of the state a session claim is held by: its chat's view for a chat other than the
/// session's default one (`compat::claim_chat`), else the session.
fn claim_key(claim: &TerminalSessionClaim) -> &str {
    crate::compat::claim_chat(&claim.extra).unwrap_or(&claim.session)
}

/// Whether `claim` is a session claim held by `key` (a session, or a chat's view).
fn held_by(claim: &TerminalClaim, key: &str) -> bool {
    matches!(claim, TerminalClaim::Session(c) if claim_key(c) == key)
}

pub(super) fn terminal_not_found(uri: &str) -> ErrorObject {
    let shown: String = uri.chars().take(120).collect();
    ErrorObject::new(errors::NOT_FOUND, format!("no terminal {shown}"))
}

impl Hub {
    /// Whether `client_id` uses the terminal: the client of its client claim; while a session
    /// claims it, its owning client (none for the agent's terminals).
    fn holds(terminal: &Terminal, client_id: &str) -> bool {
        match &terminal.state.claim {
            TerminalClaim::Client(c) => c.client_id == client_id,
            TerminalClaim::Session(_) => {
                matches!(&terminal.owner, Owner::Client(owner) if owner == client_id)
            }
            TerminalClaim::Unknown(_) => false,
        }
    }

    /// Whether `client_id` is the active client of the session holding this agent's terminal
    /// (it may detach or dispose of it, nothing else).
    fn steers_agent_terminal(&self, terminal: &Terminal, client_id: &str) -> bool {
        let TerminalClaim::Session(claim) = &terminal.state.claim else {
            return false;
        };
        terminal.owner == Owner::Agent
            && self
                .core
                .sessions
                .get(claim_key(claim))
                .and_then(|s| s.members.active_client.as_ref())
                .is_some_and(|a| a.client_id == client_id)
    }

    /// The claim of session or chat view `key` (a chat's names its session and the chat).
    pub(super) fn session_claim(
        &self,
        key: &str,
        turn_id: Option<String>,
        tool_call_id: Option<String>,
    ) -> TerminalClaim {
        let mut claim = TerminalSessionClaim {
            session: key.to_owned(),
            turn_id,
            tool_call_id,
            extra: Default::default(),
        };
        if let Some(parent) = self.core.chat_parent(key) {
            claim.session = parent.to_owned();
            claim.extra.insert("chat".into(), key.into());
        }
        TerminalClaim::Session(claim)
    }

    /// Chat view `chat` moved to another session: the claims its terminals hold name that
    /// session now.
    pub(super) fn chat_moved(&mut self, chat: &str) {
        let held: Vec<(String, TerminalClaim)> = self
            .terminals
            .map
            .iter()
            .filter_map(|(uri, t)| match &t.state.claim {
                TerminalClaim::Session(c) if claim_key(c) == chat => Some((
                    uri.clone(),
                    self.session_claim(chat, c.turn_id.clone(), c.tool_call_id.clone()),
                )),
                _ => None,
            })
            .collect();
        if held.is_empty() {
            return;
        }
        for (uri, claim) in held {
            let action = StateAction::TerminalClaimed(ahp_wasm::protocol::TerminalClaimedAction {
                claim,
                extra: Default::default(),
            });
            let _ = self.apply(&uri, action, None);
        }
        self.terminals.update_root(&mut self.core);
    }

    /// A claim a client may set: its own client claim, or one for an existing session.
    fn check_claim(&self, claim: &TerminalClaim, client_id: &str) -> Result<(), String> {
        match claim {
            TerminalClaim::Client(c) if c.client_id == client_id => Ok(()),
            TerminalClaim::Client(_) => {
                Err("a client claim must name the dispatching client's own clientId".into())
            }
            TerminalClaim::Session(s) => {
                // A chat's view is not a session (`chat_views.rs`): its claims name its chat.
                let view = super::v1_mirror::is_chat_view(&s.session);
                if view || !self.core.sessions.contains_key(&s.session) {
                    return Err("a session claim must name an existing session".into());
                }
                match crate::compat::claim_chat(&s.extra) {
                    Some(chat) if self.core.chat_parent(chat) != Some(s.session.as_str()) => {
                        Err("a session claim's `chat` must be a chat of that session".into())
                    }
                    _ => Ok(()),
                }
            }
            TerminalClaim::Unknown(_) => Err("unknown claim kind".into()),
        }
    }

    pub(super) fn create_terminal(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: CreateTerminalParams,
    ) -> Result<(), ErrorObject> {
        let uri = p.channel;
        if !valid_terminal_uri(&uri) {
            return Err(invalid(
                "the terminal URI must be ahp-terminal:/<id> (printable, <= 256)",
            ));
        }
        if self.terminals.map.contains_key(&uri) {
            return Err(ErrorObject::new(
                errors::ALREADY_EXISTS,
                "a terminal with this URI exists",
            ));
        }
        if self.terminals.map.len() >= MAX_TERMINALS {
            return Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                format!("this host keeps at most {MAX_TERMINALS} terminals; dispose of one first"),
            ));
        }
        let client_id = self
            .core
            .conn_client_id(conn)
            .unwrap_or_default()
            .to_owned();
        self.check_claim(&p.claim, &client_id)
            .map_err(|e| invalid(format!("claim: {e}")))?;
        let cols = dimension(p.cols.unwrap_or(80.0), "cols").map_err(invalid)?;
        let rows = dimension(p.rows.unwrap_or(24.0), "rows").map_err(invalid)?;
        let title = p.name.unwrap_or_else(|| "Terminal".into());
        if title.chars().count() > MAX_TITLE_CHARS {
            return Err(invalid(format!(
                "name must be at most {MAX_TITLE_CHARS} characters"
            )));
        }
        let cwd = match &p.cwd {
            Some(dir) => self.check_workdir(dir)?,
            None => self.core.sandbox.root().to_path_buf(),
        };
        let new = NewTerminal {
            uri,
            cwd: &cwd,
            size: (cols, rows),
            title,
            claim: p.claim,
            owner: Owner::Client(client_id),
        };
        self.spawn_terminal(new, Program::Shell)?;
        self.core.respond(conn, id, &EmptyResult);
        self.terminals.update_root(&mut self.core);
        Ok(())
    }

    /// Starts `program` and adds its terminal (checked by the caller: URI, limits, claim).
    pub(super) fn spawn_terminal(
        &mut self,
        new: NewTerminal<'_>,
        program: Program<'_>,
    ) -> Result<(), ErrorObject> {
        self.terminals.next_id += 1;
        let tid = self.terminals.next_id;
        let (cols, rows) = new.size;
        let pty = Pty::spawn(
            new.cwd,
            new.size,
            program,
            new.uri.clone(),
            tid,
            self.core.tx.clone(),
        )
        .map_err(|e| {
            ErrorObject::new(
                errors::INTERNAL_ERROR,
                format!("cannot start the terminal: {e}"),
            )
        })?;
        let state = TerminalState {
            title: new.title,
            cwd: Some(crate::resources::file_uri(new.cwd)),
            cols: Some(f64::from(cols)),
            rows: Some(f64::from(rows)),
            content: Vec::new(),
            exit_code: None,
            claim: new.claim,
            supports_command_detection: None,
            extra: Default::default(),
        };
        self.terminals.map.insert(
            new.uri,
            Terminal {
                state,
                subscribers: Vec::new(),
                id: tid,
                order: tid,
                owner: new.owner,
                pty,
                shell: Default::default(),
                run: None,
            },
        );
        Ok(())
    }

    pub(super) fn dispose_terminal(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        uri: &str,
    ) -> Result<(), ErrorObject> {
        let client_id = self.core.conn_client_id(conn).unwrap_or_default();
        let terminal = self
            .terminals
            .map
            .get(uri)
            .ok_or_else(|| terminal_not_found(uri))?;
        if !Self::holds(terminal, client_id) && !self.steers_agent_terminal(terminal, client_id) {
            return Err(ErrorObject::new(
                errors::PERMISSION_DENIED,
                "only the client holding the terminal may dispose of it (its client claim, or \
                 the client that handed it to its session; for the agent's terminals, the \
                 session's active client)",
            ));
        }
        self.terminals.remove(&mut self.core, uri);
        self.core.respond(conn, id, &EmptyResult);
        self.terminals.update_root(&mut self.core);
        Ok(())
    }

    /// Disposes of the finished `/run` terminals of `session` but the newest `keep` (a new
    /// run is about to start: they would fill the host's [`MAX_TERMINALS`] otherwise).
    pub(super) fn prune_finished_runs(&mut self, session: &str, keep: usize) {
        let mut finished: Vec<(u64, String)> = self
            .terminals
            .map
            .iter()
            .filter(|(_, t)| {
                t.owner == Owner::Agent
                    && t.state.exit_code.is_some()
                    && held_by(&t.state.claim, session)
            })
            .map(|(uri, t)| (t.order, uri.clone()))
            .collect();
        if finished.len() <= keep {
            return;
        }
        finished.sort();
        for (_, uri) in &finished[..finished.len() - keep] {
            self.terminals.remove(&mut self.core, uri);
        }
        self.terminals.update_root(&mut self.core);
    }

    /// Whether `channel` is terminal `id` (and not a later one at the same URI).
    pub(super) fn is_terminal(&self, channel: &str, id: u64) -> bool {
        self.terminals.map.get(channel).is_some_and(|t| t.id == id)
    }

    /// Output of a terminal's pty.
    pub(super) fn on_terminal_output(&mut self, channel: &str, id: u64, data: String) {
        if self.is_terminal(channel, id) {
            let action = StateAction::TerminalData(TerminalDataAction {
                data,
                extra: Default::default(),
            });
            let _ = self.apply(channel, action, None);
        }
    }

    /// A terminal's process is gone (`code`: its exit code, see `Pty`): the agent's command
    /// finishes with it, then the terminal exits.
    pub(super) fn on_terminal_exited(&mut self, channel: &str, id: u64, code: Option<u32>) {
        if !self.is_terminal(channel, id) {
            return;
        }
        let code = code.and_then(|c| i32::try_from(c).ok());
        self.run_process_exited(channel, code);
        let action = StateAction::TerminalExited(TerminalExitedAction {
            exit_code: Some(code.map_or(-1.0, f64::from)),
            extra: Default::default(),
        });
        if self.apply(channel, action, None).is_ok() {
            self.terminals.update_root(&mut self.core);
        }
    }

    /// A client dispatched an action on a terminal channel: authorized here, applied through
    /// the reducer, with its side effect on the pty.
    pub(super) fn on_terminal_dispatch(
        &mut self,
        conn: ConnId,
        channel: &str,
        action: StateAction,
        origin: ActionOrigin,
    ) {
        let Some(terminal) = self.terminals.map.get(channel) else {
            // Actions for a channel that does not exist are ignored silently.
            return;
        };
        if let Err(reason) = self.authorize_terminal(terminal, &action, &origin.client_id) {
            return self.core.reject(conn, channel, action, origin, reason);
        }
        let terminal = self.terminals.map.get_mut(channel).expect("checked above");
        let effect = match &action {
            StateAction::TerminalInput(a) => terminal.pty.write(a.data.as_bytes()),
            StateAction::TerminalResized(a) => {
                // Bounds checked by `authorize_terminal`.
                terminal.pty.resize(a.cols as u16, a.rows as u16)
            }
            _ => Ok(()),
        };
        if let Err(e) = effect {
            let reason = format!("the terminal's pty refused it: {e}");
            return self.core.reject(conn, channel, action, origin, reason);
        }
        let list_changes = matches!(
            action,
            StateAction::TerminalClaimed(_) | StateAction::TerminalTitleChanged(_)
        );
        match self.apply(channel, action, Some(origin.clone())) {
            Ok(action) => {
                if let StateAction::TerminalClaimed(a) = &action {
                    self.claim_changed_owner(channel, &a.claim);
                }
                if list_changes {
                    self.terminals.update_root(&mut self.core);
                }
                self.run_claim_changed(channel);
            }
            Err((action, why)) => {
                self.core
                    .reject(conn, channel, action, origin, why.reason().into())
            }
        }
    }

    /// A client claim makes its client the terminal's owner (the one who keeps it when it
    /// hands the terminal to a session); the agent's terminals stay the agent's.
    fn claim_changed_owner(&mut self, channel: &str, claim: &TerminalClaim) {
        if let (Some(terminal), TerminalClaim::Client(c)) =
            (self.terminals.map.get_mut(channel), claim)
        {
            if terminal.owner != Owner::Agent {
                terminal.owner = Owner::Client(c.client_id.clone());
            }
        }
    }

    /// The client-dispatchable terminal actions (spec/terminal-channel.md), authorized for
    /// `client_id`: only the client that uses the terminal (see `holds`) may type into it,
    /// resize it, hand it on, rename it or clear it; the session's active client may only
    /// detach an agent's terminal.
    fn authorize_terminal(
        &self,
        terminal: &Terminal,
        action: &StateAction,
        client_id: &str,
    ) -> Result<(), String> {
        use StateAction as A;
        let state = &terminal.state;
        let holder = || match (Self::holds(terminal, client_id), &terminal.owner) {
            (true, _) => Ok(()),
            (false, Owner::Agent) => Err(AGENT_TERMINAL.to_string()),
            (false, Owner::Client(_)) => Err(NOT_HOLDER.to_string()),
        };
        match action {
            A::TerminalInput(a) => {
                holder()?;
                if state.exit_code.is_some() {
                    return Err("the terminal's process has exited".into());
                }
                if a.data.len() > MAX_INPUT_BYTES {
                    return Err(format!("input over {MAX_INPUT_BYTES} bytes"));
                }
                Ok(())
            }
            A::TerminalResized(a) => {
                holder()?;
                dimension(a.cols, "cols")?;
                dimension(a.rows, "rows")?;
                Ok(())
            }
            A::TerminalClaimed(a) if terminal.owner == Owner::Agent => {
                let detach = matches!((&state.claim, &a.claim),
                    (TerminalClaim::Session(now), TerminalClaim::Session(to))
                        if to.session == now.session
                            && claim_key(to) == claim_key(now)
                            && to.turn_id.is_none()
                            && to.tool_call_id.is_none());
                if detach && self.steers_agent_terminal(terminal, client_id) {
                    Ok(())
                } else {
                    holder()
                }
            }
            A::TerminalClaimed(a) => {
                holder()?;
                match &a.claim {
                    // Handing on to another client is allowed (the claimant transfers it).
                    TerminalClaim::Client(c)
                        if !c.client_id.is_empty() && c.client_id.len() <= 256 =>
                    {
                        Ok(())
                    }
                    claim => self.check_claim(claim, client_id),
                }
            }
            A::TerminalTitleChanged(a) => {
                holder()?;
                if a.title.chars().count() > MAX_TITLE_CHARS {
                    return Err(format!("title over {MAX_TITLE_CHARS} characters"));
                }
                Ok(())
            }
            A::TerminalCleared(_) => holder(),
            other => Err(format!(
                "`{}` is not client-dispatchable on a terminal",
                other.variant_tag()
            )),
        }
    }
}

/// What [`Hub::spawn_terminal`] starts a terminal with.
pub(super) struct NewTerminal<'a> {
    pub(super) uri: String,
    pub(super) cwd: &'a std::path::Path,
    pub(super) size: (u16, u16),
    pub(super) title: String,
    pub(super) claim: TerminalClaim,
    pub(super) owner: Owner,
}

impl Feature for Terminals {
    fn has_channel(&self, channel: &str) -> bool {
        self.map.contains_key(channel)
    }

    fn subscribers_mut(&mut self, channel: &str) -> Option<&mut Vec<ConnId>> {
        self.map.get_mut(channel).map(|t| &mut t.subscribers)
    }

    fn snapshot(&self, channel: &str, from_seq: u64) -> Option<String> {
        snapshot_json(channel, &self.map.get(channel)?.state, from_seq)
    }

    /// A session is disposed: so are the terminals it holds (guide/terminals.md, "Agent
    /// Starts a Background Server"), such as those of its `/run`s.
    fn session_disposed(&mut self, core: &mut Core, session: &str) {
        let held: Vec<String> = self
            .map
            .iter()
            .filter(|(_, t)| held_by(&t.state.claim, session))
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in &held {
            self.remove(core, uri);
        }
        if !held.is_empty() {
            self.update_root(core);
        }
    }

    /// Kills every shell (the host is stopping).
    fn shutdown(&mut self, _core: &mut Core) {
        for terminal in self.map.values_mut() {
            terminal.pty.kill();
        }
    }
}
