//! The official clients as peers of one host (issue 34's checks). The `ahp` 1.0.0 client
//! connects through the official `ahp-ws` 1.0.0 transport (a real WebSocket, no Origin, the
//! token in the URL), and every frame it receives is checked strictly with `ahp-types` 1.0.0
//! (`strict`). It calls every method it has, and every 1.0 command, against `ahp-host`, each
//! succeeding (`methods`); it runs the whole sequence of a session, its default chat, a turn,
//! a second chat with a turn, a reconnect, and its mirror (the official reducers) of root,
//! session and both chats equals fresh snapshots (`sequence`); a `reconnect` replays exactly the
//! 1.0 envelopes it missed, or sends snapshots beyond the ring and after a restart (`replay`);
//! `authenticate` and
//! `invokeChangesetOperation` need a protected agent or a working directory (`guarded`). An
//! official 0.3.0 client (`ahp` 0.3.0) on the same session sees the default chat.

#[path = "../common/mod.rs"]
mod common;
#[path = "../v1_support/mod.rs"]
mod v1_support;

mod chat_changesets;
mod guarded;
mod input_needed;
mod methods;
mod replay;
mod sequence;
mod strict;

use ahp_types_v1::actions::{ActionEnvelope, StateAction};
use ahp_types_v1::state::{ChatState, RootState, SessionState, Snapshot, SnapshotState};
use ahp_v1::{Client, ClientConfig, ClientEvent, ClientEventStream, SubscriptionEvent};
use common::*;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use strict::{Checked, Strict};

const S: &str = "ahp-session:/peers";
const C: &str = "ahp-chat:/peers/default";
const ROOT: &str = "ahp-root://";

/// The official 1.0 client over `ahp-ws`, its frames checked strictly.
async fn connect(t: &TestHost) -> (Client, Arc<Mutex<Checked>>) {
    let inner = ahp_ws::WebSocketTransport::connect(&url_with_token(&t.host))
        .await
        .expect("ahp-ws connects to the host");
    let checked = Arc::new(Mutex::new(Checked::default()));
    let transport = Strict {
        inner,
        checked: checked.clone(),
    };
    let client = Client::connect(transport, ClientConfig::default())
        .await
        .expect("connected");
    (client, checked)
}

/// A client connected as `connect` does and initialized as `client_id`, offering 1.0.0 alone.
async fn connect_v1(t: &TestHost, client_id: &str) -> Client {
    let (client, _) = connect(t).await;
    client
        .initialize(client_id.into(), vec!["1.0.0".into()], vec![])
        .await
        .expect("initialize");
    client
}

async fn snapshot(client: &Client, uri: &str) -> Snapshot {
    let (result, _) = client.subscribe(uri.into()).await.expect("subscribe");
    result.snapshot.expect("a snapshot")
}

/// The official client's view of root, sessions and chats, reduced by the official reducers
/// from their snapshots (an envelope at or before a channel's snapshot or last reduced
/// envelope is in its state already).
struct Mirror {
    root: RootState,
    sessions: BTreeMap<String, SessionState>,
    chats: BTreeMap<String, ChatState>,
    /// Per channel, the `serverSeq` its state includes.
    from: HashMap<String, u64>,
    /// The highest `serverSeq` reduced (a reconnect's `lastSeenServerSeq`).
    last_seq: u64,
}

impl Mirror {
    async fn subscribe(client: &Client, sessions: &[&str], chats: &[&str]) -> Mirror {
        let root = snapshot(client, ROOT).await;
        let from = HashMap::from([(ROOT.to_owned(), seq(root.from_seq))]);
        let SnapshotState::Root(state) = root.state else {
            panic!("a root snapshot expected");
        };
        let mut mirror = Mirror {
            root: *state,
            sessions: BTreeMap::new(),
            chats: BTreeMap::new(),
            from,
            last_seq: 0,
        };
        for uri in sessions.iter().chain(chats) {
            mirror.add(client, uri).await;
        }
        mirror
    }

    /// Subscribes to `uri` and mirrors it from its snapshot.
    async fn add(&mut self, client: &Client, uri: &str) {
        self.replace(snapshot(client, uri).await);
    }

    /// Takes a snapshot as the channel's state.
    fn replace(&mut self, snapshot: Snapshot) {
        self.from
            .insert(snapshot.resource.clone(), seq(snapshot.from_seq));
        self.last_seq = self.last_seq.max(seq(snapshot.from_seq));
        match snapshot.state {
            SnapshotState::Root(root) => self.root = *root,
            SnapshotState::Session(session) => {
                self.sessions.insert(snapshot.resource, *session);
            }
            SnapshotState::Chat(chat) => {
                self.chats.insert(snapshot.resource, *chat);
            }
            other => panic!("a snapshot of {}: {other:?}", snapshot.resource),
        }
    }

    fn apply_envelope(&mut self, envelope: &ActionEnvelope) {
        assert!(
            envelope.rejection_reason.is_none(),
            "a rejection: {envelope:?}"
        );
        let channel = envelope.channel.as_str();
        if self
            .from
            .get(channel)
            .is_none_or(|from| envelope.server_seq <= *from)
        {
            return;
        }
        self.from.insert(channel.to_owned(), envelope.server_seq);
        self.last_seq = self.last_seq.max(envelope.server_seq);
        let action = &envelope.action;
        if channel == ROOT {
            drop(ahp_v1::reducers::apply_action_to_root(
                &mut self.root,
                action,
            ));
        } else if let Some(session) = self.sessions.get_mut(channel) {
            drop(ahp_v1::reducers::apply_action_to_session(session, action));
        } else if let Some(chat) = self.chats.get_mut(channel) {
            drop(ahp_v1::reducers::apply_action_to_chat(chat, action));
        }
    }

    fn apply(&mut self, event: &ClientEvent) {
        if let SubscriptionEvent::Action(envelope) = &event.event {
            self.apply_envelope(envelope);
        }
    }

    /// Applies events until none came for a while.
    async fn settle(&mut self, events: &mut ClientEventStream) {
        while let Ok(Some(event)) =
            tokio::time::timeout(Duration::from_millis(500), events.recv()).await
        {
            self.apply(&event);
        }
    }

    /// The chats `session` lists, in order.
    fn chat_uris(&self, session: &str) -> Vec<String> {
        let chats = &self.sessions[session].chats;
        chats.iter().map(|c| c.resource.clone()).collect()
    }

    /// Each mirrored channel and its state as JSON.
    fn json(&self) -> Vec<(String, Value)> {
        let root = (ROOT.to_owned(), serde_json::to_value(&self.root).unwrap());
        let sessions = self
            .sessions
            .iter()
            .map(|(uri, s)| (uri.clone(), serde_json::to_value(s).unwrap()));
        let chats = self
            .chats
            .iter()
            .map(|(uri, c)| (uri.clone(), serde_json::to_value(c).unwrap()));
        std::iter::once(root).chain(sessions).chain(chats).collect()
    }

    /// Asserts this mirror equals fresh snapshots of the same channels from `fresh`.
    async fn assert_hosts(&self, fresh: &Client) {
        let sessions: Vec<&str> = self.sessions.keys().map(String::as_str).collect();
        let chats: Vec<&str> = self.chats.keys().map(String::as_str).collect();
        let host = Mirror::subscribe(fresh, &sessions, &chats).await;
        let (mine, hosts) = (self.json(), host.json());
        assert_eq!(mine.len(), hosts.len());
        for ((uri, mine), (_, hosts)) in mine.iter().zip(&hosts) {
            assert_eq!(
                first_difference(mine, hosts),
                None,
                "the official mirror of {uri} differs from the host's"
            );
        }
    }
}

fn seq(from_seq: i64) -> u64 {
    u64::try_from(from_seq).expect("a non-negative fromSeq")
}

/// Applies `events` to `mirror` until the chat's turn `turn_id` completed.
async fn until_turn_complete(mirror: &mut Mirror, events: &mut ClientEventStream, turn_id: &str) {
    loop {
        let event = tokio::time::timeout(WAIT, events.recv())
            .await
            .expect("an event within the timeout")
            .expect("connected");
        mirror.apply(&event);
        if let SubscriptionEvent::Action(envelope) = &event.event {
            let action = serde_json::to_value(&envelope.action).unwrap();
            if action["type"] == "chat/turnComplete" && action["turnId"] == turn_id {
                return;
            }
        }
    }
}

fn turn_started(turn_id: &str, text: &str) -> StateAction {
    serde_json::from_value(json!({
        "type": "chat/turnStarted",
        "turnId": turn_id,
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": { "text": text, "origin": { "kind": "user" } },
    }))
    .expect("an official 1.0 action")
}

fn params<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("official params")
}
