//! The `SessionState` reducer: one session's turns, tool calls, pending messages, input
//! requests, customizations and metadata.
//!
//! The hot path is `session/delta` on the active turn, so every turn-scoped action touches only
//! `activeTurn` (never the completed history), text is appended in place, and `summary.status`
//! is recomputed only by actions that can change it. Which parts a delta or tool-call action hits
//! (a delta the first part with its id, a tool-call action every call with its id, as in the
//! TypeScript reducers, also when ids collide) is decided in [`target`], which the render path
//! shares.
//!
//! Each action handler returns `Result<Changed, NoOp>` and validates everything it needs before
//! its first write, so an `Err` always means the state is untouched.

mod customizations;
mod input;
mod metadata;
mod pending;
mod status;
pub mod target;
mod tool_call;
mod turn;

#[cfg(test)]
mod tests;

use super::by_id::active_turn_mut;
use super::{replace, set, Changed, Clock, NoOp, Outcome};
use crate::protocol::{
    SessionState, SessionStateField, SessionToolCallConfirmedAction, StateAction,
};

type Field = SessionStateField;

/// What a handler reports: the top-level fields it changed, or why it left the state alone.
type Handled = Result<Changed<Field>, NoOp>;

/// Applies `action` to a `SessionState`.
pub fn session_reducer(
    state: &mut SessionState,
    action: &StateAction,
    clock: &dyn Clock,
) -> Outcome<SessionStateField> {
    let handled = match action {
        // Turn content: the streaming hot path first.
        StateAction::SessionDelta(a) => turn::delta(state, a),
        StateAction::SessionReasoning(a) => turn::reasoning(state, a),
        StateAction::SessionResponsePart(a) => turn::response_part(state, a),
        StateAction::SessionUsage(a) => turn::usage(state, a),

        // Turn lifecycle.
        StateAction::SessionTurnStarted(a) => turn::started(state, a, clock),
        StateAction::SessionTurnComplete(a) => {
            turn::end(state, &a.turn_id, turn::TurnEnd::Complete, clock)
        }
        StateAction::SessionTurnCancelled(a) => {
            turn::end(state, &a.turn_id, turn::TurnEnd::Cancelled, clock)
        }
        StateAction::SessionError(a) => {
            turn::end(state, &a.turn_id, turn::TurnEnd::Error(&a.error), clock)
        }
        StateAction::SessionTruncated(a) => turn::truncated(state, a, clock),

        // Tool calls.
        StateAction::SessionToolCallStart(a) => tool_call::start(state, a),
        StateAction::SessionToolCallDelta(a) => tool_call::delta(state, a),
        StateAction::SessionToolCallReady(a) => tool_call::ready(state, a),
        StateAction::SessionToolCallConfirmed(confirmed) => match confirmed.as_ref() {
            SessionToolCallConfirmedAction::Approved(a) => tool_call::approved(state, a),
            SessionToolCallConfirmedAction::Denied(a) => tool_call::denied(state, a),
        },
        StateAction::SessionToolCallComplete(a) => tool_call::complete(state, a),
        StateAction::SessionToolCallResultConfirmed(a) => tool_call::result_confirmed(state, a),
        StateAction::SessionToolCallContentChanged(a) => tool_call::content_changed(state, a),

        // Pending messages.
        StateAction::SessionPendingMessageSet(a) => pending::set(state, a),
        StateAction::SessionPendingMessageRemoved(a) => pending::removed(state, a),
        StateAction::SessionQueuedMessagesReordered(a) => pending::reordered(state, a),

        // Input requests.
        StateAction::SessionInputRequested(a) => input::requested(state, a, clock),
        StateAction::SessionInputAnswerChanged(a) => input::answer_changed(state, a, clock),
        StateAction::SessionInputCompleted(a) => input::completed(state, a, clock),

        // Customizations.
        StateAction::SessionCustomizationsChanged(a) => customizations::replaced(state, a),
        StateAction::SessionCustomizationToggled(a) => customizations::toggled(state, a),
        StateAction::SessionCustomizationUpdated(a) => customizations::updated(state, a),
        StateAction::SessionCustomizationRemoved(a) => customizations::removed(state, a),
        StateAction::SessionMcpServerStateChanged(a) => {
            customizations::mcp_server_state_changed(state, a)
        }

        // Lifecycle, summary and other session-level fields.
        StateAction::SessionReady(_) => metadata::ready(state),
        StateAction::SessionCreationFailed(a) => metadata::creation_failed(state, a),
        StateAction::SessionTitleChanged(a) => metadata::title_changed(state, a, clock),
        StateAction::SessionModelChanged(a) => metadata::model_changed(state, a, clock),
        StateAction::SessionAgentChanged(a) => metadata::agent_changed(state, a, clock),
        StateAction::SessionIsReadChanged(a) => metadata::is_read_changed(state, a),
        StateAction::SessionIsArchivedChanged(a) => metadata::is_archived_changed(state, a),
        StateAction::SessionActivityChanged(a) => {
            replace(&mut state.summary.activity, &a.activity, Field::Summary)
        }
        StateAction::SessionChangesetsChanged(a) => {
            replace(&mut state.changesets, &a.changesets, Field::Changesets)
        }
        StateAction::SessionConfigChanged(a) => metadata::config_changed(state, a, clock),
        // `_meta` and the server's tools are replaced entirely.
        StateAction::SessionMetaChanged(a) => {
            set(&mut state.meta, Some(a.meta.clone()), Field::Meta)
        }
        StateAction::SessionServerToolsChanged(a) => set(
            &mut state.server_tools,
            Some(a.tools.clone()),
            Field::ServerTools,
        ),
        // A client claims the active role, or it is released (`null`).
        StateAction::SessionActiveClientChanged(a) => replace(
            &mut state.active_client,
            &a.active_client,
            Field::ActiveClient,
        ),
        StateAction::SessionActiveClientToolsChanged(a) => {
            metadata::active_client_tools_changed(state, a)
        }

        // Listed one by one (no wildcard) so a newly generated session action fails to compile
        // here instead of being silently ignored.
        StateAction::RootAgentsChanged(_)
        | StateAction::RootActiveSessionsChanged(_)
        | StateAction::RootTerminalsChanged(_)
        | StateAction::RootConfigChanged(_)
        | StateAction::ChangesetStatusChanged(_)
        | StateAction::ChangesetFileSet(_)
        | StateAction::ChangesetFileRemoved(_)
        | StateAction::ChangesetOperationsChanged(_)
        | StateAction::ChangesetOperationStatusChanged(_)
        | StateAction::ChangesetCleared(_)
        | StateAction::TerminalData(_)
        | StateAction::TerminalInput(_)
        | StateAction::TerminalResized(_)
        | StateAction::TerminalClaimed(_)
        | StateAction::TerminalTitleChanged(_)
        | StateAction::TerminalCwdChanged(_)
        | StateAction::TerminalExited(_)
        | StateAction::TerminalCleared(_)
        | StateAction::TerminalCommandDetectionAvailable(_)
        | StateAction::TerminalCommandExecuted(_)
        | StateAction::TerminalCommandFinished(_)
        | StateAction::ResourceWatchChanged(_)
        | StateAction::Unknown(_) => Err(NoOp::NotForThisChannel),
    };
    match handled {
        Ok(changed) => Outcome::Applied(changed),
        Err(reason) => Outcome::NoOp(reason),
    }
}

/// Stamps `summary.modifiedAt` with the current time.
fn touch(state: &mut SessionState, clock: &dyn Clock) {
    state.summary.modified_at = clock.now();
}
