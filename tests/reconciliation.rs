//! Reconciliation against a simulated server that applies actions in its own order with the
//! real reducers: a property test over random interleavings (own dispatches, foreign actions,
//! rejections, partial delivery, dropped connections), and reconnect tests over the in-memory
//! transport.

mod sim;

use ahp_wasm::client::engine::{Engine, EngineConfig, PendingPolicy};
use ahp_wasm::client::transport::{memory, Transport};
use ahp_wasm::client::ConnectionState;
use ahp_wasm::protocol::{SessionState, StateAction, TerminalState};
use proptest::prelude::*;
use serde_json::{json, Value};
use sim::world::{Step, World};
use sim::{data, title, SimServer};

const CHANNELS: [&str; 2] = ["ahp-terminal:/a", "ahp-terminal:/b"];
const SESSIONS: [&str; 2] = ["ahp-session:/a", "ahp-session:/b"];

fn engine_for(channels: [&str; 2], policy: PendingPolicy) -> Engine {
    let mut config = EngineConfig::new("me");
    config.initial_subscriptions = channels.iter().map(|c| c.to_string()).collect();
    config.pending_policy = policy;
    Engine::new(config)
}

fn engine() -> Engine {
    engine_for(CHANNELS, PendingPolicy::ResendUnseen)
}

fn action(value: Value) -> StateAction {
    serde_json::from_value(value).expect("valid action")
}

fn steps(
    own: BoxedStrategy<StateAction>,
    foreign: BoxedStrategy<StateAction>,
) -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        4 => (0..2usize, own).prop_map(|(c, a)| Step::Dispatch(c, a)),
        3 => (0..2usize, foreign).prop_map(|(c, a)| Step::Foreign(c, a)),
        3 => (1..4usize).prop_map(Step::ServerReads),
        3 => (1..5usize).prop_map(Step::ClientReads),
        1 => Just(Step::Drop),
    ];
    proptest::collection::vec(step, 0..60)
}

fn terminal_action() -> BoxedStrategy<StateAction> {
    prop_oneof![
        4 => "[xyz!]{1,2}".prop_map(|d| data(&d)),
        1 => "[ST]".prop_map(|t| title(&t)),
    ]
    .boxed()
}

fn policy() -> impl Strategy<Value = PendingPolicy> {
    prop_oneof![
        Just(PendingPolicy::ResendUnseen),
        Just(PendingPolicy::DropInFlight)
    ]
}

/// Sessions: the server refuses titles with `!`.
fn session_server(window: usize) -> SimServer<SessionState> {
    let states = SESSIONS.iter().map(|uri| {
        let state = json!({"summary": {"resource": uri, "provider": "p", "title": "S",
            "status": 1, "createdAt": 0, "modifiedAt": 0}, "lifecycle": "ready", "turns": []});
        (uri.to_string(), serde_json::from_value(state).unwrap())
    });
    let reject = |a: &StateAction| match a {
        StateAction::SessionTitleChanged(t) if t.title.contains('!') => Some("no".to_string()),
        _ => None,
    };
    SimServer::with_states(states, window, reject)
}

const TURNS: &[&str] = &["t1", "t2", "t3"];

fn turn() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(TURNS)
}

/// What a client dispatches on a session: start or cancel turns, rename.
fn session_own() -> BoxedStrategy<StateAction> {
    prop_oneof![
        (turn(), "[ab]").prop_map(|(t, text)| action(json!({"type": "session/turnStarted",
            "turnId": t, "message": {"text": text, "origin": {"kind": "user"}}}))),
        turn().prop_map(|t| action(json!({"type": "session/turnCancelled", "turnId": t}))),
        "[AB!]".prop_map(|t| action(json!({"type": "session/titleChanged", "title": t}))),
    ]
    .boxed()
}

/// What the agent (or another client) does: stream into turns, complete them, rename.
fn session_foreign() -> BoxedStrategy<StateAction> {
    prop_oneof![
        (turn(), "[xy]").prop_map(|(t, c)| action(json!({"type": "session/responsePart",
            "turnId": t, "part": {"kind": "markdown", "id": "p1", "content": c}}))),
        (turn(), "[xy]").prop_map(|(t, c)| action(json!({"type": "session/delta",
            "turnId": t, "partId": "p1", "content": c}))),
        turn().prop_map(|t| action(json!({"type": "session/turnComplete", "turnId": t}))),
        (turn(), "[c]").prop_map(|(t, text)| action(json!({"type": "session/turnStarted",
            "turnId": t, "message": {"text": text, "origin": {"kind": "user"}}}))),
        "[CD]".prop_map(|t| action(json!({"type": "session/titleChanged", "title": t}))),
    ]
    .boxed()
}

impl World<TerminalState> {
    fn new(window: usize) -> Self {
        World::start(engine(), SimServer::new(&CHANNELS, window), &CHANNELS)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn terminal_mirrors_converge_to_the_server(
        window in 2..30usize,
        policy in policy(),
        steps in steps(terminal_action(), terminal_action()),
    ) {
        let server = SimServer::new(&CHANNELS, window);
        World::start(engine_for(CHANNELS, policy), server, &CHANNELS).run_all(&steps);
    }

    #[test]
    fn session_mirrors_converge_to_the_server(
        window in 2..30usize,
        policy in policy(),
        steps in steps(session_own(), session_foreign()),
    ) {
        let server = session_server(window);
        World::start(engine_for(SESSIONS, policy), server, &SESSIONS).run_all(&steps);
    }
}

#[test]
fn rejected_and_foreign_actions_converge() {
    let mut world = World::new(100);
    let steps = [
        Step::Dispatch(0, data("x")),
        Step::Dispatch(0, data("!")),
        Step::Foreign(0, data("y")),
        Step::Dispatch(0, data("z")),
        Step::ServerReads(10),
        Step::ClientReads(1),
    ];
    for step in &steps {
        world.run(step);
    }
    assert_eq!(world.mirror(CHANNELS[0]).pending_count(), 3);
    world.run_all(&[]);
    let content = serde_json::to_string(&world.server.channels[CHANNELS[0]].content).unwrap();
    assert!(content.contains("yxz"), "{content}");
}

/// Drives an engine over in-memory transports; the server side is the simulated server.
struct Wire {
    engine: Engine,
    server: SimServer,
    connector: memory::MemoryConnector,
    listener: memory::MemoryListener,
    client_end: memory::MemoryTransport,
    server_end: memory::MemoryTransport,
    now: f64,
}

impl Wire {
    fn new(window: usize) -> Wire {
        let (connector, listener) = memory::listener();
        let client_end = connector.connect().unwrap();
        let server_end = listener.try_accept().unwrap();
        let mut wire = Wire {
            engine: engine(),
            server: SimServer::new(&CHANNELS, window),
            connector,
            listener,
            client_end,
            server_end,
            now: 0.0,
        };
        wire.engine.on_open(0.0);
        wire.run_until_quiet();
        wire
    }

    /// One round: client frames to the server, server frames onto the wire, and the client
    /// reads at most `read` frames (one batch).
    fn round(&mut self, read: usize) {
        self.now += 1.0;
        while let Some(frame) = self.engine.poll_transmit() {
            self.client_end.send(frame).unwrap();
        }
        while let Some(frame) = self.server_end.try_recv() {
            self.server.handle(&frame);
        }
        while let Some(frame) = self.server.outbox.pop_front() {
            self.server_end.send(frame).unwrap();
        }
        let batch: Vec<String> = (0..read)
            .map_while(|_| self.client_end.try_recv())
            .collect();
        self.engine.handle_frames(batch, self.now);
        while self.engine.poll_event().is_some() {}
    }

    fn run_until_quiet(&mut self) {
        for _ in 0..50 {
            self.round(usize::MAX);
        }
    }

    /// The connection drops with frames still on the wire both ways; then reconnects.
    fn drop_and_reconnect(&mut self) {
        self.client_end.close();
        self.engine.on_close("dropped mid-stream", self.now);
        self.server.disconnect();
        self.client_end = self.connector.connect().unwrap();
        self.server_end = self.listener.try_accept().unwrap();
        self.engine.on_open(self.now);
    }

    fn assert_mirrors_server(&self) {
        for channel in CHANNELS {
            let m = self.engine.mirror_as::<TerminalState>(channel).unwrap();
            assert_eq!(m.pending_count(), 0);
            assert_eq!(m.state(), &self.server.channels[channel], "{channel}");
        }
    }
}

fn reconnect_mid_stream(window: usize) -> SimServer {
    let mut wire = Wire::new(window);
    for i in 0..40 {
        wire.server
            .foreign(CHANNELS[i % 2], data(&format!("f{i} ")), i as u64);
        if i % 3 == 0 {
            wire.engine
                .dispatch(CHANNELS[0], data(&format!("m{i} ")), wire.now)
                .unwrap();
        }
        wire.round(1); // the client reads slower than the server writes
        if i == 25 {
            wire.drop_and_reconnect();
        }
    }
    wire.run_until_quiet();
    assert_eq!(wire.engine.connection_state(), ConnectionState::Connected);
    wire.assert_mirrors_server();
    wire.server
}

#[test]
fn reconnect_with_replay_over_memory_transport() {
    let server = reconnect_mid_stream(1000);
    assert_eq!((server.replays, server.snapshots), (1, 0));
}

#[test]
fn reconnect_with_snapshots_over_memory_transport() {
    let server = reconnect_mid_stream(3);
    assert_eq!((server.replays, server.snapshots), (0, 1));
}
