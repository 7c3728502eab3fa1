//! A small, honest AHP server for tests: channels of one state type reduced with the real
//! reducers, a global `serverSeq`, a bounded replay log, one connection at a time. A rejection
//! rule makes some actions fail (for terminals: `terminal/data` containing `!`).
#![allow(dead_code)]

pub mod world;

use ahp_wasm::protocol::jsonrpc::{self, decode_params, ErrorObject, Incoming, RequestId};
use ahp_wasm::protocol::{
    errors, ActionEnvelope, ActionOrigin, DispatchActionParams, InitializeParams, ReconnectParams,
    StateAction, SubscribeParams, TerminalState,
};
use ahp_wasm::reduce::FixedClock;
use ahp_wasm::sync::ChannelState;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

pub const FOREIGN: &str = "someone-else";

/// Why the server refuses an action, if it does.
pub type RejectRule = fn(&StateAction) -> Option<String>;

pub struct SimServer<S: ChannelState = TerminalState> {
    pub seq: u64,
    pub channels: BTreeMap<String, S>,
    /// The server's clock for reducers.
    pub clock: f64,
    reject: RejectRule,
    /// Envelopes kept for replay (oldest first); at most `window`.
    log: VecDeque<ActionEnvelope>,
    pub window: usize,
    /// The connected client: its id and subscriptions (None: nobody connected).
    client: Option<(String, BTreeSet<String>)>,
    /// Frames for the connected client.
    pub outbox: VecDeque<String>,
    /// Counters, for tests that check which paths ran.
    pub replays: usize,
    pub snapshots: usize,
    /// Own actions received again with a `(clientId, clientSeq)` already seen: a client
    /// must never make the server apply an action twice.
    pub redelivered: usize,
    seen: BTreeSet<(String, u64)>,
}

pub fn terminal(title: &str) -> TerminalState {
    serde_json::from_value(json!({"title": title, "content": [],
        "claim": {"kind": "client", "clientId": "c"}}))
    .unwrap()
}

pub fn data(text: &str) -> StateAction {
    serde_json::from_value(json!({"type": "terminal/data", "data": text})).unwrap()
}

pub fn title(text: &str) -> StateAction {
    serde_json::from_value(json!({"type": "terminal/titleChanged", "title": text})).unwrap()
}

fn no_shouting(action: &StateAction) -> Option<String> {
    match action {
        StateAction::TerminalData(d) if d.data.contains('!') => Some("no shouting".to_string()),
        _ => None,
    }
}

impl SimServer<TerminalState> {
    /// Terminal channels; rejects `terminal/data` containing `!`.
    pub fn new(channels: &[&str], window: usize) -> Self {
        let states = channels.iter().map(|c| (c.to_string(), terminal(c)));
        SimServer::with_states(states, window, no_shouting)
    }
}

impl<S: ChannelState> SimServer<S> {
    pub fn with_states(
        states: impl IntoIterator<Item = (String, S)>,
        window: usize,
        reject: RejectRule,
    ) -> Self {
        SimServer {
            seq: 0,
            channels: states.into_iter().collect(),
            clock: 1000.0,
            reject,
            log: VecDeque::new(),
            window,
            client: None,
            outbox: VecDeque::new(),
            replays: 0,
            snapshots: 0,
            redelivered: 0,
            seen: BTreeSet::new(),
        }
    }

    /// The connection dropped: frames not yet delivered are lost.
    pub fn disconnect(&mut self) {
        self.client = None;
        self.outbox.clear();
    }

    /// Another client's action.
    pub fn foreign(&mut self, channel: &str, action: StateAction, client_seq: u64) {
        let origin = ActionOrigin {
            client_id: FOREIGN.into(),
            client_seq,
            extra: Default::default(),
        };
        self.apply(channel, action, Some(origin));
    }

    pub fn handle(&mut self, frame: &str) {
        let Ok(Incoming::Request { .. } | Incoming::Notification { .. }) = Incoming::parse(frame)
        else {
            return; // responses to our (nonexistent) requests, garbage
        };
        match Incoming::parse(frame).unwrap() {
            Incoming::Request { id, method, params } => {
                let result = match method {
                    "initialize" => self.initialize(decode_params(params)),
                    "reconnect" => self.reconnect(decode_params(params)),
                    "subscribe" => self.subscribe(decode_params(params)),
                    "ping" => Ok(json!({})),
                    _ => Err(ErrorObject::new(errors::METHOD_NOT_FOUND, method)),
                };
                self.respond(&id, result);
            }
            Incoming::Notification { method, params } => match method {
                "dispatchAction" => {
                    let Ok(p) = decode_params::<DispatchActionParams>(params) else {
                        return;
                    };
                    let client_id = self.client.as_ref().map(|c| c.0.clone()).unwrap();
                    if !self.seen.insert((client_id.clone(), p.client_seq)) {
                        self.redelivered += 1;
                    }
                    let origin = ActionOrigin {
                        client_id,
                        client_seq: p.client_seq,
                        extra: Default::default(),
                    };
                    self.apply(&p.channel, p.action, Some(origin));
                }
                "unsubscribe" => {
                    if let Ok(p) = decode_params::<SubscribeParams>(params) {
                        if let Some((_, subs)) = &mut self.client {
                            subs.remove(&p.channel);
                        }
                    }
                }
                _ => {}
            },
            Incoming::Response { .. } => {}
        }
    }

    fn respond(&mut self, id: &RequestId, result: Result<Value, ErrorObject>) {
        self.outbox.push_back(match result {
            Ok(v) => jsonrpc::result_text(id, &v),
            Err(e) => jsonrpc::error_text(Some(id), &e),
        });
    }

    fn snapshot(&self, channel: &str) -> Option<Value> {
        let state = self.channels.get(channel)?;
        Some(json!({"resource": channel, "state": state, "fromSeq": self.seq}))
    }

    fn initialize(
        &mut self,
        p: Result<InitializeParams, ErrorObject>,
    ) -> Result<Value, ErrorObject> {
        let p = p?;
        if !p.protocol_versions.iter().any(|v| v == "0.3.0") {
            return Err(ErrorObject {
                code: errors::UNSUPPORTED_PROTOCOL_VERSION,
                message: "unsupported".into(),
                data: Some(json!({"supportedVersions": ["0.3.0"]})),
            });
        }
        let subs: BTreeSet<String> = p
            .initial_subscriptions
            .unwrap_or_default()
            .into_iter()
            .filter(|c| self.channels.contains_key(c))
            .collect();
        let snapshots: Vec<Value> = subs.iter().filter_map(|c| self.snapshot(c)).collect();
        self.client = Some((p.client_id, subs));
        Ok(json!({"protocolVersion": "0.3.0", "serverSeq": self.seq, "snapshots": snapshots}))
    }

    fn reconnect(&mut self, p: Result<ReconnectParams, ErrorObject>) -> Result<Value, ErrorObject> {
        let p = p?;
        let (known, missing): (Vec<String>, Vec<String>) = p
            .subscriptions
            .into_iter()
            .partition(|c| self.channels.contains_key(c));
        let subs: BTreeSet<String> = known.into_iter().collect();
        let oldest = self.log.front().map_or(self.seq + 1, |e| e.server_seq);
        let result = if p.last_seen_server_seq + 1 >= oldest {
            self.replays += 1;
            let actions: Vec<&ActionEnvelope> = self
                .log
                .iter()
                .filter(|e| e.server_seq > p.last_seen_server_seq && subs.contains(&e.channel))
                .collect();
            json!({"type": "replay", "actions": actions, "missing": missing})
        } else {
            self.snapshots += 1;
            let snapshots: Vec<Value> = subs.iter().filter_map(|c| self.snapshot(c)).collect();
            json!({"type": "snapshot", "snapshots": snapshots})
        };
        self.client = Some((p.client_id, subs));
        Ok(result)
    }

    fn subscribe(&mut self, p: Result<SubscribeParams, ErrorObject>) -> Result<Value, ErrorObject> {
        let p = p?;
        let snapshot = self
            .snapshot(&p.channel)
            .ok_or_else(|| ErrorObject::new(errors::NOT_FOUND, "no such channel"))?;
        if let Some((_, subs)) = &mut self.client {
            subs.insert(p.channel);
        }
        Ok(json!({ "snapshot": snapshot }))
    }

    fn apply(&mut self, channel: &str, action: StateAction, origin: Option<ActionOrigin>) {
        let Some(state) = self.channels.get_mut(channel) else {
            return;
        };
        let rejection = (self.reject)(&action);
        if rejection.is_none() {
            state.reduce(&action, &FixedClock(self.clock));
        }
        self.seq += 1;
        let envelope = ActionEnvelope {
            channel: channel.to_string(),
            action,
            server_seq: self.seq,
            origin,
            rejection_reason: rejection,
            extra: Default::default(),
        };
        if let Some((client_id, subs)) = &self.client {
            let own = envelope
                .origin
                .as_ref()
                .is_some_and(|o| &o.client_id == client_id);
            let delivered = subs.contains(channel) && (envelope.rejection_reason.is_none() || own);
            if delivered {
                self.outbox.push_back(jsonrpc::notification_text(
                    jsonrpc::methods::ACTION,
                    &envelope,
                ));
            }
        }
        self.log.push_back(envelope);
        while self.log.len() > self.window {
            self.log.pop_front();
        }
    }
}
