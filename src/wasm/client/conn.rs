//! [`Conn`]: an open connection, the default WebSocket or a custom transport; what sends and
//! closes it (user code, for a custom transport: never called with a borrow held).

use crate::client::{Error, TransportErrorKind};
use crate::wasm::errors::describe;
use futures_channel::mpsc::UnboundedSender;
use js_sys::Function;
use wasm_bindgen::prelude::*;

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
