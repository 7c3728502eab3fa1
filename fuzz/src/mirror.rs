//! `mirror`: the client engine and its optimistic mirrors against a simulated server (the
//! project's test server, `tests/sim`, which reduces with the real reducers), on arbitrary
//! interleavings of own dispatches, foreign actions, accepted and rejected echoes, partial
//! delivery both ways, and dropped connections (reconnect with replay, or with snapshots when
//! the replay window is too small).
//!
//! Input (text): line 1 is `KIND WINDOW POLICY` (`terminal`, `session`, `changeset`,
//! `resourceWatch` or `root`; the server's replay window, 1..; `resend` or `drop`), line 2 the
//! initial state of every channel as JSON, then one step per line:
//!
//! - `dN ACTION`: the client dispatches ACTION (JSON) on channel N;
//! - `fN ACTION`: another client's ACTION on channel N;
//! - `sN` / `cN`: the server / the client reads up to N frames;
//! - `x`: the connection drops (frames in flight both ways are lost) and reopens.
//!
//! The server rejects every action whose JSON contains `!`.
//!
//! Properties: after every step, each mirror's state is its confirmed state with the pending
//! actions replayed, and fields not reported changed kept their JSON; no malformed frame, no
//! divergence; once everything is delivered, nothing is pending, no action reached the server
//! twice, and every mirror's state equals the server's (the actions reduced in server order).

#[path = "../../tests/sim/mod.rs"]
mod sim;

use ahp_wasm::client::engine::{Engine, EngineConfig, Event, PendingPolicy};
use ahp_wasm::client::ConnectionState;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::{
    ChangesetState, ResourceWatchState, RootState, SessionState, StateAction, TerminalState,
};
use ahp_wasm::reduce::FixedClock;
use ahp_wasm::sync::ChannelState;
use serde_json::Value;
use sim::SimServer;
use std::collections::VecDeque;

/// One clock for client and server (the simulated server's), so time-stamping reducers agree.
const NOW: f64 = 1000.0;
/// Steps per input.
const MAX_STEPS: usize = 200;

/// The channels of each kind.
pub fn channels(kind: &str) -> &'static [&'static str] {
    match kind {
        "terminal" => &["ahp-terminal:/a", "ahp-terminal:/b"],
        "session" => &["ahp-session:/a", "ahp-session:/b"],
        "changeset" => &["ahp-changeset:/a", "ahp-changeset:/b"],
        "resourceWatch" => &["ahp-resource-watch:/a", "ahp-resource-watch:/b"],
        "root" => &[ROOT_CHANNEL],
        _ => &[],
    }
}

#[derive(Debug)]
enum Step {
    Dispatch(usize, StateAction),
    Foreign(usize, StateAction),
    ServerReads(usize),
    ClientReads(usize),
    Drop,
}

fn parse_step(line: &str, channels: usize) -> Option<Step> {
    let mut chars = line.chars();
    let op = chars.next()?;
    let rest = chars.as_str();
    let digit = || Some(rest.chars().next()?.to_digit(10)? as usize);
    Some(match op {
        'd' | 'f' => {
            let channel = digit()? % channels;
            let action = serde_json::from_str(rest.get(1..)?.trim()).ok()?;
            if op == 'd' {
                Step::Dispatch(channel, action)
            } else {
                Step::Foreign(channel, action)
            }
        }
        's' => Step::ServerReads(digit()?),
        'c' => Step::ClientReads(digit()?),
        'x' => Step::Drop,
        _ => return None,
    })
}

fn refuse_bang(action: &StateAction) -> Option<String> {
    let text = serde_json::to_string(action).ok()?;
    text.contains('!')
        .then(|| "refused by the simulated server".to_string())
}

/// The mirror target.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.lines();
    let (Some(header), Some(initial)) = (lines.next(), lines.next()) else {
        return;
    };
    let mut words = header.split_whitespace();
    let (Some(kind), Some(window), Some(policy)) = (words.next(), words.next(), words.next())
    else {
        return;
    };
    let Ok(window) = window.parse::<usize>() else {
        return;
    };
    let window = window.clamp(1, 1000);
    let policy = match policy {
        "resend" => PendingPolicy::ResendUnseen,
        "drop" => PendingPolicy::DropInFlight,
        _ => return,
    };
    let channels = channels(kind);
    let steps: Vec<Step> = lines
        .filter_map(|l| parse_step(l, channels.len().max(1)))
        .take(MAX_STEPS)
        .collect();
    match kind {
        "terminal" => check::<TerminalState>(channels, initial, window, policy, &steps),
        "session" => check::<SessionState>(channels, initial, window, policy, &steps),
        "changeset" => check::<ChangesetState>(channels, initial, window, policy, &steps),
        "resourceWatch" => check::<ResourceWatchState>(channels, initial, window, policy, &steps),
        "root" => check::<RootState>(channels, initial, window, policy, &steps),
        _ => {}
    }
}

fn check<S: ChannelState>(
    channels: &'static [&'static str],
    initial: &str,
    window: usize,
    policy: PendingPolicy,
    steps: &[Step],
) {
    let Ok(state) = serde_json::from_str::<S>(initial) else {
        return;
    };
    let states = channels.iter().map(|c| (c.to_string(), state.clone()));
    let server = SimServer::with_states(states, window, refuse_bang);
    let mut config = EngineConfig::new("me");
    config.initial_subscriptions = channels.iter().map(|c| c.to_string()).collect();
    config.pending_policy = policy;
    let mut world = World::start(Engine::new(config), server, channels);
    for step in steps {
        world.run(step);
    }
    world.settle();
    assert_eq!(world.engine.connection_state(), ConnectionState::Connected);
    world.assert_converged();
}

/// The engine and the simulated server, linked by two queues that lose their frames on a drop.
struct World<S: ChannelState> {
    engine: Engine,
    server: SimServer<S>,
    channels: &'static [&'static str],
    to_server: VecDeque<String>,
    foreign_seq: u64,
    /// Fields reported changed per channel during a step (from `ChannelChanged`).
    reported: Vec<(String, Vec<&'static str>)>,
}

impl<S: ChannelState> World<S> {
    fn start(engine: Engine, server: SimServer<S>, channels: &'static [&'static str]) -> Self {
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

    fn mirror(&self, channel: &str) -> &ahp_wasm::sync::Mirror<S> {
        self.engine.mirror_as::<S>(channel).expect("a mirror")
    }

    fn run(&mut self, step: &Step) {
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
}
