//! A small raw JSON-RPC test client over tokio-tungstenite, built on `ahp_wasm::protocol::jsonrpc`.
#![allow(dead_code)]

mod banner;
mod sessions;

// Not every test crate uses them.
#[allow(unused_imports)]
pub use sessions::{pending_message, result_text};

use ahp_host::{Config, RunningHost};
use ahp_wasm::protocol::jsonrpc::{self, Command, ErrorObject, RequestId, ROOT_CHANNEL};
use ahp_wasm::protocol::*;
use ahp_wasm::reduce::{session_reducer, SystemClock};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::collections::VecDeque;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub const WAIT: Duration = Duration::from_secs(20);

/// Gives the hosts of this test process a home of their own, once, before any starts: their
/// terminals' bash reads `~/.bashrc`, and a developer's may be slow (a `pyenv` rehash waits up
/// to 60 s on a lock a killed shell left behind) or print things. This one sets a prompt and
/// marks itself sourced. Shells are bash whatever the caller's `SHELL` (shell integration is
/// bash's). Child hosts ([`HostProcess`]) inherit it.
pub fn isolated_home() {
    static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join(".bashrc"),
            "export AHP_TEST_BASHRC=sourced\nPS1='$ '\n",
        )
        .unwrap();
        std::env::set_var("HOME", home.path());
        std::env::set_var("SHELL", "/bin/bash");
        home
    });
}

pub struct TestHost {
    pub host: RunningHost,
    pub data: tempfile::TempDir,
    pub work: tempfile::TempDir,
}

impl TestHost {
    /// The working directory, canonical, and a directory outside it holding `secret.txt`: for
    /// tests of what the host lets a client reach through links and `..`.
    pub fn work_and_outside(&self) -> (std::path::PathBuf, tempfile::TempDir) {
        let root = self.work.path().canonicalize().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        (root, outside)
    }
}

/// A host on a free port with fresh data and working directories (the latter holds
/// `hello.txt` and `sub/inner.txt`).
pub async fn start_host() -> TestHost {
    start_host_with(|_| {}).await
}

pub async fn start_host_with(tweak: impl FnOnce(&mut Config)) -> TestHost {
    isolated_home();
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("hello.txt"),
        "hello from the working directory\n",
    )
    .unwrap();
    std::fs::create_dir(work.path().join("sub")).unwrap();
    std::fs::write(work.path().join("sub").join("inner.txt"), "inner\n").unwrap();
    let mut config = Config::local(data.path(), work.path());
    config.chunk_delay = Duration::from_millis(1);
    config.token = Some(test_token(data.path()));
    tweak(&mut config);
    let host = ahp_host::start(config).await.expect("host starts");
    TestHost { host, data, work }
}

/// A test host's token, the same for every host on one data directory (secrets of client ids
/// are remembered by token, so they survive a restart as the bindings do).
pub fn test_token(data: &Path) -> ahp_host::Token {
    let hex: String = data
        .to_string_lossy()
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect();
    ahp_host::Token::new(format!("test-{hex}"))
}

pub async fn restart(data: &Path, work: &Path) -> RunningHost {
    isolated_home();
    let mut config = Config::local(data, work);
    config.chunk_delay = Duration::from_millis(1);
    config.token = Some(test_token(data));
    ahp_host::start(config).await.expect("host restarts")
}

/// A real `ahp-host` process: the binary cargo built for this test run, on a free port. It is
/// killed (SIGKILL) when dropped, so a failing test leaves no host behind.
pub struct HostProcess {
    child: Child,
    /// The bound `IP:port`, read from the banner.
    pub addr: String,
    token: String,
}

impl HostProcess {
    /// Starts the binary with `--port 0`, the token, the data and working directories and
    /// `extra` flags, and waits for its banner.
    pub fn spawn(data: &Path, work: &Path, token: &str, extra: &[&str]) -> HostProcess {
        HostProcess::spawn_with_stderr(data, work, token, extra, Stdio::null())
    }

    /// [`HostProcess::spawn`] with its stderr going to `stderr` (a log file, say).
    pub fn spawn_with_stderr(
        data: &Path,
        work: &Path,
        token: &str,
        extra: &[&str],
        stderr: impl Into<Stdio>,
    ) -> HostProcess {
        isolated_home();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ahp-host"))
            .args(["--port", "0", "--token", token])
            .args(extra)
            .arg("--data-dir")
            .arg(data)
            .arg("--workdir")
            .arg(work)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("ahp-host starts");
        let addr = banner::read_banner(&mut child, "ahp-host listening on http://");
        HostProcess {
            child,
            addr,
            token: token.to_owned(),
        }
    }

    /// The WebSocket URL with the token.
    pub fn url(&self) -> String {
        format!("ws://{}/ahp?tkn={}", self.addr, self.token)
    }

    /// SIGKILL (`Child::kill` on Unix), then reaps the process.
    pub fn kill_9(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().unwrap();
    }
}

impl Drop for HostProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Secrets the hosts of this test process bound client ids to, by (host address, client id):
/// a later connection with the same id presents it, as the SDK clients do.
static SECRETS: std::sync::Mutex<Vec<(String, String, String)>> = std::sync::Mutex::new(Vec::new());

fn secret_of(addr: &str, client_id: &str) -> Option<String> {
    let secrets = SECRETS.lock().unwrap();
    secrets
        .iter()
        .find(|(a, c, _)| a == addr && c == client_id)
        .map(|(_, _, s)| s.clone())
}

fn remember_secret(addr: &str, client_id: &str, secret: &str) {
    let mut secrets = SECRETS.lock().unwrap();
    secrets.retain(|(a, c, _)| !(a == addr && c == client_id));
    secrets.push((addr.into(), client_id.into(), secret.into()));
}

pub struct Client {
    ws: Ws,
    /// Keys the remembered secrets: the host's token (or address).
    pub addr: String,
    next_id: i64,
    pub client_id: String,
    next_seq: u64,
    /// Frames that arrived while waiting for something else.
    inbox: VecDeque<Value>,
    pub closed: bool,
}

pub fn url_with_token(host: &RunningHost) -> String {
    format!("{}?tkn={}", host.ws_url(), host.token().expose())
}

impl Client {
    pub async fn connect(host: &RunningHost, client_id: &str) -> Client {
        Client::connect_url(&url_with_token(host), client_id).await
    }

    /// Connects to `url`; secrets are remembered by the URL's token (the same across restarts
    /// of a host on one data directory).
    pub async fn connect_url(url: &str, client_id: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("upgrade succeeds");
        let key = url.split_once("tkn=").map_or(url, |(_, t)| t).to_owned();
        Client::with_key(ws, client_id, key)
    }

    pub fn from_ws(ws: Ws, client_id: &str) -> Client {
        let addr = match ws.get_ref() {
            MaybeTlsStream::Plain(tcp) => {
                tcp.peer_addr().map(|a| a.to_string()).unwrap_or_default()
            }
            _ => String::new(),
        };
        Client::with_key(ws, client_id, addr)
    }

    /// A client whose remembered secrets are keyed by `key` (a host's token or address).
    pub fn with_key(ws: Ws, client_id: &str, key: String) -> Client {
        Client {
            ws,
            addr: key,
            next_id: 1,
            client_id: client_id.into(),
            next_seq: 1,
            inbox: VecDeque::new(),
            closed: false,
        }
    }

    /// Connects and initializes with the root channel subscribed.
    pub async fn ready(host: &RunningHost, client_id: &str) -> Client {
        let mut c = Client::connect(host, client_id).await;
        c.initialize(&[ROOT_CHANNEL]).await;
        c
    }

    /// [`Client::ready`], then a new session `uri` created and subscribed.
    pub async fn in_new_session(host: &RunningHost, client_id: &str, uri: &str) -> Client {
        Client::with_new_session(host, client_id, uri).await.0
    }

    pub fn ws_mut(&mut self) -> &mut Ws {
        &mut self.ws
    }

    pub async fn send_text(&mut self, text: impl Into<String>) {
        self.ws.send(WsMessage::text(text.into())).await.unwrap();
    }

    pub async fn send_binary(&mut self, bytes: Vec<u8>) {
        self.ws.send(WsMessage::binary(bytes)).await.unwrap();
    }

    /// The next frame as JSON, or `None` when the connection closed.
    pub async fn read_frame(&mut self) -> Option<Value> {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a frame within the timeout");
            match msg {
                Some(Ok(WsMessage::Text(t))) => return Some(serde_json::from_str(&t).unwrap()),
                Some(Ok(WsMessage::Close(_))) | None | Some(Err(_)) => {
                    self.closed = true;
                    return None;
                }
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The next frame if one arrives within `wait` (frames kept in the inbox first):
    /// `Some(Some(frame))`, `Some(None)` when the connection closed, `None` on timeout.
    /// `Duration::ZERO` polls without waiting.
    pub async fn frame_within(&mut self, wait: Duration) -> Option<Option<Value>> {
        if let Some(frame) = self.inbox.pop_front() {
            return Some(Some(frame));
        }
        if self.closed {
            return Some(None);
        }
        loop {
            match tokio::time::timeout(wait, self.ws.next()).await {
                Err(_) => return None,
                Ok(Some(Ok(WsMessage::Text(t)))) => {
                    return Some(Some(serde_json::from_str(&t).unwrap()))
                }
                Ok(Some(Ok(WsMessage::Close(_))) | None | Some(Err(_))) => {
                    self.closed = true;
                    return Some(None);
                }
                Ok(Some(Ok(_))) => continue,
            }
        }
    }

    /// Sends a raw request and waits for its response (other frames are kept in the inbox).
    pub async fn call(&mut self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let id = self.next_id;
        self.next_id += 1;
        self.send_text(jsonrpc::request_text(
            RequestId::Number(id),
            method,
            &params,
        ))
        .await;
        self.response(id).await
    }

    pub async fn response(&mut self, id: i64) -> Result<Value, ErrorObject> {
        let frame = self.frame_with_id(&Value::from(id)).await;
        if let Some(error) = frame.get("error") {
            return Err(serde_json::from_value(error.clone()).unwrap());
        }
        Ok(frame["result"].clone())
    }

    /// The whole response frame with `id` (from the inbox first; other frames are kept there).
    pub async fn frame_with_id(&mut self, id: &Value) -> Value {
        let is_it = |f: &Value| f.get("id") == Some(id) && f.get("method").is_none();
        if let Some(i) = self.inbox.iter().position(is_it) {
            return self.inbox.remove(i).expect("found");
        }
        loop {
            let frame = self.read_frame().await.expect("connection open");
            if is_it(&frame) {
                return frame;
            }
            self.inbox.push_back(frame);
        }
    }

    /// Calls `method` and asserts it fails with error `code`; returns the error.
    pub async fn expect_error(&mut self, method: &str, params: Value, code: i64) -> ErrorObject {
        let e = self
            .call(method, params)
            .await
            .expect_err(&format!("{method} should fail with {code}"));
        assert_eq!(e.code, code, "{method}: {e:?}");
        e
    }

    /// A typed request.
    pub async fn request<C: Command>(
        &mut self,
        params: C::Params,
    ) -> Result<C::Result, ErrorObject> {
        let value = self
            .call(C::METHOD, serde_json::to_value(params).unwrap())
            .await?;
        Ok(serde_json::from_value(value).expect("result decodes"))
    }

    /// `listSessions` on the root channel, unfiltered.
    pub async fn list_sessions(&mut self) -> ListSessionsResult {
        self.request::<jsonrpc::ListSessions>(ListSessionsParams {
            channel: ROOT_CHANNEL.into(),
            filter: None,
            extra: Default::default(),
        })
        .await
        .expect("listSessions")
    }

    pub async fn initialize(&mut self, subs: &[&str]) -> InitializeResult {
        self.try_initialize(subs)
            .await
            .expect("initialize succeeds")
    }

    /// `initialize`, presenting the secret remembered for this id on this host, if any, and
    /// remembering the one the host answers with.
    pub async fn try_initialize(&mut self, subs: &[&str]) -> Result<InitializeResult, ErrorObject> {
        self.try_initialize_with(subs, None).await
    }

    /// [`Client::try_initialize`] declaring `capabilities`.
    pub async fn try_initialize_with(
        &mut self,
        subs: &[&str],
        capabilities: Option<ClientCapabilities>,
    ) -> Result<InitializeResult, ErrorObject> {
        let mut params = serde_json::to_value(InitializeParams {
            channel: ROOT_CHANNEL.into(),
            protocol_versions: vec![PROTOCOL_VERSION.into()],
            client_id: self.client_id.clone(),
            initial_subscriptions: Some(subs.iter().map(|s| s.to_string()).collect()),
            capabilities,
            ..Default::default()
        })
        .unwrap();
        if let Some(secret) = self.secret() {
            params["clientSecret"] = Value::from(secret);
        }
        let result = self.call(jsonrpc::Initialize::METHOD, params).await?;
        if let Some(secret) = result["clientSecret"].as_str() {
            remember_secret(&self.addr, &self.client_id, secret);
        }
        Ok(serde_json::from_value(result).expect("result decodes"))
    }

    /// `reconnect`, presenting the secret remembered for this id on this host.
    pub async fn reconnect(
        &mut self,
        last_seen_server_seq: u64,
        subscriptions: Vec<String>,
    ) -> Result<jsonrpc::ReconnectResult, ErrorObject> {
        let mut params = serde_json::to_value(ReconnectParams {
            channel: ROOT_CHANNEL.into(),
            client_id: self.client_id.clone(),
            last_seen_server_seq,
            subscriptions,
            extra: Default::default(),
        })
        .unwrap();
        if let Some(secret) = self.secret() {
            params["clientSecret"] = Value::from(secret);
        }
        let result = self.call(jsonrpc::Reconnect::METHOD, params).await?;
        Ok(serde_json::from_value(result).expect("result decodes"))
    }

    /// The secret remembered for this client's id on this host.
    pub fn secret(&self) -> Option<String> {
        secret_of(&self.addr, &self.client_id)
    }

    pub async fn create_session(&mut self, uri: &str) {
        self.request::<jsonrpc::CreateSession>(CreateSessionParams {
            channel: uri.into(),
            ..Default::default()
        })
        .await
        .expect("createSession succeeds");
    }

    pub async fn subscribe(&mut self, uri: &str) -> Snapshot {
        let r = self
            .request::<jsonrpc::Subscribe>(SubscribeParams {
                channel: uri.into(),
                extra: Default::default(),
            })
            .await
            .expect("subscribe succeeds");
        r.snapshot.expect("state-bearing channel")
    }

    /// Dispatches an action; returns its clientSeq.
    pub async fn dispatch(&mut self, channel: &str, action: StateAction) -> u64 {
        self.try_dispatch(channel, action)
            .await
            .expect("dispatchAction sent")
    }

    /// Like [`Client::dispatch`], but `None` instead of a panic when the connection is gone.
    pub async fn try_dispatch(&mut self, channel: &str, action: StateAction) -> Option<u64> {
        let seq = self.next_seq;
        self.next_seq += 1;
        let params = DispatchActionParams {
            channel: channel.into(),
            client_seq: seq,
            action,
            extra: Default::default(),
        };
        let text = jsonrpc::notification_text(jsonrpc::methods::DISPATCH_ACTION, &params);
        self.ws.send(WsMessage::text(text)).await.ok().map(|_| seq)
    }

    pub async fn send_message(&mut self, channel: &str, turn_id: &str, text: &str) -> u64 {
        self.dispatch(channel, turn_started(turn_id, text)).await
    }

    /// The next text frame straight off the socket and when it was read, before any
    /// decoding (the inbox is not looked at): for timing what the host sends.
    pub async fn raw_text(&mut self) -> Option<(std::time::Instant, String)> {
        loop {
            match self.ws.next().await? {
                Ok(WsMessage::Text(t)) => return Some((std::time::Instant::now(), t.to_string())),
                Ok(WsMessage::Close(_)) | Err(_) => {
                    self.closed = true;
                    return None;
                }
                Ok(_) => continue,
            }
        }
    }

    /// The next notification (from the inbox first).
    pub async fn notification(&mut self) -> Option<Value> {
        loop {
            let frame = match self.inbox.pop_front() {
                Some(f) => f,
                None => self.read_frame().await?,
            };
            if frame.get("method").is_some() {
                return Some(frame);
            }
        }
    }

    /// The next action envelope (other notifications are skipped and returned separately via
    /// `notification`).
    pub async fn envelope(&mut self) -> ActionEnvelope {
        loop {
            let frame = self.notification().await.expect("connection open");
            if frame["method"] == "action" {
                return serde_json::from_value(frame["params"].clone()).expect("envelope decodes");
            }
        }
    }

    /// Envelopes until (and including) the first one matching `stop`.
    pub async fn envelopes_until(
        &mut self,
        stop: impl Fn(&ActionEnvelope) -> bool,
    ) -> Vec<ActionEnvelope> {
        let mut out = Vec::new();
        loop {
            let e = self.envelope().await;
            let done = stop(&e);
            out.push(e);
            if done {
                return out;
            }
        }
    }

    /// The echo of this client's `client_seq` (other envelopes are skipped): the host has
    /// applied or rejected the action once this returns.
    pub async fn echo_of(&mut self, client_seq: u64) -> ActionEnvelope {
        let id = self.client_id.clone();
        self.envelopes_until(|e| {
            e.origin
                .as_ref()
                .is_some_and(|o| o.client_id == id && o.client_seq == client_seq)
        })
        .await
        .pop()
        .expect("envelopes_until returns the matching envelope last")
    }

    /// Envelopes until the turn ends (complete, cancelled or error).
    pub async fn until_turn_end(&mut self, turn_id: &str) -> Vec<ActionEnvelope> {
        let id = turn_id.to_owned();
        self.envelopes_until(move |e| ends_turn(e, &id)).await
    }

    /// Envelopes up to and including the next `session/toolCallReady`, and that action.
    pub async fn until_tool_call_ready(
        &mut self,
    ) -> (Vec<ActionEnvelope>, SessionToolCallReadyAction) {
        let envs = self
            .envelopes_until(|e| matches!(&e.action, StateAction::SessionToolCallReady(_)))
            .await;
        let StateAction::SessionToolCallReady(ready) = &envs.last().unwrap().action else {
            unreachable!("envelopes_until returns the matching envelope last")
        };
        let ready = (**ready).clone();
        (envs, ready)
    }

    /// Notifications with the given method until one matches.
    pub async fn notification_named(&mut self, method: &str) -> Value {
        loop {
            let n = self.notification().await.expect("connection open");
            if n["method"] == method {
                return n;
            }
        }
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }

    /// Awaits `work` (another client's request, say) while this client reads, as a live peer
    /// does: it answers the host's pings. Frames read meanwhile are kept in the inbox.
    pub async fn reading_while<T>(&mut self, work: impl std::future::Future<Output = T>) -> T {
        tokio::pin!(work);
        while !self.closed {
            tokio::select! {
                out = &mut work => return out,
                msg = self.ws.next() => match msg {
                    Some(Ok(WsMessage::Text(t))) => {
                        self.inbox.push_back(serde_json::from_str(&t).unwrap())
                    }
                    Some(Ok(WsMessage::Close(_))) | None | Some(Err(_)) => self.closed = true,
                    Some(Ok(_)) => {}
                },
            }
        }
        work.await
    }
}

/// `ping` answers (`null`: it carries no payload): the connection is alive and served.
pub async fn ping(c: &mut Client) {
    assert_eq!(
        c.call("ping", serde_json::json!({"channel": ROOT_CHANNEL}))
            .await
            .expect("ping answers"),
        Value::Null
    );
}

/// The next error response (skipping other frames).
pub async fn next_error(c: &mut Client) -> Value {
    loop {
        let f = c.read_frame().await.expect("connection stays open");
        if f.get("error").is_some() {
            return f;
        }
    }
}

pub fn ends_turn(e: &ActionEnvelope, turn_id: &str) -> bool {
    match &e.action {
        StateAction::SessionTurnComplete(a) => a.turn_id == turn_id,
        StateAction::SessionTurnCancelled(a) => {
            a.turn_id == turn_id && e.rejection_reason.is_none()
        }
        StateAction::SessionError(a) => a.turn_id == turn_id,
        _ => false,
    }
}

/// A user's approval of a tool call awaiting confirmation.
pub fn approve(turn: &str, id: &str) -> StateAction {
    serde_json::from_value(serde_json::json!({"type": "session/toolCallConfirmed",
        "turnId": turn, "toolCallId": id, "approved": true, "confirmed": "user-action"}))
    .unwrap()
}

/// A user's denial of a tool call awaiting confirmation.
pub fn deny(turn: &str, id: &str) -> StateAction {
    serde_json::from_value(serde_json::json!({"type": "session/toolCallConfirmed",
        "turnId": turn, "toolCallId": id, "approved": false, "reason": "denied"}))
    .unwrap()
}

pub fn turn_started(turn_id: &str, text: &str) -> StateAction {
    StateAction::user_turn_started(turn_id, text)
}

pub fn session_state(snapshot: &Snapshot) -> SessionState {
    match &snapshot.state {
        SnapshotState::Session(s) => s.clone(),
        other => panic!("not a session snapshot: {other:?}"),
    }
}

/// Applies envelopes (rejections excluded) with the SDK's reducer, as a client mirror would.
pub fn reduce_all(state: &mut SessionState, envelopes: &[ActionEnvelope]) {
    for e in envelopes {
        if e.rejection_reason.is_none() {
            let _ = session_reducer(state, &e.action, &SystemClock);
        }
    }
}

/// The state as JSON with clock-stamped fields zeroed (each side stamps with its own clock).
pub fn comparable(state: &SessionState) -> Value {
    let mut s = state.clone();
    s.summary.modified_at = 0.0;
    serde_json::to_value(s).unwrap()
}

/// Where two JSON values first differ: the path and both sides (clipped), or `None` when equal.
/// Keeps assertion messages about large states readable.
pub fn first_difference(a: &Value, b: &Value) -> Option<String> {
    fn clip(v: &Value) -> String {
        let s = v.to_string();
        match s.char_indices().nth(300) {
            Some((i, _)) => format!("{}... ({} chars)", &s[..i], s.len()),
            None => s,
        }
    }
    fn walk(a: &Value, b: &Value, path: &str) -> Option<String> {
        // The children both sides have, by step: `(".key" or "[i]", left, right)`.
        let null = &Value::Null;
        let children: Vec<(String, &Value, &Value)> = match (a, b) {
            (Value::Object(x), Value::Object(y)) => x
                .keys()
                .chain(y.keys().filter(|k| !x.contains_key(*k)))
                .map(|k| {
                    (
                        format!(".{k}"),
                        x.get(k).unwrap_or(null),
                        y.get(k).unwrap_or(null),
                    )
                })
                .collect(),
            (Value::Array(x), Value::Array(y)) => (0..x.len().max(y.len()))
                .map(|i| {
                    (
                        format!("[{i}]"),
                        x.get(i).unwrap_or(null),
                        y.get(i).unwrap_or(null),
                    )
                })
                .collect(),
            _ if a == b => return None,
            _ => {
                return Some(format!(
                    "at {path}:\n  left:  {}\n  right: {}",
                    clip(a),
                    clip(b)
                ))
            }
        };
        children
            .into_iter()
            .find_map(|(step, x, y)| walk(x, y, &format!("{path}{step}")))
    }
    walk(a, b, "$")
}

/// Client `client_id`, subscribed to a new session `uri` in which one turn (`t1`) ran to its
/// end; with the host's state of that session.
pub async fn session_after_a_turn(
    host: &RunningHost,
    client_id: &str,
    uri: &str,
) -> (Client, SessionState) {
    let mut c = Client::in_new_session(host, client_id, uri).await;
    c.send_message(uri, "t1", "before").await;
    c.until_turn_end("t1").await;
    (c, host_state(host, uri).await)
}

/// Asserts session `uri` on the host still equals `before` and that `c` can still run a turn
/// (`t2`) in it: what a test of rejected input checks last.
pub async fn assert_session_survived(
    host: &RunningHost,
    c: &mut Client,
    uri: &str,
    before: &SessionState,
) {
    let after = host_state(host, uri).await;
    assert_eq!(
        serde_json::to_value(&after).unwrap(),
        serde_json::to_value(before).unwrap()
    );
    c.send_message(uri, "t2", "still works").await;
    c.until_turn_end("t2").await;
}

/// Clients `client-a` and `client-b`, both subscribed to session `uri`, which `client-a` created.
pub async fn two_clients_on(host: &RunningHost, uri: &str) -> (Client, Client) {
    let mut a = Client::ready(host, "client-a").await;
    let mut b = Client::ready(host, "client-b").await;
    a.create_session(uri).await;
    a.subscribe(uri).await;
    b.subscribe(uri).await;
    (a, b)
}

/// The host's current state of a session, through a fresh connection.
pub async fn host_state(host: &RunningHost, uri: &str) -> SessionState {
    let mut c = Client::connect(host, "observer").await;
    c.initialize(&[]).await;
    let snap = c.subscribe(uri).await;
    c.close().await;
    session_state(&snap)
}

/// The markdown text of a turn's response parts.
pub fn markdown(parts: &[ResponsePart]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::Markdown(m) => Some(m.content.as_str()),
            _ => None,
        })
        .collect()
}

/// A connect attempt with headers; returns the HTTP status on a refused upgrade.
pub async fn try_connect(url: &str, headers: &[(&str, &str)]) -> Result<Ws, u16> {
    let mut request = url.into_client_request().unwrap();
    for (k, v) in headers {
        let name: tokio_tungstenite::tungstenite::http::HeaderName = k.parse().unwrap();
        request.headers_mut().insert(name, v.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
        Err(e) => panic!("unexpected connect error: {e}"),
    }
}
