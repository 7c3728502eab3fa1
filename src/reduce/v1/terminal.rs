//! The `TerminalState` reducer: a terminal's output, split into command parts (with shell
//! integration) and unclassified runs of output, and its size, title, cwd, claim and lifecycle.

use super::{outcome, replace, set, Changed, Outcome};
use crate::protocol::v1::{
    StateAction, TerminalCommandPart, TerminalContentPart, TerminalExitedLifecycleState,
    TerminalLifecycleState, TerminalState, TerminalStateField, TerminalUnclassifiedPart,
};
use crate::reduce::NoOp;

/// Applies `action` to a `TerminalState`.
pub fn terminal_reducer(
    state: &mut TerminalState,
    action: &StateAction,
) -> Outcome<TerminalStateField> {
    use TerminalStateField as F;
    let handled = match action {
        StateAction::TerminalData(a) => {
            append_output(&mut state.content, &a.data);
            Ok(Changed::one(F::Content))
        }
        // Input goes to the terminal's process; its echo comes back as data.
        StateAction::TerminalInput(_) => Err(NoOp::NothingToChange),
        StateAction::TerminalResized(a) => {
            state.cols = Some(a.cols);
            state.rows = Some(a.rows);
            Ok(Changed::one(F::Cols).with(F::Rows))
        }
        StateAction::TerminalClaimed(a) => replace(&mut state.claim, &a.claim, F::Claim),
        StateAction::TerminalTitleChanged(a) => replace(&mut state.title, &a.title, F::Title),
        StateAction::TerminalCwdChanged(a) => set(&mut state.cwd, Some(a.cwd.clone()), F::Cwd),
        StateAction::TerminalExited(a) => set(
            &mut state.lifecycle,
            TerminalLifecycleState::Exited(TerminalExitedLifecycleState {
                exit_code: a.exit_code,
                extra: Default::default(),
            }),
            F::Lifecycle,
        ),
        StateAction::TerminalCleared(_) => {
            state.content.clear();
            Ok(Changed::one(F::Content))
        }
        StateAction::TerminalCommandDetectionAvailable(_) => set(
            &mut state.supports_command_detection,
            Some(true),
            F::SupportsCommandDetection,
        ),
        // A command part opens; output goes into it until the command finishes.
        StateAction::TerminalCommandExecuted(a) => {
            state
                .content
                .push(TerminalContentPart::Command(TerminalCommandPart {
                    command_id: a.command_id.clone(),
                    command_line: a.command_line.clone(),
                    output: String::new(),
                    timestamp: a.timestamp,
                    is_complete: false,
                    exit_code: None,
                    duration_ms: None,
                    extra: Default::default(),
                }));
            state.supports_command_detection = Some(true);
            Ok(Changed::one(F::Content).with(F::SupportsCommandDetection))
        }
        // The first command with the id (ids are unique), finished or not.
        StateAction::TerminalCommandFinished(a) => state
            .content
            .iter_mut()
            .find_map(|part| match part {
                TerminalContentPart::Command(command) if command.command_id == a.command_id => {
                    Some(command)
                }
                _ => None,
            })
            .map(|command| {
                command.is_complete = true;
                command.exit_code = a.exit_code;
                command.duration_ms = a.duration_ms;
                Changed::one(F::Content)
            })
            .ok_or(NoOp::UnknownTarget),
        _ => Err(NoOp::NotForThisChannel),
    };
    outcome(handled)
}

/// Appends output to the open command part or the unclassified run at the end, or starts a
/// new unclassified run (after a finished command or a part of an unknown kind).
fn append_output(content: &mut Vec<TerminalContentPart>, data: &str) {
    match content.last_mut() {
        Some(TerminalContentPart::Command(command)) if !command.is_complete => {
            command.output.push_str(data);
        }
        Some(TerminalContentPart::Unclassified(run)) => run.value.push_str(data),
        _ => content.push(TerminalContentPart::Unclassified(
            TerminalUnclassifiedPart {
                value: data.to_owned(),
                extra: Default::default(),
            },
        )),
    }
}
