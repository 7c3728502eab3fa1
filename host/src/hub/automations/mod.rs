//! AHP 1.0 automations, for 1.0 clients only: the `ahp-automations://` catalogue, one
//! `ahp-automation-run:` channel per run, the host's trigger definitions and its scheduler.
//!
//! Unlike sessions, this state has no 0.3.0 form: it is 1.0's own. Every change is a 1.0
//! action reduced here by the SDK's 1.0 reducers (`automation_reducer`,
//! `automation_run_reducer`) and sent as that very envelope, so a client's mirror equals a
//! fresh snapshot. Clients ask with `automation/createRequested`, `updateRequested`,
//! `removed` and `automationRun/cancelRequested` (echoed with their origin, then answered
//! with `automation/set` and lifecycle changes), and with `runAutomation`,
//! `fetchAutomationRuns` and `listAutomationTriggerDefinitions` (`runs.rs`).
//!
//! A run drives an ordinary session: created through the host's session creation path from
//! the automation's template, prompted with its message; the run ends with that turn.
//! Automations and runs are kept in SQLite (`automations`, `automation_runs`); a run that
//! was pending or running when the host stopped is failed when it starts again.

mod runs;
pub(crate) mod schedule;

use super::base::Core;
use super::features::{snapshot_json, Feature};
use super::v1_mirror::envelope_frame;
use super::{fanout, ConnId};
use crate::store::Op;
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::{automation_reducer, automation_run_reducer};
use ahp_wasm::reduce::Outcome;
use jiff::Timestamp;
use schedule::{iso, next_due, now_iso};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The catalogue channel.
pub(super) const CATALOGUE: &str = "ahp-automations://";
/// The prefix of automation resources.
pub(super) const AUTOMATION_PREFIX: &str = "ahp-automation:/";
/// The prefix of run channels.
pub(super) const RUN_PREFIX: &str = "ahp-automation-run:/";
/// How many runs an entry shows at first, and how many more each `fetchAutomationRuns`.
const RUN_PAGE: usize = 20;
/// Runs kept per automation (the oldest terminal ones are dropped).
const RUNS_KEPT: usize = 200;
/// Automations a host keeps.
const MAX_AUTOMATIONS: usize = 256;

/// The automations, their runs and the channels' subscribers.
#[derive(Default)]
pub(super) struct Automations {
    /// The catalogue as subscribers see it.
    state: v1::AutomationState,
    /// 1.0 connections subscribed to the catalogue.
    subs: Vec<ConnId>,
    /// What the host keeps beside each entry.
    books: HashMap<String, Book>,
    runs: HashMap<String, Run>,
    /// Numbers the scheduler's wake-ups: only the latest one counts.
    timer: u64,
}

/// The host's bookkeeping of one automation.
#[derive(Default)]
struct Book {
    /// When each trigger fires next (kept while the automation is disabled).
    due: BTreeMap<String, Timestamp>,
    /// Triggers whose occurrence was missed while the host was down and is made up once.
    catch_up: HashSet<String>,
    /// How many runs its entry shows.
    shown: usize,
}

/// One run.
pub(super) struct Run {
    state: v1::AutomationRunState,
    subs: Vec<ConnId>,
    /// Orders runs (the `serverSeq` when it was created).
    created: u64,
    /// The `runAutomation` request that made it.
    request_id: Option<String>,
}

impl Run {
    fn terminal(&self) -> bool {
        !matches!(
            self.state.lifecycle,
            v1::AutomationRunLifecycle::Pending(_) | v1::AutomationRunLifecycle::Running(_)
        )
    }

    fn stored(&self) -> String {
        json!({ "state": self.state, "requestId": self.request_id }).to_string()
    }
}

/// Whether `channel` is one of the automations' channels.
pub(super) fn is_channel(channel: &str) -> bool {
    channel == CATALOGUE || channel.starts_with(RUN_PREFIX)
}

impl Automations {
    /// The automations and runs the store kept. Runs that were under way are failed (their
    /// sessions' turns were cut by the restart); missed schedule occurrences are made up or
    /// skipped as their misfire policy says.
    pub(super) fn restored(
        core: &mut Core,
        automations: Vec<(String, String)>,
        runs: Vec<(String, u64, String)>,
    ) -> Automations {
        let mut out = Automations::default();
        let now = Timestamp::now();
        for (uri, text) in automations {
            let Ok(stored) = serde_json::from_str::<Value>(&text) else {
                eprintln!("ahp-host: automation {uri} unreadable; skipped");
                continue;
            };
            let Ok(entry) = serde_json::from_value::<v1::AutomationEntry>(stored["entry"].clone())
            else {
                eprintln!("ahp-host: automation {uri} unreadable; skipped");
                continue;
            };
            let mut book = Book {
                shown: RUN_PAGE,
                ..Book::default()
            };
            for trigger in &entry.definition.triggers {
                let Some(id) = schedule::trigger_id(trigger) else {
                    continue;
                };
                let saved = stored["due"][id]
                    .as_str()
                    .and_then(|t| t.parse::<Timestamp>().ok());
                let due = match saved {
                    Some(t) if t > now => Some(t),
                    Some(t) if schedule::catches_up(trigger) => {
                        book.catch_up.insert(id.to_owned());
                        Some(t)
                    }
                    _ => next_due(trigger, now),
                };
                if let Some(due) = due {
                    book.due.insert(id.to_owned(), due);
                }
            }
            out.books.insert(uri, book);
            out.state.entries.push(entry);
        }
        for (automation, created, text) in runs {
            let Ok(stored) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let Ok(state) =
                serde_json::from_value::<v1::AutomationRunState>(stored["state"].clone())
            else {
                continue;
            };
            if !out.books.contains_key(&automation) {
                continue;
            }
            let mut run = Run {
                state,
                subs: Vec::new(),
                created,
                request_id: stored["requestId"].as_str().map(str::to_owned),
            };
            if !run.terminal() {
                let (created_at, started_at) = lifecycle_times(&run.state.lifecycle);
                let failed = failed_lifecycle(
                    created_at,
                    started_at,
                    "HostRestarted",
                    "the host restarted while this run was in progress",
                );
                if let Ok(l) = serde_json::from_value(failed) {
                    run.state.lifecycle = l;
                }
                core.ops.push(Op::AutomationRun {
                    uri: run.state.resource.clone(),
                    automation: automation.clone(),
                    created: run.created,
                    json: run.stored(),
                });
            }
            out.runs.insert(run.state.resource.clone(), run);
        }
        let uris: Vec<String> = out.books.keys().cloned().collect();
        for uri in uris {
            out.refresh(&uri);
            out.persist(core, &uri);
        }
        out
    }

    /// The entry of automation `uri`.
    pub(super) fn entry(&self, uri: &str) -> Option<&v1::AutomationEntry> {
        self.state.entries.iter().find(|e| e.resource == uri)
    }

    /// How many automations there are.
    fn len(&self) -> usize {
        self.state.entries.len()
    }

    /// Whether `channel` is the catalogue or a run this host holds.
    pub(super) fn has(&self, channel: &str) -> bool {
        channel == CATALOGUE || self.runs.contains_key(channel)
    }

    /// The snapshot of one of the automations' channels.
    pub(super) fn snapshot(&self, channel: &str, seq: u64) -> Option<String> {
        if channel == CATALOGUE {
            return snapshot_json(channel, &self.state, seq);
        }
        snapshot_json(channel, &self.runs.get(channel)?.state, seq)
    }

    /// The subscribers of one of the automations' channels.
    pub(super) fn subscribers_mut(&mut self, channel: &str) -> Option<&mut Vec<ConnId>> {
        if channel == CATALOGUE {
            return Some(&mut self.subs);
        }
        self.runs.get_mut(channel).map(|r| &mut r.subs)
    }

    /// Reduces `action` on `channel` (the catalogue or a run) and sends its envelope to the
    /// channel's subscribers with the next `serverSeq`; an action that changes nothing is
    /// sent only when it echoes a client's (`origin`).
    fn send(
        &mut self,
        core: &mut Core,
        channel: &str,
        action: Value,
        origin: Option<&v03::ActionOrigin>,
    ) {
        let Ok(typed) = serde_json::from_value::<v1::StateAction>(action.clone()) else {
            debug_assert!(false, "the host's automation actions decode: {action}");
            return;
        };
        let applied = if channel == CATALOGUE {
            matches!(
                automation_reducer(&mut self.state, &typed),
                Outcome::Applied(_)
            )
        } else if let Some(run) = self.runs.get_mut(channel) {
            matches!(
                automation_run_reducer(&mut run.state, &typed),
                Outcome::Applied(_)
            )
        } else {
            false
        };
        if !applied && origin.is_none() {
            return;
        }
        core.seq += 1;
        let frame = envelope_frame(channel, &action, core.seq, origin, None);
        if let Some(subs) = self.subscribers_mut(channel) {
            fanout(&mut core.outbox, subs, &frame);
        }
        core.keep_v1(channel.into(), frame);
    }

    /// Rebuilds what the host derives in entry `uri` (runs window, next run, run count)
    /// without sending it; the entry as it should be.
    fn refresh(&mut self, uri: &str) -> Option<v1::AutomationEntry> {
        let book = self.books.get(uri)?;
        let mut runs: Vec<&Run> = self
            .runs
            .values()
            .filter(|r| r.state.automation == uri)
            .collect();
        runs.sort_by_key(|r| std::cmp::Reverse(r.created));
        let summaries: Vec<v1::AutomationRunSummary> = runs
            .iter()
            .take(book.shown)
            .filter_map(|r| summary(&r.state))
            .collect();
        let more = runs.len() > book.shown;
        let entry = self.state.entries.iter_mut().find(|e| e.resource == uri)?;
        entry.runs = summaries;
        entry.runs_next_cursor = more.then(|| book.shown.to_string());
        entry.next_run_at = entry
            .definition
            .enabled
            .then(|| book.due.values().min().map(|t| iso(*t)))
            .flatten();
        if !has_after_runs(&entry.definition) {
            entry.run_count = None;
        }
        Some(entry.clone())
    }

    /// Stores entry `uri` (without its runs) and its schedule.
    fn persist(&self, core: &mut Core, uri: &str) {
        let (Some(entry), Some(book)) = (self.entry(uri), self.books.get(uri)) else {
            return;
        };
        let mut entry = entry.clone();
        entry.runs = Vec::new();
        entry.runs_next_cursor = None;
        let due: serde_json::Map<String, Value> = book
            .due
            .iter()
            .map(|(id, t)| (id.clone(), iso(*t).into()))
            .collect();
        core.ops.push(Op::Automation {
            uri: uri.to_owned(),
            json: json!({ "entry": entry, "due": due }).to_string(),
        });
    }

    /// Publishes entry `uri` as it is now (`automation/set`) and stores it.
    fn publish(&mut self, core: &mut Core, uri: &str) {
        let Some(entry) = self.refresh(uri) else {
            return;
        };
        self.persist(core, uri);
        self.send(
            core,
            CATALOGUE,
            json!({ "type": "automation/set", "automation": entry }),
            None,
        );
    }

    /// Stores run `uri`.
    fn persist_run(&self, core: &mut Core, uri: &str) {
        if let Some(run) = self.runs.get(uri) {
            core.ops.push(Op::AutomationRun {
                uri: uri.to_owned(),
                automation: run.state.automation.clone(),
                created: run.created,
                json: run.stored(),
            });
        }
    }

    /// Sends a run action, stores the run and republishes its automation's entry.
    fn run_action(&mut self, core: &mut Core, run: &str, action: Value) {
        self.send(core, run, action, None);
        self.persist_run(core, run);
        if let Some(automation) = self.runs.get(run).map(|r| r.state.automation.clone()) {
            self.publish(core, &automation);
        }
    }

    /// Ends run `uri` with `lifecycle` (unless it ended already).
    fn end_run(&mut self, core: &mut Core, uri: &str, lifecycle: Value) {
        if self.runs.get(uri).is_none_or(Run::terminal) {
            return;
        }
        self.run_action(
            core,
            uri,
            json!({ "type": "automationRun/lifecycleChanged", "lifecycle": lifecycle }),
        );
    }

    /// The run under way whose primary session is `session`.
    fn run_of_session(&self, session: &str) -> Option<String> {
        self.runs
            .values()
            .find(|r| !r.terminal() && r.state.primary_session.as_deref() == Some(session))
            .map(|r| r.state.resource.clone())
    }

    /// Drops the oldest terminal runs of `automation` while it has more than [`RUNS_KEPT`]; their sessions,
    /// for the hub to dispose of (a schedule would otherwise pile sessions up without end).
    fn prune(&mut self, core: &mut Core, automation: &str) -> Vec<String> {
        let mut old: Vec<(u64, String)> = self
            .runs
            .values()
            .filter(|r| r.state.automation == automation && r.terminal())
            .map(|r| (r.created, r.state.resource.clone()))
            .collect();
        let total = self
            .runs
            .values()
            .filter(|r| r.state.automation == automation)
            .count();
        if total <= RUNS_KEPT {
            return Vec::new();
        }
        old.sort();
        // Runs under way are kept even beyond the bound.
        let excess = total - RUNS_KEPT;
        let mut sessions = Vec::new();
        for (_, uri) in old.into_iter().take(excess) {
            if let Some(run) = self.runs.get(&uri) {
                sessions.extend(run.state.sessions.iter().cloned());
            }
            self.drop_run(core, &uri);
            core.ops.push(Op::DeleteAutomationRun { uri });
        }
        sessions
    }

    /// Forgets a run and its channel's subscriptions.
    fn drop_run(&mut self, core: &mut Core, uri: &str) {
        if let Some(run) = self.runs.remove(uri) {
            for conn in run.subs {
                if let Some(c) = core.conns.get_mut(&conn) {
                    c.v1_subs.remove(uri);
                }
            }
        }
    }
}

impl Feature for Automations {
    /// A run's turn ended: the run ends as the turn did.
    fn turn_ended(&mut self, core: &mut Core, session: &str) {
        let Some(run) = self.run_of_session(session) else {
            return;
        };
        // The turn that ended, as 0.3.0 has it (the hub's 0.3.0 view keeps no completed turns).
        let Some(turn) = core.sessions.get(session).and_then(|s| {
            let count = s.v1.chat.turns.len();
            s.v1.v03_turns(count.checked_sub(1)?..count).ok()?.pop()
        }) else {
            return;
        };
        let (created, started) = lifecycle_times(&self.runs[&run].state.lifecycle);
        let now = now_iso();
        let lifecycle = match turn.state {
            v03::TurnState::Complete => json!({
                "status": "completed", "createdAt": created,
                "startedAt": started.unwrap_or_else(|| now.clone()), "completedAt": now,
            }),
            v03::TurnState::Cancelled => cancelled_lifecycle(created, started, now),
            _ => {
                let (kind, message) = turn.error.as_ref().map_or_else(
                    || ("TurnFailed".to_owned(), "the run's turn failed".to_owned()),
                    |e| (e.error_type.clone(), e.message.clone()),
                );
                failed_lifecycle(created, started, &kind, &message)
            }
        };
        self.end_run(core, &run, lifecycle);
    }

    /// A run's session was disposed of while it ran: the run fails.
    fn session_disposed(&mut self, core: &mut Core, session: &str) {
        if let Some(run) = self.run_of_session(session) {
            let (created, started) = lifecycle_times(&self.runs[&run].state.lifecycle);
            let lifecycle = failed_lifecycle(
                created,
                started,
                "SessionDisposed",
                "the run's session was disposed of",
            );
            self.end_run(core, &run, lifecycle);
        }
    }
}

/// The summary of a run as its entry lists it.
fn summary(run: &v1::AutomationRunState) -> Option<v1::AutomationRunSummary> {
    let mut out = json!({
        "resource": run.resource,
        "automation": run.automation,
        "origin": run.origin,
        "lifecycle": run.lifecycle,
        "sessionCount": run.sessions.len(),
    });
    if let Some(primary) = &run.primary_session {
        out["primarySession"] = primary.clone().into();
    }
    serde_json::from_value(out).ok()
}

/// Whether a definition has an `afterRuns` condition.
fn has_after_runs(def: &v1::AutomationDefinition) -> bool {
    def.disable_conditions.as_ref().is_some_and(|c| {
        c.iter()
            .any(|c| matches!(c, v1::AutomationDisableCondition::AfterRuns(_)))
    })
}

/// `createdAt` and `startedAt` of a lifecycle.
fn lifecycle_times(lifecycle: &v1::AutomationRunLifecycle) -> (String, Option<String>) {
    use v1::AutomationRunLifecycle as L;
    match lifecycle {
        L::Pending(l) => (l.created_at.clone(), None),
        L::Running(l) => (l.created_at.clone(), Some(l.started_at.clone())),
        L::Completed(l) => (l.created_at.clone(), Some(l.started_at.clone())),
        L::Failed(l) => (l.created_at.clone(), l.started_at.clone()),
        L::Cancelled(l) => (l.created_at.clone(), l.started_at.clone()),
        L::Unknown(_) => (now_iso(), None),
    }
}

fn failed_lifecycle(created: String, started: Option<String>, kind: &str, message: &str) -> Value {
    let mut out = json!({
        "status": "failed", "createdAt": created, "completedAt": now_iso(),
        "error": { "errorType": kind, "message": message },
    });
    if let Some(started) = started {
        out["startedAt"] = started.into();
    }
    out
}

fn cancelled_lifecycle(created: String, started: Option<String>, now: String) -> Value {
    let mut out = json!({ "status": "cancelled", "createdAt": created, "completedAt": now });
    if let Some(started) = started {
        out["startedAt"] = started.into();
    }
    out
}

/// What `initialize` tells 1.0 clients of the automations: they may create them, use
/// schedules (and the host's interval trigger) and cancel runs.
pub(super) fn capabilities() -> Value {
    json!({
        "create": {},
        "schedules": {},
        "runCancellation": {},
        "runHistoryLimit": RUNS_KEPT,
    })
}
