//! `frame`: arbitrary bytes as one text frame, through every decoder that meets untrusted
//! frames: the host's pre-parse depth scan, `Incoming::parse`, `decode_params` for every
//! command's params type, `ActionEnvelope` decoding, and the client engine's fast paths for
//! canonical `action` / `session/delta` frames.
//!
//! Properties:
//! - `json_depth_within` is exact on valid JSON (it is the host's only guard before parsing);
//! - `Incoming::parse` accepts only JSON objects with `"jsonrpc":"2.0"`, reports a parse error
//!   only for text that is not JSON, and the error frame answered for a rejected frame parses;
//! - `decode_params::<T>` succeeds exactly when plain serde does, fails with `INVALID_PARAMS`,
//!   and whatever it decodes serializes and decodes back to the same value;
//! - the engine's fast paths, on whatever they accept, agree exactly with the general path.

use ahp_host::security::json_depth_within;
use ahp_wasm::client::engine::fast_path;
use ahp_wasm::protocol::decode::Decode;
use ahp_wasm::protocol::jsonrpc::{self, decode_params, Command, Incoming, RequestId};
use ahp_wasm::protocol::RawJson;
use ahp_wasm::protocol::{errors, ActionEnvelope, DispatchActionParams, UnsubscribeParams};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Serialize;
use serde_json::Value;
use std::fmt::Debug;

/// The host's default `max_json_depth`.
const MAX_DEPTH: usize = 64;

/// The frame target.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return; // WebSocket text frames are UTF-8; the host answers binary frames itself
    };
    check_depth(text);
    check_frame(text);
    check_fast_paths(text);
    check_fast_paths_v1(text);
    // The same text as the params of an `action` notification: reaches the fast paths and the
    // envelope decoder without the fuzzer having to find the frame's prefix first.
    let wrapped = format!(r#"{{"jsonrpc":"2.0","method":"action","params":{text}}}"#);
    check_frame(&wrapped);
    check_fast_paths(&wrapped);
    check_fast_paths_v1(&wrapped);
}

/// The nesting depth of JSON text as parsed: scalars 0, `[]` 1, `[[]]` 2. Counted while
/// parsing, so the values of repeated keys count too (a `Value` keeps only the last one).
struct Depth(usize);

impl<'de> serde::Deserialize<'de> for Depth {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DepthVisitor)
    }
}

struct DepthVisitor;

impl<'de> serde::de::Visitor<'de> for DepthVisitor {
    type Value = Depth;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_str<E>(self, _: &str) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_unit<E>(self) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Depth, A::Error> {
        let mut inner = 0;
        while let Some(Depth(d)) = seq.next_element()? {
            inner = inner.max(d);
        }
        Ok(Depth(1 + inner))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Depth, A::Error> {
        let mut inner = 0;
        while let Some((IgnoredAny, Depth(d))) = map.next_entry()? {
            inner = inner.max(d);
        }
        Ok(Depth(1 + inner))
    }
}

fn check_depth(text: &str) {
    let Ok(Depth(d)) = serde_json::from_str::<Depth>(text) else {
        return; // malformed JSON may pass the scan: the parser rejects it
    };
    assert!(
        json_depth_within(text, d),
        "depth scan rejects valid JSON of depth {d} at limit {d}"
    );
    if d > 0 {
        assert!(
            !json_depth_within(text, d - 1),
            "depth scan accepts valid JSON of depth {d} at limit {}",
            d - 1
        );
    }
}

/// What the host does with a text frame, and the checks on each decoder.
fn check_frame(text: &str) {
    if !json_depth_within(text, MAX_DEPTH) {
        return; // the host answers with an error without parsing
    }
    let value = serde_json::from_str::<Value>(text);
    match Incoming::parse(text) {
        Err(e) => {
            assert!(
                e.code == errors::PARSE_ERROR || e.code == errors::INVALID_REQUEST,
                "unexpected frame error code {}",
                e.code
            );
            if e.code == errors::PARSE_ERROR {
                assert!(value.is_err(), "parse error on valid JSON: {e}");
            }
            // The error frame the host answers with is itself a valid response.
            let reply = jsonrpc::error_text(
                e.id.as_ref(),
                &jsonrpc::ErrorObject::new(e.code, e.message.clone()),
            );
            match Incoming::parse(&reply) {
                Ok(Incoming::Response {
                    id,
                    outcome: Err(err),
                }) => {
                    assert_eq!(id, e.id);
                    assert_eq!(err.code, e.code);
                    assert_eq!(err.message, e.message);
                }
                other => panic!("error reply does not parse back: {other:?}\n{reply}"),
            }
        }
        Ok(incoming) => {
            assert!(
                serde_json::from_str::<IgnoredAny>(text).is_ok(),
                "Incoming::parse accepted text that is not JSON"
            );
            // Valid JSON that `Value` cannot hold (a number like `1e999` in the still-raw
            // params): the decoders below reject it; the member checks need the value.
            let empty = serde_json::Map::new();
            let value = value.ok();
            let object = match &value {
                Some(v) => v
                    .as_object()
                    .expect("Incoming::parse accepted a non-object"),
                None => &empty,
            };
            if value.is_some() {
                assert_eq!(object.get("jsonrpc"), Some(&Value::from("2.0")));
            }
            match incoming {
                Incoming::Request { id, method, params } => {
                    if value.is_some() {
                        assert_eq!(object.get("method"), Some(&Value::from(method)));
                        let wire_id = serde_json::to_value(&id).expect("id serializes");
                        assert_eq!(object.get("id"), Some(&wire_id));
                    }
                    let reply = jsonrpc::result_text(&id, &jsonrpc::EmptyResult);
                    match Incoming::parse(&reply) {
                        Ok(Incoming::Response {
                            id: Some(back),
                            outcome: Ok(_),
                        }) => assert_eq!(back, id),
                        other => panic!("result reply does not parse back: {other:?}"),
                    }
                    check_all_params(params);
                }
                Incoming::Notification { method, params } => {
                    if value.is_some() {
                        assert_eq!(object.get("method"), Some(&Value::from(method)));
                        assert!(matches!(object.get("id"), None | Some(Value::Null)));
                    }
                    check_all_params(params);
                }
                Incoming::Response { id, outcome } => {
                    assert!(object.get("method").is_none_or(Value::is_null));
                    if let (Some(id), Some(_)) = (&id, &value) {
                        let wire_id = serde_json::to_value(id).expect("id serializes");
                        assert_eq!(object.get("id"), Some(&wire_id));
                    }
                    if let Err(error) = outcome {
                        round_trip(&error);
                    }
                }
            }
        }
    }
}

/// Serializes `value` and decodes it back: the same value.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: &T) {
    let text = serde_json::to_string(value).expect("a decoded value serializes");
    match serde_json::from_str::<T>(&text) {
        Ok(back) => assert_eq!(&back, value, "round trip changed the value: {text}"),
        Err(e) => panic!(
            "{} does not decode its own output: {e}\n{text}",
            std::any::type_name::<T>()
        ),
    }
}

fn check_params<T: Serialize + Decode + DeserializeOwned + PartialEq + Debug>(
    params: Option<RawJson<'_>>,
) {
    let decoded = decode_params::<T>(params);
    // Through serde: `serde_json`'s own parse into a `Value`, then the decoder on its text.
    let plain = serde_json::from_str::<T>(params.map_or("null", RawJson::get));
    match (decoded, plain) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b);
            round_trip(&a);
        }
        (Err(e), Err(_)) => assert_eq!(e.code, errors::INVALID_PARAMS),
        (a, b) => panic!(
            "decode_params and serde disagree on {}: {a:?} vs {b:?}",
            std::any::type_name::<T>()
        ),
    }
}

fn check_command<C: Command>(params: Option<RawJson<'_>>)
where
    C::Params: PartialEq + Debug,
{
    check_params::<C::Params>(params);
}

/// Every params type the host or the engine decodes from a peer.
fn check_all_params(params: Option<RawJson<'_>>) {
    use jsonrpc::*;
    check_params::<DispatchActionParams>(params);
    check_params::<UnsubscribeParams>(params);
    check_params::<ActionEnvelope>(params);
    check_command::<Initialize>(params);
    check_command::<Reconnect>(params);
    check_command::<Ping>(params);
    check_command::<Subscribe>(params);
    check_command::<CreateSession>(params);
    check_command::<DisposeSession>(params);
    check_command::<ListSessions>(params);
    check_command::<FetchTurns>(params);
    check_command::<ResourceRead>(params);
    check_command::<ResourceWrite>(params);
    check_command::<ResourceList>(params);
    check_command::<ResourceCopy>(params);
    check_command::<ResourceDelete>(params);
    check_command::<ResourceMove>(params);
    check_command::<ResourceResolve>(params);
    check_command::<ResourceMkdir>(params);
    check_command::<ResourceRequest>(params);
    check_command::<CreateResourceWatch>(params);
    check_command::<Authenticate>(params);
    check_command::<Completions>(params);
    check_command::<ResolveSessionConfig>(params);
    check_command::<SessionConfigCompletions>(params);
    check_command::<CreateTerminal>(params);
    check_command::<DisposeTerminal>(params);
    check_command::<InvokeChangesetOperation>(params);
}

/// What the engine's general path makes of an `action` frame.
fn general_action(text: &str) -> Option<ActionEnvelope> {
    match Incoming::parse(text).ok()? {
        Incoming::Notification { method, params } if method == jsonrpc::methods::ACTION => {
            decode_params::<ActionEnvelope>(params).ok()
        }
        _ => None,
    }
}

fn check_fast_paths(text: &str) {
    // Decoding into the envelope of an earlier delta (as the engine does) gives the same.
    let earlier = r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/earlier","action":{"type":"session/delta","turnId":"turn-1","partId":"part-1","content":"earlier text"},"serverSeq":1,"origin":{"clientId":"c","clientSeq":1}}}"#;
    assert!(fast_path::canonical_action(earlier).is_some());
    assert_eq!(
        fast_path::canonical_action_after(earlier, text),
        fast_path::canonical_action(text),
        "decoding into an earlier envelope differs on {text:?}"
    );
    if let Some(fast) = fast_path::canonical_action(text) {
        let general = general_action(text);
        assert_eq!(
            Some(&fast),
            general.as_ref(),
            "the action fast path disagrees with the general path on {text:?}"
        );
    }
    if let Some((fast, used)) = fast_path::canonical_delta(text) {
        let prefix = text
            .get(..used)
            .expect("the delta fast path used a prefix that is not a str boundary");
        let general = serde_json::from_str::<ActionEnvelope>(prefix).ok();
        assert_eq!(
            Some(&fast),
            general.as_ref(),
            "the delta fast path disagrees with serde on {prefix:?}"
        );
    }
}

/// What the engine's general path makes of an `action` frame on a 1.0 connection.
fn general_action_v1(text: &str) -> Option<ahp_wasm::protocol::v1::ActionEnvelope> {
    match Incoming::parse(text).ok()? {
        Incoming::Notification { method, params } if method == jsonrpc::methods::ACTION => {
            decode_params::<ahp_wasm::protocol::v1::ActionEnvelope>(params).ok()
        }
        _ => None,
    }
}

/// [`check_fast_paths`] on a 1.0 connection, for `text` with its 0.3.0 delta type made 1.0's
/// (the seeds' deltas are 0.3.0's, so the fuzzer reaches the 1.0 scan from them too).
fn check_fast_paths_v1(text: &str) {
    let text = &text.replace("session/delta", "chat/delta");
    let earlier = r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-chat:/earlier","action":{"type":"chat/delta","turnId":"turn-1","partId":"part-1","content":"earlier text"},"serverSeq":1,"origin":{"clientId":"c","clientSeq":1}}}"#;
    assert!(fast_path::canonical_action_v1(earlier).is_some());
    assert_eq!(
        fast_path::canonical_action_after_v1(earlier, text),
        fast_path::canonical_action_v1(text),
        "decoding into an earlier 1.0 envelope differs on {text:?}"
    );
    if let Some(fast) = fast_path::canonical_action_v1(text) {
        assert_eq!(
            Some(&fast),
            general_action_v1(text).as_ref(),
            "the 1.0 action fast path disagrees with the general path on {text:?}"
        );
    }
    if let Some((fast, used)) = fast_path::canonical_delta_v1(text) {
        let prefix = text
            .get(..used)
            .expect("the 1.0 delta fast path used a prefix that is not a str boundary");
        // 1.0's wire types decode with the product's decoder only (no serde `Deserialize`).
        let general =
            ahp_wasm::protocol::decode::from_text::<ahp_wasm::protocol::v1::ActionEnvelope>(prefix)
                .ok();
        assert_eq!(
            Some(&fast),
            general.as_ref(),
            "the 1.0 delta fast path disagrees with the decoder on {prefix:?}"
        );
    }
}

/// A request frame, for seeds.
pub fn request(id: i64, method: &str, params: &Value) -> String {
    jsonrpc::request_text(RequestId::Number(id), method, params)
}
