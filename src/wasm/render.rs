//! [`RenderedState`]: the render-ready JS view of a mirror's optimistic state, for the wasm
//! `Subscription`. The value is deeply frozen; an update copies only the path to what changed,
//! everything else keeps its identity (`===`), so UI frameworks re-render only what changed.

use super::convert::{patch_struct, to_js};
use crate::sync::{AnyMirror, PatchOp, StatePatch};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/runtime.js")]
extern "C" {
    #[wasm_bindgen(js_name = freezeState)]
    fn freeze_state(state: &JsValue, names: Vec<String>);
}

#[wasm_bindgen(module = "/js/render.js")]
extern "C" {
    #[wasm_bindgen(js_name = renderUseMemory)]
    fn render_use_memory(memory: &JsValue);
    /// `text` is passed as a pointer and length into wasm memory (see js/render.js).
    #[wasm_bindgen(js_name = renderAppendPartText)]
    fn append_part_text(state: &JsValue, index: u32, text_ptr: u32, text_len: u32) -> JsValue;
    #[wasm_bindgen(js_name = renderReplacePart)]
    fn replace_part(state: &JsValue, index: u32, part: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = renderPushParts)]
    fn push_parts(state: &JsValue, from: u32, added: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = renderPushTurns)]
    fn push_turns(state: &JsValue, from: u32, added: &JsValue) -> JsValue;
}

/// Runs `$body` with `$s` bound to the typed optimistic state, whatever the kind.
macro_rules! with_state {
    ($mirror:expr, $s:ident => $body:expr) => {
        match $mirror {
            AnyMirror::Root(m) => {
                let $s = m.state();
                $body
            }
            AnyMirror::Session(m) => {
                let $s = m.state();
                $body
            }
            AnyMirror::Terminal(m) => {
                let $s = m.state();
                $body
            }
            AnyMirror::Changeset(m) => {
                let $s = m.state();
                $body
            }
            AnyMirror::ResourceWatch(m) => {
                let $s = m.state();
                $body
            }
        }
    };
}

macro_rules! with_confirmed {
    ($mirror:expr, $s:ident => $body:expr) => {
        match $mirror {
            AnyMirror::Root(m) => {
                let $s = m.confirmed();
                $body
            }
            AnyMirror::Session(m) => {
                let $s = m.confirmed();
                $body
            }
            AnyMirror::Terminal(m) => {
                let $s = m.confirmed();
                $body
            }
            AnyMirror::Changeset(m) => {
                let $s = m.confirmed();
                $body
            }
            AnyMirror::ResourceWatch(m) => {
                let $s = m.confirmed();
                $body
            }
        }
    };
}

/// A frozen JS copy of a mirror's optimistic state, kept up to date from patches.
pub struct RenderedState {
    value: JsValue,
}

impl RenderedState {
    /// Converts the mirror's optimistic state in full (once, when a subscription starts).
    pub fn new(mirror: &AnyMirror) -> Result<RenderedState, JsValue> {
        let value = with_state!(mirror, s => to_js(s))?;
        deep_freeze_all(&value);
        render_use_memory(&wasm_bindgen::memory());
        Ok(RenderedState { value })
    }

    /// The current frozen value.
    pub fn value(&self) -> JsValue {
        self.value.clone()
    }

    /// Brings the value up to date with the mirror after an [`Event::ChannelChanged`]
    /// (`patch` from that event): the fine steps copy only the path to what they touch, the
    /// whole-field steps rebuild just those fields.
    ///
    /// [`Event::ChannelChanged`]: crate::client::engine::Event::ChannelChanged
    pub fn update(&mut self, mirror: &AnyMirror, patch: &StatePatch) -> Result<(), JsValue> {
        // On an error the caller drops the rendering (rebuilt whole on the next read).
        let mut fields: Vec<&str> = Vec::new();
        for op in &patch.ops {
            let value = &self.value;
            self.value = match op {
                PatchOp::Field(name) => {
                    fields.push(name);
                    continue;
                }
                PatchOp::AppendPartText { index, text } => {
                    // Read by JS during the call, while `text` is borrowed here.
                    append_part_text(
                        value,
                        *index as u32,
                        text.as_ptr() as u32,
                        text.len() as u32,
                    )
                }
                fine => apply_from_session(value, mirror, fine)?,
            };
        }
        if !fields.is_empty() {
            let value = with_state!(mirror, s => patch_struct(&self.value, s, &fields))?;
            freeze_state(&value, fields.iter().map(|n| n.to_string()).collect());
            self.value = value;
        }
        Ok(())
    }
}

/// A fine step whose new values are read from the (session) state.
fn apply_from_session(
    value: &JsValue,
    mirror: &AnyMirror,
    op: &PatchOp,
) -> Result<JsValue, JsValue> {
    let AnyMirror::Session(m) = mirror else {
        return Err(super::errors::internal(
            "a session patch for a channel of another kind",
        ));
    };
    let state = m.state();
    let parts = state
        .active_turn
        .as_ref()
        .map(|t| &t.response_parts[..])
        .unwrap_or_default();
    let missing = || super::errors::internal(&format!("patch step {op:?} is out of range"));
    Ok(match op {
        PatchOp::ReplacePart { index } => replace_part(
            value,
            *index as u32,
            &to_js(parts.get(*index).ok_or_else(missing)?)?,
        ),
        PatchOp::PushParts { from } => push_parts(
            value,
            *from as u32,
            &to_js(parts.get(*from..).ok_or_else(missing)?)?,
        ),
        PatchOp::PushTurns { from } => push_turns(
            value,
            *from as u32,
            &to_js(state.turns.get(*from..).ok_or_else(missing)?)?,
        ),
        PatchOp::Field(_) | PatchOp::AppendPartText { .. } => {
            return Err(super::errors::internal(
                "a whole-field step where a fine one was expected",
            ))
        }
    })
}

/// The mirror's confirmed state as a new, deeply frozen JS value (full conversion: read it
/// when needed, not per update).
pub fn confirmed_value(mirror: &AnyMirror) -> Result<JsValue, JsValue> {
    let value = with_confirmed!(mirror, s => to_js(s))?;
    deep_freeze_all(&value);
    Ok(value)
}

fn deep_freeze_all(value: &JsValue) {
    let names: Vec<String> = js_sys::Object::keys(value.unchecked_ref::<js_sys::Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    freeze_state(value, names);
}
