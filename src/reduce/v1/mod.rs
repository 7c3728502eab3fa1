//! The AHP 1.0.0 reducers, one per channel, over the 1.0 wire model (`crate::protocol::v1`):
//! `fn(&mut State, &StateAction) -> Outcome<StateField>`, beside the 0.3.0 ones (`super`).
//!
//! The same rules as 0.3.0's. Where the official reducers and the conformance fixtures agree,
//! these match them (the fixtures come from the official TypeScript reducers that hosts run,
//! and the official Rust reducers of `ahp` 1.0.0 pass every one); where the Rust reducer
//! departs from what the TypeScript ones do, these follow TypeScript and the handler says so.
//! `tests/conformance_v1.rs` holds them to the fixtures, and the `reference_v1_*` tests to the
//! Rust reducers on random sequences over every action type.
//!
//! Every reducer validates an action against the current state before mutating anything, so an
//! action that does not apply (an unknown target, another channel's action, an action type or
//! enum value from a newer version) leaves the state untouched and reports [`Outcome::NoOp`].
//! Members this version does not know (`extra`) are kept on whatever the action leaves in
//! place. No 1.0 action reads a clock: timestamps come with the actions.

mod annotations;
mod automation;
mod automation_run;
mod canvas;
mod changeset;
mod chat;
pub(crate) use chat::tool_call_id;
mod resource_watch;
mod root;
mod session;
mod terminal;
mod timestamp;

#[cfg(test)]
mod tests;

pub use annotations::annotations_reducer;
pub use automation::automation_reducer;
pub use automation_run::automation_run_reducer;
pub use canvas::canvas_reducer;
pub use changeset::changeset_reducer;
pub use chat::chat_reducer;
pub use resource_watch::resource_watch_reducer;
pub use root::root_reducer;
pub use session::session_reducer;
pub use terminal::terminal_reducer;
pub use timestamp::{add_milliseconds, from_unix_millis, unix_millis};

use super::{replace, set, Changed, NoOp, Outcome};
use crate::protocol::v1::SessionStatus;

/// What a handler reports: the top-level fields it changed, or why it left the state alone.
type Handled<F> = Result<Changed<F>, NoOp>;

/// A handler's result as an [`Outcome`].
fn outcome<F>(handled: Handled<F>) -> Outcome<F> {
    match handled {
        Ok(changed) => Outcome::Applied(changed),
        Err(reason) => Outcome::NoOp(reason),
    }
}

/// The mutually exclusive activity bits of a status (idle, error, in progress, input needed).
const ACTIVITY_MASK: u32 = (1 << 5) - 1;

/// `status` with `flag` (`IsRead`, `IsArchived`) set or cleared, other bits kept.
fn with_flag(status: u32, flag: SessionStatus, set: bool) -> u32 {
    if set {
        status | flag.bits()
    } else {
        status & !flag.bits()
    }
}

/// `status` with its activity replaced by `activity`, flags and unknown bits kept.
fn with_activity(status: u32, activity: SessionStatus) -> u32 {
    (status & !ACTIVITY_MASK) | activity.bits()
}

/// Inserts `item` in place of the first element with its key, or appends it.
fn upsert<T: Clone, K: PartialEq>(list: &mut Vec<T>, item: &T, key: impl Fn(&T) -> K) {
    let wanted = key(item);
    match list.iter_mut().find(|existing| key(existing) == wanted) {
        Some(existing) => existing.clone_from(item),
        None => list.push(item.clone()),
    }
}

/// Replaces the first element `matches` picks with a clone of `item`, or appends one; an absent
/// list is created first.
fn upsert_where<T: Clone>(list: &mut Option<Vec<T>>, item: &T, matches: impl Fn(&T) -> bool) {
    let list = list.get_or_insert_with(Vec::new);
    match list.iter_mut().find(|existing| matches(existing)) {
        Some(existing) => existing.clone_from(item),
        None => list.push(item.clone()),
    }
}

/// Removes the first element `matches` picks; `Err(UnknownTarget)` when none does.
fn remove_first<T>(list: &mut Vec<T>, matches: impl Fn(&T) -> bool) -> Result<(), NoOp> {
    let index = list.iter().position(matches).ok_or(NoOp::UnknownTarget)?;
    list.remove(index);
    Ok(())
}

/// A merge of `config` into `values`, or (`replace`) `config` in place of them: the
/// `root/configChanged` and `session/configChanged` rule. No config state: nothing to change.
fn merge_config(
    values: Option<&mut crate::protocol::JsonObject>,
    config: &crate::protocol::JsonObject,
    replace: Option<bool>,
) -> Result<(), NoOp> {
    let values = values.ok_or(NoOp::NothingToChange)?;
    if replace == Some(true) {
        values.clone_from(config);
    } else {
        for (key, value) in config {
            values.insert(key.clone(), value.clone());
        }
    }
    Ok(())
}
