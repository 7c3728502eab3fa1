//! A native WebSocket transport over tokio-tungstenite (feature `native`): text frames, one
//! JSON-RPC message each. Plain `ws://` (TLS is left to a proxy or a later feature).

use super::Transport;
use crate::client::{Error, TransportErrorKind};
use futures_util::{SinkExt, Stream, StreamExt};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

type Frames = Pin<Box<dyn Stream<Item = Result<Message, String>> + Send>>;

/// One WebSocket connection. Sending never blocks: frames go to a writer task.
pub struct WsTransport {
    frames: Frames,
    writer: Option<mpsc::UnboundedSender<Message>>,
}

/// Connects to `url` (`ws://host:port/path?query`). Needs a tokio runtime.
pub async fn connect(url: &str) -> Result<WsTransport, Error> {
    // No Nagle: small frames (dispatches, pings) go out at once.
    let (stream, _response) = tokio_tungstenite::connect_async_with_config(url, None, true)
        .await
        .map_err(|e| Error::transport(TransportErrorKind::Connect, e.to_string()))?;
    Ok(WsTransport::new(stream))
}

impl WsTransport {
    /// Wraps an open WebSocket (client or server side, e.g. one a host accepted). Spawns the
    /// writer task, so it must run inside a tokio runtime.
    pub fn new<S>(stream: WebSocketStream<S>) -> WsTransport
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (mut sink, stream) = stream.split();
        let (writer, mut queue) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            while let Some(message) = queue.recv().await {
                let closing = matches!(message, Message::Close(_));
                if sink.send(message).await.is_err() || closing {
                    break;
                }
            }
            let _ = sink.close().await;
        });
        let frames = stream.map(|m| m.map_err(|e| e.to_string()));
        WsTransport {
            frames: Box::pin(frames),
            writer: Some(writer),
        }
    }
}

impl Transport for WsTransport {
    fn send(&mut self, frame: String) -> Result<(), Error> {
        let closed = || Error::transport(TransportErrorKind::Send, "the WebSocket is closed");
        let writer = self.writer.as_ref().ok_or_else(closed)?;
        writer.send(Message::text(frame)).map_err(|_| closed())
    }

    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<String, Error>>> {
        loop {
            return match self.frames.as_mut().poll_next(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(None) | Poll::Ready(Some(Ok(Message::Close(_)))) => Poll::Ready(None),
                Poll::Ready(Some(Ok(Message::Text(text)))) => {
                    Poll::Ready(Some(Ok(text.as_str().to_owned())))
                }
                Poll::Ready(Some(Ok(Message::Binary(bytes)))) => {
                    Poll::Ready(Some(match String::from_utf8(bytes.to_vec()) {
                        Ok(text) => Ok(text),
                        Err(_) => Err(Error::transport(
                            TransportErrorKind::Receive,
                            "a binary frame that is not UTF-8",
                        )),
                    }))
                }
                // Ping/pong are answered by tungstenite itself.
                Poll::Ready(Some(Ok(_))) => continue,
                Poll::Ready(Some(Err(e))) => {
                    Poll::Ready(Some(Err(Error::transport(TransportErrorKind::Receive, e))))
                }
            };
        }
    }

    fn close(&mut self) {
        if let Some(writer) = self.writer.take() {
            let _ = writer.send(Message::Close(None));
        }
    }
}

impl Drop for WsTransport {
    fn drop(&mut self) {
        self.close();
    }
}
