//! Durability under SIGKILL: a real `ahp-host` process is killed with SIGKILL at random moments
//! (20 times) while three clients stream turns and dispatch actions — accepted ones and, on
//! purpose, ones the host rejects — and restarted on the same data directory each time.
//!
//! Checked after every restart:
//! - `serverSeq` never goes back: every envelope handed out after a restart (replayed or live)
//!   is above every envelope any client saw before it, accepted or rejected (a rejected action
//!   consumes a `serverSeq` too); the host's own `serverSeq` (a fresh snapshot's `fromSeq`) is not
//!   below them either; one `serverSeq` never names two different envelopes; each client sees
//!   strictly increasing `serverSeq`s across restarts.
//! - What clients saw survived: every session's state after the restart is what the most
//!   advanced client mirror held, plus only what legitimately happened later. Exactly: when no
//!   accepted envelope was committed unseen (an observer's `reconnect` with the highest seen
//!   `serverSeq` gets a replay), mirror + replayed envelopes equals the restarted host's state.
//!   Otherwise (the host committed a batch nobody received before the kill) structurally: seen
//!   completed turns are there with the same ids and content, a seen in-progress turn is there
//!   with the same message and at least the text seen, the title is one a client or the agent
//!   set; no turn is still active after a restart.
//! - No session is corrupt: `listSessions` lists exactly the created sessions, every one
//!   subscribes, its snapshot decodes, agrees with `listSessions` and with `fetchTurns`.
//! - Every client's mirror converges: after `reconnect` with its last seen `serverSeq` (replay or
//!   snapshots) it equals a fresh snapshot.
//!
//! Mirrors are maintained with the SDK's reducer (`ahp_wasm::reduce::session_reducer`).
//! Deterministic given the seed (printed; set `AHP_DURABILITY_SEED` to replay one): the seed
//! picks every operation, pause and kill moment; only the host's timing varies.

mod common;
#[path = "../../tests/support/split_mix.rs"]
mod split_mix;

use ahp_wasm::protocol::jsonrpc::{self, ReconnectResult, ROOT_CHANNEL};
use ahp_wasm::protocol::*;
use ahp_wasm::reduce::{session_reducer, SystemClock};
use common::*;
use serde_json::{json, Value};
use split_mix::SplitMix64;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

const TOKEN: &str = "durability-test-token-0123456789";
const CLIENTS: usize = 3;
const KILLS: usize = 20;
const SESSIONS: [&str; 3] = [
    "ahp-session:/dur-0",
    "ahp-session:/dur-1",
    "ahp-session:/dur-2",
];
/// The client id that checks every restarted host (bound once, then reconnecting).
const OBSERVER: &str = "dur-observer";
/// Longest wait for the host to settle (turns ended, an echo, a close after SIGKILL).
const SETTLE: Duration = Duration::from_secs(20);

/// Picks over [`SplitMix64`].
struct Rng(SplitMix64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.below(n)
    }

    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

fn seed() -> u64 {
    match std::env::var("AHP_DURABILITY_SEED") {
        Ok(s) => s.trim().parse().expect("AHP_DURABILITY_SEED is a u64"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    }
}

/// Every envelope any client saw, and the `serverSeq` bounds across restarts.
#[derive(Default)]
struct Ledger {
    /// serverSeq -> (the envelope's JSON, who saw it first, in which host generation).
    by_seq: BTreeMap<u64, (String, String, usize)>,
    /// The host generation (0 = before the first kill).
    generation: usize,
    /// Every envelope of this generation must be above this: the highest `serverSeq` seen
    /// before the last restart.
    floor: u64,
    /// The highest `serverSeq` seen so far.
    max_seen: u64,
    /// Titles clients or the agent were asked to set.
    titles: BTreeSet<String>,
    accepted: usize,
    rejected: usize,
}

impl Ledger {
    fn record(&mut self, who: &str, e: &ActionEnvelope) {
        let json = serde_json::to_string(e).unwrap();
        assert!(
            e.server_seq > self.floor,
            "serverSeq went back after restart #{g}: {who} got serverSeq {s}, but a client had \
             already seen serverSeq {f} before that restart (an envelope handed out after a \
             restart must be above every envelope seen before it)\n  now:    {json}\n  before: \
             {before}",
            g = self.generation,
            s = e.server_seq,
            f = self.floor,
            before = self
                .by_seq
                .range(e.server_seq..)
                .next()
                .map(|(s, (j, w, g))| format!("seq {s} seen by {w} in generation {g}: {j}"))
                .unwrap_or_default(),
        );
        match self.by_seq.entry(e.server_seq) {
            std::collections::btree_map::Entry::Occupied(o) => {
                let (first, first_who, first_gen) = o.get();
                assert_eq!(
                    first, &json,
                    "serverSeq {} names two envelopes: {first_who} saw the first (generation \
                     {first_gen}), {who} the second (generation {})",
                    e.server_seq, self.generation
                );
            }
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert((json, who.to_owned(), self.generation));
                if e.rejection_reason.is_some() {
                    self.rejected += 1;
                } else {
                    self.accepted += 1;
                }
            }
        }
        self.max_seen = self.max_seen.max(e.server_seq);
    }
}

/// One client: its connection, its mirrors of every session, what it has in flight.
struct Actor {
    index: usize,
    id: String,
    client: Option<Client>,
    mirrors: BTreeMap<String, SessionState>,
    /// The last `serverSeq` this client saw (envelope or snapshot).
    last_seen: u64,
    /// The last envelope `serverSeq` per session.
    channel_seq: BTreeMap<String, u64>,
    /// clientSeqs dispatched on this connection and not yet echoed.
    in_flight: BTreeSet<u64>,
    next_turn: usize,
}

impl Actor {
    fn client(&mut self) -> &mut Client {
        self.client.as_mut().expect("connected")
    }

    fn on_envelope(&mut self, e: ActionEnvelope, ledger: &mut Ledger) {
        ledger.record(&self.id, &e);
        assert!(
            e.server_seq > self.last_seen,
            "{} got serverSeq {} after {}: not strictly increasing",
            self.id,
            e.server_seq,
            self.last_seen
        );
        self.last_seen = e.server_seq;
        if let Some(o) = &e.origin {
            if o.client_id == self.id {
                self.in_flight.remove(&o.client_seq);
            }
        }
        if e.rejection_reason.is_some() {
            return;
        }
        if let Some(state) = self.mirrors.get_mut(&e.channel) {
            let _ = session_reducer(state, &e.action, &SystemClock);
            self.channel_seq.insert(e.channel.clone(), e.server_seq);
        }
    }

    fn on_frame(&mut self, frame: Value, ledger: &mut Ledger) {
        if frame["method"] == "action" {
            let e: ActionEnvelope =
                serde_json::from_value(frame["params"].clone()).unwrap_or_else(|err| {
                    panic!("{}: envelope does not decode ({err}): {frame}", self.id)
                });
            self.on_envelope(e, ledger);
        } else if frame.get("error").is_some() {
            panic!("{}: unexpected error frame {frame}", self.id);
        }
    }

    /// Handles every frame already received, without waiting. `false` when the connection
    /// closed.
    async fn drain(&mut self, ledger: &mut Ledger) -> bool {
        loop {
            match self.client().frame_within(Duration::ZERO).await {
                Some(Some(frame)) => self.on_frame(frame, ledger),
                Some(None) => return false,
                None => return true,
            }
        }
    }

    /// After SIGKILL: handles what the host sent before it died, until the connection closes.
    async fn drain_until_closed(&mut self, ledger: &mut Ledger) {
        let mut client = self.client.take().expect("connected");
        loop {
            match client.frame_within(SETTLE).await {
                Some(Some(frame)) => self.on_frame(frame, ledger),
                Some(None) => return,
                None => panic!("{}: the connection did not close after SIGKILL", self.id),
            }
        }
    }

    async fn dispatch(&mut self, channel: &str, action: StateAction) {
        let seq = self
            .client()
            .try_dispatch(channel, action)
            .await
            .unwrap_or_else(|| panic!("dispatch failed: the host is running"));
        self.in_flight.insert(seq);
    }

    fn own(&self) -> &'static str {
        SESSIONS[self.index]
    }

    fn idle(&self) -> bool {
        self.in_flight.is_empty() && self.mirrors.values().all(|s| s.active_turn.is_none())
    }

    /// One seeded operation.
    async fn step(&mut self, rng: &mut Rng, ledger: &mut Ledger) {
        let own = self.own();
        let r = rng.below(100);
        if r < 35 {
            // A message. When the mirror shows a turn in progress the host rejects it ("a turn
            // is already active"): kept on purpose.
            let turn = format!("{}-t{}", self.id, self.next_turn);
            self.next_turn += 1;
            let n = rng.range(3, 30);
            let text = match rng.below(6) {
                0 => {
                    let title = format!("agent title {turn}");
                    ledger.titles.insert(title.clone());
                    format!("/title {title}\n/long {n}\nrenaming from {turn}")
                }
                1 => format!("/long {}\n/fail failure in {turn}", n / 3),
                2 => format!("hello from {turn}"),
                _ => format!("/long {n}\nmessage {turn}"),
            };
            self.dispatch(own, turn_started(&turn, &text)).await;
        } else if r < 55 {
            let title = format!("title {}-{}", self.id, rng.below(1000));
            ledger.titles.insert(title.clone());
            let target = SESSIONS[rng.below(SESSIONS.len() as u64) as usize];
            let action = StateAction::SessionTitleChanged(SessionTitleChangedAction {
                title,
                extra: Default::default(),
            });
            self.dispatch(target, action).await;
        } else if r < 63 {
            // Cancels the own turn; with none in progress the reducer rejects it.
            let turn_id = self.mirrors[own]
                .active_turn
                .as_ref()
                .map_or_else(|| "no-such-turn".to_owned(), |t| t.id.clone());
            let action = StateAction::SessionTurnCancelled(SessionTurnCancelledAction {
                turn_id,
                extra: Default::default(),
            });
            self.dispatch(own, action).await;
        } else {
            let kind = rng.below(4);
            self.reject(kind, rng).await;
        }
    }

    /// Dispatches an action the host always rejects.
    async fn reject(&mut self, kind: u64, rng: &mut Rng) {
        let target = SESSIONS[rng.below(SESSIONS.len() as u64) as usize];
        let (channel, action): (&str, StateAction) = match kind {
            // Server-only action.
            0 => (
                target,
                StateAction::SessionDelta(SessionDeltaAction {
                    turn_id: "forged".into(),
                    part_id: "forged".into(),
                    content: "forged".into(),
                    extra: Default::default(),
                }),
            ),
            // Claiming the active-client role for another client.
            1 => (
                target,
                serde_json::from_value(json!({"type": "session/activeClientChanged",
                    "activeClient": {"clientId": "someone-else", "tools": []}}))
                .unwrap(),
            ),
            // Root config without a config schema: the reducer's no-op, echoed as rejected.
            2 => (
                ROOT_CHANNEL,
                serde_json::from_value(json!({"type": "root/configChanged",
                    "config": {"x": 1}}))
                .unwrap(),
            ),
            // queuedMessageId is the server's to set.
            _ => {
                let mut started = turn_started("forged-queued", "forged");
                if let StateAction::SessionTurnStarted(a) = &mut started {
                    a.queued_message_id = Some("forged".into());
                }
                (target, started)
            }
        };
        self.dispatch(channel, action).await;
    }
}

/// Handles frames of every client until `until`.
async fn pump(actors: &mut [Actor], ledger: &mut Ledger, until: Instant) {
    loop {
        for a in actors.iter_mut() {
            assert!(
                a.drain(ledger).await,
                "{}: connection closed while the host was running",
                a.id
            );
        }
        if Instant::now() >= until {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Pumps until `done` holds, at most [`SETTLE`].
async fn pump_until(
    actors: &mut [Actor],
    ledger: &mut Ledger,
    what: &str,
    done: impl Fn(&[Actor]) -> bool,
) {
    let deadline = Instant::now() + SETTLE;
    while !done(actors) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        pump(actors, ledger, Instant::now() + Duration::from_millis(2)).await;
    }
}

/// The state of every session through a fresh connection, after checking none is corrupt.
/// Also checks the host's `serverSeq` is not below any seen one, and returns whether the
/// observer's `reconnect` from the highest seen `serverSeq` got a replay (then nothing was
/// committed that no client saw) with the replayed envelopes.
async fn observe(
    url: &str,
    ledger: &mut Ledger,
) -> (BTreeMap<String, SessionState>, Option<Vec<ActionEnvelope>>) {
    let g = ledger.generation;
    let mut o = Client::connect_url(url, OBSERVER).await;
    let result = o
        .reconnect(
            ledger.max_seen,
            SESSIONS.iter().map(|s| s.to_string()).collect(),
        )
        .await
        .unwrap_or_else(|e| panic!("generation {g}: observer reconnect fails: {e:?}"));
    let replay = match result {
        ReconnectResult::Replay(r) => {
            assert!(r.missing.is_empty(), "sessions missing: {:?}", r.missing);
            for e in &r.actions {
                ledger.record("observer", e);
            }
            Some(r.actions)
        }
        ReconnectResult::Snapshot(_) => None,
    };
    let list = o.list_sessions().await;
    let listed: BTreeSet<&str> = list.items.iter().map(|s| s.resource.as_str()).collect();
    assert_eq!(
        listed,
        SESSIONS.iter().copied().collect::<BTreeSet<_>>(),
        "generation {g}: listSessions"
    );
    let mut states = BTreeMap::new();
    for item in &list.items {
        let uri = item.resource.as_str();
        let raw = o
            .call("subscribe", json!({"channel": uri}))
            .await
            .unwrap_or_else(|e| panic!("generation {g}: {uri} does not subscribe: {e:?}"));
        let snap: Snapshot = serde_json::from_value(raw["snapshot"].clone())
            .unwrap_or_else(|e| panic!("generation {g}: {uri}: snapshot does not decode: {e}"));
        assert_eq!(snap.resource, uri);
        assert!(
            snap.from_seq >= ledger.max_seen,
            "generation {g}: after the restart the host's serverSeq is {}, below serverSeq {} \
             a client already saw ({}): the next envelopes would reuse seen serverSeqs",
            snap.from_seq,
            ledger.max_seen,
            ledger.by_seq[&ledger.max_seen].0
        );
        let state = session_state(&snap);
        // `changes` (the session's changeset counts) is a root-channel view: no session action
        // carries it, so the session's own summary leaves it out (host/README.md, Changesets).
        let item = &SessionSummary {
            changes: None,
            ..item.clone()
        };
        same(&state.summary, item, || {
            format!("generation {g}: {uri}: the snapshot's summary (left) and listSessions")
        });
        assert_eq!(state.lifecycle, SessionLifecycle::Ready, "{uri}");
        // fetchTurns (from the turns table) agrees with the snapshot, page by page.
        let mut turns: Vec<Turn> = Vec::new();
        let mut before: Option<String> = None;
        loop {
            let page = o
                .request::<jsonrpc::FetchTurns>(FetchTurnsParams {
                    channel: uri.into(),
                    before: before.clone(),
                    limit: Some(500.0),
                    extra: Default::default(),
                })
                .await
                .unwrap_or_else(|e| panic!("generation {g}: {uri}: fetchTurns: {e:?}"));
            let more = page.has_more;
            let mut page = page.turns;
            before = page.first().map(|t| t.id.clone());
            page.extend(turns);
            turns = page;
            if !more {
                break;
            }
        }
        same(&turns, &state.turns, || {
            format!("generation {g}: {uri}: fetchTurns (left) and the snapshot's turns")
        });
        states.insert(uri.to_owned(), state);
    }
    o.close().await;
    (states, replay)
}

/// Panics with `what` and the first difference unless `a` and `b` serialize the same.
fn same<A: serde::Serialize, B: serde::Serialize>(a: &A, b: &B, what: impl FnOnce() -> String) {
    let (a, b) = (
        serde_json::to_value(a).unwrap(),
        serde_json::to_value(b).unwrap(),
    );
    if let Some(diff) = first_difference(&a, &b) {
        panic!("{} differ {diff}", what());
    }
}

/// The text of a response part that grows by deltas.
fn growing_text(p: &ResponsePart) -> Option<&str> {
    match p {
        ResponsePart::Markdown(m) => Some(&m.content),
        ResponsePart::Reasoning(r) => Some(&r.content),
        _ => None,
    }
}

/// `host` (after a restart) holds everything `seen` (a mirror from before the kill) showed,
/// allowing only what may have happened after: later turns, a seen turn that went on and ended,
/// another title set by a client or the agent.
fn check_survived(who: &str, uri: &str, seen: &SessionState, host: &SessionState, ledger: &Ledger) {
    let g = ledger.generation;
    assert!(
        host.active_turn.is_none(),
        "generation {g}: {uri}: a turn is still active after the restart"
    );
    assert!(
        host.turns.len() >= seen.turns.len(),
        "generation {g}: {uri}: {who} saw {} completed turns, the host has {}",
        seen.turns.len(),
        host.turns.len()
    );
    for (i, t) in seen.turns.iter().enumerate() {
        same(&host.turns[i], t, || {
            format!(
                "generation {g}: {uri}: completed turn #{i} ({}) after the restart (left) and as \
                 {who} saw it",
                t.id
            )
        });
    }
    if let Some(active) = &seen.active_turn {
        let i = seen.turns.len();
        let t = host.turns.get(i).unwrap_or_else(|| {
            panic!(
                "generation {g}: {uri}: the in-progress turn {} that {who} saw is gone",
                active.id
            )
        });
        assert_eq!(t.id, active.id, "generation {g}: {uri}: turn #{i}");
        assert_eq!(t.message, active.message, "generation {g}: {uri}: {}", t.id);
        let parts = &active.response_parts;
        assert!(
            t.response_parts.len() >= parts.len(),
            "{uri}: {} lost parts",
            t.id
        );
        for (j, p) in parts.iter().enumerate() {
            let q = &t.response_parts[j];
            match (growing_text(p), growing_text(q)) {
                (Some(a), Some(b)) if j + 1 == parts.len() => assert!(
                    b.starts_with(a),
                    "generation {g}: {uri}: {} part {j}: text {who} saw was lost:\n{a}\n---\n{b}",
                    t.id
                ),
                _ => assert_eq!(p, q, "generation {g}: {uri}: {} part {j}", t.id),
            }
        }
    }
    assert!(
        host.summary.title == seen.summary.title || ledger.titles.contains(&host.summary.title),
        "generation {g}: {uri}: title {:?} was never set ({who} saw {:?})",
        host.summary.title,
        seen.summary.title
    );
}

/// Reconnects an actor with its last seen `serverSeq` and checks its mirror converges to the
/// fresh snapshots.
async fn reconnect(
    a: &mut Actor,
    url: &str,
    fresh: &BTreeMap<String, SessionState>,
    ledger: &mut Ledger,
) -> bool {
    let g = ledger.generation;
    let mut c = Client::connect_url(url, &a.id).await;
    let result = c
        .reconnect(
            a.last_seen,
            SESSIONS.iter().map(|s| s.to_string()).collect(),
        )
        .await
        .unwrap_or_else(|e| panic!("generation {g}: {} cannot reconnect: {e:?}", a.id));
    a.client = Some(c);
    a.in_flight.clear();
    let replayed = match result {
        ReconnectResult::Replay(r) => {
            assert!(r.missing.is_empty(), "{}: missing {:?}", a.id, r.missing);
            for e in r.actions {
                a.on_envelope(e, ledger);
            }
            true
        }
        ReconnectResult::Snapshot(s) => {
            assert_eq!(s.snapshots.len(), SESSIONS.len(), "{}: snapshots", a.id);
            for snap in s.snapshots {
                let state = session_state(&snap);
                check_survived(
                    &a.id,
                    &snap.resource,
                    &a.mirrors[&snap.resource],
                    &state,
                    ledger,
                );
                a.mirrors.insert(snap.resource.clone(), state);
                a.last_seen = a.last_seen.max(snap.from_seq);
            }
            false
        }
    };
    // All mirrors now hold the restart state: the baseline for picking the most advanced one.
    for uri in SESSIONS {
        a.channel_seq.insert(uri.to_owned(), a.last_seen);
    }
    for (uri, state) in fresh {
        if let Some(diff) = first_difference(&comparable(&a.mirrors[uri]), &comparable(state)) {
            panic!(
                "generation {g}: {}'s mirror of {uri} after reconnect ({}; left) differs from a \
                 fresh snapshot (right), {diff}",
                a.id,
                if replayed { "replay" } else { "snapshots" }
            );
        }
    }
    replayed
}

#[tokio::test]
async fn sigkill_at_random_moments_loses_nothing_a_client_saw() {
    let seed = seed();
    eprintln!("durability: seed {seed} (rerun with AHP_DURABILITY_SEED={seed})");
    let mut rng = Rng(SplitMix64(seed));
    let begin = Instant::now();
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let spawn = || HostProcess::spawn(data.path(), work.path(), TOKEN, &["--chunk-delay-ms", "2"]);
    let mut ledger = Ledger::default();

    let mut host = spawn();
    let url = host.url();
    let mut actors: Vec<Actor> = Vec::new();
    for index in 0..CLIENTS {
        let id = format!("dur-c{index}");
        let mut c = Client::connect_url(&url, &id).await;
        let init = c.initialize(&[]).await;
        if index == 0 {
            for s in SESSIONS {
                c.create_session(s).await;
            }
        }
        let mut mirrors = BTreeMap::new();
        let mut last_seen = init.server_seq;
        for s in SESSIONS {
            let snap = c.subscribe(s).await;
            last_seen = last_seen.max(snap.from_seq);
            mirrors.insert(s.to_owned(), session_state(&snap));
        }
        actors.push(Actor {
            index,
            id,
            client: Some(c),
            mirrors,
            last_seen,
            channel_seq: BTreeMap::new(),
            in_flight: BTreeSet::new(),
            next_turn: 0,
        });
    }

    // The observer's id is bound now, so it can `reconnect` after every restart.
    Client::connect_url(&url, OBSERVER)
        .await
        .initialize(&[])
        .await;
    let (mut exact, mut structural, mut replays, mut quiet_kills) = (0, 0, 0, 0);
    let mut mid_turn = 0;
    for round in 0..KILLS {
        // Work, then SIGKILL: at a random moment mid-stream, or (quiet rounds) right after a
        // rejected action while everything else is settled, so the rejection's serverSeq is the
        // last one handed out.
        let quiet = rng.below(4) == 0 || round == KILLS / 2;
        let work_for = Duration::from_millis(rng.range(20, 250));
        let kill_at = Instant::now() + work_for;
        while Instant::now() < kill_at {
            let who = rng.below(CLIENTS as u64) as usize;
            actors[who].step(&mut rng, &mut ledger).await;
            let pause = Duration::from_millis(rng.range(0, 25));
            pump(
                &mut actors,
                &mut ledger,
                (Instant::now() + pause).min(kill_at),
            )
            .await;
        }
        if quiet {
            quiet_kills += 1;
            pump_until(&mut actors, &mut ledger, "every turn to end", |a| {
                a.iter().all(Actor::idle)
            })
            .await;
            let who = rng.below(CLIENTS as u64) as usize;
            let kind = rng.below(4);
            actors[who].reject(kind, &mut rng).await;
            pump_until(&mut actors, &mut ledger, "the rejection's echo", |a| {
                a[who].in_flight.is_empty()
            })
            .await;
        }
        host.kill_9();
        for a in actors.iter_mut() {
            a.drain_until_closed(&mut ledger).await;
        }
        mid_turn += SESSIONS
            .iter()
            .filter(|s| actors.iter().any(|a| a.mirrors[**s].active_turn.is_some()))
            .count();

        // Restart on the same data directory.
        ledger.generation += 1;
        ledger.floor = ledger.max_seen;
        host = spawn();
        let url = host.url();
        let (fresh, replay) = observe(&url, &mut ledger).await;
        for uri in SESSIONS {
            // The most advanced mirror of this session.
            let best = actors
                .iter()
                .max_by_key(|a| a.channel_seq.get(uri).copied().unwrap_or(0))
                .unwrap();
            match &replay {
                Some(after) => {
                    // Nothing was committed unseen: the mirror plus what the restart did is the
                    // host's state, exactly.
                    let mut expected = best.mirrors[uri].clone();
                    reduce_all(
                        &mut expected,
                        &after
                            .iter()
                            .filter(|e| e.channel == uri)
                            .cloned()
                            .collect::<Vec<_>>(),
                    );
                    if let Some(diff) =
                        first_difference(&comparable(&expected), &comparable(&fresh[uri]))
                    {
                        panic!(
                            "generation {}: {uri}: the state after the restart (right) is not \
                             {}'s mirror plus the replayed envelopes (left), {diff}",
                            ledger.generation, best.id
                        );
                    }
                    exact += 1;
                }
                None => structural += 1,
            }
            for a in &actors {
                check_survived(&a.id, uri, &a.mirrors[uri], &fresh[uri], &ledger);
            }
        }
        for a in actors.iter_mut() {
            if reconnect(a, &url, &fresh, &mut ledger).await {
                replays += 1;
            }
        }
    }

    // The last host keeps serving: a new turn streams above everything seen.
    let floor = ledger.max_seen;
    let a = &mut actors[0];
    a.dispatch(SESSIONS[0], turn_started("final", "/long 5\nstill here?"))
        .await;
    pump_until(&mut actors, &mut ledger, "the final turn", |a| {
        a[0].mirrors[SESSIONS[0]]
            .turns
            .last()
            .is_some_and(|t| t.id == "final")
    })
    .await;
    assert!(ledger.max_seen > floor);
    host.kill_9();
    eprintln!(
        "durability: {KILLS} kills ({quiet_kills} quiet; {mid_turn} turns seen in progress at a \
         kill) in {:?}; {} accepted and {} rejected envelopes seen; {exact} session states matched exactly, {structural} checked \
         structurally (a batch was committed unseen); {replays} client reconnects replayed",
        begin.elapsed(),
        ledger.accepted,
        ledger.rejected
    );
}
