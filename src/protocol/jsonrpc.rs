//! JSON-RPC 2.0 framing for AHP, and the table of AHP methods with their typed params/results.
//!
//! Every AHP message is one JSON-RPC message in one transport frame. [`Incoming::parse`]
//! classifies a frame without parsing its params (they stay raw until the handler for that
//! method decodes them with the right type), so a malformed or unknown message can be answered
//! with a precise error instead of dropping the connection.

use super::decode::{self, decode_object, Decode, DecodeError, Expected, Reader, Token};
use super::encode::{Encode, Writer};
use super::wire::JsonValue;
use super::RawJson;
use super::*;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The `jsonrpc` member of every message.
pub const JSONRPC_VERSION: &str = "2.0";

/// The channel URI of the root channel, where connection-level commands live.
pub const ROOT_CHANNEL: &str = "ahp-root://";

/// A request id: JSON-RPC allows numbers and strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A numeric id (what this crate sends).
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => f.write_str(&super::encode::to_text(s)),
        }
    }
}

/// The `error` member of a failed response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// A JSON-RPC or AHP error code (see [`super::errors`]).
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Structured details, e.g. `UnsupportedProtocolVersionErrorData`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<JsonValue>,
}

impl ErrorObject {
    /// An error without data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }
}

/// An outgoing request.
#[derive(Debug, Clone, Serialize)]
pub struct Request<'a, P: Serialize> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// Correlates the response.
    pub id: RequestId,
    /// The method name.
    pub method: &'a str,
    /// The parameters.
    pub params: &'a P,
}

/// An outgoing notification (no response expected).
#[derive(Debug, Clone, Serialize)]
pub struct Notification<'a, P: Serialize> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The method name.
    pub method: &'a str,
    /// The parameters.
    pub params: &'a P,
}

/// An outgoing response: exactly one of `result` and `error`.
#[derive(Debug, Clone, Serialize)]
pub struct Response<'a, R: Serialize> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The id of the request answered (`null` when the request could not be parsed).
    pub id: Option<&'a RequestId>,
    /// The result, on success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<&'a R>,
    /// The error, on failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a ErrorObject>,
}

/// Serializes a request frame.
pub fn request_text<P: Serialize>(id: RequestId, method: &str, params: &P) -> String {
    to_text(&Request {
        jsonrpc: JSONRPC_VERSION,
        id,
        method,
        params,
    })
}

/// A request frame, written by [`Encode`] (the text [`request_text`] writes by serde).
pub fn request_frame<P: Encode + ?Sized>(id: &RequestId, method: &str, params: &P) -> String {
    let mut writer = frame_head(Some(id));
    writer.key("\"method\":");
    writer.string(method);
    writer.key("\"params\":");
    params.encode(&mut writer);
    writer.end_object();
    writer.finish()
}

/// A notification frame, written by [`Encode`].
pub fn notification_frame<P: Encode + ?Sized>(method: &str, params: &P) -> String {
    let mut writer = Writer::default();
    writer.begin_object();
    writer.key("\"jsonrpc\":\"2.0\",\"method\":");
    writer.string(method);
    writer.key("\"params\":");
    params.encode(&mut writer);
    writer.end_object();
    writer.finish()
}

/// A success response frame, written by [`Encode`].
pub fn result_frame<R: Encode + ?Sized>(id: &RequestId, result: &R) -> String {
    let mut writer = frame_head(Some(id));
    writer.key("\"result\":");
    result.encode(&mut writer);
    writer.end_object();
    writer.finish()
}

/// An error response frame, written by [`Encode`].
pub fn error_frame(id: Option<&RequestId>, error: &ErrorObject) -> String {
    let mut writer = frame_head(id);
    writer.key("\"error\":");
    error.encode(&mut writer);
    writer.end_object();
    writer.finish()
}

/// `{"jsonrpc":"2.0","id":...` (`null` without an id), the object left open.
fn frame_head(id: Option<&RequestId>) -> Writer {
    let mut writer = Writer::default();
    writer.begin_object();
    writer.key("\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        Some(id) => id.encode(&mut writer),
        None => writer.null(),
    }
    writer
}

/// Serializes a notification frame.
pub fn notification_text<P: Serialize>(method: &str, params: &P) -> String {
    to_text(&Notification {
        jsonrpc: JSONRPC_VERSION,
        method,
        params,
    })
}

/// Serializes a success response frame.
pub fn result_text<R: Serialize>(id: &RequestId, result: &R) -> String {
    to_text(&Response {
        jsonrpc: JSONRPC_VERSION,
        id: Some(id),
        result: Some(result),
        error: None,
    })
}

/// Serializes an error response frame (`id` is `None` when the request was unparseable).
pub fn error_text(id: Option<&RequestId>, error: &ErrorObject) -> String {
    to_text(&Response::<()> {
        jsonrpc: JSONRPC_VERSION,
        id,
        result: None,
        error: Some(error),
    })
}

fn to_text<T: Serialize>(value: &T) -> String {
    // Serializing these types cannot fail: no maps with non-string keys, no failing impls.
    serde_json::to_string(value).unwrap_or_else(|e| {
        format!(r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32603,"message":"serialization failed: {e}"}}}}"#)
    })
}

/// One incoming frame, classified; params and results stay raw until decoded for their method.
#[derive(Debug)]
pub enum Incoming<'a> {
    /// A request: answer it with the same id.
    Request {
        /// The id to answer with.
        id: RequestId,
        /// The method name.
        method: &'a str,
        /// Raw params, if any.
        params: Option<RawJson<'a>>,
    },
    /// A notification.
    Notification {
        /// The method name.
        method: &'a str,
        /// Raw params, if any.
        params: Option<RawJson<'a>>,
    },
    /// A response to one of our requests.
    Response {
        /// The id of our request (`None` if the peer could not parse it).
        id: Option<RequestId>,
        /// `Ok(raw result)` or the error object.
        outcome: Result<RawJson<'a>, ErrorObject>,
    },
}

/// Why a frame is not a valid JSON-RPC message, with the error code to answer with.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameError {
    /// `-32700` (not JSON) or `-32600` (JSON but not a valid message).
    pub code: i64,
    /// What is wrong.
    pub message: String,
    /// The request id, when one could be recovered (so the error response can carry it).
    pub id: Option<RequestId>,
    /// Whether the frame is an answer (it has no `method`): then `id` names the request it
    /// answers, which a client fails at once rather than waiting for its timeout.
    pub response: bool,
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for FrameError {}

/// The members of a message, as read; checked by [`Incoming::parse`].
#[derive(Default)]
struct RawMessage<'a> {
    jsonrpc: Option<&'a str>,
    id: Option<RawJson<'a>>,
    method: Option<&'a str>,
    params: Option<RawJson<'a>>,
    result: Option<RawJson<'a>>,
    error: Option<RawJson<'a>>,
}

impl<'a> RawMessage<'a> {
    /// Reads the members of the object in `text` (others are checked and skipped).
    fn read(text: &'a str) -> Result<Self, DecodeError> {
        let mut reader = Reader::new(text);
        let mut message = RawMessage::default();
        reader.begin_object(Expected::Words("a JSON-RPC message (an object)"))?;
        while let Some(key) = reader.next_key()? {
            let member = match &*key {
                "jsonrpc" => borrowed_str(&mut reader).map(|s| message.jsonrpc = Some(s)),
                // Borrowed: a method name with JSON escapes is refused (no AHP method has one).
                "method" => borrowed_str(&mut reader).map(|s| message.method = Some(s)),
                "id" => raw(&mut reader).map(|r| message.id = r),
                "params" => raw(&mut reader).map(|r| message.params = r),
                // `null` is a result (a command with no payload, such as `ping`), not its absence.
                "result" => reader
                    .raw_value()
                    .map(|text| message.result = Some(RawJson::from_checked(text))),
                "error" => raw(&mut reader).map(|r| message.error = r),
                _ => reader.skip_value(),
            };
            member.map_err(|e| e.at_key(&key))?;
        }
        reader.finish()?;
        Ok(message)
    }
}

/// A string member without escapes, borrowed from the frame.
fn borrowed_str<'a>(reader: &mut Reader<'a>) -> Result<&'a str, DecodeError> {
    let start = reader.offset();
    match reader.str()? {
        std::borrow::Cow::Borrowed(s) => Ok(s),
        std::borrow::Cow::Owned(_) => Err(DecodeError::new("a string with escapes", start)),
    }
}

/// A member's raw value; `null` counts as absent (as `Option`'s serde default did).
fn raw<'a>(reader: &mut Reader<'a>) -> Result<Option<RawJson<'a>>, DecodeError> {
    if reader.null()? {
        return Ok(None);
    }
    reader
        .raw_value()
        .map(|text| Some(RawJson::from_checked(text)))
}

/// The `id` of a message whose other members do not decode, when it has a valid one.
fn id_only(text: &str) -> Option<RequestId> {
    let mut reader = Reader::new(text);
    reader.begin_object(Expected::Object).ok()?;
    let mut id = None;
    while let Some(key) = reader.next_key().ok()? {
        if key == "id" {
            id = raw(&mut reader).ok()?;
        } else {
            reader.skip_value().ok()?;
        }
    }
    reader.finish().ok()?;
    id?.decode().ok()
}

impl Encode for RequestId {
    fn encode(&self, writer: &mut Writer) {
        match self {
            RequestId::Number(n) => writer.integer(*n),
            RequestId::String(s) => writer.string(s),
        }
    }
}

impl Encode for ErrorObject {
    fn encode(&self, writer: &mut Writer) {
        writer.begin_object();
        writer.key("\"code\":");
        writer.integer(self.code);
        writer.key("\"message\":");
        writer.string(&self.message);
        if let Some(data) = &self.data {
            writer.key("\"data\":");
            data.encode(writer);
        }
        writer.end_object();
    }
}

impl Decode for RequestId {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        match reader.peek()? {
            Token::Number => reader.signed().map(RequestId::Number),
            Token::String => String::decode(reader).map(RequestId::String),
            _ => Err(reader.mismatch(Expected::Words("a number or a string"))),
        }
    }
}

decode_object!(ErrorObject {
    code: "code",
    message: "message",
    data: "data" = None,
});

impl<'a> Incoming<'a> {
    /// Classifies one frame; the result borrows from `text`.
    pub fn parse(text: &'a str) -> Result<Incoming<'a>, FrameError> {
        let raw = RawMessage::read(text).map_err(|e| {
            if e.is_syntax() {
                FrameError {
                    code: errors::PARSE_ERROR,
                    message: format!("invalid JSON: {e}"),
                    id: None,
                    response: false,
                }
            } else {
                FrameError {
                    code: errors::INVALID_REQUEST,
                    message: format!("not a JSON-RPC message: {e}"),
                    // Valid JSON with a bad member (e.g. a non-string `method`): the error
                    // still answers the request's id when that one is valid.
                    id: id_only(text),
                    response: false,
                }
            }
        })?;
        let id = match raw.id {
            None => None,
            Some(value) => Some(value.decode::<RequestId>().map_err(|_| FrameError {
                code: errors::INVALID_REQUEST,
                message: "`id` must be a number or a string".into(),
                id: None,
                response: false,
            })?),
        };
        let response = raw.method.is_none();
        let invalid = |message: &str, id: Option<RequestId>| FrameError {
            code: errors::INVALID_REQUEST,
            message: message.to_string(),
            id,
            response,
        };
        if raw.jsonrpc != Some(JSONRPC_VERSION) {
            return Err(invalid("`jsonrpc` must be \"2.0\"", id));
        }
        let error = match raw.error.map(RawJson::decode::<ErrorObject>).transpose() {
            Ok(error) => error,
            Err(e) => {
                let message = format!("not a JSON-RPC message: {e} (in `error`)");
                return Err(invalid(&message, id));
            }
        };
        match (raw.method, raw.result, error) {
            (Some(method), None, None) => Ok(match id {
                Some(id) => Incoming::Request {
                    id,
                    method,
                    params: raw.params,
                },
                None => Incoming::Notification {
                    method,
                    params: raw.params,
                },
            }),
            (None, Some(result), None) => Ok(Incoming::Response {
                id,
                outcome: Ok(result),
            }),
            (None, None, Some(error)) => Ok(Incoming::Response {
                id,
                outcome: Err(error),
            }),
            _ => Err(invalid(
                "a message needs exactly one of `method`, `result` or `error`",
                id,
            )),
        }
    }
}

/// Decodes raw params (absent params decode as `null`), naming the offending field on failure.
pub fn decode_params<T: Decode>(params: Option<RawJson<'_>>) -> Result<T, ErrorObject> {
    let text = params.map_or("null", RawJson::get);
    decode::from_text(text).map_err(|e| {
        let path = e.path();
        let message = if path.is_root() {
            format!("invalid params: {}", e.message())
        } else {
            format!("invalid params at `{path}`: {}", e.message())
        };
        ErrorObject::new(errors::INVALID_PARAMS, message)
    })
}

/// An AHP request method with its parameter and result types.
pub trait Command {
    /// The JSON-RPC method name.
    const METHOD: &'static str;
    /// The `params` type.
    type Params: Serialize + Encode + Decode + serde::de::DeserializeOwned;
    /// The `result` type.
    type Result: Serialize + Encode + Decode + serde::de::DeserializeOwned;
}

/// The result of commands that return nothing: `{}` on the wire, and any value is accepted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EmptyResult;

impl Serialize for EmptyResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        s.serialize_map(Some(0))?.end()
    }
}

impl<'de> Deserialize<'de> for EmptyResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| EmptyResult)
    }
}

impl Encode for EmptyResult {
    fn encode(&self, writer: &mut Writer) {
        writer.begin_object();
        writer.end_object();
    }
}

impl Decode for EmptyResult {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        reader.skip_value().map(|()| EmptyResult)
    }
}

/// The result of `reconnect`: the missed envelopes, or fresh snapshots when the gap is too big.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ReconnectResult {
    /// `type: "replay"`.
    Replay(ReconnectReplayResult),
    /// `type: "snapshot"`.
    Snapshot(ReconnectSnapshotResult),
}

impl Encode for ReconnectResult {
    fn encode(&self, writer: &mut Writer) {
        match self {
            ReconnectResult::Replay(result) => result.encode(writer),
            ReconnectResult::Snapshot(result) => result.encode(writer),
        }
    }
}

/// The first shape the value decodes as, as serde's `untagged` would.
impl Decode for ReconnectResult {
    fn decode(reader: &mut Reader<'_>) -> Result<Self, DecodeError> {
        decode::first_fitting(
            reader,
            &[
                |text| decode::from_text(text).ok().map(ReconnectResult::Replay),
                |text| decode::from_text(text).ok().map(ReconnectResult::Snapshot),
            ],
            "a replay or a snapshot reconnect result",
        )
    }
}

impl<'de> Deserialize<'de> for ReconnectResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        decode::deserialize(deserializer)
    }
}

#[cfg(target_arch = "wasm32")]
pub(crate) use super::command_table::command_call;
pub(crate) use super::command_table::for_each_command;
pub use super::command_table::{CommandCall, CommandInfo, COMMANDS};

/// The `Command` marker types and [`REQUEST_METHODS`], from a command table (this module's, and
/// `protocol::v1::jsonrpc`'s from the 1.0 table): the rows' types resolve where it expands.
macro_rules! command_markers {
    ($($call:ident $marker:ident = $method:literal => $rust_name:ident($params:ident) -> $result:ident, $doc:literal;)*) => {
        $(
            #[doc = $doc]
            #[derive(Debug, Clone, Copy)]
            pub struct $marker;
            impl Command for $marker {
                const METHOD: &'static str = $method;
                type Params = $params;
                type Result = result_type!($result);
            }
        )*
        /// Every request method name of the table.
        pub const REQUEST_METHODS: &[&str] = &[$($method),*];
    };
}

/// A row's result type: `void` is [`EmptyResult`].
macro_rules! result_type {
    (void) => {
        EmptyResult
    };
    ($result:ident) => {
        $result
    };
}

pub(crate) use {command_markers, result_type};

for_each_command!(command_markers);

/// Notification method names, and the server's protocol notifications (a file of its own,
/// without dependencies: the xtask reads it to write `NotificationMap` into `js/index.d.ts`).
#[path = "methods.rs"]
pub mod methods;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn the_protocol_notifications_are_the_schemas() {
        let schema: serde_json::Value = serde_json::from_str(include_str!(
            "../../protocol/ahp-0.3.0/schema/notifications.schema.json"
        ))
        .unwrap();
        let arms: Vec<&str> = schema["$defs"]["ProtocolNotification"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|arm| arm["$ref"].as_str().unwrap().trim_start_matches("#/$defs/"))
            .collect();
        let mut ours: Vec<&str> = methods::PROTOCOL_NOTIFICATIONS
            .iter()
            .map(|n| n.params)
            .collect();
        let mut theirs = arms.clone();
        ours.sort_unstable();
        theirs.sort_unstable();
        assert_eq!(ours, theirs);
        assert!(methods::is_protocol_notification("auth/required"));
        assert!(!methods::is_protocol_notification("notifications/message"));
    }

    #[test]
    fn a_bad_member_still_answers_the_valid_id() {
        for (text, id) in [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":42}"#,
                Some(RequestId::Number(7)),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"x","method":["ping"]}"#,
                Some(RequestId::String("x".into())),
            ),
            (r#"{"jsonrpc":"2.0","id":{"no":1},"method":42}"#, None),
            (r#"{"jsonrpc":"2.0","method":42}"#, None),
        ] {
            let e = Incoming::parse(text).unwrap_err();
            assert_eq!(e.code, errors::INVALID_REQUEST, "{text}");
            assert_eq!(e.id, id, "{text}");
        }
        // Not JSON at all: no id to recover.
        assert_eq!(Incoming::parse(r#"{"id":7,"#).unwrap_err().id, None);
    }

    #[test]
    fn classifies_frames() {
        let req = Incoming::parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"channel":"ahp-root://"}}"#,
        )
        .unwrap();
        assert!(matches!(
            req,
            Incoming::Request {
                id: RequestId::Number(1),
                method: "ping",
                params: Some(_)
            }
        ));
        let note = Incoming::parse(r#"{"jsonrpc":"2.0","method":"action","params":{}}"#).unwrap();
        assert!(matches!(
            note,
            Incoming::Notification {
                method: "action",
                ..
            }
        ));
        let ok = Incoming::parse(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#).unwrap();
        assert!(matches!(
            ok,
            Incoming::Response {
                id: Some(RequestId::String(_)),
                outcome: Ok(_)
            }
        ));
        // A `null` result is a result (`ping` carries no payload), `null` alone.
        let null = Incoming::parse(r#"{"jsonrpc":"2.0","id":3,"result":null}"#).unwrap();
        assert!(matches!(
            null,
            Incoming::Response {
                id: Some(RequestId::Number(3)),
                outcome: Ok(r)
            } if r.get() == "null"
        ));
        assert!(Incoming::parse(
            r#"{"jsonrpc":"2.0","id":3,"result":null,"error":{"code":1,"message":"x"}}"#
        )
        .is_err());
        let err =
            Incoming::parse(r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32005,"message":"no"}}"#)
                .unwrap();
        assert!(matches!(
            err,
            Incoming::Response {
                outcome: Err(ErrorObject { code: -32005, .. }),
                ..
            }
        ));
    }

    #[test]
    fn rejects_bad_frames_with_the_right_code() {
        assert_eq!(
            Incoming::parse("{not json").unwrap_err().code,
            errors::PARSE_ERROR
        );
        assert_eq!(
            Incoming::parse("[1,2]").unwrap_err().code,
            errors::INVALID_REQUEST
        );
        let e = Incoming::parse(r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#).unwrap_err();
        assert_eq!(
            (e.code, e.id),
            (errors::INVALID_REQUEST, Some(RequestId::Number(4)))
        );
        let e =
            Incoming::parse(r#"{"jsonrpc":"2.0","id":4,"method":"ping","result":1}"#).unwrap_err();
        assert_eq!(e.code, errors::INVALID_REQUEST);
        assert!(Incoming::parse(r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#).is_err());
    }

    #[test]
    fn decode_params_names_the_field() {
        let raw = RawJson::from_text(r#"{"channel":"ahp-root://","clientSeq":"one","action":{}}"#)
            .unwrap();
        let e = decode_params::<DispatchActionParams>(Some(raw)).unwrap_err();
        assert_eq!(e.code, errors::INVALID_PARAMS);
        assert!(e.message.contains("clientSeq"), "{}", e.message);
    }

    #[test]
    fn the_command_table_is_consistent() {
        assert_consistent(COMMANDS, REQUEST_METHODS);
    }

    /// A table's rows and method list agree, no method twice, the names follow the method.
    pub(crate) fn assert_consistent(commands: &[CommandInfo], request_methods: &[&str]) {
        assert_eq!(request_methods.len(), commands.len());
        for (i, command) in commands.iter().enumerate() {
            let method = command.method;
            assert_eq!(request_methods[i], method);
            assert!(
                commands[..i].iter().all(|c| c.method != method),
                "`{method}` twice"
            );
            // The names follow the method: createSession, CreateSession, create_session.
            let pascal = method[..1].to_uppercase() + &method[1..];
            let snake: String = method
                .chars()
                .flat_map(|c| match c.is_ascii_uppercase() {
                    true => vec!['_', c.to_ascii_lowercase()],
                    false => vec![c],
                })
                .collect();
            assert_eq!(command.marker, pascal);
            assert_eq!(command.params, format!("{pascal}Params"));
            assert_eq!(command.rust_name, snake);
        }
    }

    #[test]
    fn frames_by_encode_are_frames_by_serde() {
        let params = serde_json::json!({"channel": ROOT_CHANNEL, "x": [1, "\"q\"", 2.5]});
        let text = params.to_string();
        let raw = RawJson::from_text(&text).unwrap();
        for id in [RequestId::Number(3), RequestId::String("a\"b".into())] {
            let by_serde = request_text(id.clone(), "ping", &params);
            assert_eq!(request_frame(&id, "ping", &raw), by_serde);
            assert_eq!(request_frame(&id, "ping", &params), by_serde);
            assert_eq!(result_frame(&id, &params), result_text(&id, &params));
            let error = ErrorObject {
                code: -32602,
                message: "bad \n".into(),
                data: Some(params.clone()),
            };
            assert_eq!(
                error_frame(Some(&id), &error),
                error_text(Some(&id), &error)
            );
        }
        assert_eq!(
            notification_frame("m/x", &params),
            notification_text("m/x", &params)
        );
        let error = ErrorObject::new(-32700, "no");
        assert_eq!(error_frame(None, &error), error_text(None, &error));
    }

    #[test]
    fn frames_serialize() {
        let text = request_text(
            RequestId::Number(7),
            Ping::METHOD,
            &PingParams {
                channel: ROOT_CHANNEL.into(),
                extra: Default::default(),
            },
        );
        assert_eq!(
            text,
            r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{"channel":"ahp-root://"}}"#
        );
        assert_eq!(
            result_text(&RequestId::Number(7), &EmptyResult),
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#
        );
        let e = error_text(None, &ErrorObject::new(errors::PARSE_ERROR, "bad"));
        assert_eq!(
            e,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#
        );
    }
}
