//! Incoming frames: responses matched to requests, envelopes batched per channel,
//! notifications and server requests surfaced as events.

use super::channels::Channels;
use super::events::{Event, ServerNotification, ServerRequest, ServerRequestId};
use super::fast_delta::{DeltaEnvelope, DeltaPrefix};
use super::requests::Purpose;
use super::versions::{RawSnapshot, V0_3};
use super::{ConnectionState, Engine};
use crate::client::Error;
use crate::protocol::decode::decode_object;
use crate::protocol::decode::{Decode, Reader};
use crate::protocol::errors;
use crate::protocol::jsonrpc::{
    self, decode_params, Command, ErrorObject, FrameError, Incoming, RequestId,
};
use crate::protocol::{ActionEnvelope, SubscribeParams};
use crate::protocol::{RawJson, RawJsonBuf};

struct RawSubscribeResult {
    snapshot: Option<RawSnapshot>,
}

decode_object!(RawSubscribeResult {
    snapshot: "snapshot" = None,
});

/// Envelopes received in one call, in arrival order; applied per channel (channels in order
/// of first appearance) when flushed. One flat list, kept by the engine between calls so that
/// routing a frame allocates nothing.
#[derive(Default)]
pub(super) struct Batch {
    envelopes: Vec<ActionEnvelope>,
    /// A delta envelope already applied, kept to decode the next canonical delta into: its
    /// strings are reused, so a stream of deltas is decoded without allocating.
    spare: Option<ActionEnvelope>,
    /// A 1.0 connection's envelopes, as `envelopes`.
    #[cfg(feature = "v1")]
    pub(super) envelopes_v1: Vec<crate::protocol::v1::ActionEnvelope>,
    /// The same as `spare` for a 1.0 connection.
    #[cfg(feature = "v1")]
    spare_v1: Option<crate::protocol::v1::ActionEnvelope>,
    /// What the last canonical delta began with (see [`DeltaPrefix`]).
    prefix: DeltaPrefix,
}

/// A spare envelope keeps its strings' capacity: past this many bytes of content it is dropped.
const SPARE_MAX_BYTES: usize = 4096;

impl Batch {
    pub fn push(&mut self, envelope: ActionEnvelope) {
        self.envelopes.push(envelope);
    }

    /// Empties the batch, keeping one small delta envelope as the spare.
    fn clear(&mut self) {
        keep_spare(&mut self.spare, &mut self.envelopes);
        self.envelopes.clear();
        #[cfg(feature = "v1")]
        {
            keep_spare(&mut self.spare_v1, &mut self.envelopes_v1);
            self.envelopes_v1.clear();
        }
    }
}

/// Moves a small delta envelope of `envelopes` (applied) into `spare` if it is empty.
pub(super) fn keep_spare<E: DeltaEnvelope>(spare: &mut Option<E>, envelopes: &mut Vec<E>) {
    if spare.is_none() {
        let small_delta = |e: &E| e.delta_capacity().is_some_and(|c| c <= SPARE_MAX_BYTES);
        if let Some(i) = envelopes.iter().rposition(small_delta) {
            *spare = Some(envelopes.swap_remove(i));
        }
    }
}

const FRAME_EXCERPT: usize = 200;

/// How `action` notifications start when serialized member by member in spec order, as
/// `JSON.stringify` and the Rust host write them.
const ACTION_PREFIX: &str = r#"{"jsonrpc":"2.0","method":"action","params":"#;

/// The fast path for the most frequent frame: an `action` notification in canonical form
/// (`ACTION_PREFIX`, the envelope, `}`) is decoded in one pass, without first splitting the
/// frame into raw members. Anything else (another member order, extra members, a malformed
/// envelope) returns `None` and takes the general path, which reports errors.
///
/// A canonical delta is decoded into `spare` (an envelope to reuse, taken) when there is one.
pub(super) fn canonical_action<E: DeltaEnvelope + Decode>(
    text: &str,
    spare: &mut Option<E>,
    prefix: &mut DeltaPrefix,
) -> Option<E> {
    if !crate::words::starts_with(text, ACTION_PREFIX) {
        return None;
    }
    let rest = &text[ACTION_PREFIX.len()..];
    let mut envelope = spare.take().unwrap_or_else(E::empty_delta);
    if let Some(used) = super::fast_delta::canonical_delta_into(rest, &mut envelope, prefix) {
        if closes_frame(&rest[used..]) {
            return Some(envelope);
        }
        *spare = Some(envelope);
        return None;
    }
    *spare = Some(envelope);
    let mut reader = Reader::new(rest);
    let envelope = E::decode(&mut reader).ok()?;
    closes_frame(&rest[reader.offset()..]).then_some(envelope)
}

/// Whether `tail` is the `}` that ends the frame, with only JSON white space around it (not
/// `str::trim`'s Unicode white space, which JSON does not allow and whose tables the fast
/// path would link alone).
fn closes_frame(tail: &str) -> bool {
    let json_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let mut bytes = tail.bytes();
    bytes.by_ref().find(|b| !json_space(b)) == Some(b'}') && bytes.all(|b| json_space(&b))
}

impl Engine {
    /// Handles one incoming frame (a batch of one).
    pub fn handle_frame(&mut self, text: &str, now: f64) {
        self.handle_frames([text], now);
    }

    /// Handles frames received together: envelopes are applied per channel as one batch, so
    /// each channel reports at most one [`Event::ChannelChanged`] (more only when a response
    /// that touches the channel's state splits the batch).
    pub fn handle_frames<I, T>(&mut self, frames: I, now: f64)
    where
        I: IntoIterator<Item = T>,
        T: AsRef<str>,
    {
        if self.state == ConnectionState::Closed {
            return;
        }
        // Boxed: taking it out (to lend it beside `self`) moves a pointer, not the batch
        // with its spare envelopes.
        let mut batch = self.batch.take().unwrap_or_default();
        self.last_rx = now;
        for frame in frames {
            self.handle_one(frame.as_ref(), &mut batch, now);
        }
        self.flush_batch(&mut batch, now);
        self.batch = Some(batch); // empty, with its capacity
    }

    fn handle_one(&mut self, text: &str, batch: &mut Batch, now: f64) {
        // The fast path, in the connection's version.
        if !self.channels.is_v1() {
            if let Some(envelope) = canonical_action(text, &mut batch.spare, &mut batch.prefix) {
                return self.route_envelope(envelope, batch);
            }
        } else {
            #[cfg(feature = "v1")]
            if let Some(envelope) = canonical_action(text, &mut batch.spare_v1, &mut batch.prefix) {
                return self.route_envelope_v1(envelope, batch);
            }
        }
        let incoming = match Incoming::parse(text) {
            Ok(incoming) => incoming,
            Err(e) => {
                self.fail_unusable_answer(&e, now);
                return self.malformed(e.to_string(), text);
            }
        };
        match incoming {
            Incoming::Notification { method, params } if method == jsonrpc::methods::ACTION => {
                self.on_action_notification(params, text, batch)
            }
            Incoming::Notification { method, params } => {
                let decoded = match self.channels.is_v1() {
                    #[cfg(feature = "v1")]
                    true => super::events::ServerNotificationV1::decode(method, params).map(|n| {
                        Event::NotificationV1 {
                            notification: Box::new(n),
                            params: params.map(RawJson::to_owned),
                        }
                    }),
                    _ => ServerNotification::decode(method, params)
                        .map(|n| Event::Notification(Box::new(n))),
                };
                match decoded {
                    Ok(event) => self.events.push_back(event),
                    Err(e) => self.malformed(format!("bad `{method}`: {}", e.message), text),
                }
            }
            Incoming::Request { id, method, params } => {
                if self.handled_methods.contains_key(method) {
                    self.events.push_back(Event::ServerRequest(ServerRequest {
                        id: ServerRequestId {
                            id,
                            epoch: self.epoch,
                        },
                        method: method.to_string(),
                        params: params.map(RawJson::to_owned),
                    }));
                } else {
                    let error = ErrorObject::new(
                        errors::METHOD_NOT_FOUND,
                        format!("this client does not handle `{method}`"),
                    );
                    self.outgoing
                        .push_back(jsonrpc::error_frame(Some(&id), &error));
                }
            }
            Incoming::Response { id, outcome } => {
                let number = match id {
                    Some(RequestId::Number(n)) if n > 0 => n as u64,
                    _ => return self.malformed("a response to no request of ours".into(), text),
                };
                let Some(purpose) = self.requests.take(number) else {
                    if !self.requests.issued(number) {
                        self.malformed(format!("a response to unknown request id {number}"), text);
                    }
                    return; // a late answer to a request that timed out or was re-sent
                };
                if !matches!(purpose, Purpose::User) {
                    self.flush_batch(batch, now);
                }
                self.on_response(number, purpose, outcome, now);
            }
        }
    }

    /// An answer to a request of ours that is no JSON-RPC response (an `error` that is not an
    /// error object, both `result` and `error`, neither): the request fails at once with
    /// [`Error::InvalidResponse`], as a bad result does, rather than at its timeout.
    fn fail_unusable_answer(&mut self, e: &FrameError, now: f64) {
        let (true, Some(RequestId::Number(n))) = (e.response, &e.id) else {
            return;
        };
        let id = u64::try_from(*n).unwrap_or(0);
        let Some(method) = self.requests.sent_method(id).map(str::to_string) else {
            return;
        };
        let Some(purpose) = self.requests.take(id) else {
            return;
        };
        let error = Error::InvalidResponse {
            method,
            message: e.message.clone(),
        };
        match purpose {
            Purpose::User | Purpose::Subscribe { .. } => self.complete(id, Err(error)),
            Purpose::Initialize { .. } | Purpose::Reconnect => {
                self.events.push_back(Event::HandshakeFailed(error))
            }
            Purpose::Resync { channel } => {
                let reason = format!("re-subscribing failed: {error}");
                self.lose_channel(&channel, &reason, now)
            }
            Purpose::Keepalive => self.keepalive_in_flight = false,
        }
    }

    /// An `action` notification the fast path did not take: decoded in the negotiated version.
    #[cfg_attr(not(feature = "v0_3"), allow(unused_variables))] // `batch`: 0.3.0's
    fn on_action_notification(
        &mut self,
        params: Option<RawJson<'_>>,
        text: &str,
        batch: &mut Batch,
    ) {
        let routed = match self.channels {
            #[cfg(feature = "v0_3")]
            Channels::V0_3(_) => decode_params::<ActionEnvelope>(params)
                .map(|envelope| self.route_envelope(envelope, batch)),
            #[cfg(feature = "v1")]
            Channels::V1(_) => decode_params::<crate::protocol::v1::ActionEnvelope>(params)
                .map(|envelope| self.route_envelope_v1(envelope, batch)),
        };
        if let Err(e) = routed {
            self.malformed(format!("bad action envelope: {}", e.message), text);
        }
    }

    fn on_response(
        &mut self,
        id: u64,
        purpose: Purpose,
        outcome: Result<RawJson<'_>, ErrorObject>,
        now: f64,
    ) {
        match purpose {
            Purpose::User => {
                let result = outcome.map(RawJson::to_owned).map_err(Error::rpc);
                self.complete(id, result);
            }
            Purpose::Subscribe { channel } => {
                let result = self.on_subscribe_result(&channel, outcome, now);
                self.complete(id, result);
            }
            Purpose::Resync { channel } => {
                if let Err(e) = self.on_subscribe_result(&channel, outcome, now) {
                    self.lose_channel(&channel, &format!("re-subscribing failed: {e}"), now);
                }
            }
            Purpose::Initialize { resume } => self.on_initialize_result(outcome, resume, now),
            Purpose::Reconnect => self.on_reconnect_result(outcome, now),
            // Any answer, even an error, proves the connection alive.
            Purpose::Keepalive => self.keepalive_in_flight = false,
        }
    }

    fn on_subscribe_result(
        &mut self,
        channel: &str,
        outcome: Result<RawJson<'_>, ErrorObject>,
        now: f64,
    ) -> Result<RawJsonBuf, Error> {
        let raw = outcome.map_err(Error::rpc)?;
        let invalid = |message: String| Error::InvalidResponse {
            method: jsonrpc::Subscribe::METHOD.to_string(),
            message,
        };
        let result: RawSubscribeResult = raw.decode().map_err(|e| invalid(e.to_string()))?;
        match result.snapshot {
            Some(snapshot) => self
                .install_snapshot(channel, snapshot, now)
                .map_err(invalid)?,
            None => {
                self.stateless.insert(channel.to_string(), ());
            }
        }
        Ok(raw.to_owned())
    }

    /// Creates the channel's mirror from a snapshot, or resets it (keeping pending actions).
    pub(super) fn install_snapshot(
        &mut self,
        channel: &str,
        snapshot: RawSnapshot,
        now: f64,
    ) -> Result<(), String> {
        match self.channels {
            #[cfg(feature = "v0_3")]
            Channels::V0_3(_) => self.install_snapshot_in::<V0_3>(channel, snapshot, now),
            #[cfg(feature = "v1")]
            Channels::V1(_) => {
                self.install_snapshot_in::<super::versions::V1>(channel, snapshot, now)
            }
        }
    }

    pub(super) fn route_envelope(&mut self, envelope: ActionEnvelope, batch: &mut Batch) {
        self.last_seen_server_seq = self.last_seen_server_seq.max(envelope.server_seq);
        // Batched whatever its channel: applying the batch skips a channel we hold no mirror
        // for (one we just unsubscribed from, or never held state for), so the channel is
        // looked up once per batch, not also here per frame.
        batch.push(envelope);
    }

    /// Applies and empties the batch.
    /// The envelopes go to the mirrors mutably borrowed, so a rejected action is moved into its
    /// report, not cloned.
    pub(super) fn flush_batch(&mut self, batch: &mut Batch, now: f64) {
        // Only the negotiated version's batch can hold envelopes; the test makes a build of
        // one version leave the other's path out.
        if self.channels.is_v1() {
            #[cfg(feature = "v1")]
            self.flush_envelopes_in::<super::versions::V1>(&mut batch.envelopes_v1, now);
        } else {
            self.flush_envelopes_in::<V0_3>(&mut batch.envelopes, now);
        }
        batch.clear();
    }

    /// Re-subscribes to fetch a fresh snapshot (pending actions are kept and replayed on it).
    pub(super) fn resync(&mut self, channel: &str, now: f64) {
        if self.requests.resync_in_flight(channel) {
            return;
        }
        let params = SubscribeParams {
            channel: channel.to_string(),
            extra: Default::default(),
        };
        let purpose = Purpose::Resync {
            channel: channel.to_string(),
        };
        self.start_request(jsonrpc::Subscribe::METHOD, &params, purpose, now);
    }

    fn malformed(&mut self, message: String, frame: &str) {
        let frame = match frame.char_indices().nth(FRAME_EXCERPT) {
            Some((cut, _)) => format!("{}…", &frame[..cut]),
            None => frame.to_string(),
        };
        self.events.push_back(Event::Malformed { message, frame });
    }
}

#[cfg(test)]
mod fast_path_tests {
    use super::canonical_action;
    use super::DeltaPrefix;
    use crate::protocol::jsonrpc::{self, decode_params, Incoming};
    use crate::protocol::ActionEnvelope;

    const ENVELOPE: &str = r#"{"channel":"ahp-session:/s","action":{"type":"session/delta","turnId":"t","partId":"p","content":"a \"quoted\" }"},"serverSeq":7,"origin":{"clientId":"c","clientSeq":2}}"#;

    /// The fast path with nothing remembered from an earlier frame.
    fn fresh(text: &str) -> Option<ActionEnvelope> {
        canonical_action(text, &mut None, &mut DeltaPrefix::default())
    }

    fn general(text: &str) -> ActionEnvelope {
        match Incoming::parse(text).unwrap() {
            Incoming::Notification { method, params } => {
                assert_eq!(method, jsonrpc::methods::ACTION);
                decode_params(params).unwrap()
            }
            _ => panic!("a notification"),
        }
    }

    #[test]
    fn canonical_frames_decode_like_the_general_path() {
        let text = format!(r#"{{"jsonrpc":"2.0","method":"action","params":{ENVELOPE}}}"#);
        assert_eq!(fresh(&text), Some(general(&text)));
        let spaced =
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"action\",\"params\":{ENVELOPE} }}\n");
        assert_eq!(fresh(&spaced), Some(general(&spaced)));
    }

    /// Frames in an order where each one would show a leftover of the one before: an origin,
    /// then none; long strings, then short; an escape; a frame that fails half-way (its
    /// half-decoded envelope stays the spare); another action. Ten are canonical deltas.
    fn stream() -> [String; 12] {
        [
            format!(r#"{{"jsonrpc":"2.0","method":"action","params":{ENVELOPE}}}"#),
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"c","action":{"type":"session/delta","turnId":"t2","partId":"p","content":"x"},"serverSeq":8}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/other","action":{"type":"session/delta","turnId":"t","partId":"p","content":"a\nb"},"serverSeq":9,"origin":{"clientId":"c2","clientSeq":3}}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"d","action":{"type":"session/delta","turnId":"t","partId":"p","content":"y"},"serverSeq":01}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"e","action":{"type":"session/titleChanged","title":"T"},"serverSeq":10}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"f","action":{"type":"session/delta","turnId":"u","partId":"q","content":""},"serverSeq":11}}"#.to_string(),
            // The same start (channel, turn, part) again: taken from the one before, not
            // scanned; then a frame failing after it, then the start again.
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"f","action":{"type":"session/delta","turnId":"u","partId":"q","content":"more"},"serverSeq":12}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"f","action":{"type":"session/delta","turnId":"u","partId":"q","content":"\q"},"serverSeq":13}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"f","action":{"type":"session/delta","turnId":"u","partId":"q","content":"z"},"serverSeq":14,"origin":{"clientId":"c","clientSeq":4}}}"#.to_string(),
            // An escaped channel, twice (its start remembered with the unescaped value).
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"g\"h\u00e9","action":{"type":"session/delta","turnId":"u","partId":"q","content":"1"},"serverSeq":15}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"g\"h\u00e9","action":{"type":"session/delta","turnId":"u","partId":"q","content":"2"},"serverSeq":16}}"#.to_string(),
            // A start that only begins like the remembered one.
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":"g\"h\u00e9x","action":{"type":"session/delta","turnId":"u","partId":"q","content":"3"},"serverSeq":17}}"#.to_string(),
        ]
    }

    #[test]
    fn decoding_into_an_earlier_envelope_gives_what_a_fresh_decode_gives() {
        let frames = stream();
        let mut spare = None;
        let mut prefix = DeltaPrefix::default();
        let mut decoded = 0;
        for text in &frames {
            let fresh = fresh(text);
            let reused = canonical_action(text, &mut spare, &mut prefix);
            assert_eq!(reused, fresh, "{text}");
            if let Some(envelope) = reused {
                decoded += 1;
                assert_eq!(envelope, general(text), "{text}");
                spare = Some(envelope); // as the engine keeps the last delta envelope
            }
        }
        assert_eq!(
            decoded, 10,
            "all but the one with a leading zero and the bad escape"
        );
    }

    /// The same stream on a 1.0 connection (`chat/delta`, 1.0's envelope).
    #[cfg(feature = "v1")]
    #[test]
    fn a_1_0_stream_decodes_like_the_general_path() {
        use crate::protocol::v1::ActionEnvelope;
        let general_v1 = |text: &str| match Incoming::parse(text).unwrap() {
            Incoming::Notification { params, .. } => decode_params::<ActionEnvelope>(params).ok(),
            _ => panic!("a notification"),
        };
        let mut spare: Option<ActionEnvelope> = None;
        let mut prefix = DeltaPrefix::default();
        let mut decoded = 0;
        for text in stream().map(|t| t.replace("session/", "chat/")) {
            let fresh: Option<ActionEnvelope> =
                canonical_action(&text, &mut None, &mut DeltaPrefix::default());
            let reused = canonical_action(&text, &mut spare, &mut prefix);
            assert_eq!(reused, fresh, "{text}");
            if let Some(envelope) = reused {
                decoded += 1;
                assert_eq!(Some(&envelope), general_v1(&text).as_ref(), "{text}");
                spare = Some(envelope);
            }
        }
        assert_eq!(decoded, 10);
        // A 0.3.0 delta is not 1.0's canonical delta: the general path decodes it (or not).
        let text = &stream()[1];
        let fresh: Option<ActionEnvelope> =
            canonical_action(text, &mut None, &mut DeltaPrefix::default());
        assert_eq!(fresh, general_v1(text));
    }

    #[test]
    fn anything_else_takes_the_general_path() {
        for text in [
            // Another member order, an extra member, a request, trailing garbage, bad envelope.
            format!(r#"{{"method":"action","jsonrpc":"2.0","params":{ENVELOPE}}}"#),
            format!(r#"{{"jsonrpc":"2.0","method":"action","params":{ENVELOPE},"id":1}}"#),
            format!(r#"{{"jsonrpc":"2.0","method":"action","params":{ENVELOPE}}}x"#),
            format!(r#"{{"jsonrpc":"2.0","method":"action","params":{ENVELOPE}"#),
            // White space JSON does not allow, a second brace.
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"action\",\"params\":{ENVELOPE}\u{a0}}}"),
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"action\",\"params\":{ENVELOPE}}}\u{2028}"),
            format!(r#"{{"jsonrpc":"2.0","method":"action","params":{ENVELOPE}}} }}"#),
            "{\"jsonrpc\":\"2.0\",\"method\":\"action\",\"params\":{\"channel\":\"e\",\"action\":{\"type\":\"session/titleChanged\",\"title\":\"T\"},\"serverSeq\":10}\u{a0}}".to_string(),
            r#"{"jsonrpc":"2.0","method":"action","params":{"channel":1}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"actions","params":{}}"#.to_string(),
        ] {
            assert_eq!(fresh(&text), None, "{text}");
        }
    }
}
