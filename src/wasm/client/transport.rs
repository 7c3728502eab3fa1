//! Connections: the default WebSocket (browser `WebSocket`, also Node 20's with
//! `--experimental-websocket`, through gloo-net) and custom transports from
//! `ConnectOptions.transport` (`(url, callbacks) => { send, close }`).
//!
//! gloo-net lets go of a socket by dispatching a synthetic `CloseEvent` on it (so its own
//! `close` listener is removed before the real event); Node 20 has no `CloseEvent`, which
//! `js/node.js` supplies, else the real event would call a freed closure.
//!
//! Both report through [`TransportEvents`] (the driver's), tagged with the connection's
//! generation so a stale connection's late callbacks are ignored.

use super::conn::Conn;
use super::frame_sink::FrameSink;
use super::transport_events::TransportEvents;
use crate::client::{Error, TransportErrorKind};
use crate::wasm::convert::text_from_js;
use crate::wasm::errors::describe;
use futures_channel::mpsc::unbounded;
use futures_util::{SinkExt, StreamExt};
use gloo_net::websocket::futures::WebSocket;
use gloo_net::websocket::{Message, State};
use js_sys::{Function, Reflect};
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

/// Frames gathered into one batch at most (one change notification per channel per batch).
const MAX_BATCH: usize = 256;

/// Opens a connection through a custom transport factory.
pub fn open_custom<T: TransportEvents + 'static>(
    factory: &Function,
    url: &str,
    inner: Weak<T>,
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
    let frame_sink = JsValue::from(FrameSink::new(inner.clone(), generation));
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

/// Opens a WebSocket to `url`; a task owns the socket, reports its opening, frames and end.
pub fn open_ws<T: TransportEvents + 'static>(
    url: &str,
    inner: Weak<T>,
    generation: u64,
) -> Result<Conn, Error> {
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
