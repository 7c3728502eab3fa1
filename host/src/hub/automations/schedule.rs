//! What an automation's definition may say on this host, and when its triggers fire.
//!
//! Schedule triggers use AHP's five-field cron grammar in an IANA time zone: the fields are
//! checked against that grammar here (`croner` alone also takes seconds, years, `@daily`,
//! `L`, `W`, `#` and `?`, which AHP does not) and evaluated by `croner` with `jiff`'s zones.
//! The host also offers one event trigger type, [`INTERVAL`]: a run every `seconds` seconds,
//! for schedules finer than cron's minute.

use ahp_wasm::protocol::v1;
use croner::parser::{CronParser, Seconds, Year};
use croner::Cron;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan, Unit, Zoned};
use serde_json::{json, Value};
use std::collections::HashSet;

/// The host's event trigger type: every `config.seconds` seconds.
pub(crate) const INTERVAL: &str = "ahp-host.interval";
/// The one event of [`INTERVAL`].
const INTERVAL_EVENT: &str = "elapsed";
/// Bounds of [`INTERVAL`]'s `seconds`.
const INTERVAL_SECONDS: (i64, i64) = (1, 7 * 24 * 3600);
/// At most this many triggers per automation.
const MAX_TRIGGERS: usize = 16;
/// Longest title, trigger id, expression or time zone name.
const MAX_NAME: usize = 256;
/// Longest initial message.
const MAX_MESSAGE: usize = 64 * 1024;

/// Why a definition (or a request about an automation) is refused; its text is the
/// rejection reason the client gets.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AutomationError {
    /// The resource is not `ahp-automation:/<id>` (printable, at most 256 bytes).
    Resource(String),
    /// The resource names an automation that exists (create) or none (update, remove, run).
    Exists(String),
    /// No such automation.
    Unknown(String),
    /// Title or message out of bounds, or a message not of kind `automation`.
    Field(&'static str, String),
    /// A trigger is malformed (duplicate id, unknown event type, bad config).
    Trigger { id: String, reason: String },
    /// A schedule's expression or time zone is not AHP's.
    Schedule { id: String, reason: String },
    /// Disable conditions malformed (duplicate kind, `max` below 1, a date that is none).
    DisableConditions(String),
    /// The session template names what this host cannot create.
    Session(String),
    /// A limit of this host.
    Limit(String),
    /// The run is over already.
    NotCancellable(String),
}

impl std::fmt::Display for AutomationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Resource(r) => write!(
                f,
                "`{r}` is not an automation resource (ahp-automation:/<id>, printable, <= 256 bytes)"
            ),
            Self::Exists(r) => write!(f, "automation {r} exists already"),
            Self::Unknown(r) => write!(f, "no automation {r} on this host"),
            Self::Field(field, why) => write!(f, "`{field}`: {why}"),
            Self::Trigger { id, reason } => write!(f, "trigger `{id}`: {reason}"),
            Self::Schedule { id, reason } => write!(f, "schedule of trigger `{id}`: {reason}"),
            Self::DisableConditions(why) => write!(f, "`disableConditions`: {why}"),
            Self::Session(why) => write!(f, "`session`: {why}"),
            Self::Limit(why) => f.write_str(why),
            Self::NotCancellable(status) => write!(f, "the run is {status}: it cannot be cancelled"),
        }
    }
}

impl std::error::Error for AutomationError {}

/// The event trigger types this host offers (`listAutomationTriggerDefinitions`).
pub(crate) fn trigger_definitions() -> Value {
    json!({ "items": [{
        "type": INTERVAL,
        "title": "Interval",
        "description": "Runs the automation every `seconds` seconds (from 1 s to a week), \
                        counted from when the trigger was saved.",
        "events": [{ "id": INTERVAL_EVENT, "title": "Interval elapsed" }],
        "configSchema": {
            "type": "object",
            "properties": { "seconds": {
                "type": "number",
                "title": "Seconds",
                "description": "Seconds between runs (1 to 604800)."
            }},
            "required": ["seconds"]
        }
    }]})
}

/// Checks a resource is `ahp-automation:/<id>`.
pub(crate) fn check_resource(uri: &str) -> Result<(), AutomationError> {
    let ok = uri
        .strip_prefix(super::AUTOMATION_PREFIX)
        .is_some_and(|id| !id.is_empty() && !id.contains('/'))
        && uri.len() <= MAX_NAME
        && uri.chars().all(|c| !c.is_control() && !c.is_whitespace());
    if ok {
        Ok(())
    } else {
        Err(AutomationError::Resource(uri.chars().take(64).collect()))
    }
}

/// Checks what [`super::Automations`] needs of a definition beyond decoding: bounds, an
/// `automation` message, triggers and disable conditions. The session template is the
/// hub's to check (providers, working directories).
pub(crate) fn check_definition(def: &v1::AutomationDefinition) -> Result<(), AutomationError> {
    let field = |name, why: &str| Err(AutomationError::Field(name, why.into()));
    if def.title.trim().is_empty() || def.title.len() > MAX_NAME {
        return field("title", "must be 1 to 256 bytes, not blank");
    }
    if def.message.text.len() > MAX_MESSAGE {
        return field("message.text", "longer than 64 KiB");
    }
    if def.message.text.trim().is_empty() {
        return field("message.text", "must not be blank");
    }
    if !matches!(def.message.origin.kind, v1::MessageKind::Automation) {
        return field("message.origin.kind", "must be `automation`");
    }
    if def.triggers.len() > MAX_TRIGGERS {
        return Err(AutomationError::Limit(format!(
            "at most {MAX_TRIGGERS} triggers per automation"
        )));
    }
    let mut ids = HashSet::new();
    for trigger in &def.triggers {
        let id = trigger_id(trigger).unwrap_or_default().to_owned();
        if id.is_empty() || id.len() > MAX_NAME {
            return Err(AutomationError::Trigger {
                id,
                reason: "its id must be 1 to 256 bytes".into(),
            });
        }
        if !ids.insert(id.clone()) {
            return Err(AutomationError::Trigger {
                id,
                reason: "another trigger has this id".into(),
            });
        }
        match trigger {
            v1::AutomationTrigger::Schedule(s) => {
                parse_schedule(&s.schedule).map_err(|reason| AutomationError::Schedule {
                    id: id.clone(),
                    reason,
                })?;
            }
            v1::AutomationTrigger::Event(e) => {
                interval_seconds(e).map_err(|reason| AutomationError::Trigger { id, reason })?;
            }
            v1::AutomationTrigger::Unknown(_) => {
                return Err(AutomationError::Trigger {
                    id,
                    reason: "this host knows `schedule` and `event` triggers only".into(),
                })
            }
        }
    }
    check_disable_conditions(def.disable_conditions.as_deref())
}

fn check_disable_conditions(
    conditions: Option<&[v1::AutomationDisableCondition]>,
) -> Result<(), AutomationError> {
    let bad = |why: &str| Err(AutomationError::DisableConditions(why.into()));
    let (mut runs, mut date) = (false, false);
    for condition in conditions.unwrap_or_default() {
        match condition {
            v1::AutomationDisableCondition::AfterRuns(c) => {
                if std::mem::replace(&mut runs, true) {
                    return bad("`afterRuns` appears twice");
                }
                if c.max < 1 {
                    return bad("`afterRuns.max` must be at least 1");
                }
            }
            v1::AutomationDisableCondition::AfterDate(c) => {
                if std::mem::replace(&mut date, true) {
                    return bad("`afterDate` appears twice");
                }
                if c.date.parse::<Timestamp>().is_err() {
                    return bad("`afterDate.date` is not an ISO 8601 timestamp");
                }
            }
            v1::AutomationDisableCondition::Unknown(_) => {
                return bad("this host knows `afterRuns` and `afterDate` only")
            }
        }
    }
    Ok(())
}

/// A trigger's id.
pub(crate) fn trigger_id(trigger: &v1::AutomationTrigger) -> Option<&str> {
    match trigger {
        v1::AutomationTrigger::Schedule(s) => Some(&s.id),
        v1::AutomationTrigger::Event(e) => Some(&e.id),
        v1::AutomationTrigger::Unknown(_) => None,
    }
}

/// The period of an [`INTERVAL`] trigger.
fn interval_seconds(e: &v1::AutomationEventTrigger) -> Result<i64, String> {
    if e.r#type != INTERVAL {
        return Err(format!(
            "unknown event trigger type `{}` (this host offers `{INTERVAL}`)",
            e.r#type.chars().take(64).collect::<String>()
        ));
    }
    if e.events.len() != 1 || e.events[0].id != INTERVAL_EVENT {
        return Err(format!("`events` must be exactly `{INTERVAL_EVENT}`"));
    }
    let seconds = e
        .config
        .as_ref()
        .and_then(|c| serde_json::to_value(c).ok())
        .and_then(|c| c.get("seconds").and_then(Value::as_f64));
    let (min, max) = INTERVAL_SECONDS;
    match seconds {
        Some(s) if s.fract() == 0.0 && (min as f64..=max as f64).contains(&s) => Ok(s as i64),
        _ => Err(format!(
            "`config.seconds` must be a whole number from {min} to {max}"
        )),
    }
}

/// A schedule in AHP's grammar, parsed; the error says what is wrong.
fn parse_schedule(schedule: &v1::AutomationSchedule) -> Result<(Cron, TimeZone), String> {
    let expression = &schedule.expression;
    if expression.len() > MAX_NAME || schedule.time_zone.len() > MAX_NAME {
        return Err("longer than 256 bytes".into());
    }
    let fields: Vec<&str> = expression.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "`{expression}` has {} fields; AHP schedules have exactly five \
             (minute hour day-of-month month day-of-week)",
            fields.len()
        ));
    }
    for (i, field) in fields.iter().enumerate() {
        check_field(field, i).map_err(|why| format!("`{expression}`: field {}: {why}", i + 1))?;
    }
    let cron = CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
        .parse(expression)
        .map_err(|e| format!("`{expression}`: {e}"))?;
    let tz = TimeZone::get(&schedule.time_zone)
        .map_err(|_| format!("`{}` is not an IANA time zone", schedule.time_zone))?;
    Ok((cron, tz))
}

/// One cron field in AHP's grammar: `*`, values, ranges, lists, steps on `*` or a range;
/// names (`JAN`, `MON`) in the month and weekday fields only.
fn check_field(field: &str, index: usize) -> Result<(), String> {
    const MONTHS: [&str; 12] = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ];
    const DAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
    let value = |v: &str| {
        let upper = v.to_ascii_uppercase();
        !v.is_empty()
            && (v.bytes().all(|b| b.is_ascii_digit())
                || (index == 3 && MONTHS.contains(&upper.as_str()))
                || (index == 4 && DAYS.contains(&upper.as_str())))
    };
    for item in field.split(',') {
        let (range, step) = match item.split_once('/') {
            Some((range, step)) => (range, Some(step)),
            None => (item, None),
        };
        if let Some(step) = step {
            let positive = !step.is_empty()
                && step.bytes().all(|b| b.is_ascii_digit())
                && step.parse::<u32>().is_ok_and(|s| s > 0);
            if !positive {
                return Err(format!("`{item}`: a step must be a positive integer"));
            }
            if range != "*" && !range.contains('-') {
                return Err(format!("`{item}`: a step applies to `*` or a range"));
            }
        }
        let ok = range == "*"
            || match range.split_once('-') {
                Some((a, b)) => value(a) && value(b),
                None => value(range),
            };
        if !ok {
            return Err(format!("`{item}` is not a value, range or `*`"));
        }
    }
    Ok(())
}

/// When a trigger fires next after `after`; `None` for one that never fires again.
pub(crate) fn next_due(trigger: &v1::AutomationTrigger, after: Timestamp) -> Option<Timestamp> {
    match trigger {
        v1::AutomationTrigger::Schedule(s) => {
            let (cron, tz) = parse_schedule(&s.schedule).ok()?;
            let start: Zoned = after.to_zoned(tz);
            let next = cron.find_next_occurrence(&start, false).ok()?;
            Some(next.timestamp())
        }
        v1::AutomationTrigger::Event(e) => {
            let seconds = interval_seconds(e).ok()?;
            after.checked_add(seconds.seconds()).ok()
        }
        v1::AutomationTrigger::Unknown(_) => None,
    }
}

/// Whether a trigger's missed occurrence is made up with one catch-up run (`runOnce`, the
/// default) rather than skipped. Interval triggers skip.
pub(crate) fn catches_up(trigger: &v1::AutomationTrigger) -> bool {
    match trigger {
        v1::AutomationTrigger::Schedule(s) => {
            !matches!(s.misfire_policy, Some(v1::AutomationMisfirePolicy::Skip))
        }
        _ => false,
    }
}

/// `t` as AHP writes timestamps (ISO 8601, milliseconds, UTC).
pub(crate) fn iso(t: Timestamp) -> String {
    t.round(Unit::Millisecond).unwrap_or(t).to_string()
}

/// Now, as [`iso`] writes it.
pub(crate) fn now_iso() -> String {
    iso(Timestamp::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(expression: &str, tz: &str) -> v1::AutomationSchedule {
        serde_json::from_value(json!({"expression": expression, "timeZone": tz})).unwrap()
    }

    #[test]
    fn ahp_grammar_is_accepted_and_extensions_are_not() {
        for good in [
            "* * * * *",
            "30 9 * * *",
            "0 */3 * * *",
            "1-30/2 0 1,15 JAN-mar mon-FRI",
            "0 0 * * 7",
        ] {
            assert!(
                parse_schedule(&schedule(good, "Europe/Berlin")).is_ok(),
                "{good}"
            );
        }
        for bad in [
            "* * * *",
            "0 * * * * *",
            "@daily",
            "0 0 L * *",
            "0 0 ? * MON",
            "0 0 * * MON#2",
            "0/5 * * * *",
            "*/0 * * * *",
            "61 * * * *",
            "0 0 * JAN MON-",
            "0 0 * * JAN",
        ] {
            assert!(parse_schedule(&schedule(bad, "UTC")).is_err(), "{bad}");
        }
        assert!(parse_schedule(&schedule("* * * * *", "Mars/Olympus")).is_err());
    }

    #[test]
    fn occurrences_follow_the_time_zone() {
        let trigger: v1::AutomationTrigger = serde_json::from_value(json!({
            "kind": "schedule", "id": "m",
            "schedule": {"expression": "30 9 * * *", "timeZone": "Europe/Berlin"}
        }))
        .unwrap();
        let after: Timestamp = "2026-08-05T12:00:00Z".parse().unwrap();
        let next = next_due(&trigger, after).unwrap();
        assert_eq!(iso(next), "2026-08-06T07:30:00Z");
    }
}
