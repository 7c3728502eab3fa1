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

use ahp_wasm::client::engine::{Engine, EngineConfig, PendingPolicy};
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::{
    ChangesetState, ResourceWatchState, RootState, SessionState, StateAction, TerminalState,
};
use ahp_wasm::sync::ChannelState;
use sim::world::{Step, World};
use sim::SimServer;

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
    let Ok(state) = ahp_wasm::protocol::decode::from_text::<S>(initial) else {
        return;
    };
    let states = channels.iter().map(|c| (c.to_string(), state.clone()));
    let server = SimServer::with_states(states, window, refuse_bang);
    let mut config = EngineConfig::new("me");
    config.initial_subscriptions = channels.iter().map(|c| c.to_string()).collect();
    config.pending_policy = policy;
    World::start(Engine::new(config), server, channels).run_all(steps);
}
