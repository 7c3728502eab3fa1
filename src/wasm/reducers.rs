//! The pure reducers for JavaScript, one per state-bearing channel of the protocol version the
//! build speaks: AHP 0.3.0 by default (`rootReducer`, `sessionReducer`, `terminalReducer`,
//! `changesetReducer`, `resourceWatchReducer`), AHP 1.0 with cargo feature `v1` (`rootReducer`,
//! `sessionReducer`, `chatReducer`, `terminalReducer`, `changesetReducer`,
//! `resourceWatchReducer`, `annotationsReducer`, `canvasReducer`, `automationReducer`,
//! `automationRunReducer`, the official 1.0 TypeScript names). Both versions share the machinery
//! below: it is generic over [`MirrorState`], the one trait every channel state of either
//! version implements.
//!
//! Same contract as the official TypeScript package: `(state, action) => newState`, the input
//! is never mutated; an action that does not apply (unknown type, another channel's action,
//! wrong turn, ...) returns the input state itself; otherwise a new object. The 0.3.0 clock for
//! `modifiedAt`-style fields is `Date.now()`; no 1.0 reducer reads a clock (1.0 actions carry
//! their timestamps). A value of the wrong shape throws an `InvalidInputError`.
//!
//! Cost. Converting a whole state between JS and Rust on every action would make each action
//! cost as much as the session's history (milliseconds for a few dozen turns). So the states
//! these functions return are deeply frozen, and a small cache keeps the Rust state behind each
//! of the most recent ones ([`CACHE_SIZE`]). When a returned state comes back as input (the
//! usual `state = reducer(state, action)` chain), only the action is converted, and the new
//! state is made by the same render path as a subscription's ([`super::render`]): the reducer's
//! [`MirrorState::describe`] says what the action changed as a [`StatePatch`] (a streamed delta
//! appends to one part, a tool-call update replaces one part, other actions name the top-level
//! fields they changed), and [`apply_patch`] copies only the path to what changed; everything
//! else keeps its identity. A state the cache does not know (the caller's own object, an older
//! state) is converted in full, and the result is entirely new and frozen (unknown members of
//! the caller's objects, at any depth, are kept: the wire types carry them, see
//! [`Extra`](crate::protocol::Extra)). Freezing is what makes the cache sound:
//! a frozen state cannot have changed since it was returned.
//!
//! The same call twice in a row (the same state object, an equal action) returns the first
//! call's result: React's `StrictMode` calls a reducer twice that way, and the input's Rust
//! state went into the first result, so the second call would otherwise convert it in full.
//! The reducers are pure, so the first result is the answer (for 0.3.0, one clock reading for
//! both).

use super::convert::{decode_json_text, from_json_text, text_from_js, to_json_js, to_json_text};
use super::render::{apply_patch, parse_frozen};
use crate::protocol::decode::Decode;
use crate::reduce::{Outcome, SystemClock};
use crate::sync::{MirrorState, PatchBuilder, StatePatch};
use std::any::{Any, TypeId};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

#[cfg(not(feature = "v1"))]
pub use exports_0_3::*;
#[cfg(feature = "v1")]
pub use exports_1_0::*;

/// How many (frozen JS state, Rust state) pairs are kept, over all reducers.
pub const CACHE_SIZE: usize = 8;

struct CacheEntry {
    js: JsValue,
    state: Box<dyn Reducible>,
}

thread_local! {
    /// Most recently used last.
    static CACHE: RefCell<Vec<CacheEntry>> = const { RefCell::new(Vec::new()) };
}

/// Takes the Rust state of kind `reducer` behind `js`, a state this module returned, if it is
/// still cached.
fn cache_take(reducer: TypeId, js: &JsValue) -> Option<Box<dyn Reducible>> {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        let index = cache
            .iter()
            .position(|e| e.state.kind() == reducer && e.js == *js)?;
        Some(cache.remove(index).state)
    })
}

fn cache_put(js: JsValue, state: Box<dyn Reducible>) {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_SIZE {
            cache.remove(0);
        }
        cache.push(CacheEntry { js, state });
    });
}

/// What [`reduce_typed`] does with a state of any channel of either version, as an object: one
/// copy of the cache, conversion and render logic for every reducer, not one compiled into each
/// export. The action is passed as `dyn Any` so that the object type is version-free.
trait Reducible {
    /// The state's type, which its reducer's calls key the cache by.
    fn kind(&self) -> TypeId;
    /// Applies `action`, which is the state's version's action union (probe, reduce, describe):
    /// `None` when it does not apply, else what to render: what the action changed if
    /// `describe`, else every top-level field.
    fn apply(&mut self, action: &dyn Any, describe: bool) -> Option<StatePatch>;
    /// `before` (a frozen JS form of the state before the action) with `patch` applied.
    fn render(&self, before: &JsValue, patch: &StatePatch) -> Result<JsValue, JsValue>;
}

impl<S: MirrorState> Reducible for S {
    fn kind(&self) -> TypeId {
        TypeId::of::<S>()
    }

    fn apply(&mut self, action: &dyn Any, describe: bool) -> Option<StatePatch> {
        // The callers pair a state with its own version's action (`reduce_js`), so this never
        // fails; were it to, the action would be one that does not apply.
        let action = action.downcast_ref::<S::Action>()?;
        let before = self.probe();
        // 1.0's reducers ignore the clock.
        let Outcome::Applied(changed) = self.reduce(action, &SystemClock) else {
            return None;
        };
        Some(if describe {
            let mut patch = PatchBuilder::default();
            self.describe(before, action, changed, &mut patch);
            patch.finish()
        } else {
            StatePatch::fields(S::fields().iter().map(|&field| S::field_name(field)))
        })
    }

    fn render(&self, before: &JsValue, patch: &StatePatch) -> Result<JsValue, JsValue> {
        apply_patch(before, self, patch, &JsValue::UNDEFINED)
    }
}

/// A state's decoder: the state of a JSON text, and whether the text held it exactly.
type DecodeState = fn(&str) -> Result<(Box<dyn Reducible>, bool), JsValue>;

fn decode_state<S: MirrorState>(text: &str) -> Result<(Box<dyn Reducible>, bool), JsValue> {
    let (state, exact) = decode_json_text::<S>(text, "state")?;
    Ok((Box::new(state), exact))
}

/// An action's decoder: a version's action union of a JSON text, boxed for [`Reducible::apply`].
type DecodeAction = fn(&str) -> Result<Box<dyn Any>, JsValue>;

fn decode_action<A: Decode + 'static>(text: &str) -> Result<Box<dyn Any>, JsValue> {
    Ok(Box::new(from_json_text::<A>(text, "action")?))
}

/// What identifies an action for [`LastCall`]: its JSON text, or a plain delta's strings
/// ([`reduce_delta`]).
enum ActionKey {
    Text(String),
    Delta([String; 3]),
}

/// The last call of any reducer here, with its result.
struct LastCall {
    reducer: TypeId,
    input: JsValue,
    action: ActionKey,
    output: JsValue,
}

thread_local! {
    static LAST_CALL: RefCell<Option<LastCall>> = const { RefCell::new(None) };
}

/// The result of the last call, if this call repeats it (`same_action` tells whether the last
/// call's action equals this one's).
fn repeated_call(
    reducer: TypeId,
    input: &JsValue,
    same_action: &dyn Fn(&ActionKey) -> bool,
) -> Option<JsValue> {
    LAST_CALL.with(|last| {
        let last = last.borrow();
        let last = last.as_ref()?;
        (last.reducer == reducer && same_action(&last.action) && last.input == *input)
            .then(|| last.output.clone())
    })
}

fn remember_call(reducer: TypeId, input: &JsValue, action: ActionKey, output: &JsValue) {
    let call = LastCall {
        reducer,
        input: input.clone(),
        action,
        output: output.clone(),
    };
    LAST_CALL.with(|last| last.replace(Some(call)));
}

/// Converts (or finds in the cache), reduces (probe, reduce, describe), and renders the change.
pub fn reduce_js<S>(state: &JsValue, action: &JsValue) -> Result<JsValue, JsValue>
where
    S: MirrorState,
    S::Action: Decode,
{
    let reducer = TypeId::of::<S>();
    reduce_js_with(
        reducer,
        decode_state::<S>,
        decode_action::<S::Action>,
        state,
        action,
    )
}

/// [`reduce_js`] for the state type `reducer`, decoded by `decode`, its actions by
/// `decode_action` (not generic: one copy).
fn reduce_js_with(
    reducer: TypeId,
    decode: DecodeState,
    decode_action: DecodeAction,
    state: &JsValue,
    action: &JsValue,
) -> Result<JsValue, JsValue> {
    let text = to_json_text(action, "action")?;
    let same = |last: &ActionKey| matches!(last, ActionKey::Text(t) if *t == text);
    if let Some(output) = repeated_call(reducer, state, &same) {
        return Ok(output);
    }
    let action = decode_action(&text)?;
    let output = reduce_typed(reducer, decode, state, &*action)?;
    remember_call(reducer, state, ActionKey::Text(text), &output);
    Ok(output)
}

/// A version's action union with a streamed-text delta (0.3.0's `session/delta`, 1.0's
/// `chat/delta`): what [`reduce_delta`] makes and takes apart.
trait DeltaAction: Sized {
    /// The delta of these strings (turn id, part id, content), with no other member.
    fn delta(strings: [String; 3]) -> Self;
    /// The strings of a delta made by [`DeltaAction::delta`].
    fn into_strings(self) -> Option<[String; 3]>;
}

#[cfg(not(feature = "v1"))]
impl DeltaAction for crate::protocol::StateAction {
    fn delta([turn_id, part_id, content]: [String; 3]) -> Self {
        Self::SessionDelta(crate::protocol::SessionDeltaAction {
            turn_id,
            part_id,
            content,
            extra: Default::default(),
        })
    }

    fn into_strings(self) -> Option<[String; 3]> {
        match self {
            Self::SessionDelta(d) => Some([d.turn_id, d.part_id, d.content]),
            _ => None,
        }
    }
}

#[cfg(feature = "v1")]
impl DeltaAction for crate::protocol::v1::StateAction {
    fn delta([turn_id, part_id, content]: [String; 3]) -> Self {
        Self::ChatDelta(crate::protocol::v1::ChatDeltaAction {
            turn_id,
            part_id,
            content,
            meta: None,
            extra: Default::default(),
        })
    }

    fn into_strings(self) -> Option<[String; 3]> {
        match self {
            Self::ChatDelta(d) => Some([d.turn_id, d.part_id, d.content]),
            _ => None,
        }
    }
}

/// The reducer of `S` on a plain delta of these strings, which the package entry took out of
/// the action (its shape and the string limits checked there): no JSON round trip for the most
/// frequent action (0.3.0's `__sessionReducerDelta`, 1.0's `__chatReducerDelta`).
fn reduce_delta<S>(state: JsValue, strings: [String; 3]) -> Result<JsValue, JsValue>
where
    S: MirrorState,
    S::Action: DeltaAction,
{
    let same = |last: &ActionKey| matches!(last, ActionKey::Delta(s) if *s == strings);
    let reducer = TypeId::of::<S>();
    if let Some(output) = repeated_call(reducer, &state, &same) {
        return Ok(output);
    }
    let action = S::Action::delta(strings);
    let output = reduce_typed(reducer, decode_state::<S>, &state, &action)?;
    if let Some(strings) = action.into_strings() {
        remember_call(reducer, &state, ActionKey::Delta(strings), &output);
    }
    Ok(output)
}

/// Where a reducer's input state came from, which decides how the output is rendered.
enum Input {
    /// A state this module returned: frozen, and matching the cached Rust state.
    Cached,
    /// Any other state, converted through its JSON text, which stays in JS: parsed again
    /// there and frozen, it is a copy that matches the Rust state as well (a fraction of the
    /// cost of rendering the whole state from Rust).
    Text(js_sys::JsString),
    /// A state whose text had lone surrogates, which the Rust state holds as U+FFFD: the
    /// output is rendered whole from Rust.
    Converted,
}

/// [`reduce_js`] with the action already decoded (the state's version's action union).
fn reduce_typed(
    reducer: TypeId,
    decode: DecodeState,
    state: &JsValue,
    action: &dyn Any,
) -> Result<JsValue, JsValue> {
    let (mut typed, input) = match cache_take(reducer, state) {
        Some(typed) => (typed, Input::Cached),
        None => {
            let text = to_json_js(state, "state")?;
            let (typed, exact) = decode(&text_from_js(&text))?;
            (
                typed,
                if exact {
                    Input::Text(text)
                } else {
                    Input::Converted
                },
            )
        }
    };
    let Some(patch) = typed.apply(action, !matches!(input, Input::Converted)) else {
        // The caller gets its own object back; only a state we froze can be cached.
        if matches!(input, Input::Cached) {
            cache_put(state.clone(), typed);
        }
        return Ok(state.clone());
    };
    let before_js = match input {
        Input::Text(text) => parse_frozen(&text)?,
        Input::Cached | Input::Converted => state.clone(),
    };
    let out = typed.render(&before_js, &patch)?;
    cache_put(out.clone(), typed);
    Ok(out)
}

/// The AHP 0.3.0 exports (the build without feature `v1`).
#[cfg(not(feature = "v1"))]
mod exports_0_3 {
    use super::{reduce_delta, reduce_js};
    use crate::protocol::{
        ChangesetState, ResourceWatchState, RootState, SessionState, StateAction, TerminalState,
    };
    use crate::sync::ChannelState;
    use tsify::{Ts, Tsify};
    use wasm_bindgen::prelude::*;

    fn run<S: ChannelState + Tsify>(
        state: Ts<S>,
        action: Ts<StateAction>,
    ) -> Result<Ts<S>, JsValue> {
        reduce_js::<S>(&state.js_value(), &action.js_value()).map(Ts::new_unchecked)
    }

    /// Applies `action` to the root state (`ahp-root://`): returns a new, deeply frozen state,
    /// or `state` itself when the action does not apply. Throws `InvalidInputError` for a value
    /// of the wrong shape.
    #[wasm_bindgen(js_name = rootReducer)]
    pub fn root_reducer(
        state: Ts<RootState>,
        action: Ts<StateAction>,
    ) -> Result<Ts<RootState>, JsValue> {
        run(state, action)
    }

    /// Applies `action` to a session's state: returns a new, deeply frozen state, or `state`
    /// itself when the action does not apply. Throws `InvalidInputError` for a value of the wrong
    /// shape.
    #[wasm_bindgen(js_name = sessionReducer)]
    pub fn session_reducer(
        state: Ts<SessionState>,
        action: Ts<StateAction>,
    ) -> Result<Ts<SessionState>, JsValue> {
        run(state, action)
    }

    /// `sessionReducer` for a `session/delta` of exactly `{type, turnId, partId, content}` (the
    /// streaming case), called by the package entry with the strings already taken out of the
    /// action: no JSON round trip for the most frequent action. The entry has checked the shape
    /// and the string limits.
    #[wasm_bindgen(js_name = "__sessionReducerDelta", skip_typescript)]
    pub fn session_reducer_delta(
        state: JsValue,
        turn_id: String,
        part_id: String,
        content: String,
    ) -> Result<JsValue, JsValue> {
        reduce_delta::<SessionState>(state, [turn_id, part_id, content])
    }

    /// Applies `action` to a terminal's state: returns a new, deeply frozen state, or `state`
    /// itself when the action does not apply. Throws `InvalidInputError` for a value of the wrong
    /// shape.
    #[wasm_bindgen(js_name = terminalReducer)]
    pub fn terminal_reducer(
        state: Ts<TerminalState>,
        action: Ts<StateAction>,
    ) -> Result<Ts<TerminalState>, JsValue> {
        run(state, action)
    }

    /// Applies `action` to a changeset's state: returns a new, deeply frozen state, or `state`
    /// itself when the action does not apply. Throws `InvalidInputError` for a value of the wrong
    /// shape.
    #[wasm_bindgen(js_name = changesetReducer)]
    pub fn changeset_reducer(
        state: Ts<ChangesetState>,
        action: Ts<StateAction>,
    ) -> Result<Ts<ChangesetState>, JsValue> {
        run(state, action)
    }

    /// Applies `action` to a resource watch's state: returns a new, deeply frozen state, or `state`
    /// itself when the action does not apply. Throws `InvalidInputError` for a value of the wrong
    /// shape.
    #[wasm_bindgen(js_name = resourceWatchReducer)]
    pub fn resource_watch_reducer(
        state: Ts<ResourceWatchState>,
        action: Ts<StateAction>,
    ) -> Result<Ts<ResourceWatchState>, JsValue> {
        run(state, action)
    }
}

/// The AHP 1.0 exports (the build with feature `v1`): one per 1.0 channel, under the official
/// 1.0 TypeScript names. Their TypeScript signatures are `js/v1/reducers.d.ts` (the 1.0 wire
/// types have no generated declarations, so the exports skip wasm-bindgen's).
#[cfg(feature = "v1")]
mod exports_1_0 {
    use super::{reduce_delta, reduce_js};
    use crate::protocol::v1::{
        AnnotationsState, AutomationRunState, AutomationState, CanvasState, ChangesetState,
        ChatState, ResourceWatchState, RootState, SessionState, TerminalState,
    };
    use wasm_bindgen::prelude::*;

    /// One 1.0 export: its Rust name, JS name, state type and what the state is.
    macro_rules! reducer_v1 {
        ($name:ident, $js:literal, $state:ty, $what:literal) => {
            #[doc = concat!("Applies an AHP 1.0 `action` to ", $what, ": returns a new, deeply")]
            #[doc = "frozen state, or `state` itself when the action does not apply. Throws"]
            #[doc = "`InvalidInputError` for a value of the wrong shape."]
            #[wasm_bindgen(js_name = $js, skip_typescript)]
            pub fn $name(state: JsValue, action: JsValue) -> Result<JsValue, JsValue> {
                reduce_js::<$state>(&state, &action)
            }
        };
    }

    reducer_v1!(
        root_reducer,
        "rootReducer",
        RootState,
        "the root state (`ahp-root://`)"
    );
    reducer_v1!(
        session_reducer,
        "sessionReducer",
        SessionState,
        "a session's state (`ahp-session:/<id>`)"
    );
    reducer_v1!(
        chat_reducer,
        "chatReducer",
        ChatState,
        "a chat's state (`ahp-chat:/<id>`)"
    );

    /// `chatReducer` for a `chat/delta` of exactly `{type, turnId, partId, content}` (the
    /// streaming case), called by the package entry with the strings already taken out of the
    /// action: no JSON round trip for the most frequent action. The entry has checked the shape
    /// and the string limits.
    #[wasm_bindgen(js_name = "__chatReducerDelta", skip_typescript)]
    pub fn chat_reducer_delta(
        state: JsValue,
        turn_id: String,
        part_id: String,
        content: String,
    ) -> Result<JsValue, JsValue> {
        reduce_delta::<ChatState>(state, [turn_id, part_id, content])
    }

    reducer_v1!(
        terminal_reducer,
        "terminalReducer",
        TerminalState,
        "a terminal's state (`ahp-terminal:/<id>`)"
    );
    reducer_v1!(
        changeset_reducer,
        "changesetReducer",
        ChangesetState,
        "a changeset's state (`ahp-changeset:/<id>`)"
    );
    reducer_v1!(
        resource_watch_reducer,
        "resourceWatchReducer",
        ResourceWatchState,
        "a resource watch's state (`ahp-resource-watch:/<id>`)"
    );
    reducer_v1!(
        annotations_reducer,
        "annotationsReducer",
        AnnotationsState,
        "a session's annotations (`ahp-session:/<id>/annotations`)"
    );
    reducer_v1!(
        canvas_reducer,
        "canvasReducer",
        CanvasState,
        "a canvas's state (`ahp-canvas:/<id>`)"
    );
    reducer_v1!(
        automation_reducer,
        "automationReducer",
        AutomationState,
        "the automation catalogue (`ahp-automations://`)"
    );
    reducer_v1!(
        automation_run_reducer,
        "automationRunReducer",
        AutomationRunState,
        "an automation run's state (`ahp-automation-run:/<id>`)"
    );
}
