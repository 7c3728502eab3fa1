//! The JavaScript error classes of the npm package, listed once.
//!
//! The classes themselves are written in `js/errors.js` and declared in `js/index.d.ts`;
//! `cargo run -p xtask -- codegen` writes every list of them from [`ERROR_CLASSES`] (the
//! package's exports in `js/error-classes.js`, `errorClasses()` and the kind-to-class map in
//! `js/errors.js`), and `codegen --check` fails unless both files define exactly these classes
//! with these `kind` and `code` values. A client error's class is the one of its
//! [`Error::kind`](super::Error::kind) (a test checks every kind has one).
//!
//! The xtask compiles this file on its own, so it refers to nothing else in the crate.

/// One error class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorClass {
    /// The class name (what `instanceof` tests).
    pub name: &'static str,
    /// Its `kind` (`AhpError`: the default; subclasses: always this one).
    pub kind: &'static str,
    /// Its `code` when fixed (`None`: none, or the server's).
    pub code: Option<i64>,
    /// Whether it stands for the client [`Error`](super::Error) of its kind.
    pub client: bool,
}

/// Every error class, base class first.
pub const ERROR_CLASSES: &[ErrorClass] = &[
    class("AhpError", "internal", None, false),
    class("InvalidInputError", "invalid-input", Some(-32602), false),
    class("RpcError", "rpc", None, true),
    class("RpcTimeoutError", "timeout", None, true),
    class("TransportError", "transport", None, true),
    class("ClientClosedError", "closed", None, true),
    class(
        "UnsupportedProtocolVersionError",
        "unsupportedProtocolVersion",
        Some(-32005),
        true,
    ),
    class("NotSubscribedError", "notSubscribed", None, true),
    class("InvalidResponseError", "invalidResponse", None, true),
    class(
        "WrongProtocolVersionError",
        "wrongProtocolVersion",
        None,
        true,
    ),
    class("ChannelUnavailableError", "channelUnavailable", None, false),
];

const fn class(
    name: &'static str,
    kind: &'static str,
    code: Option<i64>,
    client: bool,
) -> ErrorClass {
    ErrorClass {
        name,
        kind,
        code,
        client,
    }
}
