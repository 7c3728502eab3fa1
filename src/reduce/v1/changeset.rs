//! The `ChangesetState` reducer: a changeset's status, files (keyed by `id`) and operations.
//!
//! `error` fields follow the "present iff status is error" rule: a status change sets the
//! action's error when the new status is `error` and clears it otherwise.

use super::{outcome, remove_first, replace, upsert, Changed, Outcome};
use crate::protocol::v1::{
    ChangesetOperationStatus, ChangesetState, ChangesetStateField, ChangesetStatus, StateAction,
};
use crate::reduce::NoOp;

/// Applies `action` to a `ChangesetState`.
pub fn changeset_reducer(
    state: &mut ChangesetState,
    action: &StateAction,
) -> Outcome<ChangesetStateField> {
    use ChangesetStateField as F;
    let handled = match action {
        StateAction::ChangesetStatusChanged(a) => {
            state.status.clone_from(&a.status);
            state.error = a
                .error
                .clone()
                .filter(|_| a.status == ChangesetStatus::Error);
            Ok(Changed::one(F::Status).with(F::Error))
        }
        StateAction::ChangesetFileSet(a) => {
            upsert(&mut state.files, &a.file, |file| file.id.clone());
            Ok(Changed::one(F::Files))
        }
        StateAction::ChangesetFileRemoved(a) => {
            remove_first(&mut state.files, |file| file.id == a.file_id)
                .map(|()| Changed::one(F::Files))
        }
        // Marks the named files reviewed or not; a no-op when none of them changes.
        StateAction::ChangesetFilesReviewChanged(a) => {
            let mut changed = false;
            for file in &mut state.files {
                if a.files.contains(&file.id) && file.reviewed != Some(a.reviewed) {
                    file.reviewed = Some(a.reviewed);
                    changed = true;
                }
            }
            if changed {
                Ok(Changed::one(F::Files))
            } else {
                Err(NoOp::NothingToChange)
            }
        }
        // The files are replaced; the operations too when the action has them.
        StateAction::ChangesetContentChanged(a) => {
            state.files.clone_from(&a.files);
            let mut changed = Changed::one(F::Files);
            if let Some(operations) = &a.operations {
                state.operations = Some(operations.clone());
                changed.insert(F::Operations);
            }
            Ok(changed)
        }
        StateAction::ChangesetOperationsChanged(a) => {
            replace(&mut state.operations, &a.operations, F::Operations)
        }
        StateAction::ChangesetOperationStatusChanged(a) => state
            .operations
            .iter_mut()
            .flatten()
            .find(|operation| operation.id == a.operation_id)
            .map(|operation| {
                operation.status.clone_from(&a.status);
                operation.error = a
                    .error
                    .clone()
                    .filter(|_| a.status == ChangesetOperationStatus::Error);
                Changed::one(F::Operations)
            })
            .ok_or(NoOp::UnknownTarget),
        StateAction::ChangesetCleared(_) => {
            if state.files.is_empty() {
                Err(NoOp::NothingToChange)
            } else {
                state.files.clear();
                Ok(Changed::one(F::Files))
            }
        }
        _ => Err(NoOp::NotForThisChannel),
    };
    outcome(handled)
}
