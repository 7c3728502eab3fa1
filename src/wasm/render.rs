//! The one render path: a frozen JS value brought up to date from a [`StatePatch`] (what
//! [`MirrorState::describe`] says an action or a batch did), reading new values from the Rust
//! state. Fine steps copy only the path to what they touch (a streamed delta is concatenated in
//! JS, a changed tool call is serialized alone, new parts or turns are pushed); whole-field steps
//! rebuild just those top-level fields. Everything else keeps its identity (`===`), so UI
//! frameworks re-render only what changed. The result is deeply frozen.
//!
//! Two users: [`RenderedState`], the view of a mirror's optimistic state behind the wasm
//! `Subscription`, and the exported reducers (`sessionReducer`, ...: [`super::reducers`]), which
//! patch the frozen state they returned last time.

use super::convert::{patch_struct, to_js};
use crate::protocol::encode::Encode;
use crate::sync::{MirrorState, PatchOp, StatePatch};
use crate::wasm::wire::{with_typed, AnyMirror, ResponsePart, ToolCallState, TurnsState};
use std::any::Any;
use std::cell::Cell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/render.js")]
extern "C" {
    #[wasm_bindgen(js_name = renderUseMemory)]
    fn render_use_memory(memory: &JsValue);
    #[wasm_bindgen(js_name = renderParseFrozen, catch)]
    fn render_parse_frozen(text: &js_sys::JsString) -> Result<JsValue, JsValue>;
    // Each step hands its result to `sink` too (the `Subscription` object whose `state` it is,
    // or `undefined`): see [`RenderedState`].
    #[wasm_bindgen(js_name = renderFreezeFields)]
    fn freeze_fields(state: &JsValue, names: Vec<String>, sink: &JsValue);
    /// `text` is passed as a pointer and length into wasm memory (see js/render.js).
    #[wasm_bindgen(js_name = renderAppendPartText)]
    fn append_part_text(
        state: &JsValue,
        index: u32,
        text_ptr: u32,
        text_len: u32,
        sink: &JsValue,
    ) -> JsValue;
    /// `text` as in `append_part_text`; `key` is the part's text member.
    #[wasm_bindgen(js_name = renderAppendTerminalText)]
    fn append_terminal_text(
        state: &JsValue,
        index: u32,
        key: &str,
        text_ptr: u32,
        text_len: u32,
        sink: &JsValue,
    ) -> JsValue;
    /// `text` as in `append_part_text`.
    #[wasm_bindgen(js_name = renderAppendToolInput)]
    fn append_tool_input(
        state: &JsValue,
        index: u32,
        text_ptr: u32,
        text_len: u32,
        sink: &JsValue,
    ) -> JsValue;
    #[wasm_bindgen(js_name = renderReplacePart)]
    fn replace_part(state: &JsValue, index: u32, part: &JsValue, sink: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = renderPushParts)]
    fn push_parts(state: &JsValue, from: u32, added: &JsValue, sink: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = renderPushTurns)]
    fn push_turns(state: &JsValue, from: u32, added: &JsValue, sink: &JsValue) -> JsValue;
    /// The sink has no current value any more (its `state` is read from wasm again).
    #[wasm_bindgen(js_name = renderRetract)]
    fn retract(sink: &JsValue);
    #[wasm_bindgen(js_name = renderSinkInit)]
    fn sink_init(object: &JsValue);
}

/// Prepares a `Subscription` object to be a [`RenderedState`]'s sink (its state property not
/// enumerable, so `JSON.stringify` and `Object.keys` do not show it).
pub fn init_sink(object: &JsValue) {
    sink_init(object);
}

thread_local! {
    static MEMORY_SHARED: Cell<bool> = const { Cell::new(false) };
}

/// `text` as js/render.js reads appended text: a pointer and a length into the wasm memory
/// (handed to it once). JS reads it during the call, while `text` is borrowed here.
fn in_memory(text: &str) -> (u32, u32) {
    if !MEMORY_SHARED.with(Cell::get) {
        render_use_memory(&wasm_bindgen::memory());
        MEMORY_SHARED.with(|shared| shared.set(true));
    }
    (text.as_ptr() as u32, text.len() as u32)
}

/// JSON text already in JS, parsed there and deeply frozen.
pub fn parse_frozen(text: &js_sys::JsString) -> Result<JsValue, JsValue> {
    render_parse_frozen(text).map_err(|e| {
        let why = super::errors::describe(&e);
        super::errors::internal(&format!("parsing checked JSON text: {why}"))
    })
}

/// Applies `patch` to `value`, the frozen rendering of the state before the change, reading new
/// values from `state`, the Rust state after it. Returns the new frozen rendering (`value`
/// itself for an empty patch); `value` is left as it is. Each step's result is handed to
/// `sink` as well (`undefined`: none; see [`RenderedState`]).
pub fn apply_patch<S: MirrorState>(
    value: &JsValue,
    state: &S,
    patch: &StatePatch,
    sink: &JsValue,
) -> Result<JsValue, JsValue> {
    apply_patch_to(value, state, patch, sink)
}

/// What rendering needs of a channel state, as an object: one copy of the patching code for
/// every kind of state of either protocol version, not one each.
trait Rendered {
    /// Whether `fields` names every top-level field of the state.
    fn names_every_field(&self, fields: &[&str]) -> bool;
    /// [`patch_struct`] of this state.
    fn patch_fields(&self, value: &JsValue, fields: &[&str]) -> Result<JsValue, JsValue>;
    /// The whole state as JSON text.
    fn text(&self) -> String;
    /// The state, when it holds the turns (a 0.3.0 session, a 1.0 chat).
    fn as_turns(&self) -> Option<&TurnsState>;
}

impl<S: MirrorState> Rendered for S {
    fn names_every_field(&self, fields: &[&str]) -> bool {
        S::fields()
            .iter()
            .all(|&field| fields.contains(&S::field_name(field)))
    }
    fn patch_fields(&self, value: &JsValue, fields: &[&str]) -> Result<JsValue, JsValue> {
        patch_struct(value, self, fields)
    }
    fn text(&self) -> String {
        crate::protocol::encode::to_text(self)
    }
    fn as_turns(&self) -> Option<&TurnsState> {
        (self as &dyn Any).downcast_ref::<TurnsState>()
    }
}

#[inline(never)]
fn apply_patch_to(
    value: &JsValue,
    state: &dyn Rendered,
    patch: &StatePatch,
    sink: &JsValue,
) -> Result<JsValue, JsValue> {
    let mut value = value.clone();
    let mut fields: Vec<&str> = Vec::new();
    for op in &patch.ops {
        value = match op {
            PatchOp::Field(name) => {
                fields.push(name);
                continue;
            }
            PatchOp::AppendTerminalText { index, key, text } => {
                let (ptr, len) = in_memory(text);
                append_terminal_text(&value, *index as u32, key, ptr, len, sink)
            }
            fine => apply_from_turns(&value, state, fine, sink)?,
        };
    }
    if fields.is_empty() {
        return Ok(value);
    }
    if state.names_every_field(&fields) {
        // Every field (a new snapshot, a state converted in full): a new value, whole, so that
        // the state's unknown top-level members are the state's too (a snapshot may change them).
        return frozen_text(&state.text(), sink);
    }
    let next = state.patch_fields(&value, &fields)?;
    freeze_fields(&next, fields.iter().map(|n| n.to_string()).collect(), sink);
    Ok(next)
}

/// A fine step whose new values are read from the state holding the turns.
fn apply_from_turns(
    value: &JsValue,
    state: &dyn Rendered,
    op: &PatchOp,
    sink: &JsValue,
) -> Result<JsValue, JsValue> {
    let Some(state) = state.as_turns() else {
        return Err(super::errors::internal(
            "a turns patch for a channel of another kind",
        ));
    };
    let parts = state
        .active_turn
        .as_ref()
        .map(|t| &t.response_parts[..])
        .unwrap_or_default();
    let missing = || super::errors::internal("a patch step is out of range of the state");
    Ok(match op {
        PatchOp::AppendPartText { index, appended } => {
            let content = match parts.get(*index) {
                Some(ResponsePart::Markdown(p)) => &p.content,
                Some(ResponsePart::Reasoning(p)) => &p.content,
                _ => return Err(missing()),
            };
            let (ptr, len) = in_memory(content.get(appended.clone()).ok_or_else(missing)?);
            append_part_text(value, *index as u32, ptr, len, sink)
        }
        PatchOp::AppendToolInput { index, appended } => {
            let input = match parts.get(*index) {
                Some(ResponsePart::ToolCall(call)) => match &call.tool_call {
                    ToolCallState::Streaming(s) => s.partial_input.as_deref().unwrap_or_default(),
                    _ => return Err(missing()),
                },
                _ => return Err(missing()),
            };
            let (ptr, len) = in_memory(input.get(appended.clone()).ok_or_else(missing)?);
            append_tool_input(value, *index as u32, ptr, len, sink)
        }
        PatchOp::ReplacePart { index } => replace_part(
            value,
            *index as u32,
            &to_js(parts.get(*index).ok_or_else(missing)?)?,
            sink,
        ),
        PatchOp::PushParts { from } => push_parts(
            value,
            *from as u32,
            &to_js(parts.get(*from..).ok_or_else(missing)?)?,
            sink,
        ),
        PatchOp::PushTurns { from } => push_turns(
            value,
            *from as u32,
            &to_js(state.turns.get(*from..).ok_or_else(missing)?)?,
            sink,
        ),
        PatchOp::Field(_) | PatchOp::AppendTerminalText { .. } => {
            return Err(super::errors::internal(
                "a whole-field step where a fine one was expected",
            ))
        }
    })
}

/// A new, deeply frozen JS value of a whole state (a full conversion), handed to `sink` too.
pub fn frozen_value<S: Encode>(state: &S, sink: &JsValue) -> Result<JsValue, JsValue> {
    frozen_text(&crate::protocol::encode::to_text(state), sink)
}

/// [`frozen_value`] of a state's JSON text.
#[inline(never)]
fn frozen_text(text: &str, sink: &JsValue) -> Result<JsValue, JsValue> {
    let value = super::convert::parse(text)?;
    let names: Vec<String> = js_sys::Object::keys(value.unchecked_ref::<js_sys::Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    freeze_fields(&value, names, sink);
    Ok(value)
}

/// A frozen JS copy of a mirror's optimistic state, kept up to date from patches.
///
/// The JS side of every step also stores its result on `sink`, the channel's `Subscription`
/// object, where its `state` getter (js/api.js) reads it without calling into wasm (a UI reads
/// `state` after every change). While the rendering exists the two are the same value; when it
/// is dropped the sink is cleared (`state` then asks wasm, which rebuilds or answers for an
/// ended subscription).
pub struct RenderedState {
    value: JsValue,
    sink: JsValue,
}

impl RenderedState {
    /// Converts the mirror's optimistic state in full (once, when a subscription starts);
    /// `sink`: the `Subscription` object, or `undefined`.
    pub fn new(mirror: &AnyMirror, sink: JsValue) -> Result<RenderedState, JsValue> {
        let value = with_typed!(mirror, state, s => frozen_value(s, &sink))?;
        Ok(RenderedState { value, sink })
    }

    /// Lets go of the sink, which keeps the last value (the client closed: the object must
    /// not be held from here, and shows its last state).
    pub fn release_sink(&mut self) {
        self.sink = JsValue::UNDEFINED;
    }

    /// The current frozen value.
    pub fn value(&self) -> JsValue {
        self.value.clone()
    }

    /// Brings the value up to date with the mirror after an [`Event::ChannelChanged`]
    /// (`patch` from that event), by [`apply_patch`].
    ///
    /// [`Event::ChannelChanged`]: crate::client::engine::Event::ChannelChanged
    pub fn update(&mut self, mirror: &AnyMirror, patch: &StatePatch) -> Result<(), JsValue> {
        // On an error the caller drops the rendering (rebuilt whole on the next read).
        self.value =
            with_typed!(mirror, state, s => apply_patch(&self.value, s, patch, &self.sink))?;
        Ok(())
    }
}

impl Drop for RenderedState {
    fn drop(&mut self) {
        if !self.sink.is_undefined() {
            retract(&self.sink);
        }
    }
}

/// The mirror's confirmed state as a new, deeply frozen JS value (full conversion: read it
/// when needed, not per update).
pub fn confirmed_value(mirror: &AnyMirror) -> Result<JsValue, JsValue> {
    with_typed!(mirror, confirmed, s => frozen_value(s, &JsValue::UNDEFINED))
}
