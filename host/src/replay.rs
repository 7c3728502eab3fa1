//! The bounded replay ring: the most recent broadcast `action` frames, for `reconnect`.
//!
//! Each entry keeps the exact frame that was sent (one shared allocation), so a replay copies
//! envelope text instead of serializing again. The ring is bounded by entry count and bytes.

use ahp_wasm::protocol::jsonrpc::RequestId;
use std::collections::{HashSet, VecDeque};
use std::fmt::Write;
use std::sync::Arc;

/// The fixed start of every `action` notification frame this host sends; the envelope follows
/// and one `}` closes the frame.
pub const ACTION_FRAME_PREFIX: &str = r#"{"jsonrpc":"2.0","method":"action","params":"#;

/// Builds an `action` frame around a serialized envelope.
pub fn action_frame(envelope_json: &str) -> Arc<str> {
    let mut s = String::with_capacity(ACTION_FRAME_PREFIX.len() + envelope_json.len() + 1);
    s.push_str(ACTION_FRAME_PREFIX);
    s.push_str(envelope_json);
    s.push('}');
    Arc::from(s)
}

/// The envelope JSON inside a frame built by [`action_frame`].
pub fn envelope_of(frame: &str) -> &str {
    &frame[ACTION_FRAME_PREFIX.len()..frame.len() - 1]
}

/// One replayable envelope.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its `serverSeq`.
    pub seq: u64,
    /// Its channel.
    pub channel: Arc<str>,
    /// The `action` frame.
    pub frame: Arc<str>,
    /// The frame clients without `capabilities.mcpApps` got, when it differs (see
    /// `mcp::apps::plain_action`).
    pub plain: Option<Arc<str>>,
}

impl Entry {
    /// The frame a client gets: `apps` when it declared `capabilities.mcpApps`.
    pub fn frame_for(&self, apps: bool) -> &Arc<str> {
        match &self.plain {
            Some(plain) if !apps => plain,
            _ => &self.frame,
        }
    }

    fn bytes(&self) -> usize {
        self.frame.len() + self.plain.as_ref().map_or(0, |p| p.len())
    }
}

/// Recent envelopes in `serverSeq` order.
#[derive(Debug)]
pub struct ReplayRing {
    entries: VecDeque<Entry>,
    bytes: usize,
    max_entries: usize,
    max_bytes: usize,
    /// Every envelope with a `serverSeq` above this is in the ring.
    floor: u64,
}

impl ReplayRing {
    /// An empty ring; envelopes up to `start_seq` (from before a restart) are not replayable.
    pub fn new(max_entries: usize, max_bytes: usize, start_seq: u64) -> ReplayRing {
        ReplayRing {
            entries: VecDeque::new(),
            bytes: 0,
            max_entries: max_entries.max(1),
            max_bytes,
            floor: start_seq,
        }
    }

    /// Appends an envelope (its `seq` must exceed every earlier one), evicting the oldest.
    pub fn push(&mut self, seq: u64, channel: Arc<str>, frame: Arc<str>, plain: Option<Arc<str>>) {
        let entry = Entry {
            seq,
            channel,
            frame,
            plain,
        };
        self.bytes += entry.bytes();
        self.entries.push_back(entry);
        while self.entries.len() > self.max_entries
            || (self.bytes > self.max_bytes && self.entries.len() > 1)
        {
            if let Some(old) = self.entries.pop_front() {
                self.bytes -= old.bytes();
                self.floor = old.seq;
            }
        }
    }

    /// Forgets every envelope up to `seq` and vouches for nothing at or below it: from now on a
    /// `reconnect` is replayed only from `seq` on.
    pub fn raise_floor(&mut self, seq: u64) {
        while self.entries.front().is_some_and(|e| e.seq <= seq) {
            if let Some(old) = self.entries.pop_front() {
                self.bytes -= old.bytes();
            }
        }
        self.floor = self.floor.max(seq);
    }

    /// The `serverSeq` of the newest envelope held (the floor when none is).
    pub fn newest(&self) -> u64 {
        self.entries.back().map_or(self.floor, |e| e.seq)
    }

    /// Whether every envelope after `last_seen` is still here (`current` is the newest seq).
    pub fn covers(&self, last_seen: u64, current: u64) -> bool {
        last_seen >= self.floor && last_seen <= current
    }

    /// The envelopes after `last_seen`, oldest first.
    pub fn since(&self, last_seen: u64) -> impl Iterator<Item = &Entry> {
        let start = self.entries.partition_point(|e| e.seq <= last_seen);
        self.entries.range(start..)
    }

    /// The `reconnect` response frame (a JSON-RPC result) replaying every envelope after
    /// `last_seen` on `resumed`, copied as sent, and naming `missing`.
    pub fn response(
        &self,
        id: &RequestId,
        last_seen: u64,
        resumed: &[String],
        missing: &[String],
        apps: bool,
    ) -> String {
        let resumed: HashSet<&str> = resumed.iter().map(String::as_str).collect();
        let mut text = String::with_capacity(256);
        let _ = write!(
            text,
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"type":"replay","actions":["#,
            serde_json::to_string(id).unwrap_or_else(|_| "null".into())
        );
        let mut first = true;
        for entry in self.since(last_seen) {
            if resumed.contains(&*entry.channel) {
                if !first {
                    text.push(',');
                }
                first = false;
                text.push_str(envelope_of(entry.frame_for(apps)));
            }
        }
        text.push_str(r#"],"missing":"#);
        text.push_str(&serde_json::to_string(missing).unwrap_or_else(|_| "[]".into()));
        text.push_str("}}");
        text
    }

    /// Number of envelopes held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the ring is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_ordered() {
        let mut ring = ReplayRing::new(3, usize::MAX, 10);
        let ch: Arc<str> = Arc::from("c");
        assert!(ring.covers(10, 10));
        assert!(!ring.covers(9, 10));
        for seq in 11..=15 {
            ring.push(seq, ch.clone(), action_frame("{}"), None);
        }
        assert_eq!(ring.len(), 3);
        assert!(!ring.covers(11, 15));
        assert!(ring.covers(12, 15));
        assert!(!ring.covers(16, 15));
        let seqs: Vec<u64> = ring.since(13).map(|e| e.seq).collect();
        assert_eq!(seqs, vec![14, 15]);
        assert_eq!(envelope_of(&ring.since(0).next().unwrap().frame), "{}");
    }

    #[test]
    fn byte_bound() {
        let frame = action_frame("{\"x\":1}");
        let mut ring = ReplayRing::new(100, frame.len() * 2, 0);
        for seq in 1..=5 {
            ring.push(seq, Arc::from("c"), frame.clone(), None);
        }
        assert_eq!(ring.len(), 2);
        assert!(ring.covers(3, 5));
    }

    #[test]
    fn raised_floor_drops_what_it_passes_and_never_lowers() {
        let frame = action_frame("{}");
        let mut ring = ReplayRing::new(3, usize::MAX, 0);
        for seq in 1..=3 {
            ring.push(seq, Arc::from("c"), frame.clone(), None);
        }
        ring.raise_floor(2);
        assert_eq!(ring.len(), 1);
        assert!(!ring.covers(1, 3));
        assert!(ring.covers(2, 3));
        // Evicting the last entry still held must not take the floor back below 2.
        for seq in 4..=6 {
            ring.push(seq, Arc::from("c"), frame.clone(), None);
        }
        assert!(ring.covers(3, 6));
        ring.raise_floor(1);
        assert!(ring.covers(3, 6));
    }
}
