//! [`Decode`]: how a request's result becomes a JS value (the driver's `settle` does it).

/// How a request's result becomes a JS value.
pub enum Decode {
    /// `JSON.parse` of the result; `void`: resolves `undefined`.
    Json { method: &'static str, void: bool },
    /// Any JSON (`request(method, params)`).
    Raw { method: String },
    /// `subscribe`: resolves the channel's `Subscription`.
    Subscribe { channel: String },
}

impl Decode {
    pub(super) fn method(&self) -> &str {
        match self {
            Decode::Json { method, .. } => method,
            Decode::Raw { method } => method,
            Decode::Subscribe { .. } => "subscribe",
        }
    }
}
