//! Reconciliation against a simulated server that applies actions in its own order with the
//! real reducers: a property test over random interleavings (own dispatches, foreign actions,
//! rejections, partial delivery, dropped connections), and reconnect tests over the in-memory
//! transport.

mod sim;

use ahp_wasm::client::engine::{Engine, EngineConfig, Event};
use ahp_wasm::client::transport::{memory, Transport};
use ahp_wasm::client::ConnectionState;
use ahp_wasm::protocol::{StateAction, TerminalState};
use ahp_wasm::reduce::FixedClock;
use proptest::prelude::*;
use sim::{data, title, SimServer};
use std::collections::VecDeque;

const CHANNELS: [&str; 2] = ["ahp-terminal:/a", "ahp-terminal:/b"];

fn engine() -> Engine {
    let mut config = EngineConfig::new("me");
    config.initial_subscriptions = CHANNELS.iter().map(|c| c.to_string()).collect();
    Engine::new(config)
}

#[derive(Debug, Clone)]
enum Op {
    Data(String),
    Title(String),
}

impl Op {
    fn action(&self) -> StateAction {
        match self {
            Op::Data(d) => data(d),
            Op::Title(t) => title(t),
        }
    }
}

#[derive(Debug, Clone)]
enum Step {
    Dispatch(usize, Op),
    Foreign(usize, Op),
    ServerReads(usize),
    ClientReads(usize),
    Drop,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => "[xyz!]{1,2}".prop_map(Op::Data),
        1 => "[ST]".prop_map(Op::Title),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..2usize, op()).prop_map(|(c, o)| Step::Dispatch(c, o)),
        3 => (0..2usize, op()).prop_map(|(c, o)| Step::Foreign(c, o)),
        3 => (1..4usize).prop_map(Step::ServerReads),
        3 => (1..5usize).prop_map(Step::ClientReads),
        1 => Just(Step::Drop),
    ]
}

/// The client engine and the simulated server, linked by two lossy-on-drop queues.
struct World {
    engine: Engine,
    server: SimServer,
    to_server: VecDeque<String>,
    now: f64,
    foreign_seq: u64,
    /// Fields reported changed per channel since the last step (from `ChannelChanged`).
    reported: Vec<(String, Vec<&'static str>)>,
}

impl World {
    fn new(window: usize) -> World {
        let mut world = World {
            engine: engine(),
            server: SimServer::new(&CHANNELS, window),
            to_server: VecDeque::new(),
            now: 0.0,
            foreign_seq: 0,
            reported: Vec::new(),
        };
        world.engine.on_open(0.0);
        world.settle();
        assert_eq!(world.engine.connection_state(), ConnectionState::Connected);
        world
    }

    fn pump(&mut self) {
        while let Some(frame) = self.engine.poll_transmit() {
            self.to_server.push_back(frame);
        }
        for event in std::iter::from_fn(|| self.engine.poll_event()) {
            match event {
                Event::ChannelChanged {
                    channel, changed, ..
                } => self.reported.push((channel, changed.names())),
                Event::Resync { reason, .. } => panic!("unexpected divergence: {reason}"),
                Event::Malformed { message, .. } => panic!("malformed frame: {message}"),
                // A drop during the reconnect handshake fails it; the next open retries.
                Event::HandshakeFailed(ahp_wasm::client::Error::Transport { .. }) => {}
                Event::HandshakeFailed(e) => panic!("handshake failed: {e}"),
                _ => {}
            }
        }
    }

    fn server_reads(&mut self, n: usize) {
        for _ in 0..n {
            match self.to_server.pop_front() {
                Some(frame) => self.server.handle(&frame),
                None => break,
            }
        }
    }

    fn client_reads(&mut self, n: usize) {
        let k = n.min(self.server.outbox.len());
        let frames: Vec<String> = self.server.outbox.drain(..k).collect();
        self.engine.handle_frames(frames, self.now);
        self.pump();
    }

    fn run(&mut self, step: &Step) {
        let before: Vec<serde_json::Value> = CHANNELS
            .iter()
            .map(|c| serde_json::to_value(self.mirror(c).state()).unwrap())
            .collect();
        self.reported.clear();
        self.now += 1.0;
        match step {
            Step::Dispatch(c, op) => {
                self.engine
                    .dispatch(CHANNELS[*c], op.action(), self.now)
                    .expect("subscribed");
                self.pump();
            }
            Step::Foreign(c, op) => {
                self.foreign_seq += 1;
                self.server
                    .foreign(CHANNELS[*c], op.action(), self.foreign_seq);
            }
            Step::ServerReads(n) => self.server_reads(*n),
            Step::ClientReads(n) => self.client_reads(*n),
            Step::Drop => {
                self.engine.on_close("dropped", self.now);
                self.server.disconnect();
                self.to_server.clear();
                self.engine.on_open(self.now);
                self.pump();
            }
        }
        self.check_invariant();
        // Fields not reported changed kept their values: a UI may skip them.
        for (channel, before) in CHANNELS.iter().zip(before) {
            let after = serde_json::to_value(self.mirror(channel).state()).unwrap();
            let reported: Vec<&str> = self
                .reported
                .iter()
                .filter(|(c, _)| c == channel)
                .flat_map(|(_, names)| names.iter().copied())
                .collect();
            let keys = after
                .as_object()
                .unwrap()
                .keys()
                .chain(before.as_object().unwrap().keys());
            for field in keys {
                if !reported.contains(&field.as_str()) {
                    assert_eq!(
                        after.get(field),
                        before.get(field),
                        "unreported change of {field}"
                    );
                }
            }
        }
    }

    fn check_invariant(&self) {
        for channel in CHANNELS {
            let m = self.mirror(channel);
            assert_eq!(
                m.state(),
                &m.recompute(&FixedClock(self.now)),
                "state == confirmed + pending replayed ({channel})"
            );
        }
    }

    fn mirror(&self, channel: &str) -> &ahp_wasm::sync::Mirror<TerminalState> {
        self.engine
            .mirror_as::<TerminalState>(channel)
            .expect("terminal mirror")
    }

    /// Delivers everything both ways until nothing moves.
    fn settle(&mut self) {
        for _ in 0..100 {
            self.pump();
            if self.to_server.is_empty() && self.server.outbox.is_empty() {
                return;
            }
            self.server_reads(usize::MAX);
            self.client_reads(usize::MAX);
        }
        panic!("did not settle");
    }

    fn assert_converged(&self) {
        for channel in CHANNELS {
            let m = self.mirror(channel);
            assert_eq!(m.pending_count(), 0, "every echo arrived ({channel})");
            assert_eq!(m.state(), m.confirmed());
            assert_eq!(m.confirmed(), &self.server.terminals[channel], "{channel}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn optimistic_state_converges_to_the_server(
        window in 2..30usize,
        steps in proptest::collection::vec(step(), 0..60),
    ) {
        let mut world = World::new(window);
        for step in &steps {
            world.run(step);
        }
        world.settle();
        prop_assert_eq!(world.engine.connection_state(), ConnectionState::Connected);
        world.assert_converged();
    }
}

#[test]
fn rejected_and_foreign_actions_converge() {
    let mut world = World::new(100);
    let steps = [
        Step::Dispatch(0, Op::Data("x".into())),
        Step::Dispatch(0, Op::Data("!".into())),
        Step::Foreign(0, Op::Data("y".into())),
        Step::Dispatch(0, Op::Data("z".into())),
        Step::ServerReads(10),
        Step::ClientReads(1),
    ];
    for step in &steps {
        world.run(step);
    }
    assert_eq!(world.mirror(CHANNELS[0]).pending_count(), 3);
    world.settle();
    world.assert_converged();
    let content = serde_json::to_string(&world.server.terminals[CHANNELS[0]].content).unwrap();
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
            assert_eq!(m.state(), &self.server.terminals[channel], "{channel}");
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
