//! `reducers`: an arbitrary state and a sequence of arbitrary actions through a reducer.
//!
//! Input (text): line 1 names the reducer (`root`, `session`, `terminal`, `changeset`,
//! `resourceWatch`), line 2 is the initial state as JSON, every further line one action as
//! JSON (lines that are not an action are skipped). Every action goes to the reducer, including
//! other channels' actions and unknown action types.
//!
//! Properties, after every action: no panic; `NoOp` leaves the state unchanged; `Applied`
//! names every top-level field whose JSON changed; the state serializes and decodes back to
//! itself. And the whole run is deterministic: the same inputs give the same states and
//! outcomes twice.

use ahp_wasm::protocol::{
    ChangesetState, ResourceWatchState, RootState, SessionState, StateAction, TerminalState,
};
use ahp_wasm::reduce::{FixedClock, Outcome};
use ahp_wasm::sync::ChannelState;
use serde_json::Value;

/// The reducers' clock.
const NOW: f64 = 9999.0;

/// The reducers target.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.lines();
    let (Some(kind), Some(initial)) = (lines.next(), lines.next()) else {
        return;
    };
    let actions: Vec<StateAction> = lines.filter_map(|l| serde_json::from_str(l).ok()).collect();
    match kind.trim() {
        "root" => check::<RootState>(initial, &actions),
        "session" => check::<SessionState>(initial, &actions),
        "terminal" => check::<TerminalState>(initial, &actions),
        "changeset" => check::<ChangesetState>(initial, &actions),
        "resourceWatch" => check::<ResourceWatchState>(initial, &actions),
        _ => {}
    }
}

fn check<S: ChannelState>(initial: &str, actions: &[StateAction]) {
    let Ok(initial) = ahp_wasm::protocol::decode::from_text::<S>(initial) else {
        return;
    };
    round_trip(&initial);
    let first = replay(&initial, actions);
    let second = replay(&initial, actions);
    assert!(first == second, "the same actions on the same state differ");
}

fn round_trip<S: ChannelState>(state: &S) {
    let text = serde_json::to_string(state).expect("a state serializes");
    match ahp_wasm::protocol::decode::from_text::<S>(&text) {
        Ok(back) => assert_eq!(&back, state, "JSON round trip changed the state: {text}"),
        Err(e) => panic!("a state does not decode its own JSON: {e}\n{text}"),
    }
}

/// Every intermediate state, with its outcome (as text: `Outcome` is not `Debug`-comparable
/// across runs otherwise).
fn replay<S: ChannelState>(initial: &S, actions: &[StateAction]) -> Vec<(S, String)> {
    let clock = FixedClock(NOW);
    let mut state = initial.clone();
    let mut out = Vec::with_capacity(actions.len());
    for action in actions {
        let before = state.clone();
        let outcome = state.reduce(action, &clock);
        match outcome {
            Outcome::NoOp(why) => {
                assert_eq!(
                    state, before,
                    "NoOp({why:?}) changed the state on {action:?}"
                )
            }
            Outcome::Applied(changed) => {
                let (b, a) = (to_json(&before), to_json(&state));
                for &field in S::fields() {
                    if changed.contains(field) {
                        continue;
                    }
                    let name = S::field_name(field);
                    assert_eq!(
                        b.get(name),
                        a.get(name),
                        "{name} changed but is not reported ({changed:?}) on {action:?}"
                    );
                }
            }
        }
        round_trip(&state);
        out.push((state.clone(), format!("{outcome:?}")));
    }
    out
}

fn to_json<S: ChannelState>(state: &S) -> Value {
    serde_json::to_value(state).expect("a state serializes")
}
