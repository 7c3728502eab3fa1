//! The table of outstanding requests: ids, deadlines, and why each was sent.

use litemap::LiteMap;

/// Why a request was sent: decides what its response does.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Purpose {
    /// An app request: the response goes back as an event.
    User,
    /// An app subscription: install the snapshot, then answer the app.
    Subscribe { channel: String },
    /// A re-subscription after a detected divergence.
    Resync { channel: String },
    /// The handshake; `resume`: a fallback after `reconnect` failed.
    Initialize { resume: bool },
    /// The reconnect handshake.
    Reconnect,
    /// A keep-alive `ping`.
    Keepalive,
}

#[derive(Debug)]
struct Outstanding {
    method: String,
    frame: String,
    deadline: f64,
    purpose: Purpose,
    /// Handed to the current connection (vs. queued until the handshake).
    sent: bool,
}

/// Outstanding requests by id (ids increase, so iteration is in issue order).
#[derive(Debug, Default)]
pub(super) struct Requests {
    next_id: u64,
    table: LiteMap<u64, Outstanding>,
}

impl Requests {
    /// A fresh id (ids start at 1 and never repeat, across connections).
    pub fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Whether `id` was ever issued.
    pub fn issued(&self, id: u64) -> bool {
        id >= 1 && id <= self.next_id
    }

    pub fn insert(
        &mut self,
        id: u64,
        method: String,
        frame: String,
        deadline: f64,
        purpose: Purpose,
        sent: bool,
    ) {
        self.table.insert(
            id,
            Outstanding {
                method,
                frame,
                deadline,
                purpose,
                sent,
            },
        );
    }

    /// The method of an outstanding request sent on this connection.
    pub fn sent_method(&self, id: u64) -> Option<&str> {
        self.table
            .get(&id)
            .filter(|o| o.sent)
            .map(|o| o.method.as_str())
    }

    /// Removes a request answered by the peer; only requests sent on this connection match.
    pub fn take(&mut self, id: u64) -> Option<Purpose> {
        if !self.table.get(&id)?.sent {
            return None;
        }
        self.table.remove(&id).map(|o| o.purpose)
    }

    pub fn next_deadline(&self) -> Option<f64> {
        self.table.values().map(|o| o.deadline).reduce(f64::min)
    }

    /// Removes and returns requests past their deadline.
    pub fn expire(&mut self, now: f64) -> Vec<(u64, String, Purpose)> {
        let due: Vec<u64> = self
            .table
            .iter()
            .filter(|(_, o)| o.deadline <= now)
            .map(|(&id, _)| id)
            .collect();
        due.into_iter()
            .filter_map(|id| self.table.remove(&id).map(|o| (id, o.method, o.purpose)))
            .collect()
    }

    /// The connection dropped: subscriptions go back to the queue (re-sent after the next
    /// handshake, with a fresh deadline); every other request that was sent is removed and
    /// returned (its response can no longer arrive).
    pub fn on_connection_lost(&mut self, new_deadline: f64) -> Vec<(u64, Purpose)> {
        let mut lost = Vec::new();
        for (&id, o) in self.table.iter_mut() {
            if !o.sent {
                continue;
            }
            match &o.purpose {
                Purpose::Subscribe { .. } | Purpose::Resync { .. } => {
                    o.sent = false;
                    o.deadline = new_deadline;
                }
                purpose => lost.push((id, purpose.clone())),
            }
        }
        self.table.retain(|_, o| !o.sent);
        lost
    }

    /// Marks every queued request sent and returns their frames, in issue order.
    pub fn take_unsent(&mut self) -> Vec<String> {
        self.table
            .iter_mut()
            .map(|(_, o)| o)
            .filter(|o| !o.sent)
            .map(|o| {
                o.sent = true;
                o.frame.clone()
            })
            .collect()
    }

    /// Whether a re-subscription of `channel` is outstanding.
    pub fn resync_in_flight(&self, channel: &str) -> bool {
        self.table
            .values()
            .any(|o| matches!(&o.purpose, Purpose::Resync { channel: c } if c == channel))
    }

    /// Removes everything.
    pub fn drain(&mut self) -> Vec<(u64, Purpose)> {
        std::mem::take(&mut self.table)
            .into_iter()
            .map(|(id, o)| (id, o.purpose))
            .collect()
    }
}
