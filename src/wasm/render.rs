//! [`RenderedState`]: the render-ready JS view of a mirror's optimistic state, for the wasm
//! `Subscription`. The value is deeply frozen; an update copies only the path to what changed,
//! everything else keeps its identity (`===`), so UI frameworks re-render only what changed.

use super::convert::{patch_struct, to_js};
use crate::sync::{AnyMirror, ChangeSet, StatePatch};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/runtime.js")]
extern "C" {
    #[wasm_bindgen(js_name = freezeState)]
    fn freeze_state(state: &JsValue, names: Vec<String>);
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
        Ok(RenderedState { value })
    }

    /// The current frozen value.
    pub fn value(&self) -> JsValue {
        self.value.clone()
    }

    /// Brings the value up to date with the mirror after an [`Event::ChannelChanged`]
    /// (`changed` and `patch` from that event).
    ///
    /// [`Event::ChannelChanged`]: crate::client::engine::Event::ChannelChanged
    pub fn update(
        &mut self,
        mirror: &AnyMirror,
        changed: &ChangeSet,
        _patch: &StatePatch,
    ) -> Result<(), JsValue> {
        if changed.is_empty() {
            return Ok(());
        }
        let names = changed.names();
        let next = with_state!(mirror, s => patch_struct(&self.value, s, &names))?;
        freeze_state(&next, names.iter().map(|n| n.to_string()).collect());
        self.value = next;
        Ok(())
    }
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
