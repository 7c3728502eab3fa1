//! [`World`]: a client engine and the simulated server, linked by two queues that lose their
//! frames when the connection drops, stepped by [`Step`]s. Shared by the reconciliation
//! property tests (`tests/reconciliation.rs`) and the `mirror` fuzz target (`fuzz/src/mirror.rs`).
//!
//! After every step it checks that each mirror's state is its confirmed state with the pending
//! actions replayed, and that fields not reported changed (`ChannelChanged`) kept their JSON,
//! so a UI may skip them.

use super::SimServer;
use ahp_wasm::client::engine::{Engine, Event};
use ahp_wasm::client::ConnectionState;
use ahp_wasm::protocol::StateAction;
use ahp_wasm::reduce::FixedClock;
use ahp_wasm::sync::ChannelState;
use serde_json::Value;
use std::collections::VecDeque;

/// One clock for client and server, so time-stamping reducers agree.
pub const NOW: f64 = 1000.0;

/// One thing that happens between the client and the server.
#[derive(Debug, Clone)]
pub enum Step {
    /// The client dispatches the action on channel N.
    Dispatch(usize, StateAction),
    /// Another client's action on channel N reaches the server.
    Foreign(usize, StateAction),
    /// The server reads up to N frames.
    ServerReads(usize),
    /// The client reads up to N frames (one batch).
    ClientReads(usize),
    /// The connection drops (frames in flight both ways are lost) and reopens.
    Drop,
}

/// The engine and the simulated server, linked by two queues that lose their frames on a drop.
pub struct World<S: ChannelState> {
    pub engine: Engine,
    pub server: SimServer<S>,
    pub channels: &'static [&'static str],
    to_server: VecDeque<String>,
    foreign_seq: u64,
    /// Fields reported changed per channel during a step (from `ChannelChanged`).
    reported: Vec<(String, Vec<&'static str>)>,
}

impl<S: ChannelState> World<S> {
    /// Connects `engine` to `server` and completes the handshake.
    pub fn start(engine: Engine, server: SimServer<S>, channels: &'static [&'static str]) -> Self {
        let mut world = World {
            engine,
            server,
            channels,
            to_server: VecDeque::new(),
            foreign_seq: 0,
            reported: Vec::new(),
        };
        world.engine.on_open(NOW);
        world.settle();
        assert_eq!(world.engine.connection_state(), ConnectionState::Connected);
        world
    }

    fn pump(&mut self) {
        while let Some(frame) = self.engine.poll_transmit() {
            self.to_server.push_back(frame);
        }
        while let Some(event) = self.engine.poll_event() {
            match event {
                Event::ChannelChanged {
                    channel, changed, ..
                } => self.reported.push((channel, changed.names())),
                Event::Resync { reason, .. } => panic!("unexpected divergence: {reason}"),
                Event::Malformed { message, frame } => {
                    panic!("malformed frame: {message}\n{frame}")
                }
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
        self.engine.handle_frames(frames, NOW);
        self.pump();
    }

    fn state_json(&self, channel: &str) -> Value {
        serde_json::to_value(self.mirror(channel).state()).expect("state serializes")
    }

    /// The mirror of `channel` (one of the world's channels).
    pub fn mirror(&self, channel: &str) -> &ahp_wasm::sync::Mirror<S> {
        self.engine.mirror_as::<S>(channel).expect("a mirror")
    }

    /// Runs one step and checks the mirrors afterwards.
    pub fn run(&mut self, step: &Step) {
        let before: Vec<Value> = self.channels.iter().map(|c| self.state_json(c)).collect();
        self.reported.clear();
        match step {
            Step::Dispatch(c, action) => {
                // Refused only when not subscribed, which these channels always are.
                self.engine
                    .dispatch(self.channels[*c], action.clone(), NOW)
                    .expect("dispatch on a subscribed channel");
                self.pump();
            }
            Step::Foreign(c, action) => {
                self.foreign_seq += 1;
                self.server
                    .foreign(self.channels[*c], action.clone(), self.foreign_seq);
            }
            Step::ServerReads(n) => self.server_reads(*n),
            Step::ClientReads(n) => self.client_reads(*n),
            Step::Drop => {
                self.engine.on_close("dropped", NOW);
                self.server.disconnect();
                self.to_server.clear();
                self.engine.on_open(NOW);
                self.pump();
            }
        }
        for (channel, before) in self.channels.iter().zip(before) {
            let m = self.mirror(channel);
            assert_eq!(
                m.state(),
                &m.recompute(&FixedClock(NOW)),
                "state == confirmed + pending replayed ({channel}) after {step:?}"
            );
            let after = self.state_json(channel);
            let reported: Vec<&str> = self
                .reported
                .iter()
                .filter(|(c, _)| c == channel)
                .flat_map(|(_, names)| names.iter().copied())
                .collect();
            let (Some(a), Some(b)) = (after.as_object(), before.as_object()) else {
                panic!("a state is not a JSON object");
            };
            for field in a.keys().chain(b.keys()) {
                if !reported.contains(&field.as_str()) {
                    assert_eq!(
                        a.get(field),
                        b.get(field),
                        "unreported change of {field} on {channel} after {step:?}"
                    );
                }
            }
        }
    }

    /// Delivers everything both ways until nothing moves.
    pub fn settle(&mut self) {
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

    /// Nothing pending, nothing applied twice, every mirror equal to the server's state.
    pub fn assert_converged(&self) {
        assert_eq!(
            self.server.redelivered, 0,
            "no action reached the server twice"
        );
        for channel in self.channels {
            let m = self.mirror(channel);
            assert_eq!(m.pending_count(), 0, "every echo arrived ({channel})");
            assert_eq!(m.state(), m.confirmed(), "{channel}");
            assert_eq!(m.confirmed(), &self.server.channels[*channel], "{channel}");
        }
    }

    /// Runs the steps, delivers everything, and checks the mirrors converged.
    pub fn run_all(&mut self, steps: &[Step]) {
        for step in steps {
            self.run(step);
        }
        self.settle();
        assert_eq!(self.engine.connection_state(), ConnectionState::Connected);
        self.assert_converged();
    }
}
