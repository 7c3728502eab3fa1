//! The `ChangesetState` reducer (expanded changeset URIs).
//!
//! `error` fields follow the spec's "present iff status is error" rule: a status transition
//! sets the action's error when the new status is `error` and clears it otherwise.

use super::{Changed, Clock, NoOp, Outcome};
use crate::protocol::{
    ChangesetOperationStatus, ChangesetOperationStatusChangedAction, ChangesetState,
    ChangesetStateField, ChangesetStatus, ErrorInfo, StateAction,
};

/// Applies `action` to a `ChangesetState`.
///
/// Files are keyed by `id`: `changeset/fileSet` replaces a file in place or appends it,
/// `changeset/fileRemoved` drops it. The official Rust crate has no changeset reducer; the
/// TypeScript one and the fixtures are the references. Changeset actions stamp no time, so `clock` is unused.
pub fn changeset_reducer(
    state: &mut ChangesetState,
    action: &StateAction,
    _clock: &dyn Clock,
) -> Outcome<ChangesetStateField> {
    use ChangesetStateField as F;
    match action {
        StateAction::ChangesetStatusChanged(a) => {
            let error = error_for(a.status == ChangesetStatus::Error, &a.error);
            let mut changed = Changed::none();
            if state.status != a.status {
                changed.insert(F::Status);
            }
            if state.error.as_ref() != error {
                changed.insert(F::Error);
            }
            if changed.is_empty() {
                return nothing();
            }
            state.status = a.status.clone();
            state.error = error.cloned();
            Outcome::Applied(changed)
        }
        StateAction::ChangesetFileSet(a) => {
            match state.files.iter_mut().find(|f| f.id == a.file.id) {
                Some(existing) if *existing == a.file => return nothing(),
                Some(existing) => existing.clone_from(&a.file),
                None => state.files.push(a.file.clone()),
            }
            applied(F::Files)
        }
        // The first file with the id, as the TypeScript reducer does (file ids are unique; a
        // snapshot holding several keeps the others).
        StateAction::ChangesetFileRemoved(a) => {
            let Some(index) = state.files.iter().position(|f| f.id == a.file_id) else {
                return Outcome::NoOp(NoOp::UnknownTarget);
            };
            state.files.remove(index);
            applied(F::Files)
        }
        StateAction::ChangesetOperationsChanged(a) => {
            if state.operations == a.operations {
                return nothing();
            }
            state.operations.clone_from(&a.operations);
            applied(F::Operations)
        }
        StateAction::ChangesetOperationStatusChanged(a) => operation_status_changed(state, a),
        StateAction::ChangesetCleared(_) => {
            if state.files.is_empty() {
                return nothing();
            }
            state.files.clear();
            applied(F::Files)
        }
        _ => Outcome::NoOp(NoOp::NotForThisChannel),
    }
}

fn applied(field: ChangesetStateField) -> Outcome<ChangesetStateField> {
    Outcome::Applied(Changed::one(field))
}

fn nothing() -> Outcome<ChangesetStateField> {
    Outcome::NoOp(NoOp::NothingToChange)
}

/// The error to store alongside a status: the action's, only when the status is `error`.
fn error_for(is_error: bool, error: &Option<ErrorInfo>) -> Option<&ErrorInfo> {
    error.as_ref().filter(|_| is_error)
}

/// Sets one operation's status; a no-op when no operation has that id (spec).
fn operation_status_changed(
    state: &mut ChangesetState,
    action: &ChangesetOperationStatusChangedAction,
) -> Outcome<ChangesetStateField> {
    let Some(operation) = state
        .operations
        .iter_mut()
        .flatten()
        .find(|o| o.id == action.operation_id)
    else {
        return Outcome::NoOp(NoOp::UnknownTarget);
    };
    let error = error_for(
        action.status == ChangesetOperationStatus::Error,
        &action.error,
    );
    if operation.status == action.status && operation.error.as_ref() == error {
        return nothing();
    }
    operation.status = action.status.clone();
    operation.error = error.cloned();
    applied(ChangesetStateField::Operations)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::FixedClock;
    use serde_json::json;
    use ChangesetStateField as F;

    const CLOCK: FixedClock = FixedClock(1.0);

    fn state(value: serde_json::Value) -> ChangesetState {
        serde_json::from_value(value).expect("valid state")
    }

    fn reduce(
        state: &mut ChangesetState,
        value: serde_json::Value,
    ) -> Outcome<ChangesetStateField> {
        let action: StateAction = serde_json::from_value(value).expect("valid action");
        changeset_reducer(state, &action, &CLOCK)
    }

    fn assert_noop(state: &mut ChangesetState, value: serde_json::Value, why: NoOp) {
        let before = state.clone();
        assert_eq!(reduce(state, value), Outcome::NoOp(why));
        assert_eq!(*state, before);
    }

    fn file(id: &str, added: u32) -> serde_json::Value {
        json!({"id": id, "edit": {"after": {"uri": id, "content": {"uri": "content:/x"}}, "diff": {"added": added}}})
    }

    fn with_ops() -> ChangesetState {
        state(json!({"status": "ready", "files": [], "operations": [
            {"id": "stage", "label": "Stage", "scopes": ["resource"], "status": "idle"},
            {"id": "pr", "label": "PR", "scopes": ["changeset"], "status": "idle"}
        ]}))
    }

    #[test]
    fn status_changed_reports_status_and_error_accurately() {
        let mut s = state(json!({"status": "computing", "files": []}));
        let out = reduce(
            &mut s,
            json!({"type": "changeset/statusChanged", "status": "ready"}),
        );
        assert_eq!(out, Outcome::Applied(Changed::one(F::Status)));
        assert_noop(
            &mut s,
            json!({"type": "changeset/statusChanged", "status": "ready"}),
            NoOp::NothingToChange,
        );

        let err = json!({"type": "changeset/statusChanged", "status": "error", "error": {"errorType": "git", "message": "m"}});
        assert_eq!(
            reduce(&mut s, err.clone()),
            Outcome::Applied(Changed::one(F::Status).with(F::Error))
        );
        assert_noop(&mut s, err, NoOp::NothingToChange);
        // Same status, new error: only the error changed.
        let err2 = json!({"type": "changeset/statusChanged", "status": "error", "error": {"errorType": "git", "message": "n"}});
        assert_eq!(
            reduce(&mut s, err2),
            Outcome::Applied(Changed::one(F::Error))
        );
    }

    #[test]
    fn status_changed_drops_an_error_on_a_non_error_status() {
        let mut s = state(json!({"status": "computing", "files": []}));
        let a = json!({"type": "changeset/statusChanged", "status": "ready", "error": {"errorType": "x", "message": "y"}});
        assert!(reduce(&mut s, a).is_applied());
        assert_eq!(s.error, None);
    }

    #[test]
    fn unknown_status_values_are_stored_verbatim() {
        let mut s = state(
            json!({"status": "error", "error": {"errorType": "x", "message": "y"}, "files": []}),
        );
        let out = reduce(
            &mut s,
            json!({"type": "changeset/statusChanged", "status": "stale"}),
        );
        assert_eq!(
            out,
            Outcome::Applied(Changed::one(F::Status).with(F::Error))
        );
        assert_eq!(
            serde_json::to_value(&s).expect("serializes"),
            json!({"status": "stale", "files": []})
        );
    }

    #[test]
    fn file_set_upserts_and_noops_on_identical_file() {
        let mut s = state(json!({"status": "ready", "files": [file("a", 1), file("b", 2)]}));
        let set_b = json!({"type": "changeset/fileSet", "file": file("b", 3)});
        assert_eq!(
            reduce(&mut s, set_b.clone()),
            Outcome::Applied(Changed::one(F::Files))
        );
        assert_noop(&mut s, set_b, NoOp::NothingToChange);
        assert!(reduce(
            &mut s,
            json!({"type": "changeset/fileSet", "file": file("c", 1)})
        )
        .is_applied());
        let ids: Vec<&str> = s.files.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        assert_eq!(
            serde_json::to_value(&s.files[1]).expect("file")["edit"]["diff"]["added"],
            json!(3)
        );
    }

    #[test]
    fn file_removed_unknown_id_is_unknown_target() {
        let mut s = state(json!({"status": "ready", "files": [file("a", 1)]}));
        assert_noop(
            &mut s,
            json!({"type": "changeset/fileRemoved", "fileId": "zz"}),
            NoOp::UnknownTarget,
        );
        let out = reduce(
            &mut s,
            json!({"type": "changeset/fileRemoved", "fileId": "a"}),
        );
        assert_eq!(out, Outcome::Applied(Changed::one(F::Files)));
        assert!(s.files.is_empty());
    }

    #[test]
    fn cleared_and_operations_changed_noop_when_already_so() {
        let mut s = state(json!({"status": "ready", "files": []}));
        assert_noop(
            &mut s,
            json!({"type": "changeset/cleared"}),
            NoOp::NothingToChange,
        );
        assert_noop(
            &mut s,
            json!({"type": "changeset/operationsChanged"}),
            NoOp::NothingToChange,
        );
        let ops = json!({"type": "changeset/operationsChanged", "operations": []});
        assert_eq!(
            reduce(&mut s, ops.clone()),
            Outcome::Applied(Changed::one(F::Operations))
        );
        assert_eq!(s.operations, Some(vec![]));
        assert_noop(&mut s, ops, NoOp::NothingToChange);
    }

    #[test]
    fn operation_status_changed_targets_one_operation() {
        let mut s = with_ops();
        let err = json!({"type": "changeset/operationStatusChanged", "operationId": "pr", "status": "error",
            "error": {"errorType": "git", "message": "push failed"}});
        assert_eq!(
            reduce(&mut s, err.clone()),
            Outcome::Applied(Changed::one(F::Operations))
        );
        assert_noop(&mut s, err, NoOp::NothingToChange);
        let json = serde_json::to_value(&s).expect("serializes");
        assert_eq!(json["operations"][0]["status"], json!("idle"));
        assert_eq!(
            json["operations"][1]["error"]["message"],
            json!("push failed")
        );
        // Any non-error transition clears the error, even if the action carries one.
        let idle = json!({"type": "changeset/operationStatusChanged", "operationId": "pr", "status": "idle",
            "error": {"errorType": "x", "message": "y"}});
        assert!(reduce(&mut s, idle).is_applied());
        assert_eq!(s, with_ops());
    }

    #[test]
    fn operation_status_changed_without_operations_is_unknown_target() {
        let mut s = state(json!({"status": "ready", "files": []}));
        let a = json!({"type": "changeset/operationStatusChanged", "operationId": "pr", "status": "running"});
        assert_noop(&mut s, a, NoOp::UnknownTarget);
    }

    #[test]
    fn other_channels_and_unknown_actions_are_not_for_changesets() {
        let mut s = with_ops();
        for value in [
            json!({"type": "changeset/disposed"}),
            json!({"type": "terminal/cleared"}),
            json!({"type": "root/agentsChanged", "agents": []}),
        ] {
            assert_noop(&mut s, value, NoOp::NotForThisChannel);
        }
    }
}
