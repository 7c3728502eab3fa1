//! Terminal channels (`ahp-terminal:/<id>`): `createTerminal`, `disposeTerminal`, the
//! client-dispatchable terminal actions, the pty's output and exit, and root `terminals`.
//!
//! The hub keeps each terminal's `TerminalState` and changes it only through the SDK's
//! terminal reducer (the one clients run), like every other channel. Terminals are not
//! persisted: they die with the host (see `Hub::run`).

use super::commands::invalid;
use super::{ConnId, Hub};
use crate::terminals::{Pty, MAX_DIMENSION, MAX_INPUT_BYTES, MAX_TERMINALS};
use ahp_wasm::protocol::jsonrpc::{EmptyResult, ErrorObject, RequestId, ROOT_CHANNEL};
use ahp_wasm::protocol::tagged::TaggedUnion;
use ahp_wasm::protocol::{
    errors, ActionOrigin, CreateTerminalParams, RootTerminalsChangedAction, StateAction,
    TerminalClaim, TerminalDataAction, TerminalExitedAction, TerminalInfo, TerminalState,
};
use std::collections::HashMap;

/// The longest terminal title accepted from a client, in characters.
const MAX_TITLE_CHARS: usize = 256;

/// A terminal: its state, subscribers and shell.
pub(super) struct Terminal {
    pub(super) state: TerminalState,
    pub(super) subscribers: Vec<ConnId>,
    /// Tells this terminal's pty messages from those of an earlier one at the same URI.
    id: u64,
    /// Creation order, for the root list.
    order: u64,
    pty: Pty,
}

/// The host's terminals.
#[derive(Default)]
pub(super) struct Terminals {
    pub(super) map: HashMap<String, Terminal>,
    next_id: u64,
}

/// Whether `uri` is an acceptable terminal URI: `ahp-terminal:/` plus a short printable id.
fn valid_terminal_uri(uri: &str) -> bool {
    super::commands::valid_channel_uri(uri, "ahp-terminal:/")
}

/// A dimension (`cols`, `rows`): a whole number in 1..=1000.
fn dimension(value: f64, name: &str) -> Result<u16, String> {
    crate::params::whole_number(value, name, 1, MAX_DIMENSION as u64).map(|v| v as u16)
}

fn terminal_not_found(uri: &str) -> ErrorObject {
    let shown: String = uri.chars().take(120).collect();
    ErrorObject::new(errors::NOT_FOUND, format!("no terminal {shown}"))
}

impl Hub {
    /// Whether `client_id` holds the terminal: its client claim, or the active client of the
    /// session holding it.
    fn holds(&self, state: &TerminalState, client_id: &str) -> bool {
        match &state.claim {
            TerminalClaim::Client(c) => c.client_id == client_id,
            TerminalClaim::Session(s) => self
                .sessions
                .get(&s.session)
                .and_then(|s| s.state.active_client.as_ref())
                .is_some_and(|a| a.client_id == client_id),
            TerminalClaim::Unknown(_) => false,
        }
    }

    /// A claim a client may set: its own client claim, or one for an existing session.
    fn check_claim(&self, claim: &TerminalClaim, client_id: &str) -> Result<(), String> {
        match claim {
            TerminalClaim::Client(c) if c.client_id == client_id => Ok(()),
            TerminalClaim::Client(_) => {
                Err("a client claim must name the dispatching client's own clientId".into())
            }
            TerminalClaim::Session(s) if self.sessions.contains_key(&s.session) => Ok(()),
            TerminalClaim::Session(_) => {
                Err("a session claim must name an existing session".into())
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
        let client_id = self.conn_client_id(conn).unwrap_or_default().to_owned();
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
            None => self.sandbox.root().to_path_buf(),
        };
        self.terminals.next_id += 1;
        let tid = self.terminals.next_id;
        let pty = Pty::spawn(&cwd, cols, rows, uri.clone(), tid, self.tx.clone()).map_err(|e| {
            ErrorObject::new(
                errors::INTERNAL_ERROR,
                format!("cannot start the terminal: {e}"),
            )
        })?;
        let state = TerminalState {
            title,
            cwd: Some(crate::resources::file_uri(&cwd)),
            cols: Some(f64::from(cols)),
            rows: Some(f64::from(rows)),
            content: Vec::new(),
            exit_code: None,
            claim: p.claim,
            supports_command_detection: None,
            extra: Default::default(),
        };
        self.terminals.map.insert(
            uri,
            Terminal {
                state,
                subscribers: Vec::new(),
                id: tid,
                order: tid,
                pty,
            },
        );
        self.respond(conn, id, &EmptyResult);
        self.update_root_terminals();
        Ok(())
    }

    pub(super) fn dispose_terminal(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        uri: &str,
    ) -> Result<(), ErrorObject> {
        let mut terminal = self
            .terminals
            .map
            .remove(uri)
            .ok_or_else(|| terminal_not_found(uri))?;
        terminal.pty.kill();
        for sub in &terminal.subscribers {
            if let Some(c) = self.conns.get_mut(sub) {
                c.subs.remove(uri);
            }
        }
        self.respond(conn, id, &EmptyResult);
        self.update_root_terminals();
        Ok(())
    }

    /// Kills every shell (the host is stopping).
    pub(super) fn kill_terminals(&mut self) {
        for terminal in self.terminals.map.values_mut() {
            terminal.pty.kill();
        }
    }

    /// Replaces root `terminals` with the current list (in creation order).
    pub(super) fn update_root_terminals(&mut self) {
        let mut list: Vec<(&String, &Terminal)> = self.terminals.map.iter().collect();
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
        let _ = self.apply(ROOT_CHANNEL, action, None);
    }

    /// Output of a terminal's pty.
    pub(super) fn on_terminal_output(&mut self, channel: &str, id: u64, data: String) {
        if self.terminals.map.get(channel).is_some_and(|t| t.id == id) {
            let action = StateAction::TerminalData(TerminalDataAction {
                data,
                extra: Default::default(),
            });
            let _ = self.apply(channel, action, None);
        }
    }

    /// A terminal's shell is gone.
    pub(super) fn on_terminal_exited(&mut self, channel: &str, id: u64, code: Option<u32>) {
        if self.terminals.map.get(channel).is_some_and(|t| t.id == id) {
            let action = StateAction::TerminalExited(TerminalExitedAction {
                exit_code: Some(code.map_or(-1.0, f64::from)),
                extra: Default::default(),
            });
            if self.apply(channel, action, None).is_ok() {
                self.update_root_terminals();
            }
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
        if let Err(reason) = self.authorize_terminal(&terminal.state, &action, &origin.client_id) {
            return self.reject(conn, channel, action, origin, reason);
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
            return self.reject(conn, channel, action, origin, reason);
        }
        let list_changes = matches!(
            action,
            StateAction::TerminalClaimed(_) | StateAction::TerminalTitleChanged(_)
        );
        match self.apply(channel, action, Some(origin.clone())) {
            Ok(_) => {
                if list_changes {
                    self.update_root_terminals();
                }
            }
            Err((action, why)) => self.reject(conn, channel, action, origin, why.reason().into()),
        }
    }

    /// The client-dispatchable terminal actions (spec/terminal-channel.md), authorized for
    /// `client_id`: only the holder of the terminal (see `holds`) may type into it, resize it,
    /// hand it on, rename it or clear it.
    fn authorize_terminal(
        &self,
        state: &TerminalState,
        action: &StateAction,
        client_id: &str,
    ) -> Result<(), String> {
        use StateAction as A;
        let holder = || {
            if self.holds(state, client_id) {
                Ok(())
            } else {
                Err("only the client holding the terminal (its claim) may do this".to_string())
            }
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
            A::TerminalClaimed(a) => {
                holder()?;
                match &a.claim {
                    // Handing on to another client is allowed (the claimant transfers it).
                    ahp_wasm::protocol::TerminalClaim::Client(c)
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
