//! Connections: the default WebSocket (browser `WebSocket`, also Node 20's with
//! `--experimental-websocket`, through gloo-net) and custom transports from
//! `ConnectOptions.transport` (`(url, callbacks) => { send, close }`).
//!
//! gloo-net lets go of a socket by dispatching a synthetic `CloseEvent` on it (so its own
//! `close` listener is removed before the real event); Node 20 has no `CloseEvent`, which
//! `js/node.js` supplies, else the real event would call a freed closure.
//!
//! Both report to the driver through [`Inner`]'s `transport_*` methods (in
//! [`super::connection`]), tagged with the connection's generation so a stale connection's
//! late callbacks are ignored.

use super::driver::Inner;
use crate::client::{Error, TransportErrorKind};
use crate::wasm::convert::text_from_js;
use futures_channel::mpsc::{unbounded, UnboundedSender};
use futures_util::{SinkExt, StreamExt};
use gloo_net::websocket::futures::WebSocket;
use gloo_net::websocket::{Message, State};
use js_sys::{Function, Reflect};
use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Weak;
use std::task::{Context, Poll, Waker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/glue.js")]
extern "C" {
    #[wasm_bindgen(js_name = transportCallbacks)]
    fn transport_callbacks(
        f: &JsValue,
        on_frame: &JsValue,
        frame_sink: &JsValue,
        memory: &JsValue,
    ) -> JsValue;
}

/// Frames up to this many UTF-8 bytes reach wasm through a reused buffer (JS
/// `TextEncoder.encodeInto` straight into wasm memory: no allocation, no per-character copy
/// loop); longer ones go as strings, so the buffer never keeps a huge frame's size.
const FRAME_BUFFER_MAX_BYTES: u32 = 256 * 1024;

/// Frames gathered into one batch at most (one change notification per channel per batch).
const MAX_BATCH: usize = 256;

/// An open connection.
pub enum Conn {
    /// A custom transport: the object the factory returned.
    Custom {
        this: JsValue,
        send: Function,
        close: Function,
    },
    /// The default WebSocket: frames go to the task that owns the socket.
    Ws(UnboundedSender<String>),
}

impl Conn {
    /// Sends one frame. Custom transports are user code: never call with a borrow held.
    pub fn send(&self, frame: &str) -> Result<(), Error> {
        match self {
            Conn::Custom { this, send, .. } => send
                .call1(this, &JsValue::from_str(frame))
                .map(|_| ())
                .map_err(|e| {
                    Error::transport(
                        TransportErrorKind::Send,
                        format!("send threw: {}", describe(&e)),
                    )
                }),
            Conn::Ws(tx) => tx
                .unbounded_send(frame.to_string())
                .map_err(|_| Error::transport(TransportErrorKind::Send, "the WebSocket is closed")),
        }
    }

    /// Closes the connection (errors ignored).
    pub fn close(self) {
        match self {
            Conn::Custom { this, close, .. } => {
                let _ = close.call0(&this);
            }
            Conn::Ws(tx) => tx.close_channel(),
        }
    }
}

/// A short text for a thrown JS value.
pub fn describe(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    // `String(value)`, as JS would write it (not Rust's `Debug`, which links its formatter).
    value
        .as_string()
        .unwrap_or_else(|| String::from(js_sys::JsString::from(value.clone())))
}

/// Opens a connection through a custom transport factory.
pub fn open_custom(
    factory: &Function,
    url: &str,
    inner: Weak<Inner>,
    generation: u64,
) -> Result<Conn, Error> {
    // `Fn`, not `FnMut`: a transport may call back from inside `send` (re-entrant).
    let frames_to = inner.clone();
    // Frames too large for the lent buffer (snapshots): copied by the engine's encoder.
    let on_frame = Closure::<dyn Fn(js_sys::JsString)>::new(move |frame: js_sys::JsString| {
        if let Some(inner) = frames_to.upgrade() {
            inner.transport_frames(generation, vec![text_from_js(&frame)]);
        }
    });
    let frame_sink = JsValue::from(FrameSink {
        inner: inner.clone(),
        generation,
        buffer: RefCell::new(Vec::new()),
    });
    let callback = Closure::<dyn Fn(u32, JsValue)>::new(move |kind: u32, value: JsValue| {
        let Some(inner) = inner.upgrade() else {
            return;
        };
        match kind {
            0 => inner.transport_open(generation),
            1 => inner.transport_bad_frame(generation, &value),
            2 => match value.dyn_into::<js_sys::Array>() {
                Ok(list) => {
                    let mut frames = Vec::with_capacity(list.length() as usize);
                    for item in list.iter() {
                        match item.dyn_ref::<js_sys::JsString>() {
                            Some(frame) => frames.push(text_from_js(frame)),
                            None => inner.transport_bad_frame(generation, &item),
                        }
                    }
                    inner.transport_frames(generation, frames);
                }
                Err(value) => inner.transport_bad_frame(generation, &value),
            },
            _ => inner.transport_closed(generation, &value.as_string().unwrap_or_default()),
        }
    });
    // The callbacks live as long as JS holds them (a connection's worth of memory).
    let callbacks = transport_callbacks(
        &callback.into_js_value(),
        &on_frame.into_js_value(),
        &frame_sink,
        &wasm_bindgen::memory(),
    );
    let connect_error = |message: String| Error::transport(TransportErrorKind::Connect, message);
    let this = factory
        .call2(&JsValue::UNDEFINED, &JsValue::from_str(url), &callbacks)
        .map_err(|e| connect_error(format!("the transport factory threw: {}", describe(&e))))?;
    let method = |name: &str| -> Result<Function, Error> {
        Reflect::get(&this, &JsValue::from_str(name))
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
            .ok_or_else(|| {
                connect_error(format!(
                    "the transport factory must return an object with a `{name}` method"
                ))
            })
    };
    let (send, close) = (method("send")?, method("close")?);
    Ok(Conn::Custom { this, send, close })
}

/// The hot path of custom transports, a class so that JS calls it as an exported method
/// (a direct call; a `Closure` goes through wasm-bindgen's generic wrapper on every frame):
/// `reserve(n) => ptr` lends JS a buffer of at least `n` bytes in wasm memory (0 when it
/// cannot: JS then passes the frame as a string), and `take(len, now)` takes the UTF-8 frame JS
/// wrote there. The bytes are read (parsed or copied) before any user code runs, so a
/// re-entrant frame cannot overwrite them in use. Not part of the package's API.
#[wasm_bindgen(skip_typescript)]
pub struct FrameSink {
    inner: Weak<Inner>,
    generation: u64,
    buffer: RefCell<Vec<u8>>,
}

#[wasm_bindgen]
impl FrameSink {
    pub fn reserve(&self, bytes: u32) -> u32 {
        let Ok(mut buffer) = self.buffer.try_borrow_mut() else {
            return 0;
        };
        if bytes > FRAME_BUFFER_MAX_BYTES {
            return 0;
        }
        if buffer.len() < bytes as usize {
            // Zero-filled, so reading what JS wrote is plain safe slicing.
            *buffer = vec![0; (bytes as usize).next_power_of_two().max(1024)];
        }
        buffer.as_mut_ptr() as u32
    }

    /// `now`: `Date.now()` when the frame arrived (read in JS: cheaper than a call out of wasm
    /// for it).
    pub fn take(&self, len: u32, now: f64) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        let accepted = match self.buffer.try_borrow() {
            Ok(bytes) => match bytes.get(..len as usize).map(std::str::from_utf8) {
                Some(Ok(text)) => inner.accept_frame(self.generation, text, now),
                _ => inner.reject_frame(self.generation, "a frame that is not UTF-8 text"),
            },
            Err(_) => {
                inner.reject_frame(self.generation, "a frame while the previous one was read")
            }
        };
        if accepted {
            inner.run();
        }
    }
}

/// Opens a WebSocket to `url`; a task owns the socket, reports its opening, frames and end.
pub fn open_ws(url: &str, inner: Weak<Inner>, generation: u64) -> Result<Conn, Error> {
    let mut ws = WebSocket::open(url).map_err(|e| {
        Error::transport(
            TransportErrorKind::Connect,
            format!("cannot open a WebSocket: {e}"),
        )
    })?;
    let (tx, mut rx) = unbounded::<String>();
    wasm_bindgen_futures::spawn_local(async move {
        let mut opened = false;
        let mut out: std::collections::VecDeque<String> = Default::default();
        let mut outbox_open = true;
        let end: String = loop {
            enum Step {
                Opened,
                Frames(Vec<String>),
                End(String),
            }
            let step = poll_fn(|cx: &mut Context<'_>| {
                if !opened {
                    match ws.poll_ready_unpin(cx) {
                        Poll::Ready(Ok(())) if matches!(ws.state(), State::Open) => {
                            return Poll::Ready(Step::Opened)
                        }
                        Poll::Ready(_) => {} // closing or closed: the stream reports why
                        Poll::Pending => {}
                    }
                }
                while outbox_open {
                    match rx.poll_next_unpin(cx) {
                        Poll::Ready(Some(frame)) => out.push_back(frame),
                        Poll::Ready(None) => outbox_open = false,
                        Poll::Pending => break,
                    }
                }
                if !outbox_open {
                    return Poll::Ready(Step::End(String::new()));
                }
                while opened && !out.is_empty() {
                    match ws.poll_ready_unpin(cx) {
                        Poll::Ready(Ok(())) => {
                            let frame = out.pop_front().unwrap_or_default();
                            if let Err(e) = ws.start_send_unpin(Message::Text(frame)) {
                                return Poll::Ready(Step::End(format!("send failed: {e}")));
                            }
                        }
                        Poll::Ready(Err(e)) => {
                            return Poll::Ready(Step::End(format!("send failed: {e}")))
                        }
                        Poll::Pending => break,
                    }
                }
                let mut frames = Vec::new();
                loop {
                    let polled = if frames.is_empty() {
                        ws.poll_next_unpin(cx)
                    } else {
                        ws.poll_next_unpin(&mut Context::from_waker(Waker::noop()))
                    };
                    match polled {
                        Poll::Ready(Some(Ok(Message::Text(text)))) => {
                            frames.push(text);
                            if frames.len() >= MAX_BATCH {
                                break;
                            }
                        }
                        Poll::Ready(Some(Ok(Message::Bytes(_)))) => {
                            if frames.is_empty() {
                                return Poll::Ready(Step::End(
                                    "the peer sent a binary frame".into(),
                                ));
                            }
                            break;
                        }
                        Poll::Ready(Some(Err(e))) if frames.is_empty() => {
                            return Poll::Ready(Step::End(e.to_string()))
                        }
                        Poll::Ready(None) if frames.is_empty() => {
                            return Poll::Ready(Step::End("closed by the peer".into()))
                        }
                        _ => break,
                    }
                }
                if frames.is_empty() {
                    Poll::Pending
                } else {
                    Poll::Ready(Step::Frames(frames))
                }
            })
            .await;
            let Some(inner) = inner.upgrade() else {
                break String::new();
            };
            match step {
                Step::Opened => {
                    opened = true;
                    inner.transport_open(generation);
                }
                Step::Frames(frames) => inner.transport_frames(generation, frames),
                Step::End(reason) => break reason,
            }
        };
        drop(ws); // closes the socket
        if !end.is_empty() {
            if let Some(inner) = inner.upgrade() {
                inner.transport_closed(generation, &end);
            }
        }
    });
    Ok(Conn::Ws(tx))
}
