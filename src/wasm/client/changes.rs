//! [`Changes`]: what one engine drain changed, per channel, so each channel gets one
//! notification per batch; applied to the channels' renderings before any listener runs.

use super::channel::Channel;
use super::delivery::Delivery;
use crate::client::engine::Engine;
use crate::sync::{Kind, PatchBuilder, PatchOp, StatePatch};
use crate::wasm::wire::{self, ChangeSet, ChannelKind};
use litemap::LiteMap;
use std::cell::RefCell;
use std::collections::VecDeque;
use wasm_bindgen::prelude::*;

/// What one engine drain changed, per channel (empty between drains; kept for its capacity).
#[derive(Default)]
pub struct Changes(Vec<Gathered>);

impl Changes {
    /// Brings the renderings of `channels` up to date and queues one `Changed` delivery per
    /// channel that has listeners; returns itself emptied. Runs no user code.
    pub fn apply(
        self,
        channels: &RefCell<LiteMap<String, Channel>>,
        engine: &Engine,
        queue: &mut VecDeque<Delivery>,
    ) -> Changes {
        let Changes(mut gathered) = self;
        if !gathered.is_empty() {
            let mut channels = channels.borrow_mut();
            for g in gathered.drain(..) {
                let Some(entry) = channels.get_mut(&g.channel) else {
                    continue;
                };
                if let Some(delivery) = g.apply_to(entry, engine) {
                    queue.push_back(delivery);
                }
            }
        }
        Changes(gathered)
    }

    fn slot(&mut self, channel: String) -> &mut Gathered {
        let i = match self.0.iter().position(|g| g.channel == channel) {
            Some(i) => i,
            None => {
                self.0.push(Gathered {
                    channel,
                    changed: None,
                    confirmed_changed: false,
                    patch: None,
                    replaced: false,
                    pending: 0,
                    rejections: Vec::new(),
                });
                self.0.len() - 1
            }
        };
        &mut self.0[i]
    }

    /// The channel's state changed (`patch` describes how; `confirmed_changed`: the confirmed
    /// state did too).
    pub fn changed(
        &mut self,
        channel: String,
        changed: ChangeSet,
        confirmed_changed: bool,
        pending: usize,
        patch: StatePatch,
    ) {
        let g = self.slot(channel);
        g.changed = Some(match g.changed {
            Some(c) => c.union(changed),
            None => changed,
        });
        g.confirmed_changed |= confirmed_changed;
        g.patch = Some(match g.patch.take() {
            Some(earlier) => combine([earlier, patch]),
            None => patch,
        });
        g.pending = pending;
    }

    /// The channel got a fresh snapshot.
    pub fn subscribed(&mut self, channel: String, pending: usize) {
        let g = self.slot(channel);
        g.replaced = true;
        g.pending = pending;
    }

    /// The host rejected one of the channel's pending actions.
    pub fn rejected(&mut self, channel: String, rejection: JsValue) {
        self.slot(channel).rejections.push(rejection);
    }
}

/// One patch for two consecutive updates (values are read from the state after the last; an
/// appended byte range of the first stays where it was, as text only grows by appending, or
/// is inside a part the second takes whole).
fn combine(patches: [StatePatch; 2]) -> StatePatch {
    let mut builder = PatchBuilder::default();
    for patch in patches {
        for op in patch.ops {
            match op {
                PatchOp::Field(name) => builder.field(name),
                PatchOp::AppendPartText { index, appended } => {
                    builder.append_part_text(index, appended)
                }
                PatchOp::ReplacePart { index } => builder.replace_part(index),
                PatchOp::PushParts { from } => builder.push_parts(from),
                PatchOp::PushTurns { from } => builder.push_turns(from),
                PatchOp::AppendTerminalText { index, key, text } => {
                    builder.append_terminal_text(index, key, &text)
                }
                PatchOp::AppendToolInput { index, appended } => {
                    builder.append_tool_input(index, appended)
                }
            }
        }
    }
    builder.finish()
}

/// Every top-level field name of a channel kind (a fresh snapshot replaced them all).
fn all_names(kind: ChannelKind) -> Vec<&'static str> {
    kind.field_names(u64::MAX)
}

/// Changes of one channel gathered during one drain.
struct Gathered {
    channel: String,
    changed: Option<ChangeSet>,
    confirmed_changed: bool,
    /// The channel's patches of this drain, combined.
    patch: Option<StatePatch>,
    /// A fresh snapshot replaced the state.
    replaced: bool,
    pending: usize,
    /// Rejections of its pending actions, as JS values.
    rejections: Vec<JsValue>,
}

impl Gathered {
    /// Updates the channel's renderings; the notification for its listeners, if it has any.
    fn apply_to(self, entry: &mut Channel, engine: &Engine) -> Option<Delivery> {
        let mirror = wire::mirror(engine, &self.channel);
        if self.replaced || mirror.is_none() {
            entry.forget_renderings();
        } else if let (Some(render), Some(mirror), Some(_), Some(patch)) =
            (entry.render.as_mut(), mirror, self.changed, &self.patch)
        {
            if render.update(mirror, patch).is_err() {
                entry.render = None; // rebuilt in full on the next read
            }
        }
        if self.confirmed_changed {
            entry.confirmed = None;
        }
        if entry.listeners.is_empty() {
            return None; // nobody to tell (a listener added later sees later changes)
        }
        let changed: Vec<&'static str> = match (self.replaced, mirror) {
            (true, Some(m)) => all_names(m.kind()),
            _ => self.changed.map(|c| c.names()).unwrap_or_default(),
        };
        Some(Delivery::Changed {
            channel: self.channel,
            changed,
            pending: self.pending,
            rejections: self.rejections,
        })
    }
}
