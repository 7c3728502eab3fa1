//! `rootReducer`, `sessionReducer`, `terminalReducer`, `changesetReducer`,
//! `resourceWatchReducer`: the pure reducers for JavaScript.
//!
//! Same contract as the official TypeScript package: `(state, action) => newState`, the input
//! is never mutated; an action that does not apply (unknown type, another channel's action,
//! wrong turn, ...) returns the input state itself; otherwise a new object whose unchanged
//! top-level properties are the input's own (same identity). The clock for `modifiedAt`-style
//! fields is `Date.now()`. A value of the wrong shape throws an `InvalidInputError`.

use super::convert::{from_js, patch_struct};
use crate::protocol::{
    ChangesetState, ChangesetStateField, ResourceWatchState, ResourceWatchStateField, RootState,
    RootStateField, SessionState, SessionStateField, StateAction, TerminalState,
    TerminalStateField,
};
use crate::reduce::{self, Clock, Outcome, SystemClock};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

/// The top-level fields of a state type (the generated `<State>Field` enums).
pub trait StateField: Copy + Into<u8> + 'static {
    /// Every field.
    const ALL: &'static [Self];
    /// The property name on the wire.
    fn wire_name(self) -> &'static str;
}

macro_rules! state_fields {
    ($($field:ty),*) => {$(
        impl StateField for $field {
            const ALL: &'static [Self] = <$field>::ALL;
            fn wire_name(self) -> &'static str {
                <$field>::wire_name(self)
            }
        }
    )*};
}
state_fields!(RootStateField, SessionStateField, TerminalStateField, ChangesetStateField, ResourceWatchStateField);

type Reducer<S, F> = fn(&mut S, &StateAction, &dyn Clock) -> Outcome<F>;

/// Converts, reduces, and writes back only what changed.
pub fn reduce_js<S, F>(state: &JsValue, action: &JsValue, reducer: Reducer<S, F>) -> Result<JsValue, JsValue>
where
    S: DeserializeOwned + Serialize,
    F: StateField,
{
    let mut typed: S = from_js(state, "state")?;
    let action: StateAction = from_js(action, "action")?;
    match reducer(&mut typed, &action, &SystemClock) {
        Outcome::NoOp(_) => Ok(state.clone()),
        Outcome::Applied(changed) => {
            let mut names = [""; 64];
            let mut n = 0;
            for field in F::ALL.iter().copied().filter(|f| changed.contains(*f)) {
                names[n] = field.wire_name();
                n += 1;
            }
            patch_struct(state, &typed, &names[..n])
        }
    }
}

fn run<S, F>(state: Ts<S>, action: Ts<StateAction>, reducer: Reducer<S, F>) -> Result<Ts<S>, JsValue>
where
    S: Tsify + DeserializeOwned + Serialize,
    F: StateField,
{
    reduce_js(&state.js_value(), &action.js_value(), reducer).map(Ts::new_unchecked)
}

/// Applies `action` to the root state (`ahp-root://`): returns the new state, or `state` itself
/// when the action does not apply. Throws `InvalidInputError` for a value of the wrong shape.
#[wasm_bindgen(js_name = rootReducer)]
pub fn root_reducer(state: Ts<RootState>, action: Ts<StateAction>) -> Result<Ts<RootState>, JsValue> {
    run(state, action, reduce::root_reducer)
}

/// Applies `action` to a session's state: returns the new state, or `state` itself when the
/// action does not apply. Throws `InvalidInputError` for a value of the wrong shape.
#[wasm_bindgen(js_name = sessionReducer)]
pub fn session_reducer(state: Ts<SessionState>, action: Ts<StateAction>) -> Result<Ts<SessionState>, JsValue> {
    run(state, action, reduce::session_reducer)
}

/// Applies `action` to a terminal's state: returns the new state, or `state` itself when the
/// action does not apply. Throws `InvalidInputError` for a value of the wrong shape.
#[wasm_bindgen(js_name = terminalReducer)]
pub fn terminal_reducer(state: Ts<TerminalState>, action: Ts<StateAction>) -> Result<Ts<TerminalState>, JsValue> {
    run(state, action, reduce::terminal_reducer)
}

/// Applies `action` to a changeset's state: returns the new state, or `state` itself when the
/// action does not apply. Throws `InvalidInputError` for a value of the wrong shape.
#[wasm_bindgen(js_name = changesetReducer)]
pub fn changeset_reducer(state: Ts<ChangesetState>, action: Ts<StateAction>) -> Result<Ts<ChangesetState>, JsValue> {
    run(state, action, reduce::changeset_reducer)
}

/// Applies `action` to a resource watch's state: returns the new state, or `state` itself when
/// the action does not apply. Throws `InvalidInputError` for a value of the wrong shape.
#[wasm_bindgen(js_name = resourceWatchReducer)]
pub fn resource_watch_reducer(
    state: Ts<ResourceWatchState>,
    action: Ts<StateAction>,
) -> Result<Ts<ResourceWatchState>, JsValue> {
    run(state, action, reduce::resource_watch_reducer)
}
