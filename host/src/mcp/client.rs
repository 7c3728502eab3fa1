//! One running MCP server, reached with the official Rust SDK (`rmcp`): a child process over
//! stdio (rmcp's line transport on the child's pipes) or a streamable-HTTP endpoint (rmcp's
//! reqwest client). Everything is bounded: the `initialize` handshake and every request have a
//! timeout, one incoming message has a size limit (a larger one is discarded by the transport
//! and the call waiting for it fails at once), and only the last bytes of stderr are kept.
//!
//! The child runs in its own process group (see [`super::process`]); stopping (or dropping) the
//! connection kills the group, and its exit is reaped. The host also kills every group
//! synchronously when it stops.
//!
//! An HTTP server that refuses for authorization (see [`super::auth`]) is reported as such, at
//! connect time ([`ConnectError::Denied`]) and on later requests ([`McpConnection::denied_watch`]).

use super::apps;
use super::auth::{self, BearerToken, Denied};
use super::config::ServerSpec;
use super::process::kill_slot;
use super::{clip, McpTool};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest, ErrorData,
    Implementation,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceError};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{json, Map, Value};
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

/// The bounds every server runs with.
#[derive(Debug, Clone)]
pub struct McpLimits {
    /// Longest wait for the process to start and answer `initialize` (and `tools/list`).
    pub init_timeout: Duration,
    /// Longest wait for one request (`tools/call`).
    pub request_timeout: Duration,
    /// Longest a tool call refused for authorization waits for a new token.
    pub auth_wait: Duration,
    /// Largest message accepted from a server (a stdio line, an HTTP body or SSE event).
    pub max_message_bytes: usize,
    /// Bytes of the server's stderr kept for error reports.
    pub stderr_tail_bytes: usize,
    /// Largest request a client may send on an `mcp://` channel (the JSON-RPC frame).
    pub max_channel_request_bytes: usize,
    /// Requests one connection may have in flight on `mcp://` channels.
    pub max_channel_inflight: usize,
}

impl Default for McpLimits {
    fn default() -> Self {
        McpLimits {
            init_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            auth_wait: Duration::from_secs(600),
            max_message_bytes: 4 << 20,
            stderr_tail_bytes: 2048,
            max_channel_request_bytes: 256 << 10,
            max_channel_inflight: 16,
        }
    }
}

/// The last bytes a child wrote to stderr.
#[derive(Debug, Default)]
pub struct Tail {
    bytes: Mutex<VecDeque<u8>>,
    max: usize,
}

impl Tail {
    fn new(max: usize) -> Tail {
        Tail {
            bytes: Mutex::new(VecDeque::with_capacity(max)),
            max,
        }
    }

    fn push(&self, chunk: &[u8]) {
        let mut b = self.bytes.lock().expect("tail lock");
        b.extend(chunk);
        let over = b.len().saturating_sub(self.max);
        b.drain(..over);
    }

    /// The kept text (lossy UTF-8, trimmed).
    pub fn text(&self) -> String {
        let b = self.bytes.lock().expect("tail lock");
        let (x, y) = b.as_slices();
        String::from_utf8_lossy(&[x, y].concat()).trim().to_owned()
    }
}

/// What the stdout watcher noticed.
#[derive(Debug, Default, Clone)]
struct StdoutNotes {
    /// Lines discarded for being over the size limit.
    oversized: u64,
    /// The start of the first line that was not JSON.
    garbage: Option<String>,
}

/// Passes a child's stdout through to rmcp's transport while noting lines over the size limit
/// and lines that are not JSON (the transport drops both silently).
struct StdoutWatch<R> {
    inner: R,
    max: usize,
    line_len: usize,
    /// Still at the start of a line (only whitespace seen).
    at_start: bool,
    /// Collecting the preview of a non-JSON line.
    preview: Option<Vec<u8>>,
    notes: watch::Sender<StdoutNotes>,
}

const PREVIEW: usize = 200;

impl<R> StdoutWatch<R> {
    fn scan(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                self.finish_preview();
                self.line_len = 0;
                self.at_start = true;
                continue;
            }
            self.line_len += 1;
            if self.line_len == self.max + 1 {
                self.notes.send_modify(|n| n.oversized += 1);
            }
            if self.at_start && !b.is_ascii_whitespace() {
                self.at_start = false;
                if b != b'{' && b != b'[' && self.notes.borrow().garbage.is_none() {
                    self.preview = Some(Vec::new());
                }
            }
            if let Some(p) = &mut self.preview {
                p.push(b);
                if p.len() >= PREVIEW {
                    self.finish_preview();
                }
            }
        }
    }

    fn finish_preview(&mut self) {
        if let Some(p) = self.preview.take() {
            let text = String::from_utf8_lossy(&p).trim().to_owned();
            self.notes.send_modify(|n| {
                n.garbage.get_or_insert(text);
            });
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for StdoutWatch<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &poll {
            this.scan(&buf.filled()[before..]);
        }
        poll
    }
}

/// A connected server.
pub struct McpConnection {
    service: RunningService<RoleClient, Upstream>,
    /// Cancelled to stop the server (kills a child's process group).
    stop: CancellationToken,
    notes: watch::Receiver<StdoutNotes>,
    /// The child's exit, described, once it happened.
    exited: watch::Receiver<Option<String>>,
    stderr: Arc<Tail>,
    limits: McpLimits,
    /// The tools it lists: when it became ready, then after each refresh (`list_changed`).
    tools: Mutex<Arc<Vec<McpTool>>>,
    /// The child's process id (also its process group) while it runs; 0 for HTTP servers and
    /// once it is gone (so a reused pid is never signalled).
    pid: Arc<AtomicU32>,
    /// Set when a request was refused for authorization (HTTP servers only).
    denied: watch::Sender<Option<Denied>>,
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("pid", &self.pid.load(Ordering::Relaxed))
            .field("tools", &self.tools().len())
            .finish()
    }
}

impl Drop for McpConnection {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What the host tells a server about itself: its name and the MCP Apps extension (servers
/// that do not know it ignore it; some offer their App tools only to clients declaring it).
fn client_info() -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    let mut ui = Map::new();
    ui.insert("mimeTypes".into(), json!([apps::APP_MIME_TYPE]));
    capabilities.extensions = Some([(apps::UI_EXTENSION.to_owned(), ui)].into());
    ClientConfig::new(
        capabilities,
        Implementation::new("ahp-host", env!("CARGO_PKG_VERSION")),
    )
}

/// The `rmcp` client handler of a server: answers with [`client_info`] and passes the server's
/// `list_changed` notifications on (dropped when the receiver lags: they carry no data).
pub struct Upstream {
    notify: mpsc::Sender<&'static str>,
}

impl Upstream {
    /// A handler passing notifications to `notify`.
    pub fn new(notify: mpsc::Sender<&'static str>) -> Upstream {
        Upstream { notify }
    }

    fn pass(&self, method: &'static str) {
        let _ = self.notify.try_send(method);
    }
}

impl ClientHandler for Upstream {
    fn get_info(&self) -> ClientConfig {
        client_info()
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.pass(apps::TOOLS_LIST_CHANGED);
    }

    async fn on_resource_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.pass(apps::RESOURCES_LIST_CHANGED);
    }
}

/// Why a request to a server has no result.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorData),
    /// The host gave up (timeout, reply over the limit, the server gone): why.
    Host(String),
    /// The server refused the request for authorization (HTTP 401 or 403): it needs a new
    /// token (the connection's [`McpConnection::denied_watch`] says so too).
    Denied(u16),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Rpc(e) => write!(f, "{}", clip(&e.message, 1000)),
            CallError::Host(why) => f.write_str(why),
            CallError::Denied(status) => write!(
                f,
                "the server refused the request (HTTP {status}): it needs authentication; \
                 push a token with `authenticate` and call again"
            ),
        }
    }
}

/// Why a server could not be started (with its stderr tail when there is one).
pub type StartError = String;

/// Why `connect` has no connection.
#[derive(Debug, Clone, PartialEq)]
pub enum ConnectError {
    /// It failed: why.
    Failed(StartError),
    /// The server refused for authorization.
    Denied(Denied),
}

impl From<StartError> for ConnectError {
    fn from(reason: StartError) -> ConnectError {
        ConnectError::Failed(reason)
    }
}

impl McpConnection {
    /// Starts a server and completes `initialize` and `tools/list` within
    /// `limits.init_timeout`. Cancelling `stop` stops it at any point (a child's process group
    /// is killed); `pid` gets the child's pid as soon as it runs, so the caller can kill it
    /// synchronously. The server's notifications go to `handler`. `token` is sent to an HTTP
    /// server as `Authorization: Bearer`.
    pub async fn connect(
        spec: &ServerSpec,
        cwd: &std::path::Path,
        limits: &McpLimits,
        stop: CancellationToken,
        pid: Arc<AtomicU32>,
        handler: Upstream,
        token: Option<&BearerToken>,
    ) -> Result<McpConnection, ConnectError> {
        match spec {
            ServerSpec::Stdio { command, args, env } => {
                Ok(Self::spawn(command, args, env, cwd, limits, stop, pid)
                    .await?
                    .handshake(limits, handler)
                    .await?)
            }
            ServerSpec::Http { url, headers } => {
                Self::http(url, headers, limits, stop, handler, token).await
            }
        }
    }

    async fn spawn(
        command: &str,
        args: &[String],
        env: &std::collections::BTreeMap<String, String>,
        cwd: &std::path::Path,
        limits: &McpLimits,
        stop: CancellationToken,
        slot: Arc<AtomicU32>,
    ) -> Result<Pending, StartError> {
        let mut cmd = tokio::process::Command::new(command);
        // The host's secrets out first; the server's configured `env` then applies as given.
        crate::child_process::scrub(&mut cmd);
        cmd.args(args)
            .envs(env)
            .current_dir(cwd)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = super::process::spawn(cmd)
            .await
            .map_err(|e| format!("cannot start `{command}`: {e}"))?;
        let pid = child.id();
        slot.store(pid.unwrap_or(0), Ordering::Relaxed);
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let tail = Arc::new(Tail::new(limits.stderr_tail_bytes));
        let (exit_tx, exited) = watch::channel(None);
        {
            let tail = tail.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    tail.push(&buf[..n]);
                }
            });
        }
        {
            let (stop, slot) = (stop.clone(), slot.clone());
            tokio::spawn(async move {
                let status = tokio::select! {
                    s = child.wait() => Some(s),
                    _ = stop.cancelled() => None,
                };
                // Whatever happened, nothing of the group may stay behind.
                kill_slot(&slot);
                let described = match status {
                    Some(Ok(s)) => format!("the server exited ({s})"),
                    Some(Err(e)) => format!("the server could not be waited for: {e}"),
                    None => {
                        let _ = child.kill().await;
                        "the server was stopped".to_owned()
                    }
                };
                stop.cancel();
                let _ = exit_tx.send(Some(described));
            });
        }
        let (notes_tx, notes) = watch::channel(StdoutNotes::default());
        let watched = StdoutWatch {
            inner: stdout,
            max: limits.max_message_bytes,
            line_len: 0,
            at_start: true,
            preview: None,
            notes: notes_tx,
        };
        let transport = AsyncRwTransport::<RoleClient, _, _>::new_client(watched, stdin)
            .with_max_line_length(limits.max_message_bytes);
        Ok(Pending {
            transport,
            stop,
            notes,
            exited,
            stderr: tail,
            pid: slot,
        })
    }

    async fn http(
        url: &str,
        headers: &std::collections::BTreeMap<String, String>,
        limits: &McpLimits,
        stop: CancellationToken,
        handler: Upstream,
        token: Option<&BearerToken>,
    ) -> Result<McpConnection, ConnectError> {
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        use rmcp::transport::StreamableHttpClientTransport;
        auth::install_crypto_provider();
        let mut config = StreamableHttpClientTransportConfig::with_uri(url);
        // rmcp sends it as `Authorization: Bearer <token>` on every request.
        config.auth_header = token.map(|t| t.expose().to_owned());
        config.max_json_response_size = limits.max_message_bytes;
        config.max_sse_event_size = limits.max_message_bytes;
        for (k, v) in headers {
            let name = k
                .parse::<http::HeaderName>()
                .map_err(|e| format!("header `{k}`: {e}"))?;
            let value = v
                .parse::<http::HeaderValue>()
                .map_err(|e| format!("header `{k}`: {e}"))?;
            // A pushed token replaces a configured `Authorization` (never two of them).
            if token.is_none() || name != http::header::AUTHORIZATION {
                config.custom_headers.insert(name, value);
            }
        }
        let transport = StreamableHttpClientTransport::from_config(config);
        let service = tokio::select! {
            r = tokio::time::timeout(limits.init_timeout, handler.serve(transport)) => r
                .map_err(|_| {
                    format!(
                        "no answer to `initialize` within {} ms",
                        limits.init_timeout.as_millis()
                    )
                })?
                .map_err(|e| match auth::init_denied(&e) {
                    Some(denied) => ConnectError::Denied(denied),
                    None => clip(&format!("`initialize` failed: {e}"), 1000).into(),
                })?,
            _ = stop.cancelled() => return Err("the server was stopped".to_owned().into()),
        };
        {
            let (stop, session) = (stop.clone(), service.cancellation_token());
            tokio::spawn(async move {
                stop.cancelled().await;
                session.cancel();
            });
        }
        let (_, notes) = watch::channel(StdoutNotes::default());
        let (_, exited) = watch::channel(None);
        let mut conn = McpConnection {
            service,
            stop,
            notes,
            exited,
            stderr: Arc::new(Tail::new(0)),
            limits: limits.clone(),
            tools: Mutex::default(),
            pid: Arc::new(AtomicU32::new(0)),
            denied: watch::channel(None).0,
        };
        let tools = tokio::time::timeout(limits.init_timeout, list_tools(&conn.service))
            .await
            .map_err(|_| "no answer to `tools/list` in time".to_owned())?
            .map_err(|e| match auth::call_denied(&e) {
                Some(denied) => ConnectError::Denied(denied),
                None => tools_list_failed(&e).into(),
            })?;
        conn.tools = Mutex::new(Arc::new(tools));
        Ok(conn)
    }

    /// The tools the server lists now.
    pub fn tools(&self) -> Arc<Vec<McpTool>> {
        self.tools.lock().expect("tools lock").clone()
    }

    /// Lists the tools again (after `notifications/tools/list_changed`) within the request
    /// timeout and the message size limit, and keeps the new list.
    pub async fn refresh_tools(&self) -> Result<Arc<Vec<McpTool>>, CallError> {
        let listed = self.bounded(self.service.peer().list_all_tools()).await?;
        let tools: Arc<Vec<McpTool>> = Arc::new(
            listed
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| mcp_tool(t.clone()))
                .collect(),
        );
        *self.tools.lock().expect("tools lock") = tools.clone();
        Ok(tools)
    }

    /// Set once a request was refused for authorization (the server needs a new token).
    pub fn denied_watch(&self) -> watch::Receiver<Option<Denied>> {
        self.denied.subscribe()
    }

    /// The server's exit, once it happened (`None` while it runs or for HTTP servers).
    pub fn exit_watch(&self) -> watch::Receiver<Option<String>> {
        self.exited.clone()
    }

    /// The last bytes of stderr.
    pub fn stderr_tail(&self) -> String {
        self.stderr.text()
    }

    /// Stops the server (idempotent): cancels the session and kills the child's group.
    pub fn stop(&self) {
        self.stop.cancel();
        self.service.cancellation_token().cancel();
        kill_slot(&self.pid);
    }

    /// The `capabilities` of the server's `initialize` result (MCP wire JSON).
    pub fn server_capabilities(&self) -> Value {
        self.service
            .peer_info()
            .and_then(|info| serde_json::to_value(&info.capabilities).ok())
            .unwrap_or_else(|| json!({}))
    }

    /// Calls a tool within the request timeout and the message size limit. Returns the MCP
    /// `CallToolResult` as wire JSON, or why there is none.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Value, CallError> {
        let mut params = CallToolRequestParams::new(name.to_owned());
        params.arguments = Some(arguments);
        self.bounded(self.service.peer().call_tool(params)).await
    }

    /// Sends MCP request `method` with `params` (wire JSON) as it is, within the request timeout
    /// and the message size limit; returns the result as wire JSON. A method `rmcp` knows whose
    /// params do not have its shape is refused here (`-32602`), before the server sees it.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, CallError> {
        let mut message = json!({ "method": method });
        if let Some(params) = params {
            message["params"] = params;
        }
        let request = match serde_json::from_value::<ClientRequest>(message) {
            Ok(ClientRequest::CustomRequest(_)) | Err(_) => {
                return Err(CallError::Rpc(ErrorData::invalid_params(
                    format!("invalid params for `{method}`"),
                    None,
                )))
            }
            Ok(request) => request,
        };
        self.bounded(self.service.peer().send_request(request))
            .await
    }

    /// Waits for a request to the server within the request timeout and the message size limit.
    async fn bounded<T: serde::Serialize>(
        &self,
        request: impl std::future::Future<Output = Result<T, ServiceError>>,
    ) -> Result<Value, CallError> {
        let mut notes = self.notes.clone();
        let seen = notes.borrow_and_update().oversized;
        let mut exited = self.exited.clone();
        let timeout = self.limits.request_timeout;
        let max = self.limits.max_message_bytes;
        tokio::select! {
            r = tokio::time::timeout(timeout, request) => match r {
                Err(_) => Err(CallError::Host(format!(
                    "no answer from the server within {} ms",
                    timeout.as_millis()
                ))),
                Ok(Err(ServiceError::McpError(e))) => Err(CallError::Rpc(e)),
                Ok(Err(e)) => match auth::call_denied(&e) {
                    Some(denied) => {
                        let status = denied.status;
                        self.denied.send_replace(Some(denied));
                        Err(CallError::Denied(status))
                    }
                    None => Err(CallError::Host(clip(&e.to_string(), 1000))),
                },
                Ok(Ok(result)) => {
                    serde_json::to_value(&result).map_err(|e| CallError::Host(e.to_string()))
                }
            },
            // (HTTP servers have neither watcher: a closed channel disables these branches.)
            Ok(_) = notes.wait_for(|n| n.oversized > seen) => Err(CallError::Host(format!(
                "the server's reply is larger than the limit of {max} bytes; it was discarded"
            ))),
            Ok(_) = exited.wait_for(Option::is_some) => Err(CallError::Host(format!(
                "the server stopped during the call: {}",
                self.exited.borrow().clone().unwrap_or_default()
            ))),
        }
    }
}

/// A spawned child whose `initialize` has not completed yet.
struct Pending {
    transport: AsyncRwTransport<
        RoleClient,
        StdoutWatch<tokio::process::ChildStdout>,
        tokio::process::ChildStdin,
    >,
    stop: CancellationToken,
    notes: watch::Receiver<StdoutNotes>,
    exited: watch::Receiver<Option<String>>,
    stderr: Arc<Tail>,
    pid: Arc<AtomicU32>,
}

impl Pending {
    /// `initialize` and `tools/list` within the init timeout; fails early when the child exits
    /// or writes something other than JSON to stdout.
    async fn handshake(
        self,
        limits: &McpLimits,
        handler: Upstream,
    ) -> Result<McpConnection, StartError> {
        let Pending {
            transport,
            stop,
            notes,
            exited,
            stderr,
            pid,
        } = self;
        let fail = |reason: String| {
            stop.cancel();
            kill_slot(&pid);
            let tail = stderr.text();
            if tail.is_empty() {
                reason
            } else {
                format!(
                    "{reason}; stderr: {}",
                    clip(&tail, limits.stderr_tail_bytes)
                )
            }
        };
        let start = async {
            let service = handler
                .serve(transport)
                .await
                .map_err(|e| clip(&format!("`initialize` failed: {e}"), 1000))?;
            let tools = list_tools(&service)
                .await
                .map_err(|e| tools_list_failed(&e))?;
            Ok::<_, String>((service, tools))
        };
        let mut garbage = notes.clone();
        let mut exit = exited.clone();
        let outcome = tokio::select! {
            r = tokio::time::timeout(limits.init_timeout, start) => match r {
                Ok(r) => r,
                Err(_) => Err(format!(
                    "no answer to `initialize` within {} ms",
                    limits.init_timeout.as_millis()
                )),
            },
            Ok(_) = garbage.wait_for(|n| n.garbage.is_some()) => Err(format!(
                "the server wrote something other than MCP messages to stdout: `{}`",
                notes.borrow().garbage.clone().unwrap_or_default()
            )),
            Ok(_) = exit.wait_for(Option::is_some) => Err(exited.borrow().clone().unwrap_or_default()),
            _ = stop.cancelled() => Err("the server was stopped".into()),
        };
        match outcome {
            Ok((service, tools)) => Ok(McpConnection {
                service,
                stop,
                notes,
                exited,
                stderr,
                limits: limits.clone(),
                tools: Mutex::new(Arc::new(tools)),
                pid,
                denied: watch::channel(None).0,
            }),
            Err(reason) => {
                // A closed pipe usually means the child is exiting: say how, when it is quick.
                let mut exit = exited.clone();
                let reason = match tokio::time::timeout(
                    Duration::from_millis(500),
                    exit.wait_for(Option::is_some),
                )
                .await
                {
                    Ok(Ok(status)) if !reason.starts_with("the server exited") => {
                        format!("{reason} ({})", status.clone().unwrap_or_default())
                    }
                    _ => reason,
                };
                // Let the stderr reader catch up with what the child wrote before it exited.
                tokio::time::sleep(Duration::from_millis(50)).await;
                Err(fail(reason))
            }
        }
    }
}

fn tools_list_failed(e: &ServiceError) -> StartError {
    clip(&format!("`tools/list` failed: {e}"), 1000)
}

async fn list_tools(
    service: &RunningService<RoleClient, Upstream>,
) -> Result<Vec<McpTool>, ServiceError> {
    let tools = service.peer().list_all_tools().await?;
    Ok(tools
        .iter()
        .filter_map(|t| mcp_tool(serde_json::to_value(t).ok()?))
        .collect())
}

/// A listed MCP `Tool` (wire JSON), if it has a name.
fn mcp_tool(raw: Value) -> Option<McpTool> {
    Some(McpTool {
        name: raw.get("name")?.as_str()?.to_owned(),
        raw,
    })
}
