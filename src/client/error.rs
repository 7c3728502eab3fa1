//! The client's typed errors.

use crate::protocol::errors::error_code_name;
use crate::protocol::jsonrpc::ErrorObject;
use crate::protocol::{JsonValue, UnsupportedProtocolVersionErrorData};
use std::fmt;

/// What went wrong with the transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportErrorKind {
    /// The connection could not be established.
    Connect,
    /// The connection dropped (or was closed by the peer) while the request was in flight.
    ConnectionLost,
    /// A frame could not be sent.
    Send,
    /// A frame could not be received.
    Receive,
}

impl TransportErrorKind {
    /// A short name (`"connectionLost"`).
    pub fn name(self) -> &'static str {
        match self {
            TransportErrorKind::Connect => "connect",
            TransportErrorKind::ConnectionLost => "connectionLost",
            TransportErrorKind::Send => "send",
            TransportErrorKind::Receive => "receive",
        }
    }
}

/// A client error.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The server answered with a JSON-RPC error.
    Rpc {
        /// The code (see [`crate::protocol::errors`]).
        code: i64,
        /// The server's message.
        message: String,
        /// Structured details, if any.
        data: Option<JsonValue>,
    },
    /// No response arrived within the request timeout.
    Timeout {
        /// The method of the request.
        method: String,
        /// The timeout it exceeded, in milliseconds.
        timeout_ms: f64,
    },
    /// The transport failed.
    Transport {
        /// What failed.
        kind: TransportErrorKind,
        /// Details.
        message: String,
    },
    /// The client was closed.
    Closed,
    /// The server speaks none of the protocol versions we offered (`-32005`).
    UnsupportedProtocolVersion {
        /// What we offered.
        offered: Vec<String>,
        /// What the server says it supports, if it said.
        server_data: Option<UnsupportedProtocolVersionErrorData>,
    },
    /// A response could not be understood.
    InvalidResponse {
        /// The method of the request.
        method: String,
        /// What is wrong with it.
        message: String,
    },
    /// `dispatch` on a channel this client holds no state for.
    NotSubscribed {
        /// The channel URI.
        channel: String,
    },
    /// An action or a command of a protocol version the connection did not negotiate (a
    /// 0.3.0 action on a 1.0 connection, a 1.0-only command on a 0.3.0 one): refused before
    /// anything was sent, since the host would not understand it.
    WrongProtocolVersion {
        /// The version the host chose in `initialize`.
        negotiated: String,
        /// The version of what was attempted.
        version: String,
        /// What was attempted (`` the action `session/turnStarted` on `ahp-chat:/1` ``,
        /// `` the command `createChat` ``).
        attempted: String,
    },
}

impl Error {
    /// An [`Error::Rpc`] from a response's error object.
    pub fn rpc(error: ErrorObject) -> Error {
        Error::Rpc {
            code: error.code,
            message: error.message,
            data: error.data,
        }
    }

    /// An [`Error::Transport`].
    pub fn transport(kind: TransportErrorKind, message: impl Into<String>) -> Error {
        Error::Transport {
            kind,
            message: message.into(),
        }
    }

    /// A short machine-readable kind (`"rpc"`, `"timeout"`, `"transport"`, `"closed"`,
    /// `"unsupportedProtocolVersion"`, `"invalidResponse"`, `"notSubscribed"`,
    /// `"wrongProtocolVersion"`).
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Rpc { .. } => "rpc",
            Error::Timeout { .. } => "timeout",
            Error::Transport { .. } => "transport",
            Error::Closed => "closed",
            Error::UnsupportedProtocolVersion { .. } => "unsupportedProtocolVersion",
            Error::InvalidResponse { .. } => "invalidResponse",
            Error::NotSubscribed { .. } => "notSubscribed",
            Error::WrongProtocolVersion { .. } => "wrongProtocolVersion",
        }
    }

    /// The JSON-RPC code, for [`Error::Rpc`] and [`Error::UnsupportedProtocolVersion`].
    pub fn code(&self) -> Option<i64> {
        match self {
            Error::Rpc { code, .. } => Some(*code),
            Error::UnsupportedProtocolVersion { .. } => {
                Some(crate::protocol::errors::UNSUPPORTED_PROTOCOL_VERSION)
            }
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Rpc { code, message, .. } => match error_code_name(*code) {
                Some(name) => write!(f, "server error {code} ({name}): {message}"),
                None => write!(f, "server error {code}: {message}"),
            },
            Error::Timeout { method, timeout_ms } => write!(
                f,
                "`{method}` got no response within {} ms (requestTimeoutMs)",
                Millis(*timeout_ms)
            ),
            Error::Transport { kind, message } => {
                write!(f, "transport error ({}): {message}", kind.name())
            }
            Error::Closed => f.write_str("the client is closed"),
            Error::UnsupportedProtocolVersion {
                offered,
                server_data,
            } => {
                write!(
                    f,
                    "the server supports none of the offered protocol versions [{}]",
                    offered.join(", ")
                )?;
                if let Some(data) = server_data {
                    write!(f, "; it supports [{}]", data.supported_versions.join(", "))?;
                }
                Ok(())
            }
            Error::InvalidResponse { method, message } => {
                write!(f, "invalid response to `{method}`: {message}")
            }
            Error::NotSubscribed { channel } => {
                write!(
                    f,
                    "not subscribed to `{channel}` (subscribe before dispatching)"
                )
            }
            Error::WrongProtocolVersion {
                negotiated,
                version,
                attempted,
            } => write!(
                f,
                "{attempted} is AHP {version}, but this connection negotiated AHP {negotiated}: \
                 nothing was sent"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Milliseconds as `f64`'s `Display` writes them (`1500`, `2.5`), to a thousandth, without
/// linking the float formatter into the wasm module (16 KB of code for this one message).
struct Millis(f64);

impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Saturating casts: a huge value writes `i64::MAX`, NaN `0`.
        let mut whole = self.0.trunc() as i64;
        let mut fraction = ((self.0 - self.0.trunc()).abs() * 1000.0).round() as i64;
        if fraction == 1000 {
            (whole, fraction) = (whole.saturating_add(self.0.signum() as i64), 0);
        }
        let sign = if self.0 < 0.0 && whole == 0 && fraction > 0 {
            "-"
        } else {
            ""
        };
        if fraction == 0 {
            return write!(f, "{sign}{whole}");
        }
        let digits = format!("{fraction:03}");
        write!(f, "{sign}{whole}.{}", digits.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn milliseconds_read_as_numbers_do() {
        use super::Millis;
        for (ms, text) in [
            (30000.0, "30000"),
            (1.0, "1"),
            (2.5, "2.5"),
            (0.25, "0.25"),
            (-0.5, "-0.5"),
            (1.9996, "2"),
            (1.0e30, "9223372036854775807"),
        ] {
            assert_eq!(Millis(ms).to_string(), text, "{ms}");
        }
    }

    use super::*;

    #[test]
    fn messages_are_clear() {
        let e = Error::rpc(ErrorObject::new(-32001, "no such session"));
        assert_eq!(
            e.to_string(),
            "server error -32001 (SessionNotFound): no such session"
        );
        assert_eq!(e.code(), Some(-32001));
        let e = Error::UnsupportedProtocolVersion {
            offered: vec!["0.3.0".into()],
            server_data: Some(UnsupportedProtocolVersionErrorData {
                supported_versions: vec!["0.1.0".into()],
                extra: Default::default(),
            }),
        };
        assert_eq!(
            e.to_string(),
            "the server supports none of the offered protocol versions [0.3.0]; it supports [0.1.0]"
        );
        assert_eq!(
            Error::Timeout {
                method: "ping".into(),
                timeout_ms: 30000.0,
            }
            .to_string(),
            "`ping` got no response within 30000 ms (requestTimeoutMs)"
        );
        let e = Error::WrongProtocolVersion {
            negotiated: "1.0.0".into(),
            version: "0.3.0".into(),
            attempted: "the action `session/turnStarted` on `ahp-chat:/1`".into(),
        };
        assert_eq!(
            e.to_string(),
            "the action `session/turnStarted` on `ahp-chat:/1` is AHP 0.3.0, but this connection \
             negotiated AHP 1.0.0: nothing was sent"
        );
        assert_eq!(e.kind(), "wrongProtocolVersion");
        let e: Box<dyn std::error::Error> = Box::new(Error::Closed);
        assert_eq!(e.to_string(), "the client is closed");
    }

    #[test]
    fn every_kind_has_its_error_class() {
        use crate::client::ERROR_CLASSES;
        use crate::protocol::errors::{INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION};
        let errors = [
            Error::rpc(ErrorObject::new(-32001, "no")),
            Error::Timeout {
                method: "m".into(),
                timeout_ms: 1.0,
            },
            Error::transport(TransportErrorKind::Send, "x"),
            Error::Closed,
            Error::UnsupportedProtocolVersion {
                offered: vec![],
                server_data: None,
            },
            Error::InvalidResponse {
                method: "m".into(),
                message: "x".into(),
            },
            Error::NotSubscribed {
                channel: "c".into(),
            },
            Error::WrongProtocolVersion {
                negotiated: "1.0.0".into(),
                version: "0.3.0".into(),
                attempted: "the command `m`".into(),
            },
        ];
        // A new variant fails to compile here: add it to `errors` (and its class to the table).
        for e in &errors {
            match e {
                Error::Rpc { .. }
                | Error::Timeout { .. }
                | Error::Transport { .. }
                | Error::Closed
                | Error::UnsupportedProtocolVersion { .. }
                | Error::InvalidResponse { .. }
                | Error::NotSubscribed { .. }
                | Error::WrongProtocolVersion { .. } => {}
            }
        }
        let mut kinds: Vec<&str> = errors.iter().map(Error::kind).collect();
        let mut client_kinds: Vec<&str> = ERROR_CLASSES
            .iter()
            .filter(|c| c.client)
            .map(|c| c.kind)
            .collect();
        kinds.sort_unstable();
        client_kinds.sort_unstable();
        assert_eq!(kinds, client_kinds);
        for e in &errors {
            let class = ERROR_CLASSES.iter().find(|c| c.kind == e.kind()).unwrap();
            // A fixed code is the error's code; the others have the server's or none.
            if let Some(code) = class.code {
                assert_eq!(e.code(), Some(code), "{}", class.name);
            }
        }
        let code_of = |name: &str| ERROR_CLASSES.iter().find(|c| c.name == name).unwrap().code;
        assert_eq!(code_of("InvalidInputError"), Some(INVALID_PARAMS));
        assert_eq!(
            code_of("UnsupportedProtocolVersionError"),
            Some(UNSUPPORTED_PROTOCOL_VERSION)
        );
    }
}
