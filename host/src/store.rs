//! SQLite persistence: each session's AHP 1.0 state (the one state the hub keeps: its 0.3.0
//! view is derived from it), and what else the host must keep across restarts.
//!
//! Layout (one database file, WAL journal mode, exclusive locking so one host owns it):
//! - `v1_sessions(uri, head, head_seq)`, `chat_turns(chat, session, idx, turn_id, json)` and
//!   `v1_actions(session, seq, channel, action)`: each session's AHP 1.0 state
//!   (`hub/v1_mirror.rs`): the session and its chats without their completed turns as of
//!   `serverSeq = head_seq`, with the host's own fields of the session ([`HostFields`]); the
//!   chats' completed turns, in order; and the 1.0 actions applied after the head, so a
//!   restart replays them to the same state (the 1.0 reducers need no clock);
//! - `meta(key, value)`: the last `serverSeq` (`seq`), and the last one a replay can start from
//!   (`replay_seq`: the newest envelope of the replay ring; the AHP 1.0 view's own envelopes
//!   take numbers after it that 0.3.0 clients never see);
//! - `clients(client_id, secret_sha256, used, proven)`: client ids bound to secrets (hashes
//!   only), and whether the client ever presented its secret;
//! - `settings(key, json)`: the host configuration (`rootConfig`: root `config.values`);
//! - `mcp_approvals(workdir, name, sha256, client_id)`: the working-directory MCP server
//!   declarations a client approved (the last one per canonical directory and server name);
//! - `automations(uri, json)`: AHP 1.0 automations (`hub/automations/`), each the entry
//!   without its runs plus the host's schedule bookkeeping;
//! - `automation_runs(uri, automation, created, json)`: their runs, each the run's state;
//! - `annotations(session, id, json)`: AHP 1.0 annotations of sessions (`hub/annotations.rs`),
//!   one row per annotation, in the order they were created.
//!
//! Older hosts stored each session's 0.3.0 state (`sessions`, `turns`, `actions`: head,
//! completed turns, log of envelopes with their reducer clock). Those tables are only read
//! now: a session stored that way is loaded from them once, for what its 1.0 state lacks (all
//! of it for a host before AHP 1.0; the creation time and the 0.3.0 model and agent selection
//! for one that kept both states), and the hub deletes the rows in the same transaction that
//! stores its complete 1.0 state ([`Op::ForgetOlderState`]).
//!
//! The hub commits one transaction per batch of messages *before* it sends anything from that
//! batch, so an envelope a client has seen is on disk; `synchronous=NORMAL` in WAL mode survives
//! a killed process (only an OS crash or power loss can lose the last transactions).

use ahp_wasm::protocol::decode;
use ahp_wasm::protocol::v1;
use ahp_wasm::protocol::{ActionEnvelope, AgentSelection, ModelSelection, SessionState, Turn};
use ahp_wasm::reduce::v1::{chat_reducer, session_reducer as session_reducer_v1};
use ahp_wasm::reduce::{session_reducer, FixedClock};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A persistence failure (database unreadable, disk full, ...).
#[derive(Debug)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError(format!("sqlite: {e}"))
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError(format!("stored JSON: {e}"))
    }
}

impl From<ahp_wasm::protocol::decode::DecodeError> for StoreError {
    fn from(e: ahp_wasm::protocol::decode::DecodeError) -> Self {
        StoreError(format!("stored JSON: {e}"))
    }
}

/// One write in a batch.
#[derive(Debug)]
pub enum Op {
    /// A session stored by an older host: its 0.3.0 rows go (its 1.0 state, complete now, is
    /// written in the same batch).
    ForgetOlderState {
        /// Session URI.
        uri: Arc<str>,
    },
    /// The session was disposed.
    DeleteSession {
        /// Session URI.
        uri: Arc<str>,
    },
    /// A client id is bound to a secret (only its SHA-256 is stored), or was used again.
    BindClient {
        /// The client id.
        client_id: String,
        /// Hex SHA-256 of the secret.
        secret_sha256: String,
        /// When it was last used (the hub's use counter).
        used: u64,
        /// Its client presented the secret at least once.
        proven: bool,
        /// Its last `initialize` chose AHP 1.0.
        v1: bool,
    },
    /// A client id's binding was forgotten.
    ForgetClient {
        /// The client id.
        client_id: String,
    },
    /// The host configuration (root `config.values`) changed: its JSON.
    RootConfig {
        /// `config.values` as JSON.
        json: String,
    },
    /// A client approved a working directory's MCP server declaration.
    ApproveMcp(McpApproval),
    /// An automation was created or changed: its stored JSON.
    Automation {
        /// `ahp-automation:` URI.
        uri: String,
        /// What `hub/automations` stores.
        json: String,
    },
    /// An automation was removed, with its runs.
    DeleteAutomation {
        /// `ahp-automation:` URI.
        uri: String,
    },
    /// An automation run was created or changed.
    AutomationRun {
        /// `ahp-automation-run:` URI.
        uri: String,
        /// Its automation.
        automation: String,
        /// Orders runs (the hub's `serverSeq` when it was created).
        created: u64,
        /// What `hub/automations` stores.
        json: String,
    },
    /// Runs dropped from an automation's retained history.
    DeleteAutomationRun {
        /// `ahp-automation-run:` URI.
        uri: String,
    },
    /// An annotation of a session was added or changed (`json`) or removed (`None`).
    Annotation {
        /// Session URI.
        session: String,
        /// The annotation's id.
        id: String,
        /// The annotation as JSON; `None` when it was removed.
        json: Option<String>,
    },
    /// Every annotation of a session is gone (the session was disposed of).
    DeleteAnnotations {
        /// Session URI.
        session: String,
    },
    /// An AHP 1.0 action applied to a session's 1.0 state (its session or one of its chats).
    V1Action {
        /// Session URI.
        session: Arc<str>,
        /// `serverSeq` of its envelope.
        seq: u64,
        /// The session or chat channel.
        channel: String,
        /// The action's JSON.
        action: String,
    },
    /// A new head of a session's 1.0 state; older 1.0 log entries of that session are dropped.
    V1Head {
        /// Session URI.
        session: Arc<str>,
        /// [`V1Head`] as JSON.
        json: String,
        /// The `serverSeq` the head includes.
        seq: u64,
    },
    /// A completed turn of a 1.0 chat at position `idx`.
    ChatTurn {
        /// Chat URI.
        chat: String,
        /// Its session's URI.
        session: Arc<str>,
        /// Position in the chat's `turns`.
        idx: usize,
        /// The turn's id.
        turn_id: String,
        /// The turn (1.0).
        json: String,
    },
    /// Completed turns of a 1.0 chat from `from_idx` on were removed.
    TruncateChatTurns {
        /// Chat URI.
        chat: String,
        /// First removed position.
        from_idx: usize,
    },
}

/// A session's stored AHP 1.0 state: the session and its chats, the chats without their
/// completed turns (those are in `chat_turns`), and the host's own fields.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct V1Head {
    /// The 1.0 session state.
    pub session: v1::SessionState,
    /// Its chats (`turns` empty).
    pub chats: Vec<v1::ChatState>,
    /// Absent in a head of a host that still kept the 0.3.0 state beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostFields>,
}

/// What the host keeps of a session beside its 1.0 state, for the session's 0.3.0 view: data
/// 1.0 has no place for in the session state (not shown to 1.0 clients as state members the
/// spec does not have).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostFields {
    /// When the session was created (milliseconds since the epoch): 0.3.0's
    /// `summary.createdAt`, 1.0's `SessionSummary.createdAt` in `listSessions`.
    pub created_at: f64,
    /// The model a 0.3.0 client last chose (`session/modelChanged`): 1.0 has no session-level
    /// selection (a model is per message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelSelection>,
    /// The custom agent a 0.3.0 client last chose (`session/agentChanged`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentSelection>,
}

impl HostFields {
    /// The fields of a 0.3.0 state.
    pub fn of(state: &SessionState) -> HostFields {
        HostFields {
            created_at: state.summary.created_at,
            model: state.summary.model.clone(),
            agent: state.summary.agent.clone(),
        }
    }
}

/// A session's AHP 1.0 state as loaded.
#[derive(Debug)]
pub struct LoadedV1 {
    /// The head with every chat's completed turns, and the log after it applied.
    pub head: V1Head,
    /// The JSON size of each completed turn on disk, per chat (in `head.chats` order).
    pub turn_bytes: Vec<Vec<usize>>,
    /// Log entries after the head.
    pub since_head: usize,
}

/// An approved MCP server declaration of a working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpApproval {
    /// The canonical working directory.
    pub workdir: String,
    /// The server's name.
    pub name: String,
    /// Hex SHA-256 of the normalized declaration (`crate::mcp::trust::digest`).
    pub sha256: String,
    /// The client that approved it.
    pub client_id: String,
}

/// A client id's binding as stored.
#[derive(Debug, Clone)]
pub struct ClientBinding {
    /// The client id.
    pub client_id: String,
    /// Hex SHA-256 of its secret.
    pub secret_sha256: String,
    /// The hub's use counter when it was last used.
    pub used: u64,
    /// Its client presented the secret at least once.
    pub proven: bool,
    /// Its last `initialize` chose AHP 1.0.
    pub v1: bool,
}

/// A session as loaded at startup.
#[derive(Debug)]
pub struct LoadedSession {
    /// The session's URI (a non-default chat's, for a chat's view).
    pub uri: String,
    /// Its AHP 1.0 state; `None` for a session of a host before AHP 1.0.
    pub v1: Option<LoadedV1>,
    /// Its 0.3.0 state as an older host stored it (head + turns + replayed log), when it is
    /// stored that way and its 1.0 state is absent or lacks [`HostFields`].
    pub older: Option<SessionState>,
}

/// Everything loaded at startup.
#[derive(Debug)]
pub struct Loaded {
    /// The last `serverSeq` handed out.
    pub last_seq: u64,
    /// The `serverSeq` of the newest envelope the replay ring held (a 0.3.0 client that saw it
    /// missed nothing from before the restart); `last_seq` for a database of an older host.
    pub replay_seq: u64,
    /// Sessions, oldest first.
    pub sessions: Vec<LoadedSession>,
    /// Client ids bound to secrets.
    pub clients: Vec<ClientBinding>,
    /// The host configuration's values (root `config.values`) as JSON, once set.
    pub root_config: Option<String>,
    /// Approved MCP server declarations of working directories.
    pub mcp_approvals: Vec<McpApproval>,
    /// Stored automations (`uri`, JSON), oldest first.
    pub automations: Vec<(String, String)>,
    /// Stored automation runs (`automation`, `created`, JSON), oldest first.
    pub automation_runs: Vec<(String, u64, String)>,
    /// Stored annotations (`session`, JSON), oldest first.
    pub annotations: Vec<(String, String)>,
}

/// The database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Commits since the last checkpoint.
    unchecked: u32,
}

/// Commits after which a checkpoint runs even when the hub is never idle, bounding the WAL.
const CHECKPOINT_AFTER: u32 = 1000;

/// When the write-ahead log should be checkpointed ([`Store::checkpoint_due`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checkpoint {
    /// Nothing was committed since the last one.
    No,
    /// At the next idle moment.
    WhenIdle,
    /// Now: the log has grown by [`CHECKPOINT_AFTER`] commits.
    Now,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS settings(key TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions(uri TEXT PRIMARY KEY, head TEXT NOT NULL, head_seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS turns(uri TEXT NOT NULL, idx INTEGER NOT NULL, turn_id TEXT NOT NULL,
    json TEXT NOT NULL, PRIMARY KEY(uri, idx));
CREATE INDEX IF NOT EXISTS turns_by_id ON turns(uri, turn_id);
CREATE TABLE IF NOT EXISTS actions(seq INTEGER PRIMARY KEY, uri TEXT NOT NULL, ts REAL NOT NULL,
    envelope TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS actions_by_uri ON actions(uri, seq);
CREATE TABLE IF NOT EXISTS clients(client_id TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL,
    used INTEGER NOT NULL, proven INTEGER NOT NULL DEFAULT 0, v1 INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS mcp_approvals(workdir TEXT NOT NULL, name TEXT NOT NULL,
    sha256 TEXT NOT NULL, client_id TEXT NOT NULL, PRIMARY KEY(workdir, name));
CREATE TABLE IF NOT EXISTS automations(uri TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS automation_runs(uri TEXT PRIMARY KEY, automation TEXT NOT NULL,
    created INTEGER NOT NULL, json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS automation_runs_by_automation ON automation_runs(automation, created);
CREATE TABLE IF NOT EXISTS annotations(session TEXT NOT NULL, id TEXT NOT NULL, json TEXT NOT NULL,
    PRIMARY KEY(session, id));
CREATE TABLE IF NOT EXISTS v1_sessions(uri TEXT PRIMARY KEY, head TEXT NOT NULL,
    head_seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chat_turns(chat TEXT NOT NULL, session TEXT NOT NULL,
    idx INTEGER NOT NULL, turn_id TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY(chat, idx));
CREATE INDEX IF NOT EXISTS chat_turns_by_session ON chat_turns(session);
CREATE TABLE IF NOT EXISTS v1_actions(session TEXT NOT NULL, seq INTEGER NOT NULL,
    channel TEXT NOT NULL, action TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS v1_actions_by_session ON v1_actions(session, seq);
";

/// Brings a database of an older host up to [`SCHEMA`]. `clients.proven` came later: bindings
/// made before it count as never presented (the secret is required again from the next
/// handshake that presents it). `clients.v1` too: clients bound before it spoke 0.3.0.
fn migrate(conn: &Connection) -> Result<(), StoreError> {
    for column in ["proven", "v1"] {
        let has = conn
            .prepare("SELECT 1 FROM pragma_table_info('clients') WHERE name = ?1")?
            .exists([column])?;
        if !has {
            conn.execute_batch(&format!(
                "ALTER TABLE clients ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0"
            ))?;
        }
    }
    Ok(())
}

impl Store {
    /// Opens (creating if needed) `DIR/ahp-host.sqlite3`; the directory is created private.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        create_private_dir(dir)
            .map_err(|e| StoreError(format!("cannot create {}: {e}", dir.display())))?;
        let path = dir.join("ahp-host.sqlite3");
        let in_use = |e: rusqlite::Error| match e {
            rusqlite::Error::SqliteFailure(f, _)
                if matches!(
                    f.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) =>
            {
                StoreError(format!("{} is in use by another ahp-host", path.display()))
            }
            e => e.into(),
        };
        make_private(&path)
            .map_err(|e| StoreError(format!("cannot create {}: {e}", path.display())))?;
        let conn = Connection::open(&path)?;
        conn.busy_timeout(std::time::Duration::from_millis(0))?;
        conn.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(in_use)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError(format!(
                "WAL journal mode unavailable (got {mode})"
            )));
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // Checkpoints sync the disk: the hub runs them when it is idle ([`Store::checkpoint`]),
        // not inside the commit of whatever batch crosses SQLite's page threshold.
        conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        // Takes the exclusive lock now (and, in exclusive locking mode, keeps it).
        conn.execute_batch(&format!("BEGIN EXCLUSIVE; {SCHEMA} COMMIT;"))
            .map_err(in_use)?;
        migrate(&conn)?;
        Ok(Store {
            conn,
            path,
            unchecked: 0,
        })
    }

    /// Whether the write-ahead log has commits to copy into the database.
    pub fn checkpoint_due(&self) -> Checkpoint {
        match self.unchecked {
            0 => Checkpoint::No,
            n if n >= CHECKPOINT_AFTER => Checkpoint::Now,
            _ => Checkpoint::WhenIdle,
        }
    }

    /// Copies the write-ahead log into the database (and syncs it), so the log stays small and
    /// a restart replays little. The commits are durable without it.
    pub fn checkpoint(&mut self) -> Result<(), StoreError> {
        self.unchecked = 0;
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Loads every session (its 1.0 state, and the 0.3.0 state an older host stored where
    /// still needed: see [`LoadedSession::older`]) and the rest of the host's data.
    pub fn load(&self) -> Result<Loaded, StoreError> {
        // The recorded `serverSeq`, never below a logged action's (both are written in the
        // same transaction; the max guards against a database edited by hand).
        let last_seq: u64 = self.conn.query_row(
            "SELECT MAX(COALESCE((SELECT value FROM meta WHERE key = 'seq'), 0),
                        COALESCE((SELECT MAX(seq) FROM actions), 0),
                        COALESCE((SELECT MAX(seq) FROM v1_actions), 0))",
            [],
            |r| r.get(0),
        )?;
        let replay_seq: u64 = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'replay_seq'", [], |r| {
                r.get(0)
            })
            .optional()?
            .map_or(last_seq, |seq: u64| seq.min(last_seq));
        let uris: Vec<String> = self
            .conn
            .prepare("SELECT uri FROM v1_sessions UNION SELECT uri FROM sessions")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut sessions = Vec::with_capacity(uris.len());
        for uri in uris {
            let v1 = self.load_v1(&uri)?;
            let older = match &v1 {
                Some(v1) if v1.head.host.is_some() => None,
                _ => self.load_older(&uri)?,
            };
            sessions.push(LoadedSession { uri, v1, older });
        }
        let clients = self
            .conn
            .prepare("SELECT client_id, secret_sha256, used, proven, v1 FROM clients")?
            .query_map([], |r| {
                Ok(ClientBinding {
                    client_id: r.get(0)?,
                    secret_sha256: r.get(1)?,
                    used: r.get(2)?,
                    proven: r.get(3)?,
                    v1: r.get(4)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        let root_config = self
            .conn
            .query_row(
                "SELECT json FROM settings WHERE key = 'rootConfig'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        let mcp_approvals = self
            .conn
            .prepare("SELECT workdir, name, sha256, client_id FROM mcp_approvals")?
            .query_map([], |r| {
                Ok(McpApproval {
                    workdir: r.get(0)?,
                    name: r.get(1)?,
                    sha256: r.get(2)?,
                    client_id: r.get(3)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        let automations = self
            .conn
            .prepare("SELECT uri, json FROM automations ORDER BY rowid")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let automation_runs = self
            .conn
            .prepare("SELECT automation, created, json FROM automation_runs ORDER BY created")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        let annotations = self
            .conn
            .prepare("SELECT session, json FROM annotations ORDER BY rowid")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(Loaded {
            last_seq,
            replay_seq,
            sessions,
            clients,
            root_config,
            mcp_approvals,
            automations,
            automation_runs,
            annotations,
        })
    }

    /// The AHP 1.0 state of session `uri`: head, the chats' completed turns, then the log.
    fn load_v1(&self, uri: &str) -> Result<Option<LoadedV1>, StoreError> {
        let Some((head, head_seq)) = self
            .conn
            .query_row(
                "SELECT head, head_seq FROM v1_sessions WHERE uri = ?1",
                [uri],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, u64>(1)?)),
            )
            .optional()?
        else {
            return Ok(None);
        };
        let mut head: V1Head = serde_json::from_str(&head)?;
        let mut turns_q = self
            .conn
            .prepare_cached("SELECT json FROM chat_turns WHERE chat = ?1 ORDER BY idx")?;
        let mut turn_bytes = Vec::with_capacity(head.chats.len());
        for chat in &mut head.chats {
            let turns: Vec<String> = turns_q
                .query_map([&chat.resource], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            chat.turns = turns
                .iter()
                .map(|t| serde_json::from_str::<v1::Turn>(t).map(Arc::new))
                .collect::<Result<_, _>>()?;
            turn_bytes.push(turns.iter().map(String::len).collect());
        }
        let log: Vec<(String, String)> = self
            .conn
            .prepare_cached(
                "SELECT channel, action FROM v1_actions WHERE session = ?1 AND seq > ?2 \
                 ORDER BY rowid",
            )?
            .query_map(params![uri, head_seq], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (channel, action) in &log {
            let action: v1::StateAction = serde_json::from_str(action)?;
            // Logged actions were applied once already; replaying them reproduces the state.
            // A chat first: a non-default chat's state is stored under the chat's URI.
            if let Some(chat) = head.chats.iter_mut().find(|c| &c.resource == channel) {
                let _ = chat_reducer(chat, &action);
            } else if channel == uri {
                let _ = session_reducer_v1(&mut head.session, &action);
            }
        }
        Ok(Some(LoadedV1 {
            head,
            turn_bytes,
            since_head: log.len(),
        }))
    }

    /// The 0.3.0 state an older host stored for `uri` (head, completed turns, then its log
    /// replayed with each envelope's own clock), if any.
    fn load_older(&self, uri: &str) -> Result<Option<SessionState>, StoreError> {
        let Some((head, head_seq)) = self
            .conn
            .query_row(
                "SELECT head, head_seq FROM sessions WHERE uri = ?1",
                [uri],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, u64>(1)?)),
            )
            .optional()?
        else {
            return Ok(None);
        };
        let mut state: SessionState = decode::from_text(&head)?;
        let turns: Vec<String> = self
            .conn
            .prepare_cached("SELECT json FROM turns WHERE uri = ?1 ORDER BY idx")?
            .query_map([uri], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        state.turns = turns
            .iter()
            .map(|t| decode::from_text::<Turn>(t).map(Arc::new))
            .collect::<Result<_, _>>()?;
        let log: Vec<(f64, String)> = self
            .conn
            .prepare_cached(
                "SELECT ts, envelope FROM actions WHERE uri = ?1 AND seq > ?2 ORDER BY seq",
            )?
            .query_map(params![uri, head_seq], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (ts, envelope) in &log {
            let envelope: ActionEnvelope = decode::from_text(envelope)?;
            // Logged envelopes were applied once already; replaying them reproduces the state.
            let _ = session_reducer(&mut state, &envelope.action, &FixedClock(*ts));
        }
        Ok(Some(state))
    }

    /// Writes a batch in one transaction, with the current `serverSeq`.
    /// Writes `ops` and the `serverSeq`s (`seq`, and `replay_seq`: see [`Loaded::replay_seq`])
    /// in one transaction.
    pub fn commit(&mut self, ops: &[Op], seq: u64, replay_seq: u64) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        {
            for op in ops {
                match op {
                    Op::ForgetOlderState { uri } => {
                        for table in ["sessions", "turns", "actions"] {
                            tx.execute(&format!("DELETE FROM {table} WHERE uri = ?1"), [&**uri])?;
                        }
                    }
                    Op::BindClient {
                        client_id,
                        secret_sha256,
                        used,
                        proven,
                        v1,
                    } => {
                        tx.execute(
                            "INSERT OR REPLACE INTO clients(client_id, secret_sha256, used, proven, v1) \
                             VALUES (?1, ?2, ?3, ?4, ?5)",
                            params![client_id, secret_sha256, used, proven, v1],
                        )?;
                    }
                    Op::ForgetClient { client_id } => {
                        tx.execute("DELETE FROM clients WHERE client_id = ?1", [client_id])?;
                    }
                    Op::RootConfig { json } => {
                        tx.execute(
                            "INSERT OR REPLACE INTO settings(key, json) VALUES ('rootConfig', ?1)",
                            [json],
                        )?;
                    }
                    Op::ApproveMcp(a) => {
                        tx.execute(
                            "INSERT OR REPLACE INTO mcp_approvals(workdir, name, sha256, client_id) \
                             VALUES (?1, ?2, ?3, ?4)",
                            params![a.workdir, a.name, a.sha256, a.client_id],
                        )?;
                    }
                    Op::Automation { uri, json } => {
                        tx.execute(
                            "INSERT INTO automations(uri, json) VALUES (?1, ?2) \
                             ON CONFLICT(uri) DO UPDATE SET json = excluded.json",
                            params![uri, json],
                        )?;
                    }
                    Op::DeleteAutomation { uri } => {
                        tx.execute("DELETE FROM automations WHERE uri = ?1", [uri])?;
                        tx.execute("DELETE FROM automation_runs WHERE automation = ?1", [uri])?;
                    }
                    Op::AutomationRun {
                        uri,
                        automation,
                        created,
                        json,
                    } => {
                        tx.execute(
                            "INSERT OR REPLACE INTO automation_runs(uri, automation, created, json) \
                             VALUES (?1, ?2, ?3, ?4)",
                            params![uri, automation, created, json],
                        )?;
                    }
                    Op::DeleteAutomationRun { uri } => {
                        tx.execute("DELETE FROM automation_runs WHERE uri = ?1", [uri])?;
                    }
                    Op::Annotation { session, id, json } => match json {
                        // An update keeps the row (and so the annotation's place).
                        Some(json) => {
                            tx.execute(
                                "INSERT INTO annotations(session, id, json) VALUES (?1, ?2, ?3) \
                                 ON CONFLICT(session, id) DO UPDATE SET json = excluded.json",
                                params![session, id, json],
                            )?;
                        }
                        None => {
                            tx.execute(
                                "DELETE FROM annotations WHERE session = ?1 AND id = ?2",
                                params![session, id],
                            )?;
                        }
                    },
                    Op::DeleteAnnotations { session } => {
                        tx.execute("DELETE FROM annotations WHERE session = ?1", [session])?;
                    }
                    Op::DeleteSession { uri } => {
                        for table in ["sessions", "turns", "actions", "v1_sessions"] {
                            tx.execute(&format!("DELETE FROM {table} WHERE uri = ?1"), [&**uri])?;
                        }
                        for table in ["chat_turns", "v1_actions"] {
                            tx.execute(
                                &format!("DELETE FROM {table} WHERE session = ?1"),
                                [&**uri],
                            )?;
                        }
                    }
                    Op::V1Action {
                        session,
                        seq,
                        channel,
                        action,
                    } => {
                        tx.prepare_cached(
                            "INSERT INTO v1_actions(session, seq, channel, action) \
                             VALUES (?1, ?2, ?3, ?4)",
                        )?
                        .execute(params![&**session, seq, channel, action])?;
                    }
                    Op::V1Head { session, json, seq } => {
                        tx.execute(
                            "INSERT OR REPLACE INTO v1_sessions(uri, head, head_seq) \
                             VALUES (?1, ?2, ?3)",
                            params![&**session, json, seq],
                        )?;
                        tx.execute(
                            "DELETE FROM v1_actions WHERE session = ?1 AND seq <= ?2",
                            params![&**session, seq],
                        )?;
                    }
                    Op::ChatTurn {
                        chat,
                        session,
                        idx,
                        turn_id,
                        json,
                    } => {
                        tx.execute(
                            "INSERT OR REPLACE INTO chat_turns(chat, session, idx, turn_id, json) \
                             VALUES (?1, ?2, ?3, ?4, ?5)",
                            params![chat, &**session, *idx as i64, turn_id, json],
                        )?;
                    }
                    Op::TruncateChatTurns { chat, from_idx } => {
                        tx.execute(
                            "DELETE FROM chat_turns WHERE chat = ?1 AND idx >= ?2",
                            params![chat, *from_idx as i64],
                        )?;
                    }
                }
            }
        }
        tx.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('seq', ?1), ('replay_seq', ?2)",
            [seq, replay_seq],
        )?;
        tx.commit()?;
        self.unchecked += 1;
        Ok(())
    }
}

/// Creates the database file readable by its owner only (SQLite gives its `-wal` and `-shm`
/// files the database file's mode), and makes existing files private too: the data directory
/// may have been created by someone else, with a looser umask.
fn make_private(db: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(db)?;
        for suffix in ["", "-wal", "-shm"] {
            let mut name = db.as_os_str().to_owned();
            name.push(suffix);
            match std::fs::set_permissions(&name, std::fs::Permissions::from_mode(0o600)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
    }
    #[cfg(not(unix))]
    let _ = db;
    Ok(())
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_are_due_after_commits_and_at_once_after_many() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        store.checkpoint().unwrap();
        assert_eq!(store.checkpoint_due(), Checkpoint::No);
        store.commit(&[], 1, 1).unwrap();
        assert_eq!(store.checkpoint_due(), Checkpoint::WhenIdle);
        store.checkpoint().unwrap();
        assert_eq!(store.checkpoint_due(), Checkpoint::No);
        for seq in 2..2 + u64::from(CHECKPOINT_AFTER) {
            store.commit(&[], seq, seq).unwrap();
        }
        assert_eq!(store.checkpoint_due(), Checkpoint::Now);
        store.checkpoint().unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(
            store.load().unwrap().last_seq,
            1 + u64::from(CHECKPOINT_AFTER)
        );
    }
}
