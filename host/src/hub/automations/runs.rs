//! What 1.0 clients ask of automations (dispatches on the catalogue and run channels, and
//! the automation commands), runs and their sessions, and the scheduler.
//!
//! The scheduler is one tokio sleep until the earliest due trigger, numbered so that only
//! the latest wakes the hub ([`HubMsg::AutomationDue`]); it is re-armed after every change.

use super::schedule::{
    self, check_definition, check_resource, iso, next_due, now_iso, AutomationError,
};
use super::{
    cancelled_lifecycle, failed_lifecycle, has_after_runs, lifecycle_times, Book, Run, CATALOGUE,
    MAX_AUTOMATIONS, RUN_PAGE, RUN_PREFIX,
};
use crate::bus::HubMsg;
use crate::hub::commands::invalid;
use crate::hub::turns::new_id;
use crate::hub::{ConnId, Hub};
use ahp_wasm::protocol as v03;
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{ErrorObject, RequestId};
use ahp_wasm::protocol::v1;
use jiff::Timestamp;
use serde_json::{json, Value};

impl Hub {
    /// A 1.0 client's action on the catalogue or a run: checked, echoed to every subscriber
    /// with its origin, then answered; a refused one is rejected to its dispatcher only and
    /// changes nothing.
    pub(in crate::hub) fn dispatch_automation_v1(
        &mut self,
        conn: ConnId,
        channel: &str,
        action: v1::StateAction,
        json: Value,
        origin: v03::ActionOrigin,
    ) {
        let accepted = match (channel == CATALOGUE, &action) {
            (true, v1::StateAction::AutomationCreateRequested(a)) => {
                self.check_automation(conn, &a.definition).and_then(|()| {
                    check_resource(&a.resource)?;
                    if self.automations.entry(&a.resource).is_some() {
                        return Err(AutomationError::Exists(a.resource.clone()));
                    }
                    if self.automations.len() >= MAX_AUTOMATIONS {
                        return Err(AutomationError::Limit(format!(
                            "this host keeps at most {MAX_AUTOMATIONS} automations"
                        )));
                    }
                    Ok(Change::Create(a.resource.clone(), a.definition.clone()))
                })
            }
            (true, v1::StateAction::AutomationUpdateRequested(a)) => {
                match self.automations.entry(&a.resource) {
                    None => Err(AutomationError::Unknown(a.resource.clone())),
                    Some(entry) => {
                        let def = patched(&entry.definition, &a.changes);
                        self.check_automation(conn, &def)
                            .map(|()| Change::Update(a.resource.clone(), def))
                    }
                }
            }
            (true, v1::StateAction::AutomationRemoved(a)) => {
                match self.automations.entry(&a.resource) {
                    None => Err(AutomationError::Unknown(a.resource.clone())),
                    Some(_) => Ok(Change::Remove(a.resource.clone())),
                }
            }
            (false, v1::StateAction::AutomationRunCancelRequested(_)) => {
                match self.automations.runs.get(channel) {
                    None => Err(AutomationError::Unknown(channel.to_owned())),
                    Some(run) if run.terminal() => Err(AutomationError::NotCancellable(
                        status_of(&run.state.lifecycle).into(),
                    )),
                    Some(_) => Ok(Change::Cancel(channel.to_owned())),
                }
            }
            _ => {
                let reason = "this channel takes automation/createRequested, updateRequested and \
                              removed (the catalogue) or automationRun/cancelRequested (a run)";
                return self.reject_v1(conn, channel, &json, &origin, reason);
            }
        };
        let change = match accepted {
            Ok(change) => change,
            Err(e) => return self.reject_v1(conn, channel, &json, &origin, &e.to_string()),
        };
        let core = &mut self.core;
        match change {
            Change::Remove(uri) => {
                // `automation/removed` is itself the change: its echo removes the entry.
                self.automations.send(core, CATALOGUE, json, Some(&origin));
                self.remove_automation(&uri);
            }
            Change::Create(uri, def) => {
                self.automations.send(core, CATALOGUE, json, Some(&origin));
                self.save_automation(&uri, def, true);
            }
            Change::Update(uri, def) => {
                self.automations.send(core, CATALOGUE, json, Some(&origin));
                self.save_automation(&uri, def, false);
            }
            Change::Cancel(run) => {
                self.automations.send(core, &run, json, Some(&origin));
                self.cancel_run(&run);
            }
        }
        self.arm_automations();
    }

    /// A definition checked as this host would run it: its own rules, then the session
    /// template's provider and working directory, as `createSession` checks them.
    fn check_automation(
        &self,
        conn: ConnId,
        def: &v1::AutomationDefinition,
    ) -> Result<(), AutomationError> {
        check_definition(def)?;
        let template = &def.session;
        let session = |e: ErrorObject| AutomationError::Session(e.message);
        self.agent_usable(conn).map_err(session)?;
        self.check_provider(template.provider.as_deref())
            .map_err(session)?;
        match template.working_directories.as_deref().unwrap_or_default() {
            [] => {}
            [dir] => {
                self.check_workdir(dir).map_err(session)?;
            }
            _ => {
                return Err(AutomationError::Session(
                    "this host gives a session one working directory".into(),
                ))
            }
        }
        if template
            .customizations
            .as_ref()
            .is_some_and(|c| !c.is_empty())
        {
            return Err(AutomationError::Session(
                "this host does not capture client plugins for automations".into(),
            ));
        }
        Ok(())
    }

    /// Creates or replaces an automation's definition, scheduling its triggers from now.
    fn save_automation(&mut self, uri: &str, def: v1::AutomationDefinition, create: bool) {
        let now = Timestamp::now();
        let autos = &mut self.automations;
        let old = autos.entry(uri).cloned();
        let was_enabled = old.as_ref().is_some_and(|e| e.definition.enabled);
        let had_after_runs = old.as_ref().is_some_and(|e| has_after_runs(&e.definition));
        let mut entry = match old {
            Some(entry) => entry,
            None => {
                let created = now_iso();
                let fresh = json!({
                    "resource": uri, "definition": def, "runs": [],
                    "operations": ["update", "remove", "run"],
                    "createdAt": created, "modifiedAt": created,
                });
                match serde_json::from_value::<v1::AutomationEntry>(fresh) {
                    Ok(entry) => entry,
                    Err(_) => return,
                }
            }
        };
        // A fresh allowance when the condition is added or the automation is re-enabled.
        let fresh_allowance =
            create || (has_after_runs(&def) && !had_after_runs) || (def.enabled && !was_enabled);
        if has_after_runs(&def) && (fresh_allowance || entry.run_count.is_none()) {
            entry.run_count = Some(0);
        }
        entry.definition = def;
        entry.modified_at = now_iso();
        let book = autos.books.entry(uri.to_owned()).or_insert_with(|| Book {
            shown: RUN_PAGE,
            ..Book::default()
        });
        book.due.clear();
        book.catch_up.clear();
        for trigger in &entry.definition.triggers {
            if let (Some(id), Some(due)) = (schedule::trigger_id(trigger), next_due(trigger, now)) {
                book.due.insert(id.to_owned(), due);
            }
        }
        match autos.state.entries.iter_mut().find(|e| e.resource == uri) {
            Some(slot) => *slot = entry,
            None => autos.state.entries.push(entry),
        }
        autos.publish(&mut self.core, uri);
    }

    /// Removes an automation: its runs under way are cancelled, its runs forgotten.
    fn remove_automation(&mut self, uri: &str) {
        let runs: Vec<String> = self
            .automations
            .runs
            .values()
            .filter(|r| r.state.automation == uri)
            .map(|r| r.state.resource.clone())
            .collect();
        for run in &runs {
            self.cancel_run(run);
        }
        for run in &runs {
            self.automations.drop_run(&mut self.core, run);
        }
        self.automations.books.remove(uri);
        self.automations.state.entries.retain(|e| e.resource != uri);
        self.core
            .ops
            .push(crate::store::Op::DeleteAutomation { uri: uri.into() });
    }

    /// Cancels a run: its turn is cancelled (the run ends when the turn does), or a run
    /// without one ends at once.
    fn cancel_run(&mut self, run: &str) {
        let Some(state) = self.automations.runs.get(run).map(|r| r.state.clone()) else {
            return;
        };
        let turn = state.primary_session.as_deref().and_then(|s| {
            let turn = self.core.sessions.get(s)?.active_turn_id()?;
            Some((s.to_owned(), turn.to_owned()))
        });
        if let Some((session, turn_id)) = turn {
            let cancelled =
                v03::StateAction::SessionTurnCancelled(v03::SessionTurnCancelledAction {
                    turn_id,
                    extra: Default::default(),
                });
            if self.apply_server(&session, cancelled) {
                return;
            }
        }
        let (created, started) = lifecycle_times(&state.lifecycle);
        let lifecycle = cancelled_lifecycle(created, started, now_iso());
        self.automations.end_run(&mut self.core, run, lifecycle);
    }

    /// `runAutomation`: a manual run (the same run again for a `requestId` seen before).
    pub(in crate::hub) fn run_automation_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: v1::RunAutomationParams,
    ) -> Result<(), ErrorObject> {
        if self.automations.entry(&p.automation).is_none() {
            return Err(ErrorObject::new(
                errors::NOT_FOUND,
                AutomationError::Unknown(p.automation.chars().take(120).collect()).to_string(),
            ));
        }
        // A manual run uses the agent on this client's behalf (scheduled ones on the
        // behalf of whoever saved the automation, checked then).
        self.agent_usable(conn)?;
        if p.request_id.is_empty() || p.request_id.len() > 256 {
            return Err(invalid("`requestId` must be 1 to 256 bytes"));
        }
        let seen = self.automations.runs.values().find(|r| {
            r.state.automation == p.automation && r.request_id.as_deref() == Some(&p.request_id)
        });
        let resource = match seen {
            Some(run) => run.state.resource.clone(),
            None => {
                let origin = json!({ "kind": "manual" });
                self.start_automation_run(&p.automation, origin, Some(p.request_id))
            }
        };
        self.core
            .respond(conn, id, &json!({ "resource": resource }));
        Ok(())
    }

    /// `fetchAutomationRuns`: the entry shows one more page of older runs.
    pub(in crate::hub) fn fetch_automation_runs_v1(
        &mut self,
        conn: ConnId,
        id: &RequestId,
        p: v1::FetchAutomationRunsParams,
    ) -> Result<(), ErrorObject> {
        let Some(entry) = self.automations.entry(&p.automation) else {
            return Err(ErrorObject::new(
                errors::NOT_FOUND,
                AutomationError::Unknown(p.automation.chars().take(120).collect()).to_string(),
            ));
        };
        let next = entry.runs_next_cursor.clone();
        if p.cursor.is_some() && p.cursor != next {
            return Err(invalid("`cursor` is not the automation's `runsNextCursor`"));
        }
        if let Some(book) = self.automations.books.get_mut(&p.automation) {
            if next.is_some() {
                book.shown += RUN_PAGE;
            }
        }
        self.automations.publish(&mut self.core, &p.automation);
        self.core.respond(conn, id, &json!({}));
        Ok(())
    }

    /// Starts a run of `automation`: the run is recorded (pending), then its session is
    /// created from the template and prompted with the message (running); a session that
    /// cannot be created fails the run. Returns the run's channel.
    fn start_automation_run(
        &mut self,
        automation: &str,
        origin: Value,
        request_id: Option<String>,
    ) -> String {
        let id = new_id();
        let run_uri = format!("{RUN_PREFIX}{id}");
        let created = now_iso();
        let state = json!({
            "resource": run_uri, "automation": automation, "origin": origin,
            "lifecycle": { "status": "pending", "createdAt": created }, "sessions": [],
        });
        let Ok(state) = serde_json::from_value(state) else {
            return run_uri;
        };
        let Some(def) = self
            .automations
            .entry(automation)
            .map(|e| e.definition.clone())
        else {
            return run_uri;
        };
        self.automations.runs.insert(
            run_uri.clone(),
            Run {
                state,
                subs: Vec::new(),
                created: self.core.seq,
                request_id,
            },
        );
        self.automations.persist_run(&mut self.core, &run_uri);
        self.automations.publish(&mut self.core, automation);
        let session = format!("ahp-session:/automation-{id}");
        let origin = json!({ "kind": "automation", "automation": automation, "run": run_uri });
        if let Err(e) = self.open_run_session(&session, &def.session, origin) {
            let lifecycle = failed_lifecycle(created, None, "SessionCreationFailed", &e.message);
            self.automations
                .end_run(&mut self.core, &run_uri, lifecycle);
            return run_uri;
        }
        let autos = &mut self.automations;
        let core = &mut self.core;
        let set = json!({ "type": "automationRun/sessionSet", "session": session });
        autos.send(core, &run_uri, set, None);
        let primary =
            json!({ "type": "automationRun/primarySessionChanged", "primarySession": session });
        autos.send(core, &run_uri, primary, None);
        let running = json!({ "type": "automationRun/lifecycleChanged", "lifecycle": {
            "status": "running", "createdAt": created, "startedAt": now_iso() }});
        autos.run_action(core, &run_uri, running);
        let started =
            v03::StateAction::SessionTurnStarted(Box::new(v03::SessionTurnStartedAction {
                turn_id: super::super::turns::new_turn_id(),
                message: v03::Message {
                    text: def.message.text.clone(),
                    origin: v03::MessageOrigin {
                        kind: "automation".into(),
                        extra: Default::default(),
                    },
                    ..Default::default()
                },
                queued_message_id: None,
                extra: Default::default(),
            }));
        if !self.apply_server(&session, started) {
            let lifecycle = failed_lifecycle(
                created,
                Some(now_iso()),
                "TurnNotStarted",
                "the run's session did not start its turn",
            );
            self.automations
                .end_run(&mut self.core, &run_uri, lifecycle);
        }
        let dropped = self.automations.prune(&mut self.core, automation);
        if !dropped.is_empty() {
            self.automations.publish(&mut self.core, automation);
        }
        for session in dropped {
            let _ = self.close_session(&session, None);
        }
        run_uri
    }

    /// Creates a run's session from the automation's template, as `createSession` would.
    fn open_run_session(
        &mut self,
        uri: &str,
        template: &v1::AutomationSessionTemplate,
        origin: Value,
    ) -> Result<(), ErrorObject> {
        let mut params = json!({ "channel": uri });
        if let Some(provider) = &template.provider {
            params["provider"] = provider.clone().into();
        }
        if let Some(dir) = template
            .working_directories
            .as_ref()
            .and_then(|d| d.first())
        {
            params["workingDirectory"] = dir.clone().into();
        }
        if let Some(config) = &template.config {
            params["config"] = serde_json::to_value(config).unwrap_or_default();
        }
        if let Some(model) = &template.model {
            params["model"] = serde_json::to_value(model).unwrap_or_default();
        }
        if let Some(agent) = &template.agent {
            params["agent"] = serde_json::to_value(agent).unwrap_or_default();
        }
        let p = serde_json::from_value(params).map_err(|e| invalid(format!("session: {e}")))?;
        self.open_session(None, p, Some(origin))
    }

    /// Wakes the hub when the earliest enabled trigger is due.
    pub(in crate::hub) fn arm_automations(&mut self) {
        let autos = &mut self.automations;
        autos.timer += 1;
        let earliest = autos
            .state
            .entries
            .iter()
            .filter(|e| e.definition.enabled)
            .filter_map(|e| autos.books.get(&e.resource)?.due.values().min().copied())
            .min();
        let Some(due) = earliest else {
            return;
        };
        let wait = Timestamp::now().duration_until(due);
        let wait = std::time::Duration::try_from(wait).unwrap_or_default();
        let (timer, hub) = (autos.timer, self.core.tx.clone());
        self.core.rt.spawn(async move {
            tokio::time::sleep(wait).await;
            let _ = hub.send(HubMsg::AutomationDue { timer }).await;
        });
    }

    /// The scheduler woke up: every enabled trigger that is due starts a run, then is
    /// scheduled again; disable conditions are checked as runs are admitted.
    pub(in crate::hub) fn on_automation_due(&mut self, timer: u64) {
        if timer != self.automations.timer {
            return;
        }
        let now = Timestamp::now();
        let mut fire = Vec::new();
        for entry in &self.automations.state.entries {
            let Some(book) = self.automations.books.get(&entry.resource) else {
                continue;
            };
            if !entry.definition.enabled {
                continue;
            }
            for trigger in &entry.definition.triggers {
                let Some(id) = schedule::trigger_id(trigger) else {
                    continue;
                };
                if book.due.get(id).is_some_and(|due| *due <= now) {
                    fire.push((entry.resource.clone(), trigger.clone(), id.to_owned()));
                }
            }
        }
        for (automation, trigger, id) in fire {
            if !self.admit_scheduled(&automation, now) {
                continue;
            }
            let Some(book) = self.automations.books.get_mut(&automation) else {
                continue;
            };
            let Some(due) = book.due.get(&id).copied() else {
                continue;
            };
            let catch_up = book.catch_up.remove(&id);
            let after = if due > now { due } else { now };
            match next_due(&trigger, after) {
                Some(next) => book.due.insert(id.clone(), next),
                None => book.due.remove(&id),
            };
            let mut origin = json!({ "kind": "trigger", "triggerId": id });
            if matches!(trigger, v1::AutomationTrigger::Schedule(_)) {
                origin["scheduledFor"] = iso(due).into();
            }
            if catch_up {
                origin["catchUp"] = true.into();
            }
            self.start_automation_run(&automation, origin, None);
        }
        self.arm_automations();
    }

    /// Counts a scheduled run against the automation's allowance; whether it may run. The
    /// automation disables itself when a condition is met.
    fn admit_scheduled(&mut self, uri: &str, now: Timestamp) -> bool {
        let Some(entry) = self
            .automations
            .state
            .entries
            .iter_mut()
            .find(|e| e.resource == uri)
        else {
            return false;
        };
        if !entry.definition.enabled {
            return false;
        }
        let conditions = entry
            .definition
            .disable_conditions
            .clone()
            .unwrap_or_default();
        let past_date = conditions.iter().any(|c| match c {
            v1::AutomationDisableCondition::AfterDate(d) => {
                d.date.parse::<Timestamp>().is_ok_and(|d| d <= now)
            }
            _ => false,
        });
        let max_runs = conditions.iter().find_map(|c| match c {
            v1::AutomationDisableCondition::AfterRuns(r) => Some(r.max),
            _ => None,
        });
        let used = entry.run_count.unwrap_or(0);
        let admitted = !past_date && max_runs.is_none_or(|max| used < max);
        if admitted && max_runs.is_some() {
            entry.run_count = Some(used + 1);
        }
        let exhausted = max_runs.is_some_and(|max| entry.run_count.unwrap_or(0) >= max);
        if past_date || exhausted {
            entry.definition.enabled = false;
        }
        if !admitted || past_date || exhausted {
            self.automations.publish(&mut self.core, uri);
        }
        admitted
    }

    /// `listAutomationTriggerDefinitions`: the host's event trigger types.
    pub(in crate::hub) fn list_automation_triggers_v1(&mut self, conn: ConnId, id: &RequestId) {
        self.core
            .respond(conn, id, &schedule::trigger_definitions());
    }
}

/// An accepted request on the automations' channels.
enum Change {
    Create(String, v1::AutomationDefinition),
    Update(String, v1::AutomationDefinition),
    Remove(String),
    Cancel(String),
}

/// `def` with `patch`'s fields replaced.
fn patched(
    def: &v1::AutomationDefinition,
    patch: &v1::AutomationDefinitionPatch,
) -> v1::AutomationDefinition {
    let mut out = def.clone();
    if let Some(title) = &patch.title {
        out.title = title.clone();
    }
    if let Some(message) = &patch.message {
        out.message = message.clone();
    }
    if let Some(session) = &patch.session {
        out.session = session.clone();
    }
    if let Some(enabled) = patch.enabled {
        out.enabled = enabled;
    }
    if let Some(triggers) = &patch.triggers {
        out.triggers = triggers.clone();
    }
    if let Some(conditions) = &patch.disable_conditions {
        out.disable_conditions = Some(conditions.clone()).filter(|c| !c.is_empty());
    }
    if let Some(meta) = &patch.meta {
        out.meta = Some(meta.clone());
    }
    out
}

fn status_of(lifecycle: &v1::AutomationRunLifecycle) -> &'static str {
    use v1::AutomationRunLifecycle as L;
    match lifecycle {
        L::Pending(_) => "pending",
        L::Running(_) => "running",
        L::Completed(_) => "completed",
        L::Failed(_) => "failed",
        L::Cancelled(_) => "cancelled",
        L::Unknown(_) => "in an unknown state",
    }
}
