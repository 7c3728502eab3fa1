//! Durability of AHP 1.0 chats under SIGKILL: a real `ahp-host` process is killed with SIGKILL
//! (8 times, at moments a seed picks) while a 1.0 client streams turns in a session's default
//! chat and a second 1.0 client watches, and restarted on the same data directory each time.
//!
//! Checked after every restart:
//! - `serverSeq` is never reused: a fresh snapshot's `fromSeq` is at or above every `serverSeq`
//!   a client saw; one `serverSeq` never names two different envelopes; each client's
//!   `serverSeq`s strictly increase across restarts.
//! - What was seen committed survives: each turn whose `chat/turnComplete` a client saw is in
//!   the restarted host's chat with the same message and response; no turn is still active.
//! - Mirrors converge: the watcher `reconnect`s (its secret, its last seen `serverSeq`), takes
//!   the snapshots it is given, follows the next turn with the SDK's 1.0 reducers, and its
//!   mirrors of the session and the chat equal a fresh subscription's snapshots.
//!
//! Deterministic given the seed (printed; `AHP_DURABILITY_SEED` replays one): it picks the
//! messages and the kill moments; only the host's timing varies.

mod common;
#[path = "../../tests/support/split_mix.rs"]
mod split_mix;
mod v1_raw;

use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::{chat_reducer, session_reducer};
use common::*;
use serde_json::{json, Value};
use split_mix::SplitMix64;
use std::collections::BTreeMap;
use std::time::Duration;
use v1_raw::V1;

const TOKEN: &str = "durability-v1-test-token-0123456789";
const S: &str = "ahp-session:/durable";
const C: &str = "ahp-chat:/durable/default";
const KILLS: usize = 8;

fn seed() -> u64 {
    let seed = std::env::var("AHP_DURABILITY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    println!("durability_v1 seed: {seed} (AHP_DURABILITY_SEED={seed} replays it)");
    seed
}

/// Every envelope any client saw, by `serverSeq`: one number names one envelope.
#[derive(Default)]
struct Ledger {
    by_seq: BTreeMap<u64, Value>,
    /// Turns whose `chat/turnStarted` a client saw: id -> message.
    started: BTreeMap<String, String>,
    /// Turns whose `chat/turnComplete` a client saw: id -> response text, once read back.
    completed: BTreeMap<String, String>,
}

impl Ledger {
    fn record(&mut self, who: &str, envelope: &Value) {
        let seq = envelope["serverSeq"].as_u64().expect("a serverSeq");
        let mut same = envelope.clone();
        same.as_object_mut().unwrap().remove("origin");
        match self.by_seq.get(&seq) {
            Some(known) => assert_eq!(known, &same, "{who}: serverSeq {seq} names two envelopes"),
            None => {
                self.by_seq.insert(seq, same);
            }
        }
        let action = &envelope["action"];
        let turn_id = || action["turnId"].as_str().unwrap().to_owned();
        if envelope["channel"] == C && action["type"] == "chat/turnStarted" {
            let text = action["message"]["text"].as_str().unwrap().to_owned();
            self.started.insert(turn_id(), text);
        }
        if envelope["channel"] == C && action["type"] == "chat/turnComplete" {
            self.completed.entry(turn_id()).or_default();
        }
    }

    /// What `other` saw, too.
    fn merge(&mut self, who: &str, other: &Ledger) {
        for envelope in other.by_seq.values() {
            self.record(who, envelope);
        }
    }

    fn highest(&self) -> u64 {
        self.by_seq.keys().next_back().copied().unwrap_or(0)
    }
}

/// A raw 1.0 connection, its envelopes checked into the ledger as they come.
struct Peer {
    v: V1,
    /// The last `serverSeq` it saw.
    seen: u64,
    /// How much of `v.log` the ledger has taken.
    read: usize,
}

impl Peer {
    async fn connect(url: &str, client_id: &str) -> Peer {
        Peer {
            v: V1::connect_url(url, client_id).await,
            seen: 0,
            read: 0,
        }
    }

    /// The envelopes received since the last call, into the ledger: `serverSeq`s rise.
    fn absorb(&mut self, ledger: &mut Ledger) {
        let who = self.v.c.client_id.clone();
        for envelope in &self.v.log[self.read..] {
            let seq = envelope["serverSeq"].as_u64().unwrap();
            assert!(
                seq > self.seen,
                "{who}: serverSeq {seq} after {}: {envelope}",
                self.seen
            );
            self.seen = seq;
            ledger.record(&who, envelope);
        }
        self.read = self.v.log.len();
    }

    async fn subscribe(&mut self, channel: &str, ledger: &mut Ledger) -> Value {
        let snapshot = self.v.subscribe(channel).await;
        self.absorb(ledger);
        snapshot
    }

    async fn start_turn(&mut self, turn_id: &str, text: &str) {
        let action = json!({"type": "chat/turnStarted", "turnId": turn_id,
            "startedAt": "2026-01-01T00:00:00.000Z",
            "message": {"text": text, "origin": {"kind": "user"}}});
        self.v.dispatch(C, action).await;
    }

    /// Reads until the chat's turn `turn_id` completed (`true`) or the connection closed.
    async fn until_complete(&mut self, turn_id: &str, ledger: &mut Ledger) -> bool {
        let read = async {
            while let Some(frame) = self.v.try_frame().await {
                let action = &frame["params"]["action"];
                if action["type"] == "chat/turnComplete" && action["turnId"] == turn_id {
                    return true;
                }
            }
            false
        };
        let done = tokio::time::timeout(WAIT, read)
            .await
            .unwrap_or_else(|_| panic!("turn {turn_id} neither completed nor was cut"));
        self.absorb(ledger);
        done
    }

    /// Reads for `time` (or until the connection closes).
    async fn read_for(&mut self, time: Duration, ledger: &mut Ledger) {
        let _ =
            tokio::time::timeout(time, async { while self.v.try_frame().await.is_some() {} }).await;
        self.absorb(ledger);
    }
}

fn markdown(turn: &Value) -> String {
    let parts = turn["responseParts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    parts
        .iter()
        .filter(|p| p["kind"] == "markdown")
        .filter_map(|p| p["content"].as_str().map(str::to_owned))
        .collect()
}

/// The SDK's 1.0 mirrors of the session and the chat, from snapshots and envelopes.
struct Mirror {
    session: v1::SessionState,
    chat: v1::ChatState,
}

impl Mirror {
    fn from_snapshots(session: &Value, chat: &Value) -> Mirror {
        Mirror {
            session: serde_json::from_value(session["state"].clone()).expect("a 1.0 session"),
            chat: serde_json::from_value(chat["state"].clone()).expect("a 1.0 chat"),
        }
    }

    fn apply(&mut self, envelopes: &[Value]) {
        for envelope in envelopes {
            let action: v1::StateAction =
                serde_json::from_value(envelope["action"].clone()).expect("a 1.0 action");
            match envelope["channel"].as_str() {
                Some(S) => drop(session_reducer(&mut self.session, &action)),
                Some(C) => drop(chat_reducer(&mut self.chat, &action)),
                _ => {}
            }
        }
    }
}

#[tokio::test]
async fn killed_hosts_keep_1_0_chats_and_never_reuse_a_server_seq() {
    let mut rng = SplitMix64(seed());
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let spawn = || HostProcess::spawn(data.path(), work.path(), TOKEN, &["--chunk-delay-ms", "5"]);
    let mut ledger = Ledger::default();

    let mut host = spawn();
    let mut writer = Peer::connect(&host.url(), "writer").await;
    writer.v.create_session(S).await;
    let mut watcher = Peer::connect(&host.url(), "watcher").await;
    watcher.subscribe(S, &mut ledger).await;
    watcher.subscribe(C, &mut ledger).await;
    writer.subscribe(C, &mut ledger).await;

    for round in 0..KILLS {
        // A turn or two that completes, then one the kill cuts at a moment the seed picks.
        for n in 0..=(rng.below(2)) {
            let id = format!("r{round}-done{n}");
            let text = format!("round {round}, turn {n}: {}", rng.below(1000));
            writer.start_turn(&id, &format!("{text}\n/long 20")).await;
            assert!(writer.until_complete(&id, &mut ledger).await);
            watcher.until_complete(&id, &mut ledger).await;
        }
        let cut = format!("r{round}-cut");
        writer.start_turn(&cut, "this one is cut\n/long 400").await;
        let wait = Duration::from_millis(20 + rng.below(400));
        // Both read at once (the writer's envelopes join the ledger after).
        let mut scratch = Ledger::default();
        tokio::join!(
            writer.read_for(wait, &mut scratch),
            watcher.read_for(wait, &mut ledger)
        );
        ledger.merge("writer", &scratch);
        host.kill_9();

        let highest = ledger.highest();

        host = spawn();
        let url = host.url();
        // A fresh client: the restarted host's numbers and state.
        let mut fresh = Peer::connect(&url, &format!("fresh-{round}")).await;
        fresh.subscribe(S, &mut ledger).await;
        let fresh_chat = fresh.subscribe(C, &mut ledger).await;
        let from = fresh_chat["fromSeq"].as_u64().unwrap();
        assert!(
            from >= highest,
            "round {round}: fromSeq {from} below seen {highest}"
        );
        let chat = &fresh_chat["state"];
        assert!(
            chat["activeTurn"].is_null(),
            "round {round}: a turn still active after a restart: {chat}"
        );
        let turns: BTreeMap<String, Value> = chat["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["id"].as_str().unwrap().to_owned(), t.clone()))
            .collect();
        for (id, response) in ledger.completed.iter_mut() {
            let turn = turns
                .get(id)
                .unwrap_or_else(|| panic!("round {round}: completed turn {id} lost: {chat}"));
            let text = &ledger.started[id];
            assert_eq!(
                turn["message"]["text"],
                text.as_str(),
                "round {round}: {turn}"
            );
            assert!(!markdown(turn).is_empty(), "round {round}: {turn}");
            if response.is_empty() {
                *response = markdown(turn);
            }
            assert_eq!(
                &markdown(turn),
                response,
                "round {round}: turn {id} changed"
            );
        }
        // The cut turn's start, once a client saw it, was committed: it is there, ended.
        let cut_seen = ledger.by_seq.values().any(|e| {
            e["action"]["type"] == "chat/turnStarted" && e["action"]["turnId"] == cut.as_str()
        });
        assert!(
            !cut_seen || turns.contains_key(&cut),
            "round {round}: the cut turn's start was seen but lost: {chat}"
        );

        // The watcher reconnects with what it saw, follows the next turn, and converges.
        let last = watcher.seen;
        watcher = {
            let (v, answer) =
                V1::reconnect(&url, "watcher", &watcher.v.secret, last, &[S, C]).await;
            let mut again = Peer {
                v,
                seen: last,
                read: 0,
            };
            again.absorb(&mut ledger);
            let result = &answer["result"];
            assert_eq!(result["type"], "snapshot", "round {round}: {answer}");
            let snapshots = result["snapshots"].as_array().unwrap();
            let by = |uri: &str| snapshots.iter().find(|s| s["resource"] == uri).cloned();
            let (session, chat) = (by(S).expect("the session"), by(C).expect("the chat"));
            for s in [&session, &chat] {
                let from = s["fromSeq"].as_u64().unwrap();
                assert!(
                    from >= last,
                    "round {round}: a snapshot from {from} < {last}"
                );
                again.seen = again.seen.max(from);
            }
            let mut mirror = Mirror::from_snapshots(&session, &chat);
            writer = Peer::connect(&url, &format!("writer-{round}")).await;
            writer.subscribe(C, &mut ledger).await;
            let next = format!("r{round}-after");
            writer.start_turn(&next, "after the restart").await;
            assert!(writer.until_complete(&next, &mut ledger).await);
            again.until_complete(&next, &mut ledger).await;
            again
                .read_for(Duration::from_millis(300), &mut ledger)
                .await;
            mirror.apply(&again.v.log);
            let session_now = fresh.subscribe(S, &mut ledger).await;
            let chat_now = fresh.subscribe(C, &mut ledger).await;
            let host_view = Mirror::from_snapshots(&session_now, &chat_now);
            assert_eq!(
                first_difference(
                    &serde_json::to_value(&mirror.chat).unwrap(),
                    &serde_json::to_value(&host_view.chat).unwrap()
                ),
                None,
                "round {round}: the watcher's chat mirror differs from the host's"
            );
            assert_eq!(
                first_difference(
                    &serde_json::to_value(&mirror.session).unwrap(),
                    &serde_json::to_value(&host_view.session).unwrap()
                ),
                None,
                "round {round}: the watcher's session mirror differs from the host's"
            );
            again
        };
    }
    host.kill_9();
}
