//! Updates below the top level of a state, for the actions that stream.
//!
//! Reducers report which top-level fields an action changed; rebuilding a whole changed field
//! is fine for most actions, but not for the ones a streaming turn sends thousands of times:
//! `session/delta` or a tool-call update would re-serialize the entire active turn (its growing
//! markdown and every earlier tool call). For those, [`active_turn`] copies only the path to the
//! one response part touched: text deltas are concatenated in JS, a changed tool call is
//! serialized alone, a new part is pushed. Everything else keeps its identity.

use super::convert::to_js;
use crate::protocol::{SessionState, StateAction};
use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/runtime.js")]
extern "C" {
    #[wasm_bindgen(js_name = appendPartText)]
    fn append_part_text(turn: &JsValue, index: u32, text: &str) -> JsValue;
    #[wasm_bindgen(js_name = replacePart)]
    fn replace_part(turn: &JsValue, index: u32, part: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = pushPart)]
    fn push_part(turn: &JsValue, part: &JsValue) -> JsValue;
}

/// The new frozen `activeTurn` of `old_state` after `action`, built from the old one by
/// touching a single response part; `None` when the action is not one of those (the caller
/// then rebuilds the field). `state` is the Rust state after the action.
pub fn active_turn(
    old_state: &JsValue,
    state: &SessionState,
    action: &StateAction,
) -> Result<Option<JsValue>, JsValue> {
    let Some(turn) = state.active_turn.as_ref() else {
        return Ok(None);
    };
    let old_turn = Reflect::get(old_state, &JsValue::from_str("activeTurn"))?;
    let Some(old_parts) = Reflect::get(&old_turn, &JsValue::from_str("responseParts"))
        .ok()
        .and_then(|p| p.dyn_into::<js_sys::Array>().ok())
    else {
        return Ok(None);
    };
    let (old_len, parts) = (old_parts.length() as usize, &turn.response_parts);
    let part_index = |id: &str| parts.iter().rposition(|p| p.target_id() == Some(id));
    let patched = match action {
        StateAction::SessionDelta(a) if old_len == parts.len() => {
            part_index(&a.part_id).map(|i| append_part_text(&old_turn, i as u32, &a.content))
        }
        StateAction::SessionReasoning(a) if old_len == parts.len() => {
            part_index(&a.part_id).map(|i| append_part_text(&old_turn, i as u32, &a.content))
        }
        StateAction::SessionToolCallStart(_) | StateAction::SessionResponsePart(_)
            if old_len + 1 == parts.len() =>
        {
            match parts.last() {
                Some(part) => Some(push_part(&old_turn, &to_js(part)?)),
                None => None,
            }
        }
        action if old_len == parts.len() => match action.updated_tool_call_id() {
            Some(id) => match part_index(id) {
                Some(i) => Some(replace_part(&old_turn, i as u32, &to_js(&parts[i])?)),
                None => None,
            },
            None => None,
        },
        _ => None,
    };
    Ok(patched)
}
