//! The fan-out's AHP 1.0 subscribers: native clients offering 1.0.0, subscribed to the session's
//! default chat (`ahp-chat:/<id>/default`).
//!
//! The native client has no borrowed view of a 1.0 mirror (`Subscription::state_v1` copies the
//! state, and the active turn's text grows with every chunk), so a subscriber does not read its
//! chunks out of the mirror as the 0.3.0 ones do. Its connection is tapped instead: the tap
//! notes each `chat/delta`'s lines and where they end in the part's content, as the frame
//! reaches the client; the subscriber stamps receipt of every line that ends within the
//! content the mirror holds, which each change event's patch says (`AppendPartText`: the bytes
//! appended, in the content after the update). Receipt is thus still taken after the frame was
//! parsed, reduced and the change event delivered; the tap's scan of the frame is the extra
//! work. At the end of a run the tapped length is checked against the mirror's.

use super::{unix_micros, Seen};
use ahp_wasm::client::engine::ChannelEvent;
use ahp_wasm::client::native::{
    BoxFuture, BoxTransport, Connector, Subscription, SubscriptionEvent, WsConnector,
};
use ahp_wasm::client::transport::Transport;
use ahp_wasm::client::Error;
use ahp_wasm::protocol::v1::{ChatState, ResponsePart};
use ahp_wasm::sync::v1::AnyState;
use ahp_wasm::sync::PatchOp;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The default chat of session `uri` on ahp-host.
pub fn default_chat(session: &str) -> String {
    format!(
        "ahp-chat:/{}/default",
        session.strip_prefix("ahp-session:/").unwrap_or(session)
    )
}

/// What one subscriber's connection saw of the streamed part since the last [`Tap::reset`].
#[derive(Default)]
pub struct Tap(Mutex<Tapped>);

#[derive(Default)]
struct Tapped {
    /// The part the deltas append to (the first one seen).
    part: Option<String>,
    /// Bytes appended to it so far.
    bytes: usize,
    /// Complete lines `"<i> <emit µs>\n"` not yet received: (end offset, emit µs).
    lines: VecDeque<(usize, u64)>,
    /// Deltas to another part (the bench's turn streams into one).
    other_parts: usize,
}

impl Tap {
    /// Forgets the previous turn (before subscribing for the next run).
    pub fn reset(&self) {
        *self.0.lock().unwrap() = Tapped::default();
    }

    /// Notes the lines of a `chat/delta` frame. Cheap: it borrows the frame's own text (a
    /// stamped line's only escape is its `\n`), and is measured at the start ([`scan_cost`]).
    fn scan(&self, frame: &str) {
        let Some((part, content)) = delta_members(frame) else {
            return;
        };
        let mut t = self.0.lock().unwrap();
        match &t.part {
            Some(p) if p != part => {
                t.other_parts += 1;
                return;
            }
            Some(_) => {}
            None => t.part = Some(part.to_owned()),
        }
        let decoded;
        let plain = content
            .match_indices('\\')
            .all(|(at, _)| content[at + 1..].starts_with('n'));
        let (text, newline) = if plain {
            (content, "\\n")
        } else {
            decoded = serde_json::from_str::<String>(&format!("\"{content}\"")).unwrap_or_default();
            (decoded.as_str(), "\n")
        };
        let mut end = t.bytes;
        let mut rest = text;
        while let Some(at) = rest.find(newline) {
            let line = &rest[..at];
            end += line.len() + 1;
            let mut words = line.split(' ');
            if let (Some(i), Some(stamp), None) = (words.next(), words.next(), words.next()) {
                if let (Ok(_), Ok(stamp)) = (i.parse::<u64>(), stamp.parse::<u64>()) {
                    t.lines.push_back((end, stamp));
                }
            }
            rest = &rest[at + newline.len()..];
        }
        // A tail without a newline (never in the bench's stream) counts its decoded bytes.
        end += if newline == "\n" {
            rest.len()
        } else {
            rest.replace("\\n", "\n").len()
        };
        t.bytes = end;
    }

    /// Emit stamps of the lines within the first `held` bytes of the part.
    fn received(&self, held: usize, out: &mut Vec<u64>) {
        let mut t = self.0.lock().unwrap();
        while t.lines.front().is_some_and(|&(end, _)| end <= held) {
            out.extend(t.lines.pop_front().map(|(_, stamp)| stamp));
        }
    }

    fn waiting(&self) -> bool {
        !self.0.lock().unwrap().lines.is_empty()
    }

    /// Bytes tapped, and deltas to other parts.
    pub fn totals(&self) -> (usize, usize) {
        let t = self.0.lock().unwrap();
        (t.bytes, t.other_parts)
    }
}

/// The raw `partId` and `content` of a `chat/delta` frame. ahp-host writes an action's members
/// in alphabetical order (`content`, `partId`, `turnId`, `type`), which is looked at first;
/// any other order is found by search.
fn delta_members(frame: &str) -> Option<(&str, &str)> {
    const CONTENT: &str = "\"action\":{\"content\":\"";
    if let Some(at) = frame.find(CONTENT) {
        let content = raw_string(frame, at + CONTENT.len())?;
        let rest = frame[at + CONTENT.len() + content.len()..].strip_prefix("\",\"partId\":\"")?;
        let part = raw_string(rest, 0)?;
        let rest = rest[part.len()..].strip_prefix("\",\"turnId\":\"")?;
        let turn = raw_string(rest, 0)?;
        return rest[turn.len()..]
            .starts_with("\",\"type\":\"chat/delta\"")
            .then_some((part, content));
    }
    if !frame.contains("\"chat/delta\"") {
        return None;
    }
    Some((
        raw_member(frame, "\"partId\":\"")?,
        raw_member(frame, "\"content\":\"")?,
    ))
}

/// The raw text of the JSON string whose text starts at `start`, up to its closing quote.
fn raw_string(text: &str, start: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(&text[start..i]),
            _ => i += 1,
        }
    }
    None
}

/// The raw (still escaped) text of the JSON string after `key` (`"name":"`) in a compact frame.
fn raw_member<'a>(frame: &'a str, key: &str) -> Option<&'a str> {
    raw_string(frame, frame.find(key)? + key.len())
}

/// What the tap adds to a 1.0 subscriber's receipt of one chunk, in ns: a delta frame as
/// ahp-host sends it, scanned many times.
pub fn scan_cost() -> f64 {
    let tap = Tap::default();
    let rounds = 200_000u32;
    let frames: Vec<String> = (0..64)
        .map(|i| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"action","params":{{"action":{{"content":"{i} 1764669600123456\n","partId":"md-1","turnId":"turn-1764669600000000","type":"chat/delta"}},"channel":"ahp-chat:/fan-out-100/default","serverSeq":{}}}}}"#,
                1000 + i
            )
        })
        .collect();
    // CPU time of this thread, not wall time: the machine may be shared.
    let start = thread_cpu_ns();
    for r in 0..rounds {
        tap.scan(&frames[r as usize % frames.len()]);
        if r % 1024 == 0 {
            tap.reset();
        }
    }
    let ns = (thread_cpu_ns() - start) as f64 / rounds as f64;
    assert!(tap.totals().0 > 0, "the sample frames were tapped");
    ns
}

fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill in.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// WebSocket connections whose received frames go through a [`Tap`] first.
#[derive(Clone)]
pub struct TapConnector(pub Arc<Tap>);

struct TapTransport {
    inner: BoxTransport,
    tap: Arc<Tap>,
}

impl Transport for TapTransport {
    fn send(&mut self, frame: String) -> Result<(), Error> {
        self.inner.send(frame)
    }
    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<String, Error>>> {
        let polled = self.inner.poll_recv(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled {
            self.tap.scan(frame);
        }
        polled
    }
    fn close(&mut self) {
        self.inner.close()
    }
}

impl Connector for TapConnector {
    fn connect(&self, url: &str) -> BoxFuture<Result<BoxTransport, Error>> {
        let tap = self.0.clone();
        let url = url.to_owned();
        Box::pin(async move {
            let inner = WsConnector.connect(&url).await?;
            Ok(Box::new(TapTransport { inner, tap }) as BoxTransport)
        })
    }
}

/// The length of the streamed (last markdown) part of the chat's newest turn, from a copy of
/// the mirror: for changes whose patch does not say it (a turn ending in the same batch).
fn held_bytes(sub: &Subscription) -> usize {
    let Some(AnyState::Chat(chat)) = sub.state_v1() else {
        return 0;
    };
    stream_len(&chat)
}

fn stream_len(chat: &ChatState) -> usize {
    let parts = match (&chat.active_turn, chat.turns.last()) {
        (Some(t), _) => &t.response_parts,
        (None, Some(t)) => &t.response_parts,
        (None, None) => return 0,
    };
    parts
        .iter()
        .rev()
        .find_map(|p| match p {
            ResponsePart::Markdown(m) => Some(m.content.len()),
            _ => None,
        })
        .unwrap_or(0)
}

/// The 1.0 counterpart of `watch`: receipt of `count` chunks on the chat.
pub async fn watch(mut sub: Subscription, tap: Arc<Tap>, count: usize) -> Seen {
    let mut seen = Seen {
        latencies_us: Vec::with_capacity(count),
        first_emit_us: u64::MAX,
        last_receipt_us: 0,
    };
    let mut stamps = Vec::with_capacity(256);
    let deadline = Instant::now() + Duration::from_secs(300);
    while seen.latencies_us.len() < count {
        assert!(Instant::now() < deadline, "a 1.0 subscriber stalled");
        let held = match tokio::time::timeout(Duration::from_secs(5), sub.next_event()).await {
            Ok(Some(SubscriptionEvent::V1(event))) => match *event {
                ChannelEvent::Changed { patch, .. } => {
                    let appended = patch.ops.iter().filter_map(|op| match op {
                        PatchOp::AppendPartText { appended, .. } => Some(appended.end),
                        _ => None,
                    });
                    match appended.max() {
                        Some(end) => end,
                        None if tap.waiting() => held_bytes(&sub),
                        None => continue,
                    }
                }
                _ => continue,
            },
            Ok(Some(_)) => continue,
            Err(_) => held_bytes(&sub),
            Ok(None) => panic!("a 1.0 subscriber lost its connection"),
        };
        stamps.clear();
        tap.received(held, &mut stamps);
        if stamps.is_empty() {
            continue;
        }
        let now = unix_micros();
        for &t in &stamps {
            seen.first_emit_us = seen.first_emit_us.min(t);
            seen.latencies_us
                .push(now.saturating_sub(t).min(u32::MAX as u64) as u32);
        }
        seen.last_receipt_us = now;
    }
    let (tapped, other) = tap.totals();
    assert_eq!(other, 0, "the turn streamed into one part");
    assert_eq!(
        tapped,
        held_bytes(&sub),
        "the tapped deltas add up to the mirror's part"
    );
    seen
}
