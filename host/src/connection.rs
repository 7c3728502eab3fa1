//! One WebSocket connection: a reader that checks, parses and routes frames, and a writer that
//! drains the bounded outbound queue.
//!
//! The reader answers what needs no shared state itself (`ping`, malformed frames, unknown
//! methods, the sandboxed `resource*` commands) and forwards the rest to the hub with typed,
//! already-decoded params. Every problem with a frame is answered with a JSON-RPC error and the
//! connection stays up.

use crate::bus::{
    ChangesMsg, ChannelMessage, ConnHandle, ConnId, ConnShared, HubMsg, HubSender, Request,
    RequestV1,
};
use crate::config::Limits;
use crate::resources::Sandbox;
use crate::security::json_depth_within;
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{
    decode_params, error_text, methods, result_text, Command, EmptyResult, ErrorObject, Incoming,
    RequestId, ResourceCopy, ResourceDelete, ResourceList, ResourceMkdir, ResourceMove,
    ResourceRead, ResourceRequest, ResourceResolve, ResourceWrite, REQUEST_METHODS, ROOT_CHANNEL,
};
use ahp_wasm::protocol::v1;
use ahp_wasm::protocol::{
    DispatchActionParams, ResourceCopyParams, ResourceDeleteParams, ResourceListParams,
    ResourceMkdirParams, ResourceMoveParams, ResourceReadParams, ResourceRequestParams,
    ResourceResolveParams, ResourceWriteParams, UnsubscribeParams,
};
use ahp_wasm::protocol::{RawJson, RawJsonBuf};
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use bytes::Bytes;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// What a connection needs from the server.
#[derive(Clone)]
pub struct ConnContext {
    /// The hub.
    pub hub: HubSender,
    /// Bounds.
    pub limits: Limits,
    /// The `resource*` sandbox.
    pub sandbox: Arc<Sandbox>,
    /// Live connection count.
    pub live: Arc<AtomicUsize>,
    /// The host's requests to clients, answered through the readers.
    pub peer: Arc<crate::peer::PeerRequests>,
}

struct LiveGuard(Arc<AtomicUsize>);

impl Drop for LiveGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Serves one upgraded connection until it closes.
pub async fn serve(socket: WebSocket, conn: ConnId, ctx: ConnContext) {
    ctx.live.fetch_add(1, Ordering::Relaxed);
    let _guard = LiveGuard(ctx.live.clone());
    let (sink, stream) = socket.split();
    let (tx, rx) = mpsc::channel::<Arc<str>>(ctx.limits.outbound_queue);
    let shared = Arc::new(ConnShared::new(ctx.limits.outbound_queue_bytes));
    let handle = ConnHandle {
        tx,
        shared: shared.clone(),
    };
    if ctx
        .hub
        .send(HubMsg::Connect {
            conn,
            handle: handle.clone(),
        })
        .await
        .is_err()
    {
        return;
    }
    let writer = tokio::spawn(write_loop(
        sink,
        rx,
        shared.clone(),
        ctx.limits.write_timeout,
    ));
    let mut reader = Reader {
        conn,
        ctx: &ctx,
        out: handle,
        shared: &shared,
    };
    reader.run(stream).await;
    shared.kill.cancel();
    ctx.peer.forget_conn(conn);
    let _ = ctx.hub.send(HubMsg::Disconnect { conn }).await;
    let _ = writer.await;
}

/// A frame owned by an `Arc<str>`, handed to the socket without copying.
struct SharedText(Arc<str>);

impl AsRef<[u8]> for SharedText {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

fn text_message(frame: Arc<str>) -> Message {
    let bytes = Bytes::from_owner(SharedText(frame));
    Message::Text(Utf8Bytes::try_from(bytes).expect("frames are UTF-8"))
}

/// How long the writer tries to say goodbye to a peer that is being dropped.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// Writes queued frames until the queue closes or the connection is killed, and a ping when
/// the hub asks for one. A write that stalls for `write_timeout` (the peer stopped reading and
/// the socket buffers are full) drops the connection as a slow consumer.
async fn write_loop(
    mut sink: SplitSink<WebSocket, Message>,
    mut rx: mpsc::Receiver<Arc<str>>,
    shared: Arc<ConnShared>,
    write_timeout: Duration,
) {
    let kill = shared.kill.clone();
    let close = |code: u16, reason: &'static str| {
        Message::Close(Some(CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        }))
    };
    'outer: loop {
        let first = tokio::select! {
            biased;
            _ = kill.cancelled() => break,
            _ = shared.ping.notified() => {
                let ping = sink.send(Message::Ping(Bytes::from_static(b"ahp-host")));
                match tokio::time::timeout(write_timeout, ping).await {
                    Ok(Ok(())) => continue,
                    _ => return kill.cancel(),
                }
            }
            frame = rx.recv() => match frame {
                Some(frame) => frame,
                None => break,
            },
        };
        let mut next = Some(first);
        let mut written = 0;
        // `session/delta` frames of this batch, for the per-chunk probe.
        let mut deltas = 0;
        while let Some(frame) = next.take() {
            if crate::probe::on() && frame.contains("\"session/delta\"") {
                crate::probe::mark(crate::probe::Stage::WriterGot);
                deltas += 1;
            }
            if frame.is_empty() {
                // Graceful close requested after the frames queued before it.
                let bye = sink.send(close(1000, "bye"));
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, bye).await;
                return;
            }
            let len = frame.len();
            let sent = tokio::select! {
                biased;
                _ = kill.cancelled() => break 'outer,
                r = tokio::time::timeout(write_timeout, sink.feed(text_message(frame))) => r,
            };
            shared.written(len);
            match sent {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return kill.cancel(),
                Err(_) => {
                    shared.drop_slow();
                    break 'outer;
                }
            }
            written += 1;
            if written < 256 {
                next = rx.try_recv().ok();
            }
        }
        let flushed = tokio::select! {
            biased;
            _ = kill.cancelled() => break,
            r = tokio::time::timeout(write_timeout, sink.flush()) => r,
        };
        for _ in 0..deltas {
            crate::probe::mark(crate::probe::Stage::Flushed);
        }
        match flushed {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return kill.cancel(),
            Err(_) => {
                shared.drop_slow();
                break;
            }
        }
    }
    kill.cancel();
    // Say why, briefly: a peer that does not read will not get it, and is not waited for.
    let goodbye = if shared.slow.load(Ordering::Relaxed) {
        close(1008, "slow consumer: too much unread data")
    } else if shared.too_big.load(Ordering::Relaxed) {
        close(
            1009,
            "message too big: over the host's WebSocket frame bound",
        )
    } else {
        close(1008, "closed by the host")
    };
    let _ = tokio::time::timeout(CLOSE_TIMEOUT, sink.send(goodbye)).await;
}

/// Whether a read failed on a frame or message over the WebSocket layer's size bound.
fn is_too_big(error: axum::Error) -> bool {
    use tokio_tungstenite::tungstenite::Error;
    matches!(
        error.into_inner().downcast_ref::<Error>(),
        Some(Error::Capacity(_))
    )
}

struct Reader<'a> {
    conn: ConnId,
    ctx: &'a ConnContext,
    out: ConnHandle,
    shared: &'a ConnShared,
}

/// The `id` of a request refused before it is parsed (too large, too deep), so that its caller
/// gets the error instead of waiting for its timeout. Everything else in the frame is skipped
/// without being kept (serde's own recursion bound applies); `None` if there is none to find.
fn request_id_of(text: &str) -> Option<RequestId> {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: Option<RequestId>,
    }
    serde_json::from_str::<IdOnly>(text).ok()?.id
}

fn clip(s: &str) -> &str {
    match s.char_indices().nth(64) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

impl Reader<'_> {
    async fn run(&mut self, mut stream: SplitStream<WebSocket>) {
        loop {
            let next = tokio::select! {
                _ = self.shared.kill.cancelled() => return,
                next = stream.next() => next,
            };
            let ok = match next {
                Some(Ok(Message::Text(text))) => self.on_text(text.as_str()).await,
                Some(Ok(Message::Binary(_))) => self.reply_error(
                    None,
                    ErrorObject::new(
                        errors::INVALID_REQUEST,
                        "binary frames are not supported; send JSON-RPC as text",
                    ),
                ),
                Some(Err(e)) => {
                    if is_too_big(e) {
                        self.shared.drop_too_big();
                    }
                    return;
                }
                Some(Ok(Message::Close(_))) | None => return,
                // The hub asked whether this connection is alive (see `hub/id_claims.rs`).
                Some(Ok(Message::Pong(_)))
                    if self.shared.awaiting_pong.swap(false, Ordering::AcqRel) =>
                {
                    self.forward(HubMsg::Pong { conn: self.conn }).await
                }
                Some(Ok(_)) => true,
            };
            if !ok {
                return;
            }
        }
    }

    /// Queues a frame; a full queue means the peer does not read: it is dropped.
    fn reply(&self, text: String) -> bool {
        if self.out.queue(Arc::from(text)).is_err() {
            self.shared.kill.cancel();
            return false;
        }
        true
    }

    fn reply_error(&self, id: Option<&RequestId>, error: ErrorObject) -> bool {
        self.reply(error_text(id, &error))
    }

    async fn forward(&self, msg: HubMsg) -> bool {
        self.ctx.hub.send(msg).await.is_ok()
    }

    async fn on_text(&mut self, text: &str) -> bool {
        let limits = &self.ctx.limits;
        if text.len() > limits.max_frame_bytes {
            let message = format!(
                "frame of {} bytes exceeds the limit of {} bytes",
                text.len(),
                limits.max_frame_bytes
            );
            let id = request_id_of(text);
            return self.reply_error(
                id.as_ref(),
                ErrorObject::new(errors::INVALID_REQUEST, message),
            );
        }
        if !json_depth_within(text, limits.max_json_depth) {
            let message = format!("JSON nested deeper than {} levels", limits.max_json_depth);
            let id = request_id_of(text);
            return self.reply_error(
                id.as_ref(),
                ErrorObject::new(errors::INVALID_REQUEST, message),
            );
        }
        match Incoming::parse(text) {
            Err(e) => self.reply_error(e.id.as_ref(), ErrorObject::new(e.code, e.message)),
            Ok(Incoming::Request { id, method, params }) => {
                self.on_request(id, method, params).await
            }
            Ok(Incoming::Notification { method, params }) => {
                self.on_notification(method, params).await
            }
            // An answer to one of the host's requests (see `peer.rs`).
            Ok(Incoming::Response { id, outcome }) => {
                self.ctx.peer.deliver(self.conn, id.as_ref(), outcome);
                true
            }
        }
    }

    async fn on_request(
        &mut self,
        id: RequestId,
        method: &str,
        params: Option<RawJson<'_>>,
    ) -> bool {
        let initialized = self.shared.initialized.load(Ordering::Acquire);
        // MCP has methods of these names too: on an `mcp://` channel they are MCP's.
        if initialized && matches!(method, "ping" | "initialize") {
            if let Some(message) = mcp_channel_message(self.conn, Some(&id), method, params) {
                return self.forward(HubMsg::McpChannel(message)).await;
            }
        }
        if initialized && self.shared.v1.load(Ordering::Acquire) && method != "ping" {
            return self.on_request_v1(id, method, params).await;
        }
        let request = match method {
            // "No payload in either direction" (both versions' spec): a `null` result.
            "ping" => return self.reply(result_text(&id, &())),
            m if !initialized && !Request::before_initialize(m) => Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                "send `initialize` (or `reconnect`) first",
            )),
            m if SANDBOX_METHODS.contains(&m) => return self.resource(id, m, params).await,
            methods::DISPATCH_ACTION => {
                // Accepted as a request too; the echo arrives as an `action` notification.
                return match decode_params::<DispatchActionParams>(params) {
                    Ok(params) => {
                        let conn = self.conn;
                        self.forward(HubMsg::Dispatch { conn, params }).await
                            && self.reply(result_text(&id, &EmptyResult))
                    }
                    Err(e) => self.reply_error(Some(&id), e),
                };
            }
            // The hub's commands, from its command table (`bus/requests.rs`).
            m => match Request::parse(m, params) {
                Some(request) => request,
                None if REQUEST_METHODS.contains(&m) => Err(ErrorObject::new(
                    errors::METHOD_NOT_FOUND,
                    format!("`{m}` is not supported by this host"),
                )),
                None => match mcp_channel_message(self.conn, Some(&id), m, params) {
                    Some(message) => return self.forward(HubMsg::McpChannel(message)).await,
                    None => Err(ErrorObject::new(
                        errors::METHOD_NOT_FOUND,
                        format!("unknown method `{}`", clip(m)),
                    )),
                },
            },
        };
        match request {
            Ok(request) => {
                let conn = self.conn;
                self.forward(HubMsg::Request {
                    conn,
                    id,
                    request: Box::new(request),
                })
                .await
            }
            Err(e) => self.reply_error(Some(&id), e),
        }
    }

    /// A request of a connection whose handshake chose AHP 1.0 (see `hub/v1.rs`).
    async fn on_request_v1(
        &mut self,
        id: RequestId,
        method: &str,
        params: Option<RawJson<'_>>,
    ) -> bool {
        let request = match method {
            // As 0.3.0 answers them (the hub's `initialize` and `reconnect`).
            "initialize" | "reconnect" => Err(ErrorObject::new(
                errors::INVALID_REQUEST,
                "already initialized",
            )),
            m if SANDBOX_METHODS.contains(&m) => return self.resource(id, m, params).await,
            methods::DISPATCH_ACTION => {
                return match decode_params::<v1::DispatchActionParams>(params) {
                    Ok(params) => {
                        let conn = self.conn;
                        let params = Box::new(params);
                        self.forward(HubMsg::DispatchV1 { conn, params }).await
                            && self.reply(result_text(&id, &EmptyResult))
                    }
                    Err(e) => self.reply_error(Some(&id), e),
                };
            }
            m => match RequestV1::parse(m, params) {
                Some(request) => request,
                None if v1::jsonrpc::REQUEST_METHODS.contains(&m) => Err(ErrorObject::new(
                    errors::METHOD_NOT_FOUND,
                    crate::bus::requests_v1::not_yet(m),
                )),
                None => match mcp_channel_message(self.conn, Some(&id), m, params) {
                    Some(message) => return self.forward(HubMsg::McpChannel(message)).await,
                    None => Err(ErrorObject::new(
                        errors::METHOD_NOT_FOUND,
                        format!("unknown method `{}`", clip(m)),
                    )),
                },
            },
        };
        match request {
            Ok(request) => {
                let conn = self.conn;
                let request = Box::new(request);
                self.forward(HubMsg::RequestV1 { conn, id, request }).await
            }
            Err(e) => self.reply_error(Some(&id), e),
        }
    }

    async fn on_notification(&mut self, method: &str, params: Option<RawJson<'_>>) -> bool {
        let conn = self.conn;
        match method {
            methods::DISPATCH_ACTION => {
                if !self.shared.initialized.load(Ordering::Acquire) {
                    let e = ErrorObject::new(errors::INVALID_REQUEST, "send `initialize` first");
                    return self.reply_error(None, e);
                }
                if self.shared.v1.load(Ordering::Acquire) {
                    return match decode_params::<v1::DispatchActionParams>(params) {
                        Ok(params) => {
                            let params = Box::new(params);
                            self.forward(HubMsg::DispatchV1 { conn, params }).await
                        }
                        Err(e) => self.reply_error(None, e),
                    };
                }
                // A notification has no id to answer; a malformed one still gets an error
                // (with a null id) so the client learns about it.
                match decode_params::<DispatchActionParams>(params) {
                    Ok(params) => self.forward(HubMsg::Dispatch { conn, params }).await,
                    Err(e) => self.reply_error(None, e),
                }
            }
            methods::UNSUBSCRIBE => match decode_params::<UnsubscribeParams>(params) {
                Ok(p) => {
                    self.forward(HubMsg::Unsubscribe {
                        conn,
                        channel: p.channel,
                    })
                    .await
                }
                Err(e) => self.reply_error(None, e),
            },
            m if self.shared.initialized.load(Ordering::Acquire) => {
                match mcp_channel_message(conn, None, m, params) {
                    Some(message) => self.forward(HubMsg::McpChannel(message)).await,
                    None => true,
                }
            }
            _ => true,
        }
    }

    /// The `resource*` commands run here, off the hub, on the blocking pool.
    async fn resource(&mut self, id: RequestId, method: &str, params: Option<RawJson<'_>>) -> bool {
        let job = match sandbox_job(method, params) {
            Ok(job) => job,
            Err(e) => return self.reply_error(Some(&id), e),
        };
        let touched = touched_paths(method, params);
        let sandbox = self.ctx.sandbox.clone();
        let outcome = tokio::task::spawn_blocking(move || job(&sandbox))
            .await
            .unwrap_or_else(|_| {
                Err(ErrorObject::new(
                    errors::INTERNAL_ERROR,
                    "resource operation failed",
                ))
            });
        // The changesets of the sessions there look again (`hub/changesets.rs`).
        if outcome.is_ok() && !touched.is_empty() {
            let msg = ChangesMsg::Touched(touched);
            if !self.forward(HubMsg::Changes(Box::new(msg))).await {
                return false;
            }
        }
        match outcome {
            Ok(json) => match RawJsonBuf::from_string(json) {
                Ok(raw) => self.reply(result_text(&id, &raw)),
                Err(_) => self.reply_error(
                    Some(&id),
                    ErrorObject::new(errors::INTERNAL_ERROR, "bad result"),
                ),
            },
            Err(e) => self.reply_error(Some(&id), e),
        }
    }
}

/// The `resource*` commands the sandbox serves.
const SANDBOX_METHODS: [&str; 9] = [
    ResourceRead::METHOD,
    ResourceWrite::METHOD,
    ResourceList::METHOD,
    ResourceCopy::METHOD,
    ResourceDelete::METHOD,
    ResourceMove::METHOD,
    ResourceResolve::METHOD,
    ResourceMkdir::METHOD,
    ResourceRequest::METHOD,
];

/// A sandbox command with its decoded params, answering its result as JSON.
type SandboxJob = Box<dyn FnOnce(&Sandbox) -> Result<String, ErrorObject> + Send>;

/// Params sent on the root channel: every `resource*` command's `channel` is the literal
/// `ahp-root://`.
trait OnRoot {
    fn channel(&self) -> &str;
}

macro_rules! on_root {
    ($($params:ty),*) => {
        $(impl OnRoot for $params {
            fn channel(&self) -> &str {
                &self.channel
            }
        })*
    };
}

on_root!(
    ResourceReadParams,
    ResourceWriteParams,
    ResourceListParams,
    ResourceCopyParams,
    ResourceDeleteParams,
    ResourceMoveParams,
    ResourceResolveParams,
    ResourceMkdirParams,
    ResourceRequestParams
);

/// Decodes the params of the sandbox command `method` (one of [`SANDBOX_METHODS`]).
fn sandbox_job(method: &str, params: Option<RawJson<'_>>) -> Result<SandboxJob, ErrorObject> {
    fn job<C: Command>(
        params: Option<RawJson<'_>>,
        run: fn(&Sandbox, &C::Params) -> Result<C::Result, ErrorObject>,
    ) -> Result<SandboxJob, ErrorObject>
    where
        C::Params: OnRoot + Send + 'static,
        C::Result: 'static,
    {
        let p = decode_params::<C::Params>(params)?;
        if p.channel() != ROOT_CHANNEL {
            return Err(ErrorObject::new(
                errors::INVALID_PARAMS,
                format!(
                    "invalid params at `channel`: `{}` is sent on `{ROOT_CHANNEL}`",
                    C::METHOD
                ),
            ));
        }
        Ok(Box::new(move |sandbox| {
            run(sandbox, &p).map(|r| to_json(&r))
        }))
    }
    match method {
        m if m == ResourceRead::METHOD => job::<ResourceRead>(params, Sandbox::read),
        m if m == ResourceWrite::METHOD => job::<ResourceWrite>(params, Sandbox::write),
        m if m == ResourceList::METHOD => job::<ResourceList>(params, Sandbox::list),
        m if m == ResourceCopy::METHOD => job::<ResourceCopy>(params, Sandbox::copy),
        m if m == ResourceDelete::METHOD => job::<ResourceDelete>(params, Sandbox::delete),
        m if m == ResourceMove::METHOD => job::<ResourceMove>(params, Sandbox::rename),
        m if m == ResourceResolve::METHOD => job::<ResourceResolve>(params, Sandbox::resolve),
        m if m == ResourceMkdir::METHOD => job::<ResourceMkdir>(params, Sandbox::mkdir),
        _ => job::<ResourceRequest>(params, Sandbox::request),
    }
}

/// The paths a file command that changes the tree names (none for the others).
fn touched_paths(method: &str, params: Option<RawJson<'_>>) -> Vec<std::path::PathBuf> {
    let changes = [
        ResourceWrite::METHOD,
        ResourceCopy::METHOD,
        ResourceDelete::METHOD,
        ResourceMove::METHOD,
        ResourceMkdir::METHOD,
    ];
    let Some(params) = params.filter(|_| changes.contains(&method)) else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str(params.get()) else {
        return Vec::new();
    };
    ["uri", "source", "destination"]
        .iter()
        .filter_map(|k| map.get(*k)?.as_str())
        .filter_map(|uri| crate::resources::uri_path(uri).ok())
        .collect()
}

/// A message for an `mcp://` channel: one whose `params.channel` is an `mcp://` URI (MCP
/// methods are not AHP methods, so this is asked only of methods the host does not know).
/// `channel` is taken out of the params forwarded to the MCP server.
fn mcp_channel_message(
    conn: ConnId,
    id: Option<&RequestId>,
    method: &str,
    params: Option<RawJson<'_>>,
) -> Option<Box<ChannelMessage>> {
    let raw = params?;
    let Ok(serde_json::Value::Object(mut params)) = serde_json::from_str(raw.get()) else {
        return None;
    };
    let channel = match params.get("channel") {
        Some(serde_json::Value::String(c)) if c.starts_with(crate::mcp::apps::SCHEME) => c.clone(),
        _ => return None,
    };
    params.remove("channel");
    Some(Box::new(ChannelMessage {
        conn,
        id: id.cloned(),
        method: method.to_owned(),
        channel,
        params: Some(serde_json::Value::Object(params)),
        bytes: raw.get().len(),
    }))
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".into())
}
