//! The `AnnotationsState` reducer: a session's annotations (keyed by `id`) and their entries
//! (keyed by `id` within an annotation).

use super::{outcome, remove_first, upsert, Changed, Outcome};
use crate::protocol::v1::{Annotation, AnnotationsState, AnnotationsStateField, StateAction};
use crate::reduce::NoOp;

/// Applies `action` to an `AnnotationsState`.
pub fn annotations_reducer(
    state: &mut AnnotationsState,
    action: &StateAction,
) -> Outcome<AnnotationsStateField> {
    let handled = match action {
        StateAction::AnnotationsSet(a) => {
            upsert(&mut state.annotations, &a.annotation, |annotation| {
                annotation.id.clone()
            });
            Ok(())
        }
        // Sets the members the action has; the others are kept.
        StateAction::AnnotationsUpdated(a) => {
            annotation_mut(state, &a.annotation_id).map(|annotation| {
                if let Some(origin) = &a.origin {
                    annotation.origin.clone_from(origin);
                }
                if let Some(resource) = &a.resource {
                    annotation.resource.clone_from(resource);
                }
                if let Some(range) = &a.range {
                    annotation.range = Some(range.clone());
                }
                if let Some(resolved) = a.resolved {
                    annotation.resolved = resolved;
                }
            })
        }
        StateAction::AnnotationsRemoved(a) => remove_first(&mut state.annotations, |annotation| {
            annotation.id == a.annotation_id
        }),
        StateAction::AnnotationsEntrySet(a) => annotation_mut(state, &a.annotation_id)
            .map(|annotation| upsert(&mut annotation.entries, &a.entry, |entry| entry.id.clone())),
        StateAction::AnnotationsEntryRemoved(a) => annotation_mut(state, &a.annotation_id)
            .and_then(|annotation| {
                remove_first(&mut annotation.entries, |entry| entry.id == a.entry_id)
            }),
        _ => Err(NoOp::NotForThisChannel),
    };
    outcome(handled.map(|()| Changed::one(AnnotationsStateField::Annotations)))
}

/// The first annotation with the id.
fn annotation_mut<'a>(
    state: &'a mut AnnotationsState,
    id: &str,
) -> Result<&'a mut Annotation, NoOp> {
    state
        .annotations
        .iter_mut()
        .find(|annotation| annotation.id == id)
        .ok_or(NoOp::UnknownTarget)
}
