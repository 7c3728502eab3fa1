//! What the tests of AHP 1.0 clients share: a WebSocket transport for the official `ahp`
//! clients, 1.0.0's and 0.3.0's (their `Transport` traits have the same shape).

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message as WsMessage;

use crate::common::Ws;

/// A WebSocket transport for the official clients.
pub struct WsTransport(pub Ws);

/// `impl $krate::Transport for WsTransport`.
macro_rules! official_transport {
    ($krate:ident) => {
        impl $krate::Transport for WsTransport {
            async fn send(
                &mut self,
                msg: $krate::TransportMessage,
            ) -> Result<(), $krate::TransportError> {
                use $krate::{TransportError, TransportMessage};
                let text = match msg {
                    TransportMessage::Text(t) => t,
                    TransportMessage::Binary(b) => {
                        String::from_utf8(b).map_err(|e| TransportError::Protocol(e.to_string()))?
                    }
                    TransportMessage::Parsed(m) => serde_json::to_string(&m)
                        .map_err(|e| TransportError::Protocol(e.to_string()))?,
                };
                self.0
                    .send(WsMessage::text(text))
                    .await
                    .map_err(|e| TransportError::Protocol(e.to_string()))
            }

            async fn recv(
                &mut self,
            ) -> Result<Option<$krate::TransportMessage>, $krate::TransportError> {
                loop {
                    match self.0.next().await {
                        Some(Ok(WsMessage::Text(t))) => {
                            return Ok(Some($krate::TransportMessage::Text(t.to_string())))
                        }
                        Some(Ok(WsMessage::Close(_))) | None => return Ok(None),
                        Some(Ok(_)) => continue,
                        Some(Err(e)) => {
                            return Err($krate::TransportError::Protocol(e.to_string()))
                        }
                    }
                }
            }

            async fn close(&mut self) -> Result<(), $krate::TransportError> {
                let _ = self.0.close(None).await;
                Ok(())
            }
        }
    };
}

official_transport!(ahp_v1);
official_transport!(ahp);
