//! What the tests of AHP 1.0 clients share: a WebSocket transport for the official `ahp` 1.0.0
//! client.

use ahp_v1::{Transport, TransportError, TransportMessage};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message as WsMessage;

use crate::common::Ws;

/// A WebSocket transport for the official client.
pub struct WsTransport(pub Ws);

impl Transport for WsTransport {
    async fn send(&mut self, msg: TransportMessage) -> Result<(), TransportError> {
        let text = match msg {
            TransportMessage::Text(t) => t,
            TransportMessage::Binary(b) => {
                String::from_utf8(b).map_err(|e| TransportError::Protocol(e.to_string()))?
            }
            TransportMessage::Parsed(m) => {
                serde_json::to_string(&m).map_err(|e| TransportError::Protocol(e.to_string()))?
            }
        };
        self.0
            .send(WsMessage::text(text))
            .await
            .map_err(|e| TransportError::Protocol(e.to_string()))
    }

    async fn recv(&mut self) -> Result<Option<TransportMessage>, TransportError> {
        loop {
            match self.0.next().await {
                Some(Ok(WsMessage::Text(t))) => {
                    return Ok(Some(TransportMessage::Text(t.to_string())))
                }
                Some(Ok(WsMessage::Close(_))) | None => return Ok(None),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(TransportError::Protocol(e.to_string())),
            }
        }
    }

    async fn close(&mut self) -> Result<(), TransportError> {
        let _ = self.0.close(None).await;
        Ok(())
    }
}
