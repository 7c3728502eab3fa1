//! `rootReducer`, `sessionReducer`, `terminalReducer`, `changesetReducer`,
//! `resourceWatchReducer`: the pure reducers for JavaScript.
//!
//! Same contract as the official TypeScript package: `(state, action) => newState`, the input
//! is never mutated; an action that does not apply (unknown type, another channel's action,
//! wrong turn, ...) returns the input state itself; otherwise a new object. The clock for
//! `modifiedAt`-style fields is `Date.now()`. A value of the wrong shape throws an
//! `InvalidInputError`.
//!
//! Cost. Converting a whole state between JS and Rust on every action would make each action
//! cost as much as the session's history (milliseconds for a few dozen turns). So the states
//! these functions return are deeply frozen, and a small cache keeps the Rust state behind each
//! of the most recent ones ([`CACHE_SIZE`]). When a returned state comes back as input (the
//! usual `state = reducer(state, action)` chain), only the action is converted; the new state
//! is a shallow copy of the old one in which just the top-level properties the action changed
//! are rebuilt (the others keep their identity). A state the cache does not know (the caller's
//! own object, an older state) is converted in full, and the result is entirely new and frozen.
//! Freezing is what makes the cache sound: a frozen state cannot have changed since it was
//! returned.

use super::convert::{from_js, patch_struct};
use crate::protocol::{
    ChangesetState, ChangesetStateField, ResourceWatchState, ResourceWatchStateField, RootState,
    RootStateField, SessionState, SessionStateField, StateAction, TerminalState,
    TerminalStateField,
};
use crate::reduce::{self, Clock, Outcome, SystemClock};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::any::Any;
use std::cell::RefCell;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/runtime.js")]
extern "C" {
    #[wasm_bindgen(js_name = freezeState)]
    fn freeze_state(state: &JsValue, names: Vec<String>);
}

/// How many (frozen JS state, Rust state) pairs are kept, over all reducers.
pub const CACHE_SIZE: usize = 8;

struct CacheEntry {
    js: JsValue,
    state: Box<dyn Any>,
}

thread_local! {
    /// Most recently used last.
    static CACHE: RefCell<Vec<CacheEntry>> = const { RefCell::new(Vec::new()) };
}

/// Takes the Rust state behind `js`, a state this module returned, if it is still cached.
fn cache_take<S: 'static>(js: &JsValue) -> Option<S> {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        let index = cache
            .iter()
            .position(|e| e.state.is::<S>() && e.js == *js)?;
        cache.remove(index).state.downcast::<S>().ok().map(|s| *s)
    })
}

fn cache_put<S: 'static>(js: JsValue, state: S) {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_SIZE {
            cache.remove(0);
        }
        cache.push(CacheEntry {
            js,
            state: Box::new(state),
        });
    });
}

/// A state type whose JS form can be updated below the top level for some actions.
pub trait FinePatch: Sized {
    /// Top-level fields rebuilt here instead of by a full re-serialization: (name, new frozen
    /// value). `old` is the cached (frozen) JS state, `state` the Rust state after `action`.
    fn fine_fields(
        _old: &JsValue,
        _state: &Self,
        _action: &StateAction,
    ) -> Result<Vec<(&'static str, JsValue)>, JsValue> {
        Ok(Vec::new())
    }
}

impl FinePatch for RootState {}
impl FinePatch for TerminalState {}
impl FinePatch for ChangesetState {}
impl FinePatch for ResourceWatchState {}

impl FinePatch for SessionState {
    fn fine_fields(
        old: &JsValue,
        state: &Self,
        action: &StateAction,
    ) -> Result<Vec<(&'static str, JsValue)>, JsValue> {
        Ok(super::fine_patch::active_turn(old, state, action)?
            .map(|turn| ("activeTurn", turn))
            .into_iter()
            .collect())
    }
}

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
state_fields!(
    RootStateField,
    SessionStateField,
    TerminalStateField,
    ChangesetStateField,
    ResourceWatchStateField
);

type Reducer<S, F> = fn(&mut S, &StateAction, &dyn Clock) -> Outcome<F>;

/// Converts (or finds in the cache), reduces, and writes back what changed.
pub fn reduce_js<S, F>(
    state: &JsValue,
    action: &JsValue,
    reducer: Reducer<S, F>,
) -> Result<JsValue, JsValue>
where
    S: DeserializeOwned + Serialize + FinePatch + 'static,
    F: StateField,
{
    let action: StateAction = from_js(action, "action")?;
    let (mut typed, cached) = match cache_take::<S>(state) {
        Some(typed) => (typed, true),
        None => (from_js::<S>(state, "state")?, false),
    };
    match reducer(&mut typed, &action, &SystemClock) {
        Outcome::NoOp(_) => {
            // The caller gets its own object back; only a state we froze can be cached.
            if cached {
                cache_put(state.clone(), typed);
            }
            Ok(state.clone())
        }
        Outcome::Applied(changed) => {
            // A cached input is frozen and matches `typed` except where the action changed it;
            // any other input is rebuilt entirely, so that the output is all ours and frozen.
            let fine = if cached {
                S::fine_fields(state, &typed, &action)?
            } else {
                Vec::new()
            };
            let names: Vec<&str> = F::ALL
                .iter()
                .filter(|f| !cached || changed.contains(**f))
                .map(|f| f.wire_name())
                .filter(|name| !fine.iter().any(|(n, _)| n == name))
                .collect();
            let out = patch_struct(state, &typed, &names)?;
            for (name, value) in &fine {
                js_sys::Reflect::set(&out, &JsValue::from_str(name), value)?;
            }
            freeze_state(&out, names.iter().map(|n| (*n).to_owned()).collect());
            cache_put(out.clone(), typed);
            Ok(out)
        }
    }
}

fn run<S, F>(
    state: Ts<S>,
    action: Ts<StateAction>,
    reducer: Reducer<S, F>,
) -> Result<Ts<S>, JsValue>
where
    S: Tsify + DeserializeOwned + Serialize + FinePatch + 'static,
    F: StateField,
{
    reduce_js(&state.js_value(), &action.js_value(), reducer).map(Ts::new_unchecked)
}

/// Applies `action` to the root state (`ahp-root://`): returns a new, deeply frozen state, or `state`
/// itself when the action does not apply. Throws `InvalidInputError` for a value of the wrong
/// shape.
#[wasm_bindgen(js_name = rootReducer)]
pub fn root_reducer(
    state: Ts<RootState>,
    action: Ts<StateAction>,
) -> Result<Ts<RootState>, JsValue> {
    run(state, action, reduce::root_reducer)
}

/// Applies `action` to a session's state: returns a new, deeply frozen state, or `state`
/// itself when the action does not apply. Throws `InvalidInputError` for a value of the wrong
/// shape.
#[wasm_bindgen(js_name = sessionReducer)]
pub fn session_reducer(
    state: Ts<SessionState>,
    action: Ts<StateAction>,
) -> Result<Ts<SessionState>, JsValue> {
    run(state, action, reduce::session_reducer)
}

/// Applies `action` to a terminal's state: returns a new, deeply frozen state, or `state`
/// itself when the action does not apply. Throws `InvalidInputError` for a value of the wrong
/// shape.
#[wasm_bindgen(js_name = terminalReducer)]
pub fn terminal_reducer(
    state: Ts<TerminalState>,
    action: Ts<StateAction>,
) -> Result<Ts<TerminalState>, JsValue> {
    run(state, action, reduce::terminal_reducer)
}

/// Applies `action` to a changeset's state: returns a new, deeply frozen state, or `state`
/// itself when the action does not apply. Throws `InvalidInputError` for a value of the wrong
/// shape.
#[wasm_bindgen(js_name = changesetReducer)]
pub fn changeset_reducer(
    state: Ts<ChangesetState>,
    action: Ts<StateAction>,
) -> Result<Ts<ChangesetState>, JsValue> {
    run(state, action, reduce::changeset_reducer)
}

/// Applies `action` to a resource watch's state: returns a new, deeply frozen state, or `state`
/// itself when the action does not apply. Throws `InvalidInputError` for a value of the wrong
/// shape.
#[wasm_bindgen(js_name = resourceWatchReducer)]
pub fn resource_watch_reducer(
    state: Ts<ResourceWatchState>,
    action: Ts<StateAction>,
) -> Result<Ts<ResourceWatchState>, JsValue> {
    run(state, action, reduce::resource_watch_reducer)
}
